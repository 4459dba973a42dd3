#!/usr/bin/env node
// The column kernels alone in Node: crates/mebo-bench built for wasm32-wasip1
// (the same Rust as the SDK's module, with or without simd128) and run under
// node:wasi with `--kernels-json`: ns per point of each timestamp and value
// decoder over the bench input's columns, without the blob, its index or the
// copies out of wasm memory. `npm run bench` prints them beside the totals;
// run alone, this prints one JSON object per variant.
//
//   node bench/kernels-node.mjs [--quick] [--variant simd|scalar]...

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WASI } from 'node:wasi';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUSTFLAGS = { simd: '-C target-feature=+simd128', scalar: '' };

/** mebo-bench for wasm32-wasip1, in a target directory of its own per variant (the flags differ); the binary's path. */
export function buildKernelsWasm(variant, log) {
  const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).stdout ?? '';
  if (!installed.split('\n').includes('wasm32-wasip1')) {
    log('bench: adding rust target wasm32-wasip1 (the kernels in Node)');
    spawnSync('rustup', ['target', 'add', 'wasm32-wasip1'], { stdio: ['ignore', 2, 2] });
  }
  const targetDir = join(ROOT, 'target', `wasi-${variant}`);
  const result = spawnSync('cargo', ['build', '--release', '-p', 'mebo-bench', '--target', 'wasm32-wasip1', '--no-default-features', '--features', 'rust-codecs'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
    env: { ...process.env, CARGO_TARGET_DIR: targetDir, RUSTFLAGS: RUSTFLAGS[variant] },
  });
  if (result.status !== 0) throw new Error(`cargo build of mebo-bench for wasm32-wasip1 (${variant}) failed`);
  return join(targetDir, 'wasm32-wasip1/release/mebo-bench.wasm');
}

/** Run one build under WASI, the workspace visible at its own path (the binary names the test data by it). */
async function run(file, quick) {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-kernels-'));
  const out = join(dir, 'stdout');
  const fd = openSync(out, 'w');
  try {
    const wasi = new WASI({ version: 'preview1', args: ['mebo-bench', '--kernels-json', ...(quick ? ['--quick'] : [])], preopens: { [ROOT]: ROOT }, returnOnExit: true, stdout: fd });
    const { instance } = await WebAssembly.instantiate(readFileSync(file), wasi.getImportObject());
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`mebo-bench (wasm32-wasip1) exited ${code}`);
  } finally {
    closeSync(fd);
  }
  const text = readFileSync(out, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return JSON.parse(text.trim().split('\n').pop());
}

/** `{ variant, points, timestamps: { encoding: ns/pt }, values: { encoding: ns/pt } }` per variant. */
export async function nodeKernels({ quick = false, variants = ['simd', 'scalar'], log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const out = [];
  for (const variant of variants) out.push({ variant, ...(await run(buildKernelsWasm(variant, log), quick)) });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, variant: { type: 'string', multiple: true } } });
  for (const k of await nodeKernels({ quick: flags.quick, variants: flags.variant })) console.log(JSON.stringify(k));
}
