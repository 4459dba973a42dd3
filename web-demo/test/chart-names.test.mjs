// The chart with a user's own data, in headless Chromium (needs dist/, which
// the demo's test script builds first): the `hosts` sample, 24 gauges from
// CPU percent to network bytes near 10^7, stored by id only. Each panel's
// value-axis labels fit inside the canvas (by the page's own layout figures
// and by the pixels of the canvas' left edge), the gauges of one magnitude
// share a panel and no other does, and names pasted into the page replace
// the ids in the legend (ids worked out here by a plain xxHash64), kept over
// a reload and forgotten on request. Screenshots: screenshots/metrics-24*.png.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as mebo from 'mebo';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';
import { hostMetrics } from '../hosts-sample.mjs';
import { xxh64Hex } from './xxh64.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = join(ROOT, 'screenshots');
const TIMEOUT = 120_000;
let server;
let browser;

before(async () => {
  server = await startServer({ root: join(ROOT, 'dist') });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the test\'s own xxHash64 gives the ids the reference wrote for the real series\' names', async () => {
  for (const file of ['seattle-hourly-normals.json', 'usgs-earthquakes-week.json', 'stocks-monthly.json']) {
    for (const { name, id } of JSON.parse(readFileSync(join(ROOT, '../testdata/real', file), 'utf8')).metrics) assert.equal(xxh64Hex(name), id, name);
  }
  assert.equal(xxh64Hex(''), 'ef46db3751d8e999', 'the empty string (xxHash64\'s published value)');
  // Past 32 bytes xxHash64 reads stripes: against the SDK's (Rust) hash, the other implementation at hand.
  await mebo.init();
  for (const name of ['a metric name longer than thirty-two bytes, read in stripes', 'host-01.net.rx.bytes/'.repeat(7), 'température.°C/機器'.repeat(3)]) {
    assert.equal(xxh64Hex(name), mebo.metricId(name).toString(16).padStart(16, '0'), name);
  }
});

const names = hostMetrics().metrics.map((m) => m.name);
const byHex = new Map(names.map((n) => [xxh64Hex(n), n]));
/** A gauge's kind: the name less its host. */
const kindOf = (name) => name.slice(name.indexOf('.') + 1);

/** Dark pixels (axis text) in the two leftmost columns of each chart canvas: a label cut at the left edge leaves ink there. */
function leftEdgeInk(page) {
  return page.$$eval('#chart canvas', (canvases) =>
    canvases.map((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, 2, canvas.height);
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 64 && data[i] < 160 && data[i + 1] < 160 && data[i + 2] < 160) ink++;
      return ink;
    }),
  );
}

async function charted(page) {
  await page.waitForFunction(() => globalThis.meboDemo?.state === 'charted' && globalThis.meboDemo.sample === 'hosts', null, { timeout: TIMEOUT });
  await page.waitForTimeout(100);
  return page.evaluate(() => globalThis.meboDemo);
}

test('24 gauges of different magnitudes: a panel per magnitude, labels that fit, names pasted replace ids', { timeout: TIMEOUT }, async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}#hosts`);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  let demo = await charted(page);
  const rows = await page.$$eval('#metrics tbody tr', (trs) => trs.length);
  assert.equal(rows, 24, 'the blob lists 24 metrics');

  // Chart 12 of them: the first four are selected on open, click eight more.
  for (let i = 5; i <= 12; i++) await page.click(`#metrics tbody tr:nth-child(${i})`);
  demo = await charted(page);
  assert.equal(demo.series, 12);

  // Before names: the legend shows ids, each the hash of one of the gauges' names.
  const legendIds = demo.panels.flatMap((p) => p.legend);
  assert.equal(legendIds.length, 12);
  for (const label of legendIds) assert.ok(byHex.has(label.replace(/^0x/, '')), `legend ${label} is the id of a gauge`);

  // One panel per kind of gauge (they differ in magnitude), the gauges of a kind together.
  const kinds = demo.panels.map((p) => new Set(p.legend.map((l) => kindOf(byHex.get(l.replace(/^0x/, ''))))));
  assert.equal(demo.panels.length, 3, `three panels (${kinds.map((k) => [...k].join('+')).join(' | ')})`);
  assert.ok(kinds.every((k) => k.size === 1) && new Set(kinds.map((k) => [...k][0])).size === 3, 'each panel holds one kind of gauge');

  // Every axis label inside the canvas, the bytes' panel in compact SI form.
  for (const p of demo.panels) {
    assert.ok(p.labels.length >= 2, `panel ${p.legend[0]} has tick labels`);
    for (const l of p.labels) assert.ok(l.left >= 0, `label ${l.text} starts at ${l.left.toFixed(1)} px, inside the canvas`);
  }
  const bytesPanel = demo.panels.find((p) => kindOf(byHex.get(p.legend[0].replace(/^0x/, ''))) === 'net.rx.bytes');
  assert.ok(bytesPanel.labels.every((l) => /^\d+(\.\d+)?M$/.test(l.text)), `bytes labelled in M: ${bytesPanel.labels.map((l) => l.text).join(' ')}`);
  assert.deepEqual(await leftEdgeInk(page), [0, 0, 0], 'no ink at any canvas\' left edge');
  await page.locator('.chart-card').screenshot({ path: join(SHOTS, 'metrics-24-ids.png') });

  // Paste the names: the legend and the list show them.
  await page.click('#names summary');
  await page.fill('#names-input', names.join('\n'));
  await page.click('#names-apply');
  await page.waitForFunction(() => globalThis.meboDemo.panels.every((p) => p.legend.every((l) => !l.startsWith('0x'))), null, { timeout: TIMEOUT });
  demo = await page.evaluate(() => globalThis.meboDemo);
  const expected = legendIds.map((l) => byHex.get(l.replace(/^0x/, '')));
  assert.deepEqual(demo.panels.flatMap((p) => p.legend), expected, 'each id in the legend replaced by its name');
  const listed = await page.$$eval('#metrics tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  assert.ok(names.every((n) => listed.some((t) => t.startsWith(n))), 'the list shows every name');
  assert.match(await page.textContent('#names-status'), /24 new names, 24 known/);
  await page.locator('.chart-card').screenshot({ path: join(SHOTS, 'metrics-24.png') });

  // Kept over a reload (localStorage); a JSON array works too; forget goes back to ids.
  await page.reload();
  demo = await charted(page);
  assert.ok(demo.panels.flatMap((p) => p.legend).every((l) => names.includes(l)), 'names still shown after a reload');
  await page.click('#names summary');
  await page.click('#names-clear');
  await page.waitForFunction(() => globalThis.meboDemo.panels.every((p) => p.legend.every((l) => l.startsWith('0x'))), null, { timeout: TIMEOUT });
  await page.setInputFiles('#names-file', { name: 'names.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(names.slice(0, 3))) });
  await page.waitForFunction(() => globalThis.meboDemo.panels.some((p) => p.legend.some((l) => !l.startsWith('0x'))), null, { timeout: TIMEOUT });
  demo = await page.evaluate(() => globalThis.meboDemo);
  assert.deepEqual(demo.panels.flatMap((p) => p.legend).filter((l) => !l.startsWith('0x')).sort(), names.slice(0, 3).sort(), 'a JSON file names just its three');
  await page.setInputFiles('#names-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('[1, 2]') });
  await page.waitForFunction(() => /array of strings/.test(document.getElementById('names-status').textContent), null, { timeout: TIMEOUT });
  assert.deepEqual(errors, []);
  await page.close();
});
