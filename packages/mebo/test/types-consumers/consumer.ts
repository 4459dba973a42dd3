// A consumer of the published package, type-checked under moduleResolution
// node16 and bundler (see ../types-consumers.test.ts). It is never run.

import {
  encodeNumeric,
  init,
  initSync,
  MeboError,
  NumericBlob,
  NumericEncoder,
  TextBlob,
  type DecodeLimits,
  type MeboErrorCode,
  type NumericColumns,
  type NumericMetric,
  type TextMetric,
  type WasmModule,
  alignedSeries,
  type Decimated,
  type TextColumns,
} from 'mebo';
import { DecodePool } from 'mebo/worker';
import { init as initDecode, NumericBlob as ReadOnlyBlob, NumericBlobSet, TextBlob as ReadOnlyTextBlob, type WasmInfo } from 'mebo/decode';
// @ts-expect-error: mebo/decode has no encoders
import { encodeNumeric as noEncoder } from 'mebo/decode';

/** `mebo/decode`, the read side alone, resolves and checks too (and has no encoder). */
export async function readOnly(bytes: Uint8Array): Promise<number> {
  await initDecode({ variant: 'auto' });
  using blob = ReadOnlyBlob.from(bytes, { maxPoints: 1_000_000 });
  using set = NumericBlobSet.from([bytes]);
  const columns: NumericColumns = blob.decodeAll();
  const line: Decimated = set.decimate('cpu.user', { method: 'lttb', buckets: 100 });
  const text: TextMetric = ReadOnlyTextBlob.from(bytes).metric(1n);
  const info: WasmInfo = { variant: 'scalar', simdCheck: 'not run' };
  return columns.values.length + line.values.length + text.values.length + String(info.variant).length + (noEncoder === undefined ? 0 : 1);
}

/** The chart and worker entry points resolve and check too. */
export async function chart(bytes: Uint8Array): Promise<number> {
  using blob = NumericBlob.from(bytes);
  const line: Decimated = blob.decimate('cpu.user', { method: 'minmax', buckets: 800, from: Date.now() - 3_600_000 });
  const hour = blob.range('cpu.user', Date.now() - 3_600_000, Date.now());
  const view: NumericColumns = blob.columnsView();
  const [xs] = alignedSeries(blob, ['cpu.user', 'cpu.system']);
  const pool = await DecodePool.create({ size: 2 });
  const decoded = await pool.decodeAll(bytes, { timeoutMs: 1000, signal: AbortSignal.timeout(2000) });
  // The result says which kind it is.
  const text: TextColumns | undefined = decoded.kind === 'text' ? decoded : undefined;
  const numeric: NumericColumns | undefined = decoded.kind === 'numeric' ? decoded : undefined;
  pool.terminate();
  return line.values.length + hour.values.length + view.values.length + xs.length + (text?.codes.length ?? numeric!.values.length);
}

export async function consume(bytes: Uint8Array, module: WasmModule): Promise<number> {
  await init({ variant: 'auto' });
  await init({ wasm: new URL('https://example.invalid/mebo_simd.wasm') });
  initSync(module);
  const limits: DecodeLimits = { maxPoints: 1_000_000 };
  using blob = NumericBlob.from(bytes, limits);
  const metric: NumericMetric = blob.metric('cpu.user');
  const columns: NumericColumns = blob.decodeAll();
  const ms: Float64Array = blob.timestampsMs(metric.id);
  const first: bigint = metric.timestamps[0] ?? 0n;
  const text = TextBlob.from(bytes);
  const status: TextMetric = text.metric(1n);
  text.free();
  const encoder = new NumericEncoder(first, 'delta-none-gorilla-zstd');
  encoder.startMetric('cpu.user', 1).addPoint(first, 0.5, 'host=a').endMetric();
  const out: Uint8Array = encoder.finish();
  const again = encodeNumeric([{ name: 'm', timestamps: [1n], values: [2] }], { layout: 'v2-shared', tags: false });
  try {
    NumericBlob.from(out);
  } catch (error) {
    if (error instanceof MeboError) {
      const code: MeboErrorCode = error.code;
      return code.length;
    }
  }
  return columns.values.length + ms.length + status.values.length + again.length;
}
