// `mebo/worker`: decode off the main thread. A pool of workers (Web Workers
// in browsers, worker_threads in Node, Deno and Bun), each with its own
// instance of the module, runs the SDK's calls on blobs it is handed and
// sends the typed arrays back transferred (moved, not copied). The calls have
// the shape of the main-thread ones, as promises.
//
//   const pool = await DecodePool.create();          // one worker per core by default
//   const columns = await pool.decodeAll(bytes);     // columns.kind: 'numeric' | 'text'
//   const line = await pool.decimate(bytes, 'cpu', { method: 'minmax', buckets: 1200 });
//
// Workers are started by ./spawn.ts (browsers) or ./spawn-node.ts (Node; the
// `node` and `require` builds, see build-sdk.mjs). A Node process exits when
// the pool is idle; terminate() is needed only to stop the workers early.

import { MeboError, dictionaryColumns, frameError, init, loadedModule, streamFrames, type DecodeLimits, type InitOptions, type NumericColumns, type NumericMetric, type TextColumns, type TextMetric } from '../entries/index.js';
import type { MaterializedMetric } from '../blob-set.js';
import type { MeboErrorCode } from '../errors.js';
import type { MetricKey } from '../options.js';
import type { Decimated, DecimateOptions, TimeBound } from '../series.js';
import type { Frame, FrameOptions, StreamSource } from '../stream-read.js';
import type { Endpoint } from './endpoint.js';
import type { Job, Request, Response, Setup, WireError } from './jobs.js';
import { hostCores, spawnWorker } from './spawn.js';

export interface PoolOptions {
  /** Workers to start: default the host's cores (`navigator.hardwareConcurrency`, `os.availableParallelism()`). */
  size?: number;
  /**
   * `init()` options: the pool calls `init(options.init)` on this thread
   * (returning at once when it ran already: the first call's options win)
   * and hands every worker the compiled module and these options, so each
   * worker runs the same build with the same settings without loading it
   * again.
   */
  init?: InitOptions;
  /** Decode limits for every blob and set the workers open (default: the SDK's, `defaultDecodeLimits()`). */
  limits?: DecodeLimits;
  /** Default for every call's `timeoutMs` (default: none). */
  timeoutMs?: number;
  /**
   * After a job, a worker whose module memory is above this many bytes
   * resets it (`reset()`): one huge blob does not pin its memory for the
   * pool's life. Default 256 MiB; `Infinity` never resets.
   */
  resetAboveBytes?: number;
}

export interface CallOptions {
  /** Transfer the input's buffer to the worker instead of copying it (the caller's array is detached). */
  transfer?: boolean;
  /**
   * Reject with a `MeboError` `TIMEOUT` when the call has not settled this
   * many milliseconds after it was made; a worker still running it is
   * replaced (a decode cannot be interrupted otherwise).
   */
  timeoutMs?: number;
  /** Reject with `ABORTED` when aborted; a worker running the call is replaced. */
  signal?: AbortSignal;
}

/** `decodeStream` options: the frame cap and an abort signal (see `decodeStream` of `mebo`), and each blob's `timeoutMs`. */
export interface StreamCallOptions extends FrameOptions {
  /** Each blob's decode, as a call's `timeoutMs`. */
  timeoutMs?: number;
}

/** `decodeAll` / `materialize` columns, told apart by `kind`. */
export type PoolColumns = (NumericColumns & { kind: 'numeric' }) | (TextColumns & { kind: 'text' });
/** One metric's points (`range`), told apart by `kind`. */
export type PoolMetric = (NumericMetric & { kind: 'numeric' }) | (TextMetric & { kind: 'text' });
/** A set's metric (`materializeMetric`), told apart by `kind`. */
export type PoolMaterializedMetric = (MaterializedMetric<Float64Array> & { kind: 'numeric' }) | (MaterializedMetric<string[]> & { kind: 'text' });

/** The default `resetAboveBytes`. */
const RESET_ABOVE_BYTES = 256 << 20;

/**
 * Shared staging of a call's input bytes. postMessage copies a Uint8Array
 * twice (serialized on this thread, deserialized into fresh memory in the
 * worker): for blobs of hundreds of KB that costs as much as decoding them
 * (Chromium: about 0.7 ms per 500 KB), and it does not run in parallel. Where
 * SharedArrayBuffer is available (Node, Deno, cross-origin isolated pages),
 * the bytes are copied once into a shared buffer kept from call to call and
 * the worker reads them there. A buffer goes back to the free list when its
 * call is settled.
 */
class Staging {
  readonly #free: SharedArrayBuffer[] = [];

  static available(): boolean {
    return typeof SharedArrayBuffer === 'function' && (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false;
  }

  /** `bytes` copied into a shared buffer; `release` returns the buffer to the pool. */
  stage(inputs: Uint8Array[]): { views: Uint8Array[]; release(): void } {
    const total = inputs.reduce((n, b) => n + b.byteLength, 0);
    const at = this.#free.findIndex((b) => b.byteLength >= total);
    // Power-of-two sizes, at least 64 KiB, so buffers are reused across blobs of similar size.
    const buffer = at >= 0 ? this.#free.splice(at, 1)[0]! : new SharedArrayBuffer(Math.max(1 << 16, 2 ** Math.ceil(Math.log2(Math.max(total, 1)))));
    let offset = 0;
    const views = inputs.map((b) => {
      const view = new Uint8Array(buffer, offset, b.byteLength);
      view.set(b);
      offset += b.byteLength;
      return view;
    });
    // Buffers over 16 MiB are not kept: one huge blob must not pin its size for the pool's life.
    return { views, release: () => void (buffer.byteLength <= STAGING_KEEP_BYTES && this.#free.push(buffer)) };
  }
}

/** The largest staging buffer a pool keeps for later calls. */
const STAGING_KEEP_BYTES = 16 << 20;

/**
 * Calls a worker holds at once: the one it runs and the next, so that it
 * never waits a round trip for work. The rest wait in the pool's queue and go
 * to whichever worker answers first: blobs of uneven size spread evenly.
 */
const IN_FLIGHT = 2;

/** One call from the moment it is made until it settles. */
interface Call {
  request: Request;
  /** Buffers moved to the worker (`transfer: true`): the call cannot be sent again. */
  transfer: ArrayBuffer[];
  settled: boolean;
  settle(error: MeboError | undefined, value?: unknown): void;
}

class PoolWorker {
  /** Calls sent, in the order sent: the first is the one the worker runs. */
  readonly pending = new Map<number, Call>();
  ready = false;
  dead = false;
  constructor(readonly endpoint: Endpoint) {}

  running(): Call | undefined {
    return this.pending.values().next().value;
  }
}

let nextId = 1;

const workerFailed = (worker: PoolWorker, cause: unknown) =>
  new MeboError('WORKER_FAILED', `a pool worker (${worker.endpoint.script}) failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });

/** A worker's error as a MeboError, its cause rebuilt as an Error. */
function fromWire(error: WireError): MeboError {
  let cause: Error | undefined;
  if (error.cause) {
    cause = new Error(error.cause.message);
    cause.name = error.cause.name;
    if (error.cause.stack) cause.stack = error.cause.stack;
  }
  return new MeboError(error.code as MeboErrorCode, error.message, cause ? { cause } : undefined);
}

/** A pool of decoding workers. Create it with `DecodePool.create()`; `terminate()` stops it early. */
export class DecodePool {
  #workers: PoolWorker[] = [];
  #queue: Call[] = [];
  #closed = false;
  #staging = Staging.available() ? new Staging() : undefined;
  #setup: Setup;
  #fallbackSetup: Setup;
  #timeoutMs: number | undefined;

  private constructor(setup: Setup, fallbackSetup: Setup, timeoutMs: number | undefined) {
    this.#setup = setup;
    this.#fallbackSetup = fallbackSetup;
    this.#timeoutMs = timeoutMs;
  }

  /** Load the module on this thread (`init()`), start the workers and set each up (resolves once all are ready). */
  static async create(options: PoolOptions = {}): Promise<DecodePool> {
    const size = options.size ?? hostCores();
    if (!Number.isInteger(size) || size < 1 || size > 256) throw new MeboError('INVALID_ARGUMENT', `size must be an integer from 1 to 256, got ${String(size)}`);
    checkTimeout(options.timeoutMs);
    const resetAboveBytes = options.resetAboveBytes ?? RESET_ABOVE_BYTES;
    if (typeof resetAboveBytes !== 'number' || !(resetAboveBytes >= 0)) {
      throw new MeboError('INVALID_ARGUMENT', `resetAboveBytes must be a number >= 0, got ${String(resetAboveBytes)}`);
    }
    const given = options.init ?? {};
    await init(given);
    const loaded = loadedModule()!;
    // Every init option passes through (a memory budget among them); the module is the one compiled here.
    const setup: Setup = { init: { ...given, wasm: loaded.module, variant: loaded.variant }, limits: options.limits, resetAboveBytes };
    // Where a module cannot be posted to a worker: the options less the module, loaded by the worker itself.
    const { wasm, ...rest } = given;
    const portable = typeof wasm === 'string' ? { ...rest, wasm } : wasm instanceof URL ? { ...rest, wasm: wasm.href } : rest;
    const pool = new DecodePool(setup, { ...setup, init: portable }, options.timeoutMs);
    try {
      await Promise.all(Array.from({ length: size }, () => pool.#start()));
    } catch (error) {
      pool.terminate();
      throw error;
    }
    return pool;
  }

  /** Workers in the pool. */
  get size(): number {
    return this.#workers.length;
  }

  /** `decodeAll` of a numeric or text blob (its kind read from its header, given in `kind`). */
  decodeAll(bytes: Uint8Array, options?: CallOptions): Promise<PoolColumns> {
    return this.#run({ op: 'decodeAll', bytes }, options);
  }

  /** `range` of one metric (see `NumericBlob.range`). */
  range(bytes: Uint8Array, key: MetricKey, from: TimeBound, to: TimeBound, options?: CallOptions): Promise<PoolMetric> {
    return this.#run({ op: 'range', bytes, key, from, to }, options);
  }

  /** `decimate` of one numeric metric (see `NumericBlob.decimate`). */
  decimate(bytes: Uint8Array, key: MetricKey, decimation: DecimateOptions, options?: CallOptions): Promise<Decimated> {
    return this.#run({ op: 'decimate', bytes, key, options: decimation }, options);
  }

  /** A set's `materialize`: every metric over the windows `blobs` hold. */
  materialize(blobs: Uint8Array[], options?: CallOptions): Promise<PoolColumns> {
    return this.#run({ op: 'materialize', blobs }, options);
  }

  /** A set's `materializeMetric`. */
  materializeMetric(blobs: Uint8Array[], key: MetricKey, options?: CallOptions): Promise<PoolMaterializedMetric> {
    return this.#run({ op: 'materializeMetric', blobs, key }, options);
  }

  /**
   * `decodeAll` of every blob of a stream of blobs (see `decodeStream` of
   * `mebo`), in stream order. Frames are read on this thread and decoded on
   * the workers as they arrive, at most one per worker at a time: a consumer
   * slower than the workers holds back the reading. Each result is yielded
   * as soon as it and every one before it are done. The errors are
   * `decodeStream`'s, a blob's naming its frame; `signal` also cancels the
   * decodes in flight. Leaving the loop early cancels the source (decodes in
   * flight finish and are dropped).
   */
  decodeStream(source: StreamSource, options?: StreamCallOptions): AsyncGenerator<PoolColumns, void, undefined> {
    const signal = options?.signal;
    if (signal !== undefined && typeof signal?.addEventListener !== 'function') throw new MeboError('INVALID_ARGUMENT', 'signal must be an AbortSignal');
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
    checkTimeout(timeoutMs);
    // Stops a read waiting on the source when the loop ends early (a generator's return() would wait for it).
    const stop = new AbortController();
    const forward = () => stop.abort(signal!.reason);
    const frames = streamFrames(source, { maxBlobBytes: options?.maxBlobBytes, signal: stop.signal });
    const decode = (frame: Frame): Promise<PoolColumns> => {
      const decoded = this.decodeAll(frame.bytes, { signal, timeoutMs }).catch((error: unknown) => {
        throw frameError(frame, error);
      });
      decoded.catch(() => {}); // thrown when its turn comes
      return decoded;
    };
    const pool = this;
    return (async function* () {
      if (signal?.aborted) forward();
      else signal?.addEventListener('abort', forward, { once: true });
      const inFlight: Promise<PoolColumns>[] = [];
      let next: Promise<IteratorResult<Frame>> | undefined;
      let ended = false;
      let failure: unknown;
      try {
        for (;;) {
          if (!ended && next === undefined && inFlight.length < Math.max(1, pool.size)) next = frames.next();
          if (next === undefined && inFlight.length === 0) {
            // The stream's own error comes after every blob before it.
            if (failure !== undefined) throw failure;
            return;
          }
          // Whichever comes first: the oldest decode (yielded in order) or the next frame.
          const oldest = inFlight[0];
          const first = oldest === undefined ? 'frame' : next === undefined ? 'decoded' : await Promise.race([oldest.then(() => 'decoded' as const, () => 'decoded' as const), next.then(() => 'frame' as const, () => 'frame' as const)]);
          if (first === 'decoded') {
            inFlight.shift();
            yield await oldest!;
          } else {
            const pending = next!;
            next = undefined;
            try {
              const step = await pending;
              if (step.done) ended = true;
              else inFlight.push(decode(step.value));
            } catch (error) {
              ended = true;
              failure = error;
            }
          }
        }
      } finally {
        signal?.removeEventListener('abort', forward);
        if (!ended) {
          next?.catch(() => {});
          stop.abort();
          void frames.return(undefined).catch(() => {});
        }
      }
    })();
  }

  /** Stop every worker; pending calls fail with FREED. */
  terminate(): void {
    this.#closed = true;
    const freed = () => new MeboError('FREED', 'the pool was terminated');
    for (const call of this.#queue.splice(0)) call.settle(freed());
    for (const w of this.#workers) {
      w.dead = true;
      for (const call of w.pending.values()) call.settle(freed());
      w.pending.clear();
      w.endpoint.terminate();
    }
  }

  /** Start a worker and set it up; it joins the rotation once ready. */
  async #start(): Promise<void> {
    const worker = new PoolWorker(spawnWorker());
    this.#workers.push(worker);
    worker.endpoint.onMessage((message) => this.#answered(worker, message));
    worker.endpoint.onError((error) => this.#died(worker, error));
    const setup = (request: Request) =>
      new Promise<unknown>((resolve, reject) => {
        const call: Call = { request, transfer: [], settled: false, settle: (error, value) => (error ? reject(error) : resolve(value)) };
        this.#post(worker, call);
      });
    try {
      try {
        await setup({ id: nextId++, setup: this.#setup });
      } catch (error) {
        // A host that cannot post a compiled module: the worker loads its own.
        if (!(error instanceof MeboError && error.code === 'INVALID_ARGUMENT' && /clone/i.test(String((error.cause as Error)?.message)))) throw error;
        await setup({ id: nextId++, setup: this.#fallbackSetup });
      }
    } catch (error) {
      this.#retire(worker);
      throw error instanceof MeboError && error.code === 'WORKER_FAILED' ? error : workerFailed(worker, error);
    }
    worker.ready = true;
    this.#pump();
  }

  #answered(worker: PoolWorker, message: Response): void {
    const call = worker.pending.get(message.id);
    if (call) {
      worker.pending.delete(message.id);
      worker.endpoint.busy(worker.pending.size > 0);
      if ('error' in message) call.settle(fromWire(message.error));
      else if (message.ok !== null && typeof message.ok === 'object') {
        const value = message.dictionary ? dictionaryColumns(message.ok as TextColumns) : message.ok;
        call.settle(undefined, Object.assign(value, { kind: message.kind }));
      } else call.settle(undefined, message.ok);
    }
    if (message.retire) this.#replace(worker);
    else this.#pump();
  }

  #died(worker: PoolWorker, error: Error): void {
    if (worker.dead) return;
    // The call it ran is the likely cause: it fails; the others run elsewhere.
    const running = worker.running();
    running?.settle(workerFailed(worker, error));
    if (running) worker.pending.delete(running.request.id);
    this.#replace(worker);
  }

  /** Stop a worker and start another in its place (unless none was ever ready); its calls not yet run go back to the queue. */
  #replace(worker: PoolWorker): void {
    const wasReady = worker.ready;
    this.#retire(worker);
    const requeued: Call[] = [];
    for (const call of worker.pending.values()) {
      if (call.settled) continue;
      if (call.transfer.length > 0) call.settle(workerFailed(worker, new Error('the worker was replaced; the call\'s transferred input went with it')));
      else if ('job' in call.request) requeued.push(call);
    }
    worker.pending.clear();
    this.#queue.unshift(...requeued);
    if (this.#closed || !wasReady) return;
    this.#start().catch((error: unknown) => {
      // No worker left to run the queue: its calls fail rather than wait for ever.
      if (this.#workers.length === 0) for (const call of this.#queue.splice(0)) call.settle(error as MeboError);
    });
  }

  #retire(worker: PoolWorker): void {
    worker.dead = true;
    worker.ready = false;
    worker.endpoint.terminate();
    const at = this.#workers.indexOf(worker);
    if (at >= 0) this.#workers.splice(at, 1);
  }

  #run<T>(job: Job, options: CallOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new MeboError('FREED', 'the pool was terminated'));
    const inputs = 'bytes' in job ? [job.bytes] : job.blobs;
    if (!Array.isArray(inputs)) return Promise.reject(new MeboError('INVALID_ARGUMENT', 'blobs must be an array of Uint8Array'));
    for (const input of inputs) {
      if (!(input instanceof Uint8Array)) return Promise.reject(new MeboError('INVALID_ARGUMENT', 'blob bytes must be a Uint8Array'));
    }
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    try {
      checkTimeout(timeoutMs);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(new MeboError('ABORTED', 'the call was aborted', { cause: signal.reason }));

    let transfer: ArrayBuffer[] = [];
    let release = () => {};
    let sent: Job = job;
    if (options.transfer) {
      // Moved when sent, as the caller asked.
      transfer = [...new Set(inputs.map((b) => b.buffer).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer))];
    } else if (this.#staging) {
      const staged = this.#staging.stage(inputs);
      sent = 'bytes' in job ? { ...job, bytes: staged.views[0]! } : { ...job, blobs: staged.views };
      release = staged.release;
    }
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => this.#cancel(call, new MeboError('ABORTED', 'the call was aborted', { cause: signal!.reason }));
      const call: Call = {
        request: { id: nextId++, job: sent },
        transfer,
        settled: false,
        settle: (error, value) => {
          if (call.settled) return;
          call.settled = true;
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          release();
          if (error) reject(error);
          else resolve(value as T);
        },
      };
      if (timeoutMs !== undefined && timeoutMs !== Infinity) {
        timer = setTimeout(() => this.#cancel(call, new MeboError('TIMEOUT', `the call took longer than ${timeoutMs} ms`)), timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const target = transfer.length > 0 ? (this.#leastBusy() ?? this.#workers[0]) : undefined;
      if (target) this.#post(target, call);
      else if (transfer.length > 0) call.settle(new MeboError('WORKER_FAILED', 'the pool has no worker left to take the call'));
      else {
        this.#queue.push(call);
        this.#pump();
      }
    });
  }

  /** Settle a call with `error` now: out of the queue, or, if a worker runs it, that worker replaced (its other calls requeued). */
  #cancel(call: Call, error: MeboError): void {
    if (call.settled) return;
    call.settle(error);
    const queued = this.#queue.indexOf(call);
    if (queued >= 0) return void this.#queue.splice(queued, 1);
    const worker = this.#workers.find((w) => w.pending.has(call.request.id));
    if (!worker) return;
    if (worker.running() === call) this.#replace(worker);
    // Not started yet: it stays counted on its worker, and its answer is dropped.
  }

  #leastBusy(): PoolWorker | undefined {
    let best: PoolWorker | undefined;
    for (const w of this.#workers) if (w.ready && (!best || w.pending.size < best.pending.size)) best = w;
    return best;
  }

  /** Hand queued calls to workers with room for them (see IN_FLIGHT). */
  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const worker = this.#leastBusy();
      if (!worker || worker.pending.size >= IN_FLIGHT) return;
      this.#post(worker, this.#queue.shift()!);
    }
  }

  #post(worker: PoolWorker, call: Call): void {
    worker.pending.set(call.request.id, call);
    worker.endpoint.busy(true);
    try {
      worker.endpoint.post(call.request, call.transfer);
    } catch (error) {
      worker.pending.delete(call.request.id);
      worker.endpoint.busy(worker.pending.size > 0);
      call.settle(new MeboError('INVALID_ARGUMENT', `cannot send to the pool: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
    }
  }
}

function checkTimeout(timeoutMs: unknown): void {
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0))) {
    throw new MeboError('INVALID_ARGUMENT', `timeoutMs must be a number > 0, got ${String(timeoutMs)}`);
  }
}
