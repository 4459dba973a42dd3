// In place of ./wasm-location.ts in the pool's browser worker (build-sdk.mjs):
// the pool hands each worker the module its page compiled, so the worker's
// script names no .wasm that a bundler would emit a second time.

/** @internal */
export function wasmLocation(): URL {
  throw new Error('a pool worker runs the module its pool hands it');
}

/** @internal */
export function coreLocation(): URL | undefined {
  return undefined;
}

/** @internal */
export function zstdLocation(): URL | undefined {
  return undefined;
}

/** @internal */
export function restLocation(): URL | undefined {
  return undefined;
}
