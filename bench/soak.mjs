#!/usr/bin/env node
// `npm run soak`: the SDK left running, as a service or a dashboard open all
// day is. The workload of bench/lib/soak-workload.mjs (decode, encode, range,
// decimate and free blobs of mixed sizes, a 1,000,000-point one every 50
// operations) runs for N minutes in Node and then in headless Chromium; each
// minute reports throughput and memory: the module's linear memory, and the
// host's (Node: RSS and V8 heap; Chromium: the JS heap, total and used), read
// after a full garbage collection. A benchmark, not a
// test: it prints its figures and judges the two targets (memory flat after
// the first minute, throughput within 10% from the first to the last minute)
// without failing on them.
//
//   node bench/soak.mjs [--minutes 10] [--only node|chromium] [--out soak-results.json]

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import * as mebo from 'mebo';
import { launchChromium } from 'mebo-tooling/chromium';
import { BENCH_DIR, LONG_VECTOR, ROOT, VECTORS_DIR, manifest, readJson } from 'mebo-tooling/data';
import { startServer } from 'mebo-tooling/serve';
import { PAGE_BUNDLE, copyWasm } from './lib/chromium.mjs';
import { soakWorkload } from './lib/soak-workload.mjs';

const { values: flags } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, only: { type: 'string' }, out: { type: 'string', default: join(ROOT, 'soak-results.json') }, 'minute-ms': { type: 'string', default: '60000' } },
});
const minutes = Number(flags.minutes);
const minuteMs = Number(flags['minute-ms']);
if (!Number.isInteger(minutes) || minutes < 4) throw new Error('--minutes must be an integer >= 4');

const cases = manifest();
const files = {
  numeric: cases.filter((c) => c.kind === 'numeric').map((c) => join(BENCH_DIR, c.file)),
  text: cases.filter((c) => c.kind === 'text').map((c) => join(BENCH_DIR, c.file)),
  long: join(VECTORS_DIR, readJson(join(VECTORS_DIR, 'manifest.json')).cases.find((c) => c.name === LONG_VECTOR).file),
};
// Memory is read after a full collection, so each minute shows what is held, not what awaits the collector.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc');
const MB = 2 ** 20;
const mb = (bytes) => (bytes / MB).toFixed(1);

/** One host's minutes: `{ minute, ops, points, seconds, wasmBytes, liveHandles, hostBytes, heapBytes }`. */
async function soakNode() {
  await mebo.init();
  const read = (f) => new Uint8Array(readFileSync(f));
  const work = soakWorkload(mebo, { numeric: files.numeric.map(read), text: files.text.map(read), long: read(files.long) });
  const rows = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const r = work.minute(minuteMs);
    collect();
    const { rss, heapUsed } = process.memoryUsage();
    rows.push({ minute, ...r, hostBytes: rss, heapBytes: heapUsed });
    report('node', rows.at(-1));
  }
  return rows;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>mebo soak</title><script type="module" src="soak.js"></script>`;

async function soakChromium() {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-soak-'));
  await build({
    stdin: {
      contents: `import * as mebo from 'mebo';
import { soakWorkload } from './lib/soak-workload.mjs';
const bytes = async (f) => new Uint8Array(await (await fetch(f)).arrayBuffer());
globalThis.soakSetup = async (names) => {
  await mebo.init();
  globalThis.work = soakWorkload(mebo, { numeric: await Promise.all(names.numeric.map(bytes)), text: await Promise.all(names.text.map(bytes)), long: await bytes(names.long) });
};
globalThis.soakMinute = (ms) => {
  const r = globalThis.work.minute(ms);
  globalThis.gc();
  return { ...r, heapBytes: performance.memory?.usedJSHeapSize, hostBytes: performance.memory?.totalJSHeapSize };
};
globalThis.soakReady = true;`,
      resolveDir: join(ROOT, 'bench'),
      sourcefile: 'soak-page.mjs',
    },
    ...PAGE_BUNDLE,
    outfile: join(dir, 'soak.js'),
  });
  writeFileSync(join(dir, 'index.html'), PAGE);
  copyWasm(dir);
  const names = { numeric: [], text: [], long: 'long.mebo' };
  copyFileSync(files.long, join(dir, 'long.mebo'));
  for (const kind of ['numeric', 'text']) {
    files[kind].forEach((f, i) => {
      copyFileSync(f, join(dir, `${kind}-${i}.mebo`));
      names[kind].push(`${kind}-${i}.mebo`);
    });
  }
  const server = await startServer({ root: dir });
  const browser = await launchChromium({ extraArgs: ['--enable-precise-memory-info', '--js-flags=--expose-gc'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e));
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => globalThis.soakReady === true);
    await page.evaluate((n) => globalThis.soakSetup(n), names);
    const rows = [];
    for (let minute = 1; minute <= minutes; minute++) {
      const r = await page.evaluate((ms) => globalThis.soakMinute(ms), minuteMs);
      if (errors.length) throw errors[0];
      rows.push({ minute, ...r });
      report('chromium', rows.at(-1));
    }
    return { rows, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(host, r) {
  console.log(
    `${host.padEnd(9)} minute ${String(r.minute).padStart(2)}: ${String(Math.round(r.ops / r.seconds)).padStart(6)} ops/s ${(r.points / r.seconds / 1e6).toFixed(1).padStart(6)} Mpoints/s   ` +
      `wasm ${mb(r.wasmBytes).padStart(6)} MB   host ${r.hostBytes === undefined ? '-' : mb(r.hostBytes).padStart(6)} MB   heap ${r.heapBytes === undefined ? '-' : mb(r.heapBytes).padStart(6)} MB   live objects ${r.liveHandles}`,
  );
}

/**
 * The targets: memory flat after the first minute (the median of the last
 * three minutes against that of minutes 2-4: a trend, not one collection's
 * timing), throughput of the last minute within 10% of the first.
 */
function judge(host, rows) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const growth = (key) => (rows.every((r) => r[key] !== undefined) ? median(rows.slice(-3).map((r) => r[key])) / median(rows.slice(1, 4).map((r) => r[key])) - 1 : undefined);
  const rate = (r) => r.points / r.seconds;
  const drift = rate(rows.at(-1)) / rate(rows[0]) - 1;
  const verdict = {
    host,
    wasm_growth_after_warmup: growth('wasmBytes'),
    host_growth_after_warmup: growth('hostBytes'),
    heap_growth_after_warmup: growth('heapBytes'),
    throughput_last_vs_first: drift,
  };
  const pct = (x) => (x === undefined ? '-' : `${(x * 100).toFixed(1)}%`);
  console.log(
    `${host}: from minutes 2-4 to the last three (medians) the module's memory grew ${pct(verdict.wasm_growth_after_warmup)}, the host's ${pct(verdict.host_growth_after_warmup)} (JS heap ${pct(verdict.heap_growth_after_warmup)}); ` +
      `throughput last vs first minute ${pct(drift)} (target within ±10%: ${Math.abs(drift) <= 0.1 ? 'holds' : 'missed'})`,
  );
  return verdict;
}

const result = { minutes, minute_ms: minuteMs, started: new Date().toISOString(), hosts: {} };
if (!flags.only || flags.only === 'node') {
  console.log(`soak: node ${process.version}, ${minutes} minutes`);
  const rows = await soakNode();
  result.hosts.node = { rows, verdict: judge('node', rows) };
}
if (!flags.only || flags.only === 'chromium') {
  console.log(`soak: chromium, ${minutes} minutes`);
  const { rows, version } = await soakChromium();
  result.hosts.chromium = { version, rows, verdict: judge('chromium', rows) };
}
writeFileSync(flags.out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`soak: ${flags.out}`);
