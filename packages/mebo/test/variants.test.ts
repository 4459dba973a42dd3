// The simd128 and scalar builds, loaded side by side in two module contexts,
// decode every vector identically and encode identical bytes.

import { beforeAll, expect, it, vi } from 'vitest';
import {
  bitsOf,
  firstDifference,
  manifest,
  numericMetricsOf,
  numericOptionsOf,
  readBlob,
  readInput,
  textMetricsOf,
  textOptionsOf,
} from './helpers/vectors.js';

type Sdk = typeof import('../src/index.js');

async function loadSdk(variant: 'simd' | 'scalar'): Promise<Sdk> {
  vi.resetModules();
  const sdk = (await import('../src/index.js')) as Sdk;
  await sdk.init({ variant });
  expect(sdk.wasmVariant()).toBe(variant);
  return sdk;
}

let simd: Sdk;
let scalar: Sdk;

beforeAll(async () => {
  simd = await loadSdk('simd');
  scalar = await loadSdk('scalar');
  expect(simd.NumericBlob).not.toBe(scalar.NumericBlob);
});

function same<T>(a: ArrayLike<T>, b: ArrayLike<T>, what: string): void {
  expect(firstDifference(a, b), what).toBe(-1);
}

it('decode every vector identically', () => {
  const cases = manifest();
  for (const c of cases) {
    const bytes = readBlob(c);
    if (c.kind === 'numeric') {
      using a = simd.NumericBlob.from(bytes);
      using b = scalar.NumericBlob.from(bytes);
      const [x, y] = [a.decodeAll(), b.decodeAll()];
      same(x.ids, y.ids, `${c.name} ids`);
      same(x.offsets, y.offsets, `${c.name} offsets`);
      same(x.timestamps, y.timestamps, `${c.name} timestamps`);
      same(bitsOf(x.values), bitsOf(y.values), `${c.name} values`);
      for (const id of x.ids) expect(a.tags(id), c.name).toEqual(b.tags(id));
    } else {
      using a = simd.TextBlob.from(bytes);
      using b = scalar.TextBlob.from(bytes);
      expect(a.decodeAll(), c.name).toEqual(b.decodeAll());
    }
  }
  expect(cases.length).toBe(678);
});

it('encode every vector to identical bytes', () => {
  for (const c of manifest()) {
    const input = readInput(c);
    const encode = (sdk: Sdk) =>
      c.kind === 'numeric'
        ? sdk.encodeNumeric(numericMetricsOf(input), numericOptionsOf(c))
        : sdk.encodeText(textMetricsOf(input), textOptionsOf(c));
    same(encode(simd), encode(scalar), c.name);
  }
});
