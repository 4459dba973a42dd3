// A Web Worker of the benchmark panel, with one wasm build (the SDK's init is
// once per realm, so each build gets its own worker). Same timing loop,
// plans and operations as `npm run bench` (mebo-tooling/harness). Two jobs:
//
//   bench  time every bench blob: decode into fresh arrays (decodeAll), into
//          arrays kept from the previous call (decodeAllInto) and, numeric
//          ones, read through views of the module's memory (columnsView);
//          with the simd build, then encode each numeric one from its points
//          and the first with `config: 'auto'` under each prefer (encodeRows)
//   cold   what a visitor feels first, in a fresh worker: fetch + compile +
//          init() of the wasm, then the first decode of one blob

import * as mebo from 'mebo';
import { PLANS, decodeNumeric, decodeNumericInto, decodeNumericView, decodeText, decodeTextInto, encodeRows, measure } from 'mebo-tooling/harness';
import type { BenchRow } from './rows.js';

export interface BenchCase {
  config: string;
  kind: 'numeric' | 'text';
  file: string;
  points: number;
}

export type BenchRequest =
  | { job: 'bench'; variant: mebo.WasmVariant; plan: 'quick' | 'full'; cases: BenchCase[] }
  | { job: 'cold'; variant: mebo.WasmVariant; blob: BenchCase };

export type BenchMessage =
  | { type: 'row'; row: BenchRow }
  | { type: 'cold'; init_ns: number; first_decode_ns: number }
  | { type: 'done' }
  | { type: 'error'; message: string };

const scope = globalThis as unknown as {
  postMessage(message: BenchMessage): void;
  onmessage: ((event: MessageEvent<BenchRequest>) => void) | null;
};

export const runtimeOf = (variant: mebo.WasmVariant) => (variant === 'scalar' ? 'wasm-browser-scalar' : 'wasm-browser');
const wasmUrl = (variant: mebo.WasmVariant) => `wasm/mebo_${variant}.wasm`;

async function fetchBytes(path: string): Promise<Uint8Array> {
  // no-store: every cold start fetches and compiles afresh, as on a first visit.
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function bench({ variant, plan, cases }: Extract<BenchRequest, { job: 'bench' }>): Promise<void> {
  await mebo.init({ wasm: fetch(wasmUrl(variant)), variant });
  const runtime = runtimeOf(variant);
  const timing = PLANS[plan];
  for (const c of cases) {
    const bytes = await fetchBytes(c.file);
    const text = c.kind === 'text';
    const fresh = text ? () => decodeText(mebo, bytes) : () => decodeNumeric(mebo, bytes);
    const reuse = {};
    const kept = text ? () => decodeTextInto(mebo, bytes, reuse) : () => decodeNumericInto(mebo, bytes, reuse);
    const base = { config: c.config, runtime, points: c.points, bytes: bytes.length };
    scope.postMessage({ type: 'row', row: { ...base, op: 'decode', ...measure(fresh, timing) } });
    scope.postMessage({ type: 'row', row: { ...base, op: 'decode-into', ...measure(kept, timing) } });
    if (!text) scope.postMessage({ type: 'row', row: { ...base, op: 'decode-view', ...measure(() => decodeNumericView(mebo, bytes), timing) } });
  }
  if (variant === 'simd') await encode(cases, timing);
}

/** A bench case as encodeRows takes it: the options its configuration name spells (every bench blob is untagged, little-endian). */
function encodeCase(c: BenchCase) {
  const [timestampEncoding, timestampCompression, valueEncoding, valueCompression, ...layout] = c.config.split('-');
  return { kind: c.kind, options: { timestampEncoding, timestampCompression, valueEncoding, valueCompression, layout: layout.join('-') || 'v1', tags: false, bigEndian: false } };
}

/**
 * The points of a numeric blob as encoder input, by id in the blob's order:
 * the bench blobs decode to their inputs exactly, so the page needs no copy
 * of the input files.
 */
function inputOf(bytes: Uint8Array): { startTime: bigint; metrics: { id: bigint; timestamps: BigInt64Array; values: Float64Array }[] } {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    const { ids, offsets, timestamps, values } = blob.decodeAll();
    const metrics = [...ids].map((id, i) => ({ id, timestamps: timestamps.slice(offsets[i], offsets[i + 1]), values: values.slice(offsets[i], offsets[i + 1]) }));
    return { startTime: blob.startTime, metrics };
  } finally {
    blob.free();
  }
}

async function encode(cases: BenchCase[], timing: (typeof PLANS)['quick']): Promise<void> {
  const numeric = cases.filter((c) => c.kind === 'numeric');
  const blobs = new Map<string, Uint8Array>();
  for (const c of numeric) blobs.set(c.config, await fetchBytes(c.file));
  const byCase = new Map(numeric.map((c) => [encodeCase(c), c]));
  const input = (bc: ReturnType<typeof encodeCase>) => inputOf(blobs.get(byCase.get(bc)!.config)!);
  const recorded = (bc: ReturnType<typeof encodeCase>) => blobs.get(byCase.get(bc)!.config)!;
  encodeRows(mebo, [...byCase.keys()], input, recorded, runtimeOf('simd'), timing, { record: (row: BenchRow) => scope.postMessage({ type: 'row', row }) });
}

async function cold({ variant, blob }: Extract<BenchRequest, { job: 'cold' }>): Promise<void> {
  const bytes = await fetchBytes(blob.file);
  const t0 = performance.now();
  // Streaming compilation, as a page's first init() does.
  await mebo.init({ wasm: fetch(wasmUrl(variant), { cache: 'no-store' }), variant });
  const t1 = performance.now();
  (blob.kind === 'text' ? decodeText : decodeNumeric)(mebo, bytes);
  const t2 = performance.now();
  scope.postMessage({ type: 'cold', init_ns: (t1 - t0) * 1e6, first_decode_ns: (t2 - t1) * 1e6 });
}

scope.onmessage = (event) => {
  const request = event.data;
  (request.job === 'bench' ? bench(request) : cold(request))
    .then(() => scope.postMessage({ type: 'done' }))
    .catch((error: unknown) => {
      const message = error instanceof mebo.MeboError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      scope.postMessage({ type: 'error', message });
    });
};
