// Bundles the Worker as wrangler does (wrangler itself needs Node 22): the
// `workerd`, `worker` and `browser` export conditions, and every .wasm kept
// as a module of its own beside the script (esbuild's `copy` loader keeps
// the import and copies the file), which run.mjs hands to workerd as a
// CompiledWasm module, as wrangler uploads it.

import { build } from 'esbuild';

await build({
  entryPoints: ['src/worker.js'],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  loader: { '.wasm': 'copy' },
  outdir: 'dist',
  logLevel: 'warning',
});
