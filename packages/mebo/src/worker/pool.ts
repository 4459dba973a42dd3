// `mebo/worker`: decode off the main thread. A pool of workers (Web Workers
// in browsers and Deno, worker_threads in Node), each with its own instance
// of the module, runs the SDK's calls on blobs it is handed and sends the
// typed arrays back transferred (moved, not copied). The calls have the shape
// of the main-thread ones, as promises.
//
//   const pool = await DecodePool.create();          // one worker per core by default
//   const columns = await pool.decodeAll(bytes);     // NumericColumns or TextColumns
//   const line = await pool.decimate(bytes, 'cpu', { method: 'minmax', buckets: 1200 });
//   pool.terminate();

import { MeboError, dictionaryColumns, type InitOptions, type NumericColumns, type NumericMetric, type TextColumns, type TextMetric, type WasmModule } from '../index.js';
import type { MaterializedMetric } from '../blobSet.js';
import type { MeboErrorCode } from '../errors.js';
import type { MetricKey } from '../options.js';
import type { Decimated, DecimateOptions, TimeBound } from '../series.js';
import type { Job, Request, Response } from './jobs.js';

export interface PoolOptions {
  /** Workers to start: default the host's cores (`navigator.hardwareConcurrency`, `os.availableParallelism()`). */
  size?: number;
  /**
   * How each worker loads the module, as `init()` takes it (a URL string, or
   * a compiled `WebAssembly.Module`, which browsers and Node hand to workers
   * without recompiling). Default: the build beside the package.
   */
  init?: Pick<InitOptions, 'variant'> & { wasm?: string | URL | WasmModule };
}

export interface CallOptions {
  /** Transfer the input's buffer to the worker instead of copying it (the caller's array is detached). */
  transfer?: boolean;
}

/** One worker, seen the same way in every runtime. */
interface Endpoint {
  post(message: Request, transfer: ArrayBuffer[]): void;
  onMessage(handler: (message: Response) => void): void;
  onError(handler: (error: Error) => void): void;
  terminate(): unknown;
}

/** node:* module names, as expressions so browser bundlers leave them alone. */
const NODE_WORKER_THREADS: string = ['node:worker', 'threads'].join('_');
const NODE_OS: string = ['node', 'os'].join(':');

async function spawn(): Promise<Endpoint> {
  if (typeof Worker === 'function') {
    // Browsers, Deno, Bun. Literal URL: bundlers (Vite, webpack 5) emit the worker from it.
    const worker = new Worker(new URL('./thread.js', import.meta.url), { type: 'module' });
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      onMessage: (handler) => worker.addEventListener('message', (event: MessageEvent<Response>) => handler(event.data)),
      onError: (handler) => worker.addEventListener('error', (event) => handler(new Error(event.message || 'worker failed'))),
      terminate: () => worker.terminate(),
    };
  }
  const threads = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_WORKER_THREADS)) as typeof import('node:worker_threads');
  const worker = new threads.Worker(new URL('./thread.js', import.meta.url));
  worker.unref(); // an idle pool does not keep a Node process alive
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.on('message', handler),
    onError: (handler) => worker.on('error', handler),
    terminate: () => worker.terminate(),
  };
}

async function cores(): Promise<number> {
  if (typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0) return navigator.hardwareConcurrency;
  try {
    const os = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_OS)) as typeof import('node:os');
    return os.availableParallelism();
  } catch {
    return 2;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Shared staging of a call's input bytes. postMessage copies a Uint8Array
 * twice (serialized on this thread, deserialized into fresh memory in the
 * worker): for blobs of hundreds of KB that costs as much as decoding them
 * (Chromium: about 0.7 ms per 500 KB), and it does not run in parallel. Where
 * SharedArrayBuffer is available (Node, Deno, cross-origin isolated pages),
 * the bytes are copied once into a shared buffer kept from call to call and
 * the worker reads them there. A buffer goes back to the free list when its
 * call is answered: the worker has copied the bytes into its module by then.
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

/** A call waiting in the pool's queue. */
interface Queued {
  request: Request;
  call: Pending;
}

class PoolWorker {
  readonly pending = new Map<number, Pending>();
  constructor(
    readonly endpoint: Endpoint,
    answered: () => void,
  ) {
    endpoint.onMessage((message) => {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if ('error' in message) call.reject(new MeboError(message.error.code as MeboErrorCode, message.error.message));
      else call.resolve(message.text ? dictionaryColumns(message.ok as TextColumns) : message.ok);
      answered();
    });
    endpoint.onError((error) => {
      for (const call of this.pending.values()) call.reject(new MeboError('INTERNAL', `a pool worker failed: ${error.message}`, { cause: error }));
      this.pending.clear();
    });
  }
}

let nextId = 1;

/** A pool of decoding workers. Create it with `DecodePool.create()`; `terminate()` when done. */
export class DecodePool {
  #workers: PoolWorker[] = [];
  #queue: Queued[] = [];
  #closed = false;
  #staging = Staging.available() ? new Staging() : undefined;

  /** Start the workers and load the module in each (resolves once all are ready). */
  static async create(options: PoolOptions = {}): Promise<DecodePool> {
    const size = options.size ?? (await cores());
    if (!Number.isInteger(size) || size < 1 || size > 256) throw new MeboError('INVALID_ARGUMENT', `size must be an integer from 1 to 256, got ${String(size)}`);
    const pool = new DecodePool();
    const workers = await Promise.all(Array.from({ length: size }, async () => new PoolWorker(await spawn(), () => pool.#pump())));
    pool.#workers = workers;
    try {
      await Promise.all(workers.map((w) => pool.#send(w, { id: nextId++, init: options.init ?? {} }, [])));
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

  /** `decodeAll` of a numeric or text blob (its kind read from its header). */
  decodeAll(bytes: Uint8Array, options?: CallOptions): Promise<NumericColumns | TextColumns> {
    return this.#run({ op: 'decodeAll', bytes }, options);
  }

  /** `range` of one metric (see `NumericBlob.range`). */
  range(bytes: Uint8Array, key: MetricKey, from: TimeBound, to: TimeBound, options?: CallOptions): Promise<NumericMetric | TextMetric> {
    return this.#run({ op: 'range', bytes, key, from, to }, options);
  }

  /** `decimate` of one numeric metric (see `NumericBlob.decimate`). */
  decimate(bytes: Uint8Array, key: MetricKey, decimation: DecimateOptions, options?: CallOptions): Promise<Decimated> {
    return this.#run({ op: 'decimate', bytes, key, options: decimation }, options);
  }

  /** A set's `materialize`: every metric over the windows `blobs` hold. */
  materialize(blobs: Uint8Array[], options?: CallOptions): Promise<NumericColumns | TextColumns> {
    return this.#run({ op: 'materialize', blobs }, options);
  }

  /** A set's `materializeMetric`. */
  materializeMetric(blobs: Uint8Array[], key: MetricKey, options?: CallOptions): Promise<MaterializedMetric<Float64Array | string[]>> {
    return this.#run({ op: 'materializeMetric', blobs, key }, options);
  }

  /** Stop every worker; pending calls fail with FREED. */
  terminate(): void {
    this.#closed = true;
    for (const { call } of this.#queue.splice(0)) call.reject(new MeboError('FREED', 'the pool was terminated'));
    for (const w of this.#workers) {
      for (const call of w.pending.values()) call.reject(new MeboError('FREED', 'the pool was terminated'));
      w.pending.clear();
      w.endpoint.terminate();
    }
  }

  #run<T>(job: Job, options: CallOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new MeboError('FREED', 'the pool was terminated'));
    const inputs = 'bytes' in job ? [job.bytes] : job.blobs;
    for (const input of inputs) {
      if (!(input instanceof Uint8Array)) return Promise.reject(new MeboError('INVALID_ARGUMENT', 'blob bytes must be a Uint8Array'));
    }
    if (options.transfer) {
      // Moved now, as the caller asked, even if the call then waits in the queue.
      const transfer = [...new Set(inputs.map((b) => b.buffer).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer))];
      if (transfer.length > 0) {
        const worker = this.#leastBusy();
        return this.#send(worker, { id: nextId++, job }, transfer) as Promise<T>;
      }
    }
    if (!this.#staging) return this.#enqueue({ id: nextId++, job }) as Promise<T>;
    const staged = this.#staging.stage(inputs);
    const sent = 'bytes' in job ? { ...job, bytes: staged.views[0]! } : { ...job, blobs: staged.views };
    const answer = this.#enqueue({ id: nextId++, job: sent });
    // Released once answered (either way); a terminated pool drops its buffers with it.
    answer.then(staged.release, staged.release);
    return answer as Promise<T>;
  }

  #leastBusy(): PoolWorker {
    return this.#workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  #enqueue(request: Request): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, call: { resolve, reject } });
      this.#pump();
    });
  }

  /** Hand queued calls to workers with room for them (see IN_FLIGHT). */
  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const worker = this.#leastBusy();
      if (worker.pending.size >= IN_FLIGHT) return;
      const { request, call } = this.#queue.shift()!;
      this.#send(worker, request, []).then(call.resolve, call.reject);
    }
  }

  #send(worker: PoolWorker, request: Request, transfer: ArrayBuffer[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      worker.pending.set(request.id, { resolve, reject });
      try {
        worker.endpoint.post(request, transfer);
      } catch (error) {
        worker.pending.delete(request.id);
        reject(new MeboError('INVALID_ARGUMENT', `cannot send to the pool: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      }
    });
  }
}
