#!/usr/bin/env node
// `npm run bench`: decode and encode speed of mebo on every configuration of
// ../shared/bench, in one run, across runtimes:
//
//   rust-native           target/release/mebo-bench (crates/mebo-bench)
//   go-reference          the reference, mebo Go v1.9.0, decode + Materialize (bench/go-reference; needs `go`)
//   wasm-node             the SDK in Node: NumericBlob.from + decodeAll + free (simd build)
//   wasm-node-scalar      the same with the scalar build (own process: init is once per process)
//   wasm-chromium         the same in headless Debian Chromium (playwright-core, page on 127.0.0.1)
//   wasm-chromium-scalar  the same with the scalar build
//   json, arrow           JSON.parse / apache-arrow reads of the same data into typed arrays
//
// plus encode (rust-native, wasm-node) of every numeric configuration, sizes
// (blob vs JSON vs Arrow), the wasm binary sizes (full and decode-only), and
// the targets as PASS / MISS lines. Writes bench-results.json at the root.
//
//   node scripts/bench.mjs [--quick] [--rounds N] [--only RUNTIME,...] [--build] [--out FILE]
//
// --quick   few samples, one round (a smoke run; figures are not for reporting)
// --rounds  run every runtime N times in turn (default 3; 1 with --quick) and keep
//           each row's median over the rounds: other jobs' load drifts over all runtimes
// --only    run only these runtimes (rust-native, go-reference, wasm-node,
//           wasm-node-scalar, wasm-chromium, baselines)
// --build   rebuild the wasm and the SDK first (default: only when missing)
//
// Ratios against the reference are taken against its timing in this run when
// Go is available, and also against shared/reference/go-v1.9-epyc.json.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, output } from './lib.mjs';

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

if (!existsSync(join(ROOT, 'bench/node_modules/apache-arrow')) || !existsSync(join(ROOT, 'node_modules/.pnpm'))) {
  run(process.execPath, [join(ROOT, 'scripts/setup.mjs')]);
}
const sdkBuilt = ['packages/mebo/wasm/mebo_simd.wasm', 'packages/mebo/wasm/mebo_scalar.wasm', 'packages/mebo/wasm/mebo_decode_simd.wasm', 'packages/mebo/wasm/mebo_decode_scalar.wasm', 'packages/mebo/dist/index.js', 'packages/mebo/dist/document.js'].every(
  (file) => existsSync(join(ROOT, file)),
);
if (argv.includes('--build') || !sdkBuilt) run(process.execPath, [join(ROOT, 'scripts/build.mjs')]);

// Imported after setup: these resolve apache-arrow, esbuild and playwright-core from bench/.
const { BENCH_DIR, REFERENCE_DIR, manifest, readJson, sizes: benchSizes } = await import('../bench/data.mjs');
const { configName } = await import('../bench/harness.mjs');
const { cpuName } = await import('../bench/machine.mjs');

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
const roundRows = []; // every round's rows; merged below
const breakdown = [];
let crossOriginIsolated;
// The reference is timed only where a local, uncommitted harness exists in bench/go-reference
// (the project commits nothing that builds the reference); otherwise the recorded figures are used.
const hasGo = wants('go-reference') && existsSync(join(ROOT, 'bench/go-reference/main.go')) && output('go', ['version']) !== undefined;
if (wants('go-reference') && !hasGo) log('bench: no `go` on PATH: the reference is not timed in this run (the documented figures are still used)');
machine.go = hasGo ? output('go', ['version'])?.trim() : undefined;

if (wants('rust-native')) run('cargo', ['build', '--release', '-p', 'mebo-bench']);
if (hasGo) run('go', ['build', '-o', join(tmp, 'go-reference'), '.'], { cwd: join(ROOT, 'bench/go-reference') });

/** Run a child that writes JSON to `out`; returns what it wrote. */
function child(what, command, args, out) {
  log(`bench: ${what}`);
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], cwd: ROOT });
  if (result.status !== 0) throw new Error(`${what} exited with ${result.status ?? result.signal}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

function nodeRunner(variant, extra) {
  const out = join(tmp, `node-${variant}.json`);
  const script = join(ROOT, 'bench/node-runner.mjs');
  return child(`wasm-node (${variant})`, process.execPath, [script, '--variant', variant, '--out', out, ...extra, ...(quick ? ['--quick'] : [])], out);
}

// Each round runs every runtime once, in turn, so slow drifts of the machine's
// load (other jobs) spread over all runtimes instead of skewing one of them.
for (let round = 1; round <= rounds; round++) {
  if (rounds > 1) log(`bench: round ${round} of ${rounds}`);
  const rows = [];
  if (wants('rust-native')) {
    const out = join(tmp, 'native.json');
    rows.push(...child('rust-native', join(ROOT, 'target/release/mebo-bench'), ['--json', out, ...(quick ? ['--quick'] : [])], out));
  }
  if (hasGo) {
    const out = join(tmp, 'go.json');
    rows.push(...child('go-reference', join(tmp, 'go-reference'), ['-bench-dir', BENCH_DIR, '-out', out, ...(quick ? ['-quick'] : [])], out));
  }
  if (wants('wasm-node') || wants('baselines')) {
    const extra = [...(wants('wasm-node') ? ['--encode', '--decimate', '--pool'] : ['--no-decode']), ...(wants('wasm-node') && round === 1 ? ['--breakdown'] : []), ...(wants('baselines') ? ['--baselines'] : [])];
    const written = nodeRunner('simd', extra);
    rows.push(...written.rows);
    breakdown.push(...written.breakdown);
  }
  if (wants('wasm-node-scalar')) rows.push(...nodeRunner('scalar', []).rows);
  if (wants('wasm-chromium')) {
    log('bench: wasm-chromium');
    const { runChromium } = await import('../bench/chromium.mjs');
    const result = await runChromium({ quick, log, breakdown: round === 1 });
    rows.push(...result.rows);
    breakdown.push(...result.breakdown);
    machine.chromium = result.version;
    crossOriginIsolated = result.crossOriginIsolated;
  }
  roundRows.push(rows);
}

/** Per row: the median over rounds of the per-round medians, the least minimum, all samples counted. */
const rows = roundRows[0].map((first) => {
  const same = roundRows.map((rs) => rs.find((r) => r.config === first.config && r.runtime === first.runtime && r.op === first.op)).filter(Boolean);
  const medians = same.map((r) => r.median_ns).sort((a, b) => a - b);
  return {
    ...first,
    median_ns: medians[medians.length >> 1],
    min_ns: Math.min(...same.map((r) => r.min_ns)),
    runs: same.reduce((n, r) => n + r.runs, 0),
    ...(same.length > 1 ? { round_medians_ns: same.map((r) => r.median_ns) } : {}),
  };
});
machine.load_average_end = loadavg().map((l) => Number(l.toFixed(2)));
machine.wasm_opt = findWasmOpt()?.version;

// ---------------------------------------------------------------- references

const cases = manifest();
const goRows = readJson(join(REFERENCE_DIR, 'go-v1.9-epyc.json')).rows;
const seed = readJson(join(REFERENCE_DIR, 'seed-x86.json'));
const caseByConfig = new Map(cases.map((c) => [configName(c), c]));
const goDecodeNs = (config) => goRows.find((r) => r.name === caseByConfig.get(config)?.name)?.decode_materialize_ns;
const seedNs = (config, op) => {
  const us = op === 'encode' ? seed.encode_250pts[config] : seed.decode_iterate_250pts[config]?.total;
  return us === undefined ? undefined : us * 1e3;
};

/** The reference timed in this run (go-reference rows), when Go was available. */
const goRunNs = (config) => rows.find((r) => r.runtime === 'go-reference' && r.config === config)?.median_ns;

for (const row of rows) {
  const go = row.op.startsWith('decode') ? goDecodeNs(row.config) : undefined;
  const goRun = row.op.startsWith('decode') && row.runtime !== 'go-reference' ? goRunNs(row.config) : undefined;
  const x86 = seedNs(row.config, row.op);
  if (go !== undefined) Object.assign(row, { go_epyc_ns: go, vs_go_epyc: round(go / row.median_ns) });
  if (goRun !== undefined) Object.assign(row, { go_run_ns: goRun, vs_go_run: round(goRun / row.median_ns) });
  if (x86 !== undefined) Object.assign(row, { seed_x86_ns: x86, vs_seed_x86: round(x86 / row.median_ns) });
}

// ---------------------------------------------------------------- sizes

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const measuredSizes = benchSizes();
const sizes = { ...measuredSizes, blobs: measuredSizes.blobs.map(({ kind, ...s }) => ({ ...s, seed_x86: seed.sizes_250pts[s.config] })) };

const wasm = wasmSizes();

// ---------------------------------------------------------------- report

const find = (config, runtime, op = 'decode') => rows.find((r) => r.config === config && r.runtime === runtime && r.op === op);
const us = (ns) => (ns === undefined ? '-' : (ns / 1e3).toFixed(1));
const ratio = (x) => (x === undefined || !Number.isFinite(x) ? '-' : `${x.toFixed(2)}x`);

console.log('');
console.log(`mebo bench (${quick ? 'QUICK run: few samples, not for reporting' : `full run, ${rounds} round${rounds > 1 ? 's' : ''}`}) — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${machine.rustc}${machine.chromium ? `, chromium ${machine.chromium}` : ''}${machine.go ? `, ${machine.go}` : ''}`);
console.log(`load average at start ${machine.load_average_start.join(' ')}, at end ${machine.load_average_end.join(' ')}; nice ${machine.nice}`);
console.log('ratios: reference time / our median (above 1: faster than the reference).');
console.log('  go run:   the reference (mebo Go v1.9.0) decode + Materialize, timed in this run on the same blobs (bench/go-reference)');
console.log('  go epyc:  the same, as recorded in shared/reference/go-v1.9-epyc.json (another run; absolute times drift with load)');
console.log('  seed x86: documented i7-9700K figures (decode + iterate total; encode)');
console.log('');
const header = ['config', 'runtime', 'op', 'points', 'bytes', 'median µs', 'min µs', 'Mpts/s', 'vs go run', 'vs go epyc', 'vs seed x86'];
const widths = [36, 20, 6, 7, 8, 10, 10, 8, 10, 10, 11];
const line = (cells) => cells.map((c, i) => (i < 3 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
console.log(line(header));
const runtimeOrder = ['rust-native', 'go-reference', 'wasm-node', 'wasm-node-scalar', 'wasm-chromium', 'wasm-chromium-scalar', 'json', 'arrow'];
const configOrder = [...cases.map(configName), 'json', 'arrow'];
rows.sort(
  (a, b) =>
    configOrder.indexOf(a.config) - configOrder.indexOf(b.config) ||
    a.op.localeCompare(b.op) ||
    runtimeOrder.indexOf(a.runtime) - runtimeOrder.indexOf(b.runtime),
);
for (const r of rows) {
  console.log(
    line([r.config, r.runtime, r.op, r.points, r.bytes, us(r.median_ns), us(r.min_ns), ((r.points / r.median_ns) * 1e3).toFixed(1), ratio(r.vs_go_run), ratio(r.vs_go_epyc), ratio(r.vs_seed_x86)]),
  );
}

// Compact decode matrix: one line per configuration.
console.log('');
console.log('decode, median µs per blob (numeric: 50,000 points; text: 10,005 points)');
const mHeader = ['config', 'native', 'go run', 'go epyc', 'node', 'node-in', 'node-vw', 'node-sc', 'chrom', 'chrom-in', 'chrom-vw', 'chrom-sc', 'node/go', 'in/go', 'nat/go', 'chr/node', 'simd gain'];
const mWidths = [32, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 6, 7, 8, 9];
const mLine = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(mWidths[i]) : String(c).padStart(mWidths[i] ?? 8))).join(' ');
console.log(mLine(mHeader));
/** The reference figure a ratio is taken against: this run's when Go ran, else the recorded one. */
const goRef = (config) => goRunNs(config) ?? goDecodeNs(config);
for (const config of cases.map(configName)) {
  const [nat, node, nodeSc, chr, chrSc] = ['rust-native', 'wasm-node', 'wasm-node-scalar', 'wasm-chromium', 'wasm-chromium-scalar'].map(
    (rt) => find(config, rt)?.median_ns,
  );
  const nodeInto = find(config, 'wasm-node', 'decode-into')?.median_ns;
  const [nodeView, chrInto, chrView] = [['wasm-node', 'decode-view'], ['wasm-chromium', 'decode-into'], ['wasm-chromium', 'decode-view']].map(([rt, op]) => find(config, rt, op)?.median_ns);
  const go = goRef(config);
  console.log(
    mLine([config, us(nat), us(goRunNs(config)), us(goDecodeNs(config)), us(node), us(nodeInto), us(nodeView), us(nodeSc), us(chr), us(chrInto), us(chrView), us(chrSc), ratio(go / node), ratio(go / nodeInto), ratio(go / nat), ratio(chr / node), ratio(nodeSc / node)]),
  );
}
for (const base of ['json', 'arrow']) {
  const r = find(base, base);
  if (r) console.log(`${`${base}: ${r.bytes} bytes`.padEnd(32)} ${us(r.median_ns)} µs (JSON.parse / apache-arrow tableFromIPC into typed arrays, same 50,000 points)`);
}
console.log(`(node, chrom: decodeAll into fresh arrays; -in: decodeAllInto arrays kept from the previous call; -vw: columnsView, views of the module's memory; node/go, in/go, nat/go: against ${rows.some((r) => r.runtime === 'go-reference') ? 'go run' : 'go epyc'}; simd gain: node scalar / node simd)`);

if (breakdown.length) {
  console.log('');
  console.log('decode breakdown (round 1, simd build), median µs. open: NumericBlob.from (copy into wasm, parse, decompress, own the');
  console.log('payloads) + free. decodeAll: decode in wasm + new typed arrays copied out. For scale, the two 8-byte-per-point output');
  console.log('columns copied out of a wasm memory view into fresh typed arrays (what the glue does) and into reused ones.');
  console.log(mLine(['config', 'runtime', 'decode', 'open', 'decAll', 'fresh', 'reused', 'native']).trimEnd());
  for (const b of breakdown) {
    console.log(
      mLine([b.config, b.runtime.replace('wasm-', ''), us(find(b.config, b.runtime)?.median_ns), us(b.open_free_ns), us(b.decode_all_ns), us(b.copy_out_fresh_ns), us(b.copy_out_reused_ns), us(find(b.config, 'rust-native')?.median_ns)]).trimEnd(),
    );
  }
}

const isDecimation = (r) => r.op.startsWith('decimate-') && !r.op.endsWith('-js') && r.op !== 'decimate-decode-view';
const decimateRows = rows.filter(isDecimation);
if (decimateRows.length) {
  console.log('');
  console.log('decimation for a chart: every metric thinned to 1,000 points, median µs (open + decimate in wasm, vs timestampsMs + values');
  console.log('from wasm and the same algorithm in JavaScript); ratio: JavaScript / wasm (above 1: decimate is faster)');
  console.log('decode: open + columnsView + free, the decode both sides pay; bound: js / decode, the ratio a free decimation would reach');
  console.log(mLine(['config', 'runtime', 'method', 'wasm', 'js', 'js/wasm', 'decode', 'bound']).trimEnd());
  for (const r of decimateRows) {
    const js = find(r.config, r.runtime, `${r.op}-js`);
    const decode = find(r.config, r.runtime, 'decimate-decode-view');
    console.log(
      mLine([r.config, r.runtime.replace('wasm-', ''), r.op.replace('decimate-', ''), us(r.median_ns), us(js?.median_ns), ratio(js && js.median_ns / r.median_ns), us(decode?.median_ns), ratio(js && decode && js.median_ns / decode.median_ns)]).trimEnd(),
    );
  }
}

const poolRowsOf = rows.filter((r) => r.op === 'decode-pool');
if (poolRowsOf.length) {
  console.log('');
  console.log('mebo/worker: 8 bench blobs decoded one after another on one thread vs at once by the pool (a worker per core), and one');
  console.log('3-point blob (the per-call overhead: post, decode in a worker, transfer back), median µs');
  console.log(mLine(['config', 'runtime', 'workers', 'serial', 'pool', 'speedup']).trimEnd());
  for (const r of poolRowsOf) {
    const serial = find(r.config, r.runtime, 'decode-serial');
    console.log(mLine([r.config, r.runtime.replace('wasm-', ''), r.workers ?? '-', us(serial?.median_ns), us(r.median_ns), ratio(serial && serial.median_ns / r.median_ns)]).trimEnd());
  }
}

console.log('');
console.log(`sizes (same 200 x 250 points): JSON ${sizes.json.bytes} bytes (${sizes.json.gzip} gzipped), Arrow IPC ${sizes.arrow.bytes} (${sizes.arrow.gzip} gzipped)`);
console.log(mLine(['config', 'bytes', 'gzip', 'seed-x86', 'vs JSON', 'vs Arrow']).trimEnd());
for (const s of sizes.blobs) {
  const numeric = !s.config.startsWith('text-');
  console.log(
    mLine([s.config, s.bytes, s.gzip, s.seed_x86 ?? '-', numeric ? `${((s.bytes / sizes.json.bytes) * 100).toFixed(1)}%` : '', numeric ? `${((s.bytes / sizes.arrow.bytes) * 100).toFixed(1)}%` : '']).trimEnd(),
  );
}

console.log('');
console.log('wasm binaries (wasm-opt -O3), bytes raw / gzip -9:');
for (const w of wasm) console.log(`  ${w.name.padEnd(26)} ${String(w.bytes).padStart(8)} / ${String(w.gzip).padStart(7)}${w.note ? `   ${w.note}` : ''}`);

// ---------------------------------------------------------------- targets

const numeric = cases.filter((c) => c.kind === 'numeric').map(configName);
const textConfigs = cases.filter((c) => c.kind === 'text').map(configName);
const decodeConfigs = cases.map(configName);
const simdConfigs = cases
  .filter((c) => c.kind === 'numeric' && (c.options.timestampEncoding === 'deltapacked' || ['raw', 'alp'].includes(c.options.valueEncoding)))
  .map(configName);
/**
 * The targets, on a statistic of the rows: `median_ns` (the reported figures)
 * or `min_ns` (each row's least-disturbed sample: with other jobs on the
 * machine, the ratio of minima is the steadier in-run comparison). With
 * `min_ns` only comparisons between runtimes of this run are made.
 */
function targetsFor(stat) {
  const inRunOnly = stat === 'min_ns';
  const t = (r) => r?.[stat];
  const goRun = (c) => rows.find((r) => r.runtime === 'go-reference' && r.config === c)?.[stat];
  const faster = (runtime, factor, op = 'decode', configs = numeric, what = 'every numeric config') =>
    [
      ['go run', goRun],
      ['go epyc', goDecodeNs],
    ]
      .filter(([label]) => !inRunOnly || label === 'go run')
      .map(([label, ref]) =>
        check(`${runtime} ${op} >= ${factor}x faster than the reference decode + Materialize (${label}), ${what}`, configs, (c) => {
          const ours = t(find(c, runtime, op));
          const go = ref(c);
          return ours !== undefined && go !== undefined && { value: go / ours, ok: go / ours >= factor };
        }),
      );
  const slower = (name, configs, runtime, base, factor, op = 'decode') =>
    check(name, configs, (c) => {
      const a = t(find(c, runtime, op));
      const b = t(find(c, base, op));
      return a !== undefined && b !== undefined && { value: a / b, ok: a <= factor * b };
    });
  const simdGain = (name, simdRuntime, scalarRuntime, op = 'decode') =>
    check(name, simdConfigs, (c) => {
      const simd = t(find(c, simdRuntime, op));
      const scalar = t(find(c, scalarRuntime, op));
      return simd !== undefined && scalar !== undefined && { value: scalar / simd, ok: scalar >= 1.2 * simd };
    });
  return [
    // The call a user makes first, into fresh typed arrays (decodeAll), and the
    // same into typed arrays kept from the previous call (decodeAllInto): what
    // the SDK does without the host's allocation of fresh output arrays.
    ...['wasm-node', 'wasm-chromium'].flatMap((runtime) => [...faster(runtime, 1.5), ...faster(runtime, 2, 'decode-into')]),
    // Text: TextBlob.decodeAll, every value of every metric (as dictionaries).
    ...['wasm-node', 'wasm-chromium'].flatMap((runtime) => faster(runtime, 1.5, 'decode', textConfigs, 'every text config')),
    slower('wasm-chromium within 1.2x of wasm-node (every config)', decodeConfigs, 'wasm-chromium', 'wasm-node', 1.2),
    slower('wasm-chromium decode-into within 1.2x of wasm-node decode-into (every numeric config)', numeric, 'wasm-chromium', 'wasm-node', 1.2, 'decode-into'),
    ...faster('rust-native', 3),
    simdGain('simd >= 1.2x faster than scalar, wasm-node (deltapacked timestamps, raw or alp values)', 'wasm-node', 'wasm-node-scalar'),
    simdGain('simd >= 1.2x faster than scalar, wasm-chromium (same configs)', 'wasm-chromium', 'wasm-chromium-scalar'),
    // decodeAll's fresh arrays cost the same in both builds and swing with the
    // engine's GC: into kept arrays, the ratio is that of the two builds' code.
    simdGain('simd >= 1.2x faster than scalar, wasm-node decode-into (same configs)', 'wasm-node', 'wasm-node-scalar', 'decode-into'),
    simdGain('simd >= 1.2x faster than scalar, wasm-chromium decode-into (same configs)', 'wasm-chromium', 'wasm-chromium-scalar', 'decode-into'),
    ...['wasm-node', 'wasm-chromium'].map((runtime) =>
      check(`${runtime}: mebo/worker pool >= 1.6x one thread on 8 bench blobs`, ['bench-8-blobs'], (config) => {
        const serial = t(find(config, runtime, 'decode-serial'));
        const pool = t(find(config, runtime, 'decode-pool'));
        return serial !== undefined && pool !== undefined && { value: serial / pool, ok: serial >= 1.6 * pool };
      }),
    ),
    ...['wasm-node', 'wasm-chromium'].map((runtime) =>
      check(`${runtime}: decode + decimate in wasm >= 3x faster than decode + the same decimation in JavaScript`, decimateRowsFor(runtime), (key) => {
        const [config, op] = key.split(' ');
        const wasm = t(find(config, runtime, op));
        const js = t(find(config, runtime, `${op}-js`));
        return wasm !== undefined && js !== undefined && { value: js / wasm, ok: js >= 3 * wasm };
      }),
    ),
    ...(inRunOnly
      ? []
      : ['rust-native', 'wasm-node'].map((runtime) =>
          check(`${runtime} encode at least as fast as the documented encode (seed-x86 encode_250pts)`, Object.keys(seed.encode_250pts).filter((c) => caseByConfig.has(c)), (c) => {
            const ours = t(find(c, runtime, 'encode'));
            return ours !== undefined && { value: seedNs(c, 'encode') / ours, ok: ours <= seedNs(c, 'encode') };
          }),
        )),
  ];
}
const targets = targetsFor('median_ns');
const targetsMin = targetsFor('min_ns');
console.log('');
console.log('targets, on the medians:');
for (const t of targets) console.log(t.line);
console.log('');
console.log('the same in-run comparisons on each row\'s least-disturbed sample (min):');
for (const t of targetsMin) console.log(t.line);
if (crossOriginIsolated === false) console.log('note: the Chromium page was not cross-origin isolated (100 µs timer)');
printBounds();

writeFileSync(outFile, `${JSON.stringify({ machine, results: rows, breakdown, sizes, wasm, targets: targets.map(({ line, ...t }) => t), targets_min: targetsMin.map(({ line, ...t }) => t) }, null, 1)}\n`);
log(`bench: wrote ${rows.length} rows to ${outFile}`);

// ---------------------------------------------------------------- helpers

/**
 * What bounds each miss of the SDK's decode targets against the reference
 * timed in this run: the budget (reference / factor) beside the parts of our
 * time measured on their own. `view` is open + decode in wasm + free with no
 * copy out (columnsView), `copy` the copy out alone (the breakdown's copy
 * into fresh typed arrays for decode, into kept ones for decode-into),
 * `native` the same decoder compiled for the CPU. A part above the budget,
 * or view + copy (both unavoidable for the call), bounds the miss whatever
 * the rest does.
 */
function printBounds() {
  const goRun = (c) => find(c, 'go-reference')?.median_ns;
  const lines = [];
  for (const runtime of ['wasm-node', 'wasm-chromium']) {
    for (const [op, factor] of [['decode', 1.5], ['decode-into', 2]]) {
      for (const config of numeric) {
        const ours = find(config, runtime, op)?.median_ns;
        const go = goRun(config);
        if (ours === undefined || go === undefined || ours * factor <= go) continue;
        const budget = go / factor;
        const view = find(config, runtime, 'decode-view')?.median_ns;
        const native = find(config, 'rust-native')?.median_ns;
        // The copy out each call must make: into fresh arrays (decode) or the caller's (decode-into).
        const parts = breakdown.find((b) => b.config === config && b.runtime === runtime);
        const copy = op === 'decode' ? parts?.copy_out_fresh_ns : parts?.copy_out_reused_ns;
        const bound =
          copy !== undefined && copy > budget
            ? 'the copy out alone'
            : native !== undefined && native > budget
              ? 'the decoder even natively'
              : view !== undefined && view > budget
                ? 'the decode in wasm alone'
                : view !== undefined && copy !== undefined && view + copy > budget
                  ? 'decode in wasm + copy out'
                  : `glue: ${us(ours - (view ?? 0) - (copy ?? 0))} µs unexplained`;
        lines.push(mLine([config, runtime.replace('wasm-', ''), op, us(go), us(budget), us(ours), us(view), us(copy), us(native), bound]).trimEnd());
      }
    }
  }
  if (lines.length === 0) return;
  console.log('');
  console.log('what bounds each miss of the SDK decode targets (median µs; budget = go run / factor: 1.5 for decode, 2 for decode-into;');
  console.log('view = open + decode in wasm + free, no copy out; copy = the copy out alone, into fresh arrays for decode and kept ones for decode-into;');
  console.log('bound = the first part, or sum of the two parts, above the budget)');
  console.log(mLine(['config', 'runtime', 'op', 'go run', 'budget', 'ours', 'view', 'copy', 'native', 'bound']).trimEnd());
  for (const l of lines) console.log(l);
}

function round(x) {
  return Math.round(x * 1000) / 1000;
}

/** `config op` keys of the decimation rows of a runtime (the wasm side). */
function decimateRowsFor(runtime) {
  return rows.filter((r) => r.runtime === runtime && isDecimation(r)).map((r) => `${r.config} ${r.op}`);
}

/** One target over `configs`: `measure(config)` returns `{ value, ok }` or undefined when not measured. */
function check(name, configs, measure) {
  const results = configs.map((config) => ({ config, ...measure(config) })).filter((r) => r.ok !== undefined);
  if (results.length === 0) return { name, status: 'SKIP', line: `SKIP  ${name}: not measured in this run` };
  const misses = results.filter((r) => !r.ok);
  const worst = results.reduce((a, b) => (name.includes('within') ? (b.value > a.value ? b : a) : b.value < a.value ? b : a));
  const status = misses.length === 0 ? 'PASS' : 'MISS';
  const detail =
    misses.length === 0
      ? `${results.length}/${results.length}, worst ${worst.config} ${worst.value.toFixed(2)}x`
      : `${results.length - misses.length}/${results.length}; missed: ${misses.map((m) => `${m.config} ${m.value.toFixed(2)}x`).join(', ')}`;
  return {
    name,
    status,
    results: results.map((r) => ({ config: r.config, value: round(r.value), ok: r.ok })),
    line: `${status}  ${name}: ${detail}`,
  };
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
