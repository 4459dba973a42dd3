// Where init() finds a build beside the package (`mebo`: the full builds).
// Both URLs are literal so bundlers pick up the files; they are relative to
// this file, and build-sdk.mjs rewrites them relative to each bundle of dist/.
// `mebo/decode` is bundled with ./wasm-location-decode.ts in this module's
// place (build-sdk.mjs), and with its own glue in place of the full one.

/** @internal */
export function wasmLocation(variant: 'simd' | 'scalar'): URL {
  return variant === 'simd'
    ? new URL('../../wasm/mebo_simd.wasm', import.meta.url)
    : new URL('../../wasm/mebo_scalar.wasm', import.meta.url);
}

/** @internal `mebo` has no light core: its builds hold every part. */
export function coreLocation(): URL | undefined {
  return undefined;
}

/** @internal See `coreLocation`. */
export function zstdLocation(): URL | undefined {
  return undefined;
}

/** @internal See `coreLocation`. */
export function restLocation(): URL | undefined {
  return undefined;
}
