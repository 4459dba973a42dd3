// What a pool worker is asked to do, and how it does it: the SDK's own calls
// on bytes it was handed, with every typed array of the answer transferred
// back (moved, not copied). Shared by the pool (types) and the workers (run,
// serve).

import type * as Mebo from '../entries/index.js';
import type { DecodeLimits, MetricKey } from '../options.js';
import type { DecimateOptions, TimeBound } from '../series.js';

/** One call, as the main-thread API names it. */
export type Job =
  | { op: 'decodeAll'; bytes: Uint8Array }
  | { op: 'range'; bytes: Uint8Array; key: MetricKey; from: TimeBound; to: TimeBound }
  | { op: 'decimate'; bytes: Uint8Array; key: MetricKey; options: DecimateOptions }
  | { op: 'materialize'; blobs: Uint8Array[] }
  | { op: 'materializeMetric'; blobs: Uint8Array[]; key: MetricKey };

/** How a worker sets itself up: init() as the pool was given it (the module compiled once, by the pool), limits for every blob, when to reset. */
export interface Setup {
  init: Mebo.InitOptions;
  limits: DecodeLimits | undefined;
  /** After a job, reset() the module when its memory is above this many bytes. */
  resetAboveBytes: number;
}

/** Messages to a worker: set up once, then jobs. */
export type Request = { id: number; setup: Setup } | { id: number; job: Job };

/** An error as it crosses: its code, message and the cause's text (an Error does not survive every structured clone). */
export interface WireError {
  code: string;
  message: string;
  cause?: { name: string; message: string; stack?: string };
}

/**
 * A worker's answer: the result with the kind of blob it came from (text
 * columns as plain fields, see `dictionary`), or the error. `retire`: the
 * worker cannot give its memory back (a handle it could not free) and asks to
 * be replaced.
 */
export type Response =
  | { id: number; ok: unknown; kind: Mebo.BlobKind; dictionary: boolean; retire?: boolean }
  | { id: number; error: WireError; retire?: boolean };

/** The buffers of every typed array in `value` (one level of object fields), each once. */
function buffersOf(value: unknown): ArrayBuffer[] {
  const found = new Set<ArrayBuffer>();
  const visit = (v: unknown) => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) found.add(v.buffer);
  };
  if (value && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  return [...found];
}

/** Text columns as plain fields (a class with lazy getters does not cross a postMessage). */
function plainText(c: Mebo.TextColumns) {
  const { ids, offsets, timestamps, dictionary, codes, tagDictionary, tagCodes } = c;
  return { ids, offsets, timestamps, dictionary, codes, tagDictionary, tagCodes };
}

/**
 * Run `job` with the SDK; resolves to the answer, the kind of blob, whether it
 * is dictionary columns, and the buffers to transfer. Blobs and sets are
 * opened with `load()`, so a worker whose module lacks a part a blob needs
 * (the light core) fetches it rather than failing.
 */
export async function run(mebo: typeof Mebo, job: Job, limits: DecodeLimits | undefined): Promise<{ ok: unknown; kind: Mebo.BlobKind; dictionary: boolean; transfer: ArrayBuffer[] }> {
  let ok: unknown;
  let dictionary = false;
  // An unknown kind decodes as numeric, which reports why it is not.
  const first = 'bytes' in job ? job.bytes : job.blobs[0];
  const kind: Mebo.BlobKind = first !== undefined && mebo.blobKind(first) === 'text' ? 'text' : 'numeric';
  const text = kind === 'text';
  if (job.op === 'materialize' || job.op === 'materializeMetric') {
    using set = text ? await mebo.TextBlobSet.load(job.blobs, limits) : await mebo.NumericBlobSet.load(job.blobs, limits);
    if (job.op === 'materializeMetric') {
      ok = set.materializeMetric(job.key);
    } else {
      ok = text ? plainText((set as Mebo.TextBlobSet).materialize()) : set.materialize();
      dictionary = text;
    }
  } else {
    using blob = text ? await mebo.TextBlob.load(job.bytes, limits) : await mebo.NumericBlob.load(job.bytes, limits);
    if (job.op === 'decodeAll') {
      ok = text ? plainText((blob as Mebo.TextBlob).decodeAll()) : (blob as Mebo.NumericBlob).decodeAll();
      dictionary = text;
    } else if (job.op === 'range') {
      ok = blob.range(job.key, job.from, job.to);
    } else {
      if (text) throw new mebo.MeboError('INVALID_ARGUMENT', 'decimate needs a numeric blob');
      ok = (blob as Mebo.NumericBlob).decimate(job.key, job.options);
    }
  }
  return { ok, kind, dictionary, transfer: buffersOf(ok) };
}

/** A worker's side of its channel to the pool. */
export interface Port {
  post(message: Response, transfer?: ArrayBuffer[]): void;
  listen(handler: (message: Request) => void): void;
}

/** `error` as it crosses: a SuppressedError (a failure, then a failed free() of `using`) reports the first failure, not the disposal's. */
function wireError(mebo: typeof Mebo, error: unknown): WireError {
  const first = error instanceof Error && error.name === 'SuppressedError' && 'suppressed' in error ? (error as { suppressed: unknown }).suppressed : error;
  const cause = (e: unknown) => (e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : undefined);
  if (first instanceof mebo.MeboError) return { code: first.code, message: first.message, cause: cause(first.cause) };
  return { code: 'INTERNAL', message: first instanceof Error ? `${first.name}: ${first.message}` : String(first), cause: cause(first) };
}

/**
 * Serve the pool: set up, then run each job in order (one at a time: a
 * reset between jobs must not overlap the next). After a job the module is
 * reset when its memory passed the setup's threshold, or when the job failed
 * with something other than the blob's own error (the module may hold what
 * the failure left); a worker that cannot reset asks to be replaced.
 */
export function serve(mebo: typeof Mebo, port: Port): void {
  let setup: Setup | undefined;
  let queue = Promise.resolve();
  const handle = async (message: Request) => {
    if ('setup' in message) {
      try {
        await mebo.init(message.setup.init);
        setup = message.setup;
        port.post({ id: message.id, ok: mebo.wasmVariant() ?? null, kind: 'numeric', dictionary: false });
      } catch (error) {
        port.post({ id: message.id, error: wireError(mebo, error) });
      }
      return;
    }
    let failed: WireError | undefined;
    try {
      const { ok, kind, dictionary, transfer } = await run(mebo, message.job, setup?.limits);
      port.post({ id: message.id, ok, kind, dictionary }, transfer);
    } catch (error) {
      failed = wireError(mebo, error);
    }
    let retire = false;
    try {
      const threshold = failed?.code === 'INTERNAL' ? 0 : (setup?.resetAboveBytes ?? Infinity);
      if (mebo.isInitialized() && mebo.memoryInfo().memoryBytes > threshold) await mebo.reset({ aboveBytes: threshold });
    } catch {
      retire = true; // a handle the failure left alive: only a new worker gives the memory back
    }
    if (failed) port.post({ id: message.id, error: failed, retire });
    else if (retire) port.post({ id: -1, error: { code: 'INTERNAL', message: 'cannot reset' }, retire });
  };
  port.listen((message) => {
    queue = queue.then(() => handle(message));
  });
}
