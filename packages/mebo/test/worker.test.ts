// `mebo/worker` in Node (worker_threads), from the built package: every call
// of the pool gives what the same call gives on the main thread, errors
// arrive as MeboError with the core's code, and calls run concurrently.

import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as mebo from '../dist/index.js';
import type { DecodePool as Pool } from '../dist/worker/pool.js';
// The Node build (the `node` condition); its declarations are pool.d.ts's.
const { DecodePool } = (await import('../dist/worker/pool-node.js' as string)) as typeof import('../dist/worker/pool.js');
import { sampleBlobs } from './helpers/hosts.js';
import { bitsOf, manifest, PACKAGE_ROOT, readBlob } from './helpers/vectors.js';

let pool: Pool;

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

describe('DecodePool: results, limits and failures', () => {
  it('results say which kind of blob they came from', async () => {
    for (const { name, bytes } of sampleBlobs()) {
      const want = mebo.blobKind(bytes) === 'text' ? 'text' : 'numeric';
      expect((await pool.decodeAll(bytes)).kind, name).toBe(want);
      const id = (want === 'text' ? mebo.TextBlob : mebo.NumericBlob).from(bytes);
      const first = id.metricIds[0];
      id.free();
      expect((await pool.range(bytes, first, 0n, 2n ** 62n)).kind, name).toBe(want);
    }
  });

  it('decode limits reach the workers: a blob over them fails as on the main thread', async () => {
    const c = manifest().find((m) => m.name === 'num-long-delta-none-gorilla-none-notags-le-v2')!;
    const bytes = readBlob(c);
    const limits = { maxPoints: 10 };
    let want: unknown;
    try {
      mebo.NumericBlob.from(bytes, limits).free();
    } catch (error) {
      want = (error as mebo.MeboError).code;
    }
    expect(want).toBeTypeOf('string');
    const limited = await DecodePool.create({ size: 1, limits });
    try {
      await expect(limited.decodeAll(bytes)).rejects.toMatchObject({ code: want });
      // The same blob decodes in a pool without those limits.
      expect((await pool.decodeAll(bytes)).kind).toBe('numeric');
    } finally {
      limited.terminate();
    }
  });

  it('a worker that resets its module after every job (resetAboveBytes: 0) decodes as before', async () => {
    const resetting = await DecodePool.create({ size: 1, resetAboveBytes: 0 });
    try {
      for (let round = 0; round < 2; round++) {
        for (const { name, bytes } of sampleBlobs()) {
          const blob = mebo.blobKind(bytes) === 'text' ? mebo.TextBlob.from(bytes) : mebo.NumericBlob.from(bytes);
          try {
            expect(comparable(await resetting.decodeAll(bytes)), name).toEqual(comparable(blob.decodeAll()));
          } finally {
            blob.free();
          }
        }
      }
    } finally {
      resetting.terminate();
    }
  });

  it('an aborted call rejects with ABORTED, its cause the signal reason, and the pool goes on', async () => {
    const bytes = sampleBlobs()[0].bytes;
    const controller = new AbortController();
    const call = pool.decodeAll(bytes, { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(call).rejects.toMatchObject({ code: 'ABORTED', cause: { message: 'user left' } });
    await expect(pool.decodeAll(bytes, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await pool.decodeAll(bytes)).kind).toBeDefined();
    await expect(pool.decodeAll(bytes, { timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('DecodePool: broken workers', () => {
  /** The built package copied to a temporary folder with thread-node.js replaced (or removed), and its pool-node.js imported. */
  async function poolWith(thread: string | undefined): Promise<{ DecodePool: typeof DecodePool; script: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'mebo-pool-'));
    cpSync(join(PACKAGE_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(PACKAGE_ROOT, 'wasm'), join(dir, 'wasm'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const script = join(dir, 'dist/worker/thread-node.js');
    if (thread === undefined) rmSync(script);
    else writeFileSync(script, thread);
    return { ...((await import(pathToFileURL(join(dir, 'dist/worker/pool-node.js')).href)) as { DecodePool: typeof DecodePool }), script: pathToFileURL(script).href };
  }
  /** A worker that sets up, then does `onJob` with the first job. */
  const fakeThread = (onJob: string) =>
    `import { parentPort } from 'node:worker_threads';
     parentPort.on('message', (m) => {
       if (m.setup) parentPort.postMessage({ id: m.id, ok: 'simd', kind: 'numeric', dictionary: false });
       else { ${onJob} }
     });`;

  it('a worker script that does not load: WORKER_FAILED naming the script, the cause kept', async () => {
    const { DecodePool: Broken, script } = await poolWith(undefined);
    const error = await Broken.create({ size: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'WORKER_FAILED' });
    expect((error as Error).message).toContain(script);
    expect(String(((error as Error).cause as Error)?.message)).toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
  });

  it('a worker that dies in a call: the call fails with WORKER_FAILED, the worker is replaced', async () => {
    const { DecodePool: Dying } = await poolWith(fakeThread('process.exit(3);'));
    const dying = await Dying.create({ size: 1 });
    try {
      await expect(dying.decodeAll(sampleBlobs()[0].bytes)).rejects.toMatchObject({ code: 'WORKER_FAILED', message: expect.stringContaining('code 3') });
      // Its replacement takes the next call (and dies the same way: this script always does).
      await expect(dying.decodeAll(sampleBlobs()[0].bytes)).rejects.toMatchObject({ code: 'WORKER_FAILED' });
      expect(dying.size).toBe(1);
    } finally {
      dying.terminate();
    }
  });

  it('a worker that hangs: the call fails with TIMEOUT and the worker is replaced', async () => {
    const { DecodePool: Hanging } = await poolWith(fakeThread('for (;;) {}'));
    const hanging = await Hanging.create({ size: 1, timeoutMs: 200 });
    try {
      await expect(hanging.decodeAll(sampleBlobs()[0].bytes)).rejects.toMatchObject({ code: 'TIMEOUT' });
      await expect(hanging.decodeAll(sampleBlobs()[0].bytes, { timeoutMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(hanging.size).toBe(1);
    } finally {
      hanging.terminate();
    }
  });

  it('a Node process with an idle pool exits without terminate()', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mebo-pool-exit-'));
    const blob = join(dir, 'blob.mebo');
    writeFileSync(blob, sampleBlobs()[0].bytes);
    writeFileSync(
      join(dir, 'main.mjs'),
      `import { readFileSync } from 'node:fs';
       const { DecodePool } = await import(${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'dist/worker/pool-node.js')).href)});
       const pool = await DecodePool.create({ size: 2 });
       const columns = await pool.decodeAll(new Uint8Array(readFileSync(${JSON.stringify(blob)})));
       console.log(columns.kind, columns.ids.length);`,
    );
    // A pool that kept the process alive would run into the timeout.
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'main.mjs')], { timeout: 60_000 });
    expect(stdout.trim()).toMatch(/^(numeric|text) \d+$/);
  });

  it('a Node process started with V8 flags (a worker refuses them listed) runs a pool, from a file and from -e', async () => {
    const blob = join(mkdtempSync(join(tmpdir(), 'mebo-pool-flags-')), 'blob.mebo');
    writeFileSync(blob, sampleBlobs()[0].bytes);
    const script = `import { readFileSync } from 'node:fs';
       const { DecodePool } = await import(${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, 'dist/worker/pool-node.js')).href)});
       const pool = await DecodePool.create({ size: 1 });
       const columns = await pool.decodeAll(new Uint8Array(readFileSync(${JSON.stringify(blob)})));
       console.log(columns.kind, columns.ids.length, typeof gc);
       pool.terminate();`;
    const file = join(dirname(blob), 'main.mjs');
    writeFileSync(file, script);
    const flags = ['--expose-gc', '--max-old-space-size=512'];
    for (const args of [[...flags, file], [...flags, '--input-type=module', '-e', script]]) {
      const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
      expect(stdout.trim(), args.join(' ')).toMatch(/^(numeric|text) \d+ function$/);
    }
  });
});
