// The zstd part (crates/mebo-zstd: a zstd decoder of our own, no_std, hand-written
// exports read by src/zstd-part.ts) against the full build, which links
// libzstd in the core (`mebo`'s default entry): every frame decodes to the
// same bytes and every hostile frame fails with the same code and number.
// Frames are written here by a plain writer of raw and RLE blocks (the
// format's own, independent of any encoder), plus every zstd payload of the
// vectors' text blobs; each is wrapped in a one-metric text blob so that the
// full build decodes it through its own libzstd.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { installZstdPart, zstdDecompress } from '../src/zstd-part.js';
import { manifest, PACKAGE_ROOT, readBlob } from './helpers/vectors.js';

type Full = typeof import('../src/entries/index.js');
type Decode = typeof import('../src/entries/decode.js');

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** A zstd block header: last flag, type (0 raw, 1 RLE), size. */
function blockHeader(last: boolean, type: 0 | 1, size: number): number[] {
  const v = (last ? 1 : 0) | (type << 1) | (size << 3);
  return [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff];
}

interface FrameOptions {
  /** The content size written in the header (default: the content's); `null`: none. */
  declared?: number | null;
  /** Window log when no size is declared (default 17: a 128 KiB block fits). */
  windowLog?: number;
}

/** One frame holding `content` in raw blocks (or RLE blocks, when every byte is the same). */
function frame(content: Uint8Array, { declared = content.length, windowLog = 17 }: FrameOptions = {}): Uint8Array {
  const out: number[] = [...MAGIC];
  if (declared === null) {
    out.push(0x00, (windowLog - 10) << 3); // no size, not single segment, window descriptor
  } else {
    out.push(0xe0); // 8-byte size, single segment
    const size = new DataView(new ArrayBuffer(8));
    size.setBigUint64(0, BigInt(declared), true);
    out.push(...new Uint8Array(size.buffer));
  }
  const rle = content.length > 0 && content.every((b) => b === content[0]);
  const step = 128 << 10;
  if (content.length === 0) out.push(...blockHeader(true, 0, 0));
  for (let at = 0; at < content.length; at += step) {
    const block = content.subarray(at, at + step);
    const last = at + step >= content.length;
    if (rle) out.push(...blockHeader(last, 1, block.length), block[0]!);
    else out.push(...blockHeader(last, 0, block.length), ...block);
  }
  return Uint8Array.from(out);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Text rows of one metric (raw timestamps): `count` points whose values are `value`. */
function rows(count: number, value: string): Uint8Array {
  const text = new TextEncoder().encode(value);
  const out = new Uint8Array(count * (9 + 1 + text.length));
  const view = new DataView(out.buffer);
  for (let i = 0, at = 0; i < count; i++) {
    out[at] = 8;
    view.setBigInt64(at + 1, 1_700_000_000_000n + BigInt(i), true);
    out[at + 9] = text.length;
    out.set(text, at + 10);
    at += 10 + text.length;
  }
  return out;
}

/**
 * A text blob of one metric whose data payload is `payload`, zstd, `size`
 * bytes decompressed; `count` points (by default as many as a payload of that
 * size can hold rows of ten bytes, so that the blob's own checks pass).
 */
function textBlob(payload: Uint8Array, size: number, count = Math.max(1, Math.floor(size / 10))): Uint8Array {
  const out = new Uint8Array(48 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xeb10, true); // magic, little endian, no tags, no names
  out[2] = 1; // raw timestamps
  out[3] = 2; // zstd
  view.setBigInt64(4, 1_700_000_000_000n, true);
  view.setUint32(12, 1, true);
  view.setUint32(16, 32, true);
  view.setUint32(20, 48, true);
  view.setUint32(24, size, true);
  view.setBigUint64(32, 7n, true); // metric id
  view.setUint16(40, count, true);
  out.set(payload, 48);
  return out;
}

/** What decoding a text blob comes to: its values, or its error's code and message. */
function outcome(sdk: Full | Decode, bytes: Uint8Array): { values: string[] } | { code: string; message: string } {
  try {
    using blob = sdk.TextBlob.from(bytes);
    return { values: blob.metric(7n).values };
  } catch (error) {
    const e = error as InstanceType<Full['MeboError']>;
    return { code: e.code, message: e.message };
  }
}

/** What the part answers for a frame: its output, or the `[code, number, detail]` it throws. */
function part(data: Uint8Array, cap: number): Uint8Array | [string, number, string] {
  try {
    return zstdDecompress(data, cap);
  } catch (thrown) {
    return thrown as [string, number, string];
  }
}

let full: Full;
let light: Decode;

beforeAll(async () => {
  await installZstdPart(await WebAssembly.compile(readFileSync(join(PACKAGE_ROOT, 'wasm', 'mebo_zstd.wasm'))));
  vi.resetModules();
  full = (await import('../src/entries/index.js')) as Full;
  await full.init();
  vi.resetModules();
  light = (await import(/* @vite-ignore */ pathToFileURL(join(PACKAGE_ROOT, 'dist', 'decode.js')).href)) as Decode;
  await light.init({ parts: 'core' });
  // The light core loads the part the first time a blob needs it.
  const zstd = manifest().find((c) => c.kind === 'text' && c.options.dataCompression === 'zstd')!;
  (await light.TextBlob.load(readBlob(zstd))).free();
}, 120_000);

const content = rows(300, 'value');

describe('the zstd part decodes', () => {
  const frames: [string, Uint8Array, Uint8Array][] = [
    ['a frame declaring its size', frame(content), content],
    ['a frame without a declared size', frame(content, { declared: null }), content],
    ['several frames back to back', concat(frame(content.subarray(0, 1000)), frame(content.subarray(1000), { declared: null })), content],
    ['an empty frame', frame(new Uint8Array(0)), new Uint8Array(0)],
    ['a frame of 300 KiB in three RLE blocks', frame(new Uint8Array(300 << 10).fill(7)), new Uint8Array(300 << 10).fill(7)],
    ['a frame after a skippable frame', concat(Uint8Array.from([0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 1, 2]), frame(content)), content],
  ];

  it.each(frames)('%s: its content, as the full build', (_, data, expected) => {
    expect(part(data, 1 << 20)).toEqual(expected);
  });

  it('every zstd payload of the vectors to its declared size, and the blob as the full build decodes it', () => {
    let seen = 0;
    for (const c of manifest().filter((c) => c.kind === 'text' && c.options.dataCompression === 'zstd')) {
      const bytes = readBlob(c);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const little = (bytes[0]! & 2) === 0;
      const size = view.getUint32(24, little);
      const out = part(bytes.subarray(view.getUint32(20, little)), size);
      expect(out, c.name).toBeInstanceOf(Uint8Array);
      expect((out as Uint8Array).length, c.name).toBe(size);
      using a = full.TextBlob.from(bytes);
      using b = light.TextBlob.from(bytes);
      for (const id of a.metricIds) expect(b.metric(id).values, c.name).toEqual(a.metric(id).values);
      seen++;
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('frames inside text blobs as the full build does (values)', () => {
    for (const [name, data, expected] of frames) {
      if (expected.length !== content.length) continue;
      const blob = textBlob(data, content.length, 300);
      const a = outcome(full, blob);
      expect(a, name).toHaveProperty('values');
      expect(outcome(light, blob), name).toEqual(a);
    }
  });

  it('releases what each call took: 600 outputs of 8 MiB (4.7 GiB together) one after another', () => {
    const size = 8 << 20;
    const data = frame(new Uint8Array(size).fill(5));
    expect(data.length).toBeLessThan(300);
    for (let i = 0; i < 600; i++) {
      const out = part(data, size);
      expect(out instanceof Uint8Array && out.length === size && out[size - 1] === 5, `call ${i}`).toBe(true);
    }
  });
});

describe('the zstd part refuses, as the full build does', () => {
  const big = new Uint8Array(1000).fill(1);
  // [what, frame, cap for the part, the blob's decompressed size (0: no blob
  // brings this frame to a decoder), code, number]
  const hostile: [string, Uint8Array, number, number, string, number][] = [
    ['a declared size past the cap', frame(content), content.length - 1, content.length - 1, 'SIZE_CAP', content.length],
    ['a declared size past the ratio ceiling', frame(new Uint8Array(10), { declared: 256 << 20 }), 512 << 20, 0, 'DECOMPRESS', 0],
    ['a truncated frame', frame(content).subarray(0, 2000), content.length, content.length, 'DECOMPRESS', 0],
    ['a truncated frame without a declared size', frame(content, { declared: null }).subarray(0, 2000), content.length, content.length, 'DECOMPRESS', 0],
    ['garbage', new TextEncoder().encode('not a zstd frame at all'), 1000, 1000, 'DECOMPRESS', 0],
    ['empty input', new Uint8Array(0), 1000, 0, 'DECOMPRESS', 0],
    ['a window past what the cap can use', frame(new Uint8Array(20), { declared: null, windowLog: 26 }), 4096, 20, 'DECOMPRESS', 0],
    ['output past the cap while streaming', frame(big, { declared: null }), 500, 500, 'SIZE_CAP', 1000],
    // Streamed in chunks of 64 KiB: the second one passes the cap.
    ['output past the cap after a chunk', frame(new Uint8Array(300 << 10).fill(2), { declared: null }), 100 << 10, 100 << 10, 'SIZE_CAP', 128 << 10],
    ['trailing garbage after a frame', concat(frame(content), Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), content.length, content.length, 'DECOMPRESS', 0],
  ];

  it.each(hostile)('%s', (name, data, cap, size, code, number) => {
    const thrown = part(data, cap);
    expect(Array.isArray(thrown), name).toBe(true);
    const [c, n, detail] = thrown as [string, number, string];
    expect([c, n], name).toEqual([code, number]);
    if (code === 'DECOMPRESS') expect(detail.length, name).toBeGreaterThan(0);
    if (size === 0) return;
    const blob = textBlob(data, size);
    const a = outcome(full, blob);
    expect(a, name).toHaveProperty('code', code);
    const b = outcome(light, blob);
    expect(b, name).toHaveProperty('code', code);
    if (code !== 'DECOMPRESS') expect((b as { message: string }).message, name).toBe((a as { message: string }).message);
  });

  it('a payload its memory cannot take is OUT_OF_MEMORY with its length, not a trap', () => {
    // 2 GiB (not touched, so not resident): more than a wasm32 allocation may be.
    expect(part(new Uint8Array(2 ** 31), 1 << 20)).toEqual(['OUT_OF_MEMORY', 2 ** 31, '']);
    expect(part(frame(content), 1 << 20)).toEqual(content);
  });

  it('names the check that failed and where in the payload: the frame, block or section it read', () => {
    // frame(): a 13-byte header (magic, descriptor, 8-byte size), then blocks.
    const whole = frame(content);
    const cases: [Uint8Array, string][] = [
      [whole.subarray(0, 2000), 'truncated raw block at byte 13'],
      [concat(whole, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), `unknown frame magic number at byte ${whole.length}`],
      // The second of two frames, cut inside its RLE block (after its header of 13 and the block's 3 bytes).
      [concat(whole, frame(new Uint8Array(50).fill(3)).subarray(0, 16)), `truncated RLE block at byte ${whole.length + 13}`],
      [new TextEncoder().encode('not a zstd frame at all'), 'unknown frame magic number at byte 0'],
    ];
    for (const [data, detail] of cases) {
      expect(part(data, content.length + 100), detail).toEqual(['DECOMPRESS', 0, detail]);
      // The light core's error carries the part's detail.
      const b = outcome(light, textBlob(data, content.length));
      expect(b, detail).toHaveProperty('code', 'DECOMPRESS');
      expect((b as { message: string }).message, detail).toContain(`: ${detail}`);
    }
  });

  it('the part keeps working after each refusal', () => {
    for (const [, data, cap] of hostile) part(data, cap);
    expect(part(frame(content), 1 << 20)).toEqual(content);
  });

});
