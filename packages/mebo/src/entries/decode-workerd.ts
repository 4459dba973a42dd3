// `mebo/decode` under the `workerd` export condition: ./workerd.ts for the
// read-only entry, with the decode-only simd build imported as a module.

import wasm from '../../wasm/mebo_decode_simd.wasm';
import { init as initWith, initSync as initSyncWith, type InitOptions, type WasmModule, type WasmVariant } from './decode.js';
import { withImportedModule } from '../hosts/workerd-module.js';

export * from './decode.js';

/**
 * Instantiate the decode-only simd build this entry imports (or
 * `options.wasm`; the scalar build must be imported and passed:
 * `mebo/wasm/mebo_decode_scalar.wasm`).
 */
export function init(options: InitOptions = {}): Promise<void> {
  return initWith(withImportedModule(options, wasm));
}

/** Instantiate synchronously: the imported decode-only simd build unless another module is passed. */
export function initSync(source: WasmModule | ArrayBuffer | ArrayBufferView = wasm, variant?: WasmVariant): void {
  initSyncWith(source, source === wasm ? 'simd' : variant);
}
