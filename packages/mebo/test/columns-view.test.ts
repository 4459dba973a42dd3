// NumericBlob.columnsView(): every metric as views of the module's memory,
// equal to decodeAll's copies, re-derived after the memory grows (never a
// silently empty array through the view object), FREED after free().

import { beforeAll, expect, it } from 'vitest';
import { NumericBlob, encodeNumeric, init, wasmMemoryBytes } from '../src/entries/index.js';
import { bitsOf, manifest, readBlob } from './helpers/vectors.js';

beforeAll(async () => {
  await init();
});

it('equals decodeAll on every numeric vector of a sample of options', () => {
  const cases = manifest().filter((c) => c.kind === 'numeric' && /gauge1|special|long|shared|ids/.test(c.name));
  expect(cases.length).toBeGreaterThan(50);
  for (const c of cases) {
    using blob = NumericBlob.from(readBlob(c));
    // The view first: it decodes into the buffers the last case's view left
    // (still holding that case's points), decodeAll then into fresh ones.
    const view = blob.columnsView();
    const copy = blob.decodeAll();
    expect(Array.from(view.ids), c.name).toEqual(Array.from(copy.ids));
    expect(Array.from(view.offsets), c.name).toEqual(Array.from(copy.offsets));
    expect(Array.from(view.timestamps), c.name).toEqual(Array.from(copy.timestamps));
    expect(Array.from(bitsOf(view.values)), c.name).toEqual(Array.from(bitsOf(copy.values)));
  }
});

it('views raw columns in place or decoded, whatever the input byte offset, and decimates alike', () => {
  // Raw little-endian columns are viewed in the blob's own payload when it lies
  // 8-byte aligned in memory (the input is staged at its byteOffset modulo 64, or 4 KiB),
  // else decoded: both must read the same, and so must decimate after the view.
  const cases = manifest().filter((c) => c.kind === 'numeric' && /-raw-.*-raw-.*-le-/.test(c.name));
  expect(cases.length).toBeGreaterThan(10);
  for (const c of cases) {
    const bytes = readBlob(c);
    for (const offset of [0, 3, 8]) {
      const input = new Uint8Array(new ArrayBuffer(bytes.length + 16), offset, bytes.length);
      input.set(bytes);
      const what = `${c.name} at byte offset ${offset}`;
      using blob = NumericBlob.from(input);
      using plain = NumericBlob.from(bytes);
      const copy = plain.decodeAll();
      const view = blob.columnsView();
      expect(Array.from(view.timestamps), what).toEqual(Array.from(copy.timestamps));
      expect(Array.from(bitsOf(view.values)), what).toEqual(Array.from(bitsOf(copy.values)));
      for (const id of blob.metricIds) {
        const [a, b] = [blob.decimate(id, { method: 'minmax', buckets: 7 }), plain.decimate(id, { method: 'minmax', buckets: 7 })];
        expect(Array.from(a.timestampsMs), what).toEqual(Array.from(b.timestampsMs));
        expect(Array.from(bitsOf(a.values)), what).toEqual(Array.from(bitsOf(b.values)));
      }
    }
  }
});

it('stays right when the memory grows, and refuses after free', () => {
  const c = manifest().find((m) => m.name === 'num-long-delta-none-gorilla-none-notags-le-v2')!;
  const blob = NumericBlob.from(readBlob(c));
  const view = blob.columnsView();
  const want = Array.from(bitsOf(blob.decodeAll().values));
  const stale = view.values;
  const before = wasmMemoryBytes();
  // Grow the memory: encode a blob far larger than anything held so far.
  const n = 2_000_000;
  const big = encodeNumeric([{ name: 'big', timestamps: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)), values: new Float64Array(n) }], { layout: 'v2' });
  expect(big.length).toBeGreaterThan(0);
  expect(wasmMemoryBytes()).toBeGreaterThan(before);
  expect(stale.length).toBe(0); // a kept view was detached by the growth...
  expect(Array.from(bitsOf(view.values))).toEqual(want); // ...the view object gives a live one
  blob.free();
  expect(() => view.values).toThrow(expect.objectContaining({ code: 'FREED' }));
});
