// The Chromium side of `npm run bench`, bundled by esbuild into a page that
// bench/lib/chromium.mjs serves from 127.0.0.1 and drives with playwright-core.
// `window.runBench({ variant, quick })` loads that wasm build (one per page
// load: the SDK's init is once per realm) and times decode of every bench blob
// and, with the simd build, the encode of each from its input (encodeRows).

import * as mebo from 'mebo';
import { encoderMetrics, parseDocument } from 'mebo/document';
import { PLANS, breakdown as measureBreakdown, configName, decimateRows, encodeRows, poolRows, decodeNumeric, decodeNumericInto, decodeNumericView, decodeText, decodeTextInto, measure } from 'mebo-tooling/harness';

async function fetchBytes(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

globalThis.runBench = async ({ variant = 'simd', quick = false, breakdown = false } = {}) => {
  await mebo.init({ wasm: fetch(`wasm/mebo_${variant}.wasm`), variant });
  const plan = quick ? PLANS.quick : PLANS.full;
  const runtime = variant === 'scalar' ? 'wasm-chromium-scalar' : 'wasm-chromium';
  const { cases } = await (await fetch('manifest.json')).json();
  const rows = [];
  const parts = [];
  const blobs = new Map();
  for (const benchCase of cases) {
    const bytes = await fetchBytes(benchCase.file);
    blobs.set(benchCase, bytes);
    const text = benchCase.kind === 'text';
    const open = text ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
    const points = open.totalPoints;
    open.free();
    const op = text ? () => decodeText(mebo, bytes) : () => decodeNumeric(mebo, bytes);
    rows.push({ config: configName(benchCase), runtime, op: 'decode', points, bytes: bytes.length, ...measure(op, plan) });
    const reuse = {};
    const into = text ? () => decodeTextInto(mebo, bytes, reuse) : () => decodeNumericInto(mebo, bytes, reuse);
    rows.push({ config: configName(benchCase), runtime, op: 'decode-into', points, bytes: bytes.length, ...measure(into, plan) });
    if (!text) rows.push({ config: configName(benchCase), runtime, op: 'decode-view', points, bytes: bytes.length, ...measure(() => decodeNumericView(mebo, bytes), plan) });
    if (breakdown && !text) parts.push({ config: configName(benchCase), runtime, ...measureBreakdown(mebo, bytes, plan) });
    await new Promise((resolve) => setTimeout(resolve, 0)); // let the page breathe between rows
  }
  // Each configuration written from its input, and `auto` under each prefer (the simd build: the one users load).
  if (variant === 'simd') {
    const inputs = new Map();
    for (const path of new Set(cases.map((c) => c.options.input))) {
      const doc = parseDocument(await (await fetch(path)).json());
      inputs.set(path, { startTime: doc.startTime, metrics: encoderMetrics(doc) });
    }
    rows.push(...encodeRows(mebo, cases, (c) => inputs.get(c.options.input), (c) => blobs.get(c), runtime, plan));
  }
  // A chart's read of every metric, thinned to 1,000 points in wasm or in JavaScript (decimate.json: see chromium.mjs).
  const decimateBlobs = await Promise.all((await (await fetch('decimate.json')).json()).map(async ({ config, file }) => ({ config, bytes: await fetchBytes(file) })));
  rows.push(...decimateRows(mebo, decimateBlobs, runtime, plan));
  // mebo/worker: 8 bench blobs at once on a pool of Web Workers, served as the package ships
  // (chromium.mjs copies dist/ and wasm/ to pkg/): the pool's workers load pkg/dist/index.js.
  const poolModule = 'pkg/dist/worker/pool.js';
  const { DecodePool } = await import(/* a path, not bundled */ new URL(poolModule, location.href).href);
  const pool = await DecodePool.create({ init: { variant } });
  const poolBlobs = cases.filter((c) => c.kind === 'numeric').slice(0, 8).map((c) => blobs.get(c));
  for (const row of await poolRows(mebo, pool, poolBlobs, runtime, plan)) rows.push({ ...row, workers: pool.size });
  pool.terminate();
  return { rows, breakdown: parts, crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent };
};
globalThis.benchReady = true;
