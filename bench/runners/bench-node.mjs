#!/usr/bin/env node
// One Node process of `npm run bench`: the SDK with one wasm build (its init
// is once per process, so each build gets its own process).
//
//   node bench/runners/bench-node.mjs --variant simd|scalar|core [--quick] [--baselines] [--encode] [--breakdown] [--decimate] [--pool] [--no-decode] [--out FILE] [--stream]
//
// Times, on every configuration of the bench set: decode (NumericBlob.from +
// decodeAll + free; text blobs likewise); `--variant core`: the same through
// `mebo/decode`'s light core, the module a page loads first, with its zstd
// part (decode rows only); with --encode, every configuration
// written from its input (encodeNumeric, encodeText; bytes compared with the
// recorded blob) and the numeric input with `auto` under each prefer; with --baselines, JSON.parse
// and Apache Arrow reads of the same data; with --decimate, every metric of
// the long vector and of a bench blob thinned to 1,000 points for a chart,
// by the SDK's decimate (wasm) and by JavaScript over decoded columns; with
// --pool, 8 bench blobs decoded one after another vs by mebo/worker's pool. Writes the rows as JSON to FILE;
// with --stream, also each row as one line of JSON on stdout as soon as it is
// measured (the web demo's local API relays them to the page).

import { writeFileSync } from 'node:fs';
import * as arrow from 'apache-arrow';
import { readFileSync } from 'node:fs';
import { PLANS, breakdown as measureBreakdown, configName, decimateRows, encodeRows, poolRows, decodeArrow, decodeJson, decodeNumeric, decodeNumericInto, decodeNumericView, decodeText, decodeTextInto, measure } from 'mebo-tooling/harness';
import { arrowPayload, benchInput, blobBytes, checkPayloads, decimateCases, jsonPayload, manifest, numericInput } from 'mebo-tooling/data';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => argv[argv.indexOf(name) + 1];
const variant = value('--variant') ?? 'simd';
const plan = flag('--quick') ? PLANS.quick : PLANS.full;
const runtime = { simd: 'wasm-node', scalar: 'wasm-node-scalar', core: 'wasm-node-core' }[variant];
if (runtime === undefined) throw new Error(`--variant: simd, scalar or core, not ${variant}`);

const mebo = variant === 'core' ? await import('mebo/decode') : await import('mebo');
if (variant === 'core') {
  // The light core, then its zstd part, as a page that met a zstd blob has them.
  await mebo.init({ parts: 'core' });
  // The core alone refuses a zstd blob until its part is loaded: the proof that the core is what runs.
  const zstdCase = manifest().find((c) => configName(c).includes('zstd'));
  let missing;
  try {
    mebo.NumericBlob.from(blobBytes(zstdCase)).free();
  } catch (error) {
    missing = error.code;
  }
  if (missing !== 'MISSING_PART') throw new Error(`asked for the light core, got another build (a zstd blob: ${missing ?? 'opened'})`);
  await mebo.init({ parts: 'all' });
} else {
  await mebo.init({ variant });
  if (mebo.wasmVariant() !== variant) throw new Error(`asked for the ${variant} build, got ${mebo.wasmVariant()}`);
}

const rows = [];
function record(row) {
  rows.push(row);
  if (flag('--stream')) process.stdout.write(`${JSON.stringify(row)}\n`);
  const { config, runtime: rt, op, median_ns } = row;
  process.stderr.write(`  ${rt.padEnd(17)} ${op.padEnd(6)} ${config.padEnd(38)} ${(median_ns / 1e3).toFixed(1).padStart(9)} µs\n`);
}

/** Decoded columns equal the input, metric by metric (v2 layouts sort metrics by id). */
function sameColumns(columns, input, what) {
  const byId = new Map(input.metrics.map((m) => [mebo.metricId(m.name), m]));
  if (columns.ids.length !== input.metrics.length) throw new Error(`${what}: ${columns.ids.length} metrics, input has ${byId.size}`);
  columns.ids.forEach((id, i) => {
    const m = byId.get(id);
    const from = columns.offsets[i];
    if (!m || columns.offsets[i + 1] - from !== m.values.length) throw new Error(`${what}: metric ${i} differs from the input`);
    for (let j = 0; j < m.values.length; j++) {
      if (columns.timestamps[from + j] !== m.timestamps[j] || !Object.is(columns.values[from + j], m.values[j])) {
        throw new Error(`${what}: metric ${i} point ${j} differs from the input`);
      }
    }
  });
}

for (const benchCase of flag('--no-decode') ? [] : manifest()) {
  const config = configName(benchCase);
  const bytes = blobBytes(benchCase);
  if (benchCase.kind === 'text') {
    const blob = mebo.TextBlob.from(bytes);
    const points = blob.totalPoints;
    blob.free();
    record({ config, runtime, op: 'decode', points, bytes: bytes.length, ...measure(() => decodeText(mebo, bytes), plan) });
    const reuse = {};
    record({ config, runtime, op: 'decode-into', points, bytes: bytes.length, ...measure(() => decodeTextInto(mebo, bytes, reuse), plan) });
    continue;
  }
  const input = numericInput(benchCase.options.input);
  {
    // Untimed: the reference's blob decodes to the input.
    const blob = mebo.NumericBlob.from(bytes);
    sameColumns(blob.decodeAll(), input, `${config} decode`);
    blob.free();
  }
  const points = input.metrics.reduce((n, m) => n + m.values.length, 0);
  record({ config, runtime, op: 'decode', points, bytes: bytes.length, ...measure(() => decodeNumeric(mebo, bytes), plan) });
  const reuse = {};
  record({ config, runtime, op: 'decode-into', points, bytes: bytes.length, ...measure(() => decodeNumericInto(mebo, bytes, reuse), plan) });
  record({ config, runtime, op: 'decode-view', points, bytes: bytes.length, ...measure(() => decodeNumericView(mebo, bytes), plan) });
}

// --encode: every configuration written from its input, and `auto` under each prefer.
if (flag('--encode')) {
  const verify = (benchCase, bytes) => {
    if (benchCase?.kind === 'text') return;
    const input = numericInput((benchCase ?? manifest().find((c) => c.kind === 'numeric')).options.input);
    const blob = mebo.NumericBlob.from(bytes);
    sameColumns(blob.decodeAll(), input, `${benchCase ? configName(benchCase) : 'auto'} encode`);
    blob.free();
  };
  encodeRows(mebo, manifest(), (c) => benchInput(c.options.input), blobBytes, runtime, plan, { record, verify });
}

// --decimate: a chart's read of every metric, thinned in wasm or in JavaScript.
if (flag('--decimate')) {
  const blobs = decimateCases().map(({ config, file }) => ({ config, bytes: new Uint8Array(readFileSync(file)) }));
  for (const row of decimateRows(mebo, blobs, runtime, plan)) record(row);
}

// --pool: decode off the main thread, a worker per core.
if (flag('--pool')) {
  const { DecodePool } = await import('mebo/worker');
  const pool = await DecodePool.create({ init: { variant } });
  const blobs = manifest().filter((c) => c.kind === 'numeric').slice(0, 8).map(blobBytes);
  for (const row of await poolRows(mebo, pool, blobs, runtime, plan)) record({ ...row, workers: pool.size });
  pool.terminate();
}

// --breakdown: where the SDK's decode time goes (see harness.mjs).
const breakdown = [];
if (flag('--breakdown')) {
  for (const benchCase of manifest().filter((c) => c.kind === 'numeric')) {
    breakdown.push({ config: configName(benchCase), runtime, ...measureBreakdown(mebo, blobBytes(benchCase), plan) });
  }
}

if (flag('--baselines')) {
  const first = manifest().find((c) => c.kind === 'numeric');
  const input = numericInput(first.options.input);
  const points = input.metrics.reduce((n, m) => n + m.values.length, 0);
  const json = jsonPayload(input);
  const ipc = arrowPayload(input);
  checkPayloads(input, json, ipc);
  const jsonBytes = new TextEncoder().encode(json).length;
  record({ config: 'json', runtime: 'json', op: 'decode', points, bytes: jsonBytes, ...measure(() => decodeJson(json), plan) });
  record({ config: 'arrow', runtime: 'arrow', op: 'decode', points, bytes: ipc.length, ...measure(() => decodeArrow(arrow, ipc), plan) });
}

if (flag('--out')) writeFileSync(value('--out'), JSON.stringify({ rows, breakdown }));
