// What the stream-of-blobs tests share: a corpus of blobs (the vectors and
// generated ones, numeric and text), a plain framer written here from the
// format's text (not the SDK's), a seeded chunker, a fingerprint of a decoded
// blob that differs when any bit of its columns does, and a loopback server.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeNumeric, encodeText, NumericBlob, TextBlob } from '../../src/entries/index.js';
import { manifest, readBlob } from './vectors.js';

/** A small seeded generator (mulberry32): the same chunkings on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Generated blobs: numeric (random walks, some with tags) and text, of a few points to 60,000. */
export function generatedBlobs(count: number, seed: number): Uint8Array[] {
  const random = seeded(seed);
  const blobs: Uint8Array[] = [];
  for (let b = 0; b < count; b++) {
    const metrics = 1 + Math.floor(random() * 4);
    const points = b % 10 === 9 ? 60_000 : 1 + Math.floor(random() * 300);
    const start = BigInt(Math.floor(random() * 2 ** 40)) * 1000n;
    const timestamps = Array.from({ length: points }, (_, i) => start + BigInt(i) * 15_000_000n);
    if (b % 3 === 2) {
      blobs.push(
        encodeText(
          Array.from({ length: metrics }, (_, m) => ({
            name: `log.${b}.${m}`,
            timestamps,
            values: timestamps.map((_, i) => `event ${Math.floor(random() * 50)} ✓ ${i % 7}`),
          })),
        ),
      );
    } else {
      const tags = b % 3 === 1;
      blobs.push(
        encodeNumeric(
          Array.from({ length: metrics }, (_, m) => {
            let v = random() * 100;
            const values = new Float64Array(points).map(() => (v += random() - 0.5));
            if (points > 3) values[1] = -0, values[2] = NaN;
            return { name: `host.${b}.cpu${m}`, timestamps, values, ...(tags ? { tags: timestamps.map((_, i) => (i % 5 === 0 ? `t${i}` : '')) } : {}) };
          }),
          { config: b % 2 === 0 ? 'delta-none-gorilla-zstd' : 'deltapacked-none-chimp-lz4', layout: 'v2', ...(tags ? { tags: true } : {}) },
        ),
      );
    }
  }
  return blobs;
}

/** Every conformance vector's blob, then `generated` more. */
export function corpus(generated = 60): Uint8Array[] {
  return [...manifest().map(readBlob), ...generatedBlobs(generated, 47)];
}

/** A stream of blobs, framed here by the format's text: "MBS1", then per blob a u32 LE length and the blob. */
export function framed(blobs: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const total = 4 + blobs.reduce((n, b) => n + 4 + b.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set([0x4d, 0x42, 0x53, 0x31]);
  let at = 4;
  for (const b of blobs) {
    view.setUint32(at, b.length, true);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

/** Split points of `bytes` into chunks of 1 byte to `max` bytes, log-uniform (small chunks are common). */
export function randomChunks(bytes: Uint8Array, random: () => number, max = 1 << 20): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.max(1, Math.floor(Math.exp(random() * Math.log(max))));
    chunks.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
  }
  return chunks;
}

/** A ReadableStream of these chunks, one per pull; `cancelled` resolves with the reason when it is cancelled. */
export function streamOf(chunks: readonly Uint8Array[]): { stream: ReadableStream<Uint8Array>; pulls: () => number; cancelled: Promise<unknown> } {
  let next = 0;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => (onCancel = resolve));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (next < chunks.length) controller.enqueue(chunks[next++]!);
        else controller.close();
      },
      cancel: (reason) => onCancel(reason),
    },
    { highWaterMark: 0 },
  );
  return { stream, pulls: () => next, cancelled };
}

/** A digest of everything a blob decodes to: kind, start time, every column's bytes (value bits, not numbers), strings. */
export function fingerprint(blob: NumericBlob | TextBlob): string {
  const hash = createHash('sha256');
  const bytes = (a: ArrayBufferView) => hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  hash.update(`${blob instanceof TextBlob ? 'text' : 'numeric'} ${blob.startTime}\n`);
  if (blob instanceof NumericBlob) {
    const c = blob.decodeAll();
    [c.ids, c.offsets, c.timestamps, c.values].forEach(bytes);
    for (let i = 0; i < blob.length; i++) {
      const tags = blob.metric(blob.metricIds[i]!).tags;
      if (tags) hash.update(JSON.stringify(tags));
    }
  } else {
    const c = blob.decodeAll();
    [c.ids, c.offsets, c.timestamps].forEach(bytes);
    hash.update(JSON.stringify(c.values));
    if (c.tags) hash.update(JSON.stringify(c.tags));
  }
  return hash.digest('hex');
}

/** The fingerprint of a blob opened from its bytes by the one-blob API. */
export function expectedFingerprint(bytes: Uint8Array): string {
  // The flag word (u16 LE) holds the magic in bits 4-15: 0xEB1 for text (docs/FORMAT.md).
  const text = bytes.length >= 2 && (bytes[0]! | (bytes[1]! << 8)) >> 4 === 0xeb1;
  const blob = text ? TextBlob.from(bytes) : NumericBlob.from(bytes);
  try {
    return fingerprint(blob);
  } finally {
    blob.free();
  }
}

/** An HTTP server on 127.0.0.1 for one test; `close` ends it and every connection. */
export async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Write chunks to a response one at a time, waiting for 'drain' when its buffer is full; false when the client went away. */
export async function writeChunks(res: ServerResponse, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<boolean> {
  for await (const chunk of chunks) {
    if (res.destroyed) return false;
    if (!res.write(chunk)) {
      const drained = await new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          res.off('drain', onDrain);
          res.off('close', onClose);
          resolve(ok);
        };
        const onDrain = () => done(true);
        const onClose = () => done(false);
        res.on('drain', onDrain);
        res.on('close', onClose);
      });
      if (!drained) return false;
    }
  }
  res.end();
  return true;
}
