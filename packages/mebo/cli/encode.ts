// `mebo encode`: an input file in the conformance vectors' schema (the
// output of `mebo decode --exact`), or the CSV of `mebo decode --csv`, to a
// blob. The file is checked field by field by document.ts (row by row by
// csv.ts); the options and the points by the SDK (the core's encoders).

import {
  MeboError,
  encodeNumeric,
  encodeText,
  type NumericEncodeOptions,
  type NumericMetricInput,
  type TextEncodeOptions,
  type TextMetricInput,
} from '../src/entries/index.js';
import { UsageError } from './args.js';
import { csvDocument, type CsvReading } from './csv.js';
import { encoderMetrics, InputError, parseDocument, type InputDocument } from './document.js';

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
  prefer: { flag: 'prefer', type: 'string', kinds: ['numeric'] },
} as const;

export type OptionField = keyof typeof ENCODE_OPTIONS;

export interface EncodeRequest {
  kind: 'numeric' | 'text';
  bytes: Uint8Array;
}

/**
 * Encode a parsed input document. `flags` are the command line's option
 * values by field name; they override the document's own `options` (as
 * `mebo decode` writes them).
 */
export function encodeDocument(json: unknown, flags: Map<OptionField, string | boolean>): EncodeRequest {
  return encodeInput(parseDocument(json), flags);
}

/** Encode a CSV as `reading` says, with the flags as for a document (it has no options of its own). */
export function encodeCsv(bytes: Uint8Array, reading: CsvReading, flags: Map<OptionField, string | boolean>): EncodeRequest {
  const { document, lines } = csvDocument(bytes, reading);
  try {
    return encodeInput(document, flags);
  } catch (error) {
    // The SDK names a metric by its index: the line of its first row says where it is.
    const metric = error instanceof MeboError ? /^metric (\d+) /.exec(error.message) : null;
    if (metric === null) throw error;
    throw new MeboError((error as MeboError).code, `line ${lines[Number(metric[1])]}: ${(error as MeboError).message}`);
  }
}

function encodeInput(doc: InputDocument, flags: Map<OptionField, string | boolean>): EncodeRequest {
  const kind = doc.kind;
  for (const [field] of flags) {
    const spec = ENCODE_OPTIONS[field];
    if (!(spec.kinds as readonly string[]).includes(kind)) {
      throw new UsageError(`--${spec.flag} does not apply to ${kind} blobs`);
    }
  }
  const metrics = encoderMetrics<Float64Array | string[]>(doc);

  // Options: the document's (as `mebo decode` prints them), then the flags.
  const options = new Map<OptionField, string | boolean>();
  for (const [field, value] of Object.entries(doc.options ?? {})) {
    const spec = ENCODE_OPTIONS[field as OptionField] as (typeof ENCODE_OPTIONS)[OptionField] | undefined;
    // Fields of the other kind (and the manifest's `input`) are not options of this blob.
    if (spec === undefined || !(spec.kinds as readonly string[]).includes(kind)) continue;
    if (typeof value !== spec.type) throw new InputError(`options.${field}: expected a ${spec.type}, got ${JSON.stringify(value)}`);
    options.set(field as OptionField, value as string | boolean);
  }
  // A --config names all four column choices: the document's give way to it.
  if (flags.has('config')) {
    // ... and a fixed one drops the document's `prefer`, which only `auto` takes.
    if (flags.get('config') !== 'auto' && !flags.has('prefer')) options.delete('prefer');
    for (const field of ['timestampEncoding', 'valueEncoding', 'timestampCompression', 'valueCompression'] as const) options.delete(field);
  }
  for (const [field, value] of flags) options.set(field, value);
  // Tags are kept when the metrics have them, unless the options say otherwise.
  if (!options.has('tags') && metrics.some((m) => m.tags !== undefined)) options.set('tags', true);

  const o = { ...Object.fromEntries(options), ...(doc.startTime === undefined ? {} : { startTime: doc.startTime }) };
  if (kind === 'numeric') return { kind, bytes: encodeNumeric(metrics as NumericMetricInput[], o as NumericEncodeOptions) };
  return { kind, bytes: encodeText(metrics as TextMetricInput[], o as TextEncodeOptions) };
}
