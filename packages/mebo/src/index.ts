// mebo: read and write mebo time-series blobs through WebAssembly.
//
//   await init();                        // once (Node, Deno, browsers); edge: init({ wasm })
//   using blob = NumericBlob.from(bytes);
//   const { timestamps, values } = blob.metric('cpu.user');

export { init, initSync, isInitialized, memoryInfo, reset, simdSupported, wasmInfo, wasmMemoryBytes, wasmVariant } from './init.js';
export type { InitOptions, MemoryInfo, ResetOptions, WasmInfo, WasmModule, WasmSource, WasmVariant } from './init.js';
export { MEBO_ERROR_CODES, MeboError } from './errors.js';
export type { CoreErrorCode, MeboErrorCode, SdkErrorCode } from './errors.js';
export { defaultDecodeLimits } from './options.js';
export type { ByteOrder, Compression, DecodeLimits, Layout, MetricKey, TimestampEncoding, ValueEncoding } from './options.js';
export { NumericBlob, NumericEncoder, encodeNumeric } from './numeric.js';
export type { NumericBlobOptions, NumericSections, PayloadSize, NumericColumns, NumericEncodeOptions, NumericMetric, NumericMetricInput } from './numeric.js';
export { TextBlob, TextBlobEncoder, encodeText, dictionaryColumns } from './text.js';
export type { TextBlobOptions, TextSections, TextColumns, TextEncodeOptions, TextMetric, TextMetricInput, TextTimestampEncoding } from './text.js';
export { metricId } from './hash.js';
export { NumericBlobSet, TextBlobSet } from './blobSet.js';
export type { MaterializedMetric } from './blobSet.js';
export { blobKind } from './kind.js';
export { alignedSeries } from './series.js';
export type { Decimated, DecimateOptions, SeriesSource, TimeBound } from './series.js';
export type { BlobKind } from './kind.js';
