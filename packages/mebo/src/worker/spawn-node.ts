// Starting a pool worker in Node, Deno and Bun (worker_threads): the
// `node` (and `require`) export condition of `mebo/worker`, in place of
// ./spawn.ts. The script's name is an expression so that a bundler of server
// code does not copy it as an asset.

import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Endpoint } from './endpoint.js';

const THREAD = ['.', 'thread-node.js'].join('/');

export function spawnWorker(): Endpoint {
  const url = new URL(THREAD, import.meta.url);
  // A worker inherits the process's flags; --input-type (of `node -e`) refuses a file and would fail it.
  const worker = new Worker(url, { execArgv: process.execArgv.filter((flag) => !flag.startsWith('--input-type')) });
  return {
    script: url.href,
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => {
      worker.on('message', handler);
      // After the listener: attaching one refs the worker again. An idle pool does not keep the process alive.
      worker.unref();
    },
    onError: (handler) => {
      worker.on('error', handler);
      worker.on('exit', (code) => handler(new Error(`the worker exited (code ${code})`)));
      worker.unref();
    },
    busy: (busy) => (busy ? worker.ref() : worker.unref()),
    terminate: () => void worker.terminate(),
  };
}

export function hostCores(): number {
  // availableParallelism: Node 18.14 and later.
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : Math.max(1, os.cpus().length);
}
