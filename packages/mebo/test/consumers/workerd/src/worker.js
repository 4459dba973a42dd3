// A Cloudflare Worker as users write one: `import { init } from 'mebo'` and
// `await init()` (here 'mebo/decode' by `initSync()`), nothing else. Under the `workerd` export condition the
// package's entry imports its .wasm as a module (the Workers convention:
// the platform compiles it at upload; compiling bytes at run time is
// refused), so there is nothing to wire. POST a JSON array of
// { name, base64 }: the answer holds what 'mebo' and 'mebo/decode' decoded.
// decode-document.js is copied beside this file.

import * as mebo from 'mebo';
import * as decodeOnly from 'mebo/decode';
import { decodeSample, fromBase64 } from './decode-document.js';

export default {
  async fetch(request) {
    await mebo.init();
    decodeOnly.initSync();
    const sample = (await request.json()).map(({ name, base64 }) => ({ name, bytes: fromBase64(base64) }));
    return Response.json({
      info: mebo.wasmInfo(),
      decodeInfo: decodeOnly.wasmInfo(),
      mebo: decodeSample(mebo, sample).results,
      decode: decodeSample(decodeOnly, sample).results,
    });
  },
};
