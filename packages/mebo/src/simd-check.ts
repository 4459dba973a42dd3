// The simd build's self-check: some engines validate simd128 and still
// compute it wrongly (an old Safari bug). After `init()` picks the simd build
// it decodes three small blobs that go through the code simd128 changes (the
// XOR codecs' byte swaps, deltapacked timestamps, zstd, s2 and lz4, both byte
// orders), written by the scalar build, and compares every point with the
// series they hold by bits (the light core the two without zstd). On a
// mismatch `init()` loads the scalar build.

import { NumericBlob } from './numeric.js';
import { hasParts } from './parts.js';

const BLOBS = [
  // deltapacked-zstd-gorilla-zstd, little endian
  'EOo1IgBAHhgkCgYAAQAAACAAAAAwAAAAZgAAAL8BAAABAAAAAAAAACgAAAAAAAAAKLUv/QAAbQEABAKAgPnAwcSCA4iJegAAFRYVABYAFQAVFhUAFgAVFgAAFQQAYADdwC073Lo6KLUv/UAATgBxCgAAAAAAAAAAAMPsCEIr3SznUfAArvJN7HNqOD3Ajs2ZDAlDvwf4Dp757tE2TLQACKo7el2NvAH9qCZupmNjAALNAu7nlD5AAaPXnAruPNQFkhPO2ZiH9YBj4LeQdPYPYEd2LEWAXy7AAIWSQ2pLsTAH9lrDoafOpQAFgHDOEkalAH7SnTT6zGjAALz/YvsIRDIEdEtf6hcdFYCD34AFzqVTAGKIJ27OaszAAX7qoEbeZ/AALFES/rICHAHzPjqRIGlxQAJXYCYprRHIDvZkkMsLWvIEcyAQeT02rAAZUVcj2Sh3QGQVWZ5NMnJAGfG1+4Qsp9AAUkSnOJGyFAAKwD5MEW9XYEUhn1+1WW7IDxMcgn+C/NAHmgTdSnjJVAALyDkabUX3AAY134eNzi5QGndRpv5m7lAGodgBl928pYELrKJ7LWEbYEUAz8Usdf6A',
  // delta-s2-chimp-lz4, big endian
  'EupCQwAGCiQYHkAAAAAAAQAAACAAAAAwAAAARwAAAYAAAAAAAAAAAQAoAAAAAAAAMTSAgPnAwcSCA4iJegAVFgkDBQVeCwATAAEA8P8kwgQhFe6Wc6j2q7yTexzaixgR2bMhgSh3lgOnvnu0TZMtAAIqjt6XY2+f7UEzdTMbHSzQLu55Q+Wj15wK7jzYgLJCedszEP6wDHwW8g6ewewI7sWIsAvl3SFkkNqS7E5/stYdDT51MQAFgHDOEkaln9pTpp9ZjR0vP9i+whEOECOiWv9QuOisBB78AC51KpziiCduzmrM6v3VQI28z+WKIl/WQEPPzPjqRIGlxiABK7ATFNaI5Ad7Mkhlha15AjmQCDyem1dZUVcj2Sh3iAyCqzPJpk5M58bX7hCyn2qSJTnEjZClYB8mCLerxgRSGfX7VZbsgPExyCf4L82fNAm6lPGSrS8g5Gm1F92Nd+Hjc4uYgNO6jTfzN3LOodgBl928pjAhdZRPZawjbAigGfiljr/Q',
  // deltapacked-lz4-gorilla-none, little endian: what the light core checks
  // without its zstd part (with the blob above)
  'EOo1FABAHhgkCgYAAQAAACAAAAAwAAAAXwAAAK0BAAABAAAAAAAAACgAAAAAAAAA8QCAgPnAwcSCA4iJegAAFRYEADYVABYKAAAVAAIUAAAKAMAAFRYVABYAFRYAABUAAAAAAAAAAMPsCEIr3SznUfAArvJN7HNqOD3Ajs2ZDAlDvwf4Dp757tE2TLQACKo7el2NvAH9qCZupmNjAALNAu7nlD5AAaPXnAruPNQFkhPO2ZiH9YBj4LeQdPYPYEd2LEWAXy7AAIWSQ2pLsTAH9lrDoafOpQAFgHDOEkalAH7SnTT6zGjAALz/YvsIRDIEdEtf6hcdFYCD34AFzqVTAGKIJ27OaszAAX7qoEbeZ/AALFES/rICHAHzPjqRIGlxQAJXYCYprRHIDvZkkMsLWvIEcyAQeT02rAAZUVcj2Sh3QGQVWZ5NMnJAGfG1+4Qsp9AAUkSnOJGyFAAKwD5MEW9XYEUhn1+1WW7IDxMcgn+C/NAHmgTdSnjJVAALyDkabUX3AAY134eNzi5QGndRpv5m7lAGodgBl928pYELrKJ7LWEbYEUAz8Usdf6A',
];

/** The series every blob holds (metric id 1): what the scalar build encoded. */
function expected(): { timestamps: BigInt64Array; values: Float64Array } {
  const n = 40;
  return {
    timestamps: BigInt64Array.from({ length: n }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 1_000_000n + BigInt((i * 37) % 11)),
    values: Float64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? -0 : Math.sin(i * 0.7) * 1000 + i / 8)),
  };
}

function base64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** @internal Undefined when the module decodes every blob it has the parts for exactly, else what differed. */
export function simdMismatch(): string | undefined {
  const want = expected();
  const wantBits = new BigUint64Array(want.values.buffer);
  for (const [b, text] of BLOBS.entries()) {
    const bytes = base64(text);
    // The light core checks the blobs it opens without a part (its zstd part
    // is a scalar build, which simd128 cannot get wrong).
    if (!hasParts(bytes)) continue;
    let got;
    try {
      const blob = NumericBlob.from(bytes);
      try {
        got = blob.metric(1n);
      } finally {
        blob.free();
      }
    } catch (error) {
      return `self-check blob ${b}: ${error instanceof Error ? error.message : String(error)}`;
    }
    const bits = new BigUint64Array(got.values.buffer, got.values.byteOffset, got.values.length);
    for (let i = 0; i < want.timestamps.length; i++) {
      if (got.timestamps[i] !== want.timestamps[i] || bits[i] !== wantBits[i]) return `self-check blob ${b}: point ${i} decoded wrongly`;
    }
    if (got.values.length !== want.values.length) return `self-check blob ${b}: ${got.values.length} points, not ${want.values.length}`;
  }
  return undefined;
}
