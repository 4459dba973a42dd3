// Starting a pool worker in a browser (the `default` export condition of
// `mebo/worker`). The `new Worker(new URL('./thread.js', import.meta.url),
// { type: 'module' })` expression is written out literally: Vite, webpack and
// Parcel find workers by that shape and build the script into the app.
// Node, Deno and Bun get ./spawn-node.ts in this module's place
// (build-sdk.mjs), so no Node-only URL reaches a browser bundle.

import type { Endpoint } from './endpoint.js';

/** The script's URL as the package lays it out, for error messages only (a bundler may have renamed the file; hidden from bundlers so that they do not copy it). */
const scriptName = (): string => {
  try {
    return new URL(['.', 'thread.js'].join('/'), import.meta.url).href;
  } catch {
    return 'mebo/dist/worker/thread.js';
  }
};

/** Why a script failed to load, as far as a page can tell: its HTTP status, else that it loaded and failed to run. */
async function diagnose(script: string): Promise<string> {
  try {
    const response = await fetch(script);
    if (!response.ok) return `HTTP ${response.status} for ${script}`;
    return `${script} was fetched but failed to start (a module it imports failed to load, or it threw: see the console)`;
  } catch (error) {
    return `the worker script did not load (as packaged: ${script}, ${error instanceof Error ? error.message : String(error)}; a bundler may have renamed it)`;
  }
}

export function spawnWorker(): Endpoint {
  const worker = new Worker(new URL('./thread.js', import.meta.url), { type: 'module' });
  const script = scriptName();
  return {
    script,
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.addEventListener('message', (event: MessageEvent) => handler(event.data)),
    onError: (handler) =>
      worker.addEventListener('error', (event) => {
        event.preventDefault?.();
        const message = (event as ErrorEvent).message;
        // A runtime error carries its message; a script that did not load, only the event.
        if (message) handler(new Error(message, { cause: (event as ErrorEvent).error }));
        else void diagnose(script).then((why) => handler(new Error(why)));
      }),
    busy: () => {},
    terminate: () => worker.terminate(),
  };
}

export function hostCores(): number {
  return typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : 2;
}
