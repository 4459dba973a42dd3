// Assertions the vector tests share: arrays compared item by item (the first
// difference named, not a dump of 50,000 items), tags with "all empty" equal
// to "no tags".

import { expect } from 'vitest';
import { expectedTagsAllEmpty, firstDifference } from './vectors.js';

export function expectSame<T>(got: ArrayLike<T>, want: ArrayLike<T>, what: string): void {
  const at = firstDifference(got, want);
  expect(at, `${what}: first difference at ${at} (got ${got.length} items, want ${want.length})`).toBe(-1);
}

export function expectTags(got: string[] | undefined, want: string[] | undefined, what: string): void {
  if (got === undefined) expect(expectedTagsAllEmpty(want), `${what}: tags missing`).toBe(true);
  else if (want === undefined) expect(expectedTagsAllEmpty(got), `${what}: unexpected tags`).toBe(true);
  else expect(got, what).toEqual(want);
}
