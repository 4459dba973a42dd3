// decodeStream: a stream of blobs (docs/FORMAT.md, "Stream of blobs") opened
// blob by blob as its bytes arrive. The framing is stream-read.ts's.

import { blobKind } from './kind.js';
import { NumericBlob } from './numeric.js';
import type { DecodeLimits } from './options.js';
import { frameError, streamFrames, type Frame, type FrameOptions, type StreamSource } from './stream-read.js';
import { TextBlob } from './text.js';

/** `decodeStream` options: the decode limits of every blob, the frame cap, an abort signal. */
export interface DecodeStreamOptions extends DecodeLimits, FrameOptions {}

/**
 * One frame's blob, opened as the kind its magic says (a blob of neither kind
 * fails with its core code), by `load()`: the light core fetches a part the
 * blob needs first.
 */
async function openBlob(frame: Frame, limits: DecodeLimits): Promise<NumericBlob | TextBlob> {
  try {
    return await (blobKind(frame.bytes) === 'text' ? TextBlob.load(frame.bytes, limits) : NumericBlob.load(frame.bytes, limits));
  } catch (error) {
    throw frameError(frame, error);
  }
}

/**
 * The blobs of a stream of blobs, each opened as soon as its last byte has
 * arrived; the caller owns each (`free()` or `using`). `source`: a
 * `ReadableStream`, a `Response` (its body) or an async iterable of
 * `Uint8Array` (Node streams). Nothing is read ahead of the consumer, and
 * memory stays at one frame plus one chunk.
 *
 * Errors, each a `MeboError` after every complete blob before it was
 * yielded: `BAD_MAGIC` (not a stream of blobs), `TRUNCATED` (the bytes stop
 * inside a frame; the message names the frame and its byte offset),
 * `SIZE_CAP` (a frame declares more than `maxBlobBytes`), a bad blob's own
 * code (the message names its frame), `ABORTED` (`signal`). The source is
 * cancelled on an error, an abort and a loop left early.
 */
export function decodeStream(source: StreamSource, options?: DecodeStreamOptions): AsyncGenerator<NumericBlob | TextBlob, void, undefined> {
  // Each blob is copied into wasm memory when opened: its assembly buffer can serve the next frame.
  const frames = streamFrames(source, options, true);
  const limits: DecodeLimits = { maxDecompressedBytes: options?.maxDecompressedBytes, maxPoints: options?.maxPoints };
  return (async function* () {
    for await (const frame of frames) yield await openBlob(frame, limits);
  })();
}
