// A Bun program in TypeScript (Bun runs it as is): `import` from 'mebo' and
// 'mebo/decode', init() reading the wasm beside the installed package.
// Decodes the blobs named on the command line (`name=path`) with both entries
// and prints one JSON line. decode-document.js is copied beside this file.

import { readFileSync } from 'node:fs';
import * as mebo from 'mebo';
import * as decodeOnly from 'mebo/decode';
import { decodeSample } from './decode-document.js';

const sample = process.argv.slice(2).map((arg) => {
  const eq = arg.indexOf('=');
  return { name: arg.slice(0, eq), bytes: new Uint8Array(readFileSync(arg.slice(eq + 1))) };
});

await mebo.init();
await decodeOnly.init();
console.log(
  JSON.stringify({
    bun: Bun.version,
    resolved: { mebo: import.meta.resolve('mebo'), decode: import.meta.resolve('mebo/decode') },
    info: mebo.wasmInfo(),
    decodeInfo: decodeOnly.wasmInfo(),
    mebo: decodeSample(mebo, sample).results,
    decode: decodeSample(decodeOnly, sample).results,
  }),
);
