// A pool worker in a browser (a module Web Worker): the SDK serving the
// pool's jobs. No top-level await and no Node branch, so that a bundler may
// build it as any kind of worker (Vite's default is an IIFE). build-sdk.mjs
// bundles the SDK into it (dist/worker/thread.js imports nothing), so a
// bundler that copies it as a file (Rollup with an asset plugin) still has a
// working worker; it never locates a .wasm itself: the pool hands it the
// module the page compiled.

import * as mebo from '../entries/index.js';
import { serve } from './jobs.js';

const scope = globalThis as unknown as { postMessage(m: unknown, t?: ArrayBuffer[]): void; onmessage: unknown };
serve(mebo, {
  post: (message, transfer = []) => scope.postMessage(message, transfer),
  listen: (handler) => (scope.onmessage = (event: MessageEvent) => handler(event.data)),
});
