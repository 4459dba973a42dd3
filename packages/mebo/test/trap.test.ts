// After a WebAssembly trap the instance is not called again: the trapping call
// rejects with INTERNAL (the RuntimeError as its cause), the next call
// replaces the instance with a fresh one, and objects made in the old one
// throw STALE_HANDLE (their `free()` releases nothing and does not throw).
//
// No public input traps any more, so the test provokes one: it sets the
// module's raw budget through the glue (the same module instance the SDK
// uses; the SDK's own setter refuses budgets under 16 MiB) to 0 while a blob
// holds more than the small-allocation headroom (8 MiB), so the bindings'
// next infallible allocation is refused and Rust aborts: `unreachable`.

import { beforeAll, expect, it } from 'vitest';
import { setMemoryBudget } from '../wasm/mebo_wasm.js';
import { DEFAULT_MAX_MEMORY_BYTES, MeboError, NumericBlob, NumericEncoder, TextBlob, encodeNumeric, init, memoryInfo, reset } from '../src/entries/index.js';
import { bitsOf, manifest, readBlob, readInput } from './helpers/vectors.js';

beforeAll(() => init());

/** A raw-encoded blob of 700,000 points: 11 MB, held in the module while open. */
function largeBlob(): Uint8Array {
  const n = 700_000;
  const timestamps = new BigInt64Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    timestamps[i] = 1_700_000_000_000_000n + BigInt(i) * 1_000_000n;
    values[i] = i * 0.5;
  }
  return encodeNumeric([{ name: 'big', timestamps, values }], { config: 'raw-none-raw-none', layout: 'v2' });
}

/** The call's MeboError. */
function thrownBy(fn: () => unknown): MeboError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MeboError);
    return e as MeboError;
  }
  throw new Error('the call did not throw');
}

/** Open `large` and trap the module on the blob's next call; returns the trap's error and the blob. */
function trapWith(large: Uint8Array): { error: MeboError; blob: NumericBlob } {
  const blob = NumericBlob.from(large);
  expect(memoryInfo().heapBytes).toBeGreaterThan(9 * 2 ** 20);
  setMemoryBudget(0);
  return { error: thrownBy(() => blob.metricIds), blob };
}

/** A numeric and a text vector decode exactly. */
function expectVectorsDecode(): void {
  for (const name of ['num-gauge1-tagged-raw-zstd-gorilla-s2-tags-le-v2', 'txt-status1-tagged-raw-none-tags-le']) {
    const c = manifest().find((v) => v.name === name)!;
    const input = readInput(c);
    if (c.kind === 'text') {
      using blob = TextBlob.from(readBlob(c));
      for (const m of input.metrics) expect(blob.metric(m.id).values).toEqual(m.texts);
    } else {
      using blob = NumericBlob.from(readBlob(c));
      for (const m of input.metrics) {
        const got = blob.metric(m.id);
        expect(got.timestamps).toEqual(m.timestamps);
        expect(bitsOf(got.values)).toEqual(m.valueBits);
      }
    }
  }
}

it('a trap rejects with INTERNAL, the next call gets a fresh instance, old objects throw STALE_HANDLE', () => {
  const large = largeBlob();
  const encoder = new NumericEncoder(1_700_000_000_000_000n);
  const survivor = NumericBlob.from(readBlob(manifest().find((c) => c.kind === 'numeric')!));
  const before = memoryInfo().trapRecoveries;

  const { error, blob } = trapWith(large);
  expect(error.code).toBe('INTERNAL');
  expect(error.cause).toBeInstanceOf(WebAssembly.RuntimeError);
  expect(error.message).toMatch(/trapped.*next call replaces the instance/);

  // The next call, of any object, replaces the instance first.
  const stale = thrownBy(() => survivor.totalPoints);
  expect(stale.code).toBe('STALE_HANDLE');
  expect(stale.message).toMatch(/NumericBlob .*replaced after a trap/);
  const info = memoryInfo();
  expect(info.trapRecoveries).toBe(before + 1);
  // Nothing of the new instance is alive; its budget is the SDK's again, and its heap small.
  expect(info).toMatchObject({ liveHandles: 0, maxMemoryBytes: DEFAULT_MAX_MEMORY_BYTES });
  expect(info.heapBytes).toBeLessThan(2 ** 20);
  expect(thrownBy(() => blob.totalPoints).code).toBe('STALE_HANDLE');
  expect(thrownBy(() => encoder.startMetric('m', 1)).code).toBe('STALE_HANDLE');
  // Freeing a stale object neither throws nor touches the new instance; then it is FREED.
  for (const o of [blob, survivor, encoder]) {
    o.free();
    expect(o.freed).toBe(true);
  }
  expect(thrownBy(() => survivor.totalPoints).code).toBe('FREED');
  expect(thrownBy(() => encoder.finish()).code).toBe('FREED');
  expect(memoryInfo().liveHandles).toBe(0);

  expectVectorsDecode();
  // The same large blob opens and decodes exactly in the new instance.
  using again = NumericBlob.from(large);
  const values = again.metric('big').values;
  expect(values.length).toBe(700_000);
  expect([values[0], values[1], values[699_999]]).toEqual([0, 0.5, 349_999.5]);
});

it('reset() after a trap gives a fresh instance too, and a second trap is recovered from as the first', async () => {
  const large = largeBlob();
  const before = memoryInfo().trapRecoveries;
  const { error, blob } = trapWith(large);
  expect(error.code).toBe('INTERNAL');
  // reset() first replaces the trapped instance (the stale blob does not count as alive), then resets.
  expect(await reset()).toBe(true);
  expect(memoryInfo()).toMatchObject({ liveHandles: 0, trapRecoveries: before + 1 });
  expect(thrownBy(() => blob.totalPoints).code).toBe('STALE_HANDLE');
  expectVectorsDecode();

  const second = trapWith(large);
  expect(second.error.code).toBe('INTERNAL');
  expectVectorsDecode();
  expect(memoryInfo().trapRecoveries).toBe(before + 2);
  expect(thrownBy(() => second.blob.totalPoints).code).toBe('STALE_HANDLE');
});
