#!/usr/bin/env node
// Builds dist/: index.js (one ESM bundle of src/ and the wasm-bindgen glue,
// by esbuild), decode.js (`mebo/decode`: the read side of src/ bundled with the
// decode-only builds' glue), worker/pool.js and worker/thread.js
// (`mebo/worker`: they import ../index.js, not a copy of it) and the .d.ts
// files (by tsc). Needs wasm/ built first (scripts/build.mjs at the repository
// root).

import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));
rmSync('dist', { recursive: true, force: true });
// The package ships the licenses: the project's (MIT) and, for the zstd
// encoder compiled into the wasm, klauspost/compress's (BSD-3-Clause).
copyFileSync('../../LICENSE', 'LICENSE');
copyFileSync('../../crates/mebo/src/compress/zstd/LICENSE-klauspost', 'LICENSE-klauspost');

const common = {
  bundle: true,
  format: 'esm',
  // Runs in Node, browsers, Deno and workers alike; node:* modules are only
  // imported dynamically where a runtime has them.
  platform: 'neutral',
  external: ['node:*'],
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
};
await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' });

// `mebo/decode`: the same modules on the decode-only builds. Their glue
// (wasm/mebo_decode.js) has no encoder classes, so a module of the read side
// that imported one would fail this build; the builds' URLs come from
// src/wasm-location-decode.ts.
const decodeOnly = {
  name: 'decode-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/wasm\/mebo_wasm\.js$/ }, () => ({ path: resolve('wasm/mebo_decode.js') }));
    b.onResolve({ filter: /^\.\/wasm-location\.js$/ }, () => ({ path: resolve('src/wasm-location-decode.ts') }));
  },
};
const decode = await build({ ...common, entryPoints: ['src/decode.ts'], outfile: 'dist/decode.js', plugins: [decodeOnly], metafile: true });
const bundled = Object.keys(decode.metafile.inputs);
for (const [what, bad] of [
  ['the full glue', 'wasm/mebo_wasm.js'],
  ['the full builds\' URLs', 'src/wasm-location.ts'],
  ['an encoder', 'src/encoder.ts'],
]) {
  if (bundled.includes(bad)) throw new Error(`build-sdk: dist/decode.js bundles ${what} (${bad})`);
}

// The pool and its worker share the main bundle: one module instance per realm.
const mainEntryExternal = {
  name: 'main-entry-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/index\.js$/ }, () => ({ path: '../index.js', external: true }));
  },
};
await build({
  ...common,
  entryPoints: { 'worker/pool': 'src/worker/pool.ts', 'worker/thread': 'src/worker/thread.ts' },
  outdir: 'dist',
  plugins: [mainEntryExternal],
});

// `mebo/arrow`: src/arrow.ts alone. The SDK comes from the main bundle
// (./index.js, one module instance) and apache-arrow, an optional peer
// dependency, from the user's install; the build fails if anything else of
// src/ or the glue would be bundled a second time.
const arrow = await build({
  ...common,
  entryPoints: ['src/arrow.ts'],
  outfile: 'dist/arrow.js',
  external: [...common.external, 'apache-arrow'],
  plugins: [
    {
      name: 'arrow-main-entry-external',
      setup(b) {
        b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
  metafile: true,
});
const arrowInputs = Object.keys(arrow.metafile.inputs);
if (arrowInputs.join() !== 'src/arrow.ts') throw new Error(`build-sdk: dist/arrow.js bundles more than src/arrow.ts: ${arrowInputs.join(', ')}`);

const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
