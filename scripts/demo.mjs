#!/usr/bin/env node
// `npm run demo`: install what is missing (setup.mjs) and build the wasm, the
// SDK and the CLI (build.mjs), then run the dashboard's demo (web-demo's
// `demo` script: build the page, serve it on 127.0.0.1 with the local
// benchmark API, or check it in headless Chromium with --check or CI=true).
// `--no-build` skips both builds.

import { run } from './lib.mjs';

const argv = process.argv.slice(2);
if (!argv.includes('--no-build')) {
  run(process.execPath, ['scripts/setup.mjs']);
  run(process.execPath, ['scripts/build.mjs']);
}
run('pnpm', ['--filter', 'mebo-web-demo', 'run', 'demo', ...argv]);
