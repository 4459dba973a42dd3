#!/usr/bin/env node
// The dashboard's part of `npm run demo` (the root script installs what is
// missing and builds the wasm, the SDK and the CLI first): build the page
// (build.mjs), the native bench (crates/mebo-bench, release) and the
// reference's harness (reference/, where Go >= 1.25 is on PATH), then
// serve dist/ on http://127.0.0.1:$PORT (default 8080) with the stream
// sample's route (stream-sample.mjs: a stream of blobs sent at a set pace)
// and the local benchmark API (bench-api.mjs) that times native Rust, Node
// and the reference when the page asks.
//
//   npm run demo                 build and serve until Ctrl-C
//   npm run demo -- --check      build, then check the page in headless Chromium and exit
//   CI=true npm run demo         the same as --check
//   npm run demo -- --no-build   serve / check what is already built

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildReference } from 'mebo-tooling/reference';
import { startServer } from 'mebo-tooling/serve';
import { createBenchApi } from './bench-api.mjs';
import { withStreamRoute } from './stream-sample.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const check = argv.includes('--check') || process.env.CI === 'true';

function run(command, args) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: HERE });
  if (result.status !== 0) {
    console.error(`${command} ${result.error ? `failed: ${result.error.message}` : `exited with ${result.status ?? result.signal}`}`);
    process.exit(result.status || 1);
  }
}

if (!argv.includes('--no-build')) {
  run(process.execPath, [join(HERE, 'build.mjs')]);
  run('cargo', ['build', '--release', '-p', 'mebo-bench']);
  const reference = buildReference((line) => console.log(line));
  if (reference.reason) console.log(`demo: the reference cannot be timed live here (${reference.reason}); the page shows its recorded figures instead`);
}

if (check) {
  run(process.execPath, [join(HERE, 'check.mjs')]);
  process.exit(0);
}

const port = Number(process.env.PORT ?? 8080);
const { url, close } = await startServer({ root: join(HERE, 'dist'), port, api: await withStreamRoute(createBenchApi()) });
console.log(`\nmebo demo: ${url}\n(serving web-demo/dist and the benchmark API on 127.0.0.1 only; Ctrl-C to stop)`);
const stop = () => close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
