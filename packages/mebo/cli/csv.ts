// CSV for `mebo encode`: the table `mebo decode --csv` writes (output.ts's
// CSV_COLUMNS), read back into the typed document encode.ts encodes. The
// parser follows RFC 4180: quoted fields, doubled quotes, lines ending in LF
// or CRLF, line breaks inside quotes; a UTF-8 BOM is dropped. Every refusal
// is a CsvError with a code and the line it is on.

import { UsageError, type Specs } from './args.js';
import type { DocumentMetric, InputDocument } from './document.js';
import { HEX16, isInt64 } from './fields.js';
import { CSV_COLUMNS } from './output.js';

/** Input that is not the CSV `mebo encode` reads; the message starts with the line. */
export class CsvError extends Error {
  constructor(
    readonly code: string,
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export interface CsvRecord {
  fields: string[];
  /** The line it starts on, from 1; a line break inside quotes counts. */
  line: number;
}

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;

/** The records of RFC 4180 text in order; an empty line holds none and is skipped. */
export function* csvRecords(text: string): Generator<CsvRecord> {
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    if (text.charCodeAt(i) === LF || (text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF)) {
      i += text.charCodeAt(i) === CR ? 2 : 1;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        let from = i + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote < 0) throw new CsvError('CSV_SYNTAX', opened, 'a quoted field is not closed (a quote inside one is written "")');
          field += text.slice(from, quote);
          from = quote + 1;
          if (text.charCodeAt(from) !== QUOTE) break;
          field += '"';
          from++;
        }
        i = from;
        for (let at = field.indexOf('\n'); at >= 0; at = field.indexOf('\n', at + 1)) line++;
      } else {
        let end = i;
        for (let c = text.charCodeAt(end); end < n && c !== COMMA && c !== LF && c !== CR; c = text.charCodeAt(++end)) {
          if (c === QUOTE) throw new CsvError('CSV_SYNTAX', line, 'a quote inside an unquoted field: quote the field and write the quote as ""');
        }
        field = text.slice(i, end);
        i = end;
      }
      fields.push(field);
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (c === LF || (c === CR && text.charCodeAt(i + 1) === LF)) {
        i += c === CR ? 2 : 1;
        line++;
      } else if (c === CR) throw new CsvError('CSV_SYNTAX', line, 'a carriage return that ends no line (lines end in LF or CRLF; quote a field that holds one)');
      else if (i < n) throw new CsvError('CSV_SYNTAX', line, 'text after a closing quote (a quote inside a quoted field is written "")');
      break;
    }
    yield { fields, line: start };
  }
}

const [FILE, METRIC, TIMESTAMP, VALUE, TAG] = CSV_COLUMNS;
const HEADERS = `${METRIC},${TIMESTAMP},${VALUE}[,${TAG}] (a leading ${FILE} column allowed)`;

/** Which columns a header has, when it is one `decode --csv` writes: [file,]metric,timestamp,value[,tag]. */
function headerColumns(fields: string[]): { file: boolean; tag: boolean } | undefined {
  const file = fields[0] === FILE;
  const [metric, timestamp, value, ...tag] = fields.slice(file ? 1 : 0);
  if (metric !== METRIC || timestamp !== TIMESTAMP || value !== VALUE) return undefined;
  if (tag.length > 1 || (tag.length === 1 && tag[0] !== TAG)) return undefined;
  return { file, tag: tag.length === 1 };
}

/** Whether the input is CSV: its first line (after a UTF-8 BOM) is a header `decode --csv` writes. */
export function isCsv(bytes: Uint8Array): boolean {
  const end = bytes.indexOf(LF);
  const first = new TextDecoder().decode(bytes.subarray(0, Math.min(end < 0 ? bytes.length : end + 1, 1024)));
  try {
    const head = csvRecords(first).next();
    return !head.done && head.value.line === 1 && headerColumns(head.value.fields) !== undefined;
  } catch {
    return false;
  }
}

/** The input as text without its UTF-8 BOM; bytes that are not UTF-8 are refused on their line. */
function textOf(bytes: Uint8Array): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoder.decode(bytes);
  } catch {
    // A line feed is never part of a longer UTF-8 sequence: the lines decode apart.
    let line = 1;
    for (let start = 0; start <= bytes.length; line++) {
      const end = bytes.indexOf(LF, start);
      try {
        decoder.decode(bytes.subarray(start, end < 0 ? bytes.length : end));
      } catch {
        break;
      }
      start = end < 0 ? bytes.length + 1 : end + 1;
    }
    throw new CsvError('CSV_UTF8', line, 'not UTF-8 text');
  }
}

const DECIMAL_NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const INFINITY = /^[+-]?inf(?:inity)?$/i;

/** A value as `decode --csv` writes it (what String(v) gives, -0, NaN, ±Infinity), or another decimal. */
function numberOf(text: string, line: number): number {
  if (DECIMAL_NUMBER.test(text)) return Number(text);
  if (/^nan$/i.test(text)) return NaN;
  if (INFINITY.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  throw new CsvError('CSV_VALUE', line, `value ${JSON.stringify(text)} is not a number (text values: --kind text)`);
}

/** How to read a CSV's values and metric column: `mebo encode`'s --kind and --metric. */
export interface CsvReading {
  kind: 'numeric' | 'text';
  /** Absent: ids when every metric is 16 hex digits, else names. */
  metric?: 'name' | 'id';
}

/** The flags of CSV input, beside the blob options (encode.ts's ENCODE_OPTIONS). */
export const CSV_FLAGS: Specs = { kind: { type: 'string' }, metric: { type: 'string' } };

/** The CSV flags on a command line, checked (a UsageError otherwise); undefined when none is given. */
export function csvReading(values: { [flag: string]: unknown }): CsvReading | undefined {
  const { kind, metric } = values;
  if (kind === undefined && metric === undefined) return undefined;
  if (kind !== undefined && kind !== 'numeric' && kind !== 'text') throw new UsageError(`--kind takes numeric or text, got ${JSON.stringify(kind)}`);
  if (metric !== undefined && metric !== 'name' && metric !== 'id') throw new UsageError(`--metric takes name or id, got ${JSON.stringify(metric)}`);
  return { kind: kind ?? 'numeric', ...(metric === undefined ? {} : { metric }) };
}

export interface CsvDocument {
  document: InputDocument;
  /** The line of each metric's first row, by metric index. */
  lines: number[];
}

interface Rows {
  line: number;
  timestamps: bigint[];
  values: (number | string)[];
  tags: string[];
}

/**
 * The document of a CSV: rows grouped by metric in the order metrics first
 * appear, each metric's points in row order; tags kept when a row has one.
 * No start time and no options: the encoder's defaults and the flags.
 */
export function csvDocument(bytes: Uint8Array, reading: CsvReading): CsvDocument {
  const records = csvRecords(textOf(bytes));
  const head = records.next();
  const columns = head.done ? undefined : headerColumns(head.value.fields);
  if (columns === undefined) throw new CsvError('CSV_HEADER', head.done ? 1 : head.value.line, `expected the header ${HEADERS}`);
  const width = 3 + Number(columns.file) + Number(columns.tag);
  const metrics = new Map<string, Rows>();
  let file: string | undefined;
  let tagged = false;
  for (const { fields, line } of records) {
    if (fields.length !== width) throw new CsvError('CSV_FIELDS', line, `${fields.length} field${fields.length === 1 ? '' : 's'} where the header has ${width}`);
    if (columns.file) {
      // A blob holds one file's points: rows of several files are not merged into one.
      const name = fields.shift()!;
      file ??= name;
      if (name !== file) {
        throw new CsvError('CSV_FILES', line, `rows of a second file, ${JSON.stringify(name)} after ${JSON.stringify(file)}: a blob is one file's rows (encode each file's rows apart)`);
      }
    }
    const [key, timestamp, value, tag = ''] = fields as [string, string, string, string?];
    if (key === '') throw new CsvError('CSV_METRIC', line, 'the metric is empty');
    if (!isInt64(timestamp)) throw new CsvError('CSV_TIMESTAMP', line, `timestamp ${JSON.stringify(timestamp)} is not an int64 count of microseconds`);
    let rows = metrics.get(key);
    if (rows === undefined) metrics.set(key, (rows = { line, timestamps: [], values: [], tags: [] }));
    rows.timestamps.push(BigInt(timestamp));
    rows.values.push(reading.kind === 'numeric' ? numberOf(value, line) : value);
    rows.tags.push(tag);
    tagged ||= tag !== '';
  }
  if (metrics.size === 0) throw new CsvError('CSV_EMPTY', head.value!.line, 'a header and no rows: nothing to encode');

  const byId = reading.metric === 'id' || (reading.metric === undefined && [...metrics.keys()].every((key) => HEX16.test(key)));
  const lines: number[] = [];
  const documentMetrics = [...metrics].map(([key, rows]): DocumentMetric<Float64Array | string[]> => {
    if (byId && !HEX16.test(key)) throw new CsvError('CSV_METRIC', rows.line, `metric ${JSON.stringify(key)} is not an id (16 hex digits), as --metric id reads every metric`);
    lines.push(rows.line);
    return {
      ...(byId ? { id: BigInt(`0x${key}`) } : { name: key }),
      timestamps: BigInt64Array.from(rows.timestamps),
      values: reading.kind === 'numeric' ? Float64Array.from(rows.values as number[]) : (rows.values as string[]),
      ...(tagged ? { tags: rows.tags } : {}),
    };
  });
  return { document: { kind: reading.kind, identifier: byId ? 'id' : 'name', metrics: documentMetrics } as InputDocument, lines };
}
