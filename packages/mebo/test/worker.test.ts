// `mebo/worker` in Node (worker_threads), from the built package: every call
// of the pool gives what the same call gives on the main thread, errors
// arrive as MeboError with the core's code, and calls run concurrently.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mebo from '../dist/index.js';
import { DecodePool } from '../dist/worker/pool-node.js';
import { sampleBlobs } from './helpers/hosts.js';
import { bitsOf, manifest, readBlob } from './helpers/vectors.js';

let pool: DecodePool;

beforeAll(async () => {
  await mebo.init();
  pool = await DecodePool.create({ size: 2 });
});

afterAll(() => pool?.terminate());

/** Typed arrays and plain fields as comparable values (float bits, so NaN payloads and -0 count). */
function comparable(value: unknown): unknown {
  if (value instanceof Float64Array) return Array.from(bitsOf(value));
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<unknown>);
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of ['ids', 'offsets', 'timestamps', 'values', 'dictionary', 'codes', 'tagDictionary', 'tagCodes', 'tags', 'id', 'name', 'timestampsMs', 'sourcePoints']) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = comparable(v);
    }
    return out;
  }
  return value;
}

describe('DecodePool', () => {
  it('decodeAll: every blob of the host sample as on the main thread', async () => {
    const sample = sampleBlobs();
    const got = await Promise.all(sample.map(({ bytes }) => pool.decodeAll(bytes)));
    sample.forEach(({ name, bytes }, i) => {
      const blob = mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
      try {
        expect(comparable(got[i]), name).toEqual(comparable(blob.decodeAll()));
      } finally {
        blob.free();
      }
    });
  });

  it('range, decimate and set materialization as on the main thread', async () => {
    const c = manifest().find((m) => m.name === 'num-long-delta-none-gorilla-none-notags-le-v2')!;
    const bytes = readBlob(c);
    using blob = mebo.NumericBlob.from(bytes);
    const id = blob.metricIds[0];
    const ts = blob.timestamps(id);
    const [from, to] = [ts[1000], ts[5000]];
    expect(comparable(await pool.range(bytes, id, from, to))).toEqual(comparable(blob.range(id, from, to)));
    for (const method of ['minmax', 'lttb'] as const) {
      const options = { method, buckets: 500 };
      expect(comparable(await pool.decimate(bytes, id, options))).toEqual(comparable(blob.decimate(id, options)));
    }
    for (const prefix of ['num-set1', 'txt-tset1']) {
      const windows = [0, 1, 2, 3].map((w) => readBlob(manifest().find((m) => m.name.startsWith(`${prefix}-w${w}-`))!));
      using set = prefix.startsWith('num') ? mebo.NumericBlobSet.from(windows) : mebo.TextBlobSet.from(windows);
      expect(comparable(await pool.materialize(windows))).toEqual(comparable(set.materialize()));
      const first = set.metricIds[0];
      expect(comparable(await pool.materializeMetric(windows, first))).toEqual(comparable(set.materializeMetric(first)));
    }
  });

  it('errors come back as MeboError with the core code, and the pool goes on', async () => {
    const bytes = sampleBlobs()[0].bytes;
    await expect(pool.decodeAll(bytes.subarray(0, 40))).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    await expect(pool.decodeAll(bytes.subarray(0, 40))).rejects.toBeInstanceOf(mebo.MeboError);
    await expect(pool.decimate(bytes, 'no such metric', { method: 'minmax', buckets: 10 })).rejects.toMatchObject({ code: 'METRIC_NOT_FOUND' });
    await expect(pool.decodeAll('not bytes' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(comparable(await pool.decodeAll(bytes))).toBeDefined();
  });

  it('many calls at once, over both workers; transfer moves the input', async () => {
    const c = manifest().find((m) => m.name.startsWith('num-gauge1-delta-none-gorilla-zstd'))!;
    const bytes = readBlob(c);
    using blob = mebo.NumericBlob.from(bytes);
    const want = comparable(blob.decodeAll());
    const all = await Promise.all(Array.from({ length: 24 }, () => pool.decodeAll(bytes)));
    for (const got of all) expect(comparable(got)).toEqual(want);
    const copy = bytes.slice();
    expect(comparable(await pool.decodeAll(copy, { transfer: true }))).toEqual(want);
    expect(copy.byteLength).toBe(0); // detached: it went to the worker
  });

  it('a terminated pool refuses calls with FREED', async () => {
    const own = await DecodePool.create({ size: 1 });
    expect(own.size).toBe(1);
    own.terminate();
    await expect(own.decodeAll(sampleBlobs()[0].bytes)).rejects.toMatchObject({ code: 'FREED' });
    await expect(DecodePool.create({ size: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
