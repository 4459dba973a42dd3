// Time to the first blob in Chromium: milliseconds from navigation to
// `init()` resolved and to the first decoded blob, for `mebo/decode`'s light
// path (`init()`: the core alone; `NumericBlob.load`) and for
// `init({ parts: 'all' })` (the decode-only build), each sample in a new
// browser context (an empty HTTP cache), the page and the package served on
// 127.0.0.1. Also the bytes the page fetched of the package by then, and the
// first zstd blob (its part fetched on the light path).
//
//   node bench/first-load.mjs [--quick]      (also a part of `npm run bench`)

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from 'mebo-tooling/chromium';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = join(ROOT, 'packages/mebo');
const VECTORS = join(ROOT, 'testdata/vectors/blobs');
const PLAIN = 'num-gauge1-deltapacked-lz4-chimp-lz4-notags-le-v1.mebo';
const ZSTD = 'num-gauge1-delta-zstd-gorilla-s2-notags-le-v1.mebo';
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.mebo': 'application/octet-stream' };

/** The page: the blobs are fetched before the clock's marks that count, so they time the SDK only. */
function page(parts) {
  return `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module">
const get = async (name) => new Uint8Array(await (await fetch('/vectors/' + name)).arrayBuffer());
const fetched = () => performance.getEntriesByType('resource').filter((e) => e.name.includes('/mebo/')).reduce((n, e) => n + e.encodedBodySize, 0);
try {
  const [plain, zstd] = await Promise.all([get(${JSON.stringify(PLAIN)}), get(${JSON.stringify(ZSTD)})]);
  const mebo = await import('/mebo/dist/decode.min.js');
  await mebo.init(${parts === 'all' ? "{ parts: 'all' }" : ''});
  const init = performance.now();
  const initBytes = fetched();
  const first = await mebo.NumericBlob.load(plain);
  first.decodeAll();
  first.free();
  const blob = performance.now();
  const blobBytes = fetched();
  const second = await mebo.NumericBlob.load(zstd);
  second.decodeAll();
  second.free();
  const zstdBlob = performance.now();
  window.outcome = { init, blob, zstdBlob, initBytes, blobBytes, zstdBytes: fetched(), variant: mebo.wasmVariant() };
} catch (error) {
  window.outcome = { error: String(error && error.stack || error) };
}
</script>`;
}

function serve(path) {
  if (path === '/light.html') return { type: TYPES['.html'], body: page('core') };
  if (path === '/all.html') return { type: TYPES['.html'], body: page('all') };
  const [root, rest] = path.startsWith('/mebo/') ? [PACKAGE, path.slice(6)] : path.startsWith('/vectors/') ? [VECTORS, path.slice(9)] : [];
  if (!root) return undefined;
  const file = normalize(join(root, rest));
  if (!file.startsWith(root + sep)) return undefined;
  try {
    return { type: TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) };
  } catch {
    return undefined;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Run the samples and print the table; resolves to the figures per path
 * (`{ light, all }`, each `{ init, blob, zstdBlob, initBytes, blobBytes, zstdBytes }`, medians).
 */
export async function firstLoad({ quick = false, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const server = createServer((request, response) => {
    const found = serve(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    if (!found) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launchChromium();
  const samples = quick ? 3 : 15;
  const figures = {};
  try {
    for (const path of ['light', 'all']) {
      const runs = [];
      for (let i = 0; i < samples; i++) {
        const context = await browser.newContext();
        try {
          const tab = await context.newPage();
          await tab.goto(`${base}/${path}.html`);
          await tab.waitForFunction(() => window.outcome !== undefined, undefined, { timeout: 60_000 });
          const outcome = await tab.evaluate(() => window.outcome);
          if (outcome.error) throw new Error(`first-load ${path}: ${outcome.error}`);
          runs.push(outcome);
        } finally {
          await context.close();
        }
      }
      figures[path] = Object.fromEntries(['init', 'blob', 'zstdBlob', 'initBytes', 'blobBytes', 'zstdBytes'].map((k) => [k, median(runs.map((r) => r[k]))]));
      figures[path].min = { init: Math.min(...runs.map((r) => r.init)), blob: Math.min(...runs.map((r) => r.blob)) };
    }
  } finally {
    await browser.close();
    server.close();
  }
  const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
  log(`\nTime to the first blob, Chromium, cold cache (new context a sample), median of ${samples} (min), ms from navigation; bytes of the package fetched, uncompressed`);
  log('| path | init() | first blob (no zstd) | first zstd blob | fetched by init | by the first blob | by the zstd blob |');
  log('|---|---|---|---|---|---|---|');
  for (const [path, f] of Object.entries(figures)) {
    const label = path === 'light' ? "light: init(), load()" : "init({ parts: 'all' })";
    log(`| ${label} | ${f.init.toFixed(1)} (${f.min.init.toFixed(1)}) | ${f.blob.toFixed(1)} (${f.min.blob.toFixed(1)}) | ${f.zstdBlob.toFixed(1)} | ${kb(f.initBytes)} | ${kb(f.blobBytes)} | ${kb(f.zstdBytes)} |`);
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await firstLoad({ quick: process.argv.includes('--quick'), log: console.log });
}
