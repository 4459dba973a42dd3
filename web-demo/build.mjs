#!/usr/bin/env node
// Builds web-demo/dist/ (gitignored): the page, its two esbuild bundles (the
// app and the benchmark worker), uPlot's CSS, both wasm builds of the SDK,
// and data copied from the repository's testdata/ at build time:
//
//   samples/       a selection of conformance vectors and bench blobs, with
//                  samples/index.json (labels, notes, metric names by id)
//   bench/         every bench blob, bench/manifest.json (points, sizes raw and
//                  gzipped, beside the JSON and Arrow IPC of the same data)
//   reference/     the reference figures (seed-x86.json, go-v1.9-epyc.json)
//   bench-results.json   the last `npm run bench` at the repository root, if any
//
// Needs the SDK built first (`node scripts/build.mjs` at the repository root).

import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import * as mebo from 'mebo';
import { parseDocument } from 'mebo/document';
import { readNumericInput, sizes as benchSizes } from 'mebo-tooling/data';
import { configName } from 'mebo-tooling/harness';
import { hostsBlob } from './hosts-sample.mjs';
import { STREAM_SOURCE, streamBlobs } from './stream-sample.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const TESTDATA = join(ROOT, 'testdata');
const DIST = join(HERE, 'dist');
const require = createRequire(join(HERE, 'package.json'));

/**
 * The bundled samples: [id, group, source dir under testdata/, case name
 * (several: the windows of a set), note]. `real` samples are input files the
 * build encodes with the SDK (config in the case name's place).
 */
const SAMPLES = [
  ['co2', 'real data', 'real', ['maunaloa-co2-weekly.json', 'delta-none-alp-none'], 'Weekly CO2 at Mauna Loa, 1958–2001 (Scripps, public domain): 2,284 weeks, 59 of them missing (NaN), one decimal: delta timestamps before 1970 (negative) and ALP values.'],
  ['seattle', 'real data', 'real', ['seattle-hourly-normals.json', 'deltapacked-none-alp-none'], 'Hourly climate normals for Seattle, 2010-01-01 to 03-31 (NOAA NCDC, public domain): pressure, temperature and wind, 3 × 2,160 points on a regular hourly clock, one decimal, values repeating from hour to hour: bit-packed delta timestamps and ALP values.'],
  ['quakes', 'real data', 'real', ['usgs-earthquakes-week.json', 'delta-none-alp-none'], 'Every earthquake USGS recorded in the week of 2018-01-31 (public domain): magnitude and depth in km, 2 × 1,707 points on an irregular millisecond clock, one or two decimals: delta timestamps and ALP values.'],
  ['stocks', 'real data', 'real', ['stocks-monthly.json', 'delta-none-alp-none'], 'Monthly stock prices 2000–2010 (vega-datasets, BSD-3-Clause): MSFT, AMZN, IBM, GOOG, AAPL, 560 points, two decimals: delta timestamps and ALP values.'],
  ['hosts', 'real data', 'hosts', [], 'A fleet of 8 hosts, 24 gauges of different magnitudes (CPU percent, network bytes near 10^7, load) made from Seattle\'s hourly normals: 24 × 2,160 points. The blob stores ids only: paste or drop the names (samples/hosts-names.txt) under Metrics to see them.'],
  ['seed-gorilla', 'bench set (200 × 250)', 'bench', 'num-seed200x250-delta-none-gorilla-none-notags-le-v1', '200 metrics × 250 points, 1 s ±5% jitter, ±2% random walks: the benchmark dataset, delta timestamps and Gorilla values.'],
  ['seed-zstd', 'bench set (200 × 250)', 'bench', 'num-seed200x250-delta-zstd-gorilla-zstd-notags-le-v1', 'The same data with both columns zstd-compressed.'],
  ['seed-alp', 'bench set (200 × 250)', 'bench', 'num-seed200x250-deltapacked-none-alp-none-notags-le-v1', 'The same data with bit-packed delta timestamps and ALP values.'],
  ['seed-raw-lz4', 'bench set (200 × 250)', 'bench', 'num-seed200x250-raw-lz4-raw-lz4-notags-le-v1', 'The same data, raw columns compressed with LZ4.'],
  ['seed-text', 'bench set (200 × 250)', 'bench', 'txt-text200x50-delta-zstd-notags-le', 'A text blob: 201 metrics of status strings, zstd-compressed.'],
  ['gauge1', 'conformance vectors', 'vectors', 'num-gauge1-delta-none-gorilla-zstd-notags-le-v1', '12 gauges × 60 points with jittered microsecond timestamps.'],
  ['gauge1-be', 'conformance vectors', 'vectors', 'num-gauge1-deltapacked-none-chimp-none-notags-be-v1', 'The same gauges in a big-endian blob: bit-packed delta timestamps, Chimp values.'],
  ['gauge1-tagged', 'conformance vectors', 'vectors', 'num-gauge1-tagged-delta-zstd-raw-s2-tags-le-v1', 'Gauges with per-point tags (empty, ASCII, non-ASCII, 255 bytes).'],
  ['decimal1', 'conformance vectors', 'vectors', 'num-decimal1-delta-none-alp-none-notags-le-v1', 'Decimal gauges, a counter, noise and mostly-zero data, ALP-encoded.'],
  ['special', 'conformance vectors', 'vectors', 'num-special-delta-zstd-gorilla-lz4-notags-le-v2-shared', 'NaN, ±Inf, -0.0, subnormals, repeating and backward timestamps, v2-shared layout.'],
  ['shared', 'conformance vectors', 'vectors', 'num-shared-delta-none-chimp-none-notags-le-v2', 'Metrics that share timestamp columns (v2 layout).'],
  ['long', 'conformance vectors', 'vectors', 'num-long-delta-none-gorilla-none-notags-le-v2', 'One metric of 66,000 points: v2 with extended index entries. Charted decimated; zoom in to read the range at full resolution.'],
  ['set1', 'conformance vectors', 'vectors', [0, 1, 2, 3].map((w) => `num-set1-w${w}-delta-none-gorilla-none-notags-le-v1`), 'Four consecutive windows opened as one blob set: one series per metric across all of them.'],
  ['ids', 'conformance vectors', 'vectors', 'num-ids-delta-none-gorilla-none-notags-le-v1', 'Metrics started by numeric id (no names), including 2^64 − 1.'],
  ['status1', 'conformance vectors', 'vectors', 'txt-status1-tagged-raw-zstd-tags-le', 'Text statuses with tags: empty, non-ASCII, 255-byte and escaped strings.'],
  ['textids', 'conformance vectors', 'vectors', 'txt-textids-delta-zstd-tags-le', 'Text metrics by numeric id, timestamps that go backwards and cross zero.'],
];
const DEFAULT_SAMPLE = 'co2';

function fail(message) {
  throw new Error(message);
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Metric names by id (16 hex digits) from an input file, when its metrics were started by name. */
function namesOf(inputPath) {
  const names = {};
  for (const { name, id } of parseDocument(readJson(inputPath)).metrics) {
    if (name !== undefined && id !== undefined) names[id.toString(16).padStart(16, '0')] = name;
  }
  return names;
}

const STREAM_FILE = 'seattle.mbs';

async function copySamples() {
  const manifests = {
    vectors: readJson(join(TESTDATA, 'vectors/manifest.json')).cases,
    bench: readJson(join(TESTDATA, 'bench/manifest.json')).cases,
  };
  mkdirSync(join(DIST, 'samples'), { recursive: true });
  const samples = SAMPLES.map(([id, group, source, caseNames, note]) => {
    if (source === 'real') return encodeReal(id, group, caseNames, note);
    if (source === 'hosts') return writeHosts(id, group, note);
    const cases = [caseNames].flat().map((name) => manifests[source].find((x) => x.name === name) ?? fail(`web-demo: no case ${name} in testdata/${source}`));
    const files = cases.map((c, i) => {
      const file = cases.length === 1 ? `${id}.mebo` : `${id}-w${i}.mebo`;
      copyFileSync(join(TESTDATA, source, c.file), join(DIST, 'samples', file));
      return file;
    });
    const c = cases[0];
    const o = c.options;
    const config = c.kind === 'text' ? `text ${o.timestampEncoding}-${o.dataCompression}` : configName(c);
    const label = `${id}: ${config}${cases.length > 1 ? `, set of ${cases.length}` : ''}`;
    const names = Object.assign({}, ...cases.map((x) => namesOf(join(TESTDATA, source, x.options.input))));
    return { id, label, group, kind: c.kind, files, bytes: cases.reduce((n, x) => n + x.size, 0), note, names };
  });
  // The stream sample as a file, the bytes the demo's server sends paced (stream-sample.mjs).
  const stream = await new Response(mebo.frameBlobs(streamBlobs())).arrayBuffer();
  writeFileSync(join(DIST, 'samples', STREAM_FILE), new Uint8Array(stream));
  writeFileSync(join(DIST, 'samples/index.json'), JSON.stringify({ default: DEFAULT_SAMPLE, samples, stream: { file: STREAM_FILE, names: namesOf(STREAM_SOURCE) } }));
  return samples.length;
}

/** A real series encoded here with the SDK: it ships as input data, not as a blob. */
function encodeReal(id, group, [inputFile, config], note) {
  const path = join(TESTDATA, 'real', inputFile);
  const input = readNumericInput(path);
  const bytes = mebo.encodeNumeric(input.metrics, { config, startTime: input.startTime });
  const file = `${id}.mebo`;
  writeFileSync(join(DIST, 'samples', file), bytes);
  return { id, label: `${id}: ${config}`, group, kind: 'numeric', files: [file], bytes: bytes.length, note, names: namesOf(path) };
}

/** The hosts sample (hosts-sample.mjs): a blob of ids, and its names as a text file beside it, not in the index. */
function writeHosts(id, group, note) {
  const { bytes, names } = hostsBlob();
  writeFileSync(join(DIST, 'samples', `${id}.mebo`), bytes);
  writeFileSync(join(DIST, 'samples', `${id}-names.txt`), names);
  return { id, label: `${id}: deltapacked-none-alp-none, ids only`, group, kind: 'numeric', files: [`${id}.mebo`], bytes: bytes.length, note, names: {} };
}

function copyBench() {
  const cases = readJson(join(TESTDATA, 'bench/manifest.json')).cases;
  const sizes = benchSizes();
  mkdirSync(join(DIST, 'bench'), { recursive: true });
  const out = cases.map((c) => {
    const file = `bench/${basename(c.file)}`;
    copyFileSync(join(TESTDATA, 'bench', c.file), join(DIST, file));
    const bytes = readFileSync(join(TESTDATA, 'bench', c.file));
    const Blob = c.kind === 'text' ? mebo.TextBlob : mebo.NumericBlob;
    const blob = Blob.from(bytes);
    const points = blob.totalPoints;
    blob.free();
    return { name: c.name, config: configName(c), kind: c.kind, file, bytes: c.size, gzip: sizes.blobs.find((b) => b.config === configName(c)).gzip, points };
  });
  const wasm = Object.fromEntries(['simd', 'scalar'].map((v) => [v, readFileSync(require.resolve(`mebo/wasm/mebo_${v}.wasm`)).length]));
  writeFileSync(join(DIST, 'bench/manifest.json'), JSON.stringify({ cases: out, json: sizes.json, arrow: sizes.arrow, wasm }));
  mkdirSync(join(DIST, 'reference'), { recursive: true });
  for (const f of ['seed-x86.json', 'go-v1.9-epyc.json']) copyFileSync(join(TESTDATA, 'reference', f), join(DIST, 'reference', f));
  const results = join(ROOT, 'bench-results.json');
  // Always present (null without a bench run), so the page never requests a missing file.
  if (existsSync(results)) copyFileSync(results, join(DIST, 'bench-results.json'));
  else writeFileSync(join(DIST, 'bench-results.json'), 'null\n');
  return { blobs: out.length, results: existsSync(results) };
}

await mebo.init();
rmSync(DIST, { recursive: true, force: true });
mkdirSync(join(DIST, 'wasm'), { recursive: true });

await build({
  entryPoints: { app: join(HERE, 'src/main.ts'), 'bench-worker': join(HERE, 'src/bench/worker.ts') },
  outdir: DIST,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});

/**
 * zstd-codec in a page: its emscripten glue requires fs, path and crypto only when it runs in Node
 * (left external: never called here), and its module.js picks between the wasm binding and an
 * asm.js one (1.3 MB) for engines without WebAssembly, which cannot run this page anyway: that
 * one is left out.
 */
const zstdCodecForBrowsers = {
  name: 'zstd-codec-for-browsers',
  setup(b) {
    b.onResolve({ filter: /^\.\/zstd-codec-binding\.js$/ }, () => ({ path: 'zstd-codec-asmjs', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: "module.exports = () => { throw new Error('zstd-codec: no WebAssembly'); };",
      loader: 'js',
    }));
  },
};

// The formats view's work and its peer libraries: a bundle of its own (with its own copy of the
// SDK), fetched only when the view runs, so the page's first load does not carry them.
await build({
  entryPoints: { 'formats-run': join(HERE, 'src/formats-run.ts') },
  outdir: DIST,
  bundle: true,
  external: ['fs', 'path', 'crypto'],
  plugins: [zstdCodecForBrowsers],
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});

copyFileSync(join(HERE, 'index.html'), join(DIST, 'index.html'));
copyFileSync(join(HERE, 'src/style.css'), join(DIST, 'style.css'));
copyFileSync(require.resolve('uplot/dist/uPlot.min.css'), join(DIST, 'uPlot.min.css'));
for (const variant of ['simd', 'scalar']) {
  copyFileSync(require.resolve(`mebo/wasm/mebo_${variant}.wasm`), join(DIST, `wasm/mebo_${variant}.wasm`));
}
copyFileSync(require.resolve('parquet-wasm/esm/parquet_wasm_bg.wasm'), join(DIST, 'wasm/parquet_wasm_bg.wasm'));
const sampleCount = await copySamples();
const bench = copyBench();
console.log(
  `web-demo: built ${DIST} (${sampleCount} samples, ${bench.blobs} bench blobs${bench.results ? ', bench-results.json' : ', no bench-results.json yet'})`,
);
