// A stream of blobs (docs/FORMAT.md, "Stream of blobs"): the 4 bytes `MBS1`,
// then per blob its length as a u32 little endian and its bytes. This module
// holds the format's constants and its writer, `frameBlobs`; the reader is
// stream-read.ts.

import * as args from './args.js';
import { invalidArgument } from './errors.js';

/** The 4 bytes a stream of blobs starts with: ASCII `MBS1`. */
export const STREAM_MAGIC: Uint8Array = /* @__PURE__ */ new Uint8Array([0x4d, 0x42, 0x53, 0x31]);

/** Bytes of a frame's length prefix. */
export const LENGTH_BYTES = 4;

/** The largest length a frame can declare (a u32). */
export const MAX_FRAME_LENGTH = 0xffff_ffff;

/** The default cap on one frame's declared length (`maxBlobBytes`): 256 MiB. */
export const DEFAULT_MAX_BLOB_BYTES = 256 << 20;

/** True when `bytes` start with `MBS1` (a stream of blobs, not a blob: a blob starts with its flag word). */
export function isBlobStream(bytes: Uint8Array | ArrayBuffer): boolean {
  const head = args.bytes(bytes, 'bytes');
  return head.length >= STREAM_MAGIC.length && STREAM_MAGIC.every((b, i) => head[i] === b);
}

/** A frame's 4-byte length prefix. */
function lengthPrefix(length: number): Uint8Array {
  const prefix = new Uint8Array(LENGTH_BYTES);
  new DataView(prefix.buffer).setUint32(0, length, true);
  return prefix;
}

/**
 * The blobs as a stream of blobs, for a server to answer with
 * (`new Response(frameBlobs(blobs))`, or piped to a Node response). Pulled:
 * the next blob is asked of `blobs` only when the reader wants more bytes, so
 * a slow client holds back a generator of blobs instead of filling memory.
 * A value that is not a `Uint8Array` (or longer than 4 GiB − 1) errors the
 * stream with `INVALID_ARGUMENT`; cancelling the stream ends `blobs`
 * (`return()`). Blobs are enqueued as they are, not copied: do not change
 * one after handing it over.
 */
export function frameBlobs(blobs: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  // One blob is iterable too (of numbers): the likely mistake is frameBlobs(blob).
  if (ArrayBuffer.isView(blobs)) throw invalidArgument(`blobs must be an iterable of Uint8Array (for one blob: [blob]), got one ${args.describe(blobs)}`);
  const source = blobs as Partial<Iterable<Uint8Array> & AsyncIterable<Uint8Array>> | null | undefined;
  const asyncIterator = source?.[Symbol.asyncIterator];
  const syncIterator = source?.[Symbol.iterator];
  if (typeof asyncIterator !== 'function' && typeof syncIterator !== 'function') {
    throw invalidArgument(`blobs must be an iterable or async iterable of Uint8Array, got ${args.describe(blobs)}`);
  }
  const iterator: AsyncIterator<unknown> | Iterator<unknown> =
    typeof asyncIterator === 'function' ? asyncIterator.call(source) : syncIterator!.call(source);
  let index = 0;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(STREAM_MAGIC.slice());
          return;
        }
        const next = await iterator.next();
        if (next.done) return controller.close();
        const blob = next.value;
        if (!(blob instanceof Uint8Array) || blob.length > MAX_FRAME_LENGTH) {
          const why = blob instanceof Uint8Array ? `${blob.length} bytes, above the 4 GiB − 1 a frame can declare` : args.describe(blob);
          throw invalidArgument(`blob ${index} of the stream must be a Uint8Array of at most ${MAX_FRAME_LENGTH} bytes, got ${why}`);
        }
        index++;
        controller.enqueue(lengthPrefix(blob.length));
        // The blob as it is: the reader may keep it past this call, and a copy would only cost time.
        if (blob.length > 0) controller.enqueue(blob);
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    // Nothing is pulled ahead of a read: backpressure reaches `blobs`.
    { highWaterMark: 0 },
  );
}
