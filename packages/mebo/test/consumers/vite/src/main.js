// A browser app built by Vite with no configuration: `await init()` with no
// argument, and a `mebo/worker` pool. The package names its .wasm builds with
// `new URL('../wasm/…', import.meta.url)` and its worker with
// `new Worker(new URL('./thread.js', import.meta.url), { type: 'module' })`,
// which `vite build` emits as assets (the worker as its default, an IIFE) and
// the dev server's dependency optimizer rewrites. Decodes the blobs listed in
// /sample.json on the page and in the pool and leaves the result in
// window.outcome. decode-document.js and pool-document.js are copied beside
// this file.

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
