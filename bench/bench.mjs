#!/usr/bin/env node
// `npm run bench`: decode and encode speed of mebo on every configuration of
// testdata/bench, in one run, across runtimes:
//
//   rust-native           target/release/mebo-bench (crates/mebo-bench)
//   go-reference          the reference, mebo Go v1.9.0, decode + Materialize (reference/; needs Go >= 1.25)
//   wasm-node             the SDK in Node: NumericBlob.from + decodeAll + free (simd build)
//   wasm-node-scalar      the same with the scalar build (own process: init is once per process)
//   wasm-node-core        the same through mebo/decode's light core and its zstd part (what a page loads)
//   wasm-chromium         the same in headless Debian Chromium (playwright-core, page on 127.0.0.1)
//   wasm-chromium-scalar  the same with the scalar build
//   wasm-chromium-core    the same through mebo/decode's light core and its zstd part, as the package ships
//   json, arrow           JSON.parse / apache-arrow reads of the same data into typed arrays
//   peers                 mebo (default, auto, best) beside JSON, Arrow IPC plain and zstd, Parquet zstd
//                         (parquet-wasm, hyparquet) on the bench input and testdata/real (bench/peers.mjs)
//   first-load            with wasm-chromium: ms to init() and to the first blob, cold cache (bench/first-load.mjs)
//   kernels               each timestamp and value decoder alone, ns per point, natively (mebo-bench
//                         --kernels-json), in Node (the same built for wasm32-wasip1, bench/kernels-node.mjs)
//                         and, with wasm-chromium, in Chromium (that build's simd variant, bench/kernels-chromium.mjs)
//   stream                decodeStream over the bench blobs framed into one stream vs from memory, and a 1 GB stream's rss (bench/stream.mjs)
//
// plus encode (rust-native, wasm-node) of every numeric configuration, sizes
// (blob vs JSON vs Arrow), the wasm binary sizes (full and decode-only), and
// the targets as PASS / MISS lines. Writes bench-results.json at the root.
//
//   node bench/bench.mjs [--quick] [--rounds N] [--only RUNTIME,...] [--build] [--out FILE]
//
// --quick   few samples, one round (a smoke run; figures are not for reporting)
// --rounds  run every runtime N times in turn (default 3; 1 with --quick) and keep
//           each row's median over the rounds: other jobs' load drifts over all runtimes
// --only    run only these runtimes (rust-native, go-reference, wasm-node,
//           wasm-node-scalar, wasm-node-core, wasm-chromium, baselines, peers, kernels, stream)
// --build   rebuild the wasm and the SDK first (default: only when missing)
//
// Ratios against the reference are taken against its timing in this run when
// Go is available, and also against testdata/reference/go-v1.9-epyc.json.
//
// This file parses the arguments and builds what the runs need; bench/lib/rounds.mjs
// runs the rounds, bench/lib/report.mjs prints the tables, bench/lib/targets.mjs
// judges the targets.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromiumKernels } from './kernels-chromium.mjs';
import { firstLoad } from './first-load.mjs';
import { nodeKernels } from './kernels-node.mjs';
import { printKernels, printReport } from './lib/report.mjs';
import { runRounds, withReferences } from './lib/rounds.mjs';
import { printBounds, targetsFor } from './lib/targets.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const valueOf = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const only = valueOf('--only')?.split(',');
const wants = (runtime) => !only || only.includes(runtime);
const outFile = valueOf('--out') ?? join(ROOT, 'bench-results.json');
const log = (line) => process.stderr.write(`${line}\n`);

/** Run a command, its output on stderr (stdout is the report); exit when it fails. */
function run(command, args, options = {}) {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], cwd: ROOT, ...options });
  if (result.status !== 0) {
    log(`${command} failed: ${result.error?.message ?? `exit ${result.status ?? result.signal}`}`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------- prerequisites

if (!existsSync(join(ROOT, 'bench/node_modules/mebo-tooling')) || !existsSync(join(ROOT, 'node_modules/.pnpm'))) {
  run(process.execPath, [join(ROOT, 'scripts/setup.mjs')]);
}
const sdkBuilt = ['packages/mebo/wasm/mebo_simd.wasm', 'packages/mebo/wasm/mebo_scalar.wasm', 'packages/mebo/wasm/mebo_decode_simd.wasm', 'packages/mebo/wasm/mebo_decode_scalar.wasm', 'packages/mebo/dist/index.js', 'packages/mebo/dist/document.js'].every(
  (file) => existsSync(join(ROOT, file)),
);
if (argv.includes('--build') || !sdkBuilt) run(process.execPath, [join(ROOT, 'scripts/build.mjs')]);

// Imported after setup: these resolve apache-arrow, esbuild and playwright-core from bench/.
const { BENCH_DIR, REFERENCE_DIR, manifest, readJson, sizes: benchSizes } = await import('mebo-tooling/data');
const { configName } = await import('mebo-tooling/harness');
const { commandOutput: output, cpuName } = await import('mebo-tooling/machine');
const { buildReference } = await import('mebo-tooling/reference');

const tmp = mkdtempSync(join(tmpdir(), 'mebo-bench-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const startLoad = loadavg();
if (startLoad[0] > cpus().length * 0.75) {
  log(`bench: load average ${startLoad.map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores: other jobs are running, figures will be noisy`);
}


// ---------------------------------------------------------------- runs

const machine = {
  cpu: cpuName(),
  cores: cpus().length,
  node: process.version,
  rustc: output('rustc', ['--version'])?.trim(),
  chromium: undefined,
  date: new Date().toISOString(),
  plan: quick ? 'quick' : 'full',
  load_average_start: startLoad.map((l) => Number(l.toFixed(2))),
};

const rounds = Number(valueOf('--rounds') ?? (quick ? 1 : 3));
machine.rounds = rounds;
machine.nice = getPriority();
if (wants('rust-native') || wants('kernels')) run('cargo', ['build', '--release', '-p', 'mebo-bench']);
// The reference (reference/, GOMAXPROCS=1) is timed in this run wherever Go >= 1.25 is on PATH.
const reference = wants('go-reference') ? buildReference(log) : { reason: 'not asked for (--only)' };
if (reference.reason && wants('go-reference')) log(`bench: the reference is NOT timed in this run (${reference.reason}): the recorded figures of testdata/reference stand in`);
machine.go = reference.go;
machine.reference = reference.binary ? 'timed in this run (reference/, GOMAXPROCS=1)' : `not timed in this run (${reference.reason}); recorded figures stand in`;
const goBinary = reference.binary;

const { rows, breakdown, chromium } = await runRounds({ rounds, quick, wants, goBinary, benchDir: BENCH_DIR, tmp, log });
machine.chromium = chromium.version;
machine.load_average_end = loadavg().map((l) => Number(l.toFixed(2)));
machine.wasm_opt = findWasmOpt()?.version;

const results = withReferences(rows, {
  cases: manifest(),
  goRows: readJson(join(REFERENCE_DIR, 'go-v1.9-epyc.json')).rows,
  seed: readJson(join(REFERENCE_DIR, 'seed-x86.json')),
  configName,
});

// ---------------------------------------------------------------- sizes

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const measuredSizes = benchSizes();
const sizes = { ...measuredSizes, blobs: measuredSizes.blobs.map(({ kind, ...s }) => ({ ...s, seed_x86: results.seed.sizes_250pts[s.config] })) };
const wasm = wasmSizes();

// ---------------------------------------------------------------- report and targets

printReport(results, { machine, quick, rounds, breakdown, sizes, wasm });

const targets = targetsFor(results, 'median_ns');
const targetsMin = targetsFor(results, 'min_ns');
console.log('');
console.log('targets, on the medians:');
for (const t of targets) console.log(t.line);
console.log('');
console.log('the same in-run comparisons on each row\'s least-disturbed sample (min):');
for (const t of targetsMin) console.log(t.line);
if (chromium.crossOriginIsolated === false) console.log('note: the Chromium page was not cross-origin isolated (100 µs timer)');
printBounds(results, breakdown);

// The kernels alone, after the rounds, as many times as there are rounds (each figure the median
// over them: one sitting can fall in a load spike): natively and in Node (simd and scalar builds),
// then in Chromium (simd), whose sittings come last: a browser just closed can still take a core.
let kernels;
if (wants('kernels')) {
  const sittings = [];
  for (let r = 0; r < rounds; r++) {
    const native = spawnSync(join(ROOT, 'target/release/mebo-bench'), ['--kernels-json', ...(quick ? ['--quick'] : [])], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 2] });
    if (native.status !== 0) {
      log(`bench: mebo-bench --kernels-json failed (exit ${native.status ?? native.signal})`);
      break;
    }
    sittings.push([{ variant: 'native', ...JSON.parse(native.stdout.trim().split('\n').pop()) }, ...(await nodeKernels({ quick, log }))]);
  }
  // Chromium runs the simd build only: the bound of its rows, beside Node's.
  for (const sitting of wants('wasm-chromium') ? sittings : []) {
    sitting.push(...(await chromiumKernels({ quick, variants: ['simd'], log })).map((k) => ({ ...k, variant: 'chromium' })));
  }
  if (sittings.length) {
    kernels = medianKernels(sittings);
    printKernels(results, kernels, breakdown);
  }
}

// Time to the first blob in Chromium, cold cache: mebo/decode's light core and parts: 'all'.
if (wants('wasm-chromium')) await firstLoad({ quick, log: console.log });

// Peers: their own process, tables on stdout, figures into the results file.
let peers;
if (wants('peers')) {
  const peersFile = join(tmp, 'peers.json');
  const result = spawnSync(process.execPath, [join(ROOT, 'bench/peers.mjs'), '--out', peersFile, ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'inherit', 2], cwd: ROOT });
  if (result.status === 0) peers = readJson(peersFile);
  else log(`bench: peers failed (exit ${result.status ?? result.signal})`);
}

// Streams of blobs (bench/stream.mjs): decodeStream beside decoding from memory, and a 1 GB stream's memory.
const stream = wants('stream') ? await (await import('./stream.mjs')).runStreamBench({ quick, chromium: wants('wasm-chromium'), log }) : undefined;
writeFileSync(outFile, `${JSON.stringify({ machine, results: rows, breakdown, sizes, wasm, kernels, peers, stream, targets: targets.map(({ line, ...t }) => t), targets_min: targetsMin.map(({ line, ...t }) => t) }, null, 1)}\n`);
log(`bench: wrote ${rows.length} rows to ${outFile}`);

// ---------------------------------------------------------------- helpers

/** Each variant's kernels, every figure the median over the sittings (each sitting lists the same variants). */
function medianKernels(sittings) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return sittings[0].map((first, i) => {
    const of = (side) => Object.fromEntries(Object.keys(first[side]).map((enc) => [enc, median(sittings.map((s) => s[i][side][enc]))]));
    const blobs = Object.fromEntries(
      Object.keys(first.blobs ?? {}).map((config) => [config, Object.fromEntries(Object.keys(first.blobs[config]).map((t) => [t, median(sittings.map((s) => s[i].blobs[config][t]))]))]),
    );
    return { ...first, timestamps: of('timestamps'), values: of('values'), blobs, sittings: sittings.length };
  });
}

/** binaryen's wasm-opt: the workspace's pinned npm build, else PATH (as scripts/build.mjs). */
function findWasmOpt() {
  for (const command of [join(ROOT, 'node_modules/.bin/wasm-opt'), 'wasm-opt']) {
    const version = output(command, ['--version']);
    if (version !== undefined) return { command, version: version.trim() };
  }
  return undefined;
}

/**
 * Sizes of the shipped builds: the full module and the decode-only one
 * (`mebo/decode`, built and checked for encoder exports by scripts/build.mjs).
 */
function wasmSizes() {
  const entry = (name, bytes, note) => ({ name, bytes: bytes.length, gzip: gz(bytes), note });
  const read = (file) => readFileSync(join(ROOT, 'packages/mebo/wasm', file));
  const list = ['simd', 'scalar'].map((v) => entry(`full, ${v}`, read(`mebo_${v}.wasm`)));
  const full = list[0];
  for (const v of ['simd', 'scalar']) {
    const bytes = read(`mebo_decode_${v}.wasm`);
    list.push(entry(`decode-only, ${v}`, bytes, `mebo/decode; ${((1 - bytes.length / full.bytes) * 100).toFixed(0)}% smaller raw, ${((1 - gz(bytes) / full.gzip) * 100).toFixed(0)}% gzipped than full simd`));
  }
  return list;
}
