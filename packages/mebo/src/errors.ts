/** Codes of the core's errors (`mebo::Error::code()` in Rust). */
export const CORE_ERROR_CODES = [
  'TRUNCATED',
  'BAD_MAGIC',
  'UNKNOWN_ENCODING',
  'UNKNOWN_COMPRESSION',
  'INVALID_HEADER',
  'OFFSET_OUT_OF_RANGE',
  'CORRUPT_COLUMN',
  'DECOMPRESS',
  'SIZE_CAP',
  'NAME_HASH_MISMATCH',
  'COUNT_MISMATCH',
  'INVALID_UTF8',
  'SHARED_TIMESTAMP_TABLE',
  'METRIC_NAMES',
  'BLOB_SET',
  'METRIC_NOT_FOUND',
  'INDEX_OUT_OF_RANGE',
  'BUFFER_SIZE',
  'UNSUPPORTED_COMPRESSION',
  'INVALID_OPTIONS',
  'ENCODER_STATE',
  'LIMIT_EXCEEDED',
  'DUPLICATE_METRIC',
  'OUT_OF_MEMORY',
] as const;
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/**
 * Codes the SDK adds:
 * - `NOT_INITIALIZED`: a call before `init()` / `initSync()` finished.
 * - `WASM_LOAD`: the WebAssembly module could not be fetched, read, compiled or instantiated.
 * - `INVALID_ARGUMENT`: a JavaScript argument of the wrong type or range.
 * - `FREED`: a call on an object after `free()`.
 * - `LIVE_HANDLES`: `reset()` while a blob, set or encoder is still alive (free it first).
 * - `INTERNAL`: anything else the module threw (a defect: please report it);
 *   a WebAssembly trap says so and keeps it as `cause`. The instance is not
 *   called again: the next call replaces it with a fresh one.
 * - `STALE_HANDLE`: a call on a blob, set or encoder made before the instance
 *   was replaced after a trap (its memory went with the old instance): open it again.
 * - `WORKER_FAILED`: a `mebo/worker` pool worker did not load or died during the call (`cause` says why); the pool replaces it.
 * - `TIMEOUT`: a pool call took longer than its `timeoutMs`; a worker stuck in it is replaced.
 * - `ABORTED`: a pool call's `signal` was aborted (`cause` is the signal's reason).
 * - `MISSING_PART`: `from()` of a blob that needs a part the light core has
 *   not loaded (`mebo/decode` in a page: its rest, for text blobs, sets and
 *   zstd payloads, and the zstd decoder); `load()` loads it. Also a call
 *   over a whole numeric blob or a chart's (`decimate`, `range`, …)
 *   before the core's rest is loaded: `await init({ parts: 'all' })`.
 *
 * `OUT_OF_MEMORY` (a core code) is also what a JavaScript allocation refused
 * inside a call (a typed array too large for the engine) becomes.
 */
export const SDK_ERROR_CODES = [
  'NOT_INITIALIZED',
  'WASM_LOAD',
  'INVALID_ARGUMENT',
  'FREED',
  'LIVE_HANDLES',
  'INTERNAL',
  'STALE_HANDLE',
  'WORKER_FAILED',
  'TIMEOUT',
  'ABORTED',
  'MISSING_PART',
] as const;
export type SdkErrorCode = (typeof SDK_ERROR_CODES)[number];

export type MeboErrorCode = CoreErrorCode | SdkErrorCode;

/** Every code a MeboError may carry. */
export const MEBO_ERROR_CODES: readonly MeboErrorCode[] = [...CORE_ERROR_CODES, ...SDK_ERROR_CODES];

/** Every error the SDK throws. `code` is stable; `message` is for people. */
export class MeboError extends Error {
  readonly code: MeboErrorCode;

  constructor(code: MeboErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MeboError';
    this.code = code;
  }
}

/** What the wasm bindings threw, as a MeboError. */
function toMeboError(thrown: unknown): MeboError {
  if (thrown instanceof MeboError) return thrown;
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    // The bindings' errors carry the core's code.
    if (typeof code === 'string') return new MeboError(code as MeboErrorCode, thrown.message);
    // The engine refused an allocation while the bindings built a result.
    if (thrown instanceof RangeError && /allocation failed|out of memory|invalid (typed )?array length/i.test(thrown.message)) {
      return new MeboError('OUT_OF_MEMORY', `out of memory: ${thrown.message}`, { cause: thrown });
    }
    // The glue's own argument conversions (e.g. a number where a BigInt goes).
    if (thrown instanceof TypeError || thrown instanceof RangeError) {
      return new MeboError('INVALID_ARGUMENT', thrown.message, { cause: thrown });
    }
    if (typeof WebAssembly !== 'undefined' && thrown instanceof WebAssembly.RuntimeError) {
      trapListener?.();
      return new MeboError(
        'INTERNAL',
        `the module trapped (${thrown.message}): the next call replaces the instance; objects made before it throw STALE_HANDLE`,
        { cause: thrown },
      );
    }
    return new MeboError('INTERNAL', `${thrown.name}: ${thrown.message}`, { cause: thrown });
  }
  return new MeboError('INTERNAL', String(thrown), { cause: thrown });
}

let trapListener: (() => void) | undefined;

/** @internal Called when a call into the bindings traps (module.ts marks the instance). */
export function onTrap(listener: () => void): void {
  trapListener = listener;
}

/** @internal Run a call into the bindings, rethrowing what it throws as a MeboError. */
export function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (thrown) {
    throw toMeboError(thrown);
  }
}

/** @internal */
export function invalidArgument(message: string): MeboError {
  return new MeboError('INVALID_ARGUMENT', message);
}
