// Deno: import the built SDK (dist) as a file, load the wasm through the
// SDK's own Deno path (`init()` reads the file beside the package), decode
// the blobs named on the command line and print the results as JSON.
//
//   deno run --allow-read=<package>,<vectors> deno-decode.js <name>=<file>...

import * as mebo from '../../dist/index.js';
import { decodeSample } from './decode-document.js';

await mebo.init();
const sample = [];
for (const arg of Deno.args) {
  const eq = arg.indexOf('=');
  sample.push({ name: arg.slice(0, eq), bytes: await Deno.readFile(arg.slice(eq + 1)) });
}
console.log(JSON.stringify({ deno: Deno.version.deno, ...decodeSample(mebo, sample) }));
