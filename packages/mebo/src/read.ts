// The read side of the SDK, the API `mebo` and `mebo/decode` share: init,
// blobs, blob sets, ranges, decimation, errors, reading streams of blobs.
// Listed once here; entries/index.ts adds the encoders (and frameBlobs),
// entries/decode.ts is this alone (bundled with the decode-only builds, see
// build-sdk.mjs).

export { init, initSync, isInitialized, memoryInfo, reset, simdSupported, wasmInfo, wasmMemoryBytes, wasmVariant } from './init.js';
export { DEFAULT_MAX_MEMORY_BYTES, setMaxMemoryBytes } from './module.js';
export type { InitOptions, MemoryInfo, ResetOptions, WasmInfo, WasmModule, WasmSource, WasmVariant } from './init.js';
export { MEBO_ERROR_CODES, MeboError } from './errors.js';
/** @internal For `mebo/worker` and the `node` entries. */
export { loadedModule, setServerWasm } from './init.js';
export type { CoreErrorCode, MeboErrorCode, SdkErrorCode } from './errors.js';
export { defaultDecodeLimits } from './options.js';
export type { ByteOrder, Compression, DecodeLimits, Layout, MetricKey, TimestampEncoding, ValueEncoding } from './options.js';
export { NumericBlob } from './numeric.js';
export type { NumericBlobOptions, NumericSections, PayloadSize, NumericColumns, NumericMetric } from './numeric.js';
export { TextBlob, dictionaryColumns } from './text.js';
export type { TextBlobOptions, TextSections, TextColumns, TextMetric, TextTimestampEncoding } from './text.js';
export { metricId } from './hash.js';
export { NumericBlobSet, TextBlobSet } from './blob-set.js';
export type { MaterializedMetric } from './blob-set.js';
export { blobKind } from './kind.js';
export { alignedSeries } from './series.js';
export type { Decimated, DecimateOptions, SeriesSource, TimeBound } from './series.js';
export type { BlobKind } from './kind.js';
export { decodeStream } from './stream-decode.js';
export type { DecodeStreamOptions } from './stream-decode.js';
export { isBlobStream } from './stream-format.js';
export { splitStream } from './stream-read.js';
/** @internal For `mebo/worker`: the framing reader decodeStream uses. */
export { frameError, streamFrames } from './stream-read.js';
export type { FrameOptions, StreamSource } from './stream-read.js';
