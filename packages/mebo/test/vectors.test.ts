// Every conformance vector through the SDK: decode exactly; encode byte for
// byte where no codec is involved, round trip where one is.

import { beforeAll, describe, expect, it } from 'vitest';
import { encodeNumeric, encodeText, init, NumericBlob, TextBlob, type NumericColumns } from '../src/entries/index.js';
import {
  bitsOf,
  manifest,
  numericMetricsOf,
  numericOptionsOf,
  numericTagOffset,
  readBlob,
  readInput,
  textMetricsOf,
  textOptionsOf,
  type Input,
} from './helpers/vectors.js';
import { expectSame, expectTags } from './helpers/expect.js';

const cases = manifest();
const numericCases = cases.filter((c) => c.kind === 'numeric');
const textCases = cases.filter((c) => c.kind === 'text');

beforeAll(() => init());

/** Columns reused from vector to vector by `decodeAllInto`. */
let reused: NumericColumns = { ids: new BigUint64Array(0), offsets: new Uint32Array(0), timestamps: new BigInt64Array(0), values: new Float64Array(0) };

/** Check a decoded numeric blob against its input, per metric and through decodeAll. */
function expectNumericDecodes(blob: NumericBlob, input: Input, label: string): void {
  expect(blob.startTime, label).toBe(input.startTime);
  expect(blob.length, label).toBe(input.metrics.length);
  const columns = blob.decodeAll();
  expectSame(columns.ids, blob.metricIds, `${label}: decodeAll ids`);
  // The same columns through reused arrays, which keep the previous vector's
  // points, and start 3 elements into their buffers (raw columns are copied in as bytes).
  const room = columns.values.length * 2;
  reused = blob.decodeAllInto(reused.values.length >= columns.values.length ? reused : { timestamps: new BigInt64Array(new ArrayBuffer((room + 3) * 8), 24, room), values: new Float64Array(new ArrayBuffer((room + 3) * 8), 24, room).fill(NaN) });
  expectSame(reused.ids, columns.ids, `${label}: decodeAllInto ids`);
  expectSame(reused.offsets, columns.offsets, `${label}: decodeAllInto offsets`);
  expectSame(reused.timestamps, columns.timestamps, `${label}: decodeAllInto timestamps`);
  expectSame(bitsOf(reused.values), bitsOf(columns.values), `${label}: decodeAllInto value bits`);
  for (const m of input.metrics) {
    const what = `${label}: ${m.name ?? m.id.toString(16)}`;
    const metric = blob.metric(m.id);
    expect(metric.id).toBe(m.id);
    expectSame(metric.timestamps, m.timestamps, `${what} timestamps`);
    expectSame(bitsOf(metric.values), m.valueBits, `${what} value bits`);
    expectTags(metric.tags, m.tags, `${what} tags`);
    const i = blob.indexOf(m.id);
    if (m.name !== undefined) expect(blob.indexOf(m.name), `${what} lookup by name`).toBe(i);
    const [start, end] = [columns.offsets[i]!, columns.offsets[i + 1]!];
    expectSame(columns.timestamps.subarray(start, end), m.timestamps, `${what} decodeAll timestamps`);
    expectSame(bitsOf(columns.values.subarray(start, end)), m.valueBits, `${what} decodeAll value bits`);
  }
}

function expectTextDecodes(blob: TextBlob, input: Input, label: string): void {
  expect(blob.startTime, label).toBe(input.startTime);
  expect(blob.length, label).toBe(input.metrics.length);
  const columns = blob.decodeAll();
  const tagged = blob.options.tags;
  expect(columns.tags !== undefined, `${label}: decodeAll tags`).toBe(tagged);
  for (const m of input.metrics) {
    const what = `${label}: ${m.name ?? m.id.toString(16)}`;
    // Named text blobs may hold two names with one hash: look those up by name.
    const key = input.byName ? m.name! : m.id;
    const metric = blob.metric(key);
    expect(metric.id).toBe(m.id);
    expectSame(metric.timestamps, m.timestamps, `${what} timestamps`);
    expect(metric.values, `${what} values`).toEqual(m.texts);
    if (tagged) expect(metric.tags, `${what} tags`).toEqual(m.tags ?? m.texts.map(() => ''));
    else expect(metric.tags, `${what} tags`).toBeUndefined();
    const i = blob.indexOf(key);
    const [start, end] = [columns.offsets[i]!, columns.offsets[i + 1]!];
    expectSame(columns.timestamps.subarray(start, end), m.timestamps, `${what} decodeAll timestamps`);
    expect(columns.values.slice(start, end), `${what} decodeAll values`).toEqual(m.texts);
    if (columns.tags) expect(columns.tags.slice(start, end)).toEqual(metric.tags);
  }
}

describe('numeric vectors', () => {
  it('are all there', () => expect(numericCases.length).toBe(638));

  it.each(numericCases)('decode $name', (c) => {
    const blob = NumericBlob.from(readBlob(c));
    try {
      const o = blob.options;
      expect([o.timestampEncoding, o.valueEncoding, o.timestampCompression, o.valueCompression, o.bigEndian]).toEqual([
        c.options.timestampEncoding,
        c.options.valueEncoding,
        c.options.timestampCompression,
        c.options.valueCompression,
        c.options.bigEndian,
      ]);
      expectNumericDecodes(blob, readInput(c), c.name);
    } finally {
      blob.free();
    }
  });

  it.each(numericCases)('encode $name', (c) => {
    const input = readInput(c);
    const ours = encodeNumeric(numericMetricsOf(input), numericOptionsOf(c));
    const theirs = readBlob(c);
    const o = c.options;
    const codecFree = o.timestampCompression === 'none' && o.valueCompression === 'none';
    const theirTags = (theirs[0]! & 0x1) !== 0;
    if (codecFree && !theirTags) {
      expectSame(ours, theirs, `${c.name}: bytes`);
      return;
    }
    if (codecFree) {
      // The tag payload is always zstd, and our zstd frame differs from the
      // reference's: compare every byte before it, then the decoded data.
      const split = numericTagOffset(theirs);
      expectSame(ours.subarray(0, 2), theirs.subarray(0, 2), `${c.name}: flags`);
      expectSame(ours.subarray(4, split), theirs.subarray(4, split), `${c.name}: bytes before the tag payload`);
    }
    using blob = NumericBlob.from(ours);
    expectNumericDecodes(blob, input, `${c.name} (ours)`);
  });
});

describe('text vectors', () => {
  it('are all there', () => expect(textCases.length).toBe(40));

  it.each(textCases)('decode $name', (c) => {
    using blob = TextBlob.from(readBlob(c));
    const o = blob.options;
    expect([o.timestampEncoding, o.dataCompression, o.tags, o.bigEndian]).toEqual([
      c.options.timestampEncoding,
      c.options.dataCompression,
      c.options.tags,
      c.options.bigEndian,
    ]);
    expectTextDecodes(blob, readInput(c), c.name);
  });

  it.each(textCases)('encode $name', (c) => {
    const input = readInput(c);
    const ours = encodeText(textMetricsOf(input), textOptionsOf(c));
    if (c.options.dataCompression === 'none') {
      expectSame(ours, readBlob(c), `${c.name}: bytes`);
      return;
    }
    using blob = TextBlob.from(ours);
    expectTextDecodes(blob, input, `${c.name} (ours)`);
  });
});
