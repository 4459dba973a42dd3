// `config: 'auto'` through the SDK and the CLI: on every numeric input of the
// vectors and every real series (testdata/real), under `balanced` (the
// default) and `size`, the blob is never larger than the default
// configuration's and decodes to the input bit for bit; `speed` decodes
// exactly too; bad options are refused with INVALID_OPTIONS.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from '../cli/document.js';
import { encodeNumeric, init, MeboError, NumericBlob, NumericEncoder } from '../src/entries/index.js';
import { mebo } from './helpers/cli.js';
import { bitsOf, firstDifference, manifest, numericMetricsOf, readInput, REPO_ROOT, type Input, type InputMetric } from './helpers/vectors.js';

beforeAll(async () => {
  await init();
});

const REAL = join(REPO_ROOT, 'testdata/real');

function realInput(file: string): Input {
  const doc = parseDocument(JSON.parse(readFileSync(join(REAL, file), 'utf8')));
  if (doc.kind !== 'numeric') throw new Error(`${file} is not numeric`);
  return {
    startTime: doc.startTime!,
    byName: doc.identifier === 'name',
    metrics: doc.metrics.map((m): InputMetric => ({ id: m.id!, name: m.name, timestamps: m.timestamps, values: m.values, valueBits: bitsOf(m.values), texts: [] })),
  };
}

/** Every numeric input: the vectors' (one case per input file) and the real series. */
function numericInputs(): [string, Input][] {
  const seen = new Map<string, Input>();
  for (const c of manifest()) {
    if (c.kind === 'numeric' && !seen.has(c.options.input)) seen.set(c.options.input, readInput(c));
  }
  const real = readdirSync(REAL).filter((f) => f.endsWith('.json')).map((f) => [`real/${f}`, realInput(f)] as [string, Input]);
  return [...seen.entries(), ...real];
}

function expectDecodesTo(bytes: Uint8Array, input: Input, what: string): string {
  using blob = NumericBlob.from(bytes);
  const byId = new Map(input.metrics.map((m) => [m.id, m]));
  const { ids, offsets, timestamps, values } = blob.decodeAll();
  expect(ids.length, what).toBe(input.metrics.length);
  ids.forEach((id, i) => {
    const m = byId.get(id)!;
    expect(m, `${what}: metric ${id}`).toBeDefined();
    expect(firstDifference(timestamps.subarray(offsets[i], offsets[i + 1]), m.timestamps), `${what}: timestamps of ${id}`).toBe(-1);
    expect(firstDifference(bitsOf(values.subarray(offsets[i], offsets[i + 1])), m.valueBits), `${what}: values of ${id}`).toBe(-1);
  });
  const o = blob.options;
  return `${o.timestampEncoding}-${o.timestampCompression}-${o.valueEncoding}-${o.valueCompression}`;
}

describe("config: 'auto'", () => {
  const inputs = numericInputs();

  it('finds the vectors and the real series', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(12);
    expect(inputs.filter(([n]) => n.startsWith('real/')).map(([n]) => n).sort()).toEqual(
      ['real/maunaloa-co2-weekly.json', 'real/seattle-hourly-normals.json', 'real/stocks-monthly.json', 'real/usgs-earthquakes-week.json'],
    );
  });

  it.each(inputs.map(([name, input]) => ({ name, input })))('$name: never larger than the default, decodes exactly', ({ name, input }) => {
    const metrics = numericMetricsOf(input);
    const tags = input.metrics.some((m) => m.tags !== undefined);
    for (const layout of ['v1', 'v2'] as const) {
      let defaultBlob: Uint8Array;
      try {
        defaultBlob = encodeNumeric(metrics, { layout, tags, startTime: input.startTime });
      } catch (error) {
        // v1 refuses metrics past its 16-bit offsets with the default configuration: so does auto.
        expect((error as MeboError).code).toBe('LIMIT_EXCEEDED');
        expect(() => encodeNumeric(metrics, { config: 'auto', layout, tags, startTime: input.startTime })).toThrow(MeboError);
        continue;
      }
      for (const prefer of ['balanced', 'size'] as const) {
        const bytes = encodeNumeric(metrics, { config: 'auto', prefer, layout, tags, startTime: input.startTime });
        expect(bytes.length, `${name} ${layout} ${prefer}`).toBeLessThanOrEqual(defaultBlob.length);
        const config = expectDecodesTo(bytes, input, `${name} ${layout} ${prefer}`);
        // The blob is the fixed encoder's of the configuration it chose.
        expect(bytes).toEqual(encodeNumeric(metrics, { config, layout, tags, startTime: input.startTime }));
      }
      expectDecodesTo(encodeNumeric(metrics, { config: 'auto', prefer: 'speed', layout, tags, startTime: input.startTime }), input, `${name} ${layout} speed`);
    }
  });

  it('picks ALP for the prices and the hourly normals, at under two thirds of the default', () => {
    for (const file of ['stocks-monthly.json', 'seattle-hourly-normals.json']) {
      const input = realInput(file);
      const metrics = numericMetricsOf(input);
      const auto = encodeNumeric(metrics, { config: 'auto', layout: 'v2' });
      using blob = NumericBlob.from(auto);
      expect(blob.options.valueEncoding, file).toBe('alp');
      expect(auto.length * 3, file).toBeLessThan(encodeNumeric(metrics, { layout: 'v2' }).length * 2);
    }
  });

  it('is a config string of the encoder class too', () => {
    const ts = BigInt64Array.from({ length: 500 }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 10_000_000n);
    const vs = Float64Array.from({ length: 500 }, (_, i) => Math.round(Math.cos(i / 7) * 500) / 10);
    using enc = new NumericEncoder(ts[0]!, 'auto');
    const bytes = enc.startMetric('a', 500).addPoints(ts, vs).endMetric().finish();
    expect(expectDecodesTo(bytes, { startTime: ts[0]!, byName: true, metrics: [{ id: NumericBlob.from(bytes).metricIds[0]!, name: 'a', timestamps: ts, values: vs, valueBits: bitsOf(vs), texts: [] }] }, 'class')).toMatch(/-alp-/);
  });

  it("gives each prefer's blob from one sampling pass, the bytes each prefer's own encoder writes (what inspect reports)", () => {
    for (const file of ['stocks-monthly.json', 'seattle-hourly-normals.json', 'maunaloa-co2-weekly.json']) {
      const metrics = numericMetricsOf(realInput(file));
      using enc = new NumericEncoder(1_000n, { config: 'auto', layout: 'v2' });
      for (const m of metrics) enc.startMetric(m.name ?? m.id!, m.timestamps.length).addPoints(m.timestamps, m.values).endMetric();
      const each = enc.finishEachPrefer();
      expect(each.map((e) => e.prefer)).toEqual(['size', 'balanced', 'speed']);
      for (const { prefer, bytes } of each) {
        expect(Buffer.from(bytes).equals(Buffer.from(encodeNumeric(metrics, { config: 'auto', prefer, layout: 'v2', startTime: 1_000n }))), `${file} ${prefer}`).toBe(true);
      }
    }
    using fixed = new NumericEncoder(0n);
    expect(() => fixed.finishEachPrefer()).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });

  it('refuses prefer without auto, an unknown prefer, and column fields beside auto', () => {
    const m = [{ name: 'a', timestamps: [1n], values: [1] }];
    for (const options of [{ prefer: 'size' }, { config: 'auto', prefer: 'fast' }, { config: 'auto', valueEncoding: 'alp' }] as const) {
      expect(() => encodeNumeric(m, options as never), JSON.stringify(options)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    }
    expect(() => encodeNumeric(m, { config: 'auto', prefer: 3 } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('the CLI', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mebo-auto-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('encodes with --config auto --prefer size, and inspect reports what auto would make of a blob', () => {
    const src = join(REAL, 'stocks-monthly.json');
    const out = join(tmp, 'stocks.mebo');
    const r = mebo(['encode', src, '-o', out, '--config', 'auto', '--prefer', 'size', '--layout', 'v2']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const bytes = new Uint8Array(readFileSync(out));
    expectDecodesTo(bytes, realInput('stocks-monthly.json'), 'cli auto');

    const plain = join(tmp, 'stocks-default.mebo');
    expect(mebo(['encode', src, '-o', plain, '--layout', 'v2']).status).toBe(0);
    const report = JSON.parse(mebo(['inspect', '--json', plain]).stdout);
    expect(report.auto.map((a: { prefer: string }) => a.prefer)).toEqual(['balanced', 'size', 'speed']);
    const size = report.auto.find((a: { prefer: string }) => a.prefer === 'size');
    expect(size.bytes).toBe(bytes.length);
    expect(size.blobBytes).toBe(readFileSync(plain).length);
    expect(size.bytes).toBeLessThan(size.blobBytes);
    const text = mebo(['inspect', plain]).stdout;
    expect(text).toMatch(/^config auto: the same points re-encoded/m);
    expect(text).toMatch(new RegExp(`^size\\s+${size.config}\\s+${size.bytes}\\s`, 'm'));
  });

  it('refuses --prefer with a fixed config', () => {
    const src = join(tmp, 'one.json');
    writeFileSync(src, JSON.stringify({ kind: 'numeric', metrics: [{ name: 'a', timestamps: ['1'], values: ['3ff0000000000000'] }] }));
    const r = mebo(['encode', src, '-o', join(tmp, 'x.mebo'), '--config', 'delta-none-gorilla-none', '--prefer', 'size']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/INVALID_OPTIONS|prefer applies only to config 'auto'/);
  });
});
