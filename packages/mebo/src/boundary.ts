// The types of what crosses the wasm boundary (options, sections, columns,
// series, joined strings), declared once in Rust beside the code that builds
// or reads each: the `typescript_custom_section`s of crates/mebo-wasm
// (js.rs, lib.rs, numeric.rs, text.rs), which wasm-bindgen writes into the
// glue's .d.ts, where the bindings' methods are typed with them. These are
// the read side's, declared by both builds' glue (mebo_wasm.d.ts and the
// decode-only mebo_decode.d.ts); the encoders' are in boundary-encode.ts.
//
// The published types do not reach into the glue: build-sdk.mjs writes the
// declarations themselves into dist/boundary.d.ts in place of this re-export.

export type {
  BlobKind,
  ByteOrder,
  Compression,
  DecodeLimits,
  JoinedStrings,
  Layout,
  NumericBlobOptions,
  NumericColumns,
  NumericSections,
  PayloadSize,
  RawSeries,
  RawTextColumns,
  TextBlobOptions,
  TextSections,
  TextTimestampEncoding,
  TimestampEncoding,
  ValueEncoding,
} from '../wasm/mebo_wasm.js';
