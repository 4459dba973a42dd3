// `mebo/decode` with no bundler, in headless Chromium: the files of the packed
// tarball laid out under /npm/mebo@VERSION/ as jsDelivr and unpkg serve them,
// and a plain page that imports dist/decode.min.js from there (the README's
// snippet; the page without the zstd part imports dist/decode.js). `init()` loads the
// light core alone; a blob without zstd then decodes with nothing more
// fetched (held to FIRST_LOAD_BUDGET, gzipped JavaScript and wasm), while
// its `decimate()` is MISSING_PART until the core's rest has followed; a zstd
// blob is MISSING_PART for `from()` until `load()` fetched the rest and the
// zstd part, and the sample decodes exactly (the rest instantiated
// synchronously by the first of its functions called, on the page's main
// thread). A layout without the zstd part: `load()` of a zstd blob is
// WASM_LOAD naming it, the other blobs decode.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageOutcome } from './helpers/chromium.js';
import { FIRST_LOAD_BUDGET } from './helpers/first-load.js';
import { expectSampleDecoded, sampleCases } from './helpers/hosts.js';
import { manifest, PACKAGE_ROOT, readInput, VECTORS } from './helpers/vectors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};
const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const CDN = `/npm/mebo@${VERSION}`;
/** The same layout without the zstd part. */
const CDN_NO_ZSTD = `/npm-no-zstd/mebo@${VERSION}`;
const SAMPLE = sampleCases().map((c) => ({ name: c.name, url: `/vectors/${c.file}` }));

/** The light path, step by step; each step lists the resources the page had fetched by then. */
function lightPage(root: string): string {
  return `<!doctype html><meta charset="utf-8"><title>mebo from a CDN</title><link rel="icon" href="data:,">
<script type="module">
import * as mebo from '${root}/dist/decode.min.js';
import { decodeSample } from '/hosts/decode-document.js';
const fetched = () => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.startsWith('${root}/'));
try {
  const sample = [];
  for (const { name, url } of ${JSON.stringify(SAMPLE)}) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  const byName = Object.fromEntries(sample.map((s) => [s.name, s.bytes]));
  const steps = {};
  await mebo.init();
  steps.init = fetched();
  const plain = await mebo.NumericBlob.load(byName['num-gauge1-deltapacked-lz4-chimp-lz4-notags-le-v1']);
  const plainPoints = plain.totalPoints;
  let restMissing;
  try { plain.decimate(plain.metricIds[0], { buckets: 4, method: 'lttb' }); } catch (e) { restMissing = e.code; }
  plain.free();
  steps.plain = fetched();
  let missing;
  try { mebo.NumericBlob.from(byName['num-gauge1-delta-zstd-gorilla-s2-notags-le-v1']); } catch (e) { missing = e.code; }
  const zstd = await mebo.NumericBlob.load(byName['num-gauge1-delta-zstd-gorilla-s2-notags-le-v1']);
  zstd.free();
  const text = await mebo.TextBlob.load(byName['txt-status1-tagged-delta-zstd-tags-be']);
  text.free();
  steps.all = fetched();
  window.outcome = { ok: { steps, plainPoints, restMissing, missing, ...decodeSample(mebo, sample) } };
} catch (error) {
  window.outcome = { error: String(error && error.stack || error) };
}
</script>`;
}

/** Without the zstd part: its load fails by name, the other blobs still open. */
function brokenPage(root: string): string {
  return `<!doctype html><meta charset="utf-8"><title>no zstd part</title><link rel="icon" href="data:,">
<script type="module">
import * as mebo from '${root}/dist/decode.js';
try {
  const get = async (name) => new Uint8Array(await (await fetch('/vectors/blobs/' + name + '.mebo')).arrayBuffer());
  await mebo.init();
  const failures = [];
  for (let i = 0; i < 2; i++) {
    try { await mebo.NumericBlob.load(await get('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1')); failures.push('opened'); }
    catch (e) { failures.push({ code: e.code, message: e.message }); }
  }
  const plain = await mebo.NumericBlob.load(await get('num-gauge1-raw-none-raw-none-notags-le-v1'));
  const first = plain.metric(plain.metricIds[0]).values;
  const bits = Array.from(new BigUint64Array(first.buffer, first.byteOffset, first.length), String);
  plain.free();
  window.outcome = { ok: { failures, bits } };
} catch (error) {
  window.outcome = { error: String(error && error.stack || error) };
}
</script>`;
}

let unpacked = '';
let server: Server | undefined;
let browser: Browser | undefined;
let base = '';

/** A file of the unpacked tarball, or of the vectors, or a page. */
function serve(url: string): { type: string; body: string | Buffer } | undefined {
  const path = decodeURIComponent(new URL(url, 'http://x').pathname);
  if (path === '/light.html') return { type: TYPES['.html']!, body: lightPage(CDN) };
  if (path === '/broken.html') return { type: TYPES['.html']!, body: brokenPage(CDN_NO_ZSTD) };
  if (path === '/hosts/decode-document.js') return { type: TYPES['.js']!, body: readFileSync(join(PACKAGE_ROOT, 'test/hosts/decode-document.js')) };
  let root: string;
  let rest: string;
  if (path.startsWith(`${CDN}/`)) [root, rest] = [unpacked, path.slice(CDN.length + 1)];
  else if (path.startsWith(`${CDN_NO_ZSTD}/`) && !path.endsWith('/mebo_zstd.wasm')) [root, rest] = [unpacked, path.slice(CDN_NO_ZSTD.length + 1)];
  else if (path.startsWith('/vectors/')) [root, rest] = [VECTORS, path.slice('/vectors/'.length)];
  else return undefined;
  const file = normalize(join(root, rest));
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) return undefined;
  return { type: TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) };
}

/** Bytes gzipped (-9) of the files the page fetched: what a CDN would send. */
function gzippedBytes(paths: string[]): number {
  return paths.reduce((sum, p) => sum + gzipSync(readFileSync(join(unpacked, p.slice(CDN.length + 1))), { level: 9 }).length, 0);
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-cdn-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  unpacked = join(dir, 'package');
  server = createServer((request, response) => {
    const found = request.method === 'GET' ? serve(request.url ?? '/') : undefined;
    if (!found) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (unpacked) rmSync(join(unpacked, '..'), { recursive: true, force: true });
});

interface LightOutcome {
  steps: { init: string[]; plain: string[]; all: string[] };
  plainPoints: number;
  restMissing: string;
  missing: string;
  results: Record<string, never>;
}

describe('mebo/decode from a CDN layout, no bundler', () => {
  it("loads the light core alone, then the core's rest and the zstd part for the first zstd blob; the sample decodes exactly", async () => {
    const { ok } = await pageOutcome<LightOutcome>(browser!, `${base}/light.html`);
    const at = (name: string) => `${CDN}/${name}`;
    expect(ok.steps.init.sort()).toEqual([at('dist/decode.min.js'), at('wasm/mebo_core_simd.wasm')].sort());
    expect(ok.steps.plain.sort()).toEqual(ok.steps.init.sort());
    expect(ok.steps.all.sort()).toEqual([...ok.steps.init, at('wasm/mebo_core_rest.wasm'), at('wasm/mebo_zstd.wasm')].sort());
    expect(ok.plainPoints).toBeGreaterThan(0);
    expect(ok.restMissing).toBe('MISSING_PART');
    expect(ok.missing).toBe('MISSING_PART');
    expectSampleDecoded(ok.results);
    const [first, all] = [gzippedBytes(ok.steps.plain), gzippedBytes(ok.steps.all)];
    console.log(`first numeric blob after ${first} bytes gzipped; zstd and text blobs after ${all}`);
    expect(first).toBeLessThanOrEqual(FIRST_LOAD_BUDGET.firstBlob);
    expect(all).toBeLessThanOrEqual(FIRST_LOAD_BUDGET.everyPart);
  }, 120_000);

  it('a zstd part that 404s is WASM_LOAD naming it (each time), and blobs without zstd still decode', async () => {
    const { ok, loaded } = await pageOutcome<{ failures: { code: string; message: string }[]; bits: string[] }>(browser!, `${base}/broken.html`, {
      expectedFailures: /mebo_zstd\.wasm|404 \(Not Found\)/,
    });
    expect(loaded.filter((r) => r.status === 404).map((r) => new URL(r.url).pathname)).toEqual([
      `${CDN_NO_ZSTD}/wasm/mebo_zstd.wasm`,
      `${CDN_NO_ZSTD}/wasm/mebo_zstd.wasm`,
    ]);
    expect(ok.failures).toHaveLength(2);
    for (const failure of ok.failures) {
      expect(failure.code).toBe('WASM_LOAD');
      expect(failure.message).toMatch(/zstd part.*404/);
    }
    const [plain] = readInput(manifest().find((c) => c.name === 'num-gauge1-raw-none-raw-none-notags-le-v1')!).metrics;
    expect(ok.bits).toEqual(Array.from(plain!.valueBits, String));
  }, 120_000);
});
