// Memory that comes back: after a large encode the module's linear memory
// stays at its peak (WebAssembly memory only grows) until reset() replaces the
// instance; reset() refuses while any SDK object is alive, and everything works
// as before afterwards. Also the peak memory of one decode and one encode of a
// large blob, the figures the README gives.

import { beforeAll, expect, it } from 'vitest';
import { MeboError, NumericBlob, encodeNumeric, init, memoryInfo, reset, wasmMemoryBytes } from '../src/entries/index.js';
import { bitsOf, manifest, readBlob, readInput } from './helpers/vectors.js';

beforeAll(() => init());

const MB = 1 << 20;
const vector = manifest().find((c) => c.name === 'num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2')!;

/** The vector decodes exactly: values by bits, timestamps, tags. */
function expectVectorDecodes(): void {
  const input = readInput(vector);
  using blob = NumericBlob.from(readBlob(vector));
  for (const m of input.metrics) {
    const got = blob.metric(m.id);
    expect(got.timestamps).toEqual(m.timestamps);
    expect(bitsOf(got.values)).toEqual(bitsOf(m.values));
    expect(got.tags).toEqual(m.tags);
  }
}

/** Same bytes (a fast compare: toEqual on a million elements takes seconds). */
function expectSameBytes(a: ArrayBufferView, b: ArrayBufferView): void {
  const bytes = (v: ArrayBufferView) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  expect(a.byteLength).toBe(b.byteLength);
  expect(bytes(a).equals(bytes(b))).toBe(true);
}

/** `metrics` series of `points` points each: a random walk, 1-second steps. */
function series(metrics: number, points: number) {
  return Array.from({ length: metrics }, (_, m) => {
    const timestamps = new BigInt64Array(points);
    const values = new Float64Array(points);
    let v = 100 + m;
    for (let i = 0; i < points; i++) {
      timestamps[i] = 1_700_000_000_000_000n + BigInt(i) * 1_000_000n;
      v += Math.sin(i * 0.37 + m) * 0.5;
      values[i] = Math.round(v * 100) / 100;
    }
    return { name: `metric.${m}`, timestamps, values };
  });
}

it('reset() gives the memory of a large encode back, and decoding works as before', async () => {
  const input = series(4, 1_000_000);
  const bytes = encodeNumeric(input, { config: 'delta-zstd-gorilla-zstd', layout: 'v2' });
  const grown = wasmMemoryBytes();
  expect(grown).toBeGreaterThan(60 * MB);
  expect(memoryInfo()).toMatchObject({ memoryBytes: grown, liveHandles: 0 });

  expect(await reset()).toBe(true);
  expect(wasmMemoryBytes()).toBeLessThan(2 * MB);
  const info = memoryInfo();
  expect(info.peakMemoryBytes).toBeGreaterThanOrEqual(grown);
  expect(info.resets).toBeGreaterThanOrEqual(1);
  expectVectorDecodes();

  // The blob made before the reset reads back exactly in the new instance.
  using blob = NumericBlob.from(bytes);
  const metric = blob.metric('metric.3');
  expectSameBytes(metric.values, input[3]!.values);
  expectSameBytes(metric.timestamps, input[3]!.timestamps);
});

it('reset() refuses while an object is alive, and that object keeps working', async () => {
  const blob = NumericBlob.from(readBlob(vector));
  const before = blob.decodeAll();
  const memory = wasmMemoryBytes();
  expect(memoryInfo().liveHandles).toBe(1);
  const error = await reset().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MeboError);
  expect((error as MeboError).code).toBe('LIVE_HANDLES');
  expect((error as MeboError).message).toMatch(/1 still alive/);
  expect(wasmMemoryBytes()).toBe(memory);
  expect(blob.decodeAll()).toEqual(before);
  blob.free();
  blob.free(); // idempotent: counted once
  expect(memoryInfo().liveHandles).toBe(0);
  expect(await reset()).toBe(true);
  expectVectorDecodes();
});

it('reset({ aboveBytes }) leaves a small module alone; calls during a reset say so; init() waits for it', async () => {
  expect(await reset({ aboveBytes: 64 * MB })).toBe(false);
  await expect(reset({ aboveBytes: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  const resets = memoryInfo().resets;
  const pending = reset();
  expect(() => NumericBlob.from(readBlob(vector))).toThrow(/resetting/);
  await init(); // resolves once the new instance is in place
  expectVectorDecodes();
  expect(await pending).toBe(true);
  expect(memoryInfo().resets).toBe(resets + 1);
});

it('peak memory of a decode and an encode of a large blob (the README figures)', async () => {
  const input = series(8, 250_000); // 2,000,000 points: 32 MB of columns
  const columnBytes = 2_000_000 * 16;
  await reset();
  const base = wasmMemoryBytes();
  const bytes = encodeNumeric(input, { config: 'delta-none-gorilla-none', layout: 'v2' });
  const encodePeak = wasmMemoryBytes() - base;

  await reset();
  const before = wasmMemoryBytes();
  using blob = NumericBlob.from(bytes);
  const columns = blob.decodeAll();
  const decodePeak = wasmMemoryBytes() - before;
  expect(columns.values.length).toBe(2_000_000);
  expectSameBytes(blob.values('metric.5'), input[5]!.values);

  console.log(
    `peak linear memory growth: encode ${(encodePeak / MB).toFixed(1)} MB for ${(columnBytes / MB).toFixed(1)} MB of input and a ${(bytes.length / MB).toFixed(1)} MB blob; ` +
      `decode ${(decodePeak / MB).toFixed(1)} MB for that blob and its columns`,
  );
  // Decode holds the blob and the columns, and no second copy of either.
  expect(decodePeak).toBeLessThanOrEqual(bytes.length + columnBytes + 4 * MB);
  // Encode holds the input columns, the encoded columns and the blob.
  expect(encodePeak).toBeLessThanOrEqual(2 * columnBytes + 2 * bytes.length + 8 * MB);
});
