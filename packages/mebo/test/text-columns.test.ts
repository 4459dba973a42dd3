// Text columns as dictionary vectors: every text vector's decodeAll gives
// each distinct value (and tag) once, in order of first appearance, and codes
// that pick each point's input string; decodeAllInto writes the same into
// arrays kept from the previous call.

import { beforeAll, describe, expect, it } from 'vitest';
import { MeboError, TextBlob, TextBlobSet, init, type TextColumns } from '../src/entries/index.js';
import { manifest, readBlob, readInput, type Case, type Input } from './helpers/vectors.js';

beforeAll(async () => {
  await init();
});

const textCases = manifest().filter((c) => c.kind === 'text');

/** Per point, in the blob's metric order, the input's values and tags. */
function expectedPoints(columns: TextColumns, input: Input) {
  const byId = new Map(input.metrics.map((m) => [m.id, m]));
  const values: string[] = [];
  const tags: string[] = [];
  for (const id of columns.ids) {
    const m = byId.get(id)!;
    values.push(...m.texts);
    tags.push(...(m.tags ?? m.texts.map(() => '')));
  }
  return { values, tags };
}

/** A dictionary vector holds the expected strings: distinct entries, first-appearance order, right codes. */
function expectDictionary(dictionary: string[], codes: Uint32Array, expected: string[], what: string) {
  expect(codes.length, what).toBe(expected.length);
  expect(new Set(dictionary).size, `${what}: distinct entries`).toBe(dictionary.length);
  const firstSeen: string[] = [];
  for (const s of expected) if (!firstSeen.includes(s)) firstSeen.push(s);
  expect(dictionary, `${what}: first-appearance order`).toEqual(firstSeen);
  expected.forEach((s, i) => {
    if (dictionary[codes[i]] !== s) expect(dictionary[codes[i]], `${what} point ${i}`).toBe(s);
  });
}

/** Vectors whose metric ids are unique (named blobs may hold two names with one hash). */
const uniqueIds = (c: Case) => new Set(readInput(c).metrics.map((m) => m.id)).size === readInput(c).metrics.length;

describe('text columns as dictionaries', () => {
  it('every text vector: one entry per distinct value and tag, codes pick each point', () => {
    const checked = textCases.filter(uniqueIds);
    expect(checked.length).toBeGreaterThan(30);
    for (const c of checked) {
      using blob = TextBlob.from(readBlob(c));
      const columns = blob.decodeAll();
      const want = expectedPoints(columns, readInput(c));
      expectDictionary(columns.dictionary, columns.codes, want.values, `${c.name} values`);
      expect(columns.values, c.name).toEqual(want.values);
      if (blob.options.tags) {
        expectDictionary(columns.tagDictionary!, columns.tagCodes!, want.tags, `${c.name} tags`);
        expect(columns.tags, c.name).toEqual(want.tags);
      } else {
        expect(columns.tagDictionary ?? columns.tagCodes ?? columns.tags, c.name).toBeUndefined();
      }
    }
  });

  it('a status column repeats few values: the dictionary stays small', () => {
    const c = manifest().find((x) => x.name.startsWith('txt-status1-tagged-delta-zstd'))!;
    using blob = TextBlob.from(readBlob(c));
    const columns = blob.decodeAll();
    expect(columns.dictionary.length).toBeLessThan(columns.codes.length / 2);
  });

  it('decodeAllInto fills the arrays it is given and equals decodeAll', () => {
    const tagged = textCases.filter((c) => c.options.tags && uniqueIds(c));
    let kept: TextColumns | undefined;
    for (const c of tagged) {
      using blob = TextBlob.from(readBlob(c));
      const fresh = blob.decodeAll();
      const room = { timestamps: new BigInt64Array(4096), codes: new Uint32Array(4096).fill(7), tagCodes: new Uint32Array(4096) };
      const into = blob.decodeAllInto(kept && kept.codes.length >= fresh.codes.length ? kept : room);
      expect(Array.from(into.timestamps)).toEqual(Array.from(fresh.timestamps));
      expect(Array.from(into.codes)).toEqual(Array.from(fresh.codes));
      expect(Array.from(into.tagCodes!)).toEqual(Array.from(fresh.tagCodes!));
      expect(into.dictionary).toEqual(fresh.dictionary);
      expect(into.values).toEqual(fresh.values);
      expect(into.tags).toEqual(fresh.tags);
      if (fresh.codes.length <= 4096) {
        expect(into.codes.buffer).toBe((kept && kept.codes.length >= fresh.codes.length ? kept : room).codes.buffer);
      }
      kept = into;
    }
    expect(tagged.length).toBeGreaterThan(5);
  });

  it('decodeAllInto refuses what is not arrays of the right kind', () => {
    using blob = TextBlob.from(readBlob(textCases[0]));
    for (const bad of [undefined, {}, { timestamps: new BigInt64Array(1) }, { timestamps: new Float64Array(1), codes: new Uint32Array(1) }, { timestamps: new BigInt64Array(1), codes: new Int32Array(1) }, { timestamps: new BigInt64Array(1), codes: new Uint32Array(1), offsets: [0, 1] }]) {
      expect(() => blob.decodeAllInto(bad as never)).toThrow(MeboError);
    }
  });

  it('a set materializes to the same dictionary form', () => {
    const cases = [0, 1, 2, 3].map((w) => manifest().find((m) => m.name.startsWith(`txt-tset1-w${w}-`))!);
    using set = TextBlobSet.from(cases.map(readBlob));
    const columns = set.materialize();
    expect(new Set(columns.dictionary).size).toBe(columns.dictionary.length);
    columns.ids.forEach((id, i) => {
      expect(columns.values.slice(columns.offsets[i], columns.offsets[i + 1])).toEqual(set.materializeMetric(id).values);
    });
  });
});
