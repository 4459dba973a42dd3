// The stream sample in headless Chromium (needs dist/, which the demo's test
// script builds first), served as `npm run demo` serves it: the server's route
// (stream-sample.mjs) sends Seattle's hourly series in 6-hour windows, a blob
// each, through frameBlobs at a set pace; the page reads it with decodeStream.
// The chart grows while it arrives (fewer points mid-stream than at the end,
// drawn over several frames), ends with every point of the windows, counted
// here from the input; the progress bar reaches the stream's length and blob
// count; Cancel stops it; a stream file opened from disk draws the same, and
// a cut one says TRUNCATED with the blobs before it kept. Screenshots:
// screenshots/stream-mid.png, stream-end.png.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'mebo/document';
import { launchChromium } from 'mebo-tooling/chromium';
import { startServer } from 'mebo-tooling/serve';
import { STREAM_SOURCE, streamRoute } from '../stream-sample.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = join(ROOT, 'screenshots');
const TIMEOUT = 120_000;
let server;
let browser;

// Independently of the server: the series' points in 6-hour windows from its first timestamp.
const input = parseDocument(JSON.parse(readFileSync(STREAM_SOURCE, 'utf8')));
const first = input.metrics.reduce((t, m) => (m.timestamps[0] < t ? m.timestamps[0] : t), input.metrics[0].timestamps[0]);
const windows = new Map();
for (const m of input.metrics) {
  for (const t of m.timestamps) {
    const k = (t - first) / (6n * 3600n * 1_000_000n);
    windows.set(k, (windows.get(k) ?? 0) + 1);
  }
}
const BLOBS = windows.size;
const POINTS = [...windows.values()].reduce((a, b) => a + b, 0);
const CHARTED = input.metrics.reduce((n, m) => n + m.values.filter((v) => !Number.isNaN(v)).length, 0);

before(async () => {
  server = await startServer({ root: join(ROOT, 'dist'), api: await streamRoute() });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const stream = (page) => page.evaluate(() => globalThis.meboDemo.stream);

test('the route sends MBS1 and one frame a window at the pace asked, and refuses anything else', { timeout: TIMEOUT }, async () => {
  const url = `${server.url}stream/seattle.mbs`;
  const t0 = performance.now();
  const response = await fetch(`${url}?seconds=1.5`);
  const body = new Uint8Array(await response.arrayBuffer());
  const took = performance.now() - t0;
  assert.equal(response.status, 200);
  assert.equal(Number(response.headers.get('content-length')), body.length);
  assert.equal(Number(response.headers.get('x-mebo-blobs')), BLOBS);
  assert.ok(took >= 1300, `paced over ${took.toFixed(0)} ms (asked 1500)`);
  // The framing read here by hand: MBS1, then u32 LE lengths, each followed by that many bytes, to the end exactly.
  assert.deepEqual([...body.subarray(0, 4)], [0x4d, 0x42, 0x53, 0x31]);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 4;
  let frames = 0;
  while (at < body.length) {
    const length = view.getUint32(at, true);
    assert.ok(length > 0 && at + 4 + length <= body.length, `frame ${frames} fits`);
    at += 4 + length;
    frames++;
  }
  assert.equal(frames, BLOBS);
  assert.deepEqual(body, new Uint8Array(readFileSync(join(ROOT, 'dist/samples/seattle.mbs'))), 'the same bytes as the built file');
  for (const bad of ['?seconds=61', '?seconds=-1', '?seconds=abc', '?seconds=', '?seconds=1&seconds=2', '?speed=1']) {
    const refused = await fetch(`${url}${bad}`);
    assert.equal(refused.status, 400, `${bad} refused`);
    await refused.arrayBuffer();
  }
  const post = await fetch(url, { method: 'POST' });
  assert.equal(post.status, 405);
  await post.arrayBuffer();
});

async function newPage() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.waitForFunction(() => globalThis.meboDemo?.state === 'charted', null, { timeout: TIMEOUT });
  return { page, errors };
}

test(`the stream sample (${BLOBS} blobs, ${POINTS} points) is drawn as it arrives`, { timeout: TIMEOUT }, async () => {
  assert.ok(BLOBS >= 300, `several hundred windows (${BLOBS})`);
  const { page, errors } = await newPage();
  await page.fill('#stream-seconds', '6');
  await page.click('#stream-play');
  await page.waitForFunction((n) => globalThis.meboDemo.stream?.blobs >= n, Math.floor(BLOBS / 3), { timeout: TIMEOUT });
  const mid = await page.evaluate(() => ({ ...globalThis.meboDemo.stream, charted: globalThis.meboDemo.sourcePoints }));
  await page.locator('.chart-card').screenshot({ path: join(SHOTS, 'stream-mid.png') });
  await page.locator('aside').screenshot({ path: join(SHOTS, 'stream-mid-progress.png') });
  assert.ok(mid.running && mid.blobs < BLOBS && mid.charted > 0 && mid.charted < CHARTED, `mid-stream: ${mid.blobs} blobs, ${mid.charted} points charted`);
  assert.ok(mid.progress.value > 0 && mid.progress.value < mid.progress.max, `progress bar part way: ${mid.progress.value} / ${mid.progress.max}`);

  await page.waitForFunction(() => globalThis.meboDemo.stream?.running === false, null, { timeout: TIMEOUT });
  const end = await page.evaluate(() => ({ ...globalThis.meboDemo.stream, charted: globalThis.meboDemo.sourcePoints, series: globalThis.meboDemo.series }));
  await page.locator('.chart-card').screenshot({ path: join(SHOTS, 'stream-end.png') });
  assert.ok(end.done && !end.error && !end.cancelled, `the stream ended cleanly (${end.error ?? ''})`);
  assert.equal(end.blobs, BLOBS, 'every window arrived as a blob');
  assert.equal(end.expectedBlobs, BLOBS, 'the server said how many');
  assert.equal(end.points, POINTS, 'the blobs hold every point of the windows');
  assert.equal(end.series, input.metrics.length);
  assert.equal(end.charted, CHARTED, 'the chart ends with every point');
  assert.ok(end.frames > 5, `drawn over ${end.frames} animation frames`);
  assert.ok(end.progress.value === end.progress.max && end.progress.max === end.totalBytes && end.bytes === end.totalBytes, `progress bar full: ${end.progress.value} / ${end.progress.max} bytes`);
  assert.match(await page.textContent('#stream-status'), new RegExp(`^${BLOBS} / ${BLOBS} blobs`));
  const names = await page.$$eval('#metrics tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  assert.ok(input.metrics.every((m) => names.some((n) => n.startsWith(m.name))), 'the stream\'s metrics listed by name');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel stops the stream; the blobs before it stay drawn', { timeout: TIMEOUT }, async () => {
  const { page, errors } = await newPage();
  await page.fill('#stream-seconds', '30');
  await page.click('#stream-play');
  await page.waitForFunction(() => globalThis.meboDemo.stream?.blobs >= 10, null, { timeout: TIMEOUT });
  await page.click('#stream-cancel');
  await page.waitForFunction(() => globalThis.meboDemo.stream?.running === false, null, { timeout: TIMEOUT });
  const stopped = await stream(page);
  await page.waitForTimeout(1000);
  const later = await stream(page);
  assert.ok(stopped.cancelled && !stopped.done && !stopped.error && stopped.blobs < BLOBS, `cancelled after ${stopped.blobs} blobs`);
  assert.equal(later.blobs, stopped.blobs, 'nothing arrives after Cancel');
  assert.match(await page.textContent('#stream-status'), /cancelled/);
  assert.ok(await page.isDisabled('#stream-cancel'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a stream file opened from disk is drawn the same; a cut one ends in TRUNCATED with its complete blobs kept', { timeout: TIMEOUT }, async () => {
  const { page, errors } = await newPage();
  const file = readFileSync(join(ROOT, 'dist/samples/seattle.mbs'));
  assert.equal(file.subarray(0, 4).toString('latin1'), 'MBS1');
  await page.setInputFiles('#file', { name: 'seattle.mbs', mimeType: 'application/octet-stream', buffer: file });
  await page.waitForFunction(() => globalThis.meboDemo.stream?.label === 'seattle.mbs' && !globalThis.meboDemo.stream.running, null, { timeout: TIMEOUT });
  const whole = await page.evaluate(() => ({ ...globalThis.meboDemo.stream, charted: globalThis.meboDemo.sourcePoints }));
  assert.ok(whole.done && whole.blobs === BLOBS && whole.points === POINTS && whole.charted === CHARTED && whole.totalBytes === file.length, `file: ${whole.blobs} blobs, ${whole.points} points`);

  // Cut in the middle of a frame: the frames before it are complete blobs.
  let at = 4;
  let complete = 0;
  while (at + 4 + file.readUInt32LE(at) < file.length * 0.6) {
    at += 4 + file.readUInt32LE(at);
    complete++;
  }
  await page.setInputFiles('#file', { name: 'cut.mbs', mimeType: 'application/octet-stream', buffer: file.subarray(0, at + 7) });
  await page.waitForFunction(() => globalThis.meboDemo.stream?.label === 'cut.mbs' && !globalThis.meboDemo.stream.running, null, { timeout: TIMEOUT });
  const cut = await stream(page);
  assert.ok(cut.error?.startsWith('TRUNCATED') && cut.blobs === complete, `cut stream: ${cut.blobs} blobs (${complete} complete), "${cut.error}"`);
  assert.ok(await page.isVisible('#stream-error'));
  assert.match(await page.textContent('#stream-error'), /TRUNCATED/);

  // A stream whose first frame is not a blob: that blob's own error.
  const junk = Buffer.concat([Buffer.from('MBS1'), Buffer.from([12, 0, 0, 0]), Buffer.alloc(12, 0xee)]);
  await page.setInputFiles('#file', { name: 'junk.mbs', mimeType: 'application/octet-stream', buffer: junk });
  await page.waitForFunction(() => globalThis.meboDemo.stream?.label === 'junk.mbs' && !globalThis.meboDemo.stream.running, null, { timeout: TIMEOUT });
  const bad = await stream(page);
  assert.ok(bad.error && bad.blobs === 0 && !bad.done, `junk frame: "${bad.error}"`);
  assert.deepEqual(errors, []);
  await page.close();
});
