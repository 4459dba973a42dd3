// A browser app built by Parcel 2 with its defaults (`parcel build
// index.html`, no .parcelrc, package exports off): `await init()` with no
// argument and a `mebo/worker` pool. Parcel resolves `mebo` by the `module`
// field and `mebo/worker` by the package's subpath folder, and builds the
// .wasm and the worker from their `new URL(…, import.meta.url)`. Decodes the
// blobs listed in /sample.json on the page and in the pool and leaves the
// result in window.outcome. decode-document.js and pool-document.js are
// copied beside this file.

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
