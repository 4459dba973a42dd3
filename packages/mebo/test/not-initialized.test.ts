// Calls before init() in a fresh module context: a NOT_INITIALIZED MeboError,
// never an undefined-property error from the glue.

import { expect, it, vi } from 'vitest';

it('every entry point says NOT_INITIALIZED before init(), and works after', async () => {
  vi.resetModules();
  const mebo = await import('../src/entries/index.js');
  expect(mebo.isInitialized()).toBe(false);
  expect(mebo.wasmVariant()).toBeUndefined();
  const calls: [string, () => unknown][] = [
    ['NumericBlob.from', () => mebo.NumericBlob.from(new Uint8Array(64))],
    ['TextBlob.from', () => mebo.TextBlob.from(new Uint8Array(64))],
    ['new NumericEncoder', () => new mebo.NumericEncoder(0n)],
    ['new TextBlobEncoder', () => new mebo.TextBlobEncoder(0n)],
    ['encodeNumeric', () => mebo.encodeNumeric([])],
    ['encodeText', () => mebo.encodeText([])],
    ['metricId', () => mebo.metricId('cpu')],
    ['defaultDecodeLimits', () => mebo.defaultDecodeLimits()],
    ['wasmMemoryBytes', () => mebo.wasmMemoryBytes()],
  ];
  for (const [name, call] of calls) {
    let error: unknown;
    try {
      call();
    } catch (e) {
      error = e;
    }
    expect(error, name).toBeInstanceOf(mebo.MeboError);
    expect((error as InstanceType<typeof mebo.MeboError>).code, name).toBe('NOT_INITIALIZED');
    expect((error as Error).message, name).toMatch(/init\(\)/);
  }
  await mebo.init();
  expect(mebo.isInitialized()).toBe(true);
  expect(typeof mebo.metricId('cpu')).toBe('bigint');
});
