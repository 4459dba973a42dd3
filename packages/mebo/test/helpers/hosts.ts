// What the host tests (Deno, workerd, Chromium) and the CLI tests share: a
// sample of conformance vectors that covers every option value, and the
// comparison of a decoded document (the input files' schema, as
// test/hosts/decode-document.js and `mebo decode` print it) with the input
// file the blob was written from. Node only.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { manifest, VECTORS, type Case } from './vectors.js';

/**
 * One case per row of the option matrix worth a host round trip: every
 * timestamp encoding, value encoding, codec and layout, both byte orders,
 * tags, metrics by id, names, the extended index, and text blobs.
 */
export const SAMPLE_NAMES = [
  'num-gauge1-raw-none-raw-none-notags-le-v1',
  'num-gauge1-delta-zstd-gorilla-s2-notags-le-v1',
  'num-gauge1-deltapacked-lz4-chimp-lz4-notags-le-v1',
  'num-decimal1-delta-zstd-alp-lz4-notags-le-v2-shared',
  'num-special-delta-s2-gorilla-zstd-notags-be-v1',
  'num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2',
  'num-ids-raw-s2-raw-zstd-notags-be-v1',
  'num-long-deltapacked-lz4-chimp-s2-notags-le-v2-shared',
  'txt-status1-tagged-delta-zstd-tags-be',
  'txt-status1-raw-lz4-notags-le',
  'txt-status1-tagged-raw-s2-tags-le',
  'txt-textids-raw-none-notags-le',
] as const;

export function sampleCases(): Case[] {
  const byName = new Map(manifest().map((c) => [c.name, c]));
  return SAMPLE_NAMES.map((name) => {
    const c = byName.get(name);
    if (!c) throw new Error(`sample case ${name} is not in the manifest`);
    return c;
  });
}

/** The sample as bytes, keyed by case name. */
export function sampleBlobs(): { name: string; bytes: Uint8Array }[] {
  return sampleCases().map((c) => ({ name: c.name, bytes: new Uint8Array(readFileSync(join(VECTORS, c.file))) }));
}

/** The sample as JSON-safe `{ name, base64 }` (the body sent to a worker). */
export function sampleBase64(): { name: string; base64: string }[] {
  return sampleBlobs().map(({ name, bytes }) => ({ name, base64: Buffer.from(bytes).toString('base64') }));
}

export interface RawMetric {
  name?: string;
  id: string;
  timestamps: string[];
  values?: string[];
  texts?: string[];
  tags?: string[];
}

export interface RawInput {
  kind: 'numeric' | 'text';
  startTimeMicros: string;
  identifier: 'name' | 'id';
  metrics: RawMetric[];
}

const rawInputs = new Map<string, RawInput>();

/** An input file as JSON, untouched (the strings are the expected output). */
export function rawInput(c: Case): RawInput {
  let input = rawInputs.get(c.options.input);
  if (!input) {
    input = JSON.parse(readFileSync(join(VECTORS, c.options.input), 'utf8')) as RawInput;
    rawInputs.set(c.options.input, input);
  }
  return input;
}

export interface DecodedDocument {
  kind: string;
  startTimeMicros: string;
  identifier?: string;
  options: Record<string, unknown>;
  metrics: RawMetric[];
}

/**
 * The options a case's blob must report: the manifest's, without its `input`
 * path. The reference writes `v2-shared` as plain `v2` when no two metrics
 * share a timestamp column: then the header's shared flag (bit 0x8 of the
 * first byte) is clear and the blob reports `v2`.
 */
export function caseOptions(c: Case): Record<string, unknown> {
  const { input: _input, ...options } = c.options;
  if (options.layout === 'v2-shared') {
    const flags = readFileSync(join(VECTORS, c.file))[0]!;
    if ((flags & 0x8) === 0) options.layout = 'v2';
  }
  return options;
}

/**
 * Assert a decoded document equals the input the case was written from:
 * kind, start time, options, and per metric (matched by id) timestamps,
 * value bits or texts, tags (all empty when the input has none but the blob
 * has tags), and the name where the document has one.
 */
export function expectMatchesInput(doc: DecodedDocument, c: Case): void {
  const input = rawInput(c);
  const where = c.name;
  expect(doc.kind, where).toBe(c.kind);
  expect(doc.startTimeMicros, where).toBe(input.startTimeMicros);
  expect(doc.options, where).toEqual(caseOptions(c));
  expect(doc.metrics.length, where).toBe(input.metrics.length);
  const decoded = new Map(doc.metrics.map((m) => [m.id.toLowerCase(), m]));
  expect(decoded.size, `${where}: metric ids are distinct`).toBe(doc.metrics.length);
  for (const m of input.metrics) {
    const at = `${where} metric ${m.name ?? m.id}`;
    const d = decoded.get(m.id.toLowerCase());
    expect(d, `${at} is decoded`).toBeDefined();
    expect(d!.timestamps, `${at} timestamps`).toEqual(m.timestamps);
    if (c.kind === 'numeric') {
      expect(d!.values?.map((v) => v.toLowerCase()), `${at} value bits`).toEqual(m.values!.map((v) => v.toLowerCase()));
      expect(d!.texts, at).toBeUndefined();
    } else {
      expect(d!.texts, `${at} texts`).toEqual(m.texts);
      expect(d!.values, at).toBeUndefined();
    }
    if (c.options.tags) expect(d!.tags, `${at} tags`).toEqual(m.tags ?? m.timestamps.map(() => ''));
    else expect(d!.tags, `${at} has no tags`).toBeUndefined();
    if (d!.name !== undefined) expect(d!.name, `${at} name`).toBe(m.name);
  }
}

/**
 * Assert what a host decoded for the whole sample: every case, each equal
 * to its input.
 */
export function expectSampleDecoded(results: Record<string, DecodedDocument | { error: unknown }>): void {
  expect(Object.keys(results).sort()).toEqual([...SAMPLE_NAMES].sort());
  for (const c of sampleCases()) {
    const result = results[c.name]!;
    expect('error' in result ? result.error : undefined, `${c.name} decodes`).toBeUndefined();
    expectMatchesInput(result as DecodedDocument, c);
  }
}
