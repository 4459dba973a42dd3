'use client';
// A client page of the App Router: `await init()` with no argument and a
// `mebo/worker` pool, as in any browser app; Next.js (webpack or Turbopack)
// builds the .wasm and the worker from their `new URL(…, import.meta.url)`.
// Decodes the blobs listed in /sample.json on the page and in the pool and
// leaves the result in window.outcome. decode-document.js and
// pool-document.js are copied beside this file.

import { useEffect } from 'react';
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

export default function Page() {
  useEffect(() => {
    run().then(
      (ok) => (window.outcome = { ok }),
      (error) => (window.outcome = { error: String(error?.stack ?? error) }),
    );
  }, []);
  return <main>mebo</main>;
}
