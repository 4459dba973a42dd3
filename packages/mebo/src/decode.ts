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
export { TextBlob, dictionaryColumns } from './text.js';
export type { TextBlobOptions, TextSections, TextColumns, TextMetric, TextTimestampEncoding } from './text.js';
export { metricId } from './hash.js';
export { NumericBlobSet, TextBlobSet } from './blobSet.js';
export type { MaterializedMetric } from './blobSet.js';
export { blobKind } from './kind.js';
export { alignedSeries } from './series.js';
export type { Decimated, DecimateOptions, SeriesSource, TimeBound } from './series.js';
export type { BlobKind } from './kind.js';
