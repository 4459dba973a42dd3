// The benchmark panel: the bench blobs decoded natively, in Node and in this
// browser, in one run, charted beside the reference measured on the project's
// machine kind and the documented x86 figures.
//
// Passes, one after another (they would skew each other on a small machine):
//   native   the Rust decoder, release build  } through the local API of `npm run demo`
//   Node     the SDK (simd) in Node            } (web-demo/bench-api.mjs), rows streamed as measured
//   Go       the reference, where a developer has its local harness (never committed)
//   cold     fresh workers: fetch + compile + init() of the wasm, then a first decode
//   simd     a worker with the simd build: decodeAll() (fresh arrays) and decodeAllInto() (kept arrays)
//   scalar   the same with the build without simd128
// Without the API (any static host) native and Node come from the
// bench-results.json the page was built with, when there is one, and say so.
//
// `?bench=quick` or `?bench=full` starts a run on load; progress and rows are
// published as globalThis.meboDemo.bench = { done, rows, ... }.

import { drawBarChart, legend, type BarHit, type BarSeries } from './bar-chart.js';
import { mpps, summarize, type ApiInfo, type BenchManifest, type BenchResults, type BenchRow, type GoReference, type SeedReference } from './bench-rows.js';
import type { BenchCase, BenchMessage, BenchRequest } from './bench-worker.js';

type Plan = 'quick' | 'full';

/** What the page publishes for automation (web-demo/check.mjs). */
export interface BenchState {
  done: boolean;
  running: boolean;
  plan: Plan | undefined;
  /** This run's rows, bench-results.json schema. */
  rows: BenchRow[];
  /** Where native and Node figures come from: `live`, `bench-results.json` or `none`. */
  sources: Record<'rust-native' | 'wasm-node', 'live' | 'bench-results.json' | 'none'>;
  api: boolean;
  error: string | undefined;
  cancelled: boolean;
  /** Series drawn on the throughput chart in the last paint. */
  charted: { label: string; color: string }[];
}

/** The configuration the headline speaks of (the reference's default). */
const FOCUS = 'delta-none-gorilla-none';
/** Fresh workers timed for the cold start, per build. */
const COLD_RUNS: Record<Plan, number> = { quick: 3, full: 7 };

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const integer = new Intl.NumberFormat('en-US');
const fixed = (v: number, digits = 1) => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const times = (r: number | undefined) => (r === undefined || !Number.isFinite(r) ? '–' : `${fixed(r, r >= 10 ? 1 : 2)}×`);
const us = (ns: number | undefined) => (ns === undefined ? '–' : fixed(ns / 1e3, ns < 1e6 ? 1 : 0));

async function fetchJson<T>(path: string): Promise<T | undefined> {
  try {
    const response = await fetch(path, { cache: 'no-store' });
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return undefined;
    return ((await response.json()) as T | null) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The browser and its version, as far as the user agent says. */
function browserName(): string {
  const ua = navigator.userAgent;
  const match = ua.match(/(Edg|OPR|Firefox|Chrome|Chromium)\/([\d.]+)/) ?? ua.match(/Version\/([\d.]+).*(Safari)/);
  if (!match) return ua;
  return match[2] === 'Safari' ? `Safari ${match[1]}` : `${match[1] === 'Edg' ? 'Edge' : match[1]} ${match[2]}`;
}

/** The smallest step performance.now() takes here, in µs (5 µs when cross-origin isolated in Chromium, 100 µs otherwise). */
function timerResolutionUs(): number {
  let smallest = Infinity;
  let last = performance.now();
  for (let i = 0; i < 200_000 && smallest > 0.0005; i++) {
    const now = performance.now();
    if (now > last) {
      smallest = Math.min(smallest, now - last);
      last = now;
    }
  }
  return smallest * 1e3;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/** Read a newline-delimited JSON stream of the local API, calling `onRow` per row; resolves at `done`. */
async function streamRows(runtime: string, plan: Plan, signal: AbortSignal, onRow: (row: BenchRow) => void): Promise<void> {
  const response = await fetch(`api/bench/run?runtime=${runtime}&plan=${plan}`, { signal, cache: 'no-store' });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
    throw new Error(`${runtime}: ${body?.error ?? `HTTP ${response.status}`}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let finished = false;
  // Read to the end of the response (the server ends it right after `done`).
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, newline)) as { type: string; row?: BenchRow; message?: string };
      buffer = buffer.slice(newline + 1);
      if (message.type === 'row' && message.row) onRow(message.row);
      else if (message.type === 'error') throw new Error(message.message);
      else if (message.type === 'done') finished = true;
    }
  }
  if (!finished) throw new Error(`${runtime}: the run ended without a result`);
}

/** Run one worker job; resolves when it is done, rejects on its error or on `signal`. */
function runWorker(request: BenchRequest, signal: AbortSignal, onMessage: (message: BenchMessage) => void): Promise<void> {
  const worker = new Worker('bench-worker.js', { type: 'module' });
  return new Promise<void>((resolve, reject) => {
    const abort = () => reject(new DOMException('cancelled', 'AbortError'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    worker.onerror = (e) => reject(new Error(e.message || 'the benchmark worker failed'));
    worker.onmessage = (event: MessageEvent<BenchMessage>) => {
      const message = event.data;
      if (message.type === 'done') resolve();
      else if (message.type === 'error') reject(new Error(message.message));
      else onMessage(message);
    };
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

/** A progress bar for one pass of a run. */
class Pass {
  readonly bar: HTMLProgressElement;
  readonly text: HTMLSpanElement;
  constructor(
    readonly label: string,
    readonly total: number,
  ) {
    this.bar = el('progress', { max: total, value: 0 });
    this.text = el('span', { className: 'muted', textContent: 'waiting' });
    $('bench-passes').append(el('div', { className: 'pass' }, el('span', { className: 'pass-label', textContent: label }), this.bar, this.text));
  }
  step(done: number, note = ''): void {
    this.bar.value = Math.min(done, this.total);
    this.text.textContent = `${done} / ${this.total}${note ? ` · ${note}` : ''}`;
  }
  finish(note: string): void {
    this.bar.value = this.total;
    this.text.textContent = note;
  }
}

export async function setupBench(): Promise<void> {
  const demo = (globalThis as unknown as { meboDemo: { bench?: BenchState } }).meboDemo;
  const [manifest, fileResults, go, seed, api] = await Promise.all([
    fetchJson<BenchManifest>('bench/manifest.json'),
    fetchJson<BenchResults>('bench-results.json'),
    fetchJson<GoReference>('reference/go-v1.9-epyc.json'),
    fetchJson<SeedReference>('reference/seed-x86.json'),
    fetchJson<ApiInfo>('api/bench'),
  ]);
  const runButton = $<HTMLButtonElement>('bench-run');
  const cancelButton = $<HTMLButtonElement>('bench-cancel');
  const downloadButton = $<HTMLButtonElement>('bench-download');
  const planSelect = $<HTMLSelectElement>('bench-plan');
  if (!manifest) {
    $('bench-status').textContent = 'no bench blobs in this build';
    runButton.disabled = true;
    return;
  }
  const cases = manifest.cases;
  const caseOf = new Map(cases.map((c) => [c.config, c]));
  const state: BenchState = {
    done: false,
    running: false,
    plan: undefined,
    rows: [],
    sources: { 'rust-native': 'none', 'wasm-node': 'none' },
    api: api !== undefined,
    error: undefined,
    cancelled: false,
    charted: [],
  };
  demo.bench = state;
  const browser = { name: browserName(), cores: navigator.hardwareConcurrency, isolated: globalThis.crossOriginIsolated === true, timerUs: timerResolutionUs() };

  // ---------------------------------------------------------------- figures

  const live = (config: string, runtime: string, op: string) => state.rows.find((r) => r.config === config && r.runtime === runtime && r.op === op);
  const recorded = (config: string, runtime: string, op: string) =>
    fileResults?.results.find((r) => r.config === config && r.runtime === runtime && r.op === op);
  /** Native and Node: this run's row, else (no API) the built-in bench-results.json's. */
  const hostRow = (config: string, runtime: 'rust-native' | 'wasm-node', op: string) => live(config, runtime, op) ?? (state.api ? undefined : recorded(config, runtime, op));
  const goNs = (config: string) => go?.rows.find((r) => r.name === caseOf.get(config)?.name)?.decode_materialize_ns;
  const seedNs = (config: string) => {
    const total = seed?.decode_iterate_250pts[config]?.total;
    return total === undefined ? undefined : total * 1e3;
  };
  const nsOf = (row: BenchRow | undefined) => row?.median_ns;

  function updateSources(): void {
    for (const runtime of ['rust-native', 'wasm-node'] as const) {
      state.sources[runtime] = state.rows.some((r) => r.runtime === runtime)
        ? 'live'
        : !state.api && fileResults?.results.some((r) => r.runtime === runtime)
          ? 'bench-results.json'
          : 'none';
    }
  }

  /** The chart's series: decode throughput per configuration. */
  function chartSeries(): BarSeries[] {
    const per = (figure: (config: string) => number | undefined) => cases.map((c) => mpps(c.points, figure(c.config)));
    return [
      { label: 'native Rust', color: '#5925dc', values: per((c) => nsOf(hostRow(c, 'rust-native', 'decode'))) },
      { label: 'Node (kept arrays)', color: '#1b9e77', values: per((c) => nsOf(hostRow(c, 'wasm-node', 'decode-into'))) },
      { label: 'this browser (kept arrays)', color: '#3158d4', values: per((c) => nsOf(live(c, 'wasm-browser', 'decode-into'))) },
      { label: 'this browser (fresh arrays)', color: '#98acf0', values: per((c) => nsOf(live(c, 'wasm-browser', 'decode'))) },
      { label: 'reference, measured now', color: '#93370d', values: per((c) => nsOf(live(c, 'go-reference', 'decode'))) },
      { label: 'reference, this machine kind', color: '#e0662d', values: per(goNs) },
      { label: 'documented x86', color: '#b7950b', values: per(seedNs) },
    ];
  }

  // ---------------------------------------------------------------- rendering

  let hitTest: (x: number, y: number) => BarHit | undefined = () => undefined;
  const chartCanvas = $<HTMLCanvasElement>('bench-chart');
  const tip = $('bench-tip');
  chartCanvas.addEventListener('mousemove', (event) => {
    const hit = hitTest(event.offsetX, event.offsetY);
    tip.hidden = !hit;
    if (!hit) return;
    tip.textContent = `${hit.category} · ${hit.series.label}: ${fixed(hit.value, hit.value < 10 ? 2 : 1)} Mpoints/s (${us((caseOf.get(hit.category)!.points / hit.value) * 1e3)} µs)`;
    tip.style.left = `${event.offsetX + 14}px`;
    tip.style.top = `${event.offsetY + 10}px`;
  });
  chartCanvas.addEventListener('mouseleave', () => (tip.hidden = true));

  function renderChart(): void {
    const series = chartSeries();
    const width = Math.max(480, chartCanvas.parentElement!.clientWidth);
    hitTest = drawBarChart(chartCanvas, { categories: cases.map((c) => c.config), series, scale: 'log', axis: 'decode throughput, Mpoints/s (log scale; longer is faster)', format: (v) => (v >= 1 ? integer.format(v) : String(v)) }, width);
    const drawn = series.filter((s) => s.values.some((v) => v !== undefined));
    state.charted = drawn.map(({ label, color }) => ({ label, color }));
    $('bench-legend').replaceChildren(legend(drawn));
  }

  function renderSizes(): void {
    const numeric = cases.filter((c) => c.kind === 'numeric');
    const kb = (bytes: number) => bytes / 1024;
    const canvas = $<HTMLCanvasElement>('size-chart');
    const lines = [
      { label: `JSON ${integer.format(Math.round(kb(manifest!.json.bytes)))} KiB`, value: kb(manifest!.json.bytes), color: '#d92d20' },
      { label: `JSON gzipped ${integer.format(Math.round(kb(manifest!.json.gzip)))} KiB`, value: kb(manifest!.json.gzip), color: '#f79009' },
      { label: `Arrow IPC ${integer.format(Math.round(kb(manifest!.arrow.bytes)))} KiB`, value: kb(manifest!.arrow.bytes), color: '#7a5af8' },
      { label: `Arrow gzipped ${integer.format(Math.round(kb(manifest!.arrow.gzip)))} KiB`, value: kb(manifest!.arrow.gzip), color: '#ee46bc' },
    ];
    const series = [
      { label: 'mebo blob', color: '#3158d4', values: numeric.map((c) => kb(c.bytes)) },
      { label: 'mebo blob, gzipped', color: '#98acf0', values: numeric.map((c) => kb(c.gzip)) },
    ];
    drawBarChart(canvas, { categories: numeric.map((c) => c.config), series, scale: 'linear', axis: 'KiB for the same 50,000 points (shorter is smaller)', format: (v) => integer.format(v), lines, bar: 6 }, Math.max(480, canvas.parentElement!.clientWidth));
    $('size-legend').replaceChildren(legend([...series, ...lines.map((l) => ({ ...l, dashed: true }))]));
  }

  function renderTable(): void {
    const heads = [
      ['config', ''],
      ['native', 'µs, open + decode into kept buffers'],
      ['Node kept', 'µs, SDK decodeAllInto in Node'],
      ['browser kept', 'µs, decodeAllInto in this browser (simd build)'],
      ['browser fresh', 'µs, decodeAll in this browser (simd build)'],
      ['browser views', 'µs, columnsView in this browser (simd build): views of the module memory, no copy'],
      ['scalar kept', 'µs, decodeAllInto, build without simd128'],
      ['ref now', 'µs, mebo Go decode + Materialize measured now on this machine (local harness only)'],
      ['reference', 'µs, mebo Go decode + Materialize on the project machine kind (recorded)'],
      ['x86 doc', 'µs, documented decode + iterate on an i7-9700K'],
      ['kept ÷ ref now', 'reference measured now / browser kept time (above 1: the browser is faster)'],
      ['kept ÷ ref', 'recorded reference time / browser kept time (above 1: the browser is faster)'],
      ['fresh ÷ ref', 'reference time / browser fresh time'],
      ['kept ÷ x86', 'documented x86 time / browser kept time'],
      ['native ÷ kept', 'how much faster native Rust is than this browser (kept arrays)'],
    ];
    const table = $<HTMLTableElement>('bench-table');
    table.tHead!.replaceChildren(el('tr', {}, ...heads.map(([h, title], i) => el('th', { textContent: h, title, className: i ? 'num' : '' }))));
    const cell = (text: string, className = 'num', title = '') => el('td', { textContent: text, className, title });
    const judged = (r: number | undefined) => cell(times(r), r === undefined ? 'num' : `num ${r >= 1 ? 'good' : 'bad'}`);
    const timed = (row: BenchRow | undefined, source?: string) => cell(us(row?.median_ns), 'num', row ? `median of ${row.runs}, min ${us(row.min_ns)} µs${source ? `, ${source}` : ''}` : '');
    /** The reference timed now; a decode that differs from the input is marked: its time is of a wrong result. */
    const referenceCell = (row: BenchRow | undefined) =>
      row?.correct === false
        ? cell(`${us(row.median_ns)} ✗`, 'num bad', `the reference decoded this blob wrongly (${row.mismatch ?? 'differs from the input'}); GOMAXPROCS=${row.gomaxprocs ?? '?'}`)
        : timed(row, row ? `GOMAXPROCS=${row.gomaxprocs ?? '?'}` : undefined);
    table.tBodies[0].replaceChildren(
      ...cases.map((c) => {
        const kept = live(c.config, 'wasm-browser', 'decode-into');
        const fresh = live(c.config, 'wasm-browser', 'decode');
        const native = hostRow(c.config, 'rust-native', 'decode');
        const ref = goNs(c.config);
        const refNow = nsOf(live(c.config, 'go-reference', 'decode'));
        const x86 = seedNs(c.config);
        return el(
          'tr',
          {},
          cell(c.config, '', `${integer.format(c.points)} points, ${integer.format(c.bytes)} bytes`),
          timed(native, state.sources['rust-native']),
          timed(hostRow(c.config, 'wasm-node', 'decode-into'), state.sources['wasm-node']),
          timed(kept),
          timed(fresh),
          timed(live(c.config, 'wasm-browser', 'decode-view')),
          timed(live(c.config, 'wasm-browser-scalar', 'decode-into')),
          referenceCell(live(c.config, 'go-reference', 'decode')),
          cell(us(ref)),
          cell(us(x86)),
          judged(refNow && nsOf(kept) ? refNow / kept!.median_ns : undefined),
          judged(ref && nsOf(kept) ? ref / kept!.median_ns : undefined),
          judged(ref && nsOf(fresh) ? ref / fresh!.median_ns : undefined),
          judged(x86 && nsOf(kept) ? x86 / kept!.median_ns : undefined),
          cell(times(native && kept ? kept.median_ns / native.median_ns : undefined)),
        );
      }),
    );
  }

  function renderHeadline(): void {
    const c = caseOf.get(FOCUS)!;
    const kept = live(FOCUS, 'wasm-browser', 'decode-into');
    const fresh = live(FOCUS, 'wasm-browser', 'decode');
    if (!kept) {
      $('bench-headline').textContent = state.running
        ? 'Measuring…'
        : 'Press “Run benchmark”: the bench blobs are decoded natively, in Node and in this browser, and charted beside the reference’s figures.';
      return;
    }
    const native = hostRow(FOCUS, 'rust-native', 'decode');
    const refNow = live(FOCUS, 'go-reference', 'decode');
    const parts = [`${times(seedNs(FOCUS)! / kept.median_ns)} the documented x86 figure`];
    if (refNow) parts.push(`${times(refNow.median_ns / kept.median_ns)} the reference measured now on this machine`);
    parts.push(`${times(goNs(FOCUS)! / kept.median_ns)} the reference's recorded figure on the project's machine kind`);
    if (native) parts.push(`${times(native.median_ns / kept.median_ns)} native Rust`);
    let text = `This browser decodes ${FOCUS} at ${fixed(mpps(c.points, kept.median_ns)!)} Mpoints/s into kept arrays${fresh ? ` (${fixed(mpps(c.points, fresh.median_ns)!)} into fresh ones)` : ''}: ${parts.join(', ')}.`;
    const against = refNow ? `the reference measured now (GOMAXPROCS=${refNow.gomaxprocs ?? '?'})` : 'the recorded reference (not timed in this run)';
    const ratios = cases
      .filter((x) => x.kind === 'numeric')
      .map((x) => {
        const row = live(x.config, 'wasm-browser', 'decode-into');
        const ref = refNow ? nsOf(live(x.config, 'go-reference', 'decode')) : goNs(x.config);
        return row && ref ? ref / row.median_ns : undefined;
      })
      .filter((r): r is number => r !== undefined)
      .sort((a, b) => a - b);
    if (ratios.length > 1) {
      text += ` Over ${ratios.length} numeric configurations, kept arrays run at ${times(ratios[0])}–${times(ratios[ratios.length - 1])} ${against} (median ${times(ratios[ratios.length >> 1])}).`;
    }
    $('bench-headline').textContent = text;
  }

  function renderColdStart(): void {
    const parts = (['simd', 'scalar'] as const).flatMap((variant) => {
      const runtime = variant === 'simd' ? 'wasm-browser' : 'wasm-browser-scalar';
      const init = state.rows.find((r) => r.runtime === runtime && r.op === 'cold-start');
      const first = state.rows.find((r) => r.runtime === runtime && r.op === 'first-decode');
      if (!init) return [];
      return [
        `${variant} build (${integer.format(Math.round(manifest!.wasm[variant] / 1024))} KiB): ready in ${fixed(init.median_ns / 1e6)} ms (min ${fixed(init.min_ns / 1e6)}, ${init.runs} fresh workers)` +
          (first ? `, then the first decode of ${first.config} took ${fixed(first.median_ns / 1e6, 2)} ms` : ''),
      ];
    });
    $('bench-cold').textContent = parts.length ? `Cold start (fetch + compile + init() of the wasm in a fresh worker): ${parts.join('; ')}.` : '';
  }

  function renderSourcesList(): void {
    updateSources();
    const host = api?.machine;
    const file = fileResults?.machine;
    const sourceText = (runtime: 'rust-native' | 'wasm-node') =>
      state.sources[runtime] === 'live'
        ? `measured now on ${host?.cpu ?? 'this machine'} (${host?.cores ?? '?'} cores${runtime === 'wasm-node' ? `, Node ${host?.node ?? '?'}` : `, ${host?.rustc ?? 'rustc'}`})`
        : state.sources[runtime] === 'bench-results.json'
          ? `from bench-results.json (${file?.plan ?? ''} npm run bench of ${file?.date?.slice(0, 10) ?? '?'} on ${file?.cpu ?? '?'}), not measured now: this page has no local API (start it with npm run demo to measure live)`
          : state.api
            ? 'measured when you run the benchmark (local API of npm run demo)'
            : 'not available: this page has no local API (start it with npm run demo) and was built without bench-results.json (npm run bench)';
    const entries: [string, string][] = [
      ['native Rust', `crates/mebo-bench, release build: open + decode every metric into kept buffers; ${sourceText('rust-native')}.`],
      ['Node', `the SDK's simd build in a Node process: NumericBlob.from + decodeAllInto (kept arrays) + free; ${sourceText('wasm-node')}.`],
      [
        'this browser',
        `${browser.name}, ${browser.cores ?? '?'} logical cores, crossOriginIsolated ${browser.isolated ? 'yes' : 'no'}, timer resolution ${fixed(browser.timerUs, browser.timerUs < 10 ? 1 : 0)} µs; one Web Worker per wasm build; kept arrays: decodeAllInto, fresh arrays: decodeAll (text: TextBlob, same calls), views: columnsView (numeric).`,
      ],
      [
        'reference, measured now',
        api?.runtimes.includes('go-reference')
          ? `mebo Go v1.9 decode + Materialize timed in this run on this machine (bench/reference, GOMAXPROCS=1, every decode checked against the input: rows where the reference decodes wrongly are marked): the fair comparison.`
          : `NOT timed here: ${api ? 'npm run demo found no Go >= 1.25 on PATH to build bench/reference' : 'this page has no local API (npm run demo)'}, so every ratio below is taken against the recorded figures of the next line.`,
      ],
      ['reference, this machine kind', `${go?.machine ?? 'go-v1.9-epyc.json missing'}: mebo Go v1.9 decode + Materialize (every column decoded into slices), recorded in testdata/reference/go-v1.9-epyc.json, not timed in this run. Machines of this kind differ (the CPU model changes): on a slower one every live figure looks slower against it.`],
      ['documented x86', `${seed?.machine ?? 'seed-x86.json missing'}: decode + iterate, from the reference's documentation (4 configurations).`],
      ['plan', `warm-up, then 30 (quick) or 40 (full) samples a row, each repeating the call for ≥ 1–2 ms; median shown, minimum in each cell's tooltip. Absolute figures drift between runs and machines; ratios within one run hold.`],
    ];
    $('bench-sources').replaceChildren(...entries.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: v })]));
  }

  let pending = 0;
  function render(): void {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      renderSourcesList();
      renderChart();
      renderTable();
      renderHeadline();
      renderColdStart();
    });
  }
  render();
  renderSizes();
  window.addEventListener('resize', () => {
    render();
    renderSizes();
  });

  // ---------------------------------------------------------------- a run

  let controller: AbortController | undefined;

  async function run(plan: Plan): Promise<void> {
    controller = new AbortController();
    const { signal } = controller;
    Object.assign(state, { done: false, running: true, plan, rows: [], error: undefined, cancelled: false });
    runButton.disabled = true;
    cancelButton.disabled = false;
    downloadButton.disabled = true;
    $('bench-passes').replaceChildren();
    $('bench-status').textContent = `${plan} run…`;
    const add = (row: BenchRow) => {
      state.rows.push(row);
      render();
    };
    const configsDone = (runtime: string) => new Set(state.rows.filter((r) => r.runtime === runtime).map((r) => r.config)).size;
    const workerCases: BenchCase[] = cases.map(({ config, kind, file, points }) => ({ config, kind, file, points }));
    const passes: [Pass, () => Promise<void>][] = [];
    if (api) {
      const labels: Record<string, string> = { 'rust-native': 'native Rust', 'wasm-node': 'Node', 'go-reference': 'reference (Go)' };
      for (const runtime of api.runtimes) {
        const label = labels[runtime] ?? runtime;
        const pass = new Pass(label, cases.length);
        passes.push([pass, () => streamRows(runtime, plan, signal, (row) => (add(row), pass.step(configsDone(runtime), row.config)))]);
      }
    }
    const coldPass = new Pass('cold start', COLD_RUNS[plan] * 2);
    passes.push([
      coldPass,
      async () => {
        const focus = workerCases.find((c) => c.config === FOCUS)!;
        for (const variant of ['simd', 'scalar'] as const) {
          const init: number[] = [];
          const first: number[] = [];
          for (let i = 0; i < COLD_RUNS[plan]; i++) {
            await runWorker({ job: 'cold', variant, blob: focus }, signal, (m) => {
              if (m.type !== 'cold') return;
              init.push(m.init_ns);
              first.push(m.first_decode_ns);
            });
            coldPass.step(init.length + (variant === 'scalar' ? COLD_RUNS[plan] : 0), variant);
          }
          const runtime = variant === 'simd' ? 'wasm-browser' : 'wasm-browser-scalar';
          add({ config: 'wasm', runtime, op: 'cold-start', points: 0, bytes: manifest!.wasm[variant], ...summarize(init) });
          add({ config: focus.config, runtime, op: 'first-decode', points: focus.points, bytes: caseOf.get(focus.config)!.bytes, ...summarize(first) });
        }
      },
    ]);
    for (const variant of ['simd', 'scalar'] as const) {
      const runtime = variant === 'simd' ? 'wasm-browser' : 'wasm-browser-scalar';
      const pass = new Pass(`this browser, ${variant}`, cases.length);
      passes.push([
        pass,
        () =>
          runWorker({ job: 'bench', variant, plan, cases: workerCases }, signal, (m) => {
            if (m.type !== 'row') return;
            add(m.row);
            pass.step(new Set(state.rows.filter((r) => r.runtime === runtime && r.op === 'decode-into').map((r) => r.config)).size, m.row.config);
          }),
      ]);
    }
    try {
      for (const [pass, work] of passes) {
        pass.text.textContent = 'running';
        const t0 = performance.now();
        await work();
        pass.finish(`done in ${fixed((performance.now() - t0) / 1e3)} s`);
      }
      state.done = true;
      $('bench-status').textContent = `done: ${state.rows.length} figures (${plan} run)`;
    } catch (error) {
      if (signal.aborted) {
        state.cancelled = true;
        $('bench-status').textContent = 'cancelled';
      } else {
        state.error = error instanceof Error ? error.message : String(error);
        $('bench-status').textContent = `failed: ${state.error}`;
      }
    } finally {
      if (!state.done) controller.abort(); // a failed run: stop whatever is still streaming
      state.running = false;
      runButton.disabled = false;
      cancelButton.disabled = true;
      downloadButton.disabled = state.rows.length === 0;
      render();
    }
  }

  runButton.addEventListener('click', () => void run(planSelect.value === 'full' ? 'full' : 'quick'));
  cancelButton.addEventListener('click', () => controller?.abort());
  downloadButton.addEventListener('click', () => {
    const machine = {
      browser: browser.name,
      user_agent: navigator.userAgent,
      cores: browser.cores,
      cross_origin_isolated: browser.isolated,
      timer_resolution_us: browser.timerUs,
      host: api?.machine,
      date: new Date().toISOString(),
      plan: state.plan,
      sources: state.sources,
    };
    const blob = new Blob([`${JSON.stringify({ machine, results: state.rows }, null, 1)}\n`], { type: 'application/json' });
    const link = el('a', { href: URL.createObjectURL(blob), download: `mebo-bench-${browser.name.split(' ')[0].toLowerCase()}-${machine.date.slice(0, 10)}.json` });
    link.click();
    URL.revokeObjectURL(link.href);
  });

  const asked = new URLSearchParams(location.search).get('bench');
  if (asked === 'quick' || asked === 'full') {
    planSelect.value = asked;
    void run(asked);
  }
}
