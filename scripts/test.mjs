#!/usr/bin/env node
// `npm test`: every test in the repository, on a fresh machine too.
//
//   1. setup    installs the toolchain and JS dependencies (idempotent)
//   2. build    wasm (full and decode-only, each simd + scalar), the SDK
//               and the CLI
//      gates    cargo fmt --check, cargo clippy -D warnings (with and without
//               default features), every package's TypeScript typecheck, and
//               nothing read from outside the repository (testdata/ holds it),
//               no import cycle in the SDK, the dashboard, the tooling,
//               no module circle in the crates,
//               every link and repository path in the docs exists, the
//               npm package's API as recorded (packages/mebo/api), and
//               `npm publish --dry-run` and `cargo package` of mebo
//      testdata every blob of testdata/vectors and testdata/bench re-encoded by
//               the reference (reference/) where Go >= 1.25 is on PATH
//   3. cargo    the Rust workspace's tests, release build (conformance vectors,
//               property tests, mutation and hostile-input tests), then the
//               core's tests in debug builds (overflow checks on), with and
//               without the `encode` feature
//   4. fuzz     a bounded fuzz run (cargo fuzz with nightly) or, without
//               nightly, the deterministic mutation run over the same targets
//   5. js       every package's tests (SDK in Node, Deno, workerd, Chromium;
//               CLI; the demo's headless check), while the engine crates
//               (engines/: Arrow, DataFusion, Ballista) build in the background
//   6. engines  their formatting and tests, clippy during their build (scripts/engines.mjs)
//
// Any failing step stops the run with its exit code.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startEngineBuild, testEngines } from './engines.mjs';
import { ROOT, output, run } from './lib.mjs';

const started = Date.now();
const stage = (name) => console.log(`\n== test: ${name} (${Math.round((Date.now() - started) / 1000)} s) ==`);

stage('setup');
run('node', ['scripts/setup.mjs']);
stage('build');
run('node', ['scripts/build.mjs']);
run('node', ['scripts/build/test.mjs']); // the build's modules, each on its fixture
stage('gates');
run('cargo', ['fmt', '--all', '--check']);
run('cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings']);
run('cargo', ['clippy', '-p', 'mebo', '--all-targets', '--no-default-features', '--', '-D', 'warnings']);
// The light core's feature set: the core crate's, and the bindings' as built for wasm.
run('cargo', ['clippy', '-p', 'mebo', '--all-targets', '--features', 'compact-decoders', '--', '-D', 'warnings']);
run('cargo', ['clippy', '-p', 'mebo', '--all-targets', '--no-default-features', '--features', 'zstd-extern,compact-decoders', '--', '-D', 'warnings']);
run('cargo', ['clippy', '-p', 'mebo-wasm', '--target', 'wasm32-unknown-unknown', '--no-default-features', '--features', 'light', '--', '-D', 'warnings']);
// The zstd part is no_std only for wasm32: its allocator and exports exist only there.
run('cargo', ['clippy', '-p', 'mebo-zstd', '--target', 'wasm32-unknown-unknown', '--', '-D', 'warnings']);
run('pnpm', ['-r', '--if-present', 'typecheck']);
checkStandalone();
// The SDK in layers and the dashboard in components: no import cycle (and the check itself tested).
run('node', ['--test', 'scripts/import-cycles.test.mjs']);
run('node', ['scripts/import-cycles.mjs', 'packages/mebo/src', 'packages/mebo/cli', 'web-demo/src', 'packages/tooling', 'bench']);
// The crates' modules: no circle (every crates/*/src).
run('node', ['--test', 'scripts/rust-cycles.test.mjs']);
run('node', ['scripts/rust-cycles.mjs']);
// The map true: every link and repository path in the docs exists.
run('node', ['--test', 'scripts/doc-links.test.mjs']);
run('node', ['scripts/doc-links.mjs']);
// Releases: the public surface as recorded in packages/mebo/api/, and what
// npm and cargo would publish whole (both dry runs).
run('node', ['--test', 'scripts/release.test.mjs']);
run('node', ['scripts/api.mjs', '--check']);
run('node', ['scripts/publish-check.mjs']);
stage('testdata against the reference');
await checkTestdata();
stage('cargo test');
run('cargo', ['test', '--workspace', '--release']);
// The core again in debug builds, where integer overflow panics instead of
// wrapping: arithmetic on hostile lengths and counts must be checked.
run('cargo', ['test', '-p', 'mebo']);
run('cargo', ['test', '-p', 'mebo', '--no-default-features']);
// The light core's decoders (compact-decoders) against their twins; zstd through a registered decoder.
run('cargo', ['test', '-p', 'mebo', '--lib', '--features', 'compact-decoders']);
run('cargo', ['test', '-p', 'mebo', '--lib', '--no-default-features', '--features', 'zstd-extern', 'zstd_extern']);
if (existsSync(join(ROOT, 'scripts/fuzz-check.sh'))) {
  stage('fuzz');
  run('bash', ['scripts/fuzz-check.sh']);
}
const engines = startEngineBuild();
stage('js tests');
run('pnpm', ['-r', '--workspace-concurrency=1', 'test']);
stage('engines');
await engines.finished();
testEngines();
stage(`all passed in ${Math.round((Date.now() - started) / 1000)} s`);

/**
 * The repository stands alone: no tracked file outside testdata/ names the
 * folder the data once came from beside the repository root.
 */
function checkStandalone() {
  const pattern = String.raw`\.\./(\.\./)*shared\b|'\.\.', *'shared'`;
  const hits = output('git', ['grep', '-nE', pattern, '--', '.', ':!testdata']);
  if (hits) {
    console.error(`these files read data from outside the repository (use testdata/):\n${hits}`);
    process.exit(1);
  }
}

/**
 * Every blob of testdata/vectors and testdata/bench is what the reference
 * writes for its input and options (reference/ -regenerate), where Go can
 * build the reference; the tests above hold our code to the same blobs.
 */
async function checkTestdata() {
  // Imported here: the workspace's packages exist only once setup has run.
  const { buildReference } = await import('mebo-tooling/reference');
  const reference = buildReference((line) => console.log(line));
  if (reference.reason) {
    console.log(`testdata: not re-encoded with the reference here (${reference.reason})`);
    return;
  }
  for (const dir of ['testdata/vectors', 'testdata/bench']) run(reference.binary, ['-regenerate', join(ROOT, dir)]);
}
