// A Deno program on the package installed by npm: `npm:` specifiers resolve
// to ./node_modules ("nodeModulesDir": "manual" in deno.json), so Deno needs
// no registry of its own. init() reads the wasm beside the package
// (--allow-read). Decodes the blobs named on the command line (`name=path`)
// with 'mebo' and 'mebo/decode' and prints one JSON line. decode-document.js
// is copied beside this file.

import * as mebo from 'npm:mebo';
import * as decodeOnly from 'npm:mebo/decode';
import type { NumericColumns } from 'npm:mebo';
// @ts-types="./decode-document.d.ts"
import { decodeSample } from './decode-document.js';

const sample = await Promise.all(
  Deno.args.map(async (arg) => {
    const eq = arg.indexOf('=');
    return { name: arg.slice(0, eq), bytes: await Deno.readFile(arg.slice(eq + 1)) };
  }),
);

await mebo.init();
await decodeOnly.init();
const first = mebo.NumericBlob.from(sample[0]!.bytes);
const columns: NumericColumns = first.decodeAll();
first.free();
console.log(
  JSON.stringify({
    deno: Deno.version.deno,
    resolved: { mebo: import.meta.resolve('npm:mebo'), decode: import.meta.resolve('npm:mebo/decode') },
    info: mebo.wasmInfo(),
    decodeInfo: decodeOnly.wasmInfo(),
    firstPoints: columns.values.length,
    mebo: decodeSample(mebo, sample).results,
    decode: decodeSample(decodeOnly, sample).results,
  }),
);
