// The Chromium side of bench/stream.mjs, bundled by esbuild into a page
// served from 127.0.0.1: `runStream({ reps })` fetches the bench blobs, then
// times decodeStream against decoding from memory (bench/lib/stream-measure.mjs).

import * as mebo from 'mebo';
import { measureThroughput } from '../lib/stream-measure.mjs';

globalThis.runStream = async ({ reps }) => {
  await mebo.init({ wasm: fetch('wasm/mebo_simd.wasm'), variant: 'simd' });
  const { cases } = await (await fetch('manifest.json')).json();
  const blobs = await Promise.all(cases.map(async (c) => new Uint8Array(await (await fetch(c.file)).arrayBuffer())));
  return measureThroughput(mebo, blobs, { reps });
};
globalThis.streamReady = true;
