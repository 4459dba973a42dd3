// What a page may fetch of `mebo/decode` (gzip -9 of the JavaScript and the
// wasm) before its first decode: held by size.test.ts on the files, by
// light-chromium.test.ts on what a page with no bundler fetched (the whole
// of dist/decode.min.js), and by tarball-consumers.test.ts on a
// create-vite vanilla-ts build (minified chunks of what the page imports).
// As built: 104.1 kB (no bundler; 111.4 with the unminified dist/decode.js)
// and 101.7 kB (Vite) to the first numeric blob without zstd; 113.6 and
// 111.2 kB with the zstd part (the core at
// opt-level 2 with its delta timestamp kernel, its tables built on first use;
// the part a zstd decoder of our own, 9.5 kB; docs/FIRST-LOAD.md). The aim is 60
// and 120 kB; what is left to get there: docs/FIRST-LOAD.md.
export const FIRST_LOAD_BUDGET = {
  /** The minified bundle and the light core. */
  firstBlob: 104_500,
  /** And the zstd part: a zstd blob and a text blob decoded too. */
  everyPart: 114_000,
  /** A create-vite vanilla-ts production build: its minified chunks and the light core. */
  viteFirstBlob: 102_100,
  /** And the zstd part. */
  viteEveryPart: 111_700,
};
