// What `mebo inspect` reports comes from two small SDK additions: the
// sections of a blob (from its header's offsets) and blobKind. Checked on
// every vector.

import { beforeAll, expect, it } from 'vitest';
import { blobKind, init, NumericBlob, TextBlob } from '../src/entries/index.js';
import { manifest, readBlob } from './helpers/vectors.js';

beforeAll(() => init());

it('the sections of every vector add up to its size and agree with its options', () => {
  for (const c of manifest()) {
    const bytes = readBlob(c);
    expect(blobKind(bytes), c.name).toBe(c.kind);
    if (c.kind === 'numeric') {
      using blob = NumericBlob.from(bytes);
      const s = blob.sections;
      const o = blob.options;
      expect(s.total, c.name).toBe(bytes.length);
      expect(s.header + s.names + s.index + s.sharedTable + s.timestamps.bytes + s.values.bytes + s.tags.bytes, c.name).toBe(bytes.length);
      expect(s.header).toBe(32);
      expect(s.index, c.name).toBe(blob.length * (o.extendedIndex ? 32 : 16));
      expect(s.names > 0, c.name).toBe(o.metricNames);
      expect(s.sharedTable > 0, c.name).toBe(o.layout === 'v2-shared');
      expect(s.tags.bytes > 0, c.name).toBe(o.tags);
      if (o.timestampCompression === 'none') expect(s.timestamps.decompressedBytes, c.name).toBe(s.timestamps.bytes);
      if (o.valueCompression === 'none') expect(s.values.decompressedBytes, c.name).toBe(s.values.bytes);
      // Raw columns: eight bytes a point.
      if (o.timestampEncoding === 'raw') expect(s.timestamps.decompressedBytes, c.name).toBe(8 * blob.totalPoints - sharedSavings(blob));
      if (o.valueEncoding === 'raw') expect(s.values.decompressedBytes, c.name).toBe(8 * blob.totalPoints);
    } else {
      using blob = TextBlob.from(bytes);
      const s = blob.sections;
      expect(s.total, c.name).toBe(bytes.length);
      expect(s.header + s.names + s.index + s.data.bytes, c.name).toBe(bytes.length);
      expect(s.index, c.name).toBe(16 * blob.length);
      expect(s.names > 0, c.name).toBe(blob.options.metricNames);
      if (blob.options.dataCompression === 'none') expect(s.data.decompressedBytes, c.name).toBe(s.data.bytes);
      else expect(s.data.decompressedBytes, c.name).toBeGreaterThan(s.data.bytes);
    }
  }
});

/** Bytes a v2-shared blob does not store: one raw timestamp column per metric that shares another's. */
function sharedSavings(blob: NumericBlob): number {
  if (blob.options.layout !== 'v2-shared') return 0;
  const seen = new Set<string>();
  let saved = 0;
  for (const id of blob.metricIds) {
    const key = blob.timestamps(id).join(',');
    if (seen.has(key)) saved += 8 * blob.pointCount(id);
    seen.add(key);
  }
  return saved;
}

it('blobKind reads only the magic', () => {
  expect(blobKind(new Uint8Array([]))).toBeUndefined();
  expect(blobKind(new Uint8Array([0x10]))).toBeUndefined();
  expect(blobKind(new Uint8Array([0x10, 0xea]))).toBe('numeric');
  expect(blobKind(new Uint8Array([0x23, 0xea]))).toBe('numeric');
  expect(blobKind(new Uint8Array([0x31, 0xea, 0xff]))).toBe('numeric');
  expect(blobKind(new Uint8Array([0x17, 0xeb]))).toBe('text');
  expect(blobKind(new Uint8Array([0x10, 0xec]))).toBeUndefined();
  expect(blobKind(new TextEncoder().encode('{"kind":"numeric"}'))).toBeUndefined();
});
