// The wasm variants of crates/mebo-wasm and the commands that build one.
//
// The full module (`mebo`) and the decode-only one (`mebo/decode`: mebo-wasm
// without its default `encode` feature), each built with and without simd128
// and served by one glue; the light core of `mebo/decode` in a page (Rust at
// opt-level 2) and its zstd part (built for size). Each is a release build (workspace
// profile: LTO, one codegen unit, opt-level 3; zstd's C at -Os, see
// ZSTD_CFLAGS) in its own target directory, then `wasm-bindgen --target web`.

import { join } from 'node:path';

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

// wasm-opt's optimization: -O3 without binaryen's inliner. Inlining the small
// functions LLVM had left out of line made every XOR and ALP decode 11-16%
// slower in Node 20's V8 (11.3) and no faster in Chromium 156's, and the module
// is 3.4 kB smaller gzipped without it (docs/PERFORMANCE-LOG.md, fourth round).
export const WASM_OPT_PASSES = ['-O3', '--skip-pass=inlining-optimizing'];

// `features` are wasm-opt's: the list doubles as a check, as wasm-opt rejects
// a scalar module that contains simd128 instructions.
const SIMD = {
  rustflags: '-C target-feature=+simd128',
  // Let clang vectorize zstd's C too.
  cflags: `-msimd128 ${ZSTD_CFLAGS}`,
  features: [...BASE_FEATURES, '--enable-simd'],
};
const SCALAR = { rustflags: '', cflags: ZSTD_CFLAGS, features: BASE_FEATURES };

/**
 * The modules, by the name of their glue (wasm/<name>.js): `crate`, the
 * package built; `cargo`, the extra `cargo build` arguments (the decode-only
 * module leaves the default `encode` feature out); `encoders`, whether its
 * exports and glue must have the encoder handles; `handles`, whether it is a
 * build of the blob handles at all (the zstd part is not); `bindgen: false`,
 * a module without wasm-bindgen, whose `exports` are hand-written and read
 * by a hand-written loader (the zstd part: packages/mebo/src/zstd-part.ts).
 */
export const MODULES = {
  mebo_wasm: { crate: 'mebo-wasm', cargo: [], encoders: true, handles: true },
  mebo_decode: { crate: 'mebo-wasm', cargo: ['--no-default-features', '--features', 'zstd'], encoders: false, handles: true },
  // The light core of `mebo/decode` in a page: no libzstd (the zstd part is
  // called through an import) and the value decoders built for size.
  // Its wasm-bindgen name is the decode-only module's: the module's imports
  // then come from the same namespace, so that one glue serves both.
  mebo_core: { crate: 'mebo-wasm', cargo: ['--no-default-features', '--features', 'light'], encoders: false, handles: true, bindgenName: 'mebo_decode' },
  // The light core's zstd part: a zstd decoder of our own (crates/mebo-zstd,
  // written from RFC 8878), no_std and without wasm-bindgen. `exports` are
  // the ones packages/mebo/src/zstd-part.ts reads; any other export is
  // removed so that wasm-opt drops what only it reaches.
  mebo_zstd: {
    crate: 'mebo-zstd',
    cargo: [],
    encoders: false,
    handles: false,
    bindgen: false,
    exports: ['memory', 'input', 'decompress', 'output_ptr', 'output_len', 'number', 'detail_ptr', 'detail_len'],
  },
};

// Built for size: Rust at opt-level "s" and wasm-opt -Oz (the zstd part).
const SIZE = { cargoOptLevel: 's', wasmOpt: ['-Oz'] };
// The light core, which every page decodes with: Rust at opt-level 2 and
// wasm-opt's passes of the other builds. Against "s" it is 1.9 kB gzipped
// more and decodes text blobs 2.4-3.3x and lz4 payloads 4.7x faster; -Oz,
// whose inliner the passes skip, made it 2.0 kB larger and no faster
// (docs/FIRST-LOAD.md).
const CORE = { cargoOptLevel: '2' };

/** Every variant: its name (for `--only`), its installed file, its module, its flags. */
export const VARIANTS = [
  { name: 'simd', file: 'mebo_simd.wasm', module: 'mebo_wasm', simd: true, ...SIMD },
  { name: 'scalar', file: 'mebo_scalar.wasm', module: 'mebo_wasm', simd: false, ...SCALAR },
  { name: 'decode-simd', file: 'mebo_decode_simd.wasm', module: 'mebo_decode', simd: true, ...SIMD },
  { name: 'decode-scalar', file: 'mebo_decode_scalar.wasm', module: 'mebo_decode', simd: false, ...SCALAR },
  // simd128 only: a host without it loads the decode-only scalar build instead.
  { name: 'core-simd', file: 'mebo_core_simd.wasm', module: 'mebo_core', simd: true, ...SIMD, ...CORE },
  // Without simd128, so that it runs wherever the scalar builds do.
  { name: 'zstd', file: 'mebo_zstd.wasm', module: 'mebo_zstd', simd: false, ...SCALAR, ...SIZE },
];

/** The variants named (all when `names` is undefined); throws on a name that is none. */
export function selectVariants(names) {
  const unknown = names?.filter((name) => !VARIANTS.some((v) => v.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`build: no variant ${unknown.join(', ')} (there are ${VARIANTS.map((v) => v.name).join(', ')})`);
  return VARIANTS.filter((v) => names === undefined || names.includes(v.name));
}

/** The `cargo build` of a variant into `targetDir`: `{ command, args, env, wasm }`, `wasm` the file it writes. */
export function cargoBuild(variant, targetDir) {
  const { crate, cargo } = MODULES[variant.module];
  const env = { RUSTFLAGS: variant.rustflags, CFLAGS_wasm32_unknown_unknown: variant.cflags };
  if (variant.cargoOptLevel) env.CARGO_PROFILE_RELEASE_OPT_LEVEL = variant.cargoOptLevel;
  return {
    command: 'cargo',
    args: ['build', '-p', crate, '--release', '--target', 'wasm32-unknown-unknown', ...cargo, '--target-dir', targetDir],
    env,
    wasm: join(targetDir, `wasm32-unknown-unknown/release/${crate.replaceAll('-', '_')}.wasm`),
  };
}

/** wasm-opt's arguments for a variant: its passes (-O3 without the inliner, or -Oz built for size) and features. */
export function wasmOptArgs(variant) {
  return [...(variant.wasmOpt ?? WASM_OPT_PASSES), ...variant.features];
}

/**
 * The `wasm-bindgen` run over a variant's cargo output into `outDir`:
 * `{ command, args, glue, wasm }`, the glue and module files it writes.
 */
export function bindgen(variant, wasm, outDir) {
  return {
    command: 'wasm-bindgen',
    args: [
      wasm,
      '--target', 'web',
      // No fallback `new URL('mebo_wasm_bg.wasm', import.meta.url)` in the glue:
      // the SDK always hands it a compiled module, and bundlers would chase the URL.
      '--omit-default-module-path',
      '--out-dir', outDir,
      '--out-name', bindgenName(variant),
    ],
    glue: join(outDir, `${bindgenName(variant)}.js`),
    wasm: join(outDir, `${bindgenName(variant)}_bg.wasm`),
  };
}

/** The name wasm-bindgen gives a variant's glue and the module's import namespace. */
export function bindgenName(variant) {
  return MODULES[variant.module].bindgenName ?? variant.module;
}
