// A browser app bundled by Rollup (rollup.config.mjs: two plugins, resolve
// and emit the `new URL(…, import.meta.url)` assets): `await init()` with no
// argument and a `mebo/worker` pool. The worker script, copied as a file,
// needs nothing beside it: the pool hands it the module this page compiled.
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
