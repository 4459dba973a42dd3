// Where `mebo/decode`'s init() finds a build beside the package: the
// decode-only builds (no encoders), the light core a page starts with and its
// zstd part. build-sdk.mjs bundles this module in place of ./wasm-location.ts
// for dist/decode.js. Every URL is literal so bundlers pick up the files
// (relative to this file; build-sdk.mjs rewrites them relative to the bundle).

/** @internal */
export function wasmLocation(variant: 'simd' | 'scalar'): URL {
  return variant === 'simd'
    ? new URL('../../wasm/mebo_decode_simd.wasm', import.meta.url)
    : new URL('../../wasm/mebo_decode_scalar.wasm', import.meta.url);
}

/** @internal The light core (simd128 only): numeric and text blobs, zstd through its part. */
export function coreLocation(): URL | undefined {
  return new URL('../../wasm/mebo_core_simd.wasm', import.meta.url);
}

/** @internal The light core's rest: the functions the build split off it. */
export function restLocation(): URL | undefined {
  return new URL('../../wasm/mebo_core_rest.wasm', import.meta.url);
}

/** @internal The light core's zstd part. */
export function zstdLocation(): URL | undefined {
  return new URL('../../wasm/mebo_zstd.wasm', import.meta.url);
}
