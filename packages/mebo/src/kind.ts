import { blobKind as coreBlobKind } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import type { BlobKind } from './boundary.js';
import { call } from './errors.js';
import { ready } from './module.js';

export type { BlobKind } from './boundary.js';

/**
 * Which kind of blob these bytes start like (by the magic in their first two
 * bytes), or `undefined` when neither: pick `NumericBlob` or `TextBlob` with
 * it. Nothing past the magic is checked.
 */
export function blobKind(bytes: Uint8Array | ArrayBuffer): BlobKind | undefined {
  ready();
  const input = args.bytes(bytes, 'blob bytes');
  return call(() => coreBlobKind(input.subarray(0, 2)));
}
