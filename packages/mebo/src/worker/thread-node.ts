// A pool worker in Node, Deno and Bun (worker_threads, the `node` export
// condition): the SDK serving the pool's jobs.

import { parentPort } from 'node:worker_threads';
import * as mebo from '../entries/index.js';
import { serve } from './jobs.js';

if (!parentPort) throw new Error('mebo/worker: this module runs inside a worker the pool starts');
const port = parentPort;
serve(mebo, {
  post: (message, transfer = []) => port.postMessage(message, transfer),
  listen: (handler) => port.on('message', handler),
});
