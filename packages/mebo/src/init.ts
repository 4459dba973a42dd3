// Loading the WebAssembly module: the SDK's top layer, above the blobs it
// self-checks with (simd-check.ts); the state it sets lives in module.ts, the
// bottom layer. One glue (bundled into dist/index.js) serves both builds. The
// glue is generated without a default module URL, so bundlers see just the
// two URLs of ./hosts/wasm-location.ts; it is always handed a compiled module. `mebo/decode` (dist/decode.js) is this same code bundled
// with the decode-only builds' glue and their URLs (build-sdk.mjs).

import instantiateGlue, { __wbg_reset as forgetGlueInstance, initSync as instantiateGlueSync } from '../wasm/mebo_wasm.js';
import { MeboError } from './errors.js';
import { describe } from './args.js';
import { install, instance, memoryInfo, setMaxMemoryBytes, type WasmInfo, type WasmVariant } from './module.js';
import { loadMissingParts, setPartLoader, type Part } from './parts.js';
import { setRestModule } from './core-rest.js';
import { simdMismatch } from './simd-check.js';
import { coreLocation, restLocation, wasmLocation, zstdLocation } from './hosts/wasm-location.js';
import { installZstdPart } from './zstd-part.js';

export { isInitialized, memoryInfo, wasmInfo, wasmMemoryBytes, wasmVariant } from './module.js';
export type { MemoryInfo, WasmInfo, WasmVariant } from './module.js';

/**
 * `WebAssembly.Module` where the consumer's TypeScript lib declares it (DOM,
 * workers, Deno); `object` where it does not (Node with only @types/node).
 */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: abstract new (...args: any[]) => infer M } }
  ? M
  : object;

/**
 * Where the module comes from: a URL (fetched; `file:` URLs are read from
 * disk), its bytes, a fetch `Response`, or a compiled `WebAssembly.Module`
 * (as Cloudflare Workers and some bundlers hand out for `import x from './x.wasm'`).
 */
export type WasmSource = string | URL | ArrayBuffer | ArrayBufferView | Response | WasmModule;

export interface InitOptions {
  /** The module to use instead of the build beside this package. */
  wasm?: WasmSource | Promise<WasmSource>;
  /**
   * Which build to load when `wasm` is not given: `'auto'` (default) picks
   * `'simd'` when the host validates a simd128 probe, else `'scalar'`.
   * With `wasm` given it only labels what `wasmVariant()` reports.
   */
  variant?: 'auto' | WasmVariant;
  /**
   * When `'auto'` picks the simd build, decode three small embedded blobs and
   * compare them with what they hold; on a mismatch (an engine that
   * validates simd128 and computes it wrongly) load the scalar build instead
   * (`wasmInfo()` says why). Default `true`; `'fail'` simulates a mismatch.
   */
  simdCheck?: boolean | 'fail';
  /**
   * The module's memory budget: the most bytes its heap may hold at once,
   * over every blob, set and encoder alive (default `DEFAULT_MAX_MEMORY_BYTES`,
   * 1 GiB; at most 2**32). Checked before each allocation: a call that would
   * pass it throws `OUT_OF_MEMORY` and leaves every object usable. Also
   * `setMaxMemoryBytes()`; `memoryInfo()` reads it back.
   */
  maxMemoryBytes?: number;
  /**
   * `mebo/decode` only. `'core'`: the light core, a small build of the
   * read side that reads numeric blobs without zstd metric by metric; its
   * rest (text blobs, sets, calls over whole blobs and charts) and its zstd
   * decoder are parts loaded the first time a blob needs them
   * (`NumericBlob.load`, `TextBlob.load`; the rest also once a first blob is
   * open); `from()` of such a blob before then throws MISSING_PART, as do
   * `decimate()` and the like before the rest (`decodeAll()` then reads the
   * metrics one by one). `'all'`: every
   * part up front, so `from()` opens any blob (the decode-only build; after
   * the core, its parts). Default:
   * `'core'` in a page (the build is fetched), `'all'` where it is read from
   * disk (Node, Deno, Bun) or passed (`wasm`), and on hosts without simd128.
   */
  parts?: 'core' | 'all';
}

let loading: Promise<void> | undefined;
/** The glue's async instantiation is under way: a sync one now would make a second instance. */
let instantiating = false;

/**
 * Load and instantiate the module. Call once before anything else; later
 * calls return at once (the first call's options win). Node, Deno and Bun
 * read the build beside the package from disk, browsers fetch it; elsewhere
 * pass `{ wasm }`.
 */
export function init(options: InitOptions = {}): Promise<void> {
  if (options?.maxMemoryBytes !== undefined) {
    try {
      setMaxMemoryBytes(options.maxMemoryBytes);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  if (instance.loaded) return options?.parts === 'all' ? loadAllParts() : Promise.resolve();
  loading ??= load(options).catch((error: unknown) => {
    loading = undefined; // a failed load may be retried
    throw error;
  });
  return loading;
}

/**
 * Instantiate synchronously from a compiled module or the module's bytes
 * (compiling bytes on a browser's main thread is limited to small modules:
 * prefer `init` there).
 */
export function initSync(source: WasmModule | ArrayBuffer | ArrayBufferView, variant?: WasmVariant): void {
  if (instance.loaded) return;
  if (instantiating) throw new MeboError('WASM_LOAD', 'init() is instantiating the module: await it instead of calling initSync()');
  const module = loadError(() => (source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source as BufferSource)));
  const exports = loadError(() => instantiateGlueSync({ module }), 'instantiating');
  install({ variant, memory: exports.memory, exports: exports as unknown as WebAssembly.Exports, module });
}

/**
 * @internal The compiled module in use and its build (`mebo/worker` hands
 * them to its workers, which then neither locate nor compile a .wasm).
 */
export function loadedModule(): { module: WebAssembly.Module; variant: WasmVariant | undefined } | undefined {
  const loaded = instance.loaded;
  return loaded && { module: loaded.module, variant: loaded.variant };
}

export interface ResetOptions {
  /** Reset only when linear memory is above this many bytes (default 0: always). */
  aboveBytes?: number;
}

/**
 * Give the module's memory back: WebAssembly memory only grows, so after one
 * large blob a page or service keeps that peak for its whole life. `reset()`
 * replaces the instance with a fresh one (about 1 MB) from the module already
 * compiled. Only when no SDK object is alive — every blob, set and encoder
 * freed (or collected) — otherwise it throws `LIVE_HANDLES` and changes
 * nothing, so no live object ever loses its memory. Resolves to whether it
 * reset (`false` when memory is at or below `aboveBytes`). Calls made while it
 * runs throw `NOT_INITIALIZED`.
 */
export async function reset(options: ResetOptions = {}): Promise<boolean> {
  const aboveBytes = (typeof options === 'object' && options !== null ? options.aboveBytes : undefined) ?? 0;
  if (typeof aboveBytes !== 'number' || !(aboveBytes >= 0)) {
    throw new MeboError('INVALID_ARGUMENT', `aboveBytes must be a number >= 0, got ${describe(aboveBytes)}`);
  }
  const { memoryBytes, liveHandles: alive } = memoryInfo();
  if (alive > 0) {
    throw new MeboError('LIVE_HANDLES', `reset() needs every blob, set and encoder freed first: ${alive} still alive (memoryInfo().liveHandles)`);
  }
  if (memoryBytes <= aboveBytes) return false;
  const { module, variant, light } = instance.loaded!;
  instance.loaded = undefined;
  instance.resetting = true;
  forgetGlueInstance();
  // init() meanwhile waits for the new instance; after a failure it may load again.
  loading = instantiate(module, variant, light).finally(() => (instance.resetting = false));
  loading.catch(() => (loading = undefined));
  await loading;
  instance.resets++;
  return true;
}

/** True when the host accepts WebAssembly SIMD (simd128). */
export function simdSupported(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// A function returning i8x16.popcnt(i8x16.splat(0)): valid only where simd128 is.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

async function load(options: InitOptions): Promise<void> {
  const requested = options.variant === 'simd' || options.variant === 'scalar' ? options.variant : undefined;
  if (options.wasm !== undefined) {
    const module = await compile((await options.wasm) as WasmSource | WebAssembly.Module);
    await instantiate(module, requested);
    return;
  }
  const variant = requested ?? (simdSupported() ? 'simd' : 'scalar');
  const core = variant === 'simd' ? lightCore(options) : undefined;
  if (core !== undefined) await instantiate(await compile(core), variant, true);
  else await instantiate(await compileDefault(variant), variant);
  if (requested !== undefined || variant !== 'simd' || options.simdCheck === false) return;
  const reason = options.simdCheck === 'fail' ? 'simulated by init({ simdCheck: "fail" })' : simdMismatch();
  instance.simdCheck = reason === undefined ? { simdCheck: 'passed' } : { simdCheck: 'failed', reason };
  if (reason === undefined) return;
  instance.loaded = undefined;
  forgetGlueInstance();
  await instantiate(await compileDefault('scalar'), 'scalar');
}

/**
 * The light core's location when this entry has one and `options` ask for it
 * (`parts: 'core'`, or by default where the build would be fetched, not read
 * from disk).
 */
function lightCore(options: InitOptions): URL | undefined {
  if (options.parts === 'all') return undefined;
  const core = coreLocation();
  if (core === undefined) return undefined;
  if (options.parts === 'core') return core;
  return String(core).startsWith('file:') ? undefined : core;
}

/**
 * Compile (and instantiate) a part of the light core (parts.ts asks, once per
 * part). The rest is instantiated by the first of its functions called,
 * synchronously (module.ts): after a reset or a trap, for the new instance too.
 */
async function loadPart(part: Part): Promise<void> {
  const location = part === 'zstd' ? zstdLocation() : restLocation();
  if (location === undefined) throw new MeboError('WASM_LOAD', `no ${part} part beside this entry`);
  const module = await compile(location);
  if (part === 'rest') setRestModule(module);
  else await loadError(() => installZstdPart(module), 'instantiating');
}
setPartLoader(loadPart);

/** `init({ parts: 'all' })` after the light core: its parts now. */
async function loadAllParts(): Promise<void> {
  await loadMissingParts(['rest', 'zstd']);
}

/** The simd build's bytes as base64, for servers whose bundler moved the .wasm out of reach (see `setServerWasm`). */
type EmbeddedWasm = () => Promise<{ default: string }>;
let serverWasm: EmbeddedWasm | undefined;

/**
 * @internal Registered by the `node` export condition's entry
 * (dist/index-node.js, written by build-sdk.mjs): where a server bundle
 * (Next.js route handlers, webpack or Turbopack, `output: 'standalone'`)
 * turned the .wasm's URL into a web path, or left a file that is not there,
 * the simd build comes from a module of the package instead (a chunk the
 * bundler emits and traces like any other).
 */
export function setServerWasm(load: EmbeddedWasm): void {
  serverWasm = load;
}

/** The build beside this package, compiled; on a server, its embedded copy when the file cannot be read. */
async function compileDefault(variant: WasmVariant): Promise<WebAssembly.Module> {
  const location = defaultLocation(variant);
  if (serverWasm === undefined || variant !== 'simd') return compile(location);
  // A bundler's stand-in for URL (webpack's relative URLs) is neither a URL nor a string.
  const href = String(location);
  if (href.startsWith('file:')) {
    try {
      return await compile(new URL(href));
    } catch {
      // not where the bundle says: fall through to the embedded copy
    }
  }
  const { default: base64 } = await loadError(() => serverWasm!(), `loading the embedded wasm (the build at ${href} cannot be read on this server)`);
  return compileBytes(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
}

/** The build beside this package. */
function defaultLocation(variant: WasmVariant): URL {
  try {
    return wasmLocation(variant);
  } catch (cause) {
    throw new MeboError('WASM_LOAD', 'cannot locate the wasm beside the package here: pass it with init({ wasm })', { cause });
  }
}

async function compile(source: WasmSource | WebAssembly.Module): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof Response !== 'undefined' && source instanceof Response) return compileResponse(source);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return compileBytes(source as BufferSource);
  if (typeof source === 'string' || source instanceof URL) {
    const url = typeof source === 'string' ? toUrl(source) : source;
    if (url?.protocol === 'file:') return compileBytes(await readFile(url));
    const response = await loadError(() => fetch(source), `fetching ${String(source)}`);
    return compileResponse(response);
  }
  throw new MeboError('WASM_LOAD', 'init({ wasm }) takes a URL, bytes, a Response or a WebAssembly.Module');
}

async function compileResponse(response: Response): Promise<WebAssembly.Module> {
  if (!response.ok) {
    throw new MeboError('WASM_LOAD', `fetching ${response.url || 'the wasm'} failed: HTTP ${response.status}`);
  }
  // Streaming compilation needs the wasm MIME type; other servers get the buffered path.
  const streaming =
    typeof WebAssembly.compileStreaming === 'function' &&
    response.headers.get('content-type')?.split(';')[0]?.trim() === 'application/wasm';
  if (streaming) return loadError(() => WebAssembly.compileStreaming(response), 'compiling');
  return compileBytes(await loadError(() => response.arrayBuffer(), 'reading the response'));
}

function compileBytes(bytes: BufferSource): Promise<WebAssembly.Module> {
  return loadError(() => WebAssembly.compile(bytes), 'compiling');
}

/**
 * node:fs, imported only on the file: URL path. The specifier is an
 * expression, not a literal, so browser bundles leave it alone: esbuild fails
 * on a literal `node:` import for the browser, webpack and vite skip it by
 * the comments.
 */
const NODE_FS: string = ['node:fs', 'promises'].join('/');

/** Read a `file:` URL (Node, Deno, Bun: all have node:fs). */
async function readFile(url: URL): Promise<BufferSource> {
  const fs = await loadError(
    () => import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS) as Promise<typeof import('node:fs/promises')>,
    'this runtime has no node:fs to read a file: URL; pass the module with init({ wasm })',
  );
  // A Buffer over a plain (not shared) ArrayBuffer.
  return (await loadError(() => fs.readFile(url), `reading ${url.href}`)) as Uint8Array<ArrayBuffer>;
}

function toUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined; // relative: fetch resolves it against the page
  }
}

/** Asynchronous instantiation: browsers cap synchronous instantiation on the main thread by module size. */
async function instantiate(module: WebAssembly.Module, variant: WasmVariant | undefined, light = false): Promise<void> {
  if (instance.loaded) return; // initSync() finished while this module was being fetched or compiled
  instantiating = true;
  try {
    const exports = await loadError(() => instantiateGlue({ module_or_path: module }), 'instantiating');
    install({ variant, memory: exports.memory, exports: exports as unknown as WebAssembly.Exports, module, light });
  } finally {
    instantiating = false;
  }
}

/** Run a loading step; a failure becomes a WASM_LOAD MeboError naming the step. */
function loadError<T>(step: () => T, what = 'loading'): T {
  const fail = (cause: unknown): never => {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new MeboError('WASM_LOAD', `${what}: ${detail}`, { cause });
  };
  try {
    const result = step();
    return (result instanceof Promise ? result.catch(fail) : result) as T;
  } catch (cause) {
    return fail(cause);
  }
}
