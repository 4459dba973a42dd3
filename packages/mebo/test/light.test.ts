// The light core of `mebo/decode` (dist/decode.js with `init({ parts: 'core' })`,
// a page's default): numeric blobs without zstd open with `from()` at once
// and are read metric by metric from the core alone; a text blob, or one with
// a zstd payload (or a numeric blob's tags, always zstd), throws MISSING_PART
// until `load()` fetched the core's rest and the zstd part; every vector then
// decodes exactly. A part that cannot be loaded is WASM_LOAD naming it while
// the blobs that do not need it still decode; without its rest the core reads
// every numeric blob without zstd, whole or spoiled, as the full build does.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bitsOf, manifest, PACKAGE_ROOT, readBlob, readInput, REPO_ROOT, type Case } from './helpers/vectors.js';
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

/** The parts of the light core a vector needs, from the manifest. */
function partsOf(c: Case): string[] {
  return [...(needsZstd(c) || c.kind === 'text' ? ['rest'] : []), ...(needsZstd(c) ? ['zstd'] : [])];
}

/** What `fn` threw. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** `load()` of the vector is WASM_LOAD with a message matching `message`, and again when tried again. */
async function expectLoadFailsTwice(sdk: Decode, c: Case, message: RegExp): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const failed = await load(sdk, c, readBlob(c)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed, c.name).toBeInstanceOf(sdk.MeboError);
    expect((failed as InstanceType<Decode['MeboError']>).code).toBe('WASM_LOAD');
    expect((failed as Error).message).toMatch(message);
  }
}

/** The package's layout (dist/ and wasm/) in a folder of its own, with only `wasm` of its modules. */
function layoutWith(wasm: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'mebo-light-'));
  cpSync(join(PACKAGE_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  mkdirSync(join(dir, 'wasm'));
  for (const file of wasm) cpSync(join(PACKAGE_ROOT, 'wasm', file), join(dir, 'wasm', file));
  return dir;
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

  it('has vectors of every sort', () => {
    expect(cases.filter(needsZstd).length).toBeGreaterThan(100);
    expect(cases.filter((c) => partsOf(c).length === 0).length).toBeGreaterThan(100);
    expect(cases.filter((c) => c.kind === 'text' && !needsZstd(c)).length).toBeGreaterThan(10);
  });

  it('opens every numeric blob without zstd with from(), exactly, and refuses the others with MISSING_PART naming their parts', () => {
    for (const c of cases) {
      const bytes = readBlob(c);
      const parts = partsOf(c);
      if (parts.length > 0) {
        const thrown = thrownBy(() => open(core, c, bytes).free());
        expect(thrown, c.name).toBeInstanceOf(core.MeboError);
        expect((thrown as InstanceType<Decode['MeboError']>).code, c.name).toBe('MISSING_PART');
        expect((thrown as Error).message, c.name).toContain(`needs mebo's ${parts.join(' and ')} part${parts.length > 1 ? 's' : ''}, which`);
        expect((thrown as Error).message, c.name).toMatch(/\.load\(bytes\)/);
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
    await light.init({ parts: 'all' });
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
    dir = layoutWith(['mebo_core_simd.wasm', 'mebo_core_rest.wasm']);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is WASM_LOAD naming the part, and blobs without zstd still decode', async () => {
    const sdk = await fresh(pathToFileURL(join(dir, 'dist', 'decode.js')).href, 'core');
    const cases = manifest();
    const zstd = cases.find(needsZstd)!;
    const plain = cases.find((c) => c.kind === 'numeric' && !needsZstd(c))!;
    await expectLoadFailsTwice(sdk, zstd, /zstd part/);
    using blob = await load(sdk, plain, readBlob(plain));
    expectVector(sdk, plain, blob);
  });
});

/** The plain numeric blobs (no zstd, no tags) of a manifest of testdata. */
function plainBlobs(dir: string): Uint8Array[] {
  const { cases } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { cases: Case[] };
  return cases.filter((c) => c.kind === 'numeric' && partsOf(c).length === 0).map((c) => new Uint8Array(readFileSync(join(dir, c.file))));
}

/** The blob cut and with bits flipped, at places of their own (not the build's profile's). */
function* spoiledCopies(bytes: Uint8Array, count: number): Generator<Uint8Array> {
  for (let k = 0; k < count; k++) {
    yield bytes.subarray(0, Math.floor((bytes.length * (k * 7 + 3)) / (count * 7 + 5)));
    const copy = bytes.slice();
    copy[(k * 40503 + 17) % copy.length] ^= 1 << (k * 3) % 8;
    yield copy;
  }
}

const hex = (values: Float64Array) => Array.from(bitsOf(values), (b) => b.toString(16));

/** decodeAll's columns as plain data, values by their bits. */
function columnsOf(c: { ids: BigUint64Array; offsets: Uint32Array; timestamps: BigInt64Array; values: Float64Array }) {
  return { ids: Array.from(c.ids, String), offsets: Array.from(c.offsets), timestamps: Array.from(c.timestamps, String), values: hex(c.values) };
}

/**
 * A numeric blob read through every method the light core holds, as plain
 * data; or the code it was refused with.
 */
function readPerMetric(sdk: Decode, bytes: Uint8Array): unknown {
  try {
    using blob = sdk.NumericBlob.from(bytes);
    const metrics = [...(blob.names ?? []), ...blob.metricIds].map((key) => {
      const m = blob.metric(key);
      const points = blob.pointCount(key);
      return {
        id: String(m.id),
        name: m.name,
        timestamps: Array.from(m.timestamps, String),
        values: hex(m.values),
        tags: m.tags,
        again: [blob.indexOf(key), blob.has(key), hex(blob.values(key)).length, blob.timestamps(key).length, blob.tags(key)?.length],
        ms: Array.from(blob.timestampsMs(key)),
        last: points > 0 ? [hex(Float64Array.of(blob.valueAt(key, points - 1))), String(blob.timestampAt(key, points - 1)), blob.tagAt(key, 0)] : [],
      };
    });
    return { options: blob.options, startTime: String(blob.startTime), totalPoints: blob.totalPoints, kind: sdk.blobKind(bytes), metrics, all: columnsOf(blob.decodeAll()) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? 'THROWN', message: String((error as Error).message ?? error) };
  }
}

describe('the light core without its rest', () => {
  let dir: string;

  beforeAll(() => {
    dir = layoutWith(['mebo_core_simd.wasm']);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a text blob is WASM_LOAD naming the rest (each time), and numeric blobs without zstd still load', async () => {
    const sdk = await fresh(pathToFileURL(join(dir, 'dist', 'decode.js')).href, 'core');
    const cases = manifest();
    const text = cases.find((c) => c.kind === 'text' && !needsZstd(c))!;
    const plain = cases.filter((c) => c.kind === 'numeric' && partsOf(c).length === 0).slice(0, 3);
    for (const c of plain) {
      using blob = await load(sdk, c, readBlob(c));
      expectVector(sdk, c, blob);
    }
    await expectLoadFailsTwice(sdk, text, /^loading mebo's rest part: /);
    using after = await load(sdk, plain[0]!, readBlob(plain[0]!));
    expectVector(sdk, plain[0]!, after);
  });

  it('reads every numeric blob without zstd, whole or spoiled, metric by metric as the full build does', async () => {
    const light = await fresh(pathToFileURL(join(dir, 'dist', 'decode.js')).href, 'core');
    const all = await fresh(DECODE_URL, 'all');
    const read: [Uint8Array, number][] = [
      ...plainBlobs(join(REPO_ROOT, 'testdata', 'vectors')).map((b) => [b, 8] as [Uint8Array, number]),
      ...plainBlobs(join(REPO_ROOT, 'testdata', 'bench')).map((b) => [b, 1] as [Uint8Array, number]),
    ];
    expect(read.length).toBeGreaterThan(300);
    let refused = 0;
    for (const [b, [bytes, spoiled]] of read.entries()) {
      for (const [k, candidate] of [bytes, ...spoiledCopies(bytes, spoiled)].entries()) {
        const want = readPerMetric(all, candidate) as { error?: string };
        const got = readPerMetric(light, candidate) as { error?: string; message?: string };
        if (want.error !== undefined) refused++;
        // A spoiled blob that now reads as a text blob or one with zstd (or
        // tags) is refused before the core opens it, as any such blob is.
        if (got.error === 'MISSING_PART') expect(got.message, `blob ${b}, copy ${k}: ${JSON.stringify(want).slice(0, 300)}`).toMatch(/^this blob needs mebo's rest (and zstd parts, which are|part, which is) not loaded/);
        else expect(got, `blob ${b}, copy ${k}`).toEqual(want);
      }
    }
    expect(refused).toBeGreaterThan(1000);
    // Nothing reached the rest: no call went through a trap's path.
    expect(light.memoryInfo().trapRecoveries).toBe(0);
  });
});

describe("the light core's rest", () => {
  const plain = manifest().filter((c) => c.kind === 'numeric' && partsOf(c).length === 0);

  /** What a blob's calls over the whole blob and a chart's give: the rest's. */
  function wholeReads(blob: NumericBlob, key: bigint) {
    const ts = blob.timestamps(key);
    const all = blob.decodeAll();
    const view = blob.columnsView();
    return {
      all: [Array.from(all.ids, String), Array.from(all.offsets), Array.from(all.timestamps, String), hex(all.values)],
      view: [Array.from(view.timestamps, String), hex(view.values)],
      into: hex(blob.decodeAllInto({ timestamps: new BigInt64Array(0), values: new Float64Array(0) }).values),
      range: hex(blob.range(key, ts[1]!, ts[ts.length - 2]!).values),
      minmax: blob.decimate(key, { buckets: 8, method: 'minmax' }),
      lttb: blob.decimate(key, { buckets: 8, method: 'lttb' }),
      sections: blob.sections,
    };
  }

  it("is fetched once the first blob is open: its calls refuse that blob until then, by name, and the blob still reads; the next load waits for it", async () => {
    const all = await fresh(DECODE_URL, 'all');
    const light = await fresh(DECODE_URL, 'core');
    const [a, b] = [plain[0]!, plain[1]!];
    using first = await light.NumericBlob.load(readBlob(a));
    const calls = [() => first.decodeAllInto({ timestamps: new BigInt64Array(0), values: new Float64Array(0) }), () => first.columnsView(), () => first.range(1n, 0n, 1n)];
    for (const call of [...calls, () => first.decimate(1n, { buckets: 4, method: 'lttb' }), () => first.sections]) {
      const thrown = thrownBy(call) as InstanceType<Decode['MeboError']>;
      expect(thrown).toBeInstanceOf(light.MeboError);
      expect(thrown.code).toBe('MISSING_PART');
      expect(thrown.message).toMatch(/^NumericBlob\.\w+ needs mebo's rest part, which is not loaded yet: `await init\(\{ parts: 'all' \}\)`/);
    }
    expectVector(light, a, first);
    // decodeAll() is the metrics read one by one until then: the same columns.
    {
      using reference = all.NumericBlob.from(readBlob(a));
      expect(columnsOf(first.decodeAll())).toEqual(columnsOf(reference.decodeAll()));
    }
    using second = await light.NumericBlob.load(readBlob(b));
    for (const [c, blob] of [[a, first], [b, second]] as const) {
      using reference = all.NumericBlob.from(readBlob(c));
      const key = reference.metricIds[0]!;
      expect(wholeReads(blob, key), c.name).toEqual(wholeReads(reference, key));
    }
    expect(light.memoryInfo().trapRecoveries).toBe(0);
  });

  it('fills the slots of each new instance: after reset(), the rest is instantiated again from the module it compiled', async () => {
    const all = await fresh(DECODE_URL, 'all');
    const light = await fresh(DECODE_URL, 'core');
    await light.init({ parts: 'all' });
    for (const round of [0, 1]) {
      for (const c of plain.slice(0, 40)) {
        using blob = light.NumericBlob.from(readBlob(c));
        using reference = all.NumericBlob.from(readBlob(c));
        const key = reference.metricIds[0]!;
        expect(wholeReads(blob, key), `${c.name}, round ${round}`).toEqual(wholeReads(reference, key));
      }
      expect(await light.reset()).toBe(true);
    }
    expect(light.memoryInfo().resets).toBe(2);
  });
});
