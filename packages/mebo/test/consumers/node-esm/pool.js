// A Node program that decodes with a `mebo/worker` pool and never calls
// terminate(): it must exit by itself once the pool is idle. Decodes the
// blobs named on the command line (`name=path`) and prints one JSON line.
// pool-document.js is copied beside this file.

import { readFileSync } from 'node:fs';
import { DecodePool } from 'mebo/worker';
import { poolSample } from './pool-document.js';

const sample = process.argv.slice(2).map((arg) => {
  const eq = arg.indexOf('=');
  return { name: arg.slice(0, eq), bytes: new Uint8Array(readFileSync(arg.slice(eq + 1))) };
});

const pool = await DecodePool.create({ size: 2 });
const results = await poolSample(pool, sample);
console.log(JSON.stringify({ resolved: import.meta.resolve('mebo/worker'), size: pool.size, results }));
