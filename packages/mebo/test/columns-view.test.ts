// NumericBlob.columnsView(): every metric as views of the module's memory,
// equal to decodeAll's copies, re-derived after the memory grows (never a
// silently empty array through the view object), FREED after free().

import { beforeAll, expect, it } from 'vitest';
import { NumericBlob, encodeNumeric, init, wasmMemoryBytes } from '../src/index.js';
import { bitsOf, manifest, readBlob } from './helpers/vectors.js';

beforeAll(async () => {
  await init();
});

it('equals decodeAll on every numeric vector of a sample of options', () => {
  const cases = manifest().filter((c) => c.kind === 'numeric' && /gauge1|special|long|shared|ids/.test(c.name));
  expect(cases.length).toBeGreaterThan(50);
  for (const c of cases) {
    using blob = NumericBlob.from(readBlob(c));
    const copy = blob.decodeAll();
    const view = blob.columnsView();
    expect(Array.from(view.ids), c.name).toEqual(Array.from(copy.ids));
    expect(Array.from(view.offsets), c.name).toEqual(Array.from(copy.offsets));
    expect(Array.from(view.timestamps), c.name).toEqual(Array.from(copy.timestamps));
    expect(Array.from(bitsOf(view.values)), c.name).toEqual(Array.from(bitsOf(copy.values)));
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
