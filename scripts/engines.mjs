// The query-engine crates (engines/: mebo-arrow, mebo-datafusion with its
// Ballista binaries, the S3 test server) are a Cargo workspace of their own.
// `npm test` starts their build in the background before the JS suites,
// which leave cores idle while browsers and runtimes start, then waits for
// it and runs their tests.

import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { output, ROOT, run } from './lib.mjs';

const DIR = join(ROOT, 'engines');
const LOG = join(DIR, 'target', 'npm-test-build.log');
const ENGINES = '--workspace';
// One build, linted as it compiles: clippy-driver as the workspace crates'
// compiler (what `cargo clippy` itself sets up) denies warnings in them,
// while DataFusion and Ballista compile once, for the tests, instead of a
// second time in clippy's check mode.
const BUILD = [
  `cargo test --profile engine ${ENGINES} --no-run`,
  `cargo build --profile engine ${ENGINES} --bins`,
].join(' && ');

function clippyEnv() {
  const sysroot = output('rustc', ['--print', 'sysroot'])?.trim();
  if (!sysroot) throw new Error('rustc --print sysroot failed');
  return {
    ...process.env,
    RUSTC_WORKSPACE_WRAPPER: join(sysroot, 'bin', 'clippy-driver'),
    CLIPPY_ARGS: ['-D', 'warnings'].join('__CLIPPY_HACKERY__') + '__CLIPPY_HACKERY__',
  };
}

/** Start the engine build; `finished()` waits for it and fails the run if it failed. */
export function startEngineBuild() {
  mkdirSync(join(DIR, 'target'), { recursive: true });
  const log = openSync(LOG, 'w');
  const started = Date.now();
  console.log(`$ (background, log in ${LOG}) ${BUILD}`);
  const child = spawn('nice', ['-n', '5', 'sh', '-c', BUILD], { cwd: DIR, env: clippyEnv(), stdio: ['ignore', log, log] });
  const done = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, error }));
    child.on('exit', (code, signal) => resolve({ code: code ?? 1, signal }));
  });
  return {
    async finished() {
      const { code, error } = await done;
      console.log(`engines: built in ${Math.round((Date.now() - started) / 1000)} s (exit ${code})`);
      if (code !== 0) {
        console.error(error?.message ?? readFileSync(LOG, 'utf8').split('\n').slice(-80).join('\n'));
        process.exit(code || 1);
      }
    },
  };
}

/** Formatting, then every engine test (the same build: nothing recompiles). */
export function testEngines() {
  run('cargo', ['fmt', '--all', '--check'], { cwd: DIR });
  run('cargo', ['test', '--profile', 'engine', ...ENGINES.split(' ')], { cwd: DIR, env: clippyEnv() });
}

