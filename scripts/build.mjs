#!/usr/bin/env node
// Builds the WebAssembly variants of crates/mebo-wasm and the TypeScript SDK
// in packages/mebo.
//
//   node scripts/build.mjs            wasm (every variant) and the SDK
//   node scripts/build.mjs --wasm     only the wasm
//   node scripts/build.mjs --sdk      only the SDK (needs the wasm built before)
//
// Four variants: the full module (`mebo`) and the decode-only one (`mebo/decode`:
// mebo-wasm without its default `encode` feature), each with and without
// simd128. Each is a release build (workspace profile: LTO, one codegen unit,
// opt-level 3; zstd's C at -Os, see ZSTD_CFLAGS) in its own target directory,
// run through `wasm-bindgen --target web`, stripped of the exports its glue
// never calls (zstd-sys's C shims: dead code once unexported) and `wasm-opt
// -O3`. Variants build side by side, as many at once as the machine has cores
// (at most one per variant). The JS glue of the simd and scalar builds of one
// module must be identical: the SDK ships one glue for both .wasm files.
//
// wasm-opt is binaryen's, from the workspace's pinned npm `binaryen` package
// when installed, else from PATH. Old binaryen (Debian bookworm's 108) rewrites
// the export of wasm-bindgen's externref table to point at the function table,
// so every optimized module is instantiated and checked before it is kept.
// Outputs (generated, not in git):
//
//   packages/mebo/wasm/mebo_wasm.js, mebo_wasm.d.ts       the glue of the full module
//   packages/mebo/wasm/mebo_simd.wasm                     simd128 build
//   packages/mebo/wasm/mebo_scalar.wasm                   build without simd128
//   packages/mebo/wasm/mebo_decode.js, mebo_decode.d.ts   the glue of the decode-only module
//   packages/mebo/wasm/mebo_decode_simd.wasm              decode-only, simd128
//   packages/mebo/wasm/mebo_decode_scalar.wasm            decode-only, without simd128
//
// `--only NAME[,NAME]` builds just those variants (simd, scalar, decode-simd,
// decode-scalar) and installs them (and their glue, when both builds of a
// module were built): e.g. only the decode-only one.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
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

// zstd's C sources (zstd-sys, compiled by clang) at -Os rather than cargo's
// -O3: 8 KB less gzipped wasm, zstd payloads decompressed within a few percent
// of -O3's time (-Oz: 1.4 KB less again, 10-25% slower). CFLAGS come last on
// clang's command line, so this -Os wins over the -O3 cc-rs puts first.
const ZSTD_CFLAGS = '-Os';

const SIMD = {
  rustflags: '-C target-feature=+simd128',
  // Let clang vectorize zstd's C too.
  cflags: `-msimd128 ${ZSTD_CFLAGS}`,
  features: [...BASE_FEATURES, '--enable-simd'],
};
const SCALAR = { rustflags: '', cflags: ZSTD_CFLAGS, features: BASE_FEATURES };

/**
 * The two modules, by the name of their glue (wasm/<name>.js), each built with
 * and without simd128 and served by one glue: `cargo`, the extra `cargo build`
 * arguments (the decode-only module leaves the default `encode` feature out);
 * `encoders`, whether its exports and glue must have the encoder handles.
 */
const MODULES = {
  mebo_wasm: { cargo: [], encoders: true },
  mebo_decode: { cargo: ['--no-default-features'], encoders: false },
};

const VARIANTS = [
  { name: 'simd', file: 'mebo_simd.wasm', module: 'mebo_wasm', ...SIMD },
  { name: 'scalar', file: 'mebo_scalar.wasm', module: 'mebo_wasm', ...SCALAR },
  { name: 'decode-simd', file: 'mebo_decode_simd.wasm', module: 'mebo_decode', ...SIMD },
  { name: 'decode-scalar', file: 'mebo_decode_scalar.wasm', module: 'mebo_decode', ...SCALAR },
];

/** Commands running now: a failure stops the others before the build exits. */
const running = new Set();

/**
 * Run a command; resolves when it succeeds, else prints its output and exits.
 * Its output is kept and printed when it ends (variants build side by side),
 * each line prefixed with the variant: all of it after a failure or a
 * warning, else cargo's "Finished" line.
 */
function runQuiet(label, command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const started = Date.now();
    const fail = (why) => {
      running.delete(child);
      for (const other of running) other.kill();
      process.stdout.write(prefix(label, Buffer.concat(chunks).toString()));
      console.error(`build: [${label}] ${command} ${args.join(' ')}: ${why}`);
      process.exit(1);
    };
    child.on('error', (error) => fail(error.message));
    child.on('close', (code, signal) => {
      if (code !== 0) return fail(`exited with ${code ?? signal}`);
      running.delete(child);
      const text = Buffer.concat(chunks).toString();
      const lines = text.split('\n');
      const shown = lines.some((line) => /^warning/.test(line)) ? lines : lines.filter((line) => /^\s*Finished/.test(line));
      console.log(`build: [${label}] ${command} ${args[0]} … ${((Date.now() - started) / 1000).toFixed(1)} s`);
      process.stdout.write(prefix(label, shown.join('\n')));
      resolve(text);
    });
  });
}

function prefix(label, text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `  [${label}] ${line}\n`)
    .join('');
}

async function buildVariant(variant, wasmOpt) {
  const targetDir = join(ROOT, 'target', `wasm-${variant.name}`);
  await runQuiet(variant.name, 'cargo', ['build', '-p', 'mebo-wasm', '--release', '--target', 'wasm32-unknown-unknown', ...MODULES[variant.module].cargo, '--target-dir', targetDir], {
    env: { ...process.env, RUSTFLAGS: variant.rustflags, CFLAGS_wasm32_unknown_unknown: variant.cflags },
  });
  const bindgenDir = join(ROOT, 'target', 'wasm-bindgen', variant.name);
  rmSync(bindgenDir, { recursive: true, force: true });
  await runQuiet(variant.name, 'wasm-bindgen', [
    join(targetDir, 'wasm32-unknown-unknown/release/mebo_wasm.wasm'),
    '--target', 'web',
    // No fallback `new URL('mebo_wasm_bg.wasm', import.meta.url)` in the glue:
    // the SDK always hands it a compiled module, and bundlers would chase the URL.
    '--omit-default-module-path',
    '--out-dir', bindgenDir,
    '--out-name', variant.module,
  ]);
  // wasm-bindgen keeps every export of the cdylib, among them zstd-sys's
  // `#[no_mangle]` C shims (malloc, memcpy, …, and a qsort with five
  // monomorphized sorts that only zstd's dictionary builder calls). The glue
  // names every export it uses; the others go, so wasm-opt can drop what only
  // they kept alive.
  const glue = readFileSync(join(bindgenDir, `${variant.module}.js`), 'utf8');
  const named = new Set(glue.match(/[A-Za-z_$][\w$]*/g));
  const input = join(bindgenDir, `${variant.module}_bg.wasm`);
  const stripped = join(bindgenDir, `${variant.module}_stripped.wasm`);
  const { bytes, removed } = stripExports(readFileSync(input), (name) => named.has(name));
  writeFileSync(stripped, bytes);
  const optimized = join(bindgenDir, variant.file);
  if (wasmOpt) {
    // The feature list doubles as a check: wasm-opt rejects a scalar module
    // that contains simd128 instructions.
    const args = ['-O3', ...variant.features];
    // wasm-opt takes 15-25 s a module: its output is kept, by the hash of its
    // input, version and arguments, for builds where the Rust did not change.
    const key = createHash('sha256').update(bytes).update(JSON.stringify([wasmOpt.version, args])).digest('hex');
    const cacheDir = join(ROOT, 'target', 'wasm-opt-cache');
    const cached = join(cacheDir, `${variant.name}-${key}.wasm`);
    if (existsSync(cached)) {
      copyFileSync(cached, optimized);
      console.log(`build: [${variant.name}] wasm-opt skipped: same input as a build before (target/wasm-opt-cache)`);
    } else {
      await runQuiet(variant.name, wasmOpt.command, [...args, stripped, '-o', optimized]);
      mkdirSync(cacheDir, { recursive: true });
      // One entry per variant: the one before goes.
      for (const old of readdirSync(cacheDir).filter((f) => f.startsWith(`${variant.name}-`))) rmSync(join(cacheDir, old));
      install(optimized, cached);
    }
  } else {
    copyFileSync(stripped, optimized);
  }
  try {
    await checkModule(optimized, MODULES[variant.module].encoders);
  } catch (error) {
    console.error(`build: ${optimized} is broken (${error.message}); ${wasmOpt?.version ?? 'wasm-bindgen'} cannot be used`);
    process.exit(1);
  }
  console.log(`build: [${variant.name}] ready (unused exports removed: ${removed.join(', ') || 'none'})`);
  return bindgenDir;
}

/** Read an unsigned LEB128 at `at`: [value, offset after it]. */
function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Uint8Array.from(out);
}

/**
 * The module with only the exports `keep(name)` accepts: its export section
 * (id 7: a count, then per export its name, a kind byte and an index) is
 * rewritten, every other section copied as it is.
 */
function stripExports(bytes, keep) {
  const parts = [bytes.subarray(0, 8)];
  const removed = [];
  let at = 8;
  while (at < bytes.length) {
    const [size, start] = readLeb(bytes, at + 1);
    const end = start + size;
    if (bytes[at] !== 7) {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readLeb(bytes, start);
    const kept = [];
    for (; count > 0; count--) {
      const [length, nameAt] = readLeb(bytes, p);
      const name = new TextDecoder().decode(bytes.subarray(nameAt, nameAt + length));
      const [, next] = readLeb(bytes, nameAt + length + 1); // the kind byte, then the index
      if (keep(name)) kept.push(bytes.subarray(p, next));
      else removed.push(name);
      p = next;
    }
    if (p !== end) throw new Error('build: cannot read the export section');
    const payload = Buffer.concat([leb(kept.length), ...kept]);
    parts.push(Uint8Array.of(7), leb(payload.length), payload);
    at = end;
  }
  return { bytes: Buffer.concat(parts), removed };
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
 * glue does at init: catches optimizers that break the module's tables. A
 * decode-only module must export no encoder.
 */
async function checkModule(path, encoders) {
  const module = await WebAssembly.compile(readFileSync(path));
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  if (!names.includes('numericblobhandle_decodeAll')) throw new Error('no numericblobhandle_decodeAll export');
  if (names.some((name) => /encoderhandle/i.test(name)) !== encoders) throw new Error(encoders ? 'no encoder exports' : 'encoder exports in a decode-only build');
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
function patchGlue(dir, name) {
  const js = join(dir, `${name}.js`);
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
  const dts = join(dir, `${name}.d.ts`);
  writeFileSync(dts, `${readFileSync(dts, 'utf8')}\n/** Forget the instance: the next init instantiates anew (added by scripts/build.mjs). */\nexport function __wbg_reset(): void;\n`);
  console.log(`build: ${name}.js patched for reset (${registries} handle kinds)`);
  return glue;
}

async function buildWasm(names) {
  if (!has('wasm-bindgen')) {
    console.error('build: wasm-bindgen is not on PATH; run `node scripts/setup.mjs` first');
    process.exit(1);
  }
  const variants = VARIANTS.filter((v) => names === undefined || names.includes(v.name));
  const wasmOpt = findWasmOpt();
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
  for (const name of Object.keys(MODULES)) {
    const [simd, scalar] = ['simd', 'scalar'].map((kind) => variants.find((v) => v.module === name && v.file.endsWith(`${kind}.wasm`)));
    if (simd && scalar) {
      for (const file of [`${name}.js`, `${name}.d.ts`]) {
        if (!sameFile(join(dirs[simd.name], file), join(dirs[scalar.name], file))) {
          console.error(`build: ${file} differs between the ${simd.name} and ${scalar.name} builds; one glue cannot serve both`);
          process.exit(1);
        }
      }
    }
    const from = simd ?? scalar;
    if (from === undefined) continue;
    const glue = patchGlue(dirs[from.name], name);
    if (!MODULES[name].encoders && /EncoderHandle/.test(glue)) {
      console.error(`build: ${name}.js, the decode-only glue, has encoder classes`);
      process.exit(1);
    }
    for (const file of [`${name}.js`, `${name}.d.ts`]) install(join(dirs[from.name], file), join(WASM_OUT, file));
  }
  for (const variant of variants) install(join(dirs[variant.name], variant.file), join(WASM_OUT, variant.file));
  for (const variant of variants) {
    const bytes = readFileSync(join(WASM_OUT, variant.file));
    console.log(`build: ${variant.file} ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped`);
  }
}

function buildSdk() {
  // The SDK bundles both glues: fail early without them.
  for (const name of Object.keys(MODULES)) statSync(join(WASM_OUT, `${name}.js`));
  run('pnpm', ['--filter', 'mebo', 'run', 'build']);
}

const { values } = parseArgs({ options: { wasm: { type: 'boolean' }, sdk: { type: 'boolean' }, only: { type: 'string' } } });
const only = values.only?.split(',');
const unknown = only?.filter((name) => !VARIANTS.some((v) => v.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`build: no variant ${unknown.join(', ')} (there are ${VARIANTS.map((v) => v.name).join(', ')})`);
  process.exit(1);
}
const all = !values.wasm && !values.sdk;
if (all || values.wasm) await buildWasm(only);
if (all || values.sdk) buildSdk();
