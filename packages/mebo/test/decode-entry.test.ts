// `mebo/decode` as it ships (dist/decode.js on the decode-only builds): every
// conformance vector decodes exactly with both builds, it holds nothing of
// the encoders, and it behaves as `mebo` does (init, the simd self-check,
// errors, reset). dist/decode.min.js, the same minified for a page with no
// bundler, too.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import * as full from '../src/entries/index.js';
import { bitsOf, manifest, PACKAGE_ROOT, readBlob, readInput, VECTORS } from './helpers/vectors.js';
import { expectSame, expectTags } from './helpers/expect.js';
import { browserBundle } from './helpers/bundle.js';

type Decode = typeof import('../src/entries/decode.js');

const DIST = join(PACKAGE_ROOT, 'dist');
const DECODE_URL = pathToFileURL(join(DIST, 'decode.js')).href;
const DECODE_MIN_URL = pathToFileURL(join(DIST, 'decode.min.js')).href;
const WASM = join(PACKAGE_ROOT, 'wasm');
/** What `mebo` has and `mebo/decode` must not. */
// The writers: the encoders, and frameBlobs (the writing half of a stream of blobs; decodeStream is in both).
const ENCODERS = ['NumericEncoder', 'encodeNumeric', 'TextBlobEncoder', 'encodeText', 'frameBlobs'];

/** A fresh instance of the built `mebo/decode`, initialized with one build. */
async function loadDecode(variant: 'simd' | 'scalar', url = DECODE_URL): Promise<Decode> {
  vi.resetModules();
  const sdk = (await import(/* @vite-ignore */ url)) as Decode;
  await sdk.init({ variant });
  expect(sdk.wasmVariant()).toBe(variant);
  return sdk;
}

/** Every vector through one instance: per metric and through decodeAll, values by their bits. */
function decodesEveryVector(sdk: Decode, label: string): void {
  const cases = manifest();
  for (const c of cases) {
    const input = readInput(c);
    const what = `${label} ${c.name}`;
    if (c.kind === 'numeric') {
      using blob = sdk.NumericBlob.from(readBlob(c));
      expect(blob.startTime, what).toBe(input.startTime);
      expect(blob.length, what).toBe(input.metrics.length);
      const columns = blob.decodeAll();
      for (const m of input.metrics) {
        const metric = blob.metric(m.id);
        expectSame(metric.timestamps, m.timestamps, `${what} ${m.id} timestamps`);
        expectSame(bitsOf(metric.values), m.valueBits, `${what} ${m.id} value bits`);
        expectTags(metric.tags, m.tags, `${what} ${m.id} tags`);
        const i = blob.indexOf(m.id);
        const [start, end] = [columns.offsets[i]!, columns.offsets[i + 1]!];
        expectSame(columns.timestamps.subarray(start, end), m.timestamps, `${what} ${m.id} decodeAll timestamps`);
        expectSame(bitsOf(columns.values.subarray(start, end)), m.valueBits, `${what} ${m.id} decodeAll value bits`);
      }
    } else {
      using blob = sdk.TextBlob.from(readBlob(c));
      expect(blob.length, what).toBe(input.metrics.length);
      const tagged = blob.options.tags;
      for (const m of input.metrics) {
        const metric = blob.metric(input.byName ? m.name! : m.id);
        expectSame(metric.timestamps, m.timestamps, `${what} ${m.id} timestamps`);
        expect(metric.values, `${what} ${m.id} values`).toEqual(m.texts);
        if (tagged) expect(metric.tags, `${what} ${m.id} tags`).toEqual(m.tags ?? m.texts.map(() => ''));
        else expect(metric.tags, `${what} ${m.id} tags`).toBeUndefined();
      }
    }
  }
  expect(cases.length).toBe(678);
}

describe('conformance vectors through mebo/decode', () => {
  let simd: Decode;
  let scalar: Decode;

  beforeAll(async () => {
    simd = await loadDecode('simd');
    scalar = await loadDecode('scalar');
    expect(simd.NumericBlob).not.toBe(scalar.NumericBlob);
  });

  it('decode exactly with the simd build', () => decodesEveryVector(simd, 'simd'));
  it('decode exactly with the scalar build', () => decodesEveryVector(scalar, 'scalar'));
});

describe('mebo/decode has no encoders', () => {
  it('exports what mebo exports, but the encoders', async () => {
    const decode = (await import(/* @vite-ignore */ DECODE_URL)) as Record<string, unknown>;
    for (const name of ENCODERS) {
      expect(full, name).toHaveProperty(name);
      expect(decode, name).not.toHaveProperty(name);
    }
    expect(Object.keys(decode).sort()).toEqual(Object.keys(full).filter((name) => !ENCODERS.includes(name)).sort());
  });

  it('its glue and builds carry no encoder, and its bundle names only its own builds', () => {
    const glue = readFileSync(join(WASM, 'mebo_decode.js'), 'utf8');
    expect(glue).not.toMatch(/EncoderHandle|encoderhandle/);
    expect(readFileSync(join(WASM, 'mebo_wasm.js'), 'utf8')).toMatch(/class NumericEncoderHandle/);
    for (const variant of ['simd', 'scalar']) {
      const exports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(WASM, `mebo_decode_${variant}.wasm`)))).map((e) => e.name);
      expect(exports, variant).toContain('numericblobhandle_decodeAll');
      expect(exports.filter((name) => /encoderhandle/i.test(name)), variant).toEqual([]);
    }
    const bundle = readFileSync(join(DIST, 'decode.js'), 'utf8');
    expect(bundle).not.toMatch(/EncoderHandle|encoderhandle|encodeNumeric|encodeText/);
    expect(bundle).toContain('new URL("../wasm/mebo_decode_simd.wasm", import.meta.url)');
    expect(bundle).toContain('new URL("../wasm/mebo_decode_scalar.wasm", import.meta.url)');
    expect(bundle).not.toMatch(/mebo_(simd|scalar)\.wasm|mebo_wasm_bg/);
  });

  it('bundles for the browser with esbuild, with its own builds', async () => {
    const text = await browserBundle(`import { init, NumericBlob } from 'mebo/decode'; await init(); console.log(NumericBlob);`);
    expect(text).toContain('mebo_decode_simd.wasm');
    expect(text).not.toMatch(/mebo_simd\.wasm|EncoderHandle/);
  });
});

describe('dist/decode.min.js: mebo/decode minified, for a page with no bundler', () => {
  it('exports what dist/decode.js exports, and names the same builds', async () => {
    const [readable, minified] = await Promise.all([import(/* @vite-ignore */ DECODE_URL), import(/* @vite-ignore */ DECODE_MIN_URL)]);
    expect(Object.keys(minified).sort()).toEqual(Object.keys(readable).sort());
    const bundle = readFileSync(join(DIST, 'decode.min.js'), 'utf8');
    const urls = (text: string) => [...text.matchAll(/new URL\("([^"]+\.wasm)",\s*import\.meta\.url\)/g)].map((m) => m[1]).sort();
    expect(urls(bundle)).toEqual(urls(readFileSync(join(DIST, 'decode.js'), 'utf8')));
    expect(urls(bundle)).toContain('../wasm/mebo_core_simd.wasm');
    expect(bundle.length).toBeLessThan(readFileSync(join(DIST, 'decode.js'), 'utf8').length * 0.6);
  });

  it('decodes every vector exactly', async () => decodesEveryVector(await loadDecode('simd', DECODE_MIN_URL), 'minified'));

  it('names its classes in messages, though a minifier renamed them', async () => {
    const sdk = await loadDecode('simd', DECODE_MIN_URL);
    const c = manifest().find((v) => v.name === 'num-gauge1-delta-none-gorilla-none-notags-le-v1')!;
    const blob = sdk.NumericBlob.from(readBlob(c));
    expect(sdk.NumericBlob.name).not.toBe('NumericBlob');
    expect(String(blob)).toBe('[object NumericBlob]');
    blob.free();
    expect(() => blob.length).toThrow('this NumericBlob was freed');
    expect(() => new (sdk.TextBlobSet as unknown as new (x: unknown) => unknown)(42)).toThrow('TextBlobSet is not constructed directly: use TextBlobSet.from(...)');
  });
});

/** Run an ES module snippet in a fresh Node process with `mebo/decode` (dist) imported as `mebo`; returns its stdout. */
function runNode(body: string): string {
  const blob = join(VECTORS, 'blobs/num-gauge1-delta-none-gorilla-none-notags-le-v1.mebo');
  const script = `import * as mebo from ${JSON.stringify(DECODE_URL)};
import { readFileSync } from 'node:fs';
const blobBytes = readFileSync(${JSON.stringify(blob)});
const decodeOne = () => { const b = mebo.NumericBlob.from(blobBytes); try { return b.length + ':' + b.totalPoints; } finally { b.free(); } };
${body}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

describe('mebo/decode behaves as mebo', () => {
  it('is NOT_INITIALIZED before init(); init() picks the simd build after its self-check', () => {
    const out = runNode(`
      try { decodeOne(); } catch (e) { console.log(e.name, e.code); }
      await mebo.init();
      console.log(JSON.stringify(mebo.wasmInfo()), decodeOne());`);
    expect(out.split('\n')).toEqual(['MeboError NOT_INITIALIZED', '{"variant":"simd","simdCheck":"passed"} 12:720']);
  });

  it('a failed self-check loads its scalar build', () => {
    const out = runNode(`await mebo.init({ simdCheck: 'fail' }); const i = mebo.wasmInfo(); console.log(i.variant, i.simdCheck, decodeOne());`);
    expect(out).toBe('scalar failed 12:720');
  });

  it('takes its builds by init({ wasm }) and initSync', () => {
    const simd = JSON.stringify(join(WASM, 'mebo_decode_simd.wasm'));
    const scalar = JSON.stringify(join(WASM, 'mebo_decode_scalar.wasm'));
    expect(runNode(`await mebo.init({ wasm: readFileSync(${scalar}), variant: 'scalar' }); console.log(mebo.wasmVariant(), decodeOne());`)).toBe('scalar 12:720');
    expect(runNode(`mebo.initSync(readFileSync(${simd}), 'simd'); console.log(mebo.wasmVariant(), decodeOne());`)).toBe('simd 12:720');
  });

  it('fails with the same MeboError codes and stays usable; reset() gives memory back', () => {
    const out = runNode(`
      await mebo.init();
      for (const bytes of [new Uint8Array([1, 2, 3]), new Uint8Array(64).fill(0xff)]) {
        try { mebo.NumericBlob.from(bytes); } catch (e) { console.log(e instanceof mebo.MeboError, e.code); }
      }
      const held = mebo.NumericBlob.from(blobBytes);
      try { held.metric('absent'); } catch (e) { console.log(e.code); }
      try { await mebo.reset(); } catch (e) { console.log(e.code); }
      held.free();
      console.log(await mebo.reset(), mebo.memoryInfo().resets, decodeOne());`);
    expect(out.split('\n')).toEqual(['true TRUNCATED', 'true BAD_MAGIC', 'METRIC_NOT_FOUND', 'LIVE_HANDLES', 'true 1 12:720']);
  });

  it('reads blob sets, ranges and decimation', () => {
    const out = runNode(`
      await mebo.init();
      const set = mebo.NumericBlobSet.from([blobBytes, blobBytes]);
      const [id] = set.metricIds;
      const line = set.decimate(id, { method: 'lttb', buckets: 50 });
      const blob = mebo.NumericBlob.from(blobBytes);
      const [xs] = mebo.alignedSeries(blob, [id]);
      console.log(set.length, line.timestampsMs.length, blob.range(id, 0n, 2n ** 62n).values.length, xs.length);
      set.free();
      blob.free();`);
    expect(out).toBe('2 50 60 60'); // 12 metrics of 60 points
  });
});
