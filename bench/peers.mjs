#!/usr/bin/env node
// mebo beside the formats users pick instead, in one Node process: on the
// bench input and on every real series, each format's bytes (raw and gzip
// -9), decode to per-metric typed arrays (median and minimum per call, the
// formats timed in turn, round after round, so load drifts over all alike;
// every decoded result checked bit for bit against the input, untimed) and
// encode. mebo appears as its default configuration, `auto` under each
// `prefer`, and its best fixed configuration (the smallest blob of all 192,
// found untimed), all in the v2 layout.
//
//   node bench/peers.mjs [--quick] [--out FILE] [--only DATASET,...]
//
// Prints the tables on stdout; --out writes { datasets: [{ name, points, metrics, rows }] }.

import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as arrow from 'apache-arrow';
import * as fzstd from 'fzstd';
import * as hyparquet from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import * as mebo from 'mebo';
import * as parquet from 'parquet-wasm';
import { BENCH_DIR, ROOT, manifest, readNumericInput } from 'mebo-tooling/data';
import { arrowFormat, checkSeries, hyparquetFormat, inInputOrder, jsonFormat, meboFormat, parquetWasmFormat, roundRobin, zstdCodec } from 'mebo-tooling/peers';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const valueOf = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const only = valueOf('--only')?.split(',');
const log = (line) => process.stderr.write(`${line}\n`);

/** Rounds of the round-robin, and how long one sample runs (see roundRobin). */
const timing = { rounds: quick ? 5 : 21, sampleMs: quick ? 1 : 3 };
const DEFAULT_CONFIG = 'delta-none-gorilla-none';

await mebo.init();
const zstd = await zstdCodec(createRequire(import.meta.url)('zstd-codec').ZstdCodec, fzstd);

// ---------------------------------------------------------------- data

/** The real series: every numeric input file in testdata/real. */
function realFiles() {
  const files = new Map();
  for (const dir of [join(ROOT, 'testdata/real')]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      if (!files.has(f) && JSON.parse(readFileSync(join(dir, f), 'utf8')).kind === 'numeric') files.set(f, join(dir, f));
    }
  }
  return [...files.values()];
}

const benchInput = manifest().find((c) => c.kind === 'numeric').options.input;
const datasets = [
  { name: basename(benchInput, '.json'), real: false, input: readNumericInput(join(BENCH_DIR, benchInput)) },
  ...realFiles().map((file) => ({ name: basename(file, '.json'), real: true, input: readNumericInput(file) })),
].filter((d) => !only || only.includes(d.name));

// ---------------------------------------------------------------- mebo's configurations

const ALL_CONFIGS = ['raw', 'delta', 'deltapacked'].flatMap((t) =>
  ['none', 'zstd', 's2', 'lz4'].flatMap((tc) => ['raw', 'gorilla', 'chimp', 'alp'].flatMap((v) => ['none', 'zstd', 's2', 'lz4'].map((vc) => `${t}-${tc}-${v}-${vc}`))),
);

/** The smallest fixed configuration's name (v2 layout), found untimed. */
function bestFixed(input) {
  let best;
  for (const config of ALL_CONFIGS) {
    const bytes = mebo.encodeNumeric(input.metrics, { config, layout: 'v2', startTime: input.startTime }).length;
    if (!best || bytes < best.bytes) best = { config, bytes };
  }
  return best.config;
}

function configOf(bytes) {
  const blob = mebo.NumericBlob.from(bytes);
  try {
    const o = blob.options;
    return `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`;
  } finally {
    blob.free();
  }
}

// ---------------------------------------------------------------- run

const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;
const out = [];

for (const { name, real, input } of datasets) {
  const points = input.metrics.reduce((n, m) => n + m.values.length, 0);
  log(`peers: ${name}: ${input.metrics.length} metrics, ${points} points`);
  const best = bestFixed(input);
  const parquetWasm = parquetWasmFormat(arrow, parquet);
  const formats = [
    { ...meboFormat(mebo, 'mebo default', DEFAULT_CONFIG), mebo: true },
    { ...meboFormat(mebo, 'mebo auto', { config: 'auto' }), mebo: true },
    { ...meboFormat(mebo, 'mebo auto size', { config: 'auto', prefer: 'size' }), mebo: true },
    { ...meboFormat(mebo, 'mebo auto speed', { config: 'auto', prefer: 'speed' }), mebo: true },
    { ...meboFormat(mebo, 'mebo best', best), mebo: true },
    jsonFormat(),
    arrowFormat(arrow),
    arrowFormat(arrow, zstd),
    parquetWasm,
    hyparquetFormat(hyparquet, compressors, parquetWasm),
  ];
  const rows = [];
  for (const f of formats) {
    const bytes = await f.encode(input);
    const decoded = await f.decode(bytes);
    const check = (d) => checkSeries(`${name} ${f.name}`, input, f.mebo ? inInputOrder(mebo, input, d) : d);
    check(decoded);
    rows.push({ format: f.name, config: f.mebo ? configOf(bytes) : undefined, bytes: bytes.length, gzip: gzip(bytes), f, payload: bytes, check });
  }
  const decode = await roundRobin(timing, rows.map((r) => ({ key: r.format, run: () => r.f.decode(r.payload), check: r.check })));
  // Encode: hyparquet writes nothing of its own (it reads parquet-wasm's file).
  const encode = await roundRobin(timing, rows.filter((r) => r.format !== 'hyparquet').map((r) => ({ key: r.format, run: () => r.f.encode(input) })));
  out.push({
    name,
    real,
    metrics: input.metrics.length,
    points,
    rows: rows.map((r) => ({
      format: r.format,
      config: r.config,
      bytes: r.bytes,
      gzip: r.gzip,
      decode_median_us: decode[r.format].median_us,
      decode_min_us: decode[r.format].min_us,
      encode_median_us: encode[r.format]?.median_us,
    })),
  });
}

// ---------------------------------------------------------------- report

const fmt = (us) => (us === undefined ? '—' : us >= 100 ? us.toFixed(0) : us.toFixed(1));
const pad = (rows) => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('  ')).join('\n');
};

console.log(`\nformats, one Node process (${process.version}), ${timing.rounds} rounds round-robin; decode = bytes → per-metric typed arrays, checked bit for bit; µs per call`);
for (const d of out) {
  const mebo = d.rows.find((r) => r.format === 'mebo auto');
  console.log(`\n${d.name}${d.real ? ' (real)' : ''}: ${d.metrics} metrics, ${d.points} points`);
  const table = [['format', 'config', 'bytes', 'B/pt', 'gzip', 'decode med', 'decode min', 'vs auto', 'encode med']];
  for (const r of d.rows) {
    table.push([
      r.format,
      r.config ?? '',
      r.bytes,
      (r.bytes / d.points).toFixed(2),
      r.gzip,
      fmt(r.decode_median_us),
      fmt(r.decode_min_us),
      `${(r.decode_median_us / mebo.decode_median_us).toFixed(2)}×`,
      fmt(r.encode_median_us),
    ]);
  }
  console.log(pad(table));
}

const realSets = out.filter((d) => d.real);
if (realSets.length) {
  console.log('\nauto on the real series (v2 layout): bytes and decode median (µs) beside the default and the best fixed configuration');
  const table = [['series', 'points', 'default B', 'auto B', 'auto config', 'size B', 'best B', 'best config', 'default µs', 'auto µs', 'size µs', 'best µs']];
  for (const d of realSets) {
    const by = Object.fromEntries(d.rows.map((r) => [r.format, r]));
    const [def, auto, size, best] = [by['mebo default'], by['mebo auto'], by['mebo auto size'], by['mebo best']];
    table.push([d.name, d.points, def.bytes, auto.bytes, auto.config, size.bytes, best.bytes, best.config, fmt(def.decode_median_us), fmt(auto.decode_median_us), fmt(size.decode_median_us), fmt(best.decode_median_us)]);
  }
  console.log(pad(table));
}

if (valueOf('--out')) writeFileSync(valueOf('--out'), `${JSON.stringify({ node: process.version, rounds: timing.rounds, datasets: out }, null, 1)}\n`);
