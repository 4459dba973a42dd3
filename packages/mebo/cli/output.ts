// A decoded blob as JSON (the schema of the conformance vectors' input
// files, plus the blob's options) and as CSV rows. Everything here goes
// through the SDK's public API; only the printing is the CLI's.

import { MeboError, NumericBlob, TextBlob, blobKind, type DecodeLimits, type NumericMetric, type TextMetric } from '../src/entries/index.js';
import { Lazy, Points, type Sink } from './stream.js';

export type Blob = NumericBlob | TextBlob;

/** Open a blob as the kind its magic names; anything else gets the numeric decoder's error. */
export function openBlob(bytes: Uint8Array, limits?: DecodeLimits): Blob {
  return blobKind(bytes) === 'text' ? TextBlob.from(bytes, limits) : NumericBlob.from(bytes, limits);
}

export function hex16(id: bigint): string {
  return id.toString(16).padStart(16, '0');
}

/** IEEE-754 bits of float64 values, as 16 hex digits each. */
export function valueBits(values: Float64Array): string[] {
  const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
  return Array.from(bits, hex16);
}

/** The header's options with the conformance manifest's field names. */
export function manifestOptions(blob: Blob): Record<string, string | boolean> {
  if (blob instanceof NumericBlob) {
    const o = blob.options;
    return {
      timestampEncoding: o.timestampEncoding,
      valueEncoding: o.valueEncoding,
      timestampCompression: o.timestampCompression,
      valueCompression: o.valueCompression,
      tags: o.tags,
      bigEndian: o.bigEndian,
      layout: o.layout,
    };
  }
  const o = blob.options;
  return { timestampEncoding: o.timestampEncoding, dataCompression: o.dataCompression, tags: o.tags, bigEndian: o.bigEndian };
}

export interface OutputMetric {
  name?: string;
  id: string;
  timestamps: string[];
  values?: string[];
  texts?: string[];
  tags?: string[];
}

export interface OutputDocument {
  kind: 'numeric' | 'text';
  startTimeMicros: string;
  identifier: 'name' | 'id';
  options: Record<string, string | boolean>;
  metrics: OutputMetric[];
}

/** Every metric of the blob, in index order, keyed so each resolves to itself. */
function keys(blob: Blob): (string | bigint)[] {
  return blob.names ?? Array.from(blob.metricIds);
}

/**
 * What a person reads: values as JSON numbers (NaN, Infinity, -Infinity and
 * -0, which JSON numbers cannot carry, as those strings), timestamps as
 * microseconds (a number while exact, |t| <= 2^53, else its decimal string)
 * and as ISO 8601 UTC with microseconds (`times`; null outside the dates
 * JavaScript can show). NaN payloads are not kept: `--exact` keeps them.
 */
export interface ReadableMetric {
  name?: string;
  id: string;
  points: number;
  timestamps: (number | string)[];
  times: (string | null)[];
  values?: (number | string)[];
  texts?: string[];
  tags?: string[];
}

export interface ReadableDocument {
  kind: 'numeric' | 'text';
  startTime: string | null;
  startTimeMicros: number | string;
  identifier: 'name' | 'id';
  options: Record<string, string | boolean>;
  metrics: ReadableMetric[];
}

/** A float64 as JSON carries it without loss of its kind: a number, or a string for NaN, ±Infinity and -0. */
export function jsonValue(v: number): number | string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return Object.is(v, -0) ? '-0' : v;
}

const EXACT_LIMIT = 2n ** 53n;

/** Microseconds as a JSON number while it is exact, else as its decimal string. */
export function jsonMicros(t: bigint): number | string {
  return t <= EXACT_LIMIT && t >= -EXACT_LIMIT ? Number(t) : String(t);
}

/** Epoch microseconds as ISO 8601 UTC with six fractional digits; null outside Date's range. */
export function isoMicros(t: bigint): string | null {
  const ms = t / 1000n - (t % 1000n < 0n ? 1n : 0n); // floor
  const micros = t - ms * 1000n;
  const date = new Date(Number(ms));
  if (ms > 8_640_000_000_000_000n || ms < -8_640_000_000_000_000n || Number.isNaN(date.getTime())) return null;
  return date.toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

/**
 * The blob as a document: its kind, start time, identifier mode and options,
 * then each metric in index order as name (when stored), id, `points(m)`'s
 * fields and tags (the input files' field order).
 */
function documentOf<M, D>(blob: Blob, start: (t: bigint) => object, points: (m: NumericMetric | TextMetric) => object): D {
  return streamedDocument<D>(blob, start, points, (metrics) => Array.from(metrics) as M[]);
}

/**
 * The document with its metrics made one at a time as they are written
 * (`collect` gets them lazily): one metric's columns alive at once.
 */
function streamedDocument<D>(
  blob: Blob,
  start: (t: bigint) => object,
  points: (m: NumericMetric | TextMetric) => object,
  collect: (metrics: Iterable<object>) => unknown,
): D {
  const names = blob.names;
  const metrics = (function* () {
    for (const key of keys(blob)) {
      const m = blob.metric(key);
      const name = names !== undefined && m.name !== undefined ? { name: m.name } : {};
      yield { ...name, id: hex16(m.id), ...points(m), ...(m.tags !== undefined ? { tags: m.tags } : {}) };
    }
  })();
  const kind = blob instanceof NumericBlob ? 'numeric' : 'text';
  return { kind, ...start(blob.startTime), identifier: names !== undefined ? 'name' : 'id', options: manifestOptions(blob), metrics: collect(metrics) } as D;
}

/**
 * Decode every metric once, one at a time, and drop it: a blob that fails
 * does so before any of its output is written (no partial result), and only
 * one metric's columns are alive at a time.
 */
export function checkBlob(blob: Blob): void {
  for (const key of keys(blob)) {
    const m = blob.metric(key);
    void m.timestamps;
    void m.values;
    void m.tags;
  }
}

/** A column as chunks made when written. */
function column<T>(items: ArrayLike<T>, as: (x: T) => unknown): Points {
  return new Points(items.length, (a, b) => Array.from({ length: b - a }, (_, i) => as(items[a + i]!)));
}

/** The document `toDocument` (`exact`) or `toReadableDocument` gives, for `writeJson`: columns made a chunk at a time. */
export function streamDocument(blob: Blob, exact: boolean): object {
  const lazy = (metrics: Iterable<object>) => new Lazy(metrics);
  if (exact) {
    return streamedDocument<object>(
      blob,
      (t) => ({ startTimeMicros: String(t) }),
      (m) => ({
        timestamps: column(m.timestamps, String),
        ...(m.values instanceof Float64Array
          ? { values: column(new BigUint64Array(m.values.buffer, m.values.byteOffset, m.values.length), hex16) }
          : { texts: m.values }),
      }),
      lazy,
    );
  }
  return streamedDocument<object>(
    blob,
    (t) => ({ startTime: isoMicros(t), startTimeMicros: jsonMicros(t) }),
    (m) => ({
      points: m.timestamps.length,
      timestamps: column(m.timestamps, jsonMicros),
      times: column(m.timestamps, isoMicros),
      ...(m.values instanceof Float64Array ? { values: column(m.values, jsonValue) } : { texts: m.values }),
    }),
    lazy,
  );
}

/** The lossless document (`--exact`): the conformance vectors' input schema. */
export function toDocument(blob: Blob): OutputDocument {
  return documentOf<OutputMetric, OutputDocument>(
    blob,
    (t) => ({ startTimeMicros: String(t) }),
    (m) => ({ timestamps: Array.from(m.timestamps, String), ...(m.values instanceof Float64Array ? { values: valueBits(m.values) } : { texts: m.values }) }),
  );
}

/** The document a person reads (the default). */
export function toReadableDocument(blob: Blob): ReadableDocument {
  return documentOf<ReadableMetric, ReadableDocument>(
    blob,
    (t) => ({ startTime: isoMicros(t), startTimeMicros: jsonMicros(t) }),
    (m) => ({
      points: m.timestamps.length,
      timestamps: Array.from(m.timestamps, jsonMicros),
      times: Array.from(m.timestamps, isoMicros),
      ...(m.values instanceof Float64Array ? { values: Array.from(m.values, jsonValue) } : { texts: m.values }),
    }),
  );
}

/** A CSV field, quoted when it must be (RFC 4180). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A float64 as CSV text: the shortest round-trip form, keeping the sign of zero. */
function numberText(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

/** The columns `decode --csv` writes, in order: `file` only for several blobs (`mebo encode` reads them back). */
export const CSV_COLUMNS = ['file', 'metric', 'timestamp', 'value', 'tag'] as const;

export function csvHeader(withFile: boolean): string {
  return `${CSV_COLUMNS.slice(withFile ? 0 : 1).join(',')}\n`;
}

/** One row per point: metric (name, else id in hex), timestamp (µs), value or text, tag. */
export function csvRows(blob: Blob, file: string | undefined): string {
  let out = '';
  for (const rows of csvChunks(blob, file)) out += rows;
  return out;
}

/** Rows a chunk at a time, one metric decoded at a time. */
function* csvChunks(blob: Blob, file: string | undefined): Generator<string> {
  const lead = file === undefined ? '' : `${csvField(file)},`;
  for (const key of keys(blob)) {
    const m = blob.metric(key);
    const metric = csvField(m.name ?? hex16(m.id));
    let out = '';
    for (let i = 0; i < m.timestamps.length; i++) {
      const value = m.values instanceof Float64Array ? numberText(m.values[i]!) : csvField(m.values[i]!);
      const tag = m.tags === undefined ? '' : csvField(m.tags[i]!);
      out += `${lead}${metric},${m.timestamps[i]},${value},${tag}\n`;
      if (out.length > 1 << 16) {
        yield out;
        out = '';
      }
    }
    yield out;
  }
}

/** Write the rows to `sink` as they are made (after `checkBlob`: nothing of a failing blob is written). */
export async function writeCsvRows(sink: Sink, blob: Blob, file: string | undefined): Promise<void> {
  checkBlob(blob);
  for (const rows of csvChunks(blob, file)) await sink.write(rows);
}

/** What a failure says on one line: the SDK's code and message. */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof MeboError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: (error as { code?: string }).code ?? 'ERROR', message: error.message };
  return { code: 'ERROR', message: String(error) };
}
