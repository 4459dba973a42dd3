import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindgen, cargoBuild, MODULES, selectVariants, VARIANTS, WASM_OPT_PASSES, wasmOptArgs } from './variants.mjs';

test('each handle module is built with and without simd128, the light core with it, the zstd part without; each into its own file', () => {
  assert.deepEqual(VARIANTS.map((v) => [v.name, v.module, v.simd, v.file]), [
    ['simd', 'mebo_wasm', true, 'mebo_simd.wasm'],
    ['scalar', 'mebo_wasm', false, 'mebo_scalar.wasm'],
    ['decode-simd', 'mebo_decode', true, 'mebo_decode_simd.wasm'],
    ['decode-scalar', 'mebo_decode', false, 'mebo_decode_scalar.wasm'],
    ['core-simd', 'mebo_core', true, 'mebo_core_simd.wasm'],
    ['zstd', 'mebo_zstd', false, 'mebo_zstd.wasm'],
  ]);
  for (const v of VARIANTS) {
    assert.equal(v.rustflags.includes('+simd128'), v.simd, v.name);
    assert.equal(v.cflags.includes('-msimd128'), v.simd, v.name);
    assert.equal(v.features.includes('--enable-simd'), v.simd, v.name);
    assert.ok(v.cflags.endsWith('-Os'), `${v.name}: zstd's C at -Os`);
    assert.ok(v.features.includes('--enable-reference-types'), `${v.name}: the externref table`);
  }
});

test('the zstd part is built for size, the light core at opt-level 2; the others as fast as they go', () => {
  for (const v of VARIANTS) {
    const small = v.module === 'mebo_zstd';
    const optLevel = { mebo_core: '2', mebo_zstd: 's' }[v.module];
    assert.equal(cargoBuild(v, '/t').env.CARGO_PROFILE_RELEASE_OPT_LEVEL, optLevel, v.name);
    assert.deepEqual(wasmOptArgs(v).slice(0, small ? 1 : 2), small ? ['-Oz'] : WASM_OPT_PASSES, v.name);
  }
  const core = cargoBuild(VARIANTS[4], '/t/core');
  assert.deepEqual(core.args.slice(1, 3), ['-p', 'mebo-wasm']);
  assert.ok(core.args.join(' ').includes('--no-default-features --features light'));
  const zstd = cargoBuild(VARIANTS[5], '/t/zstd');
  assert.deepEqual(zstd.args.slice(1, 3), ['-p', 'mebo-zstd']);
  assert.equal(zstd.wasm, '/t/zstd/wasm32-unknown-unknown/release/mebo_zstd.wasm');
  assert.equal(MODULES.mebo_zstd.handles, false);
});

test('the decode-only module leaves the encoders out', () => {
  const full = cargoBuild(VARIANTS[0], '/t/simd');
  const decode = cargoBuild(VARIANTS[3], '/t/decode-scalar');
  assert.ok(!full.args.includes('--no-default-features'));
  assert.deepEqual(decode.args.slice(-5), ['--no-default-features', '--features', 'zstd', '--target-dir', '/t/decode-scalar']);
  assert.deepEqual(decode.env, { RUSTFLAGS: '', CFLAGS_wasm32_unknown_unknown: '-Os' });
  assert.equal(full.env.RUSTFLAGS, '-C target-feature=+simd128');
  assert.equal(full.wasm, '/t/simd/wasm32-unknown-unknown/release/mebo_wasm.wasm');
  assert.deepEqual({ full: MODULES.mebo_wasm.encoders, decode: MODULES.mebo_decode.encoders }, { full: true, decode: false });
});

test('wasm-bindgen writes a web glue named after the module, without a default module path', () => {
  const run = bindgen(VARIANTS[2], '/t/in.wasm', '/t/out');
  assert.deepEqual(run.args, ['/t/in.wasm', '--target', 'web', '--omit-default-module-path', '--out-dir', '/t/out', '--out-name', 'mebo_decode']);
  assert.equal(run.glue, '/t/out/mebo_decode.js');
  assert.equal(run.wasm, '/t/out/mebo_decode_bg.wasm');
});

test('--only picks variants by name and refuses others', () => {
  assert.equal(selectVariants(undefined).length, 6);
  assert.deepEqual(selectVariants(['decode-scalar', 'simd']).map((v) => v.name), ['simd', 'decode-scalar']);
  assert.throws(() => selectVariants(['simd', 'avx']), /no variant avx \(there are simd, scalar, decode-simd, decode-scalar, core-simd, zstd\)/);
});
