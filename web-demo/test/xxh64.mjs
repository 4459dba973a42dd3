// xxHash64 (seed 0) of a string's UTF-8 bytes, written plainly with BigInt
// from the algorithm's description: the tests' own way to a metric's id,
// independent of the SDK's (wasm) one.

const MASK = (1n << 64n) - 1n;
const P1 = 11400714785074694791n;
const P2 = 14029467366897019727n;
const P3 = 1609587929392839161n;
const P4 = 9650029242287828579n;
const P5 = 2870177450012600261n;

const rotl = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & MASK;
const mul = (a, b) => (a * b) & MASK;
const add = (a, b) => (a + b) & MASK;
const round = (acc, lane) => mul(rotl(add(acc, mul(lane, P2)), 31), P1);
const merge = (h, v) => add(mul(h ^ round(0n, v), P1), P4);

function le(bytes, at, n) {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]);
  return v;
}

export function xxh64(text) {
  const bytes = new TextEncoder().encode(text);
  const len = bytes.length;
  let at = 0;
  let h;
  if (len >= 32) {
    let v = [add(P1, P2), P2, 0n, (0n - P1) & MASK];
    for (; at + 32 <= len; at += 32) v = v.map((acc, k) => round(acc, le(bytes, at + 8 * k, 8)));
    h = add(add(rotl(v[0], 1), rotl(v[1], 7)), add(rotl(v[2], 12), rotl(v[3], 18)));
    for (const x of v) h = merge(h, x);
  } else {
    h = P5;
  }
  h = add(h, BigInt(len));
  for (; at + 8 <= len; at += 8) h = add(mul(rotl(h ^ round(0n, le(bytes, at, 8)), 27), P1), P4);
  if (at + 4 <= len) {
    h = add(mul(rotl(h ^ mul(le(bytes, at, 4), P1), 23), P2), P3);
    at += 4;
  }
  for (; at < len; at++) h = mul(rotl(h ^ mul(BigInt(bytes[at]), P5), 11), P1);
  h ^= h >> 33n;
  h = mul(h, P2);
  h ^= h >> 29n;
  h = mul(h, P3);
  h ^= h >> 32n;
  return h;
}

/** A hash as the 16 hex digits the vectors and the page use. */
export const xxh64Hex = (text) => xxh64(text).toString(16).padStart(16, '0');
