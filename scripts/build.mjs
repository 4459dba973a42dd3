#!/usr/bin/env node
// Builds the two WebAssembly variants of crates/mebo-wasm and the TypeScript
// SDK in packages/mebo.
//
//   node scripts/build.mjs            wasm (simd + scalar) and the SDK
//   node scripts/build.mjs --wasm     only the wasm
//   node scripts/build.mjs --sdk      only the SDK (needs the wasm built before)
//
// Each variant is a release build (workspace profile: LTO, one codegen unit,
// opt-level 3) in its own target directory, run through `wasm-bindgen --target
// web` and `wasm-opt -O3`. The JS glue of both variants must be identical: the
// SDK ships one glue for both .wasm files.
//
// wasm-opt is binaryen's, from the workspace's pinned npm `binaryen` package
// when installed, else from PATH. Old binaryen (Debian bookworm's 108) rewrites
// the export of wasm-bindgen's externref table to point at the function table,
// so every optimized module is instantiated and checked before it is kept.
// Outputs (generated, not in git):
//
//   packages/mebo/wasm/mebo_wasm.js, mebo_wasm.d.ts   the glue
//   packages/mebo/wasm/mebo_simd.wasm                 simd128 build
//   packages/mebo/wasm/mebo_scalar.wasm               build without simd128

import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, has, output, run } from './lib.mjs';

const WASM_OUT = join(ROOT, 'packages/mebo/wasm');

// Features every variant uses: Rust's wasm32 default set (LLVM's "generic" CPU).
const BASE_FEATURES = [
  '--enable-bulk-memory',
  '--enable-sign-ext',
  '--enable-nontrapping-float-to-int',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];

const VARIANTS = [
  {
    name: 'simd',
    rustflags: '-C target-feature=+simd128',
    // zstd's C sources are compiled by clang: let it vectorize too.
    cflags: '-msimd128',
    features: [...BASE_FEATURES, '--enable-simd'],
  },
  { name: 'scalar', rustflags: '', cflags: '', features: BASE_FEATURES },
];

function buildVariant(variant) {
  const targetDir = join(ROOT, 'target', `wasm-${variant.name}`);
  run('cargo', ['build', '-p', 'mebo-wasm', '--release', '--target', 'wasm32-unknown-unknown', '--target-dir', targetDir], {
    env: { ...process.env, RUSTFLAGS: variant.rustflags, CFLAGS_wasm32_unknown_unknown: variant.cflags },
  });
  const bindgenDir = join(ROOT, 'target', 'wasm-bindgen', variant.name);
  rmSync(bindgenDir, { recursive: true, force: true });
  run('wasm-bindgen', [
    join(targetDir, 'wasm32-unknown-unknown/release/mebo_wasm.wasm'),
    '--target', 'web',
    // No fallback `new URL('mebo_wasm_bg.wasm', import.meta.url)` in the glue:
    // the SDK always hands it a compiled module, and bundlers would chase the URL.
    '--omit-default-module-path',
    '--out-dir', bindgenDir,
    '--out-name', 'mebo_wasm',
  ]);
  return bindgenDir;
}

/** binaryen's wasm-opt: the pinned npm build in the workspace, else the one on PATH. */
function findWasmOpt() {
  const local = join(ROOT, 'node_modules/.bin/wasm-opt');
  for (const command of [local, 'wasm-opt']) {
    const version = output(command, ['--version']);
    if (version !== undefined) return { command, version: version.trim() };
  }
  return undefined;
}

/**
 * Instantiate a module with stub imports and grow its externref table as the
 * glue does at init: catches optimizers that break the module's tables.
 */
async function checkModule(path) {
  const module = await WebAssembly.compile(readFileSync(path));
  const imports = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') throw new Error(`${path}: unexpected ${kind} import ${from}.${name}`);
    (imports[from] ??= {})[name] = () => {};
  }
  const { exports } = await WebAssembly.instantiate(module, imports);
  exports.__wbindgen_externrefs?.grow(4);
}

/** Copy into place by rename, so a reader (a test run, another build) never sees half a file. */
function install(from, to) {
  const temporary = `${to}.${process.pid}.tmp`;
  copyFileSync(from, temporary);
  renameSync(temporary, to);
}

function sameFile(a, b) {
  return readFileSync(a).equals(readFileSync(b));
}

/**
 * Let the SDK re-instantiate the module (`reset()`, to give memory back):
 * wasm-bindgen's glue instantiates once per realm and frees a collected
 * handle through whichever instance is current. Two edits, each checked so a
 * new wasm-bindgen that changes the glue fails the build here:
 * - a collected handle is freed in the instance it was made in (its
 *   finalizer's held value carries that instance's exports), so a handle
 *   collected after a reset never frees memory of the new instance;
 * - `__wbg_reset()` forgets the instance, so the next init makes a new one.
 */
function patchGlue(dir) {
  const js = join(dir, 'mebo_wasm.js');
  let glue = readFileSync(js, 'utf8');
  const edit = (pattern, replacement, what) => {
    const count = glue.match(pattern)?.length ?? 0;
    if (count === 0) throw new Error(`build: the wasm-bindgen glue has no ${what} to patch; see patchGlue in scripts/build.mjs`);
    glue = glue.replace(pattern, replacement);
    return count;
  };
  const registries = edit(/new FinalizationRegistry\(ptr => wasm\.(__wbg_\w+_free)\(ptr, 1\)\)/g, 'new FinalizationRegistry(({ ptr, exports }) => exports.$1(ptr, 1))', 'finalization registry');
  edit(/(\w+Finalization)\.register\((\w+), \2\.__wbg_ptr, \2\)/g, '$1.register($2, { ptr: $2.__wbg_ptr, exports: wasm }, $2)', 'handle registration');
  if (/ptr => wasm\.__wbg_|Finalization\.register\((\w+), \1\.__wbg_ptr/.test(glue)) throw new Error('build: a glue finalizer was left unpatched');
  edit(/^let wasmModule, wasmInstance, wasm;$/m, 'let wasmModule, wasmInstance, wasm;\nexport function __wbg_reset() { wasmModule = wasmInstance = wasm = undefined; }', 'instance variables');
  writeFileSync(js, glue);
  const dts = join(dir, 'mebo_wasm.d.ts');
  writeFileSync(dts, `${readFileSync(dts, 'utf8')}\n/** Forget the instance: the next init instantiates anew (added by scripts/build.mjs). */\nexport function __wbg_reset(): void;\n`);
  console.log(`build: glue patched for reset (${registries} handle kinds)`);
}

async function buildWasm() {
  if (!has('wasm-bindgen')) {
    console.error('build: wasm-bindgen is not on PATH; run `node scripts/setup.mjs` first');
    process.exit(1);
  }
  const dirs = Object.fromEntries(VARIANTS.map((v) => [v.name, buildVariant(v)]));
  for (const file of ['mebo_wasm.js', 'mebo_wasm.d.ts']) {
    if (!sameFile(join(dirs.simd, file), join(dirs.scalar, file))) {
      console.error(`build: ${file} differs between the simd and scalar builds; one glue cannot serve both`);
      process.exit(1);
    }
  }
  mkdirSync(WASM_OUT, { recursive: true });
  const wasmOpt = findWasmOpt();
  if (wasmOpt) console.log(`build: optimizing with ${wasmOpt.version}`);
  else console.warn('build: wasm-opt not found (pnpm install brings it); shipping the wasm-bindgen output unoptimized');
  for (const variant of VARIANTS) {
    const input = join(dirs[variant.name], 'mebo_wasm_bg.wasm');
    const optimized = join(dirs[variant.name], `mebo_${variant.name}.wasm`);
    if (wasmOpt) {
      // The feature list doubles as a check: wasm-opt rejects a scalar module
      // that contains simd128 instructions.
      run(wasmOpt.command, ['-O3', ...variant.features, input, '-o', optimized]);
    } else {
      copyFileSync(input, optimized);
    }
    try {
      await checkModule(optimized);
    } catch (error) {
      console.error(`build: ${optimized} is broken (${error.message}); ${wasmOpt?.version ?? 'wasm-bindgen'} cannot be used`);
      process.exit(1);
    }
    install(optimized, join(WASM_OUT, `mebo_${variant.name}.wasm`));
  }
  patchGlue(dirs.simd);
  for (const file of ['mebo_wasm.js', 'mebo_wasm.d.ts']) install(join(dirs.simd, file), join(WASM_OUT, file));
  for (const variant of VARIANTS) {
    const bytes = readFileSync(join(WASM_OUT, `mebo_${variant.name}.wasm`));
    console.log(`build: mebo_${variant.name}.wasm ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped`);
  }
}

function buildSdk() {
  statSync(join(WASM_OUT, 'mebo_wasm.js')); // the SDK bundles the glue: fail early without it
  run('pnpm', ['--filter', 'mebo', 'run', 'build']);
}

const args = new Set(process.argv.slice(2));
const all = !args.has('--wasm') && !args.has('--sdk');
if (all || args.has('--wasm')) await buildWasm();
if (all || args.has('--sdk')) buildSdk();
