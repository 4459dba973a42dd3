// The dashboard: open a mebo blob or a set of consecutive blobs (a bundled
// sample, dropped or picked files), show its options and metrics
// (blob-info.ts, metric-list.ts), chart the selected numeric metrics
// (chart-view.ts) or list a text metric's rows (text-view.ts), and measure
// decode speed (bench/panel.ts). Everything is decoded here, in the browser,
// by the SDK's WebAssembly.

import * as mebo from 'mebo';
import { setupBench } from './bench/panel.js';
import { renderMemory, renderOptions } from './blob-info.js';
import { ChartView, type ChartReport } from './chart-view.js';
import { $, bytesText, el } from './dom.js';
import { MetricList } from './metric-list.js';
import { NameBook } from './names.js';
import { isNamesFile, NamesPanel } from './names-panel.js';
import { setupFormats } from './formats.js';
import type { Sample, SampleIndex } from './samples.js';
import { isStreamFile, StreamPanel, type StreamReport } from './stream-panel.js';
import type { StreamedBlobs } from './streamed.js';
import { renderText } from './text-view.js';
import { nameMetrics, open, type Opened } from './view.js';

/** What the headless check (check.mjs) reads. */
interface DemoState extends ChartReport {
  state: 'loading' | 'ready' | 'charted' | 'listed' | 'error';
  sample: string | undefined;
  /** Blobs opened (1, or the windows of a set). */
  blobs: number;
  /** mebo.memoryInfo() when the view last changed. */
  memory: mebo.MemoryInfo | undefined;
  /** The last stream played: blobs, bytes, progress, how it ended. */
  stream: StreamReport | undefined;
  errors: string[];
}

const state: DemoState = { state: 'loading', sample: undefined, series: 0, points: 0, view: undefined, sourcePoints: 0, decimated: false, panels: [], blobs: 0, memory: undefined, stream: undefined, errors: [] };
(globalThis as unknown as { meboDemo: DemoState }).meboDemo = state;

let current: Opened | undefined;
/** What `show` opened last: `give memory back` opens it again in a fresh module. */
let shown: { parts: Uint8Array[]; label: string; names: Record<string, string> } | undefined;
/** The names the open blob or stream came with (a sample's, from the data it was encoded from). */
let openNames: Record<string, string> = {};
let samples: Sample[] = [];
let streamSample: SampleIndex['stream'] = { file: '', names: {} };
const chart = new ChartView((report) => Object.assign(state, report, { state: report.series ? 'charted' : 'ready' }));
const metrics = new MetricList(renderView);
const book = new NameBook();
const namesPanel = new NamesPanel(book, relabel);
const streams = new StreamPanel({
  opened: openStream,
  grew: (streamed) => {
    if (current !== streamed) return;
    state.blobs = streamed.blobs;
    nameMetrics(streamed.metrics, knownNames()); // metrics that arrived since
    metrics.render();
    renderView();
    renderOptions(streamed);
  },
  report: (report) => (state.stream = { ...report, progress: { ...report.progress } }),
});

/** Names for the open blob's ids: the sample's (from the data it was encoded from) and the user's. */
function knownNames(): Record<string, string> {
  return { ...openNames, ...book.ids };
}

/** The name book changed: name the open metrics again, redraw the list and the chart. */
function relabel(): void {
  if (current) {
    const named = nameMetrics(current.metrics, knownNames());
    namesPanel.summarize(named, current.metrics.filter((m) => m.carried === undefined).length - named);
    metrics.render();
    renderView();
  } else {
    namesPanel.summarize(0, 0);
  }
}

function showError(error: unknown): void {
  const box = $('error');
  const text = error instanceof mebo.MeboError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  box.textContent = text;
  box.hidden = false;
  state.errors.push(text);
}

function renderView(): void {
  if (!current) return;
  if (current.kind === 'numeric') return chart.render(current, metrics.selected);
  chart.hide();
  Object.assign(state, renderText(current, metrics.selected), { state: 'listed' });
}

function show(parts: Uint8Array[], label: string, names: Record<string, string>): void {
  $('error').hidden = true;
  streams.cancel();
  let opened: Opened;
  try {
    opened = open(parts, label, { ...names, ...book.ids });
  } catch (error) {
    showError(error);
    state.state = 'error';
    return;
  }
  current?.free();
  current = opened;
  shown = { parts, label, names };
  openNames = names;
  state.blobs = opened.blobs;
  chart.resetWindow();
  metrics.open(opened);
  renderOptions(opened);
  relabel();
  state.memory = renderMemory();
}

/** The first blobs of a stream arrived: it is what the page shows now, growing. */
function openStream(streamed: StreamedBlobs): void {
  $('error').hidden = true;
  current?.free();
  current = streamed;
  shown = undefined;
  openNames = streamed.names;
  state.blobs = streamed.blobs;
  chart.resetWindow();
  metrics.open(streamed);
  renderOptions(streamed);
  relabel();
  state.memory = renderMemory();
}

/** The Stream card's sample: named from the series it was cut from. */
function playStreamSample(): void {
  state.sample = undefined;
  $<HTMLSelectElement>('sample').value = '';
  $('sample-note').textContent = "Seattle's hourly series as a stream of blobs, drawn as it arrives.";
  void streams.playSample(`samples/${streamSample.file}`, streamSample.names);
}

/** Free the open blob, reset the module (its memory back to about 1 MB), open the blob again. A stream's points are the page's own and stay. */
async function giveMemoryBack(): Promise<void> {
  const again = shown;
  if (again) {
    current?.free();
    current = undefined;
  }
  try {
    await mebo.reset();
  } catch (error) {
    showError(error);
  }
  if (again) show(again.parts, again.label, again.names);
  state.memory = renderMemory();
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

/** Files of names (text, JSON) go to the name book; one blob file opens as a blob, several as a set of consecutive windows. */
async function loadFiles(all: File[]): Promise<void> {
  for (const f of all.filter(isNamesFile)) await namesPanel.fromFile(f);
  const files = all.filter((f) => !isNamesFile(f));
  if (!files.length) return;
  state.sample = undefined;
  $<HTMLSelectElement>('sample').value = '';
  // A stream of blobs is drawn as it is read, on its own.
  const stream = (await Promise.all(files.map(isStreamFile))).indexOf(true);
  if (stream >= 0) {
    const file = files[stream];
    $('sample-note').textContent = `${file.name}: a stream of blobs from your disk, drawn as it is read${files.length > 1 ? ' (a stream opens alone: the other files were left)' : ''}.`;
    await streams.playFile(file);
    return;
  }
  const label = files.length === 1 ? files[0].name : `${files.length} files (${files.map((f) => f.name).join(', ')})`;
  $('sample-note').textContent = `${label}: opened from your disk${files.length > 1 ? ' as a set of windows' : ''}; names are shown when the blob carries them, else ids.`;
  show(await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer()))), label, {});
}

function wire(): void {
  const select = $<HTMLSelectElement>('sample');
  select.addEventListener('change', () => {
    const sample = samples.find((s) => s.id === select.value);
    if (sample) {
      history.replaceState(null, '', `#${sample.id}`);
      loadSample(sample).catch(showError);
    }
  });
  $('memory-reset').addEventListener('click', () => void giveMemoryBack());
  $('stream-play').addEventListener('click', playStreamSample);
  const fileInput = $<HTMLInputElement>('file');
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
    pending = requestAnimationFrame(() => chart.resize());
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
  book.load();
  $('runtime').textContent = `wasm ${mebo.wasmVariant()} · ready in ${(performance.now() - t0).toFixed(0)} ms`;

  const index = (await (await fetch('samples/index.json')).json()) as SampleIndex;
  samples = index.samples;
  streamSample = index.stream;
  const select = $<HTMLSelectElement>('sample');
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
