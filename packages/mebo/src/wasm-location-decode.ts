// Where `mebo/decode`'s init() finds a build beside the package: the
// decode-only builds (no encoders). build-sdk.mjs bundles this module in place
// of ./wasm-location.ts for dist/decode.js. Both URLs are literal so bundlers
// pick up the files.

/** @internal */
export function wasmLocation(variant: 'simd' | 'scalar'): URL {
  return variant === 'simd'
    ? new URL('../wasm/mebo_decode_simd.wasm', import.meta.url)
    : new URL('../wasm/mebo_decode_scalar.wasm', import.meta.url);
}
