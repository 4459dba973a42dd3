// mebo: read and write mebo time-series blobs through WebAssembly.
//
//   await init();                        // once (Node, Deno, browsers); edge: init({ wasm })
//   using blob = NumericBlob.from(bytes);
//   const { timestamps, values } = blob.metric('cpu.user');
//
// `mebo/decode` (./decode.ts) is the same without the encoders.

/** @module index */

export * from '../read.js';
export { NumericEncoder, encodeNumeric } from '../numeric-encoder.js';
export type { NumericEncodeOptions, NumericMetricInput } from '../numeric-encoder.js';
export { frameBlobs } from '../stream-format.js';
export { TextBlobEncoder, encodeText } from '../text-encoder.js';
export type { TextEncodeOptions, TextMetricInput } from '../text-encoder.js';
