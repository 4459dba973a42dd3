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

type Sdk = typeof import('../src/entries/index.js');

async function loadSdk(variant: 'simd' | 'scalar'): Promise<Sdk> {
  vi.resetModules();
  const sdk = (await import('../src/entries/index.js')) as Sdk;
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

it('decimate identically (the simd128 M4 extremes and their scalar twin), vectors and random series with ±0, ±Inf and NaN', () => {
  const sameDecimated = (a: Sdk['NumericBlob']['prototype'], b: Sdk['NumericBlob']['prototype'], id: bigint | string, what: string) => {
    for (const buckets of [1, 3, 40, 1000]) {
      for (const method of ['minmax', 'lttb'] as const) {
        if (method === 'lttb' && buckets < 2) continue;
        const [x, y] = [a.decimate(id, { method, buckets }), b.decimate(id, { method, buckets })];
        same(bitsOf(x.timestampsMs), bitsOf(y.timestampsMs), `${what} ${method} ${buckets} timestamps`);
        same(bitsOf(x.values), bitsOf(y.values), `${what} ${method} ${buckets} values`);
      }
    }
  };
  // One vector per dataset: decimation reads decoded columns, whose identity the first test checks.
  const datasets = new Map(manifest().filter((m) => m.kind === 'numeric').map((m) => [m.dataset, m]));
  expect(datasets.size).toBeGreaterThan(5);
  for (const c of datasets.values()) {
    const bytes = readBlob(c);
    using a = simd.NumericBlob.from(bytes);
    using b = scalar.NumericBlob.from(bytes);
    for (const id of a.metricIds) sameDecimated(a, b, id, c.name);
  }
  // Random walks with the values whose order is special, in runs long enough for the vector path.
  let seed = 0x2545f491;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const special = [0, -0, Infinity, -Infinity, NaN];
  for (let round = 0; round < 20; round++) {
    const n = 10 + Math.floor(next() * 5000);
    let v = 0;
    const values = Float64Array.from({ length: n }, () => (next() < 0.05 ? special[Math.floor(next() * 5)] : (v += next() - 0.5)));
    const timestamps = BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 1000 + Math.floor(next() * 900)));
    const bytes = simd.encodeNumeric([{ name: 'r', timestamps, values }], { valueEncoding: 'raw' });
    using a = simd.NumericBlob.from(bytes);
    using b = scalar.NumericBlob.from(bytes);
    sameDecimated(a, b, 'r', `random ${round}`);
  }
});

it('decode random delta and deltapacked timestamps (the simd128 shuffles and their scalar twins) and XOR columns identically, and exactly', () => {
  // Jitter of random scale: delta-of-delta varints of 1 to 10 bytes, mostly 2 and 3
  // as real series; columns long enough for whole 64-byte stop windows.
  let seed = 0x9e3779b9;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let round = 0; round < 12; round++) {
    const metrics = Array.from({ length: 1 + Math.floor(next() * 6) }, (_, m) => {
      const n = Math.floor(next() * 2000);
      let t = BigInt(Math.floor(next() * 2 ** 53)) * (next() < 0.5 ? -1n : 1n);
      const timestamps = BigInt64Array.from({ length: n }, () => {
        const r = next();
        const scale = r < 0.7 ? 1e6 : r < 0.85 ? 60 : r < 0.97 ? 2 ** 40 : 2 ** 62;
        t = BigInt.asIntN(64, t + BigInt(Math.floor((next() - 0.5) * scale)));
        return t;
      });
      let v = 100;
      const values = Float64Array.from({ length: n }, () => (next() < 0.1 ? v : (v += next() - 0.5)));
      return { name: `m${m}`, timestamps, values };
    });
    for (const [timestampEncoding, valueEncoding] of [['delta', 'gorilla'], ['deltapacked', 'chimp']] as const) {
      const what = `round ${round} ${timestampEncoding} ${valueEncoding}`;
      const bytes = simd.encodeNumeric(metrics, { timestampEncoding, valueEncoding });
      using a = simd.NumericBlob.from(bytes);
      using b = scalar.NumericBlob.from(bytes);
      const [x, y] = [a.decodeAll(), b.decodeAll()];
      same(x.timestamps, y.timestamps, `${what} timestamps`);
      same(bitsOf(x.values), bitsOf(y.values), `${what} values`);
      same(x.timestamps, BigInt64Array.from(metrics.flatMap((m) => [...m.timestamps])), `${what} timestamps vs input`);
      same(bitsOf(x.values), bitsOf(Float64Array.from(metrics.flatMap((m) => [...m.values]))), `${what} values vs input`);
    }
  }
});

it('cut and bit-flipped Gorilla blobs give the same error or the same values in both builds (the scalar one reads a reversed copy)', () => {
  // Every column decoder path: all metrics at once (four and two columns a
  // call) and one metric at a time. Each outcome is the values' bits or a
  // MeboError's code and message (its byte counts are of the column as
  // stored, not of the reversed copy); a wasm trap would fail the test.
  const outcome = (sdk: Sdk, bytes: Uint8Array): string => {
    try {
      using b = sdk.NumericBlob.from(bytes);
      const columns = b.decodeAll();
      const all = [...bitsOf(columns.values)].join();
      const each = [...columns.ids].map((id) => [...bitsOf(b.metric(id).values)].join()).join(';');
      return `${all}|${each}`;
    } catch (error) {
      expect(error, 'a coded error, not a trap').toBeInstanceOf(sdk.MeboError);
      return `${(error as InstanceType<Sdk['MeboError']>).code}: ${(error as Error).message}`;
    }
  };
  let seed = 12345;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const cases = manifest().filter((c) => /-gorilla-none-/.test(c.name));
  let errors = 0;
  for (const c of cases) {
    const bytes = readBlob(c);
    for (let k = 0; k < 8; k++) {
      const cut = bytes.slice(0, Math.floor(next() * bytes.length));
      const flipped = bytes.slice();
      const at = Math.floor(next() * bytes.length);
      flipped[at] ^= 1 << Math.floor(next() * 8);
      for (const [what, mutated] of [[`cut to ${cut.length}`, cut], [`bit flipped at ${at}`, flipped]] as const) {
        const expected = outcome(simd, mutated);
        if (!expected.includes('|')) errors++;
        expect(outcome(scalar, mutated), `${c.name} ${what}`).toBe(expected);
      }
    }
  }
  expect(cases.length).toBeGreaterThan(50);
  expect(errors, 'most mutations are errors').toBeGreaterThan(cases.length * 4);
});

async function freshSdk(): Promise<Sdk> {
  vi.resetModules();
  return (await import('../src/entries/index.js')) as Sdk;
}

it('init() checks the simd build it picks on two embedded blobs; the check passes here', async () => {
  const sdk = await freshSdk();
  await sdk.init();
  expect(sdk.wasmInfo()).toEqual({ variant: 'simd', simdCheck: 'passed' });
  expect(sdk.memoryInfo().liveHandles).toBe(0);
  expect(simd.wasmInfo().simdCheck).toBe('not run'); // a build the caller chose is not second-guessed
});

it('a simd self-check mismatch (simulated) falls back to the scalar build, says why, and decodes exactly', async () => {
  const sdk = await freshSdk();
  await sdk.init({ simdCheck: 'fail' });
  expect(sdk.wasmInfo()).toEqual({ variant: 'scalar', simdCheck: 'failed', reason: 'simulated by init({ simdCheck: "fail" })' });
  expect(sdk.wasmVariant()).toBe('scalar');
  const c = manifest().find((m) => m.name === 'num-gauge1-delta-zstd-gorilla-s2-notags-le-v1')!;
  using blob = sdk.NumericBlob.from(readBlob(c));
  for (const m of readInput(c).metrics) {
    const got = blob.metric(m.id);
    same(bitsOf(got.values), bitsOf(m.values), `${c.name} values`);
    same(got.timestamps, m.timestamps, `${c.name} timestamps`);
  }
});
