// Freed objects give their wasm memory back: decoding in a loop keeps the
// linear memory (which only ever grows) at its size after warm-up.

import { beforeAll, expect, it } from 'vitest';
import { encodeNumeric, init, NumericBlob, TextBlob, wasmMemoryBytes } from '../src/index.js';
import { manifest, readBlob, readInput } from './helpers/vectors.js';

beforeAll(() => init());

const cases = manifest();
const numericCase = cases.find((c) => c.name === 'num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2')!;
const textCase = cases.find((c) => c.kind === 'text' && c.options.dataCompression === 'zstd' && c.options.tags)!;

function loop(times: number, body: () => void): number {
  for (let i = 0; i < 200; i++) body(); // warm-up: let the allocator reach its working set
  const before = wasmMemoryBytes();
  for (let i = 0; i < times; i++) body();
  return wasmMemoryBytes() - before;
}

it('decoding 10,000 numeric blobs, freeing each, does not grow the memory', () => {
  const bytes = readBlob(numericCase);
  const id = readInput(numericCase).metrics[0]!.id;
  const growth = loop(10_000, () => {
    const blob = NumericBlob.from(bytes);
    blob.decodeAll();
    blob.metric(id);
    blob.free();
  });
  expect(growth).toBe(0);
});

it('decoding 10,000 text blobs (with using) does not grow the memory', () => {
  const bytes = readBlob(textCase);
  const growth = loop(10_000, () => {
    using blob = TextBlob.from(bytes);
    blob.decodeAll();
  });
  expect(growth).toBe(0);
});

it('encoding 2,000 blobs does not grow the memory', () => {
  const input = readInput(numericCase);
  const metrics = input.metrics.map((m) => ({ name: m.name!, timestamps: m.timestamps, values: m.values, tags: m.tags! }));
  const growth = loop(2_000, () => {
    encodeNumeric(metrics, { config: 'delta-zstd-gorilla-zstd', tags: true, layout: 'v2' });
  });
  expect(growth).toBe(0);
});

it('failed decodes free what they allocated', () => {
  const bytes = readBlob(numericCase).slice(0, 2000);
  const growth = loop(10_000, () => {
    try {
      NumericBlob.from(bytes).free();
    } catch {
      // expected: truncated
    }
  });
  expect(growth).toBe(0);
});
