// The light core of `mebo/decode` (dist/decode.js with `init({ parts: 'core' })`,
// a page's default): blobs without zstd open with `from()` at once; a blob
// with a zstd payload (or a numeric blob's tags, always zstd) throws
// MISSING_PART until `load()` fetched the zstd part; every vector then decodes
// exactly. A zstd part that cannot be loaded is WASM_LOAD naming it while the
// blobs without zstd still decode.

import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bitsOf, manifest, PACKAGE_ROOT, readBlob, readInput, type Case } from './helpers/vectors.js';
import { expectSame, expectTags } from './helpers/expect.js';

import type { NumericBlob, TextBlob } from '../src/entries/decode.js';

type Decode = typeof import('../src/entries/decode.js');

const DECODE_URL = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'decode.js')).href;

/**
 * From the vector's manifest, not the SDK: whether any payload of the blob is
 * zstd. A numeric blob's tag payload is always zstd, and there only when its
 * flag bit 0 is set (the reference leaves it out when every tag is empty).
 */
function needsZstd(c: Case): boolean {
  const o = c.options;
  if (c.kind === 'text') return o.dataCompression === 'zstd';
  return o.timestampCompression === 'zstd' || o.valueCompression === 'zstd' || (o.tags && (readBlob(c)[0]! & 1) === 1);
}

/** A fresh instance of `mebo/decode` from `url`, initialized with `parts`. */
async function fresh(url: string, parts: 'core' | 'all'): Promise<Decode> {
  vi.resetModules();
  const sdk = (await import(/* @vite-ignore */ url)) as Decode;
  await sdk.init({ parts });
  return sdk;
}

/** Every metric of an opened blob against the vector's input, values by their bits. */
function expectVector(sdk: Decode, c: Case, blob: NumericBlob | TextBlob): void {
  const input = readInput(c);
  expect(blob.length, c.name).toBe(input.metrics.length);
  for (const m of input.metrics) {
    if (blob instanceof sdk.NumericBlob) {
      const metric = blob.metric(m.id);
      expectSame(metric.timestamps, m.timestamps, `${c.name} ${m.id} timestamps`);
      expectSame(bitsOf(metric.values), m.valueBits, `${c.name} ${m.id} value bits`);
      expectTags(metric.tags, m.tags, `${c.name} ${m.id} tags`);
    } else {
      const metric = (blob as TextBlob).metric(input.byName ? m.name! : m.id);
      expectSame(metric.timestamps, m.timestamps, `${c.name} ${m.id} timestamps`);
      expect(metric.values, `${c.name} ${m.id} values`).toEqual(m.texts);
    }
  }
}

function open(sdk: Decode, c: Case, bytes: Uint8Array) {
  return c.kind === 'numeric' ? sdk.NumericBlob.from(bytes) : sdk.TextBlob.from(bytes);
}

async function load(sdk: Decode, c: Case, bytes: Uint8Array) {
  return c.kind === 'numeric' ? sdk.NumericBlob.load(bytes) : sdk.TextBlob.load(bytes);
}

describe('the light core', () => {
  const cases = manifest();
  let core: Decode;

  beforeAll(async () => {
    core = await fresh(DECODE_URL, 'core');
  });

  it('is the simd build, its self-check passed on the blobs it has the parts for', () => {
    expect(core.wasmInfo()).toEqual({ variant: 'simd', simdCheck: 'passed' });
  });

  it('a failed self-check loads the decode-only scalar build, which opens every blob with from()', async () => {
    vi.resetModules();
    const sdk = (await import(/* @vite-ignore */ DECODE_URL)) as Decode;
    await sdk.init({ parts: 'core', simdCheck: 'fail' });
    expect(sdk.wasmInfo()).toMatchObject({ variant: 'scalar', simdCheck: 'failed' });
    const zstd = cases.find(needsZstd)!;
    using blob = open(sdk, zstd, readBlob(zstd));
    expectVector(sdk, zstd, blob);
  });

  it('has vectors of both sorts', () => {
    expect(cases.filter(needsZstd).length).toBeGreaterThan(100);
    expect(cases.filter((c) => !needsZstd(c)).length).toBeGreaterThan(100);
  });

  it('opens every blob without zstd with from(), exactly, and refuses the others with MISSING_PART', () => {
    for (const c of cases) {
      const bytes = readBlob(c);
      if (needsZstd(c)) {
        let thrown: unknown;
        try {
          open(core, c, bytes).free();
        } catch (error) {
          thrown = error;
        }
        expect(thrown, c.name).toBeInstanceOf(core.MeboError);
        expect((thrown as InstanceType<Decode['MeboError']>).code, c.name).toBe('MISSING_PART');
        expect((thrown as Error).message, c.name).toMatch(/zstd part.*\.load\(bytes\)/);
      } else {
        using blob = open(core, c, bytes);
        expectVector(core, c, blob);
      }
    }
  });

  it('load() fetches the zstd part once (concurrent loads share it), then every vector decodes exactly, with from() too', async () => {
    const zstd = cases.filter(needsZstd);
    const first = await Promise.all(zstd.slice(0, 8).map((c) => load(core, c, readBlob(c))));
    for (const blob of first) blob.free();
    for (const c of cases) {
      {
        using blob = await load(core, c, readBlob(c));
        expectVector(core, c, blob);
      }
      using again = open(core, c, readBlob(c));
      expectVector(core, c, again);
    }
  });

  it('decodes as init({ parts: "all" }) does: the decode-only build, every column identical', async () => {
    const all = await fresh(DECODE_URL, 'all');
    const light = await fresh(DECODE_URL, 'core');
    for (const c of cases.filter((c) => c.kind === 'numeric')) {
      using a = all.NumericBlob.from(readBlob(c));
      using b = await light.NumericBlob.load(readBlob(c));
      const [x, y] = [a.decodeAll(), b.decodeAll()];
      expectSame(y.ids, x.ids, `${c.name} ids`);
      expectSame(y.offsets, x.offsets, `${c.name} offsets`);
      expectSame(y.timestamps, x.timestamps, `${c.name} timestamps`);
      expectSame(bitsOf(y.values), bitsOf(x.values), `${c.name} value bits`);
    }
  });

  it('blob sets: from() refuses a set with a zstd blob until load()', async () => {
    const light = await fresh(DECODE_URL, 'core');
    const zstd = cases.find((c) => c.kind === 'numeric' && needsZstd(c))!;
    expect(() => light.NumericBlobSet.from([readBlob(zstd)])).toThrow(expect.objectContaining({ code: 'MISSING_PART' }));
    using set = await light.NumericBlobSet.load([readBlob(zstd)]);
    expect(set.length).toBeGreaterThan(0);
  });
});

describe('a zstd part that cannot be loaded', () => {
  let dir: string;

  beforeAll(() => {
    // The package's layout without wasm/mebo_zstd.wasm.
    dir = mkdtempSync(join(tmpdir(), 'mebo-light-'));
    cpSync(join(PACKAGE_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    mkdirSync(join(dir, 'wasm'));
    cpSync(join(PACKAGE_ROOT, 'wasm', 'mebo_core_simd.wasm'), join(dir, 'wasm', 'mebo_core_simd.wasm'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is WASM_LOAD naming the part, and blobs without zstd still decode', async () => {
    const sdk = await fresh(pathToFileURL(join(dir, 'dist', 'decode.js')).href, 'core');
    const cases = manifest();
    const zstd = cases.find(needsZstd)!;
    const plain = cases.find((c) => c.kind === 'numeric' && !needsZstd(c))!;
    for (let attempt = 0; attempt < 2; attempt++) {
      const failed = await load(sdk, zstd, readBlob(zstd)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(sdk.MeboError);
      expect((failed as InstanceType<Decode['MeboError']>).code).toBe('WASM_LOAD');
      expect((failed as Error).message).toMatch(/zstd part/);
    }
    using blob = await load(sdk, plain, readBlob(plain));
    expectVector(sdk, plain, blob);
  });
});
