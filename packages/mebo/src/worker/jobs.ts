// What a pool worker is asked to do, and how it does it: the SDK's own calls
// on bytes it was handed, with every typed array of the answer transferred
// back (moved, not copied). Shared by the pool (types) and the worker (run).

import type * as Mebo from '../index.js';
import type { DecimateOptions, TimeBound } from '../series.js';
import type { MetricKey } from '../options.js';

/** One call, as the main-thread API names it. */
export type Job =
  | { op: 'decodeAll'; bytes: Uint8Array }
  | { op: 'range'; bytes: Uint8Array; key: MetricKey; from: TimeBound; to: TimeBound }
  | { op: 'decimate'; bytes: Uint8Array; key: MetricKey; options: DecimateOptions }
  | { op: 'materialize'; blobs: Uint8Array[] }
  | { op: 'materializeMetric'; blobs: Uint8Array[]; key: MetricKey };

/** Messages to a worker: load the module once, then jobs. */
export type Request = { id: number; init: Mebo.InitOptions } | { id: number; job: Job };

/** A worker's answer: the result (text columns as plain fields, see `text`), or the error's code and message. */
export type Response = { id: number; ok: unknown; text?: boolean } | { id: number; error: { code: string; message: string } };

/** The buffers of every typed array in `value` (one level of object fields), each once. */
function buffersOf(value: unknown): ArrayBuffer[] {
  const found = new Set<ArrayBuffer>();
  const visit = (v: unknown) => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) found.add(v.buffer);
  };
  if (value && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  return [...found];
}

/** The kind of blob `bytes` holds; an unknown one decodes as numeric, which reports why it is not. */
const isText = (mebo: typeof Mebo, bytes: Uint8Array) => mebo.blobKind(bytes) === 'text';

/** Text columns as plain fields (a class with lazy getters does not cross a postMessage). */
function plainText(c: Mebo.TextColumns) {
  const { ids, offsets, timestamps, dictionary, codes, tagDictionary, tagCodes } = c;
  return { ids, offsets, timestamps, dictionary, codes, tagDictionary, tagCodes };
}

/** Run `job` with the SDK; returns the answer and the buffers to transfer with it. */
export function run(mebo: typeof Mebo, job: Job): { ok: unknown; text: boolean; transfer: ArrayBuffer[] } {
  let ok: unknown;
  let text = false;
  if (job.op === 'materialize' || job.op === 'materializeMetric') {
    text = job.blobs.length > 0 && isText(mebo, job.blobs[0]);
    using set = text ? mebo.TextBlobSet.from(job.blobs) : mebo.NumericBlobSet.from(job.blobs);
    if (job.op === 'materializeMetric') {
      ok = set.materializeMetric(job.key);
      text = false; // a metric's series is plain already
    } else {
      ok = text ? plainText((set as Mebo.TextBlobSet).materialize()) : set.materialize();
    }
  } else {
    text = isText(mebo, job.bytes);
    using blob = text ? mebo.TextBlob.from(job.bytes) : mebo.NumericBlob.from(job.bytes);
    if (job.op === 'decodeAll') {
      ok = text ? plainText((blob as Mebo.TextBlob).decodeAll()) : (blob as Mebo.NumericBlob).decodeAll();
    } else if (job.op === 'range') {
      ok = blob.range(job.key, job.from, job.to);
      text = false;
    } else {
      if (text) throw new mebo.MeboError('INVALID_ARGUMENT', 'decimate needs a numeric blob');
      ok = (blob as Mebo.NumericBlob).decimate(job.key, job.options);
    }
  }
  return { ok, text, transfer: buffersOf(ok) };
}
