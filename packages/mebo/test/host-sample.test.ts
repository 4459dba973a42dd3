// The sample the host tests (Deno, workerd, Chromium) and the CLI tests decode
// must cover every value of every option, both kinds, names and ids.

import { expect, it } from 'vitest';
import { caseOptions, expectMatchesInput, rawInput, sampleCases, type DecodedDocument } from './helpers/hosts.js';

it('covers every timestamp encoding, value encoding, codec, layout, byte order, tags, names and ids', () => {
  const cases = sampleCases();
  const seen = (pick: (o: Record<string, unknown>) => unknown[]) => new Set(cases.flatMap((c) => pick(c.options as never)));
  expect(seen((o) => [o.timestampEncoding])).toEqual(new Set(['raw', 'delta', 'deltapacked']));
  expect(seen((o) => (o.valueEncoding ? [o.valueEncoding] : []))).toEqual(new Set(['raw', 'gorilla', 'chimp', 'alp']));
  expect(seen((o) => [o.timestampCompression, o.valueCompression, o.dataCompression].filter(Boolean))).toEqual(
    new Set(['none', 'zstd', 's2', 'lz4']),
  );
  expect(seen((o) => (o.layout ? [o.layout] : []))).toEqual(new Set(['v1', 'v2', 'v2-shared']));
  expect(seen((o) => [o.bigEndian])).toEqual(new Set([true, false]));
  expect(seen((o) => [o.tags])).toEqual(new Set([true, false]));
  expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(['numeric', 'text']));
  expect(new Set(cases.map((c) => `${c.kind}:${rawInput(c).identifier}`))).toEqual(
    new Set(['numeric:name', 'numeric:id', 'text:name', 'text:id']),
  );
});

it('the comparison with the inputs catches a flipped value bit, a wrong timestamp, text or tag, and a missing metric', () => {
  const [numeric, text] = [sampleCases().find((c) => c.name === 'num-gauge1-tagged-raw-zstd-raw-s2-tags-le-v2')!, sampleCases().find((c) => c.kind === 'text' && c.options.tags)!];
  const documentOf = (c: typeof numeric): DecodedDocument => {
    const input = rawInput(c);
    return JSON.parse(JSON.stringify({ kind: c.kind, startTimeMicros: input.startTimeMicros, options: caseOptions(c), metrics: input.metrics })) as DecodedDocument;
  };
  expectMatchesInput(documentOf(numeric), numeric);
  expectMatchesInput(documentOf(text), text);
  const broken: ((d: DecodedDocument) => void)[] = [
    (d) => (d.metrics[3]!.values![7] = (BigInt(`0x${d.metrics[3]!.values![7]}`) ^ 1n).toString(16).padStart(16, '0')),
    (d) => (d.metrics[0]!.timestamps[5] = String(BigInt(d.metrics[0]!.timestamps[5]!) + 1n)),
    (d) => (d.metrics[1]!.tags![2] = `${d.metrics[1]!.tags![2]}x`),
    (d) => d.metrics.pop(),
    (d) => (d.options.bigEndian = !d.options.bigEndian),
    (d) => (d.startTimeMicros = '0'),
  ];
  for (const [i, breakIt] of broken.entries()) {
    const d = documentOf(numeric);
    breakIt(d);
    expect(() => expectMatchesInput(d, numeric), `change #${i}`).toThrow();
  }
  const t = documentOf(text);
  t.metrics[0]!.texts![0] = `${t.metrics[0]!.texts![0]} `;
  expect(() => expectMatchesInput(t, text)).toThrow();
});
