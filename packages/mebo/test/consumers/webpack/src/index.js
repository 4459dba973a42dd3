// A browser app built by webpack 5 (production mode, no configuration: this
// is its default entry, the bundle dist/main.js): `await init()` with no
// argument; webpack emits the package's .wasm builds as assets from their
// `new URL('../wasm/…', import.meta.url)`, and the `mebo/worker` pool's
// script from `new Worker(new URL('./thread.js', import.meta.url), …)`.
// Decodes the blobs listed in /sample.json on the page and in the pool and
// leaves the result in window.outcome. decode-document.js and
// pool-document.js are copied beside this file.

import * as mebo from 'mebo';
import { DecodePool } from 'mebo/worker';
import { decodeSample } from './decode-document.js';
import { poolSample } from './pool-document.js';

async function run() {
  await mebo.init();
  const list = await (await fetch('/sample.json')).json();
  const sample = [];
  for (const { name, url } of list) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  const pool = await DecodePool.create({ size: 2 });
  const pooled = await poolSample(pool, sample);
  pool.terminate();
  return { info: mebo.wasmInfo(), ...decodeSample(mebo, sample), pool: pooled };
}

run().then(
  (ok) => (window.outcome = { ok }),
  (error) => (window.outcome = { error: String(error?.stack ?? error) }),
);
