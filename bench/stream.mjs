#!/usr/bin/env node
// Streams of blobs in `npm run bench` (or alone: node bench/stream.mjs [--quick] [--no-chromium]):
//
// - throughput: the bench blobs framed into one stream, fed to decodeStream
//   in chunks of 1 KB, 64 KB and 1 MB, against decoding the same blobs from
//   memory one by one, interleaved in one run, in Node and in Chromium;
//   target: within 10% (stream time / memory time <= 1.10);
// - memory: a stream of ~1 GB made on the fly (the bench blobs repeated)
//   through decodeStream, each blob decoded and freed; resident memory
//   before, after and at its peak; target: growth < 64 MB.
//
// Figures are printed, not asserted.

import { spawnSync } from 'node:child_process';
import { mkdirSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import * as mebo from 'mebo';
import { BENCH_DIR, blobBytes, manifest } from 'mebo-tooling/data';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';
import { PAGE_BUNDLE, copyWasm } from './lib/chromium.mjs';
import { framed, measureThroughput } from './lib/stream-measure.mjs';

const THROUGHPUT_TARGET = 1.1;
const MEMORY_TARGET_MB = 64;
const MEMORY_STREAM_BYTES = 1e9;

/** Throughput rows in Node (simd build). */
async function nodeThroughput(blobs, reps) {
  await mebo.init({ variant: 'simd' });
  return measureThroughput(mebo, blobs, { reps });
}

/** The same in headless Chromium, the page served from 127.0.0.1. */
async function chromiumThroughput(reps) {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-bench-stream-'));
  const server = await startServer({ root: dir });
  let browser;
  try {
    await build({ ...PAGE_BUNDLE, entryPoints: [fileURLToPath(new URL('./runners/stream-page.mjs', import.meta.url))], outfile: join(dir, 'runner.js') });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>mebo stream bench</title><script type="module" src="runner.js"></script>');
    copyWasm(dir);
    const cases = manifest();
    for (const c of cases) {
      mkdirSync(dirname(join(dir, c.file)), { recursive: true });
      copyFileSync(join(BENCH_DIR, c.file), join(dir, c.file));
    }
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ cases }));
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error));
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => globalThis.streamReady === true);
    const rows = await page.evaluate((options) => globalThis.runStream(options), { reps });
    if (errors.length) throw errors[0];
    return { rows, version: browser.version() };
  } finally {
    await browser?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * ~1 GB of stream made on the fly: the header, then the bench blobs' frames
 * over and over, in 64 KB views of one framed copy (the source holds no more
 * than that copy). Each blob is decoded and freed; rss is sampled after each.
 */
async function memoryRun(blobs) {
  await mebo.init({ variant: 'simd' });
  const stream = await framed(mebo, blobs);
  const [magic, frames] = [stream.subarray(0, 4), stream.subarray(4)];
  const repeats = Math.ceil(MEMORY_STREAM_BYTES / frames.length);
  const chunk = 64 << 10;
  let repeat = 0;
  let at = 0;
  let sentHeader = false;
  const source = new ReadableStream(
    {
      pull(controller) {
        if (!sentHeader) {
          sentHeader = true;
          return controller.enqueue(magic);
        }
        if (repeat === repeats) return controller.close();
        controller.enqueue(frames.subarray(at, at + chunk));
        at += chunk;
        if (at >= frames.length) [at, repeat] = [0, repeat + 1];
      },
    },
    { highWaterMark: 0 },
  );
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  let count = 0;
  const t0 = performance.now();
  for await (const blob of mebo.decodeStream(source)) {
    blob.decodeAll();
    blob.free();
    if (++count % 16 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  }
  const seconds = (performance.now() - t0) / 1e3;
  const after = process.memoryUsage().rss;
  peak = Math.max(peak, after);
  return { bytes: 4 + frames.length * repeats, blobs: count, seconds, before, after, peak };
}

const MB = 1 << 20;

/** memoryRun in a fresh Node process (with gc exposed, so the baseline is collected first). */
function memoryProcess(log) {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--memory-run'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
  if (child.status !== 0) {
    log(`stream: the memory run failed (exit ${child.status ?? child.signal})`);
    return undefined;
  }
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

/** Print the stream tables; returns { rows, memory } for a results file. */
export async function runStreamBench({ quick = false, chromium = true, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const blobs = manifest().map(blobBytes);
  const reps = quick ? 3 : 15;
  log(`stream: ${blobs.length} bench blobs, ${((await framed(mebo, blobs)).length / MB).toFixed(1)} MiB framed; ${reps} interleaved rounds`);
  const results = { node: await nodeThroughput(blobs, reps) };
  if (chromium) {
    try {
      const page = await chromiumThroughput(reps);
      results.chromium = page.rows;
      results.chromiumVersion = page.version;
    } catch (error) {
      log(`stream: Chromium not measured: ${error.message}`);
    }
  }
  console.log('');
  console.log('stream of blobs: decodeStream vs the same blobs from memory one by one (median ms of interleaved rounds, one run);');
  console.log('source: the same chunks read and dropped (the stream\'s own cost); cpu: process CPU time (Node), steadier than the wall clock under load');
  console.log('runtime    chunk     memory ms   stream ms   source ms   stream/memory   MB/s    cpu: memory  stream  source  stream/memory');
  for (const [runtime, rows] of Object.entries(results)) {
    if (!Array.isArray(rows)) continue;
    for (const r of rows) {
      const chunk = r.chunk >= MB ? `${r.chunk / MB} MB` : `${r.chunk >> 10} KB`;
      const cpu = r.ratioCpu === undefined ? '' : `${r.memoryCpuMs.toFixed(1).padStart(13)} ${r.streamCpuMs.toFixed(1).padStart(7)} ${r.sourceCpuMs.toFixed(1).padStart(7)} ${r.ratioCpu.toFixed(3).padStart(14)}`;
      console.log(`${runtime.padEnd(10)} ${chunk.padEnd(8)} ${r.memoryMs.toFixed(2).padStart(10)} ${r.streamMs.toFixed(2).padStart(11)} ${r.sourceMs.toFixed(2).padStart(11)} ${r.ratio.toFixed(3).padStart(15)} ${r.mbPerS.toFixed(0).padStart(6)} ${cpu}`);
    }
  }
  // In a process of its own, so that its baseline is not the throughput runs' garbage.
  const memory = quick ? undefined : memoryProcess(log);
  if (memory) {
    const growth = (memory.after - memory.before) / MB;
    const peakGrowth = (memory.peak - memory.before) / MB;
    console.log(
      `stream of ${(memory.bytes / 1e9).toFixed(2)} GB (${memory.blobs} blobs, each decoded and freed) in ${memory.seconds.toFixed(1)} s: ` +
        `rss ${(memory.before / MB).toFixed(0)} MiB before, ${(memory.after / MB).toFixed(0)} MiB after (+${growth.toFixed(1)}), peak ${(memory.peak / MB).toFixed(0)} MiB (+${peakGrowth.toFixed(1)})`,
    );
    results.memory = { ...memory, growthMiB: growth, peakGrowthMiB: peakGrowth };
  }
  console.log('targets (stream of blobs):');
  for (const [runtime, rows] of Object.entries(results)) {
    if (!Array.isArray(rows)) continue;
    for (const r of rows) {
      const chunk = r.chunk >= MB ? `${r.chunk / MB} MB` : `${r.chunk >> 10} KB`;
      const cpu = r.ratioCpu === undefined ? '' : `, CPU time ${r.ratioCpu.toFixed(3)}x`;
      console.log(`  ${r.ratio <= THROUGHPUT_TARGET ? 'PASS' : 'MISS'} ${runtime} ${chunk}: decodeStream within 10% of from-memory (wall ${r.ratio.toFixed(3)}x${cpu})`);
    }
  }
  if (memory) {
    const growth = results.memory.peakGrowthMiB;
    console.log(`  ${growth < MEMORY_TARGET_MB ? 'PASS' : 'MISS'} a 1 GB stream through decodeStream grows rss by < ${MEMORY_TARGET_MB} MiB (peak +${growth.toFixed(1)} MiB)`);
  } else console.log('  (memory: not run with --quick)');
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  if (argv.includes('--memory-run')) console.log(JSON.stringify(await memoryRun(manifest().map(blobBytes))));
  else await runStreamBench({ quick: argv.includes('--quick'), chromium: !argv.includes('--no-chromium') });
}
