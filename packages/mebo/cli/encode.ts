// `mebo encode`: an input file in the conformance vectors' schema (the
// output of `mebo decode`) to a blob. The file is checked field by field here;
// the options and the points are checked by the SDK (the core's encoders).

import {
  encodeNumeric,
  encodeText,
  type NumericEncodeOptions,
  type NumericMetricInput,
  type TextEncodeOptions,
  type TextMetricInput,
} from '../src/index.js';
import { UsageError } from './args.js';

/** The input file is not what the schema says: the message names the field. */
export class InputError extends Error {}

/** Option flags of `mebo encode`, by manifest field name, with the kinds they apply to. */
export const ENCODE_OPTIONS = {
  timestampEncoding: { flag: 'timestamp-encoding', type: 'string', kinds: ['numeric', 'text'] },
  valueEncoding: { flag: 'value-encoding', type: 'string', kinds: ['numeric'] },
  timestampCompression: { flag: 'timestamp-compression', type: 'string', kinds: ['numeric'] },
  valueCompression: { flag: 'value-compression', type: 'string', kinds: ['numeric'] },
  dataCompression: { flag: 'data-compression', type: 'string', kinds: ['text'] },
  tags: { flag: 'tags', type: 'boolean', kinds: ['numeric', 'text'] },
  bigEndian: { flag: 'big-endian', type: 'boolean', kinds: ['numeric', 'text'] },
  layout: { flag: 'layout', type: 'string', kinds: ['numeric'] },
  config: { flag: 'config', type: 'string', kinds: ['numeric'] },
} as const;

export type OptionField = keyof typeof ENCODE_OPTIONS;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const HEX16 = /^[0-9a-fA-F]{16}$/;
const DECIMAL = /^-?[0-9]+$/;

function isObject(v: Json | undefined): v is { [key: string]: Json } {
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
  const texts = stringArray(v, where, (s) => DECIMAL.test(s) && BigInt.asIntN(64, BigInt(s)) === BigInt(s), 'an int64 as a decimal string');
  return BigInt64Array.from(texts, (s) => BigInt(s));
}

function valuesOf(v: Json | undefined, where: string): Float64Array {
  const texts = stringArray(v, where, (s) => HEX16.test(s), 'the IEEE-754 bits as 16 hex digits');
  const bits = BigUint64Array.from(texts, (s) => BigInt(`0x${s}`));
  return new Float64Array(bits.buffer);
}

export interface EncodeRequest {
  kind: 'numeric' | 'text';
  bytes: Uint8Array;
}

/**
 * Encode a parsed input document. `flags` are the command line's option
 * values by field name; they override the document's own `options` (as
 * `mebo decode` writes them).
 */
export function encodeDocument(doc: Json, flags: Map<OptionField, string | boolean>): EncodeRequest {
  if (!isObject(doc)) throw new InputError('expected a JSON object with kind, startTimeMicros and metrics');
  const kind = doc.kind;
  if (kind !== 'numeric' && kind !== 'text') throw new InputError(`kind: expected "numeric" or "text", got ${JSON.stringify(kind ?? null)}`);

  for (const [field] of flags) {
    const spec = ENCODE_OPTIONS[field];
    if (!(spec.kinds as readonly string[]).includes(kind)) {
      throw new UsageError(`--${spec.flag} does not apply to ${kind} blobs`);
    }
  }

  let startTime: bigint | undefined;
  if (doc.startTimeMicros !== undefined) {
    const s = doc.startTimeMicros;
    if (typeof s !== 'string' || !DECIMAL.test(s) || BigInt.asIntN(64, BigInt(s)) !== BigInt(s)) {
      throw new InputError(`startTimeMicros: expected an int64 as a decimal string, got ${JSON.stringify(s)}`);
    }
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
    const key: { name: string } | { id: bigint } = (() => {
      if (identifier === 'name') {
        if (typeof m.name !== 'string') throw new InputError(`${where}.name: expected a string (identifier is "name")`);
        return { name: m.name };
      }
      if (typeof m.id !== 'string' || !HEX16.test(m.id)) {
        throw new InputError(`${where}.id: expected 16 hex digits (identifier is "id"), got ${JSON.stringify(m.id ?? null)}`);
      }
      return { id: BigInt(`0x${m.id}`) };
    })();
    const timestamps = timestampsOf(m.timestamps, `${where}.timestamps`);
    const tags = m.tags === undefined ? undefined : stringArray(m.tags, `${where}.tags`);
    if (kind === 'numeric') {
      const metric: NumericMetricInput = { ...key, timestamps, values: valuesOf(m.values, `${where}.values`) };
      if (tags) metric.tags = tags;
      return metric;
    }
    const metric: TextMetricInput = { ...key, timestamps, values: stringArray(m.texts, `${where}.texts`) };
    if (tags) metric.tags = tags;
    return metric;
  });

  // Options: the document's (as `mebo decode` prints them), then the flags.
  const options = new Map<OptionField, string | boolean>();
  if (doc.options !== undefined) {
    if (!isObject(doc.options)) throw new InputError('options: expected an object');
    for (const [field, value] of Object.entries(doc.options)) {
      const spec = ENCODE_OPTIONS[field as OptionField] as (typeof ENCODE_OPTIONS)[OptionField] | undefined;
      // Fields of the other kind (and the manifest's `input`) are not options of this blob.
      if (spec === undefined || !(spec.kinds as readonly string[]).includes(kind)) continue;
      if (typeof value !== spec.type) throw new InputError(`options.${field}: expected a ${spec.type}, got ${JSON.stringify(value)}`);
      options.set(field as OptionField, value as string | boolean);
    }
  }
  // A --config names all four column choices: the document's give way to it.
  if (flags.has('config')) {
    for (const field of ['timestampEncoding', 'valueEncoding', 'timestampCompression', 'valueCompression'] as const) options.delete(field);
  }
  for (const [field, value] of flags) options.set(field, value);
  // Tags are kept when the metrics have them, unless the options say otherwise.
  if (!options.has('tags') && metrics.some((m) => m.tags !== undefined)) options.set('tags', true);

  const o = Object.fromEntries(options);
  if (kind === 'numeric') {
    const numericOptions = { ...(o as NumericEncodeOptions), ...(startTime === undefined ? {} : { startTime }) };
    return { kind, bytes: encodeNumeric(metrics as NumericMetricInput[], numericOptions) };
  }
  const textOptions = { ...(o as TextEncodeOptions), ...(startTime === undefined ? {} : { startTime }) };
  return { kind, bytes: encodeText(metrics as TextMetricInput[], textOptions) };
}
