#!/usr/bin/env node
// Resources past one blob, per scenario of hostile or oversized input (set materialize is
// bench/sets.mjs): the outcome (an error code, or "correct" when the result
// was checked), the time, the module's linear memory after and at its peak,
// and the process's RSS before and after (collected) and at its peak. A benchmark, not a test: it prints one
// JSON line per scenario, each run in a child process of its own so that its
// RSS is its own.
//
// - oneBlob:      one blob of --points points (default 64 Mi: delta
//                 timestamps, constant ALP values, zstd; a few KB) decoded
//                 (columnsView) under the default budget; then a small blob
//                 must decode exactly, and reset() give the memory back;
// - eightOpen:    eight blobs of --valid-points points (each within the
//                 budget) held open, each decoded (columnsView), then freed;
// - limit:<name>: each crafted blob of the core's hostile fixtures
//                 (bombs, the 98-byte zstd frame declaring 256 MiB, counts,
//                 short columns) through NumericBlob/TextBlob, in one child;
// - pool:*:       a DecodePool of one worker: a hostile job then a valid one;
//                 a call past its timeoutMs; a call aborted by its signal; a
//                 worker that dies in a call (a thread script that exits on a
//                 marked job) — each followed by a valid call that must be exact
//                 (module figures are the main thread's; the workers' own
//                 modules show in the process RSS, which they share);
// - cli:*:        `mebo decode` of the 98-byte bomb, of the --points blob
//                 (default flags: SIZE_CAP), and of a valid 16 Mi-point blob
//                 (the CLI's default --max-points) as JSON and as CSV to /dev/null.
//
//   node bench/bounded.mjs [--sdk path/to/dist/index.js] [--cli path/to/bin] [--points N] [--valid-points N]
//
// Needs `npm run build` (the SDK, the CLI) and cargo (the fixtures:
// `cargo run --example hostile_fixtures`).

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    sdk: { type: 'string', default: join(ROOT, 'packages/mebo/dist/index.js') },
    cli: { type: 'string', default: join(ROOT, 'packages/mebo/bin/mebo.js') },
    points: { type: 'string', default: String(64 << 20) },
    'valid-points': { type: 'string', default: String(16 << 20) },
    scenario: { type: 'string' },
    dir: { type: 'string' },
  },
});
const points = Number(flags.points);
const validPoints = Number(flags['valid-points']);
const MB = 2 ** 20;
const mb = (bytes) => Math.round(bytes / MB);

/** A blob of `n` points of one metric: delta timestamps 1 ms apart, constant ALP values, zstd. */
async function makeBlob(file, n) {
  const mebo = await import(pathToFileURL(resolve(flags.sdk)).href);
  await mebo.init({ maxMemoryBytes: 2 ** 32 });
  const enc = new mebo.NumericEncoder(0n, { layout: 'v2', timestampEncoding: 'delta', valueEncoding: 'alp', timestampCompression: 'zstd' });
  enc.startMetric('big', n);
  const chunk = 1 << 20;
  for (let at = 0; at < n; at += chunk) {
    const k = Math.min(chunk, n - at);
    enc.addPoints(BigInt64Array.from({ length: k }, (_, i) => BigInt(at + i) * 1000n), new Float64Array(k).fill(1.5));
  }
  enc.endMetric();
  writeFileSync(file, enc.finish());
  enc.free();
  await mebo.reset();
}

/** A small blob and its points, to show the module (or pool) decodes exactly after a scenario. */
function smallBlob(mebo) {
  const timestamps = BigInt64Array.from({ length: 1000 }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 15_000_000n);
  const values = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i) * 100);
  return { bytes: mebo.encodeNumeric([{ name: 'small', timestamps, values }]), timestamps, values };
}

/** The small blob decoded now, compared with its points (the module is usable). */
function decodesExactly(mebo, small) {
  const blob = mebo.NumericBlob.from(small.bytes);
  try {
    return exact(blob.metric('small'), small) ? 'exact' : 'WRONG';
  } finally {
    blob.free();
  }
}

function exact(got, small) {
  return got.values.length === 1000 && got.values.every((v, i) => Object.is(v, small.values[i])) && got.timestamps.every((t, i) => t === small.timestamps[i]);
}

const outcomeOf = (error) => (error?.code ? `${error.code}` : `${error?.name}: ${String(error?.message).slice(0, 80)}`);

/** One scenario's figures: `run` returns its outcome; module memory is the peak linear memory of the instance in use. */
async function measure(name, mebo, run) {
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  let outcome;
  try {
    outcome = await run();
  } catch (error) {
    outcome = outcomeOf(error);
  }
  const ms = performance.now() - t0;
  const info = mebo.memoryInfo();
  // A reset instance's memory goes when it is collected: collect before reading RSS (children run with --expose-gc).
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50)); // finalizers run between collections
  }
  console.log(
    JSON.stringify({
      scenario: name,
      outcome,
      ms: Math.round(ms),
      moduleMB: mb(info.memoryBytes),
      peakModuleMB: mb(info.peakMemoryBytes),
      rssBeforeMB: mb(rssBefore),
      rssAfterMB: mb(process.memoryUsage.rss()),
      rssPeakMB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

/** oneBlob: the --points blob; eightOpen: eight of the --valid-points blob (each within the budget), held open. */
async function decodeScenario(name, dir) {
  const mebo = await import(pathToFileURL(resolve(flags.sdk)).href);
  await mebo.init();
  const [file, n, count] = name === 'eightOpen' ? ['valid.mebo', validPoints, 8] : ['big.mebo', points, 1];
  const bytes = readFileSync(join(dir, file));
  const small = smallBlob(mebo);
  await measure(name, mebo, async () => {
    const held = [];
    let outcome = 'correct';
    try {
      for (let i = 0; i < count; i++) {
        const blob = mebo.NumericBlob.from(bytes);
        held.push(blob);
        const c = blob.columnsView(); // decoded into memory the blob keeps while open
        if (c.values.length !== n || c.timestamps[n - 1] !== BigInt(n - 1) * 1000n || c.values[n - 1] !== 1.5) return 'WRONG';
      }
    } catch (error) {
      outcome = `${outcomeOf(error)} at blob ${held.length} of ${count} (${held.length - 1} decoded before)`;
    }
    for (const b of held) b.free(); // throws nothing: every handle freeable
    const exactAfter = decodesExactly(mebo, small);
    const grown = mb(mebo.wasmMemoryBytes());
    await mebo.reset();
    return `${outcome}; ${held.length} freed; then a blob ${exactAfter}; module ${grown} MB, after reset() ${mb(mebo.wasmMemoryBytes())} MB`;
  });
}

/** Hostile fixtures of the core, written by its example. */
function fixtures(dir) {
  const out = join(dir, 'fixtures');
  execFileSync('cargo', ['run', '--release', '--quiet', '-p', 'mebo', '--example', 'hostile_fixtures', '--', out], { cwd: ROOT, stdio: 'ignore' });
  return JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).fixtures.map((f) => ({ ...f, path: join(out, f.file) }));
}

const LIMIT_FIXTURES = ['bomb-zstd', 'bomb-s2', 'bomb-lz4', 'bomb-zstd-undeclared', 'bomb-text-zstd', 'zstd-98-bytes-declaring-256mib', 'count-billions', 'short-gorilla', 'short-alp', 'columns-overlap'];

async function limitScenarios(dir) {
  const mebo = await import(pathToFileURL(resolve(flags.sdk)).href);
  await mebo.init();
  const all = JSON.parse(readFileSync(join(dir, 'fixtures.json'), 'utf8'));
  const small = smallBlob(mebo);
  for (const f of all.filter((f) => LIMIT_FIXTURES.includes(f.name))) {
    const bytes = readFileSync(f.path);
    await measure(`limit:${f.name} (${bytes.length} B)`, mebo, () => {
      let outcome;
      try {
        const blob = (f.kind === 'text' ? mebo.TextBlob : mebo.NumericBlob).from(bytes);
        try {
          blob.decodeAll();
        } finally {
          blob.free();
        }
        outcome = 'decoded (expected an error)';
      } catch (error) {
        outcome = outcomeOf(error);
      }
      return `${outcome}${outcome === f.expect ? '' : ` (expected ${f.expect})`}; then a blob ${decodesExactly(mebo, small)}`;
    });
  }
}

/** The built package copied with a worker script that exits on a job for the metric 'worker.dies', else serves as usual. */
function dyingPackage(dir) {
  const pkg = dirname(dirname(resolve(flags.sdk)));
  const copy = join(dir, 'dying');
  cpSync(join(pkg, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(pkg, 'wasm'), join(copy, 'wasm'), { recursive: true });
  writeFileSync(join(copy, 'package.json'), '{"type":"module"}');
  renameSync(join(copy, 'dist/worker/thread-node.js'), join(copy, 'dist/worker/thread-serving.js'));
  writeFileSync(
    join(copy, 'dist/worker/thread-node.js'),
    // The serving thread first (its listener takes the setup message); a job runs a tick after it arrives, so this exits first.
    `import './thread-serving.js';
import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => { if (m.job && m.job.key === 'worker.dies') process.exit(3); });
`,
  );
  return join(copy, 'dist/worker/pool-node.js');
}

async function poolScenarios(dir) {
  const mebo = await import(pathToFileURL(resolve(flags.sdk)).href);
  await mebo.init();
  const poolFile = join(dirname(resolve(flags.sdk)), 'worker/pool-node.js');
  const { DecodePool } = await import(pathToFileURL(poolFile).href);
  const big = readFileSync(join(dir, 'big.mebo'));
  const bomb = readFileSync(JSON.parse(readFileSync(join(dir, 'fixtures.json'), 'utf8')).find((f) => f.name === 'zstd-98-bytes-declaring-256mib').path);
  const small = smallBlob(mebo);
  const settle = (p) => p.then(() => 'resolved', (e) => outcomeOf(e));
  const thenValid = async (pool, outcome) => {
    const t0 = performance.now();
    const c = await pool.decodeAll(small.bytes);
    return `${outcome}; then a valid call ${exact(c, small) ? 'exact' : 'WRONG'} in ${Math.round(performance.now() - t0)} ms`;
  };
  const pool = await DecodePool.create({ size: 1 });
  try {
    await measure('pool:hostile job then valid', mebo, async () => {
      const a = await settle(pool.decodeAll(bomb));
      const b = await settle(pool.decodeAll(big));
      return thenValid(pool, `bomb ${a}, ${points}-point blob ${b}`);
    });
    await measure('pool:timeout', mebo, async () => thenValid(pool, await settle(pool.decodeAll(big, { timeoutMs: 20 }))));
    await measure('pool:abort', mebo, async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('user left')), 20);
      return thenValid(pool, await settle(pool.decodeAll(big, { signal: controller.signal })));
    });
  } finally {
    pool.terminate();
  }
  const { DecodePool: DyingPool } = await import(pathToFileURL(dyingPackage(dir)).href);
  const dying = await DyingPool.create({ size: 1 });
  try {
    await measure('pool:dead worker', mebo, async () => {
      const died = await dying.range(small.bytes, 'worker.dies', 0n, 1n).then(
        () => 'resolved',
        (e) => `${outcomeOf(e)} (${String(e.message).match(/code \d+/)?.[0] ?? e.message.slice(0, 40)})`,
      );
      return thenValid(dying, died);
    });
  } finally {
    dying.terminate();
  }
}

/** `mebo decode` under /usr/bin/time: outcome from the exit and stderr, peak RSS. */
function cliScenario(name, args) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, resolve(flags.cli), ...args], {
    encoding: 'utf8',
    timeout: 900_000,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - t0;
  // /usr/bin/time adds its peak RSS (and a line for a non-zero exit).
  const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('Command exited with non-zero status'));
  const peak = Number(lines.pop());
  const stderr = lines.join(' | ');
  const outcome = r.signal
    ? `signal ${r.signal}`
    : r.status === 0
      ? 'exit 0'
      : `exit ${r.status}${lines.length === 1 ? ', one stderr line' : `, ${lines.length} stderr lines`}: ${stderr.replace(/^.*?: ([A-Z_]+): .*$/, '$1')}`;
  console.log(JSON.stringify({ scenario: name, outcome, ms: Math.round(ms), rssPeakMB: Math.round(peak / 1024), stderr: stderr.slice(0, 140) }));
}

if (flags.scenario === 'oneBlob' || flags.scenario === 'eightOpen') await decodeScenario(flags.scenario, flags.dir);
else if (flags.scenario === 'limits') await limitScenarios(flags.dir);
else if (flags.scenario === 'pool') await poolScenarios(flags.dir);
else if (flags.scenario) throw new Error(`unknown scenario ${flags.scenario}`);
else {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-bounded-'));
  await makeBlob(join(dir, 'big.mebo'), points);
  await makeBlob(join(dir, 'valid.mebo'), validPoints);
  writeFileSync(join(dir, 'fixtures.json'), JSON.stringify(fixtures(dir)));
  const sizes = Object.fromEntries(['big.mebo', 'valid.mebo'].map((f) => [f, readFileSync(join(dir, f)).length]));
  console.log(JSON.stringify({ sdk: flags.sdk, points, validPoints, blobBytes: sizes, node: process.version }));
  for (const name of ['oneBlob', 'eightOpen', 'limits', 'pool']) {
    const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--sdk', flags.sdk, '--points', String(points), '--scenario', name, '--dir', dir], {
      encoding: 'utf8',
      timeout: 900_000,
    });
    process.stdout.write(r.stdout);
    if (r.status !== 0) console.log(JSON.stringify({ scenario: name, status: r.status, signal: r.signal, stderr: r.stderr.slice(-300) }));
  }
  if (existsSync(flags.cli)) {
    const bomb = JSON.parse(readFileSync(join(dir, 'fixtures.json'), 'utf8')).find((f) => f.name === 'zstd-98-bytes-declaring-256mib').path;
    cliScenario('cli:98-byte zstd bomb', ['decode', bomb]);
    cliScenario(`cli:${points}-point blob, default limits`, ['decode', join(dir, 'big.mebo')]);
    for (const format of [[], ['--csv']]) {
      cliScenario(`cli:valid ${validPoints}-point blob${format.length ? ' --csv' : ' (JSON)'} to /dev/null`, ['decode', ...format, join(dir, 'valid.mebo')]);
    }
    cliScenario('cli:--help (baseline RSS)', ['--help']);
  }
}
