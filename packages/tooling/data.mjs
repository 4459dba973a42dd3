// The repository's test data (testdata/): the benchmark dataset and the same
// data as the JSON and Arrow payloads the bench compares against. Node only.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as arrow from 'apache-arrow';
import { configName } from './harness.mjs';
import { arrowTable } from './peers.mjs';
// The SDK's parser of the vectors' input schema, the one the CLI encodes from.
import { encoderMetrics, parseDocument } from 'mebo/document';

/** The repository root (this package is packages/tooling). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const BENCH_DIR = process.env.MEBO_BENCH_DIR ?? join(ROOT, 'testdata/bench');
export const REFERENCE_DIR = join(ROOT, 'testdata/reference');
export const VECTORS_DIR = join(ROOT, 'testdata/vectors');

/** The conformance vector of one 66,000-point metric: the decimation benchmark's long series. */
export const LONG_VECTOR = 'num-long-delta-none-gorilla-none-notags-le-v2';

/**
 * The blobs the decimation benchmark thins for a chart: the long vector and
 * the bench blob of the reference's default configuration. `file` is
 * absolute.
 */
export function decimateCases() {
  const long = readJson(join(VECTORS_DIR, 'manifest.json')).cases.find((c) => c.name === LONG_VECTOR);
  const bench = manifest().find((c) => configName(c) === 'delta-none-gorilla-none');
  return [
    { config: 'long-66000', file: join(VECTORS_DIR, long.file) },
    { config: 'delta-none-gorilla-none', file: join(BENCH_DIR, bench.file) },
  ];
}

export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function manifest() {
  return readJson(join(BENCH_DIR, 'manifest.json')).cases;
}

export function blobBytes(benchCase) {
  return new Uint8Array(readFileSync(join(BENCH_DIR, benchCase.file)));
}

const inputs = new Map();

/** A numeric input file of the bench (vectors' JSON schema) as SDK encoder input. */
export function numericInput(relativePath) {
  return readNumericInput(join(BENCH_DIR, relativePath));
}

/** Any numeric input file in the vectors' JSON schema (a path) as SDK encoder input. */
export function readNumericInput(path) {
  let input = inputs.get(path);
  if (input) return input;
  const doc = parseDocument(readJson(path));
  input = {
    startTime: doc.startTime,
    metrics: doc.metrics.map(({ name, timestamps, values }) => ({ name, timestamps, values })),
  };
  inputs.set(path, input);
  return input;
}

/**
 * A bench input file of either kind (a path relative to the bench folder) as
 * the SDK's encoders take it: `{ kind, startTime, metrics }`, each metric by
 * name or id as the file says.
 */
export function benchInput(relativePath) {
  const doc = parseDocument(readJson(join(BENCH_DIR, relativePath)));
  return { kind: doc.kind, startTime: doc.startTime, metrics: encoderMetrics(doc) };
}

/** The columnar JSON payload a typical HTTP API would send for the same data. */
export function jsonPayload(input) {
  return JSON.stringify({
    metrics: input.metrics.map((m) => ({
      name: m.name,
      timestamps: Array.from(m.timestamps, Number),
      values: Array.from(m.values),
    })),
  });
}

/**
 * The same data as an Arrow IPC stream: one record batch, a row per metric,
 * `name: Utf8`, `timestamps: List<Int64>` (microseconds), `values: List<Float64>`.
 */
export function arrowPayload(input) {
  return arrow.tableToIPC(arrowTable(arrow, input), 'stream');
}

/** Check a decoded JSON / Arrow payload against the input (once, untimed). */
export function checkPayloads(input, json, ipc) {
  const parsed = JSON.parse(json);
  const table = arrow.tableFromIPC(ipc);
  const ts = table.getChild('timestamps').data[0].children[0].values;
  const vs = table.getChild('values').data[0].children[0].values;
  let at = 0;
  input.metrics.forEach((m, i) => {
    const p = parsed.metrics[i];
    if (p.name !== m.name || table.getChild('name').get(i) !== m.name) throw new Error(`payload metric ${i} name`);
    for (let j = 0; j < m.values.length; j++, at++) {
      const same = (a, b) => Object.is(a, b);
      if (!same(p.values[j], m.values[j]) || !same(vs[at], m.values[j])) throw new Error(`payload value ${i}/${j}`);
      if (p.timestamps[j] !== Number(m.timestamps[j]) || ts[at] !== m.timestamps[j]) throw new Error(`payload timestamp ${i}/${j}`);
    }
  });
}

const gzipBytes = (bytes) => gzipSync(bytes, { level: 9 }).length;

/**
 * Sizes, raw and gzip -9, of every bench blob and of the same 50,000 numeric
 * points as the JSON and Arrow IPC payloads above.
 */
export function sizes() {
  const cases = manifest();
  const input = numericInput(cases.find((c) => c.kind === 'numeric').options.input);
  const json = Buffer.from(jsonPayload(input));
  const ipc = arrowPayload(input);
  return {
    json: { bytes: json.length, gzip: gzipBytes(json) },
    arrow: { bytes: ipc.length, gzip: gzipBytes(ipc) },
    blobs: cases.map((c) => {
      const bytes = blobBytes(c);
      return { config: configName(c), kind: c.kind, bytes: bytes.length, gzip: gzipBytes(bytes) };
    }),
  };
}
