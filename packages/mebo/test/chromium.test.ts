// The SDK in headless Chromium (Debian's, driven by playwright-core): a
// loopback server started here serves the repository; one page imports
// dist/index.js from a plain URL and lets init() fetch the wasm beside it,
// another loads an esbuild bundle of an app that imports `mebo`. Both decode
// the host sample; the results must equal the vectors' inputs.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as mebo from '../src/entries/index.js';
import { launchChromium, pageOutcome } from './helpers/chromium.js';
import { expectSampleDecoded, sampleBlobs, sampleCases } from './helpers/hosts.js';
import { seriesSample } from './hosts/series-document.js';
import { PACKAGE_ROOT, REPO_ROOT, VECTORS } from './helpers/vectors.js';
import { framed, writeChunks } from './helpers/stream.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

const SAMPLE = sampleCases().map((c) => ({ name: c.name, url: `/vectors/${c.file}` }));

/** A page that fetches the sample, runs `decode(sample)` and leaves the outcome in `window.outcome`. */
function page(imports: string, decode: string): string {
  return `<!doctype html><meta charset="utf-8"><title>mebo</title><link rel="icon" href="data:,">
<script type="module">
${imports}
try {
  const list = ${JSON.stringify(SAMPLE)};
  const sample = [];
  for (const { name, url } of list) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(url + ': HTTP ' + response.status);
    sample.push({ name, bytes: new Uint8Array(await response.arrayBuffer()) });
  }
  window.outcome = { ok: await ${decode} };
} catch (error) {
  window.outcome = { error: String(error && error.stack || error) };
}
</script>`;
}

/** Generated files: the pages and the consumer bundle with its asset. */
const generated = new Map<string, { type: string; body: string | Buffer }>();

/** A page (see `page`) served at `path`. */
function addPage(path: string, imports: string, decode: string): void {
  generated.set(path, { type: TYPES['.html']!, body: page(imports, decode) });
}

/** Serve generated files under /test-page/, the vectors under /vectors/, the repository under /. */
function serve(url: string): { type: string; body: string | Buffer } | undefined {
  const path = decodeURIComponent(new URL(url, 'http://x').pathname);
  const made = generated.get(path);
  if (made) return made;
  const [root, rest] = path.startsWith('/vectors/') ? [VECTORS, path.slice('/vectors/'.length)] : [REPO_ROOT, path.slice(1)];
  const file = normalize(join(root, rest));
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) return undefined;
  return { type: TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) };
}

let server: Server | undefined;
let browser: Browser | undefined;
let base = '';

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(PACKAGE_ROOT, 'test/hosts/browser-consumer.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  generated.set('/test-page/consumer.js', { type: TYPES['.js']!, body: bundle.outputFiles[0]!.text });
  generated.set('/test-page/assets/mebo_scalar.wasm', { type: TYPES['.wasm']!, body: readFileSync(join(PACKAGE_ROOT, 'wasm/mebo_scalar.wasm')) });
  addPage(
    '/test-page/dist.html',
    `import * as mebo from '/packages/mebo/dist/index.js';
import { decodeSample } from '/packages/mebo/test/hosts/decode-document.js';`,
    `mebo.init().then(() => decodeSample(mebo, sample))`,
  );
  addPage(
    '/test-page/series.html',
    `import * as mebo from '/packages/mebo/dist/index.js';
import { seriesSample } from '/packages/mebo/test/hosts/series-document.js';`,
    `mebo.init().then(() => seriesSample(mebo, sample))`,
  );
  addPage(
    '/test-page/pool.html',
    `import * as mebo from '/packages/mebo/dist/index.js';
import { DecodePool } from '/packages/mebo/dist/worker/pool.js';`,
    `(async () => {
  await mebo.init();
  const pool = await DecodePool.create({ size: 2 });
  const bits = (a) => Array.from(a instanceof Float64Array ? new BigUint64Array(a.buffer, a.byteOffset, a.length) : a, String).join();
  const same = {};
  const results = await Promise.all(sample.map(({ bytes }) => pool.decodeAll(bytes)));
  sample.forEach(({ name, bytes }, i) => {
    const blob = mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
    const want = blob.decodeAll();
    blob.free();
    const got = results[i];
    same[name] = ['ids', 'offsets', 'timestamps', 'values'].every((k) => Array.isArray(want[k]) ? want[k].join('\\0') === got[k].join('\\0') : bits(want[k]) === bits(got[k]));
  });
  let refused;
  try { await pool.decodeAll(sample[0].bytes.subarray(0, 40)); } catch (e) { refused = e instanceof mebo.MeboError ? e.code : String(e); }
  pool.terminate();
  return { size: pool.size, same, refused };
})()`,
  );
  addPage(
    '/test-page/reset.html',
    `import * as mebo from '/packages/mebo/dist/index.js';
import { decodeSample } from '/packages/mebo/test/hosts/decode-document.js';`,
    `(async () => {
  await mebo.init();
  const points = 1_000_000;
  const timestamps = new BigInt64Array(points).map((_, i) => 1_700_000_000_000_000n + BigInt(i) * 1_000_000n);
  const values = new Float64Array(points).map((_, i) => Math.sin(i / 100));
  const metrics = [0, 1, 2, 3].map((m) => ({ name: 'm' + m, timestamps, values }));
  mebo.encodeNumeric(metrics, { layout: 'v2' });
  const grown = mebo.memoryInfo();
  const held = mebo.NumericBlob.from(sample[0].bytes);
  let refused;
  try { await mebo.reset(); } catch (e) { refused = e.code; }
  held.free();
  const didReset = await mebo.reset();
  return { grown, refused, didReset, after: mebo.memoryInfo(), results: decodeSample(mebo, sample).results };
})()`,
  );
  addPage('/test-page/bundle.html', `import { run } from './consumer.js';`, `run(sample)`);
  addPage(
    '/test-page/stream.html',
    `import * as mebo from '/packages/mebo/dist/index.js';
import { decodeStreamSample } from '/packages/mebo/test/hosts/decode-document.js';`,
    `mebo.init().then(async () => decodeStreamSample(mebo, await fetch('/stream/sample.mbs'), ${JSON.stringify(SAMPLE.map((c) => c.name))}))`,
  );

  server = createServer((request, response) => {
    // The host sample as a stream of blobs, sent in chunks of 997 bytes as a network would.
    if (request.url === '/stream/sample.mbs') {
      const bytes = framed(sampleBlobs().map((b) => b.bytes));
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      void writeChunks(response, Array.from({ length: Math.ceil(bytes.length / 997) }, (_, i) => bytes.subarray(i * 997, (i + 1) * 997)));
      return;
    }
    const found = request.method === 'GET' ? serve(request.url ?? '/') : undefined;
    if (!found) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

/** Load a page and wait (bounded) for its outcome (see helpers/chromium.ts). */
async function outcome(path: string): Promise<{ variant: string; simd: boolean; results: Record<string, never> }> {
  return (await pageOutcome<{ variant: string; simd: boolean; results: Record<string, never> }>(browser!, `${base}${path}`)).ok;
}

it('a page importing dist/index.js by URL decodes the host sample (wasm fetched beside the package)', async () => {
  const out = await outcome('/test-page/dist.html');
  expect(out.simd).toBe(true);
  expect(out.variant).toBe('simd');
  expectSampleDecoded(out.results);
});

it('an esbuild bundle of an app importing `mebo` decodes the host sample (wasm as an asset)', async () => {
  const out = await outcome('/test-page/bundle.html');
  expect(out.variant).toBe('scalar');
  expectSampleDecoded(out.results);
});

it('range and decimate (M4, LTTB, a window) give in Chromium what they give in Node', async () => {
  const out = (await outcome('/test-page/series.html')) as unknown as Record<string, unknown>;
  await mebo.init();
  const want = seriesSample(mebo, sampleBlobs());
  expect(Object.keys(want).length).toBeGreaterThanOrEqual(8);
  expect(out).toEqual(want);
});

it('reset() gives a page its memory back after a large encode, refuses while a blob is alive, and decoding is exact after', async () => {
  type Info = { memoryBytes: number; peakMemoryBytes: number; liveHandles: number; resets: number };
  const out = (await outcome('/test-page/reset.html')) as unknown as { grown: Info; refused: string; didReset: boolean; after: Info; results: never };
  expect(out.grown.memoryBytes).toBeGreaterThan(60 * 2 ** 20);
  expect(out.refused).toBe('LIVE_HANDLES');
  expect(out.didReset).toBe(true);
  expect(out.after).toMatchObject({ liveHandles: 0, resets: 1 });
  expect(out.after.memoryBytes).toBeLessThan(2 * 2 ** 20);
  expect(out.after.peakMemoryBytes).toBeGreaterThanOrEqual(out.grown.memoryBytes);
  expectSampleDecoded(out.results);
});

it('mebo/worker: a pool of Web Workers decodes the host sample as the main thread does', async () => {
  const out = (await outcome('/test-page/pool.html')) as unknown as { size: number; same: Record<string, boolean>; refused: string };
  expect(out.size).toBe(2);
  expect(Object.keys(out.same).length).toBe(sampleCases().length);
  expect(Object.entries(out.same).filter(([, ok]) => !ok)).toEqual([]);
  expect(out.refused).toBe('OFFSET_OUT_OF_RANGE');
});

it('a page reads a stream of blobs from fetch with decodeStream as it arrives, each blob exact', async () => {
  const out = (await pageOutcome<{ results: Record<string, never>; streamError?: unknown }>(browser!, `${base}/test-page/stream.html`)).ok;
  expect(out.streamError).toBeUndefined();
  expectSampleDecoded(out.results);
});
