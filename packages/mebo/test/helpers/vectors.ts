// The conformance vectors (testdata/vectors in the repository),
// read with Node only: the expected data never goes through the SDK.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NumericEncodeOptions, NumericMetricInput, TextEncodeOptions, TextMetricInput } from '../../src/entries/index.js';
import { encoderMetrics, parseDocument, type DocumentMetric } from '../../cli/document.js';

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml')) && existsSync(join(dir, 'Cargo.toml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}

export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
export const PACKAGE_ROOT = join(REPO_ROOT, 'packages/mebo');
export const VECTORS = join(REPO_ROOT, 'testdata', 'vectors');

export interface CaseOptions {
  timestampEncoding: 'raw' | 'delta' | 'deltapacked';
  valueEncoding?: 'raw' | 'gorilla' | 'chimp' | 'alp';
  timestampCompression?: 'none' | 'zstd' | 's2' | 'lz4';
  valueCompression?: 'none' | 'zstd' | 's2' | 'lz4';
  dataCompression?: 'none' | 'zstd' | 's2' | 'lz4';
  tags: boolean;
  bigEndian: boolean;
  layout?: 'v1' | 'v2' | 'v2-shared';
  input: string;
}

export interface Case {
  name: string;
  kind: 'numeric' | 'text';
  dataset: string;
  options: CaseOptions;
  file: string;
  size: number;
}

export interface InputMetric {
  id: bigint;
  name?: string;
  timestamps: BigInt64Array;
  /** IEEE-754 bits of the numeric values. */
  valueBits: BigUint64Array;
  values: Float64Array;
  texts: string[];
  tags?: string[];
}

export interface Input {
  startTime: bigint;
  byName: boolean;
  metrics: InputMetric[];
}

export function manifest(): Case[] {
  return JSON.parse(readFileSync(join(VECTORS, 'manifest.json'), 'utf8')).cases as Case[];
}

export function readBlob(c: Case): Uint8Array {
  return new Uint8Array(readFileSync(join(VECTORS, c.file)));
}

const inputs = new Map<string, Input>();

export function readInput(c: Case): Input {
  let input = inputs.get(c.options.input);
  if (!input) {
    input = parseInput(JSON.parse(readFileSync(join(VECTORS, c.options.input), 'utf8')));
    inputs.set(c.options.input, input);
  }
  return input;
}

/** Typed columns of an input file, by the one parser of the schema (cli/document.ts). */
function parseInput(json: unknown): Input {
  const doc = parseDocument(json);
  return {
    startTime: doc.startTime!,
    byName: doc.identifier === 'name',
    metrics: doc.metrics.map(({ name, id, timestamps, values, tags }: DocumentMetric<Float64Array | string[]>) => {
      const floats = values instanceof Float64Array ? values : new Float64Array(0);
      const texts = Array.isArray(values) ? values : [];
      // The input files give every metric its id (xxHash64 of the name where started by name).
      const metric: InputMetric = { id: id!, timestamps, valueBits: bitsOf(floats), values: floats, texts };
      if (name !== undefined) metric.name = name;
      if (tags !== undefined) metric.tags = tags;
      return metric;
    }),
  };
}

/** The bits of float64 values, to compare NaN payloads and -0 exactly. */
export function bitsOf(values: Float64Array): BigUint64Array {
  return new BigUint64Array(values.buffer, values.byteOffset, values.length);
}

/** Index of the first difference of two array-likes (length included), or -1. */
export function firstDifference<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** Tags expected from decoding: the input's, or all-empty where the input has none. */
export function expectedTagsAllEmpty(tags: readonly string[] | undefined): boolean {
  return tags === undefined || tags.every((t) => t === '');
}

/** The tag payload offset of a numeric blob (header bytes 28..32, in the blob's byte order). */
export function numericTagOffset(blob: Uint8Array): number {
  const bigEndian = (blob[0]! & 0x2) !== 0;
  return new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(28, !bigEndian);
}

/** The metrics of an input as encodeNumeric takes them: by name or by id, as the reference was given them. */
export function numericMetricsOf(input: Input): NumericMetricInput[] {
  return encoderMetrics({ identifier: input.byName ? 'name' : 'id', metrics: input.metrics });
}

export function textMetricsOf(input: Input): TextMetricInput[] {
  return encoderMetrics({ identifier: input.byName ? 'name' : 'id', metrics: input.metrics.map((m) => ({ ...m, values: m.texts })) });
}

/** A numeric case's options, as encodeNumeric takes them. */
export function numericOptionsOf(c: Case): NumericEncodeOptions & { startTime: bigint } {
  const o = c.options;
  return {
    startTime: readInput(c).startTime,
    timestampEncoding: o.timestampEncoding,
    valueEncoding: o.valueEncoding!,
    timestampCompression: o.timestampCompression!,
    valueCompression: o.valueCompression!,
    tags: o.tags,
    bigEndian: o.bigEndian,
    layout: o.layout!,
  };
}

/** A text case's options, as encodeText takes them. */
export function textOptionsOf(c: Case): TextEncodeOptions & { startTime: bigint } {
  const o = c.options;
  return {
    startTime: readInput(c).startTime,
    timestampEncoding: o.timestampEncoding as 'raw' | 'delta',
    dataCompression: o.dataCompression!,
    tags: o.tags,
    bigEndian: o.bigEndian,
  };
}
