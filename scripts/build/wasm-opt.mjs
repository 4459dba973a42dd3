// binaryen's wasm-opt, and a cache of its outputs: it takes 15-25 s a module,
// so its output is kept, by the hash of its input, version and arguments, for
// builds where the Rust did not change.

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { output } from '../lib.mjs';
import { runQuiet } from './command.mjs';
import { install } from './files.mjs';

/**
 * binaryen's wasm-opt: the first of `commands` that answers `--version`
 * (the build passes the workspace's pinned npm build, then the one on PATH),
 * as `{ command, version }`, or undefined.
 */
export function findWasmOpt(commands) {
  for (const command of commands) {
    const version = output(command, ['--version']);
    if (version !== undefined) return { command, version: version.trim() };
  }
  return undefined;
}

/** The cache key of one optimization: input bytes, wasm-opt's version, arguments. */
export function cacheKey(bytes, version, args) {
  return createHash('sha256').update(bytes).update(JSON.stringify([version, args])).digest('hex');
}

/**
 * Write `bytes` optimized by `wasmOpt` with `args` to `out`, from
 * `cacheDir` when the same input was optimized before. The cache keeps one
 * entry per `label` (a variant): the one before goes. Resolves true when the
 * cache served it.
 */
export async function optimize({ label, bytes, out, wasmOpt, args, cacheDir }) {
  const cached = join(cacheDir, `${label}-${cacheKey(bytes, wasmOpt.version, args)}.wasm`);
  if (existsSync(cached)) {
    copyFileSync(cached, out);
    return true;
  }
  const input = `${out}.in.wasm`;
  writeFileSync(input, bytes);
  await runQuiet(label, wasmOpt.command, [...args, input, '-o', out]);
  rmSync(input);
  mkdirSync(cacheDir, { recursive: true });
  for (const old of readdirSync(cacheDir).filter((f) => f.startsWith(`${label}-`))) rmSync(join(cacheDir, old));
  install(out, cached);
  return false;
}
