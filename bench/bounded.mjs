#!/usr/bin/env node
// Resources past one blob: time, the module's linear memory and the process's
// peak RSS for each scenario of issue 26, with the SDK at --sdk (a built
// dist/index.js: this tree's by default, or another checkout's to compare).
// A benchmark, not a test: it prints one JSON line per scenario.
//
// Scenarios (each in a child process of its own, so its RSS is its own):
// - decodeAll:  one blob of --points points (default 64 Mi: delta timestamps,
//               constant ALP values, zstd; a few KB) opened and decodeAll'd;
// - eightOpen:  eight such blobs held open, each decodeAll'd;
// - cli:        `mebo decode` of that blob to /dev/null (the CLI of --cli).
//
//   node bench/bounded.mjs [--sdk path/to/dist/index.js] [--cli path/to/bin] [--points N]

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
    scenario: { type: 'string' },
    blob: { type: 'string' },
  },
});
const points = Number(flags.points);

async function makeBlob(file) {
  const mebo = await import(pathToFileURL(join(ROOT, 'packages/mebo/dist/index.js')).href);
  await mebo.init({ maxMemoryBytes: 2 ** 32 });
  const enc = new mebo.NumericEncoder(0n, { layout: 'v2', timestampEncoding: 'delta', valueEncoding: 'alp', timestampCompression: 'zstd' });
  enc.startMetric('big', points);
  const chunk = 1 << 20;
  for (let at = 0; at < points; at += chunk) {
    const n = Math.min(chunk, points - at);
    enc.addPoints(BigInt64Array.from({ length: n }, (_, i) => BigInt(at + i) * 1000n), new Float64Array(n).fill(1.5));
  }
  enc.endMetric();
  writeFileSync(file, enc.finish());
  enc.free();
}

async function scenario(name, blobFile) {
  const mebo = await import(pathToFileURL(resolve(flags.sdk)).href);
  await mebo.init();
  const bytes = readFileSync(blobFile);
  const t0 = performance.now();
  let outcome = 'ok';
  const held = [];
  try {
    for (let i = 0; i < (name === 'eightOpen' ? 8 : 1); i++) {
      const blob = mebo.NumericBlob.from(bytes);
      held.push(blob);
      const c = blob.decodeAll();
      if (c.values.length !== points) throw new Error(`decoded ${c.values.length} points`);
    }
  } catch (error) {
    outcome = `${error.code ?? error.name}: ${String(error.message).slice(0, 80)}`;
  }
  const ms = performance.now() - t0;
  let freeOutcome = 'ok';
  for (const b of held) {
    try {
      b.free();
    } catch (error) {
      freeOutcome = `${error.name}: ${error.message.slice(0, 60)}`;
    }
  }
  const info = mebo.memoryInfo();
  console.log(JSON.stringify({ scenario: name, ms: Math.round(ms), outcome, free: freeOutcome, peakModuleMB: Math.round(info.peakMemoryBytes / 2 ** 20), rssPeakMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
}

if (flags.scenario) {
  await scenario(flags.scenario, flags.blob);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-bounded-'));
  const blobFile = join(dir, 'big.mebo');
  await makeBlob(blobFile);
  console.log(JSON.stringify({ sdk: flags.sdk, points, blobBytes: readFileSync(blobFile).length }));
  for (const name of ['decodeAll', 'eightOpen']) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--sdk', flags.sdk, '--points', String(points), '--scenario', name, '--blob', blobFile], { encoding: 'utf8', timeout: 600_000 });
    process.stdout.write(r.stdout || `${JSON.stringify({ scenario: name, status: r.status, signal: r.signal, stderr: r.stderr.slice(-200) })}\n`);
  }
  if (existsSync(flags.cli)) {
    const t0 = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, flags.cli, 'decode', blobFile], { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 20, stdio: ['ignore', 'ignore', 'pipe'] });
    const lines = r.stderr.trim().split('\n');
    console.log(JSON.stringify({ scenario: 'cli', ms: Math.round(performance.now() - t0), status: r.status, signal: r.signal, stderr: lines.slice(0, -1).join(' | ').slice(0, 160), rssPeakMB: Math.round(Number(lines.at(-1)) / 1024) }));
  }
}
