// Streams of blobs in Node: frameBlobs → a real HTTP server on 127.0.0.1 →
// fetch → decodeStream, files and Node streams as sources, every blob
// compared by its decoded bits with the one-blob API; hostile streams; abort
// and early exit cancelling the source; random chunkings (fast-check).

import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStream, encodeNumeric, frameBlobs, init, isBlobStream, MeboError, splitStream, type NumericBlob, type TextBlob } from '../src/entries/index.js';
import { decodeStream as decodeStreamOfDecode } from '../src/entries/decode.js';
import { corpus, expectedFingerprint, fingerprint, framed, randomChunks, seeded, serve, streamOf, writeChunks } from './helpers/stream.js';

let blobs: Uint8Array[];
let expected: string[];
let tmp: string;

beforeAll(async () => {
  await init();
  blobs = corpus();
  expected = blobs.map(expectedFingerprint);
  tmp = mkdtempSync(join(tmpdir(), 'mebo-stream-'));
});
afterAll(() => tmp && rmSync(tmp, { recursive: true, force: true }));

/** Every blob of the stream, fingerprinted and freed; the error it ended with, if any. */
async function drain(blobsOf: AsyncIterable<NumericBlob | TextBlob>): Promise<{ got: string[]; error?: MeboError }> {
  const got: string[] = [];
  try {
    for await (const blob of blobsOf) {
      got.push(fingerprint(blob));
      blob.free();
    }
  } catch (error) {
    if (!(error instanceof MeboError)) throw error;
    return { got, error };
  }
  return { got };
}

/** All of a ReadableStream's bytes. */
async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe('frameBlobs', () => {
  it('writes the format byte for byte (an iterable and an async iterable)', async () => {
    const some = blobs.slice(0, 40);
    expect(await bytesOf(frameBlobs(some))).toEqual(framed(some));
    async function* later() {
      for (const b of some) yield b;
    }
    expect(await bytesOf(frameBlobs(later()))).toEqual(framed(some));
    expect(await bytesOf(frameBlobs([]))).toEqual(new Uint8Array([0x4d, 0x42, 0x53, 0x31]));
  });

  it('pulls a blob only when the reader asks (backpressure), and ends the source when cancelled', async () => {
    let made = 0;
    let ended = false;
    function* endless() {
      try {
        for (;;) {
          made++;
          yield blobs[made % blobs.length]!;
        }
      } finally {
        ended = true;
      }
    }
    const reader = frameBlobs(endless()).getReader();
    await reader.read(); // MBS1
    await reader.read(); // the first length
    await reader.read(); // the first blob
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(made).toBe(1);
    await reader.cancel();
    expect(ended).toBe(true);
  });

  it('errors the stream with INVALID_ARGUMENT for a value that is not a Uint8Array', async () => {
    await expect(bytesOf(frameBlobs([blobs[0]!, 'nope' as unknown as Uint8Array]))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: /blob 1/ });
    expect(() => frameBlobs(42 as unknown as Uint8Array[])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // One blob is an iterable of numbers: refused with a hint, not framed byte by byte.
    expect(() => frameBlobs(blobs[0]! as unknown as Uint8Array[])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('[blob]') }));
  });
});

describe('decodeStream over HTTP, files and Node streams', () => {
  it('gets every blob exactly: frameBlobs → http on 127.0.0.1 in random chunks (1 B to 1 MB) → fetch', async () => {
    expect(blobs.length).toBeGreaterThan(700);
    const random = seeded(20260447);
    const server = await serve((_req, res) => {
      // The SDK's frames, re-cut into chunks of random sizes.
      void (async () => {
        const whole = await bytesOf(frameBlobs(blobs));
        await writeChunks(res, randomChunks(whole, random));
      })();
    });
    try {
      const { got, error } = await drain(decodeStream(await fetch(server.url)));
      expect(error).toBeUndefined();
      expect(got.length).toBe(blobs.length);
      got.forEach((g, i) => expect(g, `blob ${i}`).toBe(expected[i]));
    } finally {
      await server.close();
    }
  });

  it('serves frameBlobs straight through pipeline, read through mebo/decode', async () => {
    const server = await serve((_req, res) => {
      void writeChunks(res, Readable.fromWeb(frameBlobs(blobs.slice(0, 300)) as import('node:stream/web').ReadableStream<Uint8Array>));
    });
    try {
      const response = await fetch(server.url);
      const { got, error } = await drain(decodeStreamOfDecode(response.body!));
      expect(error).toBeUndefined();
      expect(got).toEqual(expected.slice(0, 300));
    } finally {
      await server.close();
    }
  });

  it('reads fs.createReadStream and a Node Readable of random chunks', async () => {
    const file = join(tmp, 'all.mbs');
    const whole = framed(blobs);
    writeFileSync(file, whole);
    const fromFile = await drain(decodeStream(createReadStream(file, { highWaterMark: 7919 })));
    expect(fromFile.error).toBeUndefined();
    expect(fromFile.got).toEqual(expected);
    const fromReadable = await drain(decodeStream(Readable.from(randomChunks(whole, seeded(5)), { objectMode: false })));
    expect(fromReadable.error).toBeUndefined();
    expect(fromReadable.got).toEqual(expected);
  });

  it('yields each blob before the next frame is read (a stream that stalls after it still delivers it)', async () => {
    const some = blobs.slice(0, 3);
    const bytes = framed(some);
    const firstEnd = 4 + 4 + some[0]!.length;
    let stall!: () => void;
    const stalled = new Promise<void>((resolve) => (stall = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(bytes.subarray(0, firstEnd));
        await stalled;
        controller.enqueue(bytes.subarray(firstEnd));
        controller.close();
      },
    });
    const it = decodeStream(stream)[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    expect(fingerprint(first.value as NumericBlob)).toBe(expected[0]);
    (first.value as NumericBlob).free();
    stall();
    const { got } = await drain({ [Symbol.asyncIterator]: () => it });
    expect(got).toEqual(expected.slice(1, 3));
  });
});

describe('decodeStream: bad streams end in their code after every complete blob', () => {
  const some = () => blobs.slice(0, 5);

  it('TRUNCATED inside a length and inside a blob, with frame index and byte offset', async () => {
    const bytes = framed(some());
    const offsets = [4];
    for (const b of some()) offsets.push(offsets.at(-1)! + 4 + b.length);
    // Inside frame 3's length prefix, then inside frame 3's blob.
    for (const cut of [offsets[3]! + 2, offsets[3]! + 4 + 10]) {
      const { got, error } = await drain(decodeStream(streamOf(randomChunks(bytes.subarray(0, cut), seeded(cut), 4096)).stream));
      expect(got).toEqual(expected.slice(0, 3));
      expect(error?.code).toBe('TRUNCATED');
      expect(error?.message).toContain(`frame 3 (at byte ${offsets[3]})`);
    }
    // Inside the header.
    expect((await drain(decodeStream(streamOf([bytes.subarray(0, 3)]).stream))).error?.code).toBe('TRUNCATED');
    // A stream of no frames is fine.
    expect(await drain(decodeStream(streamOf([bytes.subarray(0, 4)]).stream))).toEqual({ got: [] });
  });

  it('SIZE_CAP for a declared 0xFFFFFFFF before anything is allocated, and for a length above maxBlobBytes', async () => {
    const head = framed(some().slice(0, 2));
    const huge = new Uint8Array([...head, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]);
    const { stream, cancelled } = streamOf([huge]);
    const before = process.memoryUsage().arrayBuffers;
    const { got, error } = await drain(decodeStream(stream));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
    expect(got).toEqual(expected.slice(0, 2));
    expect(error?.code).toBe('SIZE_CAP');
    expect(error?.message).toMatch(/frame 2 \(at byte \d+\) declares 4294967295 bytes/);
    await cancelled;
    // Under a smaller cap, the first blob above it.
    const sizes = some().map((b) => b.length);
    const cap = Math.min(...sizes) - 1 + 0;
    const firstOver = sizes.findIndex((s) => s > cap);
    const capped = await drain(decodeStream(streamOf([framed(some())]).stream, { maxBlobBytes: cap }));
    expect(capped.got).toEqual(expected.slice(0, firstOver));
    expect(capped.error?.code).toBe('SIZE_CAP');
  });

  it('BAD_MAGIC for garbage, a single blob and an empty source gives TRUNCATED', async () => {
    const garbage = new Uint8Array(1000).map((_, i) => (i * 7919) & 0xff);
    expect((await drain(decodeStream(streamOf([garbage]).stream))).error?.code).toBe('BAD_MAGIC');
    expect((await drain(decodeStream(streamOf([blobs[0]!]).stream))).error?.code).toBe('BAD_MAGIC');
    expect((await drain(decodeStream(streamOf([new Uint8Array([0x4d, 0x42])]).stream))).error?.code).toBe('TRUNCATED');
    expect((await drain(decodeStream(streamOf([]).stream))).error?.code).toBe('TRUNCATED');
  });

  it('a corrupt blob in frame k: its own code, naming frame k, after blobs 0..k-1', async () => {
    const parts = some();
    const k = 3;
    const corrupt = parts[k]!.slice();
    corrupt[0] = 0x00; // not a blob's magic
    corrupt[1] = 0x00;
    parts[k] = corrupt;
    const { got, error } = await drain(decodeStream(streamOf([framed(parts)]).stream));
    expect(got).toEqual(expected.slice(0, k));
    expect(error?.code).toBe('BAD_MAGIC');
    expect(error?.message).toMatch(new RegExp(`^frame ${k} \\(at byte \\d+\\): `));
    expect(error?.cause).toBeInstanceOf(MeboError);
    // A cut blob inside a whole frame: the core's TRUNCATED, with the frame.
    parts[k] = parts[k - 1]!.subarray(0, 20);
    const cut = await drain(decodeStream(streamOf([framed(parts)]).stream));
    expect(cut.got).toEqual(expected.slice(0, k));
    expect(cut.error?.code).toBe('TRUNCATED');
    expect(cut.error?.message).toMatch(new RegExp(`^frame ${k} `));
    // Decode limits apply to every blob.
    const big = encodeNumeric([{ name: 'x', timestamps: [1n, 2n, 3n], values: [1, 2, 3] }]);
    const limited = await drain(decodeStream(streamOf([framed([blobs[0]!, big])]).stream, { maxPoints: 2 }));
    expect(limited.error?.code).toMatch(/LIMIT_EXCEEDED|SIZE_CAP/);
  });

  it('INVALID_ARGUMENT for a wrong source, options or chunk', async () => {
    expect(() => decodeStream(42 as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => decodeStream(streamOf([]).stream, { maxBlobBytes: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => decodeStream(streamOf([]).stream, { maxBlobBytes: 2 ** 32 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => decodeStream(streamOf([]).stream, { signal: {} as AbortSignal })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const strings = new ReadableStream({ start: (c) => (c.enqueue('MBS1'), c.close()) });
    expect((await drain(decodeStream(strings as ReadableStream<Uint8Array>))).error?.code).toBe('INVALID_ARGUMENT');
    const used = new Response(framed([]));
    await used.arrayBuffer();
    expect(() => decodeStream(used)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('a source that fails mid-stream: TRUNCATED with the failure as cause, after the blobs before', async () => {
    const bytes = framed(some());
    const failure = new Error('connection reset');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 4 + 4 + some()[0]!.length + 6));
      },
      pull(controller) {
        controller.error(failure);
      },
    });
    const { got, error } = await drain(decodeStream(stream));
    expect(got).toEqual(expected.slice(0, 1));
    expect(error?.code).toBe('TRUNCATED');
    expect(error?.cause).toBe(failure);
  });
});

describe('decodeStream: abort and early exit cancel the source', () => {
  it('ABORTED mid-stream (the signal reason as cause), the source cancelled, even while a read waits', async () => {
    const controller = new AbortController();
    const bytes = framed(blobs.slice(0, 10));
    // Two blobs, then nothing more for ever: the abort must end the pending read.
    const firstTwo = 4 + 8 + blobs[0]!.length + blobs[1]!.length;
    let cancelledWith: unknown = 'not cancelled';
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(bytes.subarray(0, firstTwo)),
      cancel: (reason) => void (cancelledWith = reason),
    });
    const got: string[] = [];
    const reason = new Error('user left');
    let error: unknown;
    try {
      for await (const blob of decodeStream(stream, { signal: controller.signal })) {
        got.push(fingerprint(blob));
        blob.free();
        if (got.length === 2) setTimeout(() => controller.abort(reason), 10);
      }
    } catch (e) {
      error = e;
    }
    expect(got).toEqual(expected.slice(0, 2));
    expect(error).toMatchObject({ code: 'ABORTED', cause: reason });
    expect(cancelledWith).toBe(reason);
    // Already aborted: nothing is read.
    const { stream: untouched, pulls } = streamOf([bytes]);
    await expect(drain(decodeStream(untouched, { signal: AbortSignal.abort() }))).resolves.toMatchObject({ error: { code: 'ABORTED' } });
    expect(pulls()).toBe(0);
  });

  it('a consumer that breaks cancels a ReadableStream and a Node stream, and nothing is read ahead of it', async () => {
    const chunks = randomChunks(framed(blobs.slice(0, 50)), seeded(9), 256);
    const { stream, pulls, cancelled } = streamOf(chunks);
    let seen = 0;
    for await (const blob of decodeStream(stream)) {
      blob.free();
      if (++seen === 3) break;
    }
    await cancelled;
    const end = 4 + blobs.slice(0, 3).reduce((n, b) => n + 4 + b.length, 0);
    // The chunks read are those up to the third blob's last byte, no more.
    const readBytes = chunks.slice(0, pulls()).reduce((n, c) => n + c.length, 0);
    expect(readBytes).toBeGreaterThanOrEqual(end);
    expect(readBytes - chunks[pulls() - 1]!.length).toBeLessThan(end);

    const node = Readable.from(chunks, { objectMode: false });
    for await (const blob of decodeStream(node)) {
      blob.free();
      break;
    }
    expect(node.destroyed).toBe(true);
  });

  it('a consumer that breaks closes the HTTP connection, and the server stops making blobs', async () => {
    let made = 0;
    let generatorEnded!: () => void;
    const ended = new Promise<void>((resolve) => (generatorEnded = resolve));
    let connectionClosed!: () => void;
    const closed = new Promise<void>((resolve) => (connectionClosed = resolve));
    function* endless() {
      try {
        for (;;) yield blobs[made++ % blobs.length]!;
      } finally {
        generatorEnded();
      }
    }
    const server = await serve((_req, res) => {
      res.on('close', connectionClosed);
      // writeChunks leaves its loop when the connection closes, which destroys the stream and so cancels frameBlobs.
      void writeChunks(res, Readable.fromWeb(frameBlobs(endless()) as import('node:stream/web').ReadableStream<Uint8Array>));
    });
    try {
      let seen = 0;
      for await (const blob of decodeStream(await fetch(server.url))) {
        blob.free();
        if (++seen === 5) break;
      }
      await closed;
      await ended;
      expect(made).toBeGreaterThanOrEqual(5);
    } finally {
      await server.close();
    }
  });
});

describe('splitStream and isBlobStream', () => {
  it('splitStream yields each blob\'s bytes, each still intact after the stream went on', async () => {
    const some = blobs.slice(0, 40);
    const got: Uint8Array[] = [];
    for await (const bytes of splitStream(streamOf(randomChunks(framed(some), seeded(2), 5000)).stream)) got.push(bytes);
    expect(got.length).toBe(some.length);
    got.forEach((bytes, i) => expect(Buffer.compare(bytes, some[i]!), `blob ${i}`).toBe(0));
    await expect(splitStream(streamOf([framed(some).subarray(0, 100)]).stream).next()).rejects.toMatchObject({ code: 'TRUNCATED' });
  });

  it('isBlobStream tells a stream from a blob by its first 4 bytes', () => {
    expect(isBlobStream(framed([]))).toBe(true);
    expect(isBlobStream(framed([]).buffer)).toBe(true);
    expect(blobs.some((b) => isBlobStream(b))).toBe(false);
    expect(isBlobStream(new Uint8Array([0x4d, 0x42, 0x53]))).toBe(false);
    expect(() => isBlobStream('MBS1' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('decodeStream over random chunkings (fast-check)', () => {
  it('yields the exact blob sequence whatever the split points', async () => {
    const pool = blobs.filter((b) => b.length < 20_000).slice(0, 60);
    const poolExpected = pool.map(expectedFingerprint);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: pool.length - 1 }), { minLength: 0, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (picks, cuts) => {
          const bytes = framed(picks.map((i) => pool[i]!));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let from = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(from, p)); // empty chunks included: a reader must skip them
            from = p;
          }
          const { got, error } = await drain(decodeStream(streamOf(chunks).stream));
          expect(error).toBeUndefined();
          expect(got).toEqual(picks.map((i) => poolExpected[i]));
        },
      ),
      { numRuns: 200, seed: 47 },
    );
  });
});
