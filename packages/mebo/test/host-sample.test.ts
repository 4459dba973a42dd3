// The sample the host tests (Deno, workerd, Chromium) and the CLI tests decode
// must cover every value of every option, both kinds, names and ids.

import { expect, it } from 'vitest';
import { rawInput, sampleCases } from './helpers/hosts.js';

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
