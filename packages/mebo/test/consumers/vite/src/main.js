// A browser app built by Vite with no configuration: `await init()` with no
// argument. The package names its .wasm builds with
// `new URL('../wasm/…', import.meta.url)`, which `vite build` emits as
// assets and the dev server's dependency optimizer rewrites. Decodes the
// blobs listed in /sample.json and leaves the result in window.outcome.
// decode-document.js is copied beside this file.

import * as mebo from 'mebo';
import { decodeSample } from './decode-document.js';

async function run() {
  await mebo.init();
  const list = await (await fetch('/sample.json')).json();
  const sample = [];
  for (const { name, url } of list) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  return { info: mebo.wasmInfo(), ...decodeSample(mebo, sample) };
}

run().then(
  (ok) => (window.outcome = { ok }),
  (error) => (window.outcome = { error: String(error?.stack ?? error) }),
);
