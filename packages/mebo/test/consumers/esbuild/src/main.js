// A browser app bundled by esbuild. esbuild does not turn
// `new URL('…', import.meta.url)` into an asset, so the app imports the two
// .wasm builds itself: with `--loader:.wasm=file` each import is the URL of
// a copy in dist/ (relative to the bundle), and init() gets the one the
// browser runs. Decodes the blobs listed in /sample.json and leaves the
// result in window.outcome. decode-document.js is copied beside this file.

import * as mebo from 'mebo';
import simdWasm from 'mebo/wasm/mebo_simd.wasm';
import scalarWasm from 'mebo/wasm/mebo_scalar.wasm';
import { decodeSample } from './decode-document.js';

async function run() {
  const simd = mebo.simdSupported();
  await mebo.init({ wasm: new URL(simd ? simdWasm : scalarWasm, import.meta.url), variant: simd ? 'simd' : 'scalar' });
  const list = await (await fetch('/sample.json')).json();
  const sample = [];
  for (const { name, url } of list) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  return { info: mebo.wasmInfo(), ...decodeSample(mebo, sample) };
}

run().then(
  (ok) => (window.outcome = { ok }),
  (error) => (window.outcome = { error: String(error?.stack ?? error) }),
);
