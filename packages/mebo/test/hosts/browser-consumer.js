// An application that imports `mebo` by package name, bundled by esbuild for
// the browser. As the SDK's README says for esbuild, the .wasm is copied to
// the app's assets and its URL passed to init(); this app ships the scalar
// build (so the browser test covers both builds: the dist page loads simd).

import * as mebo from 'mebo';
import { decodeSample } from './decode-document.js';

export async function run(sample) {
  await mebo.init({ wasm: new URL('./assets/mebo_scalar.wasm', import.meta.url), variant: 'scalar' });
  return decodeSample(mebo, sample);
}
