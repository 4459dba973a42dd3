// One benchmark run, pass after pass (they would skew each other on a small
// machine), each with its progress bar:
//   native, Node, reference   through the local API of `npm run demo`
//                             (web-demo/bench-api.mjs), rows streamed as measured
//   cold     fresh workers: fetch + compile + init() of the wasm, then a first decode
//   simd     a worker with the simd build: decodeAll() (fresh arrays) and decodeAllInto() (kept arrays)
//   scalar   the same with the build without simd128

import { $, el, fixed } from '../dom.js';
import type { Figures, Plan } from './figures.js';
import { summarize, type BenchRow } from './rows.js';
import type { BenchCase, BenchMessage, BenchRequest } from './worker.js';

/** The configuration whose cold start and first decode are timed (the reference's default). */
export const FOCUS = 'delta-none-gorilla-none';
/** Fresh workers timed for the cold start, per build. */
const COLD_RUNS: Record<Plan, number> = { quick: 3, full: 7 };
const API_LABELS: Record<string, string> = { 'rust-native': 'native Rust', 'wasm-node': 'Node', 'go-reference': 'reference (Go, GOMAXPROCS=1)' };

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

/**
 * Run every pass of a `plan` run, adding each row to `figures` and calling
 * `changed` after each; rejects when a pass fails or `signal` aborts.
 */
export async function runPasses(figures: Figures, plan: Plan, signal: AbortSignal, changed: () => void): Promise<void> {
  const { cases, caseOf, state, loaded } = figures;
  $('bench-passes').replaceChildren();
  const add = (row: BenchRow) => {
    state.rows.push(row);
    changed();
  };
  const configsDone = (runtime: string, op?: string) => new Set(state.rows.filter((r) => r.runtime === runtime && (op === undefined || r.op === op)).map((r) => r.config)).size;
  const workerCases: BenchCase[] = cases.map(({ config, kind, file, points }) => ({ config, kind, file, points }));
  const passes: [Pass, () => Promise<void>][] = [];
  for (const runtime of loaded.api?.runtimes ?? []) {
    const pass = new Pass(API_LABELS[runtime] ?? runtime, cases.length);
    passes.push([pass, () => streamRows(runtime, plan, signal, (row) => (add(row), pass.step(configsDone(runtime), row.config)))]);
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
        add({ config: 'wasm', runtime, op: 'cold-start', points: 0, bytes: loaded.manifest.wasm[variant], ...summarize(init) });
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
          pass.step(configsDone(runtime, 'decode-into'), m.row.config);
        }),
    ]);
  }
  for (const [pass, work] of passes) {
    pass.text.textContent = 'running';
    const t0 = performance.now();
    await work();
    pass.finish(`done in ${fixed((performance.now() - t0) / 1e3)} s`);
  }
}
