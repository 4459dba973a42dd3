// `mebo` under the `workerd` export condition (Cloudflare Workers: wrangler,
// and bundles made for miniflare, resolve it). Workers refuse to compile
// WebAssembly from bytes at run time; their convention is a `.wasm` import,
// which the platform hands over as a compiled WebAssembly.Module (wrangler
// uploads the file beside the script). This entry imports the simd build so
// (V8 always has simd128), and init() and initSync() use it when called
// without a module: `import { init } from 'mebo'; await init();` needs no
// wiring. Everything else is ./index.js itself (external in dist/workerd.js:
// one module instance).

import wasm from '../../wasm/mebo_simd.wasm';
import { init as initWith, initSync as initSyncWith, type InitOptions, type WasmModule, type WasmVariant } from './index.js';
import { withImportedModule } from '../hosts/workerd-module.js';

export * from './index.js';

/**
 * Instantiate the simd build this entry imports (or `options.wasm`; the
 * scalar build must be imported and passed: `mebo/wasm/mebo_scalar.wasm`).
 */
export function init(options: InitOptions = {}): Promise<void> {
  return initWith(withImportedModule(options, wasm));
}

/** Instantiate synchronously: the imported simd build unless another module is passed. */
export function initSync(source: WasmModule | ArrayBuffer | ArrayBufferView = wasm, variant?: WasmVariant): void {
  initSyncWith(source, source === wasm ? 'simd' : variant);
}
