// mebo: read and write mebo time-series blobs through WebAssembly.
//
//   await init();                        // once (Node, Deno, browsers); edge: init({ wasm })
//   using blob = NumericBlob.from(bytes);
//   const { timestamps, values } = blob.metric('cpu.user');
//
// `mebo/decode` (./decode.ts) is the same without the encoders.

export {
  DEFAULT_MAX_MEMORY_BYTES,
  init,
  initSync,
  isInitialized,
  memoryInfo,
  reset,
  setMaxMemoryBytes,
  simdSupported,
  wasmInfo,
  wasmMemoryBytes,
  wasmVariant,
} from './init.js';
export type { InitOptions, MemoryInfo, ResetOptions, WasmInfo, WasmModule, WasmSource, WasmVariant } from './init.js';
export { MEBO_ERROR_CODES, MeboError } from './errors.js';
export type { CoreErrorCode, MeboErrorCode, SdkErrorCode } from './errors.js';
export { defaultDecodeLimits } from './options.js';
export type { ByteOrder, Compression, DecodeLimits, Layout, MetricKey, TimestampEncoding, ValueEncoding } from './options.js';
export { NumericBlob } from './numeric.js';
export type { NumericBlobOptions, NumericSections, PayloadSize, NumericColumns, NumericMetric } from './numeric.js';
export { NumericEncoder, encodeNumeric } from './numeric-encoder.js';
export type { NumericEncodeOptions, NumericMetricInput } from './numeric-encoder.js';
export { TextBlob, dictionaryColumns } from './text.js';
export type { TextBlobOptions, TextSections, TextColumns, TextMetric, TextTimestampEncoding } from './text.js';
export { TextBlobEncoder, encodeText } from './text-encoder.js';
export type { TextEncodeOptions, TextMetricInput } from './text-encoder.js';
export { metricId } from './hash.js';
export { NumericBlobSet, TextBlobSet } from './blobSet.js';
export type { MaterializedMetric } from './blobSet.js';
export { blobKind } from './kind.js';
export { alignedSeries } from './series.js';
export type { Decimated, DecimateOptions, SeriesSource, TimeBound } from './series.js';
export type { BlobKind } from './kind.js';
