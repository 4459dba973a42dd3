// The reader of a stream of blobs (docs/FORMAT.md, "Stream of blobs"): bytes
// from a ReadableStream, a Response or an async iterable in, each frame's
// blob bytes out as soon as its last byte arrived. No wasm here: decodeStream
// (stream-decode.ts) and the pool open the frames.
//
// Memory stays at one frame plus one chunk: a frame that lies within a chunk
// is a view of it; one that spans chunks is assembled into a buffer of its
// declared length, allocated once that length passed the cap. Nothing is read
// before the consumer asks for the next frame.

import * as args from './args.js';
import { invalidArgument, MeboError } from './errors.js';
import { DEFAULT_MAX_BLOB_BYTES, LENGTH_BYTES, MAX_FRAME_LENGTH, STREAM_MAGIC } from './stream-format.js';

/** Where a stream of blobs comes from. Node streams (`fs.createReadStream`, `Readable`) are async iterables. */
export type StreamSource = ReadableStream<Uint8Array> | Response | AsyncIterable<Uint8Array>;

export interface FrameOptions {
  /** The largest length a frame may declare; a larger one is `SIZE_CAP` before anything is allocated for it. Default 256 MiB. */
  maxBlobBytes?: number;
  /** Stops the reading with `ABORTED` (the signal's reason as `cause`) and cancels the source. */
  signal?: AbortSignal;
}

/**
 * The blobs' bytes of a stream of blobs, unopened (to store them, or hand
 * them on), each as soon as its last byte arrived; the framing and its errors
 * are `decodeStream`'s. A blob may be a view of a chunk of the source.
 */
export function splitStream(source: StreamSource, options?: FrameOptions): AsyncGenerator<Uint8Array, void, undefined> {
  const frames = streamFrames(source, options);
  return (async function* () {
    for await (const frame of frames) yield frame.bytes;
  })();
}

/**
 * @internal The frames of a stream, its source and options checked now
 * (decodeStream's and the pool's reader). With `reuse`, a frame assembled
 * from several chunks lies in a buffer the next such frame overwrites: for a
 * consumer done with each frame before asking for the next (decodeStream
 * copies it into wasm memory), it spares an allocation per large blob.
 */
export function streamFrames(source: StreamSource, options?: FrameOptions, reuse = false): AsyncGenerator<Frame, void, undefined> {
  return readFrames(chunksOf(source), { ...frameOptions(options), reuse });
}

/** One frame of the stream. */
export interface Frame {
  /** The blob's bytes (a view of the source's chunk when the frame lay within one). */
  bytes: Uint8Array;
  /** The frame's position in the stream, from 0. */
  index: number;
  /** The stream offset of the frame's length prefix. */
  offset: number;
}

/** The options checked, with their defaults. */
function frameOptions(options: FrameOptions | undefined): { maxBlobBytes: number; signal: AbortSignal | undefined } {
  const { maxBlobBytes = DEFAULT_MAX_BLOB_BYTES, signal } = args.options<FrameOptions>(options, 'options');
  if (typeof maxBlobBytes !== 'number' || !Number.isInteger(maxBlobBytes) || maxBlobBytes < 0 || maxBlobBytes > MAX_FRAME_LENGTH) {
    throw invalidArgument(`maxBlobBytes must be an integer in [0, 2^32), got ${args.describe(maxBlobBytes)}`);
  }
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.addEventListener === 'function' && 'aborted' in signal)) {
    throw invalidArgument(`signal must be an AbortSignal, got ${args.describe(signal)}`);
  }
  return { maxBlobBytes, signal };
}

/** The abort error, as `mebo/worker` raises it. */
function aborted(signal: AbortSignal): MeboError {
  return new MeboError('ABORTED', 'the stream was aborted', { cause: signal.reason });
}

/**
 * Chunks one at a time from any source, as `{ done, value }` (what a
 * stream reader and an iterator both answer, passed on without a wrapper:
 * this runs once per chunk); `cancel` tells the source to stop (it is not
 * awaited: a stalled source may never answer).
 */
interface Chunks {
  read(): Promise<IteratorResult<unknown, unknown>>;
  cancel(reason: unknown): void;
}

const NO_CHUNKS: Chunks = { read: () => Promise.resolve({ done: true, value: undefined }), cancel() {} };

function isReadableStream(source: object): source is ReadableStream<Uint8Array> {
  return typeof (source as ReadableStream).getReader === 'function';
}

function isResponse(source: object): source is Response {
  return 'body' in source && 'bodyUsed' in source && typeof (source as Response).arrayBuffer === 'function';
}

/** The source as chunks, checked (eagerly, so a wrong source fails the call, not its first step). */
function chunksOf(source: StreamSource): Chunks {
  if (typeof source !== 'object' || source === null) {
    throw invalidArgument(`the stream source must be a ReadableStream, a Response or an async iterable of Uint8Array, got ${args.describe(source)}`);
  }
  if (isResponse(source)) {
    if (source.bodyUsed) throw invalidArgument('the Response body was already read');
    if (source.body === null) return NO_CHUNKS;
    return readerChunks(source.body);
  }
  // Through getReader(), not for await: Safari's ReadableStream is not async-iterable.
  if (isReadableStream(source)) return readerChunks(source);
  const iterate = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator];
  if (typeof iterate !== 'function') {
    throw invalidArgument(`the stream source must be a ReadableStream, a Response or an async iterable of Uint8Array, got ${args.describe(source)}`);
  }
  let iterator: AsyncIterator<Uint8Array> | undefined;
  return {
    read() {
      iterator ??= iterate.call(source);
      return iterator.next();
    },
    cancel() {
      // A Node stream is destroyed at once (its iterator's return() would wait for a pending read).
      const node = source as { destroy?: (error?: Error) => void };
      if (typeof node.destroy === 'function') node.destroy();
      iterator?.return?.().catch(() => {});
    },
  };
}

function readerChunks(stream: ReadableStream<Uint8Array>): Chunks {
  if (stream.locked) throw invalidArgument('the stream is locked (another reader has it)');
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return {
    read() {
      reader ??= stream.getReader();
      return reader.read();
    },
    cancel(reason) {
      (reader ?? stream).cancel(reason).catch(() => {});
    },
  };
}

const EMPTY = new Uint8Array(0);

/**
 * The frames of a stream of blobs, each as soon as its last byte arrived.
 * Ends with a MeboError: `BAD_MAGIC` (no `MBS1`), `SIZE_CAP` (a declared
 * length above `maxBlobBytes`), `TRUNCATED` (the bytes stop inside a frame,
 * or the source failed: `cause`), `ABORTED`, `INVALID_ARGUMENT` (a chunk
 * that is not a Uint8Array). The source is cancelled on any of them and when
 * the consumer stops early; it is not touched before the first `next()`.
 */
async function* readFrames(chunks: Chunks, options: { maxBlobBytes: number; signal: AbortSignal | undefined; reuse: boolean }): AsyncGenerator<Frame, void, undefined> {
  const { maxBlobBytes, signal, reuse } = options;
  let chunk: Uint8Array = EMPTY;
  /** The next unread byte of `chunk`. */
  let at = 0;
  /** Stream bytes before `chunk[at]`. */
  let consumed = 0;
  let ended = false;

  /** The source's failure as the reader reports it (an abort or a MeboError as it is). */
  const failed = (error: unknown): never => {
    if (error instanceof MeboError) throw error;
    throw new MeboError('TRUNCATED', `the stream's source failed after ${consumed + (chunk.length - at)} bytes: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  };

  /** The next read of the source, raced against `signal`. */
  const abortable = (): Promise<IteratorResult<unknown, unknown>> => {
    if (signal!.aborted) return Promise.reject(aborted(signal!));
    const next = chunks.read();
    // The read that loses the race to an abort settles later; nobody waits for it.
    next.catch(() => {});
    let onAbort!: () => void;
    const abort = new Promise<never>((_, reject) => signal!.addEventListener('abort', (onAbort = () => reject(aborted(signal!))), { once: true }));
    return Promise.race([next, abort]).finally(() => signal!.removeEventListener('abort', onAbort));
  };

  /** The source's next read, raced against `signal` when there is one. */
  const read = (): Promise<IteratorResult<unknown, unknown>> => (signal ? abortable() : chunks.read());

  /** Take a read's chunk as the one in hand; false at the end of the stream. An empty chunk leaves nothing unread: the caller reads again. */
  const take = (step: IteratorResult<unknown, unknown>): boolean => {
    if (step.done) return false;
    const value = step.value;
    if (!(value instanceof Uint8Array)) throw invalidArgument(`a stream chunk must be a Uint8Array, got ${args.describe(value)}`);
    chunk = value;
    at = 0;
    return true;
  };

  /** Read chunks until one has an unread byte; false at the end of the stream. */
  const refill = async (): Promise<boolean> => {
    while (at >= chunk.length) {
      let step: IteratorResult<unknown, unknown>;
      try {
        step = await read();
      } catch (error) {
        return failed(error);
      }
      if (!take(step)) return false;
    }
    return true;
  };

  /**
   * Fill `target` from the stream; the count of bytes it got (short only at
   * the end of the stream). Its loop awaits the source directly, once per
   * chunk: with small chunks (1 KB) this is the reader's hot path.
   */
  const fill = async (target: Uint8Array): Promise<number> => {
    let filled = 0;
    while (filled < target.length) {
      if (at >= chunk.length) {
        let step: IteratorResult<unknown, unknown>;
        try {
          step = await read();
        } catch (error) {
          return failed(error);
        }
        if (!take(step)) break;
        continue;
      }
      const n = Math.min(target.length - filled, chunk.length - at);
      target.set(n === chunk.length && at === 0 ? chunk : chunk.subarray(at, at + n), filled);
      at += n;
      consumed += n;
      filled += n;
    }
    return filled;
  };

  /** A frame's buffer: a fresh one, or (`reuse`) one kept from frame to frame, grown when a frame needs more. */
  let kept: Uint8Array | undefined;
  const buffer = (length: number, index: number, offset: number): Uint8Array => {
    if (!reuse) return allocate(length, index, offset);
    if (kept === undefined || kept.length < length) kept = allocate(length, index, offset);
    return kept.subarray(0, length);
  };

  try {
    const magic = new Uint8Array(STREAM_MAGIC.length);
    const got = await fill(magic);
    if (!magic.subarray(0, got).every((b, i) => b === STREAM_MAGIC[i])) {
      throw new MeboError('BAD_MAGIC', 'not a stream of blobs: it does not start with "MBS1"');
    }
    if (got < magic.length) throw new MeboError('TRUNCATED', `the stream ends after ${got} of the 4 bytes of its "MBS1" header`);

    const prefix = new Uint8Array(LENGTH_BYTES);
    for (let index = 0; ; index++) {
      const offset = consumed;
      if (at >= chunk.length && !(await refill())) break;
      let length: number;
      if (chunk.length - at >= LENGTH_BYTES) {
        length = (chunk[at]! | (chunk[at + 1]! << 8) | (chunk[at + 2]! << 16) | (chunk[at + 3]! << 24)) >>> 0;
        at += LENGTH_BYTES;
        consumed += LENGTH_BYTES;
      } else {
        const got = await fill(prefix);
        if (got < LENGTH_BYTES) throw truncated(index, offset, `${got} of its 4 length bytes`);
        length = new DataView(prefix.buffer).getUint32(0, true);
      }
      if (length > maxBlobBytes) {
        throw new MeboError('SIZE_CAP', `frame ${index} (at byte ${offset}) declares ${length} bytes, above maxBlobBytes (${maxBlobBytes})`);
      }
      let bytes: Uint8Array;
      if (chunk.length - at >= length) {
        bytes = chunk.subarray(at, at + length);
        at += length;
        consumed += length;
      } else {
        bytes = buffer(length, index, offset);
        const got = await fill(bytes);
        if (got < length) throw truncated(index, offset, `${got} of its ${length} blob bytes`);
      }
      yield { bytes, index, offset };
    }
    ended = true;
  } finally {
    // An error, an abort or a consumer that stopped early: the source stops too.
    if (!ended) chunks.cancel(signal?.aborted ? signal.reason : undefined);
  }
}

function truncated(index: number, offset: number, what: string): MeboError {
  return new MeboError('TRUNCATED', `the stream ends inside frame ${index} (at byte ${offset}), after ${what}`);
}

/** A frame's buffer; a length the engine cannot allocate is OUT_OF_MEMORY, not a RangeError. */
function allocate(length: number, index: number, offset: number): Uint8Array {
  try {
    return new Uint8Array(length);
  } catch (error) {
    throw new MeboError('OUT_OF_MEMORY', `frame ${index} (at byte ${offset}): cannot allocate ${length} bytes`, { cause: error });
  }
}

/** @internal A MeboError of a frame's blob, its code kept, the frame named in its message (the original as `cause`). */
export function frameError(frame: Pick<Frame, 'index' | 'offset'>, error: unknown): MeboError {
  const code = error instanceof MeboError ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : args.describe(error);
  // Exported by the main entry for the pool, so reachable with any argument.
  const where = typeof frame === 'object' && frame !== null ? `frame ${args.describe(frame.index)} (at byte ${args.describe(frame.offset)})` : 'a frame';
  return new MeboError(code, `${where}: ${message}`, { cause: error });
}
