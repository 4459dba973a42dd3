// The dashboard: open a mebo blob or a set of consecutive blobs (a bundled
// sample, dropped or picked files), show its options and metrics, chart the
// selected numeric metrics with uPlot, list text metrics as rows. Everything
// is decoded here, in the browser, by the SDK's WebAssembly. Charts are drawn
// from series decimated in wasm to the chart's pixel width (M4: first, min,
// max and last point per pixel column, which draws the same lines as every
// point); zooming re-reads the visible range from the blob at full resolution.

import * as mebo from 'mebo';
import uPlot from 'uplot';
import { setupBench } from './bench-panel.js';
import { setupFormats } from './formats.js';
import type { Sample, SampleIndex } from './samples.js';
import { open, type MetricRow, type Opened } from './view.js';

const PALETTE = ['#3158d4', '#e0662d', '#1b9e77', '#c2338a', '#7a5af8', '#b7950b', '#0e9384', '#d92d20', '#475467', '#2e90fa', '#66c61c', '#ee46bc'];
/** Most series charted at once. */
const MAX_SERIES = PALETTE.length;
/** Most rows the text view lists. */
const TEXT_ROWS = 500;
/** Metrics selected when a blob opens. */
const DEFAULT_SELECTION = 4;

/** What the headless check (check.mjs) reads. */
interface DemoState {
  state: 'loading' | 'ready' | 'charted' | 'listed' | 'error';
  sample: string | undefined;
  series: number;
  /** Points drawn (after decimation) or rows listed. */
  points: number;
  /** The chart's time window: epoch ms, or undefined for everything. */
  view: { from: number; to: number } | undefined;
  /** Points of the window the drawn points were taken from (NaN values not counted). */
  sourcePoints: number;
  decimated: boolean;
  /** Blobs opened (1, or the windows of a set). */
  blobs: number;
  /** mebo.memoryInfo() when the view last changed. */
  memory: mebo.MemoryInfo | undefined;
  errors: string[];
}

const state: DemoState = { state: 'loading', sample: undefined, series: 0, points: 0, view: undefined, sourcePoints: 0, decimated: false, blobs: 0, memory: undefined, errors: [] };
(globalThis as unknown as { meboDemo: DemoState }).meboDemo = state;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

let current: Opened | undefined;
/** The chart's zoomed time window (epoch ms), or undefined for everything. */
let window_: { from: number; to: number } | undefined;
let selected: bigint[] = [];
let chart: uPlot | undefined;
let samples: Sample[] = [];

// ------------------------------------------------------------------ formatting

const integer = new Intl.NumberFormat('en-US');

function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** Epoch milliseconds (fractional) as ISO 8601 with microseconds; out of Date's range: the raw figure. */
function timeText(ms: number): string {
  const whole = Math.floor(ms);
  const date = new Date(whole);
  if (!Number.isFinite(date.getTime())) return `${ms * 1000} µs`;
  const micros = Math.round((ms - whole) * 1000);
  return date.toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

function metricLabel(m: MetricRow): string {
  return m.name ?? `0x${m.hex}`;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

function showError(error: unknown): void {
  const box = $('error');
  const text = error instanceof mebo.MeboError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  box.textContent = text;
  box.hidden = false;
  state.errors.push(text);
}

// ------------------------------------------------------------------ opening blobs

/** What `show` opened last: `give memory back` opens it again in a fresh module. */
let shown: { parts: Uint8Array[]; label: string; names: Record<string, string> } | undefined;

/** The module's memory (mebo.memoryInfo()): WebAssembly memory only grows, so a large blob leaves its peak behind. */
function renderMemory(): void {
  const info = mebo.memoryInfo();
  state.memory = info;
  const objects = `${info.liveHandles} SDK object${info.liveHandles === 1 ? '' : 's'} alive`;
  $('memory').textContent = `module memory ${bytesText(info.memoryBytes)} (peak ${bytesText(info.peakMemoryBytes)}), ${objects}${info.resets ? `, ${info.resets} reset${info.resets === 1 ? '' : 's'}` : ''}`;
}

/** Free the open blob, reset the module (its memory back to about 1 MB), open the blob again. */
async function giveMemoryBack(): Promise<void> {
  const again = shown;
  current?.free();
  current = undefined;
  try {
    await mebo.reset();
  } catch (error) {
    showError(error);
  }
  if (again) show(again.parts, again.label, again.names);
  renderMemory();
}

function show(parts: Uint8Array[], label: string, names: Record<string, string>): void {
  $('error').hidden = true;
  let opened: Opened;
  try {
    opened = open(parts, label, names);
  } catch (error) {
    showError(error);
    state.state = 'error';
    return;
  }
  current?.free();
  current = opened;
  shown = { parts, label, names };
  state.blobs = opened.blobs;
  window_ = undefined;
  selected = opened.metrics.slice(0, opened.kind === 'text' ? 1 : DEFAULT_SELECTION).map((m) => m.id);
  renderOptions();
  renderMetrics();
  renderView();
  renderMemory();
}

async function fetchBytes(path: string): Promise<Uint8Array> {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function loadSample(sample: Sample): Promise<void> {
  state.state = 'loading';
  state.sample = sample.id;
  $('sample-note').textContent = sample.note;
  const parts = await Promise.all(sample.files.map((f) => fetchBytes(`samples/${f}`)));
  show(parts, sample.label, sample.names);
}

/** One file opens as a blob; several as a set of consecutive windows, charted as one series per metric. */
async function loadFiles(files: File[]): Promise<void> {
  state.sample = undefined;
  ($('sample') as HTMLSelectElement).value = '';
  const label = files.length === 1 ? files[0].name : `${files.length} files (${files.map((f) => f.name).join(', ')})`;
  $('sample-note').textContent = `${label}: opened from your disk${files.length > 1 ? ' as a set of windows' : ''}; names are shown when the blob carries them, else ids.`;
  show(await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer()))), label, {});
}

// ------------------------------------------------------------------ rendering

function renderOptions(): void {
  if (!current) return;
  const { kind, size, totalPoints, metrics, decodeMs, warmMs, options, blobs } = current;
  const start = current.startTime;
  const entries: [string, string][] = [
    ['kind', blobs > 1 ? `${kind} set of ${blobs} blobs` : kind],
    ['size', `${bytesText(size)} (${integer.format(size)} bytes)`],
    ['metrics', integer.format(metrics.length)],
    ['points', integer.format(totalPoints)],
    ['bytes / point', totalPoints ? (size / totalPoints).toFixed(2) : '-'],
    ['start time', timeText(Number(start) / 1000)],
    [
      'decoded in',
      `${warmMs.toFixed(2)} ms (${blobs > 1 ? 'open + materialize' : kind === 'numeric' ? 'open + columnsView' : 'open + decodeAll'}); the first run, which also compiles the decoder, ${decodeMs.toFixed(2)} ms`,
    ],
    ...Object.entries(options).map(([key, value]): [string, string] => [key, String(value)]),
  ];
  $('options').replaceChildren(...entries.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: v })]));
}

function renderMetrics(): void {
  if (!current) return;
  const filter = ($('metric-filter') as HTMLInputElement).value.trim().toLowerCase();
  const rows = current.metrics.filter((m) => !filter || metricLabel(m).toLowerCase().includes(filter) || m.hex.includes(filter));
  const named = current.metrics.filter((m) => m.name !== undefined).length;
  $('metric-summary').textContent = `${integer.format(current.metrics.length)} · ${selected.length} selected${named < current.metrics.length ? ` · ${named ? 'some' : 'no'} names` : ''}`;
  const body = ($('metrics') as HTMLTableElement).tBodies[0];
  body.replaceChildren(
    ...rows.map((m) => {
      const at = selected.indexOf(m.id);
      const swatch = el('span', { className: 'swatch' });
      swatch.style.background = at >= 0 && at < MAX_SERIES ? PALETTE[at] : 'transparent';
      const label = el('td', {}, m.name ?? '', m.name ? el('br') : '', el('span', { className: 'id', textContent: `0x${m.hex}` }));
      const row = el('tr', { className: at >= 0 ? 'selected' : '' }, el('td', {}, swatch), label, el('td', { className: 'num', textContent: integer.format(m.points) }));
      row.addEventListener('click', () => toggle(m.id));
      return row;
    }),
  );
}

function toggle(id: bigint): void {
  const at = selected.indexOf(id);
  if (at >= 0) selected.splice(at, 1);
  else if (current?.kind === 'text') selected = [id];
  else selected.push(id);
  renderMetrics();
  renderView();
}

function renderView(): void {
  if (!current) return;
  if (current.kind === 'numeric') renderChart(current);
  else renderText(current);
}

/** The chart's data for the current window: each metric decimated in wasm to the chart's pixel width, joined on time. */
function chartData(view: Opened, shown: bigint[], width: number) {
  let sourcePoints = 0;
  let infinite = 0;
  const tables: uPlot.AlignedData[] = shown.map((id) => {
    const d = view.decimate(id, { method: 'minmax', buckets: Math.max(64, Math.round(width)), ...(window_ ?? {}) });
    sourcePoints += d.sourcePoints;
    const ys = Array.from(d.values, (v) => {
      if (Number.isFinite(v)) return v;
      infinite++;
      return null;
    });
    return [d.timestampsMs, ys] as uPlot.AlignedData;
  });
  // uPlot wants one x column: align the metrics on the union of their timestamps.
  const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
  const points = tables.reduce((n, t) => n + t[0].length, 0);
  return { data, points, sourcePoints, infinite };
}

function renderChart(view: Opened): void {
  $('text-view').hidden = true;
  const chartBox = $('chart');
  chartBox.hidden = false;
  chart?.destroy();
  chart = undefined;
  const shown = selected.slice(0, MAX_SERIES);
  $('view-title').textContent = `Chart — ${view.label}`;
  if (shown.length === 0) {
    $('view-note').textContent = 'Select metrics in the list to chart them.';
    Object.assign(state, { series: 0, points: 0, sourcePoints: 0, decimated: false, view: undefined, state: 'ready' });
    return;
  }
  const byId = new Map(view.metrics.map((m) => [m.id, m]));
  const width = Math.max(320, chartBox.clientWidth);
  const first = chartData(view, shown, width);

  /** Re-read the window from the blob (not from the thinned points) and redraw. */
  const redraw = (u: uPlot) => {
    const next = chartData(view, shown, u.width);
    u.setData(next.data, window_ === undefined);
    if (window_) u.setScale('x', { min: window_.from, max: window_.to });
    describe(next);
  };
  let pending = 0;

  const describe = ({ points, sourcePoints, infinite }: ReturnType<typeof chartData>) => {
    const decimated = points < sourcePoints;
    const range = window_ ? `, ${timeText(window_.from)} – ${timeText(window_.to)}` : '';
    const notes = [
      `${shown.length} metric${shown.length > 1 ? 's' : ''}${view.blobs > 1 ? ` over ${view.blobs} blobs` : ''}${range}: ` +
        (decimated
          ? `${integer.format(sourcePoints)} points decimated in wasm to ${integer.format(points)} (first, min, max and last per pixel column).`
          : `all ${integer.format(sourcePoints)} points.`),
      'Drag to zoom (the range is re-read at full resolution), double-click to reset.',
    ];
    if (selected.length > MAX_SERIES) notes.push(`Only the first ${MAX_SERIES} selected metrics are charted.`);
    const missing = window_ ? 0 : shown.reduce((n, id) => n + (byId.get(id)?.points ?? 0), 0) - sourcePoints;
    if (missing > 0) notes.push(`${missing} NaN values are left out.`);
    if (infinite) notes.push(`${infinite} ±Inf values are not drawn.`);
    $('view-note').textContent = notes.join(' ');
    Object.assign(state, { series: shown.length, points, sourcePoints, decimated, view: window_ ? { ...window_ } : undefined, state: 'charted' });
  };

  const opts: uPlot.Options = {
    width,
    height: 380,
    ms: 1, // x values are epoch milliseconds (decimate's timestampsMs)
    cursor: {
      drag: { x: true, y: false },
      bind: {
        // Double-click: back to every point, re-read from the blob.
        dblclick: (u) => () => {
          window_ = undefined;
          redraw(u);
          return null;
        },
      },
    },
    scales: { x: { time: true } },
    axes: [{}, { size: 70 }],
    series: [
      { label: 'time', value: (_u, v) => (v == null ? '-' : timeText(v)) },
      ...shown.map((id, i) => ({
        label: metricLabel(byId.get(id)!),
        stroke: PALETTE[i],
        width: 1.5,
        spanGaps: true,
        points: { show: (byId.get(id)?.points ?? 0) <= 80 },
      })),
    ],
    hooks: {
      // A drag selects a time range: uPlot zooms to it, and the range is read
      // again from the blob so the zoomed chart is not drawn from thinned points.
      setSelect: [
        (u) => {
          if (u.select.width < 2) return;
          window_ = { from: u.posToVal(u.select.left, 'x'), to: u.posToVal(u.select.left + u.select.width, 'x') };
          cancelAnimationFrame(pending);
          pending = requestAnimationFrame(() => redraw(u));
        },
      ],
    },
  };
  chart = new uPlot(opts, first.data, chartBox);
  describe(first);
}

function renderText(view: Opened): void {
  chart?.destroy();
  chart = undefined;
  $('chart').hidden = true;
  $('text-view').hidden = false;
  $('view-title').textContent = `Rows — ${view.label}`;
  const byId = new Map(view.metrics.map((m) => [m.id, m]));
  const table = $('text-table') as HTMLTableElement;
  table.tHead!.replaceChildren(
    el('tr', {}, el('th', { textContent: '#' }), el('th', { textContent: 'time (UTC)' }), el('th', { textContent: 'value' }), ...(view.hasTags ? [el('th', { textContent: 'tag' })] : [])),
  );
  const rows: HTMLTableRowElement[] = [];
  let total = 0;
  for (const id of selected) {
    const { timestampsMs: ms, values, tags } = view.rows(id);
    total += values.length;
    for (let i = 0; i < values.length && rows.length < TEXT_ROWS; i++) {
      const value = values[i];
      rows.push(
        el(
          'tr',
          {},
          el('td', { className: 'num', textContent: String(i) }),
          el('td', { className: 'time', textContent: timeText(ms[i]) }),
          el('td', { className: 'value val', textContent: value === '' ? '∅ (empty)' : value }),
          ...(view.hasTags ? [el('td', { className: 'value', textContent: tags?.[i] ?? '' })] : []),
        ),
      );
    }
  }
  table.tBodies[0].replaceChildren(...rows);
  const metric = selected.length ? metricLabel(byId.get(selected[0])!) : undefined;
  $('view-note').textContent = metric
    ? `${metric}: ${integer.format(total)} rows${view.blobs > 1 ? ` over ${view.blobs} blobs` : ''}${total > rows.length ? `, the first ${rows.length} shown` : ''}. Text blobs hold strings; pick another metric in the list.`
    : 'Select a metric in the list to see its rows.';
  state.series = selected.length;
  state.points = rows.length;
  state.state = 'listed';
}

// ------------------------------------------------------------------ wiring

function wire(): void {
  const select = $('sample') as HTMLSelectElement;
  select.addEventListener('change', () => {
    const sample = samples.find((s) => s.id === select.value);
    if (sample) {
      history.replaceState(null, '', `#${sample.id}`);
      loadSample(sample).catch(showError);
    }
  });
  $('metric-filter').addEventListener('input', renderMetrics);
  $('memory-reset').addEventListener('click', () => void giveMemoryBack());
  $('select-none').addEventListener('click', () => {
    selected = [];
    renderMetrics();
    renderView();
  });
  const fileInput = $('file') as HTMLInputElement;
  fileInput.addEventListener('change', () => {
    const files = [...(fileInput.files ?? [])];
    if (files.length) loadFiles(files).catch(showError);
    fileInput.value = '';
  });
  const drop = $('drop');
  // Dropping anywhere on the page opens the file instead of navigating to it.
  window.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  window.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) drop.classList.remove('over');
  });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length) loadFiles(files).catch(showError);
  });
  drop.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') fileInput.click();
  });
  let pending = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => chart?.setSize({ width: Math.max(320, $('chart').clientWidth), height: 380 }));
  });
}

async function main(): Promise<void> {
  window.addEventListener('error', (e) => state.errors.push(String(e.message)));
  wire();
  const params = new URLSearchParams(location.search);
  const asked = params.get('variant');
  const variant: mebo.WasmVariant = asked === 'scalar' || asked === 'simd' ? asked : mebo.simdSupported() ? 'simd' : 'scalar';
  const t0 = performance.now();
  await mebo.init({ wasm: fetch(`wasm/mebo_${variant}.wasm`), variant });
  $('runtime').textContent = `wasm ${mebo.wasmVariant()} · ready in ${(performance.now() - t0).toFixed(0)} ms`;

  const index = (await (await fetch('samples/index.json')).json()) as SampleIndex;
  samples = index.samples;
  const select = $('sample') as HTMLSelectElement;
  const groups = new Map<string, HTMLOptGroupElement>();
  for (const s of samples) {
    let group = groups.get(s.group);
    if (!group) groups.set(s.group, (group = el('optgroup', { label: s.group })));
    group.append(el('option', { value: s.id, textContent: `${s.label} — ${bytesText(s.bytes)}` }));
  }
  select.append(el('option', { value: '', textContent: 'a file you opened', disabled: true }), ...groups.values());
  const first = samples.find((s) => s.id === location.hash.slice(1)) ?? samples.find((s) => s.id === index.default) ?? samples[0];
  select.value = first.id;
  await loadSample(first);
  setupBench().catch(showError);
  setupFormats(() => (shown?.parts.length === 1 && current?.kind === 'numeric' ? { bytes: shown.parts[0]!, label: shown.label } : undefined));
}

main().catch((error) => {
  state.state = 'error';
  showError(error);
});
