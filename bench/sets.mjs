#!/usr/bin/env node
// Blob-set materialize against the blob count: a benchmark, not a test. It
// prints its figures. Two set shapes, each with ids distinct per blob (every
// metric in one window only: the case a per-metric scan of every blob makes
// quadratic) and with ids shared by every blob:
//
// - tiny:  20,000 blobs of 1 metric × 10 points;
// - wide:   2,000 blobs of 100 metrics × 10 points.
//
// For each it times `NumericBlobSet.from` (open every blob) and
// `materialize()` through the SDK (median of --runs after --warmup untimed
// runs: V8 tiers the wasm up over a new process's first runs, which take 4-8
// times as long; the first run's materialize is printed as `cold`), and, when
// Go is on the PATH, the reference's Materialize on the same bytes, the same
// way (reference/sets, GOMAXPROCS=1), with the ratio of the two
// materialize times.
//
//   node bench/sets.mjs [--runs 5] [--warmup 3] [--no-reference]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as mebo from 'mebo';
import { REFERENCE_MODULE } from 'mebo-tooling/reference';

const { values: flags } = parseArgs({ options: { runs: { type: 'string', default: '5' }, warmup: { type: 'string', default: '3' }, 'no-reference': { type: 'boolean', default: false } } });
const runs = Number(flags.runs);
const warmup = Number(flags.warmup);
const REFERENCE_SETS = join(REFERENCE_MODULE, 'sets');

/** `blobs` windows of `metrics` metrics × `points` points; ids distinct per blob or shared. */
function makeSet(blobs, metrics, points, distinct) {
  const out = [];
  const start = 1_700_000_000_000_000n;
  for (let b = 0; b < blobs; b++) {
    const t0 = start + BigInt(b) * 60_000_000n;
    const enc = new mebo.NumericEncoder(t0);
    for (let m = 0; m < metrics; m++) {
      enc.startMetric(distinct ? `b${b}.m${m}` : `m${m}`, points);
      const ts = new BigInt64Array(points);
      const vs = new Float64Array(points);
      for (let p = 0; p < points; p++) {
        ts[p] = t0 + BigInt(p) * 1_000_000n;
        vs[p] = (b * 31 + m * 7 + p) % 1000 / 10;
      }
      enc.addPoints(ts, vs);
      enc.endMetric();
    }
    out.push(enc.finish());
    enc.free();
  }
  return out;
}

function median(xs) {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1];
}

function timeSdk(blobs) {
  const open = [];
  const materialize = [];
  let points = 0;
  let coldMs = 0;
  for (let r = 0; r < warmup + runs; r++) {
    const t0 = performance.now();
    const set = mebo.NumericBlobSet.from(blobs);
    const t1 = performance.now();
    const columns = set.materialize();
    const t2 = performance.now();
    points = columns.values.length;
    set.free();
    if (r === 0) coldMs = t2 - t1;
    if (r < warmup) continue;
    open.push(t1 - t0);
    materialize.push(t2 - t1);
  }
  return { points, openMs: median(open), materializeMs: median(materialize), coldMs };
}

function timeReference(blobs, dir) {
  if (flags['no-reference']) return undefined;
  const file = join(dir, 'blobs.bin');
  const parts = [];
  for (const b of blobs) {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.byteLength);
    parts.push(len, b);
  }
  writeFileSync(file, Buffer.concat(parts));
  try {
    const out = execFileSync('go', ['run', '.', '-file', file, '-runs', String(runs), '-warmup', String(warmup)], {
      cwd: REFERENCE_SETS,
      env: { ...process.env, GOMAXPROCS: '1' },
      encoding: 'utf8',
    });
    return JSON.parse(out.trim().split('\n').pop());
  } catch (error) {
    console.error(`reference not run: ${error.message.split('\n')[0]}`);
    return undefined;
  }
}

await mebo.init();
const dir = mkdtempSync(join(tmpdir(), 'mebo-sets-'));
const rows = [];
try {
  for (const [name, blobs, metrics] of [['tiny', 20_000, 1], ['wide', 2_000, 100]]) {
    for (const distinct of [true, false]) {
      const set = makeSet(blobs, metrics, 10, distinct);
      const sdk = timeSdk(set);
      const ref = timeReference(set, dir);
      const row = {
        shape: `${name} ${blobs}×${metrics} ${distinct ? 'distinct' : 'shared'} ids`,
        points: sdk.points,
        sdkOpenMs: +sdk.openMs.toFixed(1),
        sdkMaterializeMs: +sdk.materializeMs.toFixed(1),
        refOpenMs: ref?.openMs,
        refMaterializeMs: ref?.materializeMs,
        materializeRatio: ref ? +(sdk.materializeMs / ref.materializeMs).toFixed(2) : undefined,
        sdkColdMs: +sdk.coldMs.toFixed(1),
        refColdMs: ref?.coldMaterializeMs,
        totalRatio: ref ? +((sdk.openMs + sdk.materializeMs) / (ref.openMs + ref.materializeMs)).toFixed(2) : undefined,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
