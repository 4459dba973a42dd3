// The conformance vectors' input schema (testdata/vectors/README.md), which
// `mebo decode --exact` prints and `mebo encode` reads, to typed columns. The
// one parser of it in JavaScript: the CLI and the SDK's tests import this
// file; the package exports its build as `mebo/document` (build-cli.mjs). No SDK import, so it loads without wasm.
// Values are kept by their bits (NaN payloads, -0), timestamps over the whole
// int64 range.

import { HEX16, isInt64 } from './fields.js';

/** The input file is not what the schema says: the message names the field. */
export class InputError extends Error {}

export interface DocumentMetric<Values> {
  /** Present when the file has it; always when `identifier` is "name". */
  name?: string;
  /** Present when the file has it; always when `identifier` is "id". */
  id?: bigint;
  timestamps: BigInt64Array;
  values: Values;
  tags?: string[];
}

interface Common {
  /** Absent when the file has no startTimeMicros (the encoder then picks one). */
  startTime?: bigint;
  /** Whether the metrics were started by name or by id. */
  identifier: 'name' | 'id';
  /** The file's `options` object, unchecked: `mebo decode` writes the blob's. */
  options?: { [key: string]: unknown };
}

export type NumericDocument = Common & { kind: 'numeric'; metrics: DocumentMetric<Float64Array>[] };
export type TextDocument = Common & { kind: 'text'; metrics: DocumentMetric<string[]>[] };
export type InputDocument = NumericDocument | TextDocument;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringArray(v: Json | undefined, where: string, check?: (s: string) => boolean, expected?: string): string[] {
  if (!Array.isArray(v)) throw new InputError(`${where}: expected an array`);
  return v.map((item, i) => {
    if (typeof item !== 'string' || (check && !check(item))) {
      throw new InputError(`${where}[${i}]: expected ${expected ?? 'a string'}, got ${JSON.stringify(item)}`);
    }
    return item;
  });
}

function timestampsOf(v: Json | undefined, where: string): BigInt64Array {
  return BigInt64Array.from(stringArray(v, where, isInt64, 'an int64 as a decimal string'), (s) => BigInt(s));
}

function valuesOf(v: Json | undefined, where: string): Float64Array {
  const texts = stringArray(v, where, (s) => HEX16.test(s), 'the IEEE-754 bits as 16 hex digits');
  return new Float64Array(BigUint64Array.from(texts, (s) => BigInt(`0x${s}`)).buffer);
}

/** Check a parsed JSON document field by field; an InputError names the first field that is wrong. */
export function parseDocument(doc: unknown): InputDocument {
  if (!isObject(doc)) throw new InputError('expected a JSON object with kind, startTimeMicros and metrics');
  const kind = doc.kind;
  if (kind !== 'numeric' && kind !== 'text') throw new InputError(`kind: expected "numeric" or "text", got ${JSON.stringify(kind ?? null)}`);

  let startTime: bigint | undefined;
  if (doc.startTimeMicros !== undefined) {
    const s = doc.startTimeMicros;
    if (typeof s !== 'string' || !isInt64(s)) throw new InputError(`startTimeMicros: expected an int64 as a decimal string, got ${JSON.stringify(s)}`);
    startTime = BigInt(s);
  }

  if (!Array.isArray(doc.metrics)) throw new InputError('metrics: expected an array');
  const identifier = doc.identifier ?? (doc.metrics.every((m) => isObject(m) && typeof m.name === 'string') ? 'name' : 'id');
  if (identifier !== 'name' && identifier !== 'id') {
    throw new InputError(`identifier: expected "name" or "id", got ${JSON.stringify(identifier)}`);
  }

  const metrics = doc.metrics.map((m, i) => {
    const where = `metrics[${i}]`;
    if (!isObject(m)) throw new InputError(`${where}: expected an object`);
    const metric = {} as DocumentMetric<Float64Array | string[]>;
    // The identifying field must be there; the other one, when there, must be right too.
    const because = (field: string) => (identifier === field ? ` (identifier is "${field}")` : '');
    if (m.name !== undefined || identifier === 'name') {
      if (typeof m.name !== 'string') throw new InputError(`${where}.name: expected a string${because('name')}`);
      metric.name = m.name;
    }
    if (m.id !== undefined || identifier === 'id') {
      if (typeof m.id !== 'string' || !HEX16.test(m.id)) {
        throw new InputError(`${where}.id: expected 16 hex digits${because('id')}, got ${JSON.stringify(m.id ?? null)}`);
      }
      metric.id = BigInt(`0x${m.id}`);
    }
    metric.timestamps = timestampsOf(m.timestamps, `${where}.timestamps`);
    if (m.tags !== undefined) metric.tags = stringArray(m.tags, `${where}.tags`);
    metric.values = kind === 'numeric' ? valuesOf(m.values, `${where}.values`) : stringArray(m.texts, `${where}.texts`);
    return metric;
  });

  const parsed = { kind, identifier, metrics } as InputDocument;
  if (startTime !== undefined) parsed.startTime = startTime;
  if (doc.options !== undefined) {
    if (!isObject(doc.options)) throw new InputError('options: expected an object');
    parsed.options = doc.options;
  }
  return parsed;
}

/** The metrics as the SDK's encoders take them: by name or by id, as the document's identifier says. */
export function encoderMetrics<V>(doc: { identifier: 'name' | 'id'; metrics: DocumentMetric<V>[] }) {
  return doc.metrics.map(({ name, id, timestamps, values, tags }) => ({
    ...(doc.identifier === 'name' ? { name: name! } : { id: id! }),
    timestamps,
    values,
    ...(tags === undefined ? {} : { tags }),
  }));
}
