// A Cloudflare Worker as users write one: the SDK imported by package name and
// the wasm imported as a module (workerd hands it over as a compiled
// WebAssembly.Module). The bundler (esbuild here, as wrangler) keeps the
// .wasm import as a module of its own. POST a JSON array of { name, base64 }:
// the answer is decodeSample's JSON. POST a stream of blobs to /stream?names=a,b,...:
// the worker reads the request body with decodeStream as it arrives and
// answers decodeStreamSample's JSON.
//
// INIT selects how the module is instantiated: 'sync' calls initSync(module),
// 'async' awaits init({ wasm: module }). esbuild's `define` sets it per bundle.

import * as mebo from 'mebo';
import wasm from 'mebo/wasm/mebo_simd.wasm';
import { decodeSample, decodeStreamSample, fromBase64 } from './decode-document.js';

export default {
  async fetch(request) {
    if (INIT === 'sync') mebo.initSync(wasm, 'simd');
    else await mebo.init({ wasm, variant: 'simd' });
    const url = new URL(request.url);
    if (url.pathname === '/stream') {
      const names = url.searchParams.get('names').split(',');
      return Response.json(await decodeStreamSample(mebo, request, names));
    }
    const body = await request.json();
    const sample = body.map(({ name, base64 }) => ({ name, bytes: fromBase64(base64) }));
    const result = decodeSample(mebo, sample);
    return Response.json({ moduleIsCompiled: wasm instanceof WebAssembly.Module, init: INIT, ...result });
  },
};
