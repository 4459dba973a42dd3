// The dashboard's formats view in headless Chromium (needs dist/, which the
// demo's test script builds first): the peer libraries' bundle is fetched only
// when the view runs, and a run lists every format with sizes and timings,
// each decode checked bit for bit by the page (a mismatch fails the run).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TIMEOUT = 240_000;
let server;
let browser;

before(async () => {
  server = await startServer({ root: join(ROOT, 'dist') });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the formats view loads its libraries on demand and compares every format on the open blob', { timeout: TIMEOUT }, async () => {
  const page = await browser.newPage();
  page.on('console', (m) => m.type() === 'error' && process.stderr.write(`page: ${m.text()}\n`));
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(server.url);
  await page.waitForFunction(() => ['charted', 'listed', 'error'].includes(globalThis.meboDemo?.state), null, { timeout: TIMEOUT });
  assert.equal(await page.evaluate(() => globalThis.meboDemo.state), 'charted');
  assert.ok(!requested.some((p) => p.endsWith('/formats-run.js') || p.includes('parquet_wasm')), `first load fetched no peer library: ${requested.join(' ')}`);
  // The real series are samples too, each encoded at build time.
  const samples = await page.$$eval('#sample option', (options) => options.map((o) => o.value));
  for (const id of ['co2', 'seattle', 'quakes', 'stocks']) assert.ok(samples.includes(id), `sample ${id} listed: ${samples.join(' ')}`);

  await page.click('#formats-run');
  await page.waitForFunction(() => /checked bit for bit|failed/.test(document.getElementById('formats-status').textContent), null, { timeout: TIMEOUT });
  const status = await page.textContent('#formats-status');
  assert.match(status, /checked bit for bit/);
  assert.ok(requested.some((p) => p.endsWith('/formats-run.js')) && requested.some((p) => p.endsWith('/parquet_wasm_bg.wasm')));

  const rows = await page.$$eval('#formats-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
  assert.deepEqual(
    rows.map((r) => r[0]),
    ['this blob', 'mebo auto', 'mebo auto size', 'mebo default', 'json', 'arrow', 'arrow-zstd', 'parquet-wasm', 'hyparquet'],
  );
  const byFormat = Object.fromEntries(rows.map((r) => [r[0], r]));
  // The default sample is the CO2 blob, delta-none-alp-none: auto is never larger than the default configuration.
  assert.equal(byFormat['this blob'][1], 'delta-none-alp-none');
  assert.equal(byFormat['mebo default'][1], 'delta-none-gorilla-none');
  assert.ok(Number(byFormat['mebo auto'][2]) <= Number(byFormat['mebo default'][2]));
  // zstd finds the CO2 series' repeats: its Arrow IPC is smaller than the plain one (written in the page by zstd-codec).
  assert.ok(Number(byFormat['arrow-zstd'][2]) < Number(byFormat['arrow'][2]), `arrow-zstd ${byFormat['arrow-zstd'][2]} vs arrow ${byFormat['arrow'][2]} bytes`);
  for (const r of rows) {
    assert.ok(Number(r[2]) > 0 && Number(r[3]) > 0, `${r[0]}: bytes and gzip`);
    assert.ok(Number(r[4]) > 0 && Number(r[5]) > 0 && Number(r[5]) <= Number(r[4]), `${r[0]}: decode median and min`);
  }
  await page.close();
});
