// The encoders' options as the wasm constructors take them, declared in Rust
// beside the code that reads them (crates/mebo-wasm numeric.rs and text.rs,
// only in builds with the encoders): see boundary.ts. build-sdk.mjs writes
// their declarations into dist/boundary-encode.d.ts.

export type { CodedStrings, NumericEncodeOptions, TextEncodeOptions } from '../wasm/mebo_wasm.js';
