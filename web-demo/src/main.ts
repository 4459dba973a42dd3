// The dashboard: open a mebo blob (a bundled sample, a dropped or picked
// file), show its options and metrics, chart the selected numeric metrics
// with uPlot, list text metrics as rows. Everything is decoded here, in the
// browser, by the SDK's WebAssembly.

import * as mebo from 'mebo';
import uPlot from 'uplot';
import { setupBench } from './bench-panel.js';
import { idHex, type Sample, type SampleIndex } from './samples.js';

const PALETTE = ['#3158d4', '#e0662d', '#1b9e77', '#c2338a', '#7a5af8', '#b7950b', '#0e9384', '#d92d20', '#475467', '#2e90fa', '#66c61c', '#ee46bc'];
/** Most series charted at once. */
const MAX_SERIES = PALETTE.length;
/** Most rows the text view lists. */
const TEXT_ROWS = 500;
/** Metrics selected when a blob opens. */
const DEFAULT_SELECTION = 4;

interface MetricRow {
  id: bigint;
  hex: string;
  name: string | undefined;
  points: number;
}

interface Opened {
  kind: 'numeric' | 'text';
  blob: mebo.NumericBlob | mebo.TextBlob;
  label: string;
  size: number;
  metrics: MetricRow[];
  totalPoints: number;
  decodeMs: number;
}

/** What the headless check (check.mjs) reads. */
interface DemoState {
  state: 'loading' | 'ready' | 'charted' | 'listed' | 'error';
  sample: string | undefined;
  series: number;
  points: number;
  errors: string[];
}

const state: DemoState = { state: 'loading', sample: undefined, series: 0, points: 0, errors: [] };
(globalThis as unknown as { meboDemo: DemoState }).meboDemo = state;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

let current: Opened | undefined;
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

/** Text blobs carry magic 0xEB1 in bits 4–15 of the little-endian first word; numeric ones 0xEA1–0xEA3. */
function isTextBlob(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && ((bytes[0] | (bytes[1] << 8)) & 0xfff0) === 0xeb10;
}

function open(bytes: Uint8Array, label: string, names: Record<string, string>): Opened {
  const kind = isTextBlob(bytes) ? 'text' : 'numeric';
  const t0 = performance.now();
  const blob = kind === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
  try {
    // One call decodes every metric: the figure shown is open + decodeAll.
    const columns = blob.decodeAll();
    const decodeMs = performance.now() - t0;
    const blobNames = blob.names;
    const metrics: MetricRow[] = Array.from(columns.ids, (id, i) => {
      const hex = idHex(id);
      return { id, hex, name: blobNames?.[i] ?? names[hex], points: columns.offsets[i + 1] - columns.offsets[i] };
    });
    return { kind, blob, label, size: bytes.length, metrics, totalPoints: columns.values.length, decodeMs };
  } catch (error) {
    blob.free();
    throw error;
  }
}

function show(bytes: Uint8Array, label: string, names: Record<string, string>): void {
  $('error').hidden = true;
  let opened: Opened;
  try {
    opened = open(bytes, label, names);
  } catch (error) {
    showError(error);
    state.state = 'error';
    return;
  }
  current?.blob.free();
  current = opened;
  selected = opened.metrics.slice(0, opened.kind === 'text' ? 1 : DEFAULT_SELECTION).map((m) => m.id);
  renderOptions();
  renderMetrics();
  renderView();
}

async function loadSample(sample: Sample): Promise<void> {
  state.state = 'loading';
  state.sample = sample.id;
  $('sample-note').textContent = sample.note;
  const response = await fetch(`samples/${sample.file}`);
  if (!response.ok) throw new Error(`samples/${sample.file}: HTTP ${response.status}`);
  show(new Uint8Array(await response.arrayBuffer()), sample.label, sample.names);
}

async function loadFile(file: File): Promise<void> {
  state.sample = undefined;
  ($('sample') as HTMLSelectElement).value = '';
  $('sample-note').textContent = `${file.name}: opened from your disk; names are shown when the blob carries them, else ids.`;
  show(new Uint8Array(await file.arrayBuffer()), file.name, {});
}

// ------------------------------------------------------------------ rendering

function renderOptions(): void {
  if (!current) return;
  const { blob, kind, size, totalPoints, metrics, decodeMs } = current;
  const options = blob.options as unknown as Record<string, unknown>;
  const start = blob.startTime;
  const entries: [string, string][] = [
    ['kind', kind],
    ['size', `${bytesText(size)} (${integer.format(size)} bytes)`],
    ['metrics', integer.format(metrics.length)],
    ['points', integer.format(totalPoints)],
    ['bytes / point', totalPoints ? (size / totalPoints).toFixed(2) : '-'],
    ['start time', timeText(Number(start) / 1000)],
    ['decoded in', `${decodeMs.toFixed(2)} ms (open + decodeAll, first run)`],
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
  if (current.kind === 'numeric') renderChart(current.blob as mebo.NumericBlob);
  else renderText(current.blob as mebo.TextBlob);
}

function renderChart(blob: mebo.NumericBlob): void {
  $('text-view').hidden = true;
  const chartBox = $('chart');
  chartBox.hidden = false;
  chart?.destroy();
  chart = undefined;
  const shown = selected.slice(0, MAX_SERIES);
  $('view-title').textContent = `Chart — ${current!.label}`;
  if (shown.length === 0) {
    $('view-note').textContent = 'Select metrics in the list to chart them.';
    state.series = 0;
    state.points = 0;
    state.state = 'ready';
    return;
  }
  const byId = new Map(current!.metrics.map((m) => [m.id, m]));
  let nonFinite = 0;
  let backwards = false;
  const tables: uPlot.AlignedData[] = shown.map((id) => {
    const ms = blob.timestampsMs(id);
    const values = blob.values(id);
    const ys = Array.from(values, (v) => {
      if (Number.isFinite(v)) return v;
      nonFinite++;
      return null;
    });
    for (let i = 1; i < ms.length; i++) if (ms[i] < ms[i - 1]) backwards = true;
    return [ms, ys] as uPlot.AlignedData;
  });
  // uPlot wants one x column: align the metrics on the union of their timestamps.
  const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
  const points = tables.reduce((n, t) => n + t[0].length, 0);
  const notes = [`${shown.length} metric${shown.length > 1 ? 's' : ''}, ${integer.format(points)} points; drag to zoom, double-click to reset.`];
  if (selected.length > MAX_SERIES) notes.push(`Only the first ${MAX_SERIES} selected metrics are charted.`);
  if (nonFinite) notes.push(`${nonFinite} NaN / ±Inf values are left out of the chart.`);
  if (backwards) notes.push('Some timestamps go backwards: the chart shows points in time order.');
  $('view-note').textContent = notes.join(' ');

  const width = Math.max(320, chartBox.clientWidth);
  const opts: uPlot.Options = {
    width,
    height: 380,
    ms: 1, // x values are epoch milliseconds (the SDK's timestampsMs)
    cursor: { drag: { x: true, y: false } },
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
  };
  chart = new uPlot(opts, data, chartBox);
  state.series = shown.length;
  state.points = points;
  state.state = 'charted';
}

function renderText(blob: mebo.TextBlob): void {
  chart?.destroy();
  chart = undefined;
  $('chart').hidden = true;
  $('text-view').hidden = false;
  $('view-title').textContent = `Rows — ${current!.label}`;
  const byId = new Map(current!.metrics.map((m) => [m.id, m]));
  const hasTags = blob.options.tags;
  const table = $('text-table') as HTMLTableElement;
  table.tHead!.replaceChildren(
    el('tr', {}, el('th', { textContent: '#' }), el('th', { textContent: 'time (UTC)' }), el('th', { textContent: 'value' }), ...(hasTags ? [el('th', { textContent: 'tag' })] : [])),
  );
  const rows: HTMLTableRowElement[] = [];
  let total = 0;
  for (const id of selected) {
    const ms = blob.timestampsMs(id);
    const values = blob.values(id);
    const tags = hasTags ? blob.tags(id) : undefined;
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
          ...(tags ? [el('td', { className: 'value', textContent: tags[i] })] : []),
        ),
      );
    }
  }
  table.tBodies[0].replaceChildren(...rows);
  const metric = selected.length ? metricLabel(byId.get(selected[0])!) : undefined;
  $('view-note').textContent = metric
    ? `${metric}: ${integer.format(total)} rows${total > rows.length ? `, the first ${rows.length} shown` : ''}. Text blobs hold strings; pick another metric in the list.`
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
  $('select-none').addEventListener('click', () => {
    selected = [];
    renderMetrics();
    renderView();
  });
  const fileInput = $('file') as HTMLInputElement;
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) loadFile(file).catch(showError);
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
    const file = e.dataTransfer?.files[0];
    if (file) loadFile(file).catch(showError);
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
}

main().catch((error) => {
  state.state = 'error';
  showError(error);
});
