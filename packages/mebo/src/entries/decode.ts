// mebo/decode: the read side of mebo alone, on builds of the module without
// the encoders (smaller to download and compile). The same API as `mebo` for
// everything it has: init, blobs, blob sets, ranges, decimation, errors.
//
//   import { init, NumericBlob } from 'mebo/decode';
//   await init();
//   using blob = NumericBlob.from(bytes);
//
// This file is bundled into dist/decode.js with the decode-only glue and
// builds (wasm/mebo_decode.js, wasm/mebo_decode_{simd,scalar}.wasm; see
// build-sdk.mjs); it is a module of its own, with its own init().

/** @module decode */

export * from '../read.js';
