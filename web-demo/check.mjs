#!/usr/bin/env node
// Headless check of the built demo (web-demo/dist): serve it on 127.0.0.1,
// load it in Debian's Chromium through playwright-core, wait until the
// default sample is decoded and charted, assert no page errors and a chart
// with data, open a text sample and a dropped file, run the benchmark panel
// in quick mode, and save screenshots to web-demo/screenshots/ (gitignored).
// Exits 0 when all is well. Needs `node web-demo/build.mjs` first.
//
//   node web-demo/check.mjs [--no-bench]

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium } from '../bench/chromium.mjs';
import { startServer } from './serve.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, 'dist');
const SHOTS = join(HERE, 'screenshots');
const TIMEOUT = 30_000;

if (!existsSync(join(DIST, 'index.html'))) {
  console.error('web-demo check: dist/ is not built (node web-demo/build.mjs)');
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`web-demo check: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}

const failures = [];
let passed = 0;
function expect(condition, message) {
  console.log(`${condition ? 'ok  ' : 'FAIL'} ${message}`);
  if (condition) passed++;
  else failures.push(message);
}

const started = Date.now();
const server = await startServer({ root: DIST });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });

  // 1. The default sample, charted.
  await page.goto(server.url);
  await page.waitForFunction(() => ['charted', 'listed', 'error'].includes(globalThis.meboDemo?.state), null, { timeout: TIMEOUT });
  const demo = await page.evaluate(() => globalThis.meboDemo);
  expect(demo.state === 'charted', `default sample ${demo.sample} charted (state ${demo.state}${demo.errors.length ? `: ${demo.errors.join('; ')}` : ''})`);
  expect(demo.series >= 1 && demo.points > 0, `chart has ${demo.series} series, ${demo.points} points`);
  const chart = await page.evaluate(() => {
    const canvas = document.querySelector('#chart canvas');
    if (!canvas) return undefined;
    // Count drawn (non-transparent) pixels: an empty plot has only axes.
    const ctx = canvas.getContext('2d');
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let colored = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
      if (a > 0 && !(Math.abs(r - g) < 16 && Math.abs(g - b) < 16)) colored++; // series are colored, axes grey
    }
    return { width: canvas.width, height: canvas.height, colored };
  });
  expect(chart !== undefined && chart.colored > 500, `chart canvas ${chart?.width}x${chart?.height} has ${chart?.colored ?? 0} colored pixels`);
  const runtime = await page.textContent('#runtime');
  expect(/wasm (simd|scalar)/.test(runtime ?? ''), `runtime badge: ${runtime}`);
  const options = await page.textContent('#options');
  expect(options?.includes('gorilla') && options.includes('50,000'), 'options list the value encoding and 50,000 points');
  const metricRows = await page.locator('#metrics tbody tr').count();
  expect(metricRows === 200, `metric list has ${metricRows} rows`);
  const names = await page.locator('#metrics tbody tr').first().textContent();
  expect(names?.includes('metric.0'), `metric names from the sample's input (${names?.slice(0, 40)})`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'demo.png'), fullPage: true });

  // 2. A text sample lists rows.
  await page.selectOption('#sample', 'status1');
  await page.waitForFunction(() => globalThis.meboDemo.state === 'listed' && globalThis.meboDemo.sample === 'status1', null, { timeout: TIMEOUT });
  const textRows = await page.locator('#text-table tbody tr').count();
  expect(textRows > 0, `text sample lists ${textRows} rows`);
  const firstValue = await page.textContent('#text-table tbody tr td.val');
  expect(firstValue === '連線逾時', `non-ASCII text decoded: ${firstValue} (headless Chromium may lack CJK fonts: boxes in the screenshot)`);
  await page.screenshot({ path: join(SHOTS, 'demo-text.png'), fullPage: false });

  // 3. A file from disk (the file picker), here a numeric sample with tags.
  const dropped = readFileSync(join(DIST, 'samples/special.mebo'));
  await page.setInputFiles('#file', { name: 'special.mebo', mimeType: 'application/octet-stream', buffer: dropped });
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === undefined, null, { timeout: TIMEOUT });
  const note = await page.textContent('#view-note');
  expect(note?.includes('NaN'), `opened file charted; note: ${note}`);

  // 4. A corrupt file is reported, not thrown.
  await page.setInputFiles('#file', { name: 'bad.mebo', mimeType: 'application/octet-stream', buffer: dropped.subarray(0, 40) });
  await page.waitForSelector('#error:not([hidden])', { timeout: TIMEOUT });
  expect(true, `truncated file reported: ${await page.textContent('#error')}`);

  // 5. The benchmark panel, quick.
  if (!process.argv.includes('--no-bench')) {
    await page.check('#bench-quick');
    await page.click('#bench-run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.bench), null, { timeout: 60_000 });
    const status = await page.textContent('#bench-status');
    expect((await page.evaluate(() => document.body.dataset.bench)) === 'done', `benchmark panel: ${status}`);
    const filled = await page.$$eval('#bench-table tbody tr', (rows) => rows.filter((r) => /\d/.test(r.children[2].textContent ?? '') && /\d/.test(r.children[3].textContent ?? '')).length);
    expect(filled === 23, `benchmark rows with simd and scalar figures: ${filled}`);
    await page.locator('.bench-card').screenshot({ path: join(SHOTS, 'demo-bench.png') });
  }

  expect(errors.length === 0, `no page errors${errors.length ? `: ${errors.join('; ')}` : ''}`);
} finally {
  await browser.close();
  await server.close();
}

console.log(`web-demo check: ${((Date.now() - started) / 1000).toFixed(1)} s, screenshots in ${SHOTS}`);
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
