// What a page may fetch of `mebo/decode` (gzip -9 of the JavaScript and the
// wasm) before its first decode: held by size.test.ts on the files, by
// light-chromium.test.ts on what a page with no bundler fetched (the whole
// of dist/decode.min.js), and by tarball-consumers.test.ts on a
// create-vite vanilla-ts build (minified chunks of what the page imports).
// As built: 58.5 kB (no bundler) and 56.0 kB (Vite) to the first
// numeric blob without zstd; 119.7 and 117.3 kB with the core's rest and
// the zstd part (the core split by function: what numeric blobs read metric
// by metric run stays, 43.5 kB; its rest 51.7; the zstd part, a decoder of
// our own, 9.5; docs/FIRST-LOAD.md). The aim is 60 and 120 kB.
export const FIRST_LOAD_BUDGET = {
  /** The minified bundle and the light core. */
  firstBlob: 58_800,
  /** And the core's rest and the zstd part: a zstd blob and a text blob decoded too. */
  everyPart: 120_000,
  /** A create-vite vanilla-ts production build: its minified chunks and the light core. */
  viteFirstBlob: 56_400,
  /** And the core's rest and the zstd part. */
  viteEveryPart: 117_700,
};
