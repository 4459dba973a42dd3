#!/usr/bin/env node
// Headless check of the built demo (web-demo/dist): serve it on 127.0.0.1
// as `npm run demo` does (with the stream route and the local benchmark API), load it in Debian's
// Chromium through playwright-core, wait until the default sample is decoded
// and charted, assert no page errors and a chart with data, the hosts sample's
// panels and the stream sample, open a text
// sample and a dropped file, open the other real series and run the Formats card on
// one (its peer libraries fetched on the click only), run the benchmark with `?bench=quick` (native,
// Node and both browser paths for every configuration, charted), then serve
// the page without the API and check its fallback labels. Screenshots go to
// web-demo/screenshots/ (gitignored). Exits 0 when all is well. Needs
// `node web-demo/build.mjs` and target/release/mebo-bench first.
//
//   node web-demo/check.mjs [--no-bench]

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'mebo/document';
import { CHROMIUM, launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';
import { NATIVE_BENCH, createBenchApi } from './bench-api.mjs';
import { withStreamRoute } from './stream-sample.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, 'dist');
const SHOTS = join(HERE, 'screenshots');
const TIMEOUT = 30_000;

if (!existsSync(join(DIST, 'index.html'))) {
  console.error('web-demo check: dist/ is not built (node web-demo/build.mjs)');
  process.exit(1);
}
if (!existsSync(NATIVE_BENCH)) {
  console.error('web-demo check: target/release/mebo-bench is not built (cargo build --release -p mebo-bench)');
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
const server = await startServer({ root: DIST, api: await withStreamRoute(createBenchApi()) });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    // Chromium reports a streamed fetch the page read to its end (the API's rows, the stream
    // sample's blobs) as ERR_ABORTED, and Cancel aborts one on purpose: those streams are judged
    // by what they delivered (below), any other failed request is an error.
    const path = new URL(request.url()).pathname;
    const stream = (path === '/api/bench/run' || path === '/stream/seattle.mbs') && request.failure()?.errorText === 'net::ERR_ABORTED';
    if (!stream) errors.push(`request failed (${request.failure()?.errorText}): ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const requested = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));

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
  // The default sample is the real CO2 series, encoded at build time from testdata/real.
  const co2Note = await page.textContent('#view-note');
  expect(demo.sample === 'co2' && demo.sourcePoints === 2284 - 59 && /59 NaN values are left out/.test(co2Note ?? ''), `default: the CO2 series, ${demo.sourcePoints} points charted, the 59 missing weeks said (${co2Note?.slice(0, 60)}…)`);
  const co2Name = await page.locator('#metrics tbody tr').first().textContent();
  expect(co2Name?.includes('maunaloa.co2.ppm'), `its metric named from the input: ${co2Name?.slice(0, 30)}`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'demo.png'), fullPage: true });

  // 1a. The other real series are samples: every metric listed by name, the selected ones
  // (the first four) charted with every non-NaN point of the input.
  for (const [id, file] of [['seattle', 'seattle-hourly-normals.json'], ['quakes', 'usgs-earthquakes-week.json'], ['stocks', 'stocks-monthly.json']]) {
    const input = parseDocument(JSON.parse(readFileSync(join(HERE, '../testdata/real', file), 'utf8')));
    await page.selectOption('#sample', id);
    await page.waitForFunction((id) => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === id, id, { timeout: TIMEOUT });
    const shown = await page.evaluate(() => globalThis.meboDemo);
    const rows = await page.$$eval('#metrics tbody tr', (trs) => trs.map((tr) => tr.textContent));
    const listed = rows.map((row) => input.metrics.find((m) => row.includes(m.name)));
    const points = listed.slice(0, 4).reduce((n, m) => n + (m?.values.filter((v) => !Number.isNaN(v)).length ?? 0), 0);
    expect(
      listed.length === input.metrics.length && listed.every((m) => m !== undefined) && shown.series === Math.min(4, listed.length) && shown.sourcePoints === points,
      `real sample ${id}: ${listed.length} metrics listed by name, ${shown.series} charted with ${shown.sourcePoints} points (the input has ${points} in them)`,
    );
  }

  // 1a'. The Formats card on a real sample: its peer libraries are fetched on the click only, and
  // every row, Arrow IPC with zstd (written in the page by zstd-codec) among them, is checked bit for bit.
  const peerLibrary = (p) => p.endsWith('/formats-run.js') || p.includes('parquet_wasm');
  expect(!requested.some(peerLibrary), `no peer library fetched before the Formats click (${requested.length} requests)`);
  await page.click('#formats-run');
  await page.waitForFunction(() => /checked bit for bit|failed|open one/.test(document.getElementById('formats-status').textContent), null, { timeout: 240_000 });
  const formatsStatus = await page.textContent('#formats-status');
  const formatRows = await page.$$eval('#formats-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
  expect(/^stocks: .*checked bit for bit/.test(formatsStatus ?? '') && requested.some((p) => p.endsWith('/formats-run.js')), `Formats card ran on the stocks sample: ${formatsStatus}`);
  const zstdRow = formatRows.find((r) => r[0] === 'arrow-zstd');
  const plainRow = formatRows.find((r) => r[0] === 'arrow');
  expect(
    zstdRow !== undefined && plainRow !== undefined && Number(zstdRow[2]) > 0 && Number(zstdRow[2]) < Number(plainRow[2]) && Number(zstdRow[5]) > 0 && Number(zstdRow[5]) <= Number(zstdRow[4]) && Number(zstdRow[7]) > 0,
    `arrow-zstd row: ${zstdRow?.join(' | ')} (plain arrow ${plainRow?.[2]} bytes)`,
  );
  const formatNames = formatRows.map((r) => r[0]).join(', ');
  expect(formatRows.length === 9 && formatRows.every((r) => Number(r[2]) > 0 && Number(r[3]) > 0 && Number(r[4]) > 0), `Formats rows: ${formatNames}`);
  for (const r of formatRows) console.log(`     ${r[0].padEnd(15)} ${r[1].padEnd(26)} bytes ${r[2].padStart(7)} gzip ${r[3].padStart(7)} decode µs ${r[4].padStart(7)} min ${r[5].padStart(7)} encode µs ${r[7].padStart(7)}`);
  await page.locator('#formats').screenshot({ path: join(SHOTS, 'demo-formats.png') });

  // 1b. The bench set: 200 metrics, options, names.
  await page.selectOption('#sample', 'seed-gorilla');
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === 'seed-gorilla', null, { timeout: TIMEOUT });
  const options = await page.textContent('#options');
  expect(options?.includes('gorilla') && options.includes('50,000'), 'options list the value encoding and 50,000 points');
  const metricRows = await page.locator('#metrics tbody tr').count();
  expect(metricRows === 200, `metric list has ${metricRows} rows`);
  const names = await page.locator('#metrics tbody tr').first().textContent();
  expect(names?.includes('metric.0'), `metric names from the sample's input (${names?.slice(0, 40)})`);

  // 1c. Metrics of different magnitudes: a panel each, every value-axis label inside its canvas
  // (test/chart-names.test.mjs checks names and pixels); the stream sample through the demo's
  // route, drawn over several frames to its last blob (test/stream-view.test.mjs checks points).
  await page.selectOption('#sample', 'hosts');
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === 'hosts' && globalThis.meboDemo.panels.every((p) => p.labels.length), null, { timeout: TIMEOUT });
  const hosts = await page.evaluate(() => globalThis.meboDemo.panels);
  const lefts = hosts.flatMap((p) => p.labels.map((l) => l.left));
  expect(hosts.length === 3 && Math.min(...lefts) >= 0, `hosts sample: ${hosts.length} panels, value labels from ${Math.min(...lefts).toFixed(1)} px (${hosts.map((p) => p.labels.map((l) => l.text).join(' ')).join(' | ')})`);
  await page.fill('#stream-seconds', '2');
  await page.click('#stream-play');
  await page.waitForFunction(() => globalThis.meboDemo.stream?.running === false, null, { timeout: TIMEOUT });
  const streamed = await page.evaluate(() => globalThis.meboDemo.stream);
  expect(
    streamed.done && streamed.blobs === streamed.expectedBlobs && streamed.blobs >= 300 && streamed.frames > 5 && streamed.progress.value === streamed.totalBytes,
    `stream sample: ${streamed.blobs} of ${streamed.expectedBlobs} blobs, ${streamed.bytes} of ${streamed.totalBytes} bytes, drawn over ${streamed.frames} frames`,
  );

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

  // 4. The long sample is charted decimated; a zoom re-reads the visible range at full resolution.
  await page.selectOption('#sample', 'long');
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === 'long', null, { timeout: TIMEOUT });
  const long = await page.evaluate(() => globalThis.meboDemo);
  expect(long.decimated && long.sourcePoints >= 66_000 && long.points < 8_000, `long sample: ${long.sourcePoints} points decimated to ${long.points}`);
  await page.locator('#chart .u-over').first().scrollIntoViewIfNeeded();
  const over = await page.locator('#chart .u-over').first().boundingBox();
  const y = over.y + over.height / 2;
  await page.mouse.move(over.x + over.width * 0.4, y);
  await page.mouse.down();
  await page.mouse.move(over.x + over.width * 0.403, y, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction(() => globalThis.meboDemo.view !== undefined && globalThis.meboDemo.state === 'charted', null, { timeout: TIMEOUT });
  const zoomed = await page.evaluate(() => globalThis.meboDemo);
  // Independently: the long vector's input points inside the window (bounds in ms, as the SDK rounds them up to µs).
  const vectors = join(HERE, '../testdata/vectors');
  const longCase = JSON.parse(readFileSync(join(vectors, 'manifest.json'), 'utf8')).cases.find((c) => c.name === 'num-long-delta-none-gorilla-none-notags-le-v2');
  const longInput = parseDocument(JSON.parse(readFileSync(join(vectors, longCase.options.input), 'utf8')));
  const [fromUs, toUs] = [zoomed.view.from, zoomed.view.to].map((ms) => BigInt(Math.ceil(ms * 1000)));
  let inside = 0;
  for (const m of longInput.metrics) m.timestamps.forEach((t, i) => (inside += t >= fromUs && t < toUs && !Number.isNaN(m.values[i]) ? 1 : 0));
  expect(inside > 0 && !zoomed.decimated && zoomed.points === inside && zoomed.sourcePoints === inside, `zoom re-read ${zoomed.points} points at full resolution (the input has ${inside} in the window)`);
  await page.locator('.chart-card').screenshot({ path: join(SHOTS, 'demo-zoom.png') });
  await page.locator('#chart .u-over').first().dblclick();
  await page.waitForFunction(() => globalThis.meboDemo.view === undefined && globalThis.meboDemo.decimated, null, { timeout: TIMEOUT });
  expect(true, 'double-click goes back to the whole series, decimated');

  // 5. A set sample, and several picked files, open as one series per metric over the windows.
  await page.selectOption('#sample', 'set1');
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === 'set1', null, { timeout: TIMEOUT });
  const set = await page.evaluate(() => globalThis.meboDemo);
  expect(set.blobs === 4 && set.series > 0 && (await page.textContent('#options')).includes('set of 4 blobs'), `set sample charted over ${set.blobs} blobs (${set.sourcePoints} points)`);
  const windows = [0, 1, 2, 3].map((w) => ({ name: `w${w}.mebo`, mimeType: 'application/octet-stream', buffer: readFileSync(join(DIST, `samples/set1-w${w}.mebo`)) }));
  await page.setInputFiles('#file', windows.reverse());
  await page.waitForFunction(() => globalThis.meboDemo.state === 'charted' && globalThis.meboDemo.sample === undefined && globalThis.meboDemo.blobs === 4, null, { timeout: TIMEOUT });
  const picked = await page.evaluate(() => globalThis.meboDemo);
  expect(picked.sourcePoints === set.sourcePoints, `four picked files (out of order) chart the same ${picked.sourcePoints} points as the set sample`);

  // 5b. "give memory back": the set is freed, the module reset and the set opened again in it.
  const before = picked.memory;
  await page.click('#memory-reset');
  await page.waitForFunction((resets) => globalThis.meboDemo.memory?.resets > resets && globalThis.meboDemo.state === 'charted', before.resets, { timeout: TIMEOUT });
  const after = await page.evaluate(() => globalThis.meboDemo);
  expect(
    after.memory.memoryBytes < 4 * 2 ** 20 && after.memory.peakMemoryBytes >= before.memoryBytes && after.memory.liveHandles === before.liveHandles && after.sourcePoints === picked.sourcePoints,
    `memory given back: ${before.memoryBytes} -> ${after.memory.memoryBytes} bytes (peak ${after.memory.peakMemoryBytes}), ${after.memory.liveHandles} objects alive, the set charted again (${after.sourcePoints} points); shown as "${await page.textContent('#memory')}"`,
  );

  // 6. A corrupt file is reported, not thrown.
  await page.setInputFiles('#file', { name: 'bad.mebo', mimeType: 'application/octet-stream', buffer: dropped.subarray(0, 40) });
  await page.waitForSelector('#error:not([hidden])', { timeout: TIMEOUT });
  expect(true, `truncated file reported: ${await page.textContent('#error')}`);

  // 7. The benchmark, started by the URL, with the local API: native, Node and this browser.
  if (!process.argv.includes('--no-bench')) {
    await page.goto(`${server.url}?bench=quick`);
    await page.waitForFunction(() => globalThis.meboDemo?.bench && !globalThis.meboDemo.bench.running && (globalThis.meboDemo.bench.done || globalThis.meboDemo.bench.error), null, { timeout: 300_000, polling: 500 });
    const bench = await page.evaluate(() => globalThis.meboDemo.bench);
    expect(bench.done && !bench.error, `benchmark run finished (${bench.rows.length} rows${bench.error ? `; error: ${bench.error}` : ''})`);
    expect(bench.api && bench.sources['rust-native'] === 'live' && bench.sources['wasm-node'] === 'live', `native and Node measured live through the local API (${JSON.stringify(bench.sources)})`);
    const configs = JSON.parse(readFileSync(join(DIST, 'bench/manifest.json'), 'utf8')).cases.map((c) => c.config);
    const wanted = [
      ['rust-native', 'decode'],
      ['wasm-node', 'decode'],
      ['wasm-node', 'decode-into'],
      ['wasm-browser', 'decode'],
      ['wasm-browser', 'decode-into'],
      ['wasm-browser-scalar', 'decode'],
      ['wasm-browser-scalar', 'decode-into'],
    ];
    const valid = (r) => r && r.median_ns > 0 && r.min_ns > 0 && r.min_ns <= r.median_ns && r.runs >= 30 && r.points > 0 && r.bytes > 0;
    const numericConfigs = configs.filter((c) => !c.startsWith('text-'));
    const views = numericConfigs.filter((config) => valid(bench.rows.find((r) => r.config === config && r.runtime === 'wasm-browser' && r.op === 'decode-view')));
    expect(views.length === numericConfigs.length, `wasm-browser decode-view (columnsView): figures for ${views.length} / ${numericConfigs.length} numeric configurations`);
    for (const [runtime, op] of wanted) {
      const missing = configs.filter((config) => !valid(bench.rows.find((r) => r.config === config && r.runtime === runtime && r.op === op)));
      expect(missing.length === 0, `${runtime} ${op}: figures for ${configs.length - missing.length} / ${configs.length} configurations${missing.length ? ` (missing ${missing.join(', ')})` : ''}`);
    }
    for (const runtime of ['wasm-browser', 'wasm-browser-scalar']) {
      const cold = bench.rows.find((r) => r.runtime === runtime && r.op === 'cold-start');
      const first = bench.rows.find((r) => r.runtime === runtime && r.op === 'first-decode');
      expect(cold?.median_ns > 0 && cold.runs >= 3 && first?.median_ns > 0, `${runtime} cold start ${((cold?.median_ns ?? 0) / 1e6).toFixed(1)} ms, first decode ${((first?.median_ns ?? 0) / 1e6).toFixed(2)} ms`);
    }
    const series = ['native Rust', 'Node (kept arrays)', 'this browser (kept arrays)', 'this browser (fresh arrays)', 'reference, this machine kind', 'documented x86'];
    const charted = bench.charted.map((s) => s.label);
    expect(series.every((s) => charted.includes(s)), `throughput chart series: ${charted.join(', ')}`);
    const painted = await colorCounts(page, '#bench-chart', bench.charted.map((s) => s.color));
    expect(painted.every((n) => n > 20), `each series painted on the chart (pixels per series: ${painted.join(', ')})`);
    const headline = await page.textContent('#bench-headline');
    expect(/decodes delta-none-gorilla-none at [\d.,]+ Mpoints\/s .*the documented x86 figure.*native Rust/.test(headline ?? ''), `headline: ${headline}`);
    const sources = await page.textContent('#bench-sources');
    expect(/measured now on/.test(sources ?? '') && /crossOriginIsolated yes/.test(sources ?? '') && /decode \+ Materialize/.test(sources ?? ''), 'labels say what each figure times and where it was measured');
    const sizes = await colorCounts(page, '#size-chart', ['#3158d4', '#98acf0']);
    expect(sizes.every((n) => n > 20), `size chart painted (${sizes.join(', ')} pixels)`);
    await page.locator('#benchmark').screenshot({ path: join(SHOTS, 'demo-bench.png') });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#bench-download')]);
    const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
    const schema = ['config', 'runtime', 'op', 'points', 'bytes', 'median_ns', 'min_ns', 'runs'];
    expect(
      saved.results.length === bench.rows.length && saved.results.every((r) => schema.every((k) => k in r)) && saved.machine.cross_origin_isolated === true,
      `Download results: ${download.suggestedFilename()} holds ${saved.results.length} rows in the bench-results.json schema`,
    );
    // Cancel: a run stops, says so, and frees the API for the next one.
    await page.click('#bench-run');
    await page.waitForFunction(() => globalThis.meboDemo.bench.rows.length > 0, null, { timeout: TIMEOUT });
    await page.click('#bench-cancel');
    await page.waitForFunction(() => !globalThis.meboDemo.bench.running, null, { timeout: TIMEOUT });
    const cancelled = await page.evaluate(() => globalThis.meboDemo.bench);
    const status = await page.textContent('#bench-status');
    const apiFree = await page.waitForFunction(async () => !(await (await fetch('api/bench')).json()).running, null, { timeout: TIMEOUT, polling: 100 }).then(() => true, () => false);
    expect(cancelled.cancelled && !cancelled.done && status === 'cancelled' && apiFree, `Cancel stops the run after ${cancelled.rows.length} rows (status "${status}", API free again: ${apiFree})`);
    for (const row of ['raw-none-raw-none', 'delta-none-gorilla-none', 'delta-zstd-gorilla-zstd', 'deltapacked-none-alp-none']) {
      const f = (runtime, op) => ((bench.rows.find((r) => r.config === row && r.runtime === runtime && r.op === op)?.median_ns ?? NaN) / 1e3).toFixed(1);
      console.log(`     ${row.padEnd(28)} µs: native ${f('rust-native', 'decode')}, node kept ${f('wasm-node', 'decode-into')}, browser kept ${f('wasm-browser', 'decode-into')}, fresh ${f('wasm-browser', 'decode')}, scalar kept ${f('wasm-browser-scalar', 'decode-into')}`);
    }
  }


  // 8. Served without the API (any static host): native and Node from bench-results.json, labelled.
  const staticServer = await startServer({ root: DIST });
  try {
    const fallback = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    fallback.on('pageerror', (error) => errors.push(`pageerror (static): ${error.message}`));
    await fallback.route('**/bench-results.json', (route) => route.fulfill({ contentType: 'application/json', body: 'null' }));
    await fallback.goto(staticServer.url);
    await fallback.waitForFunction(() => globalThis.meboDemo?.bench !== undefined, null, { timeout: TIMEOUT });
    const none = await fallback.evaluate(() => globalThis.meboDemo.bench);
    const noneText = await fallback.textContent('#bench-sources');
    expect(!none.api && none.sources['rust-native'] === 'none' && /no local API/.test(noneText ?? ''), `static host without bench-results.json: native/Node marked unavailable (${JSON.stringify(none.sources)})`);
    // With a bench-results.json: its figures fill the native and Node columns and say where they came from.
    const recorded = { machine: { cpu: 'Test CPU', date: '2026-01-02T00:00:00Z', plan: 'full' }, results: [
      { config: 'delta-none-gorilla-none', runtime: 'rust-native', op: 'decode', points: 50000, bytes: 1, median_ns: 123400, min_ns: 120000, runs: 40 },
      { config: 'delta-none-gorilla-none', runtime: 'wasm-node', op: 'decode-into', points: 50000, bytes: 1, median_ns: 234500, min_ns: 230000, runs: 40 },
    ] };
    await fallback.unroute('**/bench-results.json');
    await fallback.route('**/bench-results.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(recorded) }));
    await fallback.reload();
    await fallback.waitForFunction(() => globalThis.meboDemo?.bench?.charted?.length > 0, null, { timeout: TIMEOUT });
    const file = await fallback.evaluate(() => globalThis.meboDemo.bench);
    const fileText = await fallback.textContent('#bench-sources');
    const row = await fallback.$$eval('#bench-table tbody tr', (rows) => rows.map((r) => [...r.children].map((td) => td.textContent)).find((cells) => cells[0] === 'delta-none-gorilla-none'));
    expect(file.sources['rust-native'] === 'bench-results.json' && file.sources['wasm-node'] === 'bench-results.json', `static host: native/Node from bench-results.json (${JSON.stringify(file.sources)})`);
    expect(/from bench-results.json \(full npm run bench of 2026-01-02 on Test CPU\)/.test(fileText ?? ''), 'static host: the label names the file, its date and machine');
    expect(row?.[1] === '123.4' && row?.[2] === '234.5', `static host: table shows the recorded figures (native ${row?.[1]}, Node ${row?.[2]})`);
    expect(file.charted.some((s) => s.label === 'native Rust'), 'static host: native series charted from the file');
    await fallback.locator('#benchmark').screenshot({ path: join(SHOTS, 'demo-bench-static.png') });
    await fallback.close();
  } finally {
    await staticServer.close();
  }

  expect(errors.length === 0, `no page errors${errors.length ? `: ${errors.join('; ')}` : ''}`);
} finally {
  await browser.close();
  await server.close();
}

/** Pixels of each of `colors` (#rrggbb, exact) on the canvas matched by `selector`. */
async function colorCounts(page, selector, colors) {
  return page.evaluate(
    ({ selector, colors }) => {
      const canvas = document.querySelector(selector);
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const wanted = colors.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
      const counts = colors.map(() => 0);
      for (let i = 0; i < data.length; i += 4) {
        wanted.forEach(([r, g, b], k) => {
          if (data[i] === r && data[i + 1] === g && data[i + 2] === b && data[i + 3] === 255) counts[k]++;
        });
      }
      return counts;
    },
    { selector, colors },
  );
}

console.log(`web-demo check: ${((Date.now() - started) / 1000).toFixed(1)} s, screenshots in ${SHOTS}`);
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
