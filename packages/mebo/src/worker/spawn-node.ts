// Starting a pool worker in Node, Deno and Bun (worker_threads): the
// `node` (and `require`) export condition of `mebo/worker`, in place of
// ./spawn.ts. The script's name is an expression so that a bundler of server
// code does not copy it as an asset.

import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Endpoint } from './endpoint.js';

const THREAD = ['.', 'thread-node.js'].join('/');

/**
 * A worker inherits the process's flags, V8's (--expose-gc, --max-old-space-size)
 * included, but refuses them when they are listed in `execArgv`
 * (ERR_WORKER_INVALID_EXEC_ARGV): the list is given only to drop
 * --input-type (of `node -e`), which refuses a file; without it, the flags
 * it cannot take are dropped too.
 */
function startWorker(url: URL): Worker {
  const argv = process.execArgv;
  if (!argv.some((flag) => flag.startsWith('--input-type'))) return new Worker(url);
  try {
    return new Worker(url, { execArgv: argv.filter((flag) => !flag.startsWith('--input-type')) });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    return new Worker(url, { execArgv: [] });
  }
}

export function spawnWorker(): Endpoint {
  const url = new URL(THREAD, import.meta.url);
  const worker = startWorker(url);
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
