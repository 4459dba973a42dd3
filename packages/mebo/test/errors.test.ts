// Error paths: every failure is a MeboError with the core's code (never a
// wasm RuntimeError), and the module keeps working after it.

import { beforeAll, describe, expect, it } from 'vitest';
import { alignedSeries, encodeNumeric, encodeText, init, MeboError, NumericBlob, NumericBlobSet, NumericEncoder, TextBlob, TextBlobEncoder, TextBlobSet, type MeboErrorCode } from '../src/entries/index.js';
import { bitsOf, firstDifference, manifest, readBlob, readInput, type Case } from './helpers/vectors.js';

beforeAll(() => init());

const cases = manifest();
const byName = (name: string): Case => cases.find((c) => c.name === name)!;
const numericCase = byName('num-gauge1-delta-none-gorilla-none-notags-le-v1');
const textCase = cases.find((c) => c.kind === 'text' && c.options.dataCompression === 'zstd' && c.options.tags)!;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function expectCode(fn: () => unknown, code: MeboErrorCode): MeboError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(MeboError);
  expect((error as MeboError).code, (error as Error).message).toBe(code);
  expect((error as Error).message.length).toBeGreaterThan(0);
  return error as MeboError;
}

/** A good blob still decodes exactly: the module is usable. */
function expectStillWorks(): void {
  using blob = NumericBlob.from(readBlob(numericCase));
  const input = readInput(numericCase);
  const metric = blob.metric(input.metrics[0]!.id);
  expect(firstDifference(bitsOf(metric.values), input.metrics[0]!.valueBits)).toBe(-1);
}

describe('malformed blobs', () => {
  const good = readBlob(numericCase);

  it('empty and short inputs are TRUNCATED', () => {
    for (const n of [0, 1, 2, 10, 31]) {
      expectCode(() => NumericBlob.from(good.subarray(0, n)), 'TRUNCATED');
      expectCode(() => TextBlob.from(readBlob(textCase).subarray(0, n)), 'TRUNCATED');
    }
    expectStillWorks();
  });

  it('a wrong magic is BAD_MAGIC, a text blob opened as numeric too', () => {
    const bad = good.slice();
    bad[1] = 0x00;
    const error = expectCode(() => NumericBlob.from(bad), 'BAD_MAGIC');
    expect(error.message).toMatch(/magic/);
    expectCode(() => NumericBlob.from(readBlob(textCase)), 'BAD_MAGIC');
    expectCode(() => TextBlob.from(good), 'BAD_MAGIC');
    expectStillWorks();
  });

  it('unknown encoding and codec nibbles have their own codes', () => {
    const encoding = good.slice();
    encoding[2] = 0x00;
    expectCode(() => NumericBlob.from(encoding), 'UNKNOWN_ENCODING');
    const codec = good.slice();
    codec[3] = 0xff;
    expectCode(() => NumericBlob.from(codec), 'UNKNOWN_COMPRESSION');
    expectStillWorks();
  });

  it('every truncation of a blob fails with a MeboError', () => {
    const compressed = cases.find(
      (c) => c.kind === 'numeric' && c.options.timestampCompression === 'zstd' && c.options.valueEncoding === 'chimp' && c.options.valueCompression === 's2',
    )!;
    for (const c of [numericCase, compressed, textCase]) {
      const bytes = readBlob(c);
      const open = c.kind === 'numeric' ? NumericBlob.from : TextBlob.from;
      for (let n = 0; n < bytes.length; n += Math.max(1, Math.floor(bytes.length / 300))) {
        const error = thrown(() => {
          const blob = open(bytes.subarray(0, n));
          try {
            blob.decodeAll();
          } finally {
            blob.free();
          }
        });
        expect(error, `${c.name} cut at ${n}`).toBeInstanceOf(MeboError);
      }
    }
    expectStillWorks();
  });

  it('bit flips decode or fail with a MeboError, never trap', () => {
    // One blob per encoding and codec family, flipped at pseudo-random bits.
    const flipCases = cases.filter(
      (c) =>
        c.dataset === 'gauge1-tagged' ||
        c.dataset === 'status1-tagged' ||
        (c.dataset === 'special' && c.options.layout === 'v2-shared'),
    );
    let seed = 0x2545f491;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    let failures = 0;
    for (const c of flipCases) {
      const bytes = readBlob(c);
      for (let k = 0; k < 20; k++) {
        const bad = bytes.slice();
        const bit = Math.floor(random() * bad.length * 8);
        bad[bit >> 3]! ^= 1 << (bit & 7);
        try {
          const blob = c.kind === 'numeric' ? NumericBlob.from(bad) : TextBlob.from(bad);
          try {
            blob.decodeAll();
            for (const id of blob.metricIds) {
              blob.metric(id);
              blob.timestampAt(id, 0);
              blob.tagAt(id, 0);
            }
          } finally {
            blob.free();
          }
        } catch (error) {
          expect(error, `${c.name} bit ${bit}: ${String(error)}`).toBeInstanceOf(MeboError);
          expect((error as MeboError).code).not.toBe('INTERNAL');
          failures++;
        }
      }
    }
    expect(failures).toBeGreaterThan(0);
    expectStillWorks();
  });

  it('decode limits are enforced: SIZE_CAP', () => {
    expectCode(() => NumericBlob.from(good, { maxPoints: 10 }), 'SIZE_CAP');
    const compressed = readBlob(byName('num-gauge1-delta-zstd-gorilla-zstd-notags-le-v1'));
    expectCode(() => NumericBlob.from(compressed, { maxDecompressedBytes: 64 }), 'SIZE_CAP');
    expectCode(() => TextBlob.from(readBlob(textCase), { maxPoints: 1 }), 'SIZE_CAP');
    expectCode(() => NumericBlob.from(good, { maxPoints: -1 }), 'INVALID_ARGUMENT');
    expectCode(() => NumericBlob.from(good, { maxDecompressedBytes: 1.5 }), 'INVALID_ARGUMENT');
    using blob = NumericBlob.from(good, { maxPoints: 12 * 60, maxDecompressedBytes: 2 ** 40 });
    expect(blob.totalPoints).toBe(12 * 60);
  });
});

describe('lookups and arguments', () => {
  it('reports missing metrics and points', () => {
    using blob = NumericBlob.from(readBlob(numericCase));
    const id = blob.metricIds[0]!;
    expectCode(() => blob.metric(12345n), 'METRIC_NOT_FOUND');
    expectCode(() => blob.metric('no.such.metric'), 'METRIC_NOT_FOUND');
    expectCode(() => blob.valueAt(id, 60), 'INDEX_OUT_OF_RANGE');
    expectCode(() => blob.metric(-1n), 'INVALID_ARGUMENT');
    expectCode(() => blob.metric(2n ** 64n), 'INVALID_ARGUMENT');
    expectCode(() => blob.metric(5 as never), 'INVALID_ARGUMENT');
    expectCode(() => blob.valueAt(id, -1), 'INVALID_ARGUMENT');
    expectCode(() => blob.valueAt(id, 0.5), 'INVALID_ARGUMENT');
    expectCode(() => NumericBlob.from('not bytes' as never), 'INVALID_ARGUMENT');
    expect(blob.has(id)).toBe(true);
    expect(blob.has(12345n)).toBe(false);
  });

  it('a freed object says FREED; free is idempotent', () => {
    const blob = NumericBlob.from(readBlob(numericCase));
    const id = blob.metricIds[0]!;
    blob.free();
    blob.free();
    expect(blob.freed).toBe(true);
    expectCode(() => blob.metric(id), 'FREED');
    expectCode(() => blob.length, 'FREED');
    const text = TextBlob.from(readBlob(textCase));
    text[Symbol.dispose]();
    expectCode(() => text.decodeAll(), 'FREED');
  });
});

describe('encoder misuse', () => {
  it('numeric: each refused call has its code and the encoder goes on', () => {
    using encoder = new NumericEncoder(0n, 'delta-none-gorilla-none');
    expectCode(() => encoder.addPoint(1n, 1), 'ENCODER_STATE');
    expectCode(() => encoder.endMetric(), 'ENCODER_STATE');
    expectCode(() => encoder.finish(), 'ENCODER_STATE');
    using next = new NumericEncoder(0n, { layout: 'v2' });
    expectCode(() => next.startMetric('a', 0), 'LIMIT_EXCEEDED');
    next.startMetric('a', 2);
    expectCode(() => next.startMetric('b', 2), 'ENCODER_STATE');
    next.addPoint(1n, 1.5);
    expectCode(() => next.addPoint(2 as never, 2), 'INVALID_ARGUMENT');
    expectCode(() => next.addPoints(new BigInt64Array(2), new Float64Array(2)), 'LIMIT_EXCEEDED');
    expectCode(() => next.addPoints(new BigInt64Array(1), new Float64Array(2)), 'COUNT_MISMATCH');
    next.addPoint(2n, 2.5).endMetric();
    expectCode(() => next.startMetric('a', 1), 'DUPLICATE_METRIC');
    expectCode(() => next.startMetric(7n, 1), 'ENCODER_STATE'); // ids and names cannot mix
    const bytes = next.finish();
    expect(next.finish()).toEqual(bytes); // finishing leaves the encoder as it was
    using blob = NumericBlob.from(bytes);
    expect(Array.from(blob.values('a'))).toEqual([1.5, 2.5]);
  });

  it('numeric: invalid options are INVALID_OPTIONS or INVALID_ARGUMENT', () => {
    expectCode(() => new NumericEncoder(0n, 'delta-none-gorilla'), 'INVALID_OPTIONS');
    expectCode(() => new NumericEncoder(0n, { valueEncoding: 'brotli' as never }), 'INVALID_OPTIONS');
    expectCode(() => new NumericEncoder(0n, { layout: 'v3' as never }), 'INVALID_OPTIONS');
    expectCode(() => new NumericEncoder(0n, { tags: 'yes' as never }), 'INVALID_ARGUMENT');
    expectCode(() => new NumericEncoder(0 as never), 'INVALID_ARGUMENT');
  });

  it('text: limits and states', () => {
    expectCode(() => new TextBlobEncoder(0n, { timestampEncoding: 'deltapacked' as never }), 'INVALID_OPTIONS');
    using encoder = new TextBlobEncoder(0n, { tags: true });
    encoder.startMetric('status', 2);
    expectCode(() => encoder.addPoint(1n, 'x'.repeat(256)), 'LIMIT_EXCEEDED');
    expectCode(() => encoder.endMetric(), 'COUNT_MISMATCH');
    encoder.addPoints([1n, 2n], ['up', 'down'], ['a', 'b']).endMetric();
    encoder.startMetric('dropped', 1).cancelMetric();
    expect(encoder.metricCount).toBe(1);
    using blob = TextBlob.from(encoder.finish());
    expect(blob.metric('status')).toMatchObject({ values: ['up', 'down'], tags: ['a', 'b'] });
    expect(blob.has('dropped')).toBe(false);
  });
});

// The boundary fuzz's findings (fuzz/FINDINGS.md 7-11), one regression each.
describe('arguments the boundary fuzz found unchecked', () => {
  const detached = () => {
    const bytes = readBlob(numericCase).slice();
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    return bytes;
  };

  it('7: blobs and sets are not constructed directly from JavaScript', () => {
    for (const C of [NumericBlob, TextBlob, NumericBlobSet, TextBlobSet]) {
      expect(expectCode(() => new (C as unknown as new (x: unknown) => unknown)(42), 'INVALID_ARGUMENT').message).toMatch(/from\(/);
    }
  });

  it('8: null options and limits read as absent', () => {
    using blob = NumericBlob.from(readBlob(numericCase), null as never);
    expect(blob.totalPoints).toBeGreaterThan(0);
    const metrics = readInput(numericCase).metrics.map((m) => ({ id: m.id, timestamps: m.timestamps, values: m.values }));
    expect(encodeNumeric(metrics, null as never).length).toBeGreaterThan(0);
    new NumericEncoder(0n, null as never).free();
    expectCode(() => NumericBlob.from(readBlob(numericCase), 7 as never), 'INVALID_ARGUMENT');
  });

  it('9: non-iterable sets and metrics, and non-object metrics, are INVALID_ARGUMENT', () => {
    expectCode(() => NumericBlobSet.from(42 as never), 'INVALID_ARGUMENT');
    expectCode(() => encodeNumeric('x' as never), 'INVALID_ARGUMENT');
    expectCode(() => encodeText([null] as never), 'INVALID_ARGUMENT');
    expectCode(() => alignedSeries(undefined as never, []), 'INVALID_ARGUMENT');
  });

  it('10: a detached buffer reads as empty', () => {
    expectCode(() => NumericBlobSet.from([detached()]), 'TRUNCATED');
    expectCode(() => NumericBlob.from(detached()), 'TRUNCATED');
  });

  it('11: an argument that cannot be printed still gets its message', () => {
    using blob = NumericBlob.from(readBlob(numericCase));
    const id = blob.metricIds[0]!;
    const gone = new Float64Array(4);
    structuredClone(gone.buffer, { transfer: [gone.buffer] });
    expect(expectCode(() => blob.range(id, gone as never, 0n), 'INVALID_ARGUMENT').message).toMatch(/Float64Array/);
    expectCode(() => blob.range(id, Symbol('s') as never, 0n), 'INVALID_ARGUMENT');
  });
});
