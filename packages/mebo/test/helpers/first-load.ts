// What a page may fetch of `mebo/decode` (gzip -9 of dist/decode.js and the
// wasm) before its first decode: held by size.test.ts on the files and by
// light-chromium.test.ts on what a page really fetched. As built: 117.8 kB to
// the first numeric blob without zstd, 162.9 kB with the zstd part. The aim
// is 60 and 120 kB; what is left to get there: docs/FIRST-LOAD.md.
export const FIRST_LOAD_BUDGET = {
  /** The bundle and the light core. */
  firstBlob: 118_500,
  /** And the zstd part: a zstd blob and a text blob decoded too. */
  everyPart: 163_500,
};
