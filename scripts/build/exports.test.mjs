import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leb, namesIn, readLeb, stripExports } from './exports.mjs';
import { wasmModule } from './fixtures/wasm.mjs';

const exportNames = (bytes) => WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);

test('LEB128 round-trips across byte boundaries', () => {
  for (const value of [0, 1, 127, 128, 255, 300, 16383, 16384, 2 ** 21, 2 ** 32 + 5]) {
    const bytes = leb(value);
    assert.deepEqual(readLeb(Uint8Array.from([9, ...bytes, 9]), 1), [value, 1 + bytes.length], `${value}`);
  }
  assert.deepEqual([...leb(624485)], [0xe5, 0x8e, 0x26]); // the example in the LEB128 article
  assert.throws(() => readLeb(Uint8Array.of(0x80, 0x80), 0), /past the end/);
});

test('only the exports kept remain, and the module still validates and runs', async () => {
  // 200 exports: the count and the section size take two LEB128 bytes; one
  // long name takes a two-byte length.
  const long = `n${'x'.repeat(200)}`;
  const names = [...Array.from({ length: 199 }, (_, i) => `f${i}`), long];
  const bytes = wasmModule({ functions: 200, table: true, memory: true, exports: [...names.map((n, i) => ({ name: n, index: i })), { name: 'table', kind: 'table', index: 0 }, { name: 'memory', kind: 'memory', index: 0 }] });
  assert.equal(exportNames(bytes).length, 202);
  const keep = new Set(['f3', 'f150', long, 'memory']);
  const { bytes: stripped, removed } = stripExports(bytes, (n) => keep.has(n));
  assert.deepEqual(exportNames(stripped), ['f3', 'f150', long, 'memory']);
  assert.deepEqual(removed, [...names.filter((n) => !keep.has(n)), 'table']);
  // Each kept export still points at its own function.
  const { exports } = (await WebAssembly.instantiate(stripped)).instance;
  assert.equal(exports.f3(), 3);
  assert.equal(exports.f150(), 150);
  assert.equal(exports[long](), 199);
  // Every other section is copied byte for byte: only the export section shrank.
  const customAt = (b) => Buffer.from(b).indexOf(Buffer.from('fixture'));
  assert.deepEqual(Buffer.from(stripped).subarray(customAt(stripped)), Buffer.from(bytes).subarray(customAt(bytes)));
});

test('keeping everything gives the same bytes; a broken section is refused', () => {
  const bytes = wasmModule({ functions: 2, exports: [{ name: 'a', index: 0 }, { name: 'b', index: 1 }] });
  const same = stripExports(bytes, () => true);
  assert.deepEqual(Buffer.from(same.bytes), Buffer.from(bytes));
  assert.deepEqual(same.removed, []);
  assert.throws(() => stripExports(bytes.subarray(0, bytes.length - 3), () => true), /past the end/);
});

test('the names a glue uses are its identifiers', () => {
  const glue = 'const ret = wasm.numericblobhandle_open(ptr0, len0); wasm.__wbindgen_free($a, 1);';
  const names = namesIn(glue);
  for (const n of ['numericblobhandle_open', '__wbindgen_free', '$a', 'ptr0']) assert.ok(names.has(n), n);
  assert.ok(!names.has('malloc'));
});
