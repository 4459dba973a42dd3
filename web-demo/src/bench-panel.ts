// The benchmark panel: decode of the bench blobs in this browser (simd and
// scalar builds, one worker each), beside the figures of the last
// `npm run bench` (bench-results.json, copied in at build time when present),
// the reference implementation's own timings on the project's machine kind
// and the documented x86 figures.

import type { BenchCase, BenchMessage, BenchRequest } from './bench-worker.js';

interface BenchManifest {
  cases: (BenchCase & { bytes: number; points: number })[];
}
interface ResultRow {
  config: string;
  runtime: string;
  op: string;
  median_ns: number;
}
interface BenchResults {
  machine: { cpu?: string; date?: string; plan?: string; chromium?: string };
  results: ResultRow[];
}
interface GoReference {
  machine: string;
  rows: { name: string; decode_materialize_ns: number }[];
}
interface SeedReference {
  machine: string;
  decode_iterate_250pts: Record<string, { total: number }>;
}

type Measured = Partial<Record<'simd' | 'scalar', number>>;

const $ = (id: string) => document.getElementById(id)!;

async function fetchJson<T>(path: string): Promise<T | undefined> {
  const response = await fetch(path);
  if (!response.ok) return undefined;
  return ((await response.json()) as T | null) ?? undefined;
}

const us = (ns: number | undefined) => (ns === undefined ? '–' : (ns / 1e3).toFixed(1));

function cell(text: string, className = 'num'): HTMLTableCellElement {
  const td = document.createElement('td');
  td.className = className;
  td.textContent = text;
  return td;
}

/** `other / ours` as a ratio cell: above 1, this browser is faster. */
function ratioCell(other: number | undefined, ours: number | undefined, judge = false): HTMLTableCellElement {
  if (other === undefined || ours === undefined) return cell('–');
  const r = other / ours;
  return cell(`${r.toFixed(2)}×`, judge ? `num ${r >= 1 ? 'good' : 'bad'}` : 'num');
}

export async function setupBench(): Promise<void> {
  const [manifest, results, go, seed] = await Promise.all([
    fetchJson<BenchManifest>('bench/manifest.json'),
    fetchJson<BenchResults>('bench-results.json'),
    fetchJson<GoReference>('reference/go-v1.9-epyc.json'),
    fetchJson<SeedReference>('reference/seed-x86.json'),
  ]);
  if (!manifest) {
    $('bench-status').textContent = 'no bench blobs in this build';
    ($('bench-run') as HTMLButtonElement).disabled = true;
    return;
  }
  const measured = new Map<string, Measured>();
  const recorded = (config: string, runtime: string) =>
    results?.results.find((r) => r.config === config && r.runtime === runtime && r.op === 'decode')?.median_ns;
  const goNs = (name: string) => go?.rows.find((r) => r.name === name)?.decode_materialize_ns;
  const seedNs = (config: string) => {
    const total = seed?.decode_iterate_250pts[config]?.total;
    return total === undefined ? undefined : total * 1e3;
  };

  const table = $('bench-table') as HTMLTableElement;
  const heads = ['config', 'blob bytes', 'simd µs', 'scalar µs', 'simd gain', 'Node µs', 'native µs', 'Go run µs', 'Go epyc µs', 'vs Node', 'vs native', 'vs Go run', 'vs Go epyc', 'x86 doc µs', 'vs x86 doc'];
  const headRow = document.createElement('tr');
  for (const h of heads) {
    const th = document.createElement('th');
    th.textContent = h;
    if (h !== 'config') th.className = 'num';
    headRow.append(th);
  }
  table.tHead!.replaceChildren(headRow);

  function render(): void {
    table.tBodies[0].replaceChildren(
      ...manifest!.cases.map((c) => {
        const m = measured.get(c.config) ?? {};
        const node = recorded(c.config, 'wasm-node');
        const native = recorded(c.config, 'rust-native');
        const goRun = recorded(c.config, 'go-reference');
        const goRef = goNs(c.name);
        const seedRef = seedNs(c.config);
        const tr = document.createElement('tr');
        tr.append(
          cell(c.config, ''),
          cell(String(c.bytes)),
          cell(us(m.simd)),
          cell(us(m.scalar)),
          ratioCell(m.scalar, m.simd),
          cell(us(node)),
          cell(us(native)),
          cell(us(goRun)),
          cell(us(goRef)),
          ratioCell(node, m.simd),
          ratioCell(native, m.simd),
          ratioCell(goRun, m.simd, true),
          ratioCell(goRef, m.simd, true),
          cell(us(seedRef)),
          ratioCell(seedRef, m.simd, true),
        );
        return tr;
      }),
    );
  }
  render();

  const sources = [
    results
      ? `Node / native / Go run: bench-results.json (${results.machine.plan ?? ''} run of ${results.machine.date?.slice(0, 10) ?? '?'}, ${results.machine.cpu ?? '?'})`
      : 'Node / native / Go run: no bench-results.json in this build (run `npm run bench`, then rebuild the demo)',
    go ? `Go epyc: ${go.machine}` : undefined,
    seed ? `x86 doc: ${seed.machine}, decode + iterate` : undefined,
  ];
  $('bench-note').textContent = `${sources.filter(Boolean).join('. ')}.`;

  const button = $('bench-run') as HTMLButtonElement;
  button.addEventListener('click', async () => {
    button.disabled = true;
    measured.clear();
    render();
    const quick = ($('bench-quick') as HTMLInputElement).checked;
    const cases = manifest.cases.map(({ name, config, kind, file }) => ({ name, config, kind, file }));
    try {
      for (const variant of ['simd', 'scalar'] as const) {
        await runWorker({ variant, quick, cases }, (done) => {
          $('bench-status').textContent = `${variant}: ${done} / ${cases.length}`;
        });
      }
      $('bench-status').textContent = `done (${quick ? 'quick' : 'full'} run)`;
      document.body.dataset.bench = 'done';
    } catch (error) {
      $('bench-status').textContent = `failed: ${error instanceof Error ? error.message : String(error)}`;
      document.body.dataset.bench = 'error';
    } finally {
      button.disabled = false;
    }
  });

  function runWorker(request: BenchRequest, progress: (done: number) => void): Promise<void> {
    const worker = new Worker('bench-worker.js', { type: 'module' });
    let done = 0;
    return new Promise<void>((resolve, reject) => {
      worker.onerror = (e) => reject(new Error(e.message || 'worker failed'));
      worker.onmessage = (event: MessageEvent<BenchMessage>) => {
        const message = event.data;
        if (message.type === 'ready' && !message.isolated) {
          $('bench-note').textContent += ' This page is not cross-origin isolated: timers are coarse (100 µs).';
        } else if (message.type === 'row') {
          measured.set(message.config, { ...measured.get(message.config), [message.variant]: message.median_ns });
          progress(++done);
          render();
        } else if (message.type === 'done') {
          resolve();
        } else if (message.type === 'error') {
          reject(new Error(message.message));
        }
      };
      worker.postMessage(request);
    }).finally(() => worker.terminate());
  }
}
