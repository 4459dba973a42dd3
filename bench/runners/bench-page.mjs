// The Chromium side of `npm run bench`, bundled by esbuild into a page that
// bench/lib/chromium.mjs serves from 127.0.0.1 and drives with playwright-core.
// `window.runBench({ variant, quick })` loads that wasm build (one per page
// load: the SDK's init is once per realm) and times decode of every bench blob
// and, with the simd build, the encode of each from its input (encodeRows).
// Variant `core`: the package's `mebo/decode` as it ships (pkg/), whose init()
// in a page loads the light core, and its zstd part; decode rows only.

import * as mebo from 'mebo';
import { encoderMetrics, parseDocument } from 'mebo/document';
import { PLANS, breakdown as measureBreakdown, configName, decimateRows, encodeRows, poolRows, decodeNumeric, decodeNumericInto, decodeNumericView, decodeText, decodeTextInto, measure } from 'mebo-tooling/harness';

async function fetchBytes(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Decode rows of every bench blob through `sdk` (and, with `breakdown`, where its time goes); fills `blobs`. */
async function decodeRows(sdk, cases, blobs, runtime, plan, breakdown) {
  const rows = [];
  const parts = [];
  for (const benchCase of cases) {
    const bytes = await fetchBytes(benchCase.file);
    blobs.set(benchCase, bytes);
    const text = benchCase.kind === 'text';
    const open = text ? sdk.TextBlob.from(bytes) : sdk.NumericBlob.from(bytes);
    const points = open.totalPoints;
    open.free();
    const op = text ? () => decodeText(sdk, bytes) : () => decodeNumeric(sdk, bytes);
    rows.push({ config: configName(benchCase), runtime, op: 'decode', points, bytes: bytes.length, ...measure(op, plan) });
    const reuse = {};
    const into = text ? () => decodeTextInto(sdk, bytes, reuse) : () => decodeNumericInto(sdk, bytes, reuse);
    rows.push({ config: configName(benchCase), runtime, op: 'decode-into', points, bytes: bytes.length, ...measure(into, plan) });
    if (!text) rows.push({ config: configName(benchCase), runtime, op: 'decode-view', points, bytes: bytes.length, ...measure(() => decodeNumericView(sdk, bytes), plan) });
    if (breakdown && !text) parts.push({ config: configName(benchCase), runtime, ...measureBreakdown(sdk, bytes, plan) });
    await new Promise((resolve) => setTimeout(resolve, 0)); // let the page breathe between rows
  }
  return { rows, parts };
}

/** The light core with its zstd part, as `mebo/decode` loads them in a page. */
async function runCore(cases, plan) {
  const sdk = await import(/* a path, not bundled */ new URL('pkg/dist/decode.js', location.href).href);
  await sdk.init({ parts: 'core' });
  // The core alone refuses a zstd blob until its part is loaded: the proof that the core is what runs.
  const zstd = await fetchBytes(cases.find((c) => configName(c).includes('zstd')).file);
  let missing;
  try {
    sdk.NumericBlob.from(zstd).free();
  } catch (error) {
    missing = error.code;
  }
  if (missing !== 'MISSING_PART') throw new Error(`asked for the light core, got another build (a zstd blob: ${missing ?? 'opened'})`);
  await sdk.init({ parts: 'all' });
  const { rows } = await decodeRows(sdk, cases, new Map(), 'wasm-chromium-core', plan, false);
  return { rows, breakdown: [], crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent };
}

globalThis.runBench = async ({ variant = 'simd', quick = false, breakdown = false } = {}) => {
  const plan = quick ? PLANS.quick : PLANS.full;
  const { cases } = await (await fetch('manifest.json')).json();
  if (variant === 'core') return runCore(cases, plan);
  await mebo.init({ wasm: fetch(`wasm/mebo_${variant}.wasm`), variant });
  const runtime = variant === 'scalar' ? 'wasm-chromium-scalar' : 'wasm-chromium';
  const blobs = new Map();
  const { rows, parts } = await decodeRows(mebo, cases, blobs, runtime, plan, breakdown);
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
