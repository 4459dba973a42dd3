// A pool worker (`mebo/worker`): a Web Worker in browsers and Deno, a
// worker_threads Worker in Node. It loads the SDK once, then runs the jobs the
// pool sends and answers each with its result, typed arrays transferred.

import * as mebo from '../index.js';
import { run, type Request, type Response } from './jobs.js';

interface Port {
  post(message: Response, transfer?: ArrayBuffer[]): void;
  listen(handler: (message: Request) => void): void;
}

/** node:worker_threads, named by an expression so browser bundlers leave it alone. */
const NODE_WORKER_THREADS: string = ['node:worker', 'threads'].join('_');

async function port(): Promise<Port> {
  const scope = globalThis as unknown as { WorkerGlobalScope?: unknown; postMessage(m: unknown, t?: ArrayBuffer[]): void; onmessage: unknown };
  if (scope.WorkerGlobalScope !== undefined) {
    return {
      post: (message, transfer = []) => scope.postMessage(message, transfer),
      listen: (handler) => (scope.onmessage = (event: MessageEvent<Request>) => handler(event.data)),
    };
  }
  const { parentPort } = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_WORKER_THREADS)) as typeof import('node:worker_threads');
  if (!parentPort) throw new Error('mebo/worker: this module runs inside a worker the pool starts');
  return {
    post: (message, transfer = []) => parentPort.postMessage(message, transfer),
    listen: (handler) => parentPort.on('message', handler),
  };
}

const errorOf = (error: unknown) =>
  error instanceof mebo.MeboError
    ? { code: error.code, message: error.message }
    : { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };

const channel = await port();
channel.listen(async (message) => {
  try {
    if ('init' in message) {
      await mebo.init(message.init);
      channel.post({ id: message.id, ok: mebo.wasmVariant() ?? null });
      return;
    }
    const { ok, text, transfer } = run(mebo, message.job);
    channel.post({ id: message.id, ok, text }, transfer);
  } catch (error) {
    channel.post({ id: message.id, error: errorOf(error) });
  }
});
