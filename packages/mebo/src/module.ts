// The loaded module's state: the bottom layer of the SDK. Blobs, sets and
// encoders ask it whether the module is there (`ready()`) and for its memory;
// the loader above them (init.ts) installs each instance (`install`), and
// `ready()` replaces one that trapped (see `replaceTrapped`).

import { __wbg_reset as forgetGlueInstance, initSync as instantiateGlueSync, memoryBudget, setMemoryBudget, stageInput } from '../wasm/mebo_wasm.js';
import { setRestInstantiation } from './core-rest.js';
import { MeboError, onTrap } from './errors.js';
import { describe } from './args.js';

/** The two builds shipped in `wasm/`: with WebAssembly SIMD (simd128) and without. */
export type WasmVariant = 'simd' | 'scalar';

/** Which build runs, and what the simd self-check found. */
export interface WasmInfo {
  variant: WasmVariant | undefined;
  /** `'passed'`, `'failed'` (then `variant` is `'scalar'` and `reason` says why), or `'not run'` (a build chosen by the caller, or no simd128). */
  simdCheck: 'passed' | 'failed' | 'not run';
  reason?: string;
}

/** @internal An instantiated module. */
export interface Loaded {
  variant: WasmVariant | undefined;
  memory: WebAssembly.Memory;
  /** The instance's exports: the light core's rest imports what it uses of them. */
  exports: WebAssembly.Exports;
  /** Kept to instantiate anew on `reset()`. */
  module: WebAssembly.Module;
  /** The light core (`mebo/decode` in a page): zstd payloads need the zstd part (parts.ts). */
  light?: boolean;
}

/** @internal The state the loader (init.ts) keeps; everything else only reads it through the functions below. */
export const instance: {
  loaded: Loaded | undefined;
  simdCheck: Pick<WasmInfo, 'simdCheck' | 'reason'>;
  /** The largest linear memory any instance of this realm reached, and how often `reset()` replaced one. */
  peakBytes: number;
  resets: number;
  /** `reset()` is replacing the instance: calls until it settles get NOT_INITIALIZED, saying so. */
  resetting: boolean;
  /** Counts the instances installed: an SDK object made under one generation is stale under the next. */
  generation: number;
  /** A call into this instance trapped: the next call replaces it (`replaceTrapped`). */
  trapped: boolean;
  /** Times a trapped instance was replaced. */
  trapRecoveries: number;
  /** SDK objects of this generation neither freed nor collected (see owned.ts). */
  liveHandles: number;
} = {
  loaded: undefined,
  simdCheck: { simdCheck: 'not run' },
  peakBytes: 0,
  resets: 0,
  resetting: false,
  generation: 0,
  trapped: false,
  trapRecoveries: 0,
  liveHandles: 0,
};

// A WebAssembly trap may leave the instance inconsistent (a handle left
// borrowed, an allocator mid-update): it is not called again.
onTrap(() => (instance.trapped = instance.loaded !== undefined));

/**
 * @internal Make `loaded` the instance in use: a new generation (objects of
 * the last one are stale), nothing alive in it yet, the memory budget applied.
 */
export function install(loaded: Loaded): void {
  instance.loaded = loaded;
  instance.generation++;
  instance.trapped = false;
  instance.liveHandles = 0;
  applyMemoryBudget();
}

/**
 * Replace an instance a call trapped in with a fresh one from the same
 * compiled module, synchronously (the module is small enough for every
 * engine's synchronous instantiation). Objects made in the old one are stale:
 * their calls throw STALE_HANDLE, their `free()` releases nothing (the old
 * instance's memory goes with it).
 */
function replaceTrapped(): void {
  const { module, variant, light } = instance.loaded!;
  instance.loaded = undefined;
  instance.trapped = false;
  forgetGlueInstance();
  let exports: WebAssembly.Exports & { memory: WebAssembly.Memory };
  try {
    exports = instantiateGlueSync({ module }) as unknown as typeof exports;
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new MeboError('WASM_LOAD', `replacing the instance that trapped: ${detail}; call init() again`, { cause });
  }
  install({ variant, memory: exports.memory, exports, module, light });
  instance.trapRecoveries++;
}

/** @internal Whether the module in use is the light core split by the build: its rest is a part (parts.ts). */
export function coreIsSplit(): boolean {
  return instance.loaded?.light === true && 'split' in instance.loaded.exports;
}

/**
 * A function of the light core's rest was called and its slot is empty:
 * instantiate the rest for this instance (its element segment fills the
 * slots), synchronously, as `replaceTrapped` instantiates the core. Before
 * the rest is compiled the call cannot go on: MISSING_PART, thrown through
 * the frames of the call, which leaves the instance as a trap would (the
 * next call replaces it).
 */
function instantiateRest(rest: WebAssembly.Module | undefined): void {
  const loaded = instance.loaded;
  if (loaded === undefined) throw new MeboError('NOT_INITIALIZED', 'the module is not loaded');
  if (rest === undefined) {
    instance.trapped = true;
    throw new MeboError(
      'MISSING_PART',
      "this call needs mebo's rest part, which is not loaded yet: load it first with `await init({ parts: 'all' })`; the module's instance is replaced at the next call",
    );
  }
  new WebAssembly.Instance(rest, { primary: loaded.exports });
}
setRestInstantiation(instantiateRest);

export function isInitialized(): boolean {
  return instance.loaded !== undefined;
}

/** The build in use and the simd self-check's finding (see `InitOptions.simdCheck`). */
export function wasmInfo(): WasmInfo {
  return { variant: instance.loaded?.variant, ...instance.simdCheck };
}

/** The build in use, when known (`undefined` before init, or for a module passed without `variant`). */
export function wasmVariant(): WasmVariant | undefined {
  return instance.loaded?.variant;
}

/** Current size of the module's linear memory in bytes (it grows, never shrinks; `reset()` gives it back). */
export function wasmMemoryBytes(): number {
  return wasmMemory().buffer.byteLength;
}

/** What the module holds, for a dashboard or a service's metrics. */
export interface MemoryInfo {
  /** Linear memory now, in bytes. */
  memoryBytes: number;
  /** The most linear memory any instance reached since the page or process started. */
  peakMemoryBytes: number;
  /** SDK objects (blobs, sets, encoders) neither freed nor garbage-collected: each keeps `reset()` waiting. */
  liveHandles: number;
  /** Times `reset()` replaced the instance. */
  resets: number;
  /** Times a call trapped and the next call replaced the instance (objects of the old one then throw STALE_HANDLE). */
  trapRecoveries: number;
  /** The memory budget (`InitOptions.maxMemoryBytes`, `setMaxMemoryBytes`), in bytes. */
  maxMemoryBytes: number;
  /** Bytes the module's heap holds now: what the budget counts. */
  heapBytes: number;
  /** The most bytes this instance's heap held. */
  peakHeapBytes: number;
}

export function memoryInfo(): MemoryInfo {
  const memoryBytes = wasmMemoryBytes();
  instance.peakBytes = Math.max(instance.peakBytes, memoryBytes);
  const [maxMemoryBytes, heapBytes, peakHeapBytes] = memoryBudget();
  return {
    memoryBytes,
    peakMemoryBytes: instance.peakBytes,
    liveHandles: instance.liveHandles,
    resets: instance.resets,
    trapRecoveries: instance.trapRecoveries,
    maxMemoryBytes: maxMemoryBytes!,
    heapBytes: heapBytes!,
    peakHeapBytes: peakHeapBytes!,
  };
}

/** The default of `InitOptions.maxMemoryBytes`: 1 GiB (the core's `DEFAULT_MAX_MEMORY_BYTES`). */
export const DEFAULT_MAX_MEMORY_BYTES = 2 ** 30;
/** The budget every instance gets, kept across `reset()`. */
let maxMemoryBytes = DEFAULT_MAX_MEMORY_BYTES;

/**
 * Set the module's memory budget: the most bytes its heap may hold at once,
 * over every blob, set and encoder alive (an integer from 16 MiB to 4 GiB). An
 * allocation that would pass it throws `OUT_OF_MEMORY`; what is alive stays
 * usable. Before `init()` it is kept for the instance to come.
 */
export function setMaxMemoryBytes(bytes: number): void {
  // At least 16 MiB: below that the allocations no input sizes (messages, small vectors) would meet it.
  if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 2 ** 24 || bytes > 2 ** 32) {
    throw new MeboError('INVALID_ARGUMENT', `maxMemoryBytes must be an integer from 2**24 (16 MiB) to 2**32, got ${describe(bytes)}`);
  }
  maxMemoryBytes = bytes;
  if (instance.loaded) setMemoryBudget(bytes);
}

/** @internal Give a new instance the budget (the loader calls it after each instantiation). */
export function applyMemoryBudget(): void {
  setMemoryBudget(maxMemoryBytes);
}

/**
 * @internal Copy `parts`, back to back, into a buffer the module stages for
 * the next `openStaged` (crates/mebo-wasm input.rs: placed at the first part's
 * offset modulo 4 KiB, or 64 for a small input, which keeps Chromium's copy
 * off its slow path). Inside
 * `call()`: a buffer past the memory budget is OUT_OF_MEMORY.
 */
export function stage(parts: readonly Uint8Array[]): void {
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  let at = stageInput(total, parts[0]?.byteOffset ?? 0);
  // After the call: staging may have grown the memory (a new buffer).
  const memory = new Uint8Array(wasmMemory().buffer);
  for (const p of parts) {
    memory.set(p, at);
    at += p.byteLength;
  }
}

/**
 * @internal The module's linear memory (its buffer changes when the memory
 * grows). Typed structurally: consumers' TypeScript may have no WebAssembly lib.
 */
export function wasmMemory(): { readonly buffer: ArrayBuffer } {
  ready();
  return instance.loaded!.memory;
}

/**
 * @internal Throws NOT_INITIALIZED unless the module is instantiated; first
 * replaces an instance that trapped.
 */
export function ready(): void {
  if (instance.trapped) replaceTrapped();
  if (!instance.loaded) {
    if (instance.resetting) throw new MeboError('NOT_INITIALIZED', 'mebo is resetting its memory: await reset() before this call');
    throw new MeboError('NOT_INITIALIZED', 'mebo is not initialized: call `await init()` (or `initSync(module)`) first');
  }
}
