#!/usr/bin/env node
// The dashboard's Formats card, run in headless Chromium on bundled samples,
// its table printed: what docs/PERFORMANCE-LOG.md records for the browser. Serves
// dist/ on 127.0.0.1 (no bench API), opens each sample, presses the button,
// waits for the page's bit-for-bit checks, prints the rows and the load average.
// Needs `node web-demo/build.mjs` first.
//
//   node web-demo/formats-table.mjs SAMPLE_ID...     (ids of dist/samples/index.json, e.g. seed-gorilla seattle)

import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';

const ids = process.argv.slice(2);
if (ids.length === 0) {
  console.error('usage: node web-demo/formats-table.mjs SAMPLE_ID...');
  process.exit(2);
}
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
const server = await startServer({ root: join(dirname(fileURLToPath(import.meta.url)), 'dist') });
const browser = await launchChromium();
let failed = false;
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => globalThis.meboDemo?.state === 'charted');
  for (const id of ids) {
    await page.selectOption('#sample', id);
    await page.waitForFunction((id) => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === id, id);
    const before = load();
    await page.click('#formats-run');
    await page.waitForFunction(() => /checked bit for bit|failed|open one/.test(document.getElementById('formats-status').textContent), null, { timeout: 600_000 });
    const status = await page.textContent('#formats-status');
    failed ||= !/checked bit for bit/.test(status);
    console.log(`\n${status} (load average ${before} before, ${load()} after)`);
    const rows = await page.$$eval('#formats-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
    const table = [['format', 'config', 'bytes', 'gzip', 'decode med', 'decode min', 'encode med'], ...rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[7]])];
    const widths = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
    for (const r of table) console.log(r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  }
} finally {
  await browser.close();
  await server.close();
}
process.exit(failed ? 1 : 0);
