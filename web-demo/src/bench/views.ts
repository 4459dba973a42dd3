// The benchmark panel's views, each drawn from the figures alone: the
// throughput chart, the size chart, the table, the sources list, the
// headline and the cold start line.

import { drawBarChart, legend, type BarHit, type BarSeries } from '../bar-chart.js';
import { $, definitions, el, fixed, integer } from '../dom.js';
import { nsOf, type BrowserInfo, type Figures, type HostRuntime } from './figures.js';
import { mpps, type BenchRow } from './rows.js';
import { FOCUS } from './runner.js';

export const times = (r: number | undefined) => (r === undefined || !Number.isFinite(r) ? '–' : `${fixed(r, r >= 10 ? 1 : 2)}×`);
export const us = (ns: number | undefined) => (ns === undefined ? '–' : fixed(ns / 1e3, ns < 1e6 ? 1 : 0));

/** Decode throughput per configuration, log scale, with a tooltip per bar. */
export class ThroughputChart {
  private hitTest: (x: number, y: number) => BarHit | undefined = () => undefined;
  private readonly canvas = $<HTMLCanvasElement>('bench-chart');

  constructor(private readonly figures: Figures) {
    const tip = $('bench-tip');
    this.canvas.addEventListener('mousemove', (event) => {
      const hit = this.hitTest(event.offsetX, event.offsetY);
      tip.hidden = !hit;
      if (!hit) return;
      tip.textContent = `${hit.category} · ${hit.series.label}: ${fixed(hit.value, hit.value < 10 ? 2 : 1)} Mpoints/s (${us((figures.caseOf.get(hit.category)!.points / hit.value) * 1e3)} µs)`;
      tip.style.left = `${event.offsetX + 14}px`;
      tip.style.top = `${event.offsetY + 10}px`;
    });
    this.canvas.addEventListener('mouseleave', () => (tip.hidden = true));
  }

  private series(): BarSeries[] {
    const f = this.figures;
    const per = (figure: (config: string) => number | undefined) => f.cases.map((c) => mpps(c.points, figure(c.config)));
    return [
      { label: 'native Rust', color: '#5925dc', values: per((c) => nsOf(f.hostRow(c, 'rust-native', 'decode'))) },
      { label: 'Node (kept arrays)', color: '#1b9e77', values: per((c) => nsOf(f.hostRow(c, 'wasm-node', 'decode-into'))) },
      { label: 'this browser (kept arrays)', color: '#3158d4', values: per((c) => nsOf(f.live(c, 'wasm-browser', 'decode-into'))) },
      { label: 'this browser (fresh arrays)', color: '#98acf0', values: per((c) => nsOf(f.live(c, 'wasm-browser', 'decode'))) },
      { label: 'reference, measured now', color: '#93370d', values: per((c) => nsOf(f.live(c, 'go-reference', 'decode'))) },
      { label: 'reference, this machine kind', color: '#e0662d', values: per((c) => f.goNs(c)) },
      { label: 'documented x86', color: '#b7950b', values: per((c) => f.seedNs(c)) },
    ];
  }

  render(): void {
    const series = this.series();
    const width = Math.max(480, this.canvas.parentElement!.clientWidth);
    const categories = this.figures.cases.map((c) => c.config);
    this.hitTest = drawBarChart(this.canvas, { categories, series, scale: 'log', axis: 'decode throughput, Mpoints/s (log scale; longer is faster)', format: (v) => (v >= 1 ? integer.format(v) : String(v)) }, width);
    const drawn = series.filter((s) => s.values.some((v) => v !== undefined));
    this.figures.state.charted = drawn.map(({ label, color }) => ({ label, color }));
    $('bench-legend').replaceChildren(legend(drawn));
  }
}

/** Each numeric blob's size beside JSON and Arrow IPC of the same points. */
export function renderSizes(figures: Figures): void {
  const { manifest } = figures.loaded;
  const numeric = figures.cases.filter((c) => c.kind === 'numeric');
  const kb = (bytes: number) => bytes / 1024;
  const canvas = $<HTMLCanvasElement>('size-chart');
  const lines = [
    { label: `JSON ${integer.format(Math.round(kb(manifest.json.bytes)))} KiB`, value: kb(manifest.json.bytes), color: '#d92d20' },
    { label: `JSON gzipped ${integer.format(Math.round(kb(manifest.json.gzip)))} KiB`, value: kb(manifest.json.gzip), color: '#f79009' },
    { label: `Arrow IPC ${integer.format(Math.round(kb(manifest.arrow.bytes)))} KiB`, value: kb(manifest.arrow.bytes), color: '#7a5af8' },
    { label: `Arrow gzipped ${integer.format(Math.round(kb(manifest.arrow.gzip)))} KiB`, value: kb(manifest.arrow.gzip), color: '#ee46bc' },
  ];
  const series = [
    { label: 'mebo blob', color: '#3158d4', values: numeric.map((c) => kb(c.bytes)) },
    { label: 'mebo blob, gzipped', color: '#98acf0', values: numeric.map((c) => kb(c.gzip)) },
  ];
  drawBarChart(canvas, { categories: numeric.map((c) => c.config), series, scale: 'linear', axis: 'KiB for the same 50,000 points (shorter is smaller)', format: (v) => integer.format(v), lines, bar: 6 }, Math.max(480, canvas.parentElement!.clientWidth));
  $('size-legend').replaceChildren(legend([...series, ...lines.map((l) => ({ ...l, dashed: true }))]));
}

const TABLE_HEADS = [
  ['config', ''],
  ['native', 'µs, open + decode into kept buffers'],
  ['Node kept', 'µs, SDK decodeAllInto in Node'],
  ['browser kept', 'µs, decodeAllInto in this browser (simd build)'],
  ['browser fresh', 'µs, decodeAll in this browser (simd build)'],
  ['browser views', 'µs, columnsView in this browser (simd build): views of the module memory, no copy'],
  ['scalar kept', 'µs, decodeAllInto, build without simd128'],
  ['ref now', 'µs, mebo Go decode + Materialize measured now on this machine (reference/, GOMAXPROCS=1)'],
  ['reference', 'µs, mebo Go decode + Materialize on the project machine kind (recorded)'],
  ['x86 doc', 'µs, documented decode + iterate on an i7-9700K'],
  ['kept ÷ ref now', 'reference measured now / browser kept time (above 1: the browser is faster)'],
  ['kept ÷ ref', 'recorded reference time / browser kept time (above 1: the browser is faster)'],
  ['fresh ÷ ref', 'reference time / browser fresh time'],
  ['kept ÷ x86', 'documented x86 time / browser kept time'],
  ['native ÷ kept', 'how much faster native Rust is than this browser (kept arrays)'],
];

/** Every configuration's figures and ratios. */
export function renderTable(figures: Figures): void {
  const f = figures;
  const table = $<HTMLTableElement>('bench-table');
  table.tHead!.replaceChildren(el('tr', {}, ...TABLE_HEADS.map(([h, title], i) => el('th', { textContent: h, title, className: i ? 'num' : '' }))));
  const cell = (text: string, className = 'num', title = '') => el('td', { textContent: text, className, title });
  const judged = (r: number | undefined) => cell(times(r), r === undefined ? 'num' : `num ${r >= 1 ? 'good' : 'bad'}`);
  const timed = (row: BenchRow | undefined, source?: string) => cell(us(row?.median_ns), 'num', row ? `median of ${row.runs}, min ${us(row.min_ns)} µs${source ? `, ${source}` : ''}` : '');
  /** The reference timed now; a decode that differs from the input is marked: its time is of a wrong result. */
  const referenceCell = (row: BenchRow | undefined) =>
    row?.correct === false
      ? cell(`${us(row.median_ns)} ✗`, 'num bad', `the reference decoded this blob wrongly (${row.mismatch ?? 'differs from the input'}); GOMAXPROCS=${row.gomaxprocs ?? '?'}`)
      : timed(row, row ? `GOMAXPROCS=${row.gomaxprocs ?? '?'}` : undefined);
  table.tBodies[0].replaceChildren(
    ...f.cases.map((c) => {
      const kept = f.live(c.config, 'wasm-browser', 'decode-into');
      const fresh = f.live(c.config, 'wasm-browser', 'decode');
      const native = f.hostRow(c.config, 'rust-native', 'decode');
      const ref = f.goNs(c.config);
      const refNow = nsOf(f.live(c.config, 'go-reference', 'decode'));
      const x86 = f.seedNs(c.config);
      return el(
        'tr',
        {},
        cell(c.config, '', `${integer.format(c.points)} points, ${integer.format(c.bytes)} bytes`),
        timed(native, f.state.sources['rust-native']),
        timed(f.hostRow(c.config, 'wasm-node', 'decode-into'), f.state.sources['wasm-node']),
        timed(kept),
        timed(fresh),
        timed(f.live(c.config, 'wasm-browser', 'decode-view')),
        timed(f.live(c.config, 'wasm-browser-scalar', 'decode-into')),
        referenceCell(f.live(c.config, 'go-reference', 'decode')),
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

/** The configuration `auto`'s encode is set against. */
const DEFAULT_CONFIG = 'delta-none-gorilla-none';

/** The encode table's element, made once beside the decode table. */
function encodeTable(): HTMLTableElement {
  const existing = document.getElementById('bench-encode-table');
  if (existing) return existing as HTMLTableElement;
  const table = el('table', { id: 'bench-encode-table', className: 'bench' });
  table.append(el('thead'), el('tbody'));
  $('bench-table').after(el('h3', { textContent: 'encode: each configuration written from its points, median µs' }), table);
  return table;
}

/**
 * The encode view: each numeric configuration (and text, natively and in
 * Node) written from its points by native Rust, Node, this browser and the
 * reference measured now, with ratios against the reference (above 1: faster)
 * and whether each wrote the reference's bytes; then `auto` under each
 * prefer against the same runtime's encode of the default configuration.
 */
export function renderEncode(figures: Figures): void {
  const f = figures;
  const runtimes = [
    ['rust-native', 'native'],
    ['wasm-node', 'Node'],
    ['wasm-browser', 'this browser'],
  ] as const;
  const row = (config: string, runtime: string, op = 'encode') => (runtime === 'wasm-browser' ? f.live(config, runtime, op) : f.hostRow(config, runtime as HostRuntime, op));
  const anyEncode = f.state.rows.some((r) => r.op === 'encode') || f.cases.some((c) => row(c.config, 'rust-native'));
  if (!anyEncode) return;
  const table = encodeTable();
  const heads = ['config', ...runtimes.map(([, label]) => label), 'ref now', ...runtimes.map(([, label]) => `${label} / ref`), 'same bytes'];
  table.tHead!.replaceChildren(el('tr', {}, ...heads.map((h, i) => el('th', { textContent: h, className: i ? 'num' : '' }))));
  const cell = (text: string, className = 'num', title = '') => el('td', { textContent: text, className, title });
  const timed = (r: BenchRow | undefined) => cell(us(r?.median_ns), 'num', r ? `median of ${r.runs}, min ${us(r.min_ns)} µs, ${integer.format(r.bytes)} bytes` : '');
  const judged = (x: number | undefined) => cell(times(x), x === undefined ? 'num' : `num ${x >= 1 ? 'good' : 'bad'}`);
  const body = f.cases.map((c) => {
    const ours = runtimes.map(([rt]) => row(c.config, rt));
    const ref = f.live(c.config, 'go-reference', 'encode');
    const same = ours.map((r) => (r === undefined ? '' : r.identical ? 'yes' : 'no')).join(' / ');
    return el('tr', {}, cell(c.config, ''), ...ours.map(timed), timed(ref), ...ours.map((r) => judged(ref && r ? ref.median_ns / r.median_ns : undefined)), cell(same, 'num', 'native / Node / this browser: the bytes equal the recorded blob, the reference\'s own'));
  });
  const prefers = [...new Set(f.state.rows.concat(f.loaded.fileResults?.results ?? []).filter((r) => r.op === 'encode-auto').map((r) => r.config))];
  const autoRows = prefers.map((config) => {
    const ours = runtimes.map(([rt]) => row(config, rt, 'encode-auto'));
    const ratios = runtimes.map(([rt], i) => {
      const base = row(DEFAULT_CONFIG, rt);
      return cell(times(ours[i] && base ? ours[i]!.median_ns / base.median_ns : undefined), 'num', `over ${rt}'s encode of ${DEFAULT_CONFIG}`);
    });
    const chosen = ours.find((r) => r?.chosen)?.chosen ?? '';
    return el('tr', {}, cell(`${config} (× default)`, '', `chosen: ${chosen}`), ...ours.map(timed), cell(''), ...ratios, cell(chosen, 'num'));
  });
  table.tBodies[0].replaceChildren(...body, ...autoRows);
}

/** What each figure times and where it was measured. */
export function renderSources(figures: Figures, browser: BrowserInfo): void {
  const { state, loaded } = figures;
  figures.updateSources();
  const host = loaded.api?.machine;
  const file = loaded.fileResults?.machine;
  const sourceText = (runtime: HostRuntime) =>
    state.sources[runtime] === 'live'
      ? `measured now on ${host?.cpu ?? 'this machine'} (${host?.cores ?? '?'} cores${runtime === 'wasm-node' ? `, Node ${host?.node ?? '?'}` : `, ${host?.rustc ?? 'rustc'}`})`
      : state.sources[runtime] === 'bench-results.json'
        ? `from bench-results.json (${file?.plan ?? ''} npm run bench of ${file?.date?.slice(0, 10) ?? '?'} on ${file?.cpu ?? '?'}), not measured now: this page has no local API (start it with npm run demo to measure live)`
        : state.api
          ? 'measured when you run the benchmark (local API of npm run demo)'
          : 'not available: this page has no local API (start it with npm run demo) and was built without bench-results.json (npm run bench)';
  $('bench-sources').replaceChildren(
    ...definitions([
      ['native Rust', `crates/mebo-bench, release build: open + decode every metric into kept buffers; ${sourceText('rust-native')}.`],
      ['Node', `the SDK's simd build in a Node process: NumericBlob.from + decodeAllInto (kept arrays) + free; ${sourceText('wasm-node')}.`],
      [
        'this browser',
        `${browser.name}, ${browser.cores ?? '?'} logical cores, crossOriginIsolated ${browser.isolated ? 'yes' : 'no'}, timer resolution ${fixed(browser.timerUs, browser.timerUs < 10 ? 1 : 0)} µs; one Web Worker per wasm build; kept arrays: decodeAllInto, fresh arrays: decodeAll (text: TextBlob, same calls), views: columnsView (numeric).`,
      ],
      [
        'reference, measured now',
        figures.referenceLive
          ? `mebo Go v1.9 decode + Materialize timed in this run on this machine (reference/, GOMAXPROCS=1, every decode checked against the input: rows where the reference decodes wrongly are marked): the fair comparison.`
          : `NOT timed here: ${loaded.api ? 'npm run demo found no Go >= 1.25 on PATH to build reference/' : 'this page has no local API (npm run demo)'}, so every ratio below is taken against the recorded figures of the next line.`,
      ],
      [
        'reference, this machine kind',
        `${loaded.go?.machine ?? 'go-v1.9-epyc.json missing'}: mebo Go v1.9 decode + Materialize (every column decoded into slices), recorded in testdata/reference/go-v1.9-epyc.json, not timed in this run. Machines of this kind differ (the CPU model changes): on a slower one every live figure looks slower against it.`,
      ],
      ['documented x86', `${loaded.seed?.machine ?? 'seed-x86.json missing'}: decode + iterate, from the reference's documentation (4 configurations).`],
      ['plan', `warm-up, then 30 (quick) or 40 (full) samples a row, each repeating the call for ≥ 1–2 ms; median shown, minimum in each cell's tooltip. Absolute figures drift between runs and machines; ratios within one run hold.`],
    ]),
  );
}

/** One sentence on the focus configuration and the spread over every numeric one. */
export function renderHeadline(figures: Figures): void {
  const f = figures;
  const c = f.caseOf.get(FOCUS)!;
  const kept = f.live(FOCUS, 'wasm-browser', 'decode-into');
  const fresh = f.live(FOCUS, 'wasm-browser', 'decode');
  if (!kept) {
    $('bench-headline').textContent = f.state.running
      ? 'Measuring…'
      : 'Press “Run benchmark”: the bench blobs are decoded natively, in Node and in this browser, and charted beside the reference’s figures.';
    return;
  }
  const native = f.hostRow(FOCUS, 'rust-native', 'decode');
  const refNow = f.live(FOCUS, 'go-reference', 'decode');
  const parts = [`${times(f.seedNs(FOCUS)! / kept.median_ns)} the documented x86 figure`];
  if (refNow) parts.push(`${times(refNow.median_ns / kept.median_ns)} the reference measured now on this machine`);
  parts.push(`${times(f.goNs(FOCUS)! / kept.median_ns)} the reference's recorded figure on the project's machine kind`);
  if (native) parts.push(`${times(native.median_ns / kept.median_ns)} native Rust`);
  let text = `This browser decodes ${FOCUS} at ${fixed(mpps(c.points, kept.median_ns)!)} Mpoints/s into kept arrays${fresh ? ` (${fixed(mpps(c.points, fresh.median_ns)!)} into fresh ones)` : ''}: ${parts.join(', ')}.`;
  const against = refNow ? `the reference measured now (GOMAXPROCS=${refNow.gomaxprocs ?? '?'})` : 'the recorded reference (not timed in this run)';
  const ratios = f.cases
    .filter((x) => x.kind === 'numeric')
    .map((x) => {
      const row = f.live(x.config, 'wasm-browser', 'decode-into');
      const ref = refNow ? nsOf(f.live(x.config, 'go-reference', 'decode')) : f.goNs(x.config);
      return row && ref ? ref / row.median_ns : undefined;
    })
    .filter((r): r is number => r !== undefined)
    .sort((a, b) => a - b);
  if (ratios.length > 1) {
    text += ` Over ${ratios.length} numeric configurations, kept arrays run at ${times(ratios[0])}–${times(ratios[ratios.length - 1])} ${against} (median ${times(ratios[ratios.length >> 1])}).`;
  }
  $('bench-headline').textContent = text;
}

/** What a visitor feels first: fetch + compile + init() in a fresh worker, then the first decode. */
export function renderColdStart(figures: Figures): void {
  const { state, loaded } = figures;
  const parts = (['simd', 'scalar'] as const).flatMap((variant) => {
    const runtime = variant === 'simd' ? 'wasm-browser' : 'wasm-browser-scalar';
    const init = state.rows.find((r) => r.runtime === runtime && r.op === 'cold-start');
    const first = state.rows.find((r) => r.runtime === runtime && r.op === 'first-decode');
    if (!init) return [];
    return [
      `${variant} build (${integer.format(Math.round(loaded.manifest.wasm[variant] / 1024))} KiB): ready in ${fixed(init.median_ns / 1e6)} ms (min ${fixed(init.min_ns / 1e6)}, ${init.runs} fresh workers)` +
        (first ? `, then the first decode of ${first.config} took ${fixed(first.median_ns / 1e6, 2)} ms` : ''),
    ];
  });
  $('bench-cold').textContent = parts.length ? `Cold start (fetch + compile + init() of the wasm in a fresh worker): ${parts.join('; ')}.` : '';
}
