// mebo/arrow: every conformance vector to an Arrow table (read back through
// Arrow's own accessors, by bits), through Arrow IPC and back to a blob equal
// to the SDK's encode of the vector's input; blob sets; tables built by hand
// (interleaved metrics, slices, chunks, other timestamp units); the columns
// that share the decoded arrays; refusals; and the built entry.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeNumeric, encodeText, init, MeboError, metricId, NumericBlob, NumericBlobSet, TextBlob, TextBlobSet } from '../src/entries/index.js';
import { fromArrow, toArrow, type FromArrowOptions } from '../src/entries/arrow.js';
import { bitsOf, manifest, numericMetricsOf, numericOptionsOf, PACKAGE_ROOT, readBlob, readInput, textMetricsOf, textOptionsOf, VECTORS, type Case, type Input, type InputMetric } from './helpers/vectors.js';
import { expectSame, expectTags } from './helpers/expect.js';

beforeAll(() => init());

const cases = manifest();

type AnyTable = arrow.Table;

/** A column through Arrow's own accessor (all chunks): typed arrays for fixed-width columns, strings for string columns. */
function column<T>(table: AnyTable, name: string): T {
  const vector = table.getChild(name);
  if (vector === null) throw new Error(`no column ${name}`);
  return vector.toArray() as T;
}

/** The table's rows as metric runs: adjacent rows with the same name (when the table has names) or id. */
function runs(table: AnyTable): { id: bigint; name?: string; start: number; end: number }[] {
  const ids = column<BigUint64Array>(table, 'metric_id');
  const names = table.getChild('metric') === null ? undefined : column<string[]>(table, 'metric');
  const out: { id: bigint; name?: string; start: number; end: number }[] = [];
  for (let row = 0; row < ids.length; row++) {
    const last = out[out.length - 1];
    if (last !== undefined && last.id === ids[row] && last.name === names?.[row]) last.end = row + 1;
    else out.push({ id: ids[row]!, ...(names && { name: names[row]! }), start: row, end: row + 1 });
  }
  return out;
}

/** Assert a table holds exactly a blob's input: one run per metric, each run's rows equal to its input by bits. */
function expectTableIsInput(table: AnyTable, input: Input, c: { kind: 'numeric' | 'text'; tags: boolean; names: boolean }, what: string): void {
  const want = ['metric_id', ...(c.names ? ['metric'] : []), 'ts', 'value', ...(c.tags ? ['tag'] : [])];
  expect(table.schema.fields.map((f) => f.name), `${what}: columns`).toEqual(want);
  expect(String(table.schema.fields.find((f) => f.name === 'ts')!.type), what).toBe('Timestamp<MICROSECOND, UTC>');
  expect(table.schema.metadata.get('mebo.kind'), what).toBe(c.kind);
  const timestamps = column<BigInt64Array>(table, 'ts');
  const values = column<Float64Array | string[]>(table, 'value');
  const tags = c.tags ? column<string[]>(table, 'tag') : undefined;
  const metricRuns = runs(table);
  expect(metricRuns.length, `${what}: metrics`).toBe(input.metrics.length);
  const byKey = new Map<string | bigint, InputMetric>(input.metrics.map((m) => [c.names ? m.name! : m.id, m]));
  for (const run of metricRuns) {
    const m = byKey.get(c.names ? run.name! : run.id);
    const at = `${what}: ${run.name ?? run.id}`;
    expect(m, `${at} is an input metric`).toBeDefined();
    expect(run.id, at).toBe(m!.id);
    byKey.delete(c.names ? run.name! : run.id);
    expectSame(timestamps.subarray(run.start, run.end), m!.timestamps, `${at} timestamps`);
    if (c.kind === 'numeric') {
      expect(values, what).toBeInstanceOf(Float64Array);
      expectSame(bitsOf((values as Float64Array).subarray(run.start, run.end)), m!.valueBits, `${at} value bits`);
    } else {
      expect((values as string[]).slice(run.start, run.end), `${at} values`).toEqual(m!.texts);
    }
    if (tags) expect(tags.slice(run.start, run.end), `${at} tags`).toEqual(m!.tags ?? Array.from(m!.timestamps, () => ''));
  }
}

/** Assert two tables hold the same schema, metadata and columns, by bits. */
function expectSameTable(got: AnyTable, want: AnyTable, what: string): void {
  expect(got.numRows, what).toBe(want.numRows);
  expect(got.schema.fields.map(String), what).toEqual(want.schema.fields.map(String));
  expect([...got.schema.metadata], what).toEqual([...want.schema.metadata]);
  for (const field of want.schema.fields) {
    const [g, w] = [column<ArrayLike<unknown>>(got, field.name), column<ArrayLike<unknown>>(want, field.name)];
    if (w instanceof Float64Array) expectSame(bitsOf(g as Float64Array), bitsOf(w), `${what} ${field.name} bits`);
    else expectSame(g, w, `${what} ${field.name}`);
  }
}

/** Assert a blob decodes to an input: start time, and per metric timestamps, values by bits, tags. */
function expectBlobIsInput(bytes: Uint8Array, kind: 'numeric' | 'text', input: Input, what: string): void {
  if (kind === 'numeric') {
    using blob = NumericBlob.from(bytes);
    expect(blob.startTime, what).toBe(input.startTime);
    expect(blob.length, what).toBe(input.metrics.length);
    for (const m of input.metrics) {
      const metric = blob.metric(m.id);
      expectSame(metric.timestamps, m.timestamps, `${what} ${m.id} timestamps`);
      expectSame(bitsOf(metric.values), m.valueBits, `${what} ${m.id} value bits`);
      expectTags(metric.tags, m.tags, `${what} ${m.id} tags`);
    }
  } else {
    using blob = TextBlob.from(bytes);
    expect(blob.startTime, what).toBe(input.startTime);
    expect(blob.length, what).toBe(input.metrics.length);
    for (const m of input.metrics) {
      const metric = blob.metric(input.byName ? m.name! : m.id);
      expect(metric.id, what).toBe(m.id);
      expectSame(metric.timestamps, m.timestamps, `${what} ${m.id} timestamps`);
      expect(metric.values, `${what} ${m.id} values`).toEqual(m.texts);
      expectTags(metric.tags, m.tags, `${what} ${m.id} tags`);
    }
  }
}

/** A case's encoder options without the start time: fromArrow takes it from the table's metadata. */
function optionsOf(c: Case): FromArrowOptions {
  const { startTime: _startTime, ...options } = c.kind === 'numeric' ? numericOptionsOf(c) : textOptionsOf(c);
  return options;
}

describe('conformance vectors through Arrow and back', () => {
  it.each(cases)('$name', (c) => {
    const input = readInput(c);
    const bytes = readBlob(c);
    let table: AnyTable;
    if (c.kind === 'numeric') {
      using blob = NumericBlob.from(bytes);
      table = toArrow(blob);
      // A tag column when the blob has tags (the reference drops the flag when every tag is empty).
      expectTableIsInput(table, input, { kind: 'numeric', tags: blob.options.tags, names: blob.options.metricNames }, c.name);
    } else {
      using blob = TextBlob.from(bytes);
      table = toArrow(blob);
      // Text blobs written by name carry the names.
      expect(blob.options.metricNames, c.name).toBe(input.byName);
      expectTableIsInput(table, input, { kind: 'text', tags: blob.options.tags, names: input.byName }, c.name);
    }
    expect(table.schema.metadata.get('mebo.startTime'), c.name).toBe(String(input.startTime));

    // Arrow's two IPC formats, and the table read back equal by bits.
    const stream = arrow.tableFromIPC(arrow.tableToIPC(table, 'stream'));
    expectSameTable(stream, table, `${c.name} IPC stream`);
    expectSameTable(arrow.tableFromIPC(arrow.tableToIPC(table, 'file')), table, `${c.name} IPC file`);

    // Back to a blob: the bytes the SDK writes from the input itself, with the same options.
    const ours = fromArrow(stream, optionsOf(c));
    const direct = c.kind === 'numeric' ? encodeNumeric(numericMetricsOf(input), numericOptionsOf(c)) : encodeText(textMetricsOf(input), textOptionsOf(c));
    expectSame(ours, direct, `${c.name}: fromArrow bytes`);
    expectBlobIsInput(ours, c.kind, input, `${c.name} (fromArrow)`);
  });

  it('covers numeric and text, tags, names and ids, every layout and both byte orders', () => {
    expect(cases.length).toBe(678);
    const has = (f: (c: Case) => boolean) => cases.some(f);
    expect(has((c) => c.kind === 'text' && c.options.tags)).toBe(true);
    expect(has((c) => c.kind === 'text' && readInput(c).byName)).toBe(true);
    expect(has((c) => c.kind === 'text' && !readInput(c).byName)).toBe(true);
    expect(has((c) => c.kind === 'numeric' && c.options.tags)).toBe(true);
    expect(has((c) => c.kind === 'numeric' && !readInput(c).byName)).toBe(true);
    for (const layout of ['v1', 'v2', 'v2-shared']) expect(has((c) => c.options.layout === layout), layout).toBe(true);
    expect(has((c) => c.options.bigEndian)).toBe(true);
  });
});

/** The four windows of a set's vectors, in window order. */
function windows(prefix: string): Case[] {
  return [0, 1, 2, 3].map((w) => cases.find((m) => m.name.startsWith(`${prefix}-w${w}-`))!);
}

/**
 * Each metric's points over windows' inputs, ids ascending, as one input;
 * with `tagsOf`, each window's tags (empty strings where it gives none).
 */
function concatenated(inputs: Input[], tagsOf?: (window: number, m: InputMetric) => string[] | undefined): Input {
  const series = new Map<bigint, { timestamps: bigint[]; bits: bigint[]; texts: string[]; tags: string[] }>();
  inputs.forEach((input, w) => {
    for (const m of input.metrics) {
      const s = series.get(m.id) ?? { timestamps: [], bits: [], texts: [], tags: [] };
      s.timestamps.push(...m.timestamps);
      s.bits.push(...m.valueBits);
      s.texts.push(...m.texts);
      s.tags.push(...(tagsOf?.(w, m) ?? Array.from(m.timestamps, () => '')));
      series.set(m.id, s);
    }
  });
  const metrics = [...series]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, s]): InputMetric => {
      const valueBits = BigUint64Array.from(s.bits);
      const metric: InputMetric = { id, timestamps: BigInt64Array.from(s.timestamps), valueBits, values: new Float64Array(valueBits.buffer), texts: s.texts };
      if (tagsOf) metric.tags = s.tags;
      return metric;
    });
  return { startTime: inputs[0]!.startTime, byName: false, metrics };
}

describe('blob sets', () => {
  it('numeric: every metric over the four windows, ids ascending; back to one blob', () => {
    const cs = windows('num-set1');
    const want = concatenated(cs.map(readInput));
    using set = NumericBlobSet.from(cs.map(readBlob).reverse());
    const table = toArrow(set);
    expectTableIsInput(table, want, { kind: 'numeric', tags: false, names: false }, 'num-set1');
    expect(runs(table).map((r) => r.id)).toEqual([...set.metricIds]);
    expect(table.schema.metadata.get('mebo.startTime')).toBe(String(set.timeRange[0]));
    const bytes = fromArrow(arrow.tableFromIPC(arrow.tableToIPC(table)), { layout: 'v2' });
    expectBlobIsInput(bytes, 'numeric', want, 'num-set1 as one blob');
  });

  it('text: every metric over the four windows, values as a dictionary; back to one blob', () => {
    const cs = windows('txt-tset1');
    const want = concatenated(cs.map(readInput));
    using set = TextBlobSet.from(cs.map(readBlob).reverse());
    const table = toArrow(set);
    expectTableIsInput(table, want, { kind: 'text', tags: false, names: false }, 'txt-tset1');
    expect(String(table.getChild('value')!.type)).toBe('Dictionary<Uint32, Utf8>');
    const bytes = fromArrow(table, { timestampEncoding: 'delta' });
    expectBlobIsInput(bytes, 'text', want, 'txt-tset1 as one blob');
  });

  it('tags from one tagged window: the other windows give empty tags (numeric and text)', () => {
    const numeric = windows('num-set1').map(readInput);
    const text = windows('txt-tset1').map(readInput);
    const tagsOf = (w: number, m: InputMetric) => (w === 1 ? Array.from(m.timestamps, (t, i) => `w1 ${i} ${t % 7n}`) : undefined);
    const encodeWindow = (input: Input, w: number, kind: 'numeric' | 'text') => {
      const metrics = input.metrics.map((m) => ({ id: m.id, timestamps: m.timestamps, ...(w === 1 && { tags: tagsOf(w, m) }) }));
      return kind === 'numeric'
        ? encodeNumeric(metrics.map((m, i) => ({ ...m, values: input.metrics[i]!.values })), { startTime: input.startTime, tags: w === 1 })
        : encodeText(metrics.map((m, i) => ({ ...m, values: input.metrics[i]!.texts })), { startTime: input.startTime, tags: w === 1 });
    };
    {
      using set = NumericBlobSet.from(numeric.map((input, w) => encodeWindow(input, w, 'numeric')));
      const table = toArrow(set);
      const want = concatenated(numeric, tagsOf);
      expectTableIsInput(table, want, { kind: 'numeric', tags: true, names: false }, 'tagged numeric set');
      expect(new Set(column<string[]>(table, 'tag')).size).toBeGreaterThan(7);
      expectBlobIsInput(fromArrow(table, { layout: 'v2' }), 'numeric', want, 'tagged numeric set as one blob');
    }
    {
      using set = TextBlobSet.from(text.map((input, w) => encodeWindow(input, w, 'text')));
      const table = toArrow(set);
      const want = concatenated(text, tagsOf);
      expectTableIsInput(table, want, { kind: 'text', tags: true, names: false }, 'tagged text set');
      expectBlobIsInput(fromArrow(table), 'text', want, 'tagged text set as one blob');
    }
  });
});

describe('columns share the decoded arrays', () => {
  it('numeric blob: the value and timestamp columns are the Float64Array and BigInt64Array decodeAll returned', () => {
    const c = cases.find((m) => m.name === 'num-gauge1-delta-zstd-gorilla-s2-notags-le-v1')!;
    using blob = NumericBlob.from(readBlob(c));
    const decodeAll = vi.spyOn(blob, 'decodeAll');
    const table = toArrow(blob);
    expect(decodeAll).toHaveBeenCalledTimes(1);
    const decoded = decodeAll.mock.results[0]!.value as ReturnType<NumericBlob['decodeAll']>;
    const [value, timestamp] = [table.getChild('value')!, table.getChild('ts')!];
    expect(value.data.length).toBe(1);
    expect(value.data[0]!.values).toBe(decoded.values);
    expect(timestamp.data[0]!.values).toBe(decoded.timestamps);
    // One memory: a write to the decoded array is what the table reads.
    decoded.values[5] = 1234.5;
    expect(value.get(5)).toBe(1234.5);
    // The table outlives the blob (decodeAll's arrays are not wasm memory).
    blob.free();
    expect(table.getChild('value')!.get(5)).toBe(1234.5);
    expect(decoded.values.buffer.byteLength).toBe(decoded.values.length * 8);
  });

  it('text blob: the value and tag columns index the decode\'s own code arrays', () => {
    const c = cases.find((m) => m.name === 'txt-status1-tagged-delta-zstd-tags-be')!;
    using blob = TextBlob.from(readBlob(c));
    const decodeAll = vi.spyOn(blob, 'decodeAll');
    const table = toArrow(blob);
    const decoded = decodeAll.mock.results[0]!.value as ReturnType<TextBlob['decodeAll']>;
    const [value, tag] = [table.getChild('value')!.data[0]!, table.getChild('tag')!.data[0]!];
    expect(value.values).toBe(decoded.codes);
    expect(tag.values).toBe(decoded.tagCodes);
    expect(timestampData(table)).toBe(decoded.timestamps);
    expect(value.dictionary!.toArray()).toEqual(decoded.dictionary);
    expect(tag.dictionary!.toArray()).toEqual(decoded.tagDictionary);
  });
});

function timestampData(table: AnyTable): unknown {
  return table.getChild('ts')!.data[0]!.values;
}

/** A table from columns built by hand (plain utf8, no metadata), as another tool would hand one over. */
function handTable(columns: Record<string, arrow.Vector>): AnyTable {
  return new arrow.Table(columns);
}

const u64 = (values: bigint[]) => arrow.makeVector({ type: new arrow.Uint64(), data: BigUint64Array.from(values) });
const micros = (values: bigint[], type: arrow.Timestamp = new arrow.TimestampMicrosecond()) => arrow.makeVector({ type, data: BigInt64Array.from(values) });
const f64 = (values: Float64Array) => arrow.makeVector(values);
const utf8 = (values: string[]) => arrow.vectorFromArray(values, new arrow.Utf8());

/** A NaN with a payload, by its bits. */
const payloadNaN = new Float64Array(new BigUint64Array([0x7ff8_0000_dead_beefn]).buffer)[0]!;

describe('tables built elsewhere', () => {
  it('interleaved metrics (rows in time order): grouped by first appearance, each metric\'s rows in table order, NaN payloads kept', () => {
    const values = Float64Array.from([1, -0, payloadNaN, 4, Infinity, 5e-324]);
    const table = handTable({
      metric_id: u64([7n, 9n, 7n, 9n, 7n, 2n ** 64n - 1n]),
      ts: micros([10n, 11n, 12n, 13n, 14n, -15n]),
      value: f64(values),
    });
    using blob = NumericBlob.from(fromArrow(table, { layout: 'v1' }));
    expect([...blob.metricIds]).toEqual([7n, 9n, 2n ** 64n - 1n]);
    expect(blob.startTime).toBe(-15n); // no metadata: the earliest first timestamp
    const seven = blob.metric(7n);
    expect([...seven.timestamps]).toEqual([10n, 12n, 14n]);
    expect([...bitsOf(seven.values)]).toEqual([...bitsOf(Float64Array.of(values[0]!, values[2]!, values[4]!))]);
    expect(bitsOf(seven.values)[1]).toBe(0x7ff8_0000_dead_beefn);
    expect([...bitsOf(blob.metric(9n).values)]).toEqual([...bitsOf(Float64Array.of(-0, 4))]);
    expect([...blob.metric(2n ** 64n - 1n).timestamps]).toEqual([-15n]);
  });

  it('text by name from plain utf8 columns: ids are the names\' hashes, tags written when the column exists', () => {
    const table = handTable({
      metric: utf8(['door', 'door', 'fan', 'door']),
      ts: micros([1n, 2n, 3n, 4n]),
      value: utf8(['open', 'shut', 'off', 'ajar ✓']),
      tag: utf8(['a', '', 'b', 'é']),
    });
    using blob = TextBlob.from(fromArrow(table, { startTime: 0n }));
    expect(blob.options.tags).toBe(true);
    expect(blob.names).toEqual(['door', 'fan']);
    expect(blob.metric('door')).toEqual({ id: metricId('door'), name: 'door', timestamps: BigInt64Array.of(1n, 2n, 4n), values: ['open', 'shut', 'ajar ✓'], tags: ['a', '', 'é'] });
    expect(blob.metric('fan').values).toEqual(['off']);
    expect(blob.startTime).toBe(0n);
    // tags: false drops the tag column.
    using untagged = TextBlob.from(fromArrow(table, { tags: false }));
    expect(untagged.options.tags).toBe(false);
    expect(untagged.metric('door').tags).toBeUndefined();
  });

  it('text values of every string type Arrow builds: utf8, large utf8, utf8 view, dictionaries with signed indices', () => {
    const texts = ['ok', 'down', 'ok', '', 'ünïcode'];
    const types: arrow.DataType[] = [new arrow.Utf8(), new arrow.LargeUtf8(), new arrow.Utf8View(), new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), new arrow.Dictionary(new arrow.LargeUtf8(), new arrow.Int8())];
    for (const type of types) {
      const value = arrow.vectorFromArray(texts, type);
      expect(String(value.type), String(type)).toBe(String(type));
      const table = handTable({ metric_id: u64(texts.map(() => 3n)), ts: micros([1n, 2n, 3n, 4n, 5n]), value, tag: arrow.vectorFromArray(texts, type) });
      using blob = TextBlob.from(fromArrow(table));
      expect(blob.metric(3n).values, String(type)).toEqual(texts);
      expect(blob.metric(3n).tags, String(type)).toEqual(texts);
    }
  });

  it('numeric by name: the name column wins over ids (which must be the names\' ids)', () => {
    const table = handTable({
      metric_id: u64([metricId('cpu'), metricId('mem')]),
      metric: utf8(['cpu', 'mem']),
      ts: micros([5n, 6n]),
      value: f64(Float64Array.of(0.5, 0.25)),
    });
    using blob = NumericBlob.from(fromArrow(table, { layout: 'v2' }));
    expect(blob.options.layout).toBe('v2');
    expect(blob.metric('cpu').values[0]).toBe(0.5);
    expect(blob.metric('mem').values[0]).toBe(0.25);
  });

  it('slices and several record batches read as their rows', () => {
    const c = cases.find((m) => m.name === 'num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2')!;
    const input = readInput(c);
    using blob = NumericBlob.from(readBlob(c));
    const table = toArrow(blob);
    const metricRuns = runs(table);
    // Rows of metrics 1..3 as a slice, then as that slice in two batches cut mid-metric.
    const [start, end] = [metricRuns[1]!.start, metricRuns[3]!.end];
    const slice = table.slice(start, end);
    const cut = start + 17;
    const chunked = table.slice(start, cut).concat(table.slice(cut, end));
    expect(chunked.batches.length).toBe(2);
    for (const [what, t] of [['slice', slice], ['two batches', chunked]] as const) {
      using back = NumericBlob.from(fromArrow(t, { tags: true }));
      expect(back.length, what).toBe(3);
      for (const run of metricRuns.slice(1, 4)) {
        const m = input.metrics.find((x) => x.id === run.id)!;
        const metric = back.metric(run.id);
        expectSame(metric.timestamps, m.timestamps, `${what} ${run.id} timestamps`);
        expectSame(bitsOf(metric.values), m.valueBits, `${what} ${run.id} value bits`);
        expectTags(metric.tags, m.tags, `${what} ${run.id} tags`);
      }
    }
  });

  it('a table as DataFusion gives one over blobs: a metric and a tag column of nulls alone are no columns', () => {
    const nulls = (n: number) => arrow.vectorFromArray(new Array<string | null>(n).fill(null), new arrow.Utf8());
    const table = handTable({
      metric_id: u64([5n, 5n, 6n]),
      metric: nulls(3),
      ts: micros([1n, 2n, 3n]),
      value: f64(Float64Array.of(0.5, -0, 2)),
      tag: nulls(3),
    });
    using blob = NumericBlob.from(fromArrow(table));
    expect(blob.names).toBeUndefined();
    expect(blob.options.tags).toBe(false);
    expect([...blob.metricIds]).toEqual([5n, 6n]);
    expect([...bitsOf(blob.metric(5n).values)]).toEqual([...bitsOf(Float64Array.of(0.5, -0))]);
  });

  it('timestamps of other units are converted exactly; int64 is taken as µs', () => {
    const value = f64(Float64Array.of(1, 2));
    const cases: [arrow.Vector, bigint[]][] = [
      [micros([3n, -4n], new arrow.TimestampSecond()), [3_000_000n, -4_000_000n]],
      [micros([3n, -4n], new arrow.TimestampMillisecond('Europe/Paris')), [3_000n, -4_000n]],
      [micros([3_000n, -4_000n], new arrow.TimestampNanosecond()), [3n, -4n]],
      [arrow.makeVector(BigInt64Array.of(3n, -4n)), [3n, -4n]],
    ];
    for (const [timestamp, want] of cases) {
      using blob = NumericBlob.from(fromArrow(handTable({ metric_id: u64([1n, 1n]), ts: timestamp, value })));
      expect([...blob.timestamps(1n)], String(timestamp.type)).toEqual(want);
    }
  });
});

/** The MeboError a call throws. */
function errorOf(call: () => unknown): MeboError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(MeboError);
    return error as MeboError;
  }
  throw new Error('expected a MeboError');
}

describe('refusals', () => {
  const good = () => ({ metric_id: u64([1n, 2n]), ts: micros([1n, 2n]), value: f64(Float64Array.of(1, 2)) });

  it('bad tables are INVALID_ARGUMENT naming the column', () => {
    const bad: [string, unknown, RegExp][] = [
      ['not a table', { schema: {} }, /apache-arrow Table/],
      ['null', null, /apache-arrow Table/],
      ['no value', handTable({ metric_id: good().metric_id, ts: good().ts }), /no "value" column/],
      ['no timestamp', handTable({ metric_id: good().metric_id, value: good().value }), /no "ts" column/],
      ['neither id nor name', handTable({ ts: good().ts, value: good().value }), /neither a "metric".*nor a "metric_id"/],
      ['int32 values', handTable({ ...good(), value: arrow.makeVector(Int32Array.of(1, 2)) }), /"value" must be float64.*got Int32/],
      ['float32 values', handTable({ ...good(), value: arrow.makeVector(Float32Array.of(1, 2)) }), /"value" must be float64.*got Float32/],
      ['float timestamps', handTable({ ...good(), ts: arrow.makeVector(Float64Array.of(1, 2)) }), /"ts" must be a Timestamp or int64.*got Float64/],
      ['signed ids', handTable({ ...good(), metric_id: arrow.makeVector(BigInt64Array.of(1n, 2n)) }), /"metric_id" must be uint64, got Int64/],
      ['numeric names', handTable({ ...good(), metric: arrow.makeVector(Int32Array.of(1, 2)) }), /"metric" must be utf8/],
      ['numeric tags', handTable({ ...good(), tag: arrow.makeVector(Int32Array.of(1, 2)) }), /"tag" must be utf8/],
      ['a null value', handTable({ ...good(), value: arrow.vectorFromArray([1, null], new arrow.Float64()) }), /"value" has 1 nulls/],
      ['a null name', handTable({ ts: good().ts, value: good().value, metric: arrow.vectorFromArray(['a', null], new arrow.Utf8()) }), /1 rows have no "metric" and the others have one/],
      ['the names before 0.2', handTable({ id: good().metric_id, timestamp: good().ts, value: good().value }), /no "ts" column.*\("timestamp" is "ts" since mebo 0\.2\)/],
      ['names before 0.2 without ids', handTable({ name: utf8(['a', 'b']), ts: good().ts, value: good().value }), /neither.*\("name" is "metric" since mebo 0\.2\)/],
      ['ids that are not the names\' ids', handTable({ ...good(), metric: utf8(['a', 'b']) }), /row 0's id 1 is not the id of its name "a"/],
      ['a nanosecond that is not a whole µs', handTable({ ...good(), ts: micros([1000n, 1001n], new arrow.TimestampNanosecond()) }), /1001 ns \(row 1\) is not a whole microsecond/],
      ['seconds that overflow', handTable({ ...good(), ts: micros([1n, 2n ** 62n], new arrow.TimestampSecond()) }), /overflows int64 microseconds/],
    ];
    for (const [what, table, message] of bad) {
      const error = errorOf(() => fromArrow(table as AnyTable));
      expect(error.code, what).toBe('INVALID_ARGUMENT');
      expect(error.message, what).toMatch(message);
    }
  });

  it('bad metadata and options are INVALID_ARGUMENT; the encoder\'s own refusals pass through', () => {
    const t = handTable(good());
    const withStart = handTable(good());
    withStart.schema.metadata.set('mebo.startTime', '12abc');
    expect(errorOf(() => fromArrow(withStart)).message).toMatch(/mebo.startTime metadata is not a decimal int64/);
    expect(errorOf(() => fromArrow(t, 'v2' as unknown as FromArrowOptions)).code).toBe('INVALID_ARGUMENT');
    expect(errorOf(() => fromArrow(t, { layout: 'v3' as 'v2' })).code).toBe('INVALID_OPTIONS');
    // 70,000 points of one metric in the v1 layout: the encoder's code and its hint.
    const many = 70_000;
    const long = handTable({ metric_id: u64(Array(many).fill(1n)), ts: micros(Array.from({ length: many }, (_, i) => BigInt(i))), value: f64(new Float64Array(many)) });
    const limit = errorOf(() => fromArrow(long));
    expect(limit.code).toBe('LIMIT_EXCEEDED');
    expect(limit.message).toMatch(/layout: 'v2'/);
    using blob = NumericBlob.from(fromArrow(long, { layout: 'v2' }));
    expect(blob.pointCount(1n)).toBe(many);
  });

  it('toArrow takes blobs and sets only; a freed blob is FREED', () => {
    for (const bad of [{}, null, 'blob', new Uint8Array(8)]) {
      expect(errorOf(() => toArrow(bad as unknown as NumericBlob)).code).toBe('INVALID_ARGUMENT');
    }
    const blob = NumericBlob.from(readBlob(cases[0]!));
    blob.free();
    expect(errorOf(() => toArrow(blob)).code).toBe('FREED');
  });
});

describe('the built entry', () => {
  const DIST = join(PACKAGE_ROOT, 'dist');

  it('mebo and mebo/decode never load apache-arrow; mebo/arrow imports only the main entry and apache-arrow', () => {
    // Every other file of dist/ (index.js, decode.js, the worker, any other entry or build of them).
    const others = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(c?js|d\.c?ts)$/.test(f) && !/^arrow\./.test(f));
    expect(others).toEqual(expect.arrayContaining(['index.js', 'decode.js', 'index.d.ts', join('worker', 'pool.js')]));
    for (const file of others) expect(readFileSync(join(DIST, file), 'utf8'), file).not.toMatch(/apache-arrow/);
    const bundle = readFileSync(join(DIST, 'arrow.js'), 'utf8');
    const imports = [...bundle.matchAll(/^import\s[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['./index.js', 'apache-arrow']);
    expect(bundle).not.toMatch(/import\(/);
    // No second copy of the SDK or its wasm-bindgen glue.
    expect(bundle).not.toMatch(/NumericBlobHandle|__wbindgen|mebo_simd\.wasm|class MeboError/);
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));
    expect(pkg.exports['./arrow']).toEqual({
      require: { types: './dist/arrow.d.cts', default: './dist/arrow.cjs' },
      types: './dist/arrow.d.ts',
      default: './dist/arrow.js',
    });
    // The CommonJS build (for require()) likewise: the main entry's CommonJS build and apache-arrow.
    const cjs = readFileSync(join(DIST, 'arrow.cjs'), 'utf8');
    expect([...new Set([...cjs.matchAll(/require\((["'])([^"']+)\1\)/g)].map((m) => m[2]))].sort()).toEqual(['./index.cjs', 'apache-arrow', 'node:url']);
    expect(cjs).not.toMatch(/NumericBlobHandle|__wbindgen|mebo_simd\.wasm|class MeboError/);
    expect(pkg.peerDependencies['apache-arrow']).toBeDefined();
    expect(pkg.peerDependenciesMeta['apache-arrow']).toEqual({ optional: true });
    expect(pkg.dependencies?.['apache-arrow']).toBeUndefined();
    expect(readFileSync(join(DIST, 'arrow.d.ts'), 'utf8')).toMatch(/export declare function fromArrow/);
  });

  it('runs from dist as mebo/arrow: the main entry\'s MeboError, blobs of mebo and of mebo/decode', () => {
    const blob = JSON.stringify(join(VECTORS, 'blobs/txt-status1-tagged-delta-zstd-tags-be.mebo'));
    const script = `
      import { readdirSync, readFileSync } from 'node:fs';
      import * as mebo from 'mebo';
      import * as decode from 'mebo/decode';
      import { toArrow, fromArrow } from 'mebo/arrow';
      import { tableToIPC, tableFromIPC } from 'apache-arrow';
      await mebo.init();
      await decode.init();
      const bytes = readFileSync(${blob});
      const a = toArrow(mebo.TextBlob.from(bytes));
      const b = toArrow(decode.TextBlob.from(bytes));
      const same = JSON.stringify(a.getChild('value').toArray()) === JSON.stringify(b.getChild('value').toArray());
      const back = mebo.TextBlob.from(fromArrow(tableFromIPC(tableToIPC(b))));
      let code;
      try { fromArrow(a.select(['metric_id', 'value'])); } catch (e) { code = (e instanceof mebo.MeboError) + ' ' + e.code; }
      console.log(a.numRows, a.schema.fields.map((f) => f.name).join(','), same, back.totalPoints, code);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim();
    const rows = readInput(cases.find((c) => c.name === 'txt-status1-tagged-delta-zstd-tags-be')!).metrics.reduce((n, m) => n + m.timestamps.length, 0);
    expect(out).toBe(`${rows} metric_id,metric,ts,value,tag true ${rows} true INVALID_ARGUMENT`);
  });
});
