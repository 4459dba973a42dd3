#!/usr/bin/env node
// Builds the WebAssembly variants of crates/mebo-wasm and the TypeScript SDK
// in packages/mebo.
//
//   node scripts/build.mjs            wasm (every variant) and the SDK
//   node scripts/build.mjs --wasm     only the wasm
//   node scripts/build.mjs --sdk      only the SDK (needs the wasm built before)
//
// `--only NAME[,NAME]` builds just those variants (simd, scalar, decode-simd,
// decode-scalar) and installs them (and their glue, when both builds of a
// module were built): e.g. only the decode-only one.
//
// This file runs the steps; each step is a module of scripts/build/ with its
// test (`node scripts/build/test.mjs`):
//
//   variants.mjs   the four variants and the cargo and wasm-bindgen runs of one
//   exports.mjs    removes the exports the glue never calls (the zstd part's:
//                  those its module entry does not list)
//   wasm-opt.mjs   finds binaryen's wasm-opt and caches its outputs
//   check.mjs      instantiates each module; one glue serves simd and scalar
//   glue.mjs       the glue edit that lets `reset()` re-instantiate
//   split.mjs      splits the light core by function, after the SDK is built:
//                  split-profile.mjs runs the SDK over it to see what stays
//   command.mjs    runs the commands side by side, output held
//
// Variants build side by side, as many at once as the machine has cores (at
// most one per variant). Outputs (generated, not in git):
//
//   packages/mebo/wasm/mebo_wasm.js, mebo_wasm.d.ts       the glue of the full module
//   packages/mebo/wasm/mebo_simd.wasm                     simd128 build
//   packages/mebo/wasm/mebo_scalar.wasm                   build without simd128
//   packages/mebo/wasm/mebo_decode.js, mebo_decode.d.ts   the glue of the decode-only module
//   packages/mebo/wasm/mebo_decode_simd.wasm              decode-only, simd128
//   packages/mebo/wasm/mebo_decode_scalar.wasm            decode-only, without simd128
//   packages/mebo/wasm/mebo_core_simd.wasm                the light core, split (`mebo/decode` in a page)
//   packages/mebo/wasm/mebo_core_rest.wasm                the functions split off it: its rest
//   packages/mebo/wasm/mebo_zstd.wasm                     the light core's zstd part (no glue:
//                                                         src/zstd-part.ts reads its exports)
//
// target/wasm-bindgen/<variant>/ keeps wasm-bindgen's output as generated
// (the glue unedited: glue.test.mjs checks the edit against it).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { checkCoreGlue, checkGlue, checkModule } from './build/check.mjs';
import { runQuiet } from './build/command.mjs';
import { namesIn, stripExports } from './build/exports.mjs';
import { install } from './build/files.mjs';
import { patchDeclarations, patchGlue } from './build/glue.mjs';
import { checkSplit, featuresOf, splitModule } from './build/split.mjs';
import { findWasmOpt, optimize } from './build/wasm-opt.mjs';
import { bindgen, bindgenName, cargoBuild, MODULES, selectVariants, VARIANTS, wasmOptArgs } from './build/variants.mjs';
import { ROOT, has, run } from './lib.mjs';

const WASM_OUT = join(ROOT, 'packages/mebo/wasm');

/** Build one variant: cargo, wasm-bindgen, unused exports removed, wasm-opt, checked. Resolves with its wasm-bindgen directory and optimized module. */
async function buildVariant(variant, wasmOpt) {
  const cargo = cargoBuild(variant, join(ROOT, 'target', `wasm-${variant.name}`));
  await runQuiet(variant.name, cargo.command, cargo.args, { cwd: ROOT, env: { ...process.env, ...cargo.env } });
  const dir = join(ROOT, 'target', 'wasm-bindgen', variant.name);
  rmSync(dir, { recursive: true, force: true });
  let bytes;
  let removed = [];
  const module = MODULES[variant.module];
  if (module.bindgen === false) {
    // No glue: the exports its loader reads are listed with the module.
    mkdirSync(dir, { recursive: true });
    ({ bytes, removed } = stripExports(readFileSync(cargo.wasm), (name) => module.exports.includes(name)));
  } else {
    const bound = bindgen(variant, cargo.wasm, dir);
    await runQuiet(variant.name, bound.command, bound.args, { cwd: ROOT });
    const named = namesIn(readFileSync(bound.glue, 'utf8'));
    ({ bytes, removed } = stripExports(readFileSync(bound.wasm), (name) => named.has(name)));
  }
  const optimized = join(dir, variant.file);
  if (wasmOpt) {
    const cached = await optimize({ label: variant.name, bytes, out: optimized, wasmOpt, args: wasmOptArgs(variant), cacheDir: join(ROOT, 'target', 'wasm-opt-cache') });
    if (cached) console.log(`build: [${variant.name}] wasm-opt skipped: same input as a build before (target/wasm-opt-cache)`);
  } else {
    writeFileSync(optimized, bytes);
  }
  try {
    await checkModule(readFileSync(optimized), MODULES[variant.module]);
  } catch (error) {
    throw new Error(`build: ${optimized} is broken (${error.message}); ${wasmOpt?.version ?? 'wasm-bindgen'} cannot be used`);
  }
  console.log(`build: [${variant.name}] ready (unused exports removed: ${removed.join(', ') || 'none'})`);
  return dir;
}

async function buildWasm(names) {
  if (!has('wasm-bindgen')) throw new Error('build: wasm-bindgen is not on PATH; run `node scripts/setup.mjs` first');
  const variants = selectVariants(names);
  const wasmOpt = findWasmOpt([join(ROOT, 'node_modules/.bin/wasm-opt'), 'wasm-opt']);
  if (wasmOpt) console.log(`build: optimizing with ${wasmOpt.version}`);
  else console.warn('build: wasm-opt not found (pnpm install brings it); shipping the wasm-bindgen output unoptimized');
  // A few variants at a time: each build is mostly one thread (LTO with one
  // codegen unit, then wasm-opt).
  const started = Date.now();
  const dirs = {};
  const queue = [...variants];
  const worker = async () => {
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) dirs[v.name] = await buildVariant(v, wasmOpt);
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), queue.length) }, worker));
  console.log(`build: ${variants.length} wasm variants in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  mkdirSync(WASM_OUT, { recursive: true });
  for (const [name, module] of Object.entries(MODULES)) {
    const built = variants.filter((v) => v.module === name);
    if (built.length === 0 || module.bindgen === false) continue;
    const read = (file) => built.map((v) => readFileSync(join(dirs[v.name], file), 'utf8'));
    const generated = bindgenName(built[0]);
    try {
      checkGlue(read(`${generated}.js`), module);
      checkGlue(read(`${generated}.d.ts`), module);
    } catch (error) {
      throw new Error(`build: ${name}: ${error.message}`);
    }
    const from = dirs[built[0].name];
    // The edited glue goes to a file of its own: wasm-bindgen's stays as generated.
    const { glue, handleKinds } = patchGlue(readFileSync(join(from, `${generated}.js`), 'utf8'));
    writeFileSync(join(from, `${name}.patched.js`), glue);
    writeFileSync(join(from, `${name}.patched.d.ts`), patchDeclarations(readFileSync(join(from, `${generated}.d.ts`), 'utf8')));
    console.log(`build: ${name}.js patched for reset (${handleKinds} handle kinds)`);
    for (const ext of ['js', 'd.ts']) install(join(from, `${name}.patched.${ext}`), join(WASM_OUT, `${name}.${ext}`));
  }
  // mebo/decode bundles the core's glue for the decode-only builds too.
  const bindgenOutput = (variant, file) => join(ROOT, 'target', 'wasm-bindgen', variant, file);
  if (variants.some((v) => v.module === 'mebo_core' || v.module === 'mebo_decode') && existsSync(bindgenOutput('core-simd', 'mebo_decode.js')) && existsSync(bindgenOutput('decode-simd', 'mebo_decode.js'))) {
    try {
      checkCoreGlue(readFileSync(bindgenOutput('core-simd', 'mebo_decode.js'), 'utf8'), readFileSync(bindgenOutput('decode-simd', 'mebo_decode.js'), 'utf8'));
    } catch (error) {
      throw new Error(`build: ${error.message}`);
    }
  }
  for (const variant of variants) install(join(dirs[variant.name], variant.file), join(WASM_OUT, variant.file));
  for (const variant of variants) {
    const bytes = readFileSync(join(WASM_OUT, variant.file));
    console.log(`build: ${variant.file} ${sizes(bytes)}`);
  }
  if (variants.some((v) => v.name === 'core-simd')) await splitCore(wasmOpt);
}

/** A file's size as a page would fetch it: raw, gzip -9 and brotli (quality 11). */
function sizes(bytes) {
  const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return `${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped, ${brotli} brotli`;
}

function buildSdk() {
  // The SDK bundles both glues: fail early without them.
  for (const [name, module] of Object.entries(MODULES)) if (module.bindgen !== false) statSync(join(WASM_OUT, `${name}.js`));
  run('pnpm', ['--filter', 'mebo', 'run', 'build']);
  // What a page fetches of the SDK before its first decode.
  for (const file of ['dist/index.js', 'dist/decode.js']) console.log(`build: ${file} ${sizes(readFileSync(join(ROOT, 'packages/mebo', file)))}`);
}

/**
 * Split the light core (its whole build is kept in target/wasm-bindgen):
 * the functions the SDK's light path runs over numeric blobs without zstd
 * stay in wasm/mebo_core_simd.wasm, the others go to wasm/mebo_core_rest.wasm.
 * The profile runs `mebo/decode`'s bundle, built for it from src/; it takes
 * a minute, and is kept by the hash of what it depends on.
 */
async function splitCore(wasmOpt) {
  const whole = join(ROOT, 'target', 'wasm-bindgen', 'core-simd', 'mebo_core_simd.wasm');
  const variant = VARIANTS.find((v) => v.name === 'core-simd');
  const features = featuresOf(variant.features);
  const dir = join(ROOT, 'target', 'wasm-bindgen', 'core-split');
  mkdirSync(dir, { recursive: true });
  const bundle = join(dir, 'decode-profiled.js');
  run('node', ['build-sdk.mjs', '--decode-bundle', bundle], { cwd: join(ROOT, 'packages/mebo') });
  const inputs = [whole, bundle, 'scripts/build/split.mjs', 'scripts/build/split-profile.mjs', 'testdata/vectors/manifest.json', 'testdata/bench/manifest.json'];
  const key = inputs.reduce((hash, file) => hash.update(readFileSync(resolve(ROOT, file))), createHash('sha256')).digest('hex');
  const cacheDir = join(ROOT, 'target', 'split-cache');
  const cached = join(cacheDir, `profile-${key}.json`);
  let ran;
  if (existsSync(cached)) {
    ran = readFileSync(cached, 'utf8');
    console.log('build: [core-split] profile skipped: same inputs as a build before (target/split-cache)');
  } else {
    const started = Date.now();
    const profile = spawnSync('node', [join(ROOT, 'scripts/build/split-profile.mjs'), whole, String(features), bundle], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
    if (profile.status !== 0) throw new Error('build: the profile of the light core failed (scripts/build/split-profile.mjs)');
    ran = profile.stdout;
    rmSync(cacheDir, { recursive: true, force: true });
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(cached, ran);
    console.log(`build: [core-split] profiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const { primary, rest, moved } = splitModule(readFileSync(whole), new Set(JSON.parse(ran)), features);
  const files = { primary: join(dir, 'mebo_core_simd.wasm'), rest: join(dir, 'mebo_core_rest.wasm') };
  for (const [label, bytes, out] of [['core-primary', primary, files.primary], ['core-rest', rest, files.rest]]) {
    // Their custom sections (producers, target features) are read by no host: 0.5 kB gzipped of the two.
    const args = [...wasmOptArgs(variant), '--strip-producers', '--strip-target-features'];
    if (wasmOpt) await optimize({ label, bytes, out, wasmOpt, args, cacheDir: join(ROOT, 'target', 'wasm-opt-cache') });
    else writeFileSync(out, bytes);
  }
  try {
    await checkSplit(readFileSync(files.primary), readFileSync(files.rest));
  } catch (error) {
    throw new Error(`build: the split light core is broken (${error.message})`);
  }
  install(files.primary, join(WASM_OUT, 'mebo_core_simd.wasm'));
  install(files.rest, join(WASM_OUT, 'mebo_core_rest.wasm'));
  console.log(`build: [core-split] ${moved} functions moved to the rest`);
  for (const file of ['mebo_core_simd.wasm', 'mebo_core_rest.wasm']) console.log(`build: ${file} ${sizes(readFileSync(join(WASM_OUT, file)))}`);
}

try {
  const { values } = parseArgs({ options: { wasm: { type: 'boolean' }, sdk: { type: 'boolean' }, only: { type: 'string' } } });
  const all = !values.wasm && !values.sdk;
  if (all || values.wasm) await buildWasm(values.only?.split(','));
  if (all || values.sdk) buildSdk();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
