#!/usr/bin/env node
// Builds dist/: index.js (one ESM bundle of src/ and the wasm-bindgen glue,
// by esbuild) and the .d.ts files (by tsc). Needs wasm/ built first
// (scripts/build.mjs at the repository root).

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

process.chdir(fileURLToPath(new URL('.', import.meta.url)));
rmSync('dist', { recursive: true, force: true });

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  format: 'esm',
  // Runs in Node, browsers, Deno and workers alike; node:fs is only imported
  // dynamically on the file: URL path.
  platform: 'neutral',
  external: ['node:*'],
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});

const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
