// `pool.decodeStream` (mebo/worker, from the built package): the results in
// stream order, each what `pool.decodeAll` gives for the same blob; errors
// after the blobs before them; early exit and abort.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mebo from '../dist/index.js';
import type { DecodePool as Pool, PoolColumns } from '../dist/worker/pool.js';
const { DecodePool } = (await import('../dist/worker/pool-node.js' as string)) as typeof import('../dist/worker/pool.js');
import { init as initSource } from '../src/entries/index.js';
import { framed, generatedBlobs, randomChunks, seeded, streamOf } from './helpers/stream.js';
import { bitsOf, manifest, readBlob } from './helpers/vectors.js';

let pool: Pool;
let blobs: Uint8Array[];

beforeAll(async () => {
  await mebo.init();
  await initSource(); // the generated blobs are encoded by the sources' SDK (helpers/stream.ts)
  pool = await DecodePool.create({ size: 2 });
  blobs = [...manifest().map(readBlob).filter((_, i) => i % 3 === 0), ...generatedBlobs(30, 11)];
});
afterAll(() => pool?.terminate());

/** Columns as comparable values: every typed array item by item (floats by their bits), strings as they are. */
function comparable(c: PoolColumns): unknown {
  const out: Record<string, unknown> = { kind: c.kind, ids: Array.from(c.ids), offsets: Array.from(c.offsets), timestamps: Array.from(c.timestamps) };
  if (c.kind === 'numeric') out.values = Array.from(bitsOf(c.values));
  else out.values = c.values;
  return out;
}

async function collect(source: AsyncIterable<PoolColumns>): Promise<{ got: unknown[]; error?: { code: string; message: string } }> {
  const got: unknown[] = [];
  try {
    for await (const columns of source) got.push(comparable(columns));
  } catch (error) {
    return { got, error: error as { code: string; message: string } };
  }
  return { got };
}

describe('pool.decodeStream', () => {
  it('yields every blob in stream order, each equal to pool.decodeAll of the same bytes', async () => {
    const expected = await Promise.all(blobs.map(async (b) => comparable(await pool.decodeAll(b))));
    const { stream } = streamOf(randomChunks(framed(blobs), seeded(3), 1 << 18));
    const { got, error } = await collect(pool.decodeStream(stream));
    expect(error).toBeUndefined();
    expect(got.length).toBe(blobs.length);
    got.forEach((g, i) => expect(g, `blob ${i}`).toEqual(expected[i]));
    // Also from a Response, through the mebo entry's decodeStream for the same blobs.
    const viaMain: unknown[] = [];
    for await (const blob of mebo.decodeStream(new Response(framed(blobs.slice(0, 20))))) {
      viaMain.push(comparable(Object.assign(blob.decodeAll(), { kind: blob instanceof mebo.TextBlob ? 'text' : 'numeric' }) as PoolColumns));
      blob.free();
    }
    expect(viaMain).toEqual(expected.slice(0, 20));
  });

  it('ends in the stream error or the bad blob after every result before it, and the pool goes on', async () => {
    const some = blobs.slice(0, 6);
    const expected = await Promise.all(some.map(async (b) => comparable(await pool.decodeAll(b))));
    const bytes = framed(some);
    const truncated = await collect(pool.decodeStream(streamOf([bytes.subarray(0, bytes.length - 3)]).stream));
    expect(truncated.got).toEqual(expected.slice(0, 5));
    expect(truncated.error?.code).toBe('TRUNCATED');
    expect(truncated.error?.message).toMatch(/frame 5/);

    const parts = some.slice();
    parts[4] = new Uint8Array(64); // no blob's magic
    const bad = await collect(pool.decodeStream(streamOf([framed(parts)]).stream));
    expect(bad.got).toEqual(expected.slice(0, 4));
    expect(bad.error?.code).toBe('BAD_MAGIC');
    expect(bad.error?.message).toMatch(/^frame 4 /);

    expect((await collect(pool.decodeStream(streamOf([new Uint8Array(100)]).stream))).error?.code).toBe('BAD_MAGIC');
    const capped = await collect(pool.decodeStream(streamOf([new Uint8Array([0x4d, 0x42, 0x53, 0x31, 0xff, 0xff, 0xff, 0xff])]).stream));
    expect(capped.error?.code).toBe('SIZE_CAP');
    expect(comparable(await pool.decodeAll(some[0]!))).toEqual(expected[0]);
  });

  it('a loop left early cancels the source; an abort ends it with ABORTED', async () => {
    const { stream, cancelled } = streamOf(randomChunks(framed(blobs), seeded(4), 4096));
    let seen = 0;
    for await (const _ of pool.decodeStream(stream)) if (++seen === 3) break;
    await cancelled;

    // A source that stalls after two blobs: the abort ends the waiting read.
    const bytes = framed(blobs.slice(0, 4));
    const controller = new AbortController();
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytes.subarray(0, 4 + 8 + blobs[0]!.length + blobs[1]!.length)) });
    const results: unknown[] = [];
    let error: unknown;
    try {
      for await (const columns of pool.decodeStream(stalled, { signal: controller.signal })) {
        results.push(columns);
        if (results.length === 2) setTimeout(() => controller.abort(new Error('stop')), 10);
      }
    } catch (e) {
      error = e;
    }
    expect(results.length).toBe(2);
    expect(error).toMatchObject({ code: 'ABORTED' });
  });
});
