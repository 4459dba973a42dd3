// Blob sets through the SDK: the four-window vectors, handed over out of
// order, read as one series per metric equal to the windows' inputs concatenated.

import { beforeAll, describe, expect, it } from 'vitest';
import { MeboError, NumericBlobSet, TextBlobSet, init } from '../src/entries/index.js';
import { bitsOf, manifest, readBlob, readInput, type Case } from './helpers/vectors.js';

beforeAll(async () => {
  await init();
});

function windows(prefix: string): Case[] {
  return [0, 1, 2, 3].map((w) => {
    const c = manifest().find((m) => m.name.startsWith(`${prefix}-w${w}-`));
    if (c === undefined) throw new Error(`no vector ${prefix}-w${w}`);
    return c;
  });
}

/** Each metric's points over the windows, in window order. */
function expected(cases: Case[]) {
  const series = new Map<bigint, { timestamps: bigint[]; bits: bigint[]; texts: string[]; name?: string }>();
  for (const c of cases) {
    for (const m of readInput(c).metrics) {
      const s = series.get(m.id) ?? { timestamps: [], bits: [], texts: [], name: m.name };
      s.timestamps.push(...m.timestamps);
      s.bits.push(...bitsOf(m.values));
      s.texts.push(...m.texts);
      series.set(m.id, s);
    }
  }
  return new Map([...series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe('blob sets', () => {
  it('numeric: materializes every metric over the four windows', () => {
    const cases = windows('num-set1');
    const want = expected(cases);
    using set = NumericBlobSet.from(cases.map(readBlob).reverse());
    expect(set.length).toBe(4);
    expect(set.timeRange[0] < set.timeRange[1]).toBe(true);
    expect(Array.from(set.metricIds)).toEqual([...want.keys()]);
    const columns = set.materialize();
    let i = 0;
    for (const [id, s] of want) {
      const m = set.materializeMetric(id);
      expect(Array.from(m.timestamps)).toEqual(s.timestamps);
      expect(Array.from(bitsOf(m.values))).toEqual(s.bits);
      if (s.name !== undefined) expect(set.metricLength(s.name)).toBe(s.timestamps.length);
      expect(set.metricDuration(id)).toBe(s.timestamps[s.timestamps.length - 1] - s.timestamps[0]);
      const range = [columns.offsets[i], columns.offsets[i + 1]];
      expect(Array.from(columns.timestamps.subarray(range[0], range[1]))).toEqual(s.timestamps);
      i++;
    }
    // One metric is missing from window 2.
    const lengths = [...want.values()].map((s) => s.timestamps.length);
    expect(Math.min(...lengths)).toBeLessThan(Math.max(...lengths));
    expect(() => set.materializeMetric(12345n)).toThrow(MeboError);
  });

  it('text: materializes every metric over the four windows', () => {
    const cases = windows('txt-tset1');
    const want = expected(cases);
    using set = TextBlobSet.from(cases.map(readBlob).reverse());
    const columns = set.materialize();
    let i = 0;
    for (const [id, s] of want) {
      const m = set.materializeMetric(id);
      expect(Array.from(m.timestamps)).toEqual(s.timestamps);
      expect(m.values).toEqual(s.texts);
      expect(columns.values.slice(columns.offsets[i], columns.offsets[i + 1])).toEqual(s.texts);
      i++;
    }
  });

  it('refuses an empty set and a corrupt member with MeboError', () => {
    expect(() => NumericBlobSet.from([])).toThrow(MeboError);
    const good = readBlob(windows('num-set1')[0]);
    try {
      NumericBlobSet.from([good, good.subarray(0, 40)]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(MeboError);
      expect((e as MeboError).code).toBe('OFFSET_OUT_OF_RANGE'); // its header's payload offsets point past 40 bytes
    }
  });
});
