// The API surface beyond conformance: options, lookups, random access,
// builders, defaults.

import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultDecodeLimits,
  encodeNumeric,
  encodeText,
  init,
  metricId,
  NumericBlob,
  NumericEncoder,
  simdSupported,
  TextBlob,
  TextBlobEncoder,
  wasmVariant,
} from '../src/entries/index.js';
import { bitsOf, firstDifference, manifest, readBlob, readInput } from './helpers/vectors.js';

beforeAll(() => init());

const cases = manifest();
const byName = (name: string) => cases.find((c) => c.name === name)!;

describe('module', () => {
  it('picks the simd build where simd128 validates; init is idempotent', async () => {
    expect(simdSupported()).toBe(true);
    expect(wasmVariant()).toBe('simd');
    await init({ variant: 'scalar' });
    expect(wasmVariant()).toBe('simd');
  });

  it('metricId is the xxHash64 the blobs use; limits have the core defaults', () => {
    const input = readInput(byName('num-gauge1-raw-none-raw-none-notags-le-v1'));
    for (const m of input.metrics) expect(metricId(m.name!)).toBe(m.id);
    expect(defaultDecodeLimits()).toEqual({ maxDecompressedBytes: 128 * 2 ** 20, maxPoints: 64 * 2 ** 20 });
  });
});

describe('NumericBlob', () => {
  const c = byName('num-gauge1-tagged-raw-none-raw-none-tags-be-v2');
  const input = readInput(c);

  it('reports its header', () => {
    using blob = NumericBlob.from(readBlob(c).buffer as ArrayBuffer);
    expect(blob.options).toEqual({
      timestampEncoding: 'raw',
      valueEncoding: 'raw',
      timestampCompression: 'none',
      valueCompression: 'none',
      tags: true,
      bigEndian: true,
      byteOrder: 'big',
      layout: 'v2',
      extendedIndex: false,
      metricNames: false,
    });
    expect(blob.length).toBe(input.metrics.length);
    expect(blob.totalPoints).toBe(input.metrics.reduce((n, m) => n + m.timestamps.length, 0));
    expect(blob.names).toBeUndefined();
    const sorted = input.metrics.map((m) => m.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(Array.from(blob.metricIds)).toEqual(sorted); // v2 indexes are sorted by id
  });

  it('looks metrics up by id and by name, with random access to points', () => {
    using blob = NumericBlob.from(readBlob(c));
    for (const m of input.metrics) {
      const metric = blob.metric(m.name!);
      expect(metric.name).toBe(m.name);
      expect(metric.id).toBe(m.id);
      expect(blob.metric(m.id).name).toBeUndefined();
      expect(blob.pointCount(m.id)).toBe(m.timestamps.length);
      expect(firstDifference(blob.timestamps(m.id), m.timestamps)).toBe(-1);
      expect(firstDifference(bitsOf(blob.values(m.name!)), m.valueBits)).toBe(-1);
      expect(blob.tags(m.id)).toEqual(m.tags);
      const ms = blob.timestampsMs(m.id);
      expect(Array.from(ms)).toEqual(Array.from(m.timestamps, (t) => Number(t) / 1000));
      for (const i of [0, m.timestamps.length - 1]) {
        expect(blob.timestampAt(m.id, i)).toBe(m.timestamps[i]);
        expect(Object.is(blob.valueAt(m.id, i), m.values[i])).toBe(true);
        expect(blob.tagAt(m.id, i)).toBe(m.tags![i]);
      }
    }
  });

  it('options of a decoded blob are encoder options that write the same bytes', () => {
    const plain = byName('num-gauge1-delta-none-chimp-none-notags-be-v2');
    using blob = NumericBlob.from(readBlob(plain));
    const metrics = readInput(plain).metrics.map((m) => ({ name: m.name!, timestamps: m.timestamps, values: m.values }));
    const bytes = encodeNumeric(metrics, { ...blob.options, startTime: blob.startTime });
    expect(firstDifference(bytes, readBlob(plain))).toBe(-1);
  });
});

describe('NumericBlob.decodeAllInto', () => {
  const small = () => encodeNumeric([{ name: 'c', timestamps: [1n, 2n, 3n], values: [0.5, -0, NaN] }]);
  const large = () => encodeNumeric([
    { name: 'a', timestamps: [1n, 2n, 3n, 4n], values: [1, 2, 3, 4] },
    { name: 'b', timestamps: [5n, 6n], values: [Infinity, -1e-310] },
  ]);

  it('writes into arrays that are long enough and leaves the rest of them alone', () => {
    const into = { timestamps: new BigInt64Array(8).fill(-7n), values: new Float64Array(8).fill(42) };
    using blob = NumericBlob.from(large());
    const got = blob.decodeAllInto(into);
    expect(got.values.buffer).toBe(into.values.buffer);
    expect(got.timestamps.buffer).toBe(into.timestamps.buffer);
    expect(Array.from(got.offsets)).toEqual([0, 4, 6]);
    expect(Array.from(got.ids)).toEqual([metricId('a'), metricId('b')]);
    expect(Array.from(into.timestamps)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, -7n, -7n]);
    expect(Array.from(into.values)).toEqual([1, 2, 3, 4, Infinity, -1e-310, 42, 42]);
    using next = NumericBlob.from(small());
    const again = next.decodeAllInto(got);
    expect(again.values.buffer).toBe(into.values.buffer);
    expect(bitsOf(again.values)).toEqual(bitsOf(new Float64Array([0.5, -0, NaN])));
    expect(Array.from(into.timestamps.subarray(0, 4))).toEqual([1n, 2n, 3n, 4n]); // 4th point of the larger blob stays
    // The previous result's ids and offsets are reused too: the larger blob's are overwritten in place.
    expect(again.ids.buffer).toBe(got.ids.buffer);
    expect(again.offsets.buffer).toBe(got.offsets.buffer);
    expect(Array.from(again.ids)).toEqual([metricId('c')]);
    expect(Array.from(got.ids)).toEqual([metricId('c'), metricId('b')]);
    expect(Array.from(again.offsets)).toEqual([0, 3]);
    expect(Array.from(got.offsets)).toEqual([0, 3, 6]);
  });

  it('fills ids and offsets it is given, the first elements of longer ones, the arrays themselves of exact ones', () => {
    using blob = NumericBlob.from(large());
    const ids = new BigUint64Array(5).fill(9n);
    const offsets = new Uint32Array(3).fill(9);
    const got = blob.decodeAllInto({ timestamps: new BigInt64Array(6), values: new Float64Array(6), ids, offsets });
    expect(got.offsets).toBe(offsets);
    expect(Array.from(offsets)).toEqual([0, 4, 6]);
    expect(got.ids.buffer).toBe(ids.buffer);
    expect(Array.from(ids)).toEqual([metricId('a'), metricId('b'), 9n, 9n, 9n]);
    expect(got).toEqual(blob.decodeAll());
    const short = blob.decodeAllInto({ timestamps: new BigInt64Array(6), values: new Float64Array(6), ids: new BigUint64Array(1), offsets: new Uint32Array(2) });
    expect(Array.from(short.ids)).toEqual([metricId('a'), metricId('b')]);
    expect(Array.from(short.offsets)).toEqual([0, 4, 6]);
  });

  it('allocates when the arrays are too short, and refuses anything but typed arrays', () => {
    using blob = NumericBlob.from(large());
    const tooShort = { timestamps: new BigInt64Array(5), values: new Float64Array(5) };
    const got = blob.decodeAllInto(tooShort);
    expect(got.values.buffer).not.toBe(tooShort.values.buffer);
    expect(got).toEqual(blob.decodeAll());
    const arrays = { timestamps: new BigInt64Array(6), values: new Float64Array(6) };
    for (const bad of [undefined, {}, { timestamps: new Float64Array(6), values: new Float64Array(6) }, { timestamps: new BigInt64Array(6), values: [1, 2] }, { ...arrays, ids: new BigInt64Array(2) }, { ...arrays, offsets: [0, 4, 6] }]) {
      expect(() => blob.decodeAllInto(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});

describe('NumericEncoder', () => {
  it('keeps its metrics after finish: more may follow and the blob be finished again', () => {
    using encoder = new NumericEncoder(0n, 'delta-none-gorilla-none');
    encoder.startMetric('a', 1).addPoint(1n, 1.5).endMetric();
    using first = NumericBlob.from(encoder.finish());
    expect(first.length).toBe(1);
    encoder.startMetric('b', 1).addPoint(2n, 2.5).endMetric();
    using second = NumericBlob.from(encoder.finish());
    expect(second.length).toBe(2);
    expect(Array.from(second.metric('b').values)).toEqual([2.5]);
  });

  it('builds a blob point by point and from arrays, by config string with overrides', () => {
    using encoder = new NumericEncoder(1_700_000_000_000_000n, { config: 'deltapacked-zstd-alp-lz4', layout: 'v2-shared', tags: true });
    encoder.startMetric('cpu', 3).addPoint(1n, 0.5, 'a').addPoint(2n, -0, 'b').addPoint(3n, NaN).endMetric();
    encoder.startMetric('mem', 3).addPoints([1n, 2n, 3n], [1, 2, 3], ['x', 'y', 'z']).endMetric();
    expect(encoder.metricCount).toBe(2);
    using blob = NumericBlob.from(encoder.finish());
    expect(blob.options).toMatchObject({
      timestampEncoding: 'deltapacked',
      timestampCompression: 'zstd',
      valueEncoding: 'alp',
      valueCompression: 'lz4',
      layout: 'v2-shared',
      tags: true,
    });
    const cpu = blob.metric('cpu');
    expect(Array.from(cpu.timestamps)).toEqual([1n, 2n, 3n]);
    expect(Object.is(cpu.values[1], -0)).toBe(true);
    expect(cpu.values[2]).toBeNaN();
    expect(cpu.tags).toEqual(['a', 'b', '']);
    expect(blob.metric('mem').tags).toEqual(['x', 'y', 'z']);
  });

  it('encodeNumeric starts at the earliest first timestamp and takes ids', () => {
    const bytes = encodeNumeric([
      { id: 7n, timestamps: [50n, 60n], values: [1, 2] },
      { id: 2n ** 64n - 1n, timestamps: new BigInt64Array([-5n]), values: new Float64Array([3]) },
    ]);
    using blob = NumericBlob.from(bytes);
    expect(blob.startTime).toBe(-5n);
    expect(blob.options).toMatchObject({ timestampEncoding: 'delta', valueEncoding: 'gorilla', layout: 'v1' });
    expect(Array.from(blob.values(2n ** 64n - 1n))).toEqual([3]);
    expect(blob.metric(7n).name).toBeUndefined();
  });
});

describe('TextBlob and TextBlobEncoder', () => {
  const c = cases.find((x) => x.kind === 'text' && x.dataset === 'status1-tagged' && x.options.timestampEncoding === 'delta')!;
  const input = readInput(c);

  it('decodes names, values, tags and points', () => {
    using blob = TextBlob.from(readBlob(c));
    expect(blob.options.metricNames).toBe(true);
    expect(blob.names).toEqual(input.metrics.map((m) => m.name));
    for (const m of input.metrics) {
      expect(blob.values(m.name!)).toEqual(m.texts);
      const last = m.texts.length - 1;
      expect(blob.valueAt(m.name!, last)).toBe(m.texts[last]);
      expect(blob.timestampAt(m.name!, last)).toBe(m.timestamps[last]);
      expect(blob.tagAt(m.name!, 0)).toBe(m.tags![0]);
      expect(Array.from(blob.timestampsMs(m.name!))).toEqual(Array.from(m.timestamps, (t) => Number(t) / 1000));
    }
  });

  it('round-trips non-ASCII and empty strings through both encoders', () => {
    const values = ['', 'OK', 'température élevée', '温度过高', '😀 emoji', 'x'.repeat(255)];
    const timestamps = values.map((_, i) => BigInt(i) * 1_000_000n);
    const bytes = encodeText([{ name: 'status', timestamps, values, tags: values.slice().reverse() }], { tags: true, timestampEncoding: 'delta' });
    using blob = TextBlob.from(bytes);
    expect(blob.metric('status')).toMatchObject({ values, tags: values.slice().reverse() });
    expect(blob.decodeAll().values).toEqual(values);
    using encoder = new TextBlobEncoder(0n, { dataCompression: 's2', bigEndian: true });
    encoder.startMetric(42n, 2).addPoint(1n, 'é').addPoint(-1n, '').endMetric();
    using again = TextBlob.from(encoder.finish());
    expect(again.options).toMatchObject({ dataCompression: 's2', tags: false, bigEndian: true, byteOrder: 'big', metricNames: false });
    expect(again.metric(42n)).toEqual({ id: 42n, timestamps: new BigInt64Array([1n, -1n]), values: ['é', ''] });
  });
});
