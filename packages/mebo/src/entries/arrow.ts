// mebo/arrow: blobs and blob sets as Apache Arrow tables, and tables back to
// blobs. Arrow is the ecosystem's columnar exchange (DuckDB, Polars, pandas,
// Perspective, Arquero read it); `apache-arrow` is an optional peer
// dependency, loaded by this entry only.
//
//   import { toArrow, fromArrow } from 'mebo/arrow';
//   using blob = NumericBlob.from(bytes);
//   const table = toArrow(blob);                  // metric_id, ts, value (+ metric, tag)
//   const bytes2 = fromArrow(table, { layout: 'v2' });
//
// This file is bundled into dist/arrow.js with `./index.js` and `apache-arrow`
// left as imports (build-sdk.mjs): it uses the main entry's module instance,
// never a copy of the SDK or its glue.

/** @module arrow */

import {
  Dictionary,
  Field,
  Float64,
  makeData,
  Precision,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  TimeUnit,
  Type,
  Uint32,
  Uint64,
  Utf8,
  vectorFromArray,
  type Data,
  type DataType,
  type Vector,
} from 'apache-arrow';
import {
  encodeNumeric,
  encodeText,
  MeboError,
  metricId,
  type NumericBlob,
  type NumericBlobSet,
  type NumericEncodeOptions,
  type NumericMetricInput,
  type TextBlob,
  type TextBlobSet,
  type TextColumns,
  type TextEncodeOptions,
  type TextMetricInput,
} from './index.js';

/** A string column of a table from `toArrow`: each distinct string once, per row its index. */
export type ArrowStrings = Dictionary<Utf8, Uint32>;

/**
 * The columns of a table from `toArrow`, in this order, named as the Rust
 * crates `mebo-arrow` and `mebo-datafusion` name them (a table of blobs in
 * DataFusion, `COPY … STORED AS MEBO`):
 * - `metric_id`: the metric id (uint64), every row;
 * - `metric`: the metric name, only when the source stores names (a text blob
 *   written by name; a numeric blob after a name-hash collision); blob sets
 *   expose no names, so their tables have no `metric` column;
 * - `ts`: microseconds since the epoch, Timestamp[us, UTC] (int64);
 * - `value`: float64 (numeric) or a dictionary of utf8 (text);
 * - `tag`: the point's tag, only when the source has tags.
 *
 * Rows are grouped by metric, in the blob's index order (a set: ids
 * ascending, each metric's windows concatenated in time order). The schema's
 * metadata holds `mebo.kind` (`numeric` | `text`) and `mebo.startTime` (the
 * blob's start time, a set's first window's, in decimal µs).
 */
export type ArrowColumns<Value extends DataType> = {
  metric_id: Uint64;
  metric: ArrowStrings;
  ts: TimestampMicrosecond;
  value: Value;
  tag: ArrowStrings;
};

export type NumericArrowColumns = ArrowColumns<Float64>;
export type TextArrowColumns = ArrowColumns<ArrowStrings>;

/** Options of `fromArrow`: the numeric or the text encoder's, and the blob's start time. */
export type FromArrowOptions = (NumericEncodeOptions | TextEncodeOptions) & {
  /** Default: the table's `mebo.startTime` metadata, else the earliest first timestamp of a metric. */
  startTime?: bigint;
};

function invalid(message: string): MeboError {
  return new MeboError('INVALID_ARGUMENT', message);
}

/** The column names, once: `ArrowColumns`' keys. */
const ID = 'metric_id';
const NAME = 'metric';
const TS = 'ts';
const VALUE = 'value';
const TAG = 'tag';

// ---------------------------------------------------------------- toArrow

/** Columns of one source, before they become Arrow data. */
interface Decoded {
  kind: 'numeric' | 'text';
  startTime: bigint;
  ids: BigUint64Array;
  offsets: Uint32Array;
  timestamps: BigInt64Array;
  values: Float64Array | { dictionary: string[]; codes: Uint32Array };
  names?: string[];
  tags?: { dictionary: string[]; codes: Uint32Array };
}

/**
 * A blob or a blob set as an Arrow table (see `ArrowColumns`). The numeric
 * values and the timestamps are the arrays the blob decoded, not copies (a
 * single blob; a numeric set's metrics are concatenated once); text values
 * and tags are Arrow dictionaries over the SDK's dictionary decode (the codes
 * array itself, each distinct string encoded once). The table owns its
 * memory: it stays valid after `free()`.
 *
 * Sources are read through their public methods, so blobs and sets opened by
 * `mebo/decode` work as well.
 */
export function toArrow(source: NumericBlob | NumericBlobSet): Table<NumericArrowColumns>;
export function toArrow(source: TextBlob | TextBlobSet): Table<TextArrowColumns>;
export function toArrow(source: NumericBlob | NumericBlobSet | TextBlob | TextBlobSet): Table<NumericArrowColumns> | Table<TextArrowColumns>;
export function toArrow(source: NumericBlob | NumericBlobSet | TextBlob | TextBlobSet): Table<NumericArrowColumns> | Table<TextArrowColumns> {
  return tableOf(decode(source));
}

function decode(source: unknown): Decoded {
  const s = source as Record<string, unknown> | null;
  if (typeof s === 'object' && s !== null) {
    // A set materializes; a numeric set also decimates. A blob decodes all; a numeric one also has views.
    if (typeof s.materialize === 'function') {
      return typeof s.decimate === 'function' ? numericSet(source as NumericBlobSet) : textSet(source as TextBlobSet);
    }
    if (typeof s.decodeAll === 'function') {
      return typeof s.columnsView === 'function' ? numericBlob(source as NumericBlob) : textBlob(source as TextBlob);
    }
  }
  throw invalid('toArrow needs a NumericBlob, TextBlob, NumericBlobSet or TextBlobSet');
}

function numericBlob(blob: NumericBlob): Decoded {
  const { ids, offsets, timestamps, values } = blob.decodeAll();
  const names = blob.names;
  const decoded: Decoded = { kind: 'numeric', startTime: blob.startTime, ids, offsets, timestamps, values };
  if (names !== undefined) decoded.names = names;
  if (blob.options.tags) {
    // decodeAll has no tags: each metric's, keyed by name where the blob has
    // names (two names may share an id after a hash collision).
    const perMetric = Array.from(ids, (id, i) => blob.tags(names?.[i] ?? id) ?? []);
    decoded.tags = dictionaryOf(perMetric, timestamps.length);
  }
  return decoded;
}

function textBlob(blob: TextBlob): Decoded {
  const decoded = textDecoded(blob.decodeAll(), blob.startTime);
  const names = blob.names;
  if (names !== undefined) decoded.names = names;
  return decoded;
}

function textSet(set: TextBlobSet): Decoded {
  return textDecoded(set.materialize(), set.timeRange[0]);
}

function textDecoded(c: TextColumns, startTime: bigint): Decoded {
  const decoded: Decoded = {
    kind: 'text',
    startTime,
    ids: c.ids,
    offsets: c.offsets,
    timestamps: c.timestamps,
    values: { dictionary: c.dictionary, codes: c.codes },
  };
  if (c.tagDictionary !== undefined && c.tagCodes !== undefined) decoded.tags = { dictionary: c.tagDictionary, codes: c.tagCodes };
  return decoded;
}

/**
 * A numeric set metric by metric: `materialize()` has no tags, and a metric
 * has tags when any window holding it has them, so each metric is
 * materialized with its tags (one decode) and the columns concatenated.
 */
function numericSet(set: NumericBlobSet): Decoded {
  const ids = set.metricIds;
  const metrics = Array.from(ids, (id) => set.materializeMetric(id));
  const offsets = new Uint32Array(ids.length + 1);
  metrics.forEach((m, i) => (offsets[i + 1] = offsets[i]! + m.values.length));
  const total = offsets[ids.length]!;
  const timestamps = new BigInt64Array(total);
  const values = new Float64Array(total);
  // Copied by their bytes: a NaN's payload never passes through a JS number.
  const valueBytes = new Uint8Array(values.buffer);
  metrics.forEach((m, i) => {
    timestamps.set(m.timestamps, offsets[i]!);
    valueBytes.set(new Uint8Array(m.values.buffer, m.values.byteOffset, m.values.byteLength), offsets[i]! * 8);
  });
  const decoded: Decoded = { kind: 'numeric', startTime: set.timeRange[0], ids, offsets, timestamps, values };
  if (metrics.some((m) => m.tags !== undefined)) {
    decoded.tags = dictionaryOf(metrics.map((m) => m.tags ?? new Array<string>(m.values.length).fill('')), total);
  }
  return decoded;
}

/** Per-point strings, metric after metric, as a dictionary (each distinct string once, in order of first appearance). */
function dictionaryOf(perMetric: readonly string[][], total: number): { dictionary: string[]; codes: Uint32Array } {
  const dictionary: string[] = [];
  const seen = new Map<string, number>();
  const codes = new Uint32Array(total);
  let row = 0;
  for (const strings of perMetric) {
    for (const s of strings) {
      let code = seen.get(s);
      if (code === undefined) {
        code = dictionary.push(s) - 1;
        seen.set(s, code);
      }
      codes[row++] = code;
    }
  }
  if (row !== total) throw new MeboError('INTERNAL', `toArrow: ${row} tags for ${total} points`);
  return { dictionary, codes };
}

function stringsData(dictionary: string[], codes: Uint32Array): Data<ArrowStrings> {
  return makeData({ type: new Dictionary(new Utf8(), new Uint32()), data: codes, dictionary: vectorFromArray(dictionary, new Utf8()) });
}

function tableOf(d: Decoded): Table<NumericArrowColumns> | Table<TextArrowColumns> {
  const rows = d.timestamps.length;
  const metrics = d.ids.length;
  // Per row, its metric's id (and position, the index of its name).
  const rowIds = new BigUint64Array(rows);
  const rowMetric = d.names === undefined ? undefined : new Uint32Array(rows);
  for (let m = 0; m < metrics; m++) {
    const [start, end] = [d.offsets[m]!, d.offsets[m + 1]!];
    rowIds.fill(d.ids[m]!, start, end);
    rowMetric?.fill(m, start, end);
  }
  const columns: [Field, Data][] = [[new Field(ID, new Uint64(), false), makeData({ type: new Uint64(), data: rowIds })]];
  if (d.names !== undefined) {
    const data = stringsData(d.names, rowMetric!);
    columns.push([new Field(NAME, data.type, false), data]);
  }
  const timestampType = new TimestampMicrosecond('UTC');
  columns.push([new Field(TS, timestampType, false), makeData({ type: timestampType, data: d.timestamps })]);
  if (d.values instanceof Float64Array) {
    columns.push([new Field(VALUE, new Float64(), false), makeData({ type: new Float64(), data: d.values })]);
  } else {
    const data = stringsData(d.values.dictionary, d.values.codes);
    columns.push([new Field(VALUE, data.type, false), data]);
  }
  if (d.tags !== undefined) {
    const data = stringsData(d.tags.dictionary, d.tags.codes);
    columns.push([new Field(TAG, data.type, false), data]);
  }
  const fields = columns.map(([field]) => field);
  const metadata = new Map([
    ['mebo.kind', d.kind],
    ['mebo.startTime', String(d.startTime)],
  ]);
  const schema = new Schema(fields, metadata);
  const struct = makeData({ type: new Struct(fields), length: rows, nullCount: 0, children: columns.map(([, data]) => data) });
  return new Table(schema, [new RecordBatch(schema, struct)]) as Table<NumericArrowColumns> | Table<TextArrowColumns>;
}

// -------------------------------------------------------------- fromArrow

/**
 * Encode a table with `toArrow`'s columns back to a blob: numeric when
 * `value` is float64, text when it is utf8 (or a dictionary of utf8).
 *
 * - `ts`: Timestamp of any unit (converted to µs, exactly: a
 *   nanosecond that is not a whole microsecond is refused) or int64 µs.
 * - A metric is identified by `metric` (its name) when the table has that
 *   column (then `metric_id`, if present too, must be each name's id), else
 *   by `metric_id` (uint64).
 * - `tag` (utf8 or a dictionary of utf8) is written when present: `tags`
 *   defaults to whether the column exists.
 * - A `metric` or `tag` column of nulls alone is no such column (as a
 *   DataFusion query over blobs gives them).
 * - Rows of a metric need not be adjacent: metrics are written in order of
 *   first appearance, each with its rows in table order.
 *
 * `options` are the encoder's (`encodeNumeric` / `encodeText`), and
 * `startTime` defaults to the table's `mebo.startTime` metadata. Missing,
 * mistyped or null-holding columns are an INVALID_ARGUMENT `MeboError`; the
 * encoder's own refusals (a v1 metric over its point limit, …) pass through.
 */
export function fromArrow(table: Table, options: FromArrowOptions = {}): Uint8Array {
  const t = table as unknown as Partial<Table> | null;
  if (typeof t !== 'object' || t === null || typeof t.getChild !== 'function' || !Array.isArray(t.schema?.fields)) {
    throw invalid('fromArrow needs an apache-arrow Table');
  }
  if (typeof options !== 'object' || options === null) throw invalid('fromArrow options must be an object');
  const column = (name: string): Vector | null => t.getChild!(name);
  // A column of nulls alone (no name or tag given) is no column.
  const unlessNull = (vector: Vector | null): Vector | null => (vector !== null && vector.nullCount === vector.length && vector.length > 0 ? null : vector);
  // Columns as this package named them before 0.2: said once, in the error.
  const renamed = (name: string, old: string): string => (column(old) === null ? '' : ` ("${old}" is "${name}" since mebo 0.2)`);

  const value = column(VALUE);
  const timestamp = column(TS);
  const idColumn = column(ID);
  const nameColumn = unlessNull(column(NAME));
  const tagColumn = unlessNull(column(TAG));
  if (value === null) throw invalid(`fromArrow: the table has no "${VALUE}" column (float64 for a numeric blob, utf8 for a text blob)`);
  if (timestamp === null) throw invalid(`fromArrow: the table has no "${TS}" column (Timestamp or int64 microseconds)${renamed(TS, 'timestamp')}`);
  if (idColumn === null && nameColumn === null) {
    throw invalid(`fromArrow: the table has neither a "${NAME}" (utf8) nor a "${ID}" (uint64) column${renamed(NAME, 'name')}${renamed(ID, 'id')}`);
  }

  const numeric = isFloat64(value.type);
  if (!numeric && !isStrings(value.type)) {
    throw invalid(`fromArrow: column "value" must be float64 (numeric) or utf8 / a dictionary of utf8 (text), got ${value.type}`);
  }
  const timestamps = timestampsOf(timestamp);
  const ids = idColumn === null ? undefined : uint64sOf(idColumn);
  if (nameColumn !== null && nameColumn.nullCount > 0) {
    throw invalid(`fromArrow: ${nameColumn.nullCount} rows have no "${NAME}" and the others have one: a blob names all its metrics or none (drop "${NAME}" to write by "${ID}")`);
  }
  const names = nameColumn === null ? undefined : stringsOf(nameColumn, NAME);
  const tags = tagColumn === null ? undefined : stringsOf(tagColumn, TAG);
  const groups = groupRows(ids, names);

  const startTime = options.startTime ?? startTimeOf(t.schema!.metadata);
  const o = { ...options, tags: options.tags ?? tags !== undefined, ...(startTime === undefined ? {} : { startTime }) };
  if (numeric) {
    const values = float64sOf(value);
    const metrics: NumericMetricInput[] = groups.map((g) => withKey(g, { timestamps: g.pick64(timestamps), values: g.pick64(values), ...(tags && { tags: g.pick(tags) }) }));
    return encodeNumeric(metrics, o as NumericEncodeOptions & { startTime?: bigint });
  }
  const texts = stringsOf(value, VALUE);
  const metrics: TextMetricInput[] = groups.map((g) => withKey(g, { timestamps: g.pick64(timestamps), values: g.pick(texts), ...(tags && { tags: g.pick(tags) }) }));
  return encodeText(metrics, o as TextEncodeOptions & { startTime?: bigint });
}

function withKey<M extends object>(g: Group, metric: M): M & { name?: string; id?: bigint } {
  return typeof g.key === 'string' ? { name: g.key, ...metric } : { id: g.key, ...metric };
}

function startTimeOf(metadata: Map<string, string> | undefined): bigint | undefined {
  const text = metadata?.get('mebo.startTime');
  if (text === undefined) return undefined;
  if (!/^-?\d{1,19}$/.test(text)) throw invalid(`fromArrow: the table's mebo.startTime metadata is not a decimal int64: ${JSON.stringify(text.slice(0, 40))}`);
  return BigInt(text);
}

function isFloat64(type: DataType): boolean {
  return type.typeId === Type.Float && (type as Float64).precision === Precision.DOUBLE;
}

function isUtf8(type: DataType): boolean {
  return type.typeId === Type.Utf8 || type.typeId === Type.LargeUtf8 || type.typeId === Type.Utf8View;
}

function isStrings(type: DataType): boolean {
  return isUtf8(type) || (type.typeId === Type.Dictionary && isUtf8((type as Dictionary).dictionary));
}

function isInt64(type: DataType, signed: boolean): boolean {
  const t = type as { bitWidth?: number; isSigned?: boolean };
  return type.typeId === Type.Int && t.bitWidth === 64 && t.isSigned === signed;
}

function noNulls(vector: Vector, name: string): void {
  if (vector.nullCount > 0) throw invalid(`fromArrow: column "${name}" has ${vector.nullCount} nulls`);
}

/** A fixed-width 8-byte column as one typed array: a view of its only chunk, else the chunks concatenated. */
function eightByteColumn<A extends BigInt64Array | BigUint64Array | Float64Array>(vector: Vector, make: { new (buffer: ArrayBuffer, offset: number, length: number): A; new (length: number): A }): A {
  const view = (data: Data): Uint8Array => {
    // Arrow slices the data buffer itself: its first element is row 0 of the chunk.
    const v = data.values as ArrayBufferView;
    return new Uint8Array(v.buffer, v.byteOffset, data.length * 8);
  };
  if (vector.data.length === 1) {
    const bytes = view(vector.data[0]!);
    if (bytes.byteOffset % 8 === 0) return new make(bytes.buffer as ArrayBuffer, bytes.byteOffset, vector.length);
  }
  const out = new make(vector.length);
  const bytes = new Uint8Array(out.buffer);
  let at = 0;
  for (const data of vector.data) {
    bytes.set(view(data), at);
    at += data.length * 8;
  }
  return out;
}

function float64sOf(vector: Vector): Float64Array {
  noNulls(vector, VALUE);
  return eightByteColumn(vector, Float64Array);
}

function uint64sOf(vector: Vector): BigUint64Array {
  if (!isInt64(vector.type, false)) throw invalid(`fromArrow: column "${ID}" must be uint64, got ${vector.type}`);
  noNulls(vector, ID);
  return eightByteColumn(vector, BigUint64Array);
}

const MICROS_PER: Record<number, bigint> = { [TimeUnit.SECOND]: 1_000_000n, [TimeUnit.MILLISECOND]: 1_000n };

/** The timestamp column in microseconds: Timestamp of any unit, or int64 taken as µs. */
function timestampsOf(vector: Vector): BigInt64Array {
  const type = vector.type as DataType & { unit?: TimeUnit };
  const timestamp = type.typeId === Type.Timestamp;
  if (!timestamp && !isInt64(type, true)) {
    throw invalid(`fromArrow: column "${TS}" must be a Timestamp or int64 microseconds, got ${type}`);
  }
  noNulls(vector, TS);
  const raw = eightByteColumn(vector, BigInt64Array);
  if (!timestamp || type.unit === TimeUnit.MICROSECOND) return raw;
  const out = new BigInt64Array(raw.length);
  const [min, max] = [-(1n << 63n), (1n << 63n) - 1n];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!;
    let micros: bigint;
    if (type.unit === TimeUnit.NANOSECOND) {
      if (t % 1000n !== 0n) throw invalid(`fromArrow: timestamp ${t} ns (row ${i}) is not a whole microsecond`);
      micros = t / 1000n;
    } else {
      micros = t * MICROS_PER[type.unit!]!;
      if (micros < min || micros > max) throw invalid(`fromArrow: timestamp ${t} (row ${i}) overflows int64 microseconds`);
    }
    out[i] = micros;
  }
  return out;
}

/** A string column's rows; a dictionary's strings are decoded once each, not per row. */
function stringsOf(vector: Vector, name: string): string[] {
  if (!isStrings(vector.type)) throw invalid(`fromArrow: column "${name}" must be utf8 or a dictionary of utf8, got ${vector.type}`);
  noNulls(vector, name);
  const out = new Array<string>(vector.length);
  let row = 0;
  for (const data of vector.data) {
    if (data.type.typeId === Type.Dictionary) {
      const dictionary = Array.from(data.dictionary as Vector) as unknown[];
      const indices = data.values as ArrayLike<number | bigint>;
      for (let i = 0; i < data.length; i++) {
        const s = dictionary[Number(indices[i])];
        if (typeof s !== 'string') throw invalid(`fromArrow: column "${name}" row ${row} is not a string`);
        out[row++] = s;
      }
    } else {
      for (let i = 0; i < data.length; i++, row++) {
        const s: unknown = vector.get(row);
        if (typeof s !== 'string') throw invalid(`fromArrow: column "${name}" row ${row} is not a string`);
        out[row] = s;
      }
    }
  }
  return out;
}

/** The rows of one metric: a contiguous run [start, end), or a list of rows. */
interface Group {
  key: string | bigint;
  pick<T>(all: readonly T[]): T[];
  pick64<A extends BigInt64Array | Float64Array>(all: A): A;
}

/** Rows grouped by metric (name when given, else id), in order of first appearance. */
function groupRows(ids: BigUint64Array | undefined, names: string[] | undefined): Group[] {
  const rows = ids?.length ?? names!.length;
  const keyOf = names !== undefined ? (row: number) => names[row]! : (row: number) => ids![row]!;
  const index = new Map<string | bigint, number>();
  const rowGroup = new Uint32Array(rows);
  const counts: number[] = [];
  const keys: (string | bigint)[] = [];
  const starts: number[] = [];
  let contiguous = true;
  for (let row = 0; row < rows; row++) {
    const key = keyOf(row);
    let g = index.get(key);
    if (g === undefined) {
      g = keys.push(key) - 1;
      index.set(key, g);
      counts.push(0);
      starts.push(row);
    } else if (rowGroup[row - 1] !== g) contiguous = false;
    rowGroup[row] = g;
    counts[g]!++;
  }
  if (names !== undefined && ids !== undefined) {
    const expected = keys.map((name) => metricId(name as string));
    for (let row = 0; row < rows; row++) {
      if (ids[row] !== expected[rowGroup[row]!]) {
        throw invalid(`fromArrow: row ${row}'s id ${ids[row]} is not the id of its name ${JSON.stringify(names[row])} (${expected[rowGroup[row]!]}); drop the "${ID}" column to write by name`);
      }
    }
  }
  if (contiguous) {
    return keys.map((key, g) => {
      const [start, end] = [starts[g]!, starts[g]! + counts[g]!];
      return { key, pick: (all) => all.slice(start, end), pick64: (all) => all.subarray(start, end) as typeof all };
    });
  }
  // Interleaved metrics: each group's rows, gathered (8-byte values as two
  // 32-bit halves, so NaN payloads survive).
  const members = counts.map((n) => new Uint32Array(n));
  const filled = new Array<number>(keys.length).fill(0);
  for (let row = 0; row < rows; row++) {
    const g = rowGroup[row]!;
    members[g]![filled[g]!++] = row;
  }
  return keys.map((key, g) => {
    const own = members[g]!;
    return {
      key,
      pick: (all) => Array.from(own, (row) => all[row]!),
      pick64: (all) => {
        const out = new (all.constructor as new (n: number) => typeof all)(own.length);
        const [from, to] = [new Uint32Array(all.buffer, all.byteOffset, all.length * 2), new Uint32Array(out.buffer)];
        own.forEach((row, i) => {
          to[2 * i] = from[2 * row]!;
          to[2 * i + 1] = from[2 * row + 1]!;
        });
        return out;
      },
    };
  });
}
