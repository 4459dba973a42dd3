// Freed objects give their wasm memory back: decoding in a loop keeps the
// linear memory (which only ever grows) at its size after warm-up.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_MEMORY_BYTES,
  encodeNumeric,
  init,
  MeboError,
  memoryInfo,
  NumericBlob,
  NumericEncoder,
  NumericBlobSet,
  reset,
  setMaxMemoryBytes,
  TextBlob,
  wasmMemoryBytes,
} from '../src/entries/index.js';
import { manifest, PACKAGE_ROOT, readBlob, readInput } from './helpers/vectors.js';

beforeAll(() => init());

const cases = manifest();
const numericCase = cases.find((c) => c.name === 'num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2')!;
const textCase = cases.find((c) => c.kind === 'text' && c.options.dataCompression === 'zstd' && c.options.tags)!;

function loop(times: number, body: () => void): number {
  for (let i = 0; i < 200; i++) body(); // warm-up: let the allocator reach its working set
  const before = wasmMemoryBytes();
  for (let i = 0; i < times; i++) body();
  return wasmMemoryBytes() - before;
}

it('decoding 10,000 numeric blobs, freeing each, does not grow the memory', () => {
  const bytes = readBlob(numericCase);
  const id = readInput(numericCase).metrics[0]!.id;
  const growth = loop(10_000, () => {
    const blob = NumericBlob.from(bytes);
    blob.decodeAll();
    blob.metric(id);
    blob.free();
  });
  expect(growth).toBe(0);
});

it('decoding 10,000 text blobs (with using) does not grow the memory', () => {
  const bytes = readBlob(textCase);
  const growth = loop(10_000, () => {
    using blob = TextBlob.from(bytes);
    blob.decodeAll();
  });
  expect(growth).toBe(0);
});

it('encoding 2,000 blobs does not grow the memory', () => {
  const input = readInput(numericCase);
  const metrics = input.metrics.map((m) => ({ name: m.name!, timestamps: m.timestamps, values: m.values, tags: m.tags! }));
  const growth = loop(2_000, () => {
    encodeNumeric(metrics, { config: 'delta-zstd-gorilla-zstd', tags: true, layout: 'v2' });
  });
  expect(growth).toBe(0);
});

it('failed decodes free what they allocated', () => {
  const bytes = readBlob(numericCase).slice(0, 2000);
  const growth = loop(10_000, () => {
    try {
      NumericBlob.from(bytes).free();
    } catch {
      // expected: truncated
    }
  });
  expect(growth).toBe(0);
});

describe('the module memory budget', () => {
  // 2 Mi points of one metric: 32 MiB decoded, a few KiB stored.
  const points = 1 << 21;
  const timestamps = BigInt64Array.from({ length: points }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 1000n);
  const values = Float64Array.from({ length: points }, (_, i) => (i % 97) / 4);
  let bytes: Uint8Array;
  beforeAll(() => {
    bytes = encodeNumeric([{ name: 'big', timestamps, values }], { startTime: timestamps[0]!, layout: 'v2' });
  });

  function oom(fn: () => unknown): MeboError {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(MeboError);
      expect((error as MeboError).code).toBe('OUT_OF_MEMORY');
      return error as MeboError;
    }
    throw new Error('expected OUT_OF_MEMORY');
  }

  it('has a documented default, and refuses a bad budget with INVALID_ARGUMENT', () => {
    expect(memoryInfo().maxMemoryBytes).toBe(DEFAULT_MAX_MEMORY_BYTES);
    for (const bad of [-1, 1.5, 2 ** 20, 2 ** 33, Number.NaN, '1' as unknown as number]) {
      expect(() => setMaxMemoryBytes(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    expect(memoryInfo().maxMemoryBytes).toBe(DEFAULT_MAX_MEMORY_BYTES);
  });

  it('refuses a decode past it with OUT_OF_MEMORY; the blob stays usable and freeable, the heap comes back', () => {
    const heapBefore = memoryInfo().heapBytes;
    setMaxMemoryBytes(heapBefore + (24 << 20));
    try {
      const blob = NumericBlob.from(bytes);
      // Both 16 MiB columns at once pass the budget...
      oom(() => blob.decodeAll());
      // ...one of them does not, and the handle answers exactly afterwards.
      const m = blob.metric('big');
      expect(m.timestamps[points - 1]).toBe(timestamps[points - 1]);
      const set = NumericBlobSet.from([bytes, bytes]);
      oom(() => set.materialize());
      set.free();
      blob.free();
      expect(blob.freed).toBe(true);
    } finally {
      setMaxMemoryBytes(DEFAULT_MAX_MEMORY_BYTES);
    }
    // Everything the refused calls allocated was given back.
    expect(memoryInfo().heapBytes).toBeLessThan(heapBefore + (1 << 20));
    const again = NumericBlob.from(bytes);
    const columns = again.decodeAll();
    // Compared in a loop: toEqual over 2 Mi elements takes a minute.
    const valueBits = new BigUint64Array(values.buffer);
    const decodedBits = new BigUint64Array(columns.values.buffer, columns.values.byteOffset, columns.values.length);
    let mismatches = columns.timestamps.length === points && decodedBits.length === points ? 0 : 1;
    for (let i = 0; i < points; i++) if (columns.timestamps[i] !== timestamps[i] || decodedBits[i] !== valueBits[i]) mismatches++;
    expect(mismatches).toBe(0);
    again.free();
  });

  it('refuses input bytes past it with OUT_OF_MEMORY before any is copied in, for a blob and a set alike', () => {
    const heapBefore = memoryInfo().heapBytes;
    // The smallest budget allowed; a blob of 24 MiB: staging its bytes in the module's memory passes it.
    expect(heapBefore).toBeLessThan(8 << 20);
    setMaxMemoryBytes(16 << 20);
    const large = new Uint8Array(24 << 20);
    large.set(bytes);
    try {
      oom(() => NumericBlob.from(large));
      oom(() => NumericBlobSet.from([large.subarray(0, 12 << 20), large.subarray(12 << 20)]));
      // Within it, the blob itself opens (its 32 MiB of columns are not decoded here).
      const small = NumericBlob.from(bytes);
      expect(small.totalPoints).toBe(points);
      expect(small.metricIds.length).toBe(1);
      small.free();
    } finally {
      setMaxMemoryBytes(DEFAULT_MAX_MEMORY_BYTES);
    }
    expect(memoryInfo().heapBytes).toBeLessThan(heapBefore + (1 << 20));
  });

  it('reset() gives the memory back and keeps the budget', async () => {
    setMaxMemoryBytes(64 << 20);
    try {
      expect(memoryInfo().liveHandles).toBe(0);
      expect(await reset()).toBe(true);
      expect(memoryInfo().maxMemoryBytes).toBe(64 << 20);
      expect(wasmMemoryBytes()).toBeLessThan(8 << 20);
    } finally {
      setMaxMemoryBytes(DEFAULT_MAX_MEMORY_BYTES);
    }
  });
});

describe('memory the engine will not grow', () => {
  // The budget admits what WebAssembly cannot hold: V8's --wasm-max-mem-pages
  // caps this child's linear memory at 64 MiB (the same refusal as growing
  // past 4 GiB, at a size a CI machine affords: pages reserved, never touched),
  // while the budget is 4 GiB. A decode needing two 48 MiB columns then meets
  // a memory.grow that fails: OUT_OF_MEMORY, and the module goes on.
  it('is OUT_OF_MEMORY, the blob stays freeable and the module decodes exactly afterwards', () => {
    const dist = pathToFileURL(join(PACKAGE_ROOT, 'dist/index.js')).href;
    // The blob is made here: its encoder holds 96 MiB of points, past the child's memory.
    const points = 6 * 2 ** 20;
    const enc = new NumericEncoder(0n, { layout: 'v2', timestampEncoding: 'delta', valueEncoding: 'alp', timestampCompression: 'zstd', valueCompression: 'zstd' });
    enc.startMetric('big', points);
    for (let at = 0; at < points; at += 2 ** 20) {
      enc.addPoints(BigInt64Array.from({ length: 2 ** 20 }, (_, i) => BigInt(at + i) * 1000n), new Float64Array(2 ** 20).fill(1.5));
    }
    const file = join(mkdtempSync(join(tmpdir(), 'mebo-grow-')), 'big.mebo');
    writeFileSync(file, enc.endMetric().finish());
    enc.free();
    const script = `
      import * as mebo from ${JSON.stringify(dist)};
      import { readFileSync } from 'node:fs';
      await mebo.init({ maxMemoryBytes: 2 ** 32 });
      const bytes = readFileSync(${JSON.stringify(file)});
      const out = { blobBytes: bytes.length };
      const blob = mebo.NumericBlob.from(bytes);
      try {
        blob.decodeAll();
        out.decodeAll = 'ok';
      } catch (error) {
        out.decodeAll = { name: error.name, code: error.code, message: error.message };
      }
      out.pointCount = blob.pointCount('big');
      blob.free();
      const info = mebo.memoryInfo();
      out.memoryBytes = info.memoryBytes;
      out.maxMemoryBytes = info.maxMemoryBytes;
      out.liveHandles = info.liveHandles;
      // A small blob decodes exactly afterwards.
      const ts = BigInt64Array.from({ length: 1000 }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 15_000_000n);
      const vs = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i) * 100);
      const small = mebo.NumericBlob.from(mebo.encodeNumeric([{ name: 'small', timestamps: ts, values: vs }]));
      const m = small.metric('small');
      out.smallExact = m.timestamps.every((t, i) => t === ts[i]) && m.values.every((v, i) => Object.is(v, vs[i])) && m.values.length === 1000;
      small.free();
      console.log(JSON.stringify(out));
    `;
    const started = performance.now();
    const stdout = execFileSync(process.execPath, ['--wasm-max-mem-pages=1024', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.decodeAll).toMatchObject({ name: 'MeboError', code: 'OUT_OF_MEMORY', message: expect.stringMatching(/out of memory: \d+ bytes for .* were refused/) });
    // The budget was not what refused: 4 GiB (less a byte: wasm32's usize), and the memory never reached 64 MiB.
    expect(out).toMatchObject({ pointCount: 6 * 2 ** 20, maxMemoryBytes: 2 ** 32 - 1, liveHandles: 0, smallExact: true });
    expect(out.memoryBytes).toBeLessThanOrEqual(64 << 20);
    expect(out.blobBytes).toBeLessThan(1 << 20);
    console.log(`memory that cannot grow: ${JSON.stringify(out.decodeAll.message)}, ${Math.round(performance.now() - started)} ms in a child process`);
  });
});
