#!/usr/bin/env node
// `npm run demo`: install what is missing (scripts/setup.mjs), build the wasm
// and the SDK (scripts/build.mjs), the dashboard (web-demo/build.mjs) and the
// native bench (crates/mebo-bench, release), then serve web-demo/dist on
// http://127.0.0.1:$PORT (default 8080) with the local benchmark API
// (web-demo/bench-api.mjs) that times native Rust and Node when the page asks.
//
//   npm run demo                 build and serve until Ctrl-C
//   npm run demo -- --check      build, then check the page in headless Chromium and exit
//   CI=true npm run demo         the same as --check
//   npm run demo -- --no-build   serve / check what is already built

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, run } from './lib.mjs';
import { buildReference } from '../bench/reference.mjs';

const argv = process.argv.slice(2);
const check = argv.includes('--check') || process.env.CI === 'true';

if (!argv.includes('--no-build')) {
  run(process.execPath, [join(ROOT, 'scripts/setup.mjs')]);
  run(process.execPath, [join(ROOT, 'scripts/build.mjs')]);
  run(process.execPath, [join(ROOT, 'web-demo/build.mjs')]);
  run('cargo', ['build', '--release', '-p', 'mebo-bench']);
  // The reference (bench/reference): the page times it live beside ours where Go >= 1.25 is on PATH.
  const reference = buildReference((line) => console.log(line));
  if (reference.reason) console.log(`demo: the reference cannot be timed live here (${reference.reason}); the page shows its recorded figures instead`);
}

if (check) {
  const result = spawnSync(process.execPath, [join(ROOT, 'web-demo/check.mjs')], { stdio: 'inherit', cwd: ROOT });
  process.exit(result.status ?? 1);
}

const { startServer } = await import('../web-demo/serve.mjs');
const { createBenchApi } = await import('../web-demo/bench-api.mjs');
const port = Number(process.env.PORT ?? 8080);
const { url, close } = await startServer({ root: join(ROOT, 'web-demo/dist'), port, api: createBenchApi() });
console.log(`\nmebo demo: ${url}\n(serving web-demo/dist and the benchmark API on 127.0.0.1 only; Ctrl-C to stop)`);
const stop = () => close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
