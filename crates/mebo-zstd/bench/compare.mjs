// Decode speed of two builds of the zstd part, in one Node process: each
// zstd frame of the bench's and the vectors' blobs decoded by both modules
// in alternation (through their exports, as packages/mebo/src/zstd-part.ts
// calls them), the best of several rounds each. Prints the time per payload
// and the ratio B/A (above 1: B is slower).
//
//   node crates/mebo-zstd/bench/compare.mjs A.wasm B.wasm [rounds]

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [aPath, bPath, roundsArg] = process.argv.slice(2);
if (!aPath || !bPath) throw new Error('usage: compare.mjs A.wasm B.wasm [rounds]');
const rounds = Number(roundsArg ?? 7);
const root = new URL('../../../testdata/', import.meta.url).pathname;

async function load(path) {
  const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
  const e = instance.exports;
  return (data, cap) => {
    const at = e.input(data.length);
    new Uint8Array(e.memory.buffer, at, data.length).set(data);
    const status = e.decompress(cap);
    if (status !== 0) throw new Error(`status ${status}`);
    return new Uint8Array(e.memory.buffer, e.output_ptr(), e.output_len());
  };
}

/** The length of the zstd frame at `at` (its header, blocks and checksum), or 0. */
function frameLength(bytes, at) {
  const fhd = bytes[at + 4];
  if (fhd === undefined) return 0;
  const single = (fhd & 32) !== 0;
  let p = at + 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + [single ? 1 : 0, 2, 4, 8][fhd >> 6];
  for (;;) {
    if (p + 3 > bytes.length) return 0;
    const h = bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16);
    const type = (h >> 1) & 3;
    p += 3 + (type === 1 ? 1 : h >>> 3);
    if (type === 3 || p > bytes.length) return 0;
    if (h & 1) break;
  }
  p += fhd & 4 ? 4 : 0;
  return p <= bytes.length ? p - at : 0;
}

function frames(set) {
  const dir = join(root, set, 'blobs');
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const blob = readFileSync(join(dir, name));
    for (let at = 0; at + 4 <= blob.length; at++) {
      if (blob[at] !== 0x28 || blob[at + 1] !== 0xb5 || blob[at + 2] !== 0x2f || blob[at + 3] !== 0xfd) continue;
      const len = frameLength(blob, at);
      if (len > 0) out.push({ name: `${name}@${at}`, data: blob.subarray(at, at + len) });
    }
  }
  return out;
}

/** Best time (ms) of one decode: each round repeats it for at least 5 ms. */
function timeOne(decode, data, cap) {
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) decode(data, cap);
    const t = performance.now() - t0;
    if (t >= 5) return t / n;
    n *= 2;
  }
}

const a = await load(aPath);
const b = await load(bPath);
for (const set of ['bench', 'vectors']) {
  const ratios = [];
  let totalA = 0;
  let totalB = 0;
  for (const f of frames(set)) {
    const expected = a(f.data, 1 << 30).slice();
    const got = b(f.data, expected.length);
    if (got.length !== expected.length || got.some((v, i) => v !== expected[i])) throw new Error(`${f.name}: outputs differ`);
    let bestA = Infinity;
    let bestB = Infinity;
    for (let r = 0; r < rounds; r++) {
      bestA = Math.min(bestA, timeOne(a, f.data, expected.length));
      bestB = Math.min(bestB, timeOne(b, f.data, expected.length));
    }
    totalA += bestA;
    totalB += bestB;
    ratios.push(bestB / bestA);
    if (set === 'bench' || process.env.ALL) {
      console.log(`${f.name.padEnd(60)} ${String(f.data.length).padStart(8)} B -> ${String(expected.length).padStart(8)} B  A ${(bestA * 1000).toFixed(1).padStart(8)} µs  B ${(bestB * 1000).toFixed(1).padStart(8)} µs  B/A ${(bestB / bestA).toFixed(2)}`);
    }
  }
  ratios.sort((x, y) => x - y);
  const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
  const q = (p) => ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))].toFixed(2);
  console.log(`${set}: ${ratios.length} payloads, B/A geometric mean ${geo.toFixed(2)}, min ${q(0)}, median ${q(0.5)}, max ${q(1)}; all payloads together ${(totalB / totalA).toFixed(2)}`);
}
