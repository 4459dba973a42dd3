//! # mebo
//!
//! Reader and writer for the mebo binary format: batches of time-series metrics
//! (float64 or string values, int64 microsecond timestamps, optional per-point
//! tags) keyed by the xxHash64 of the metric name. Wire-compatible with the Go
//! reference implementation, mebo v1.9.
//!
//! The public API is the blob API: [`numeric`] and [`text`] blobs (open, read
//! one metric or all of them, encode), [`blob_set`] for windows of blobs, their
//! [`format`](mod@format) options, one [`Error`] with stable codes, [`DecodeLimits`] and
//! [`metric_id`]; `stream` frames many blobs in one connection or file. Inside, the tree follows the format: one module per section
//! of a blob, one per column encoding, one per codec (`docs/FORMAT.md`
//! describes every byte, `ARCHITECTURE.md` the tree); those are private.

// Decoding handles hostile input: no unsafe code in the crate but the calls
// into decoders compiled for CPU features (SSSE3 in
// encoding/timestamp/delta_simd.rs, BMI2 in encoding/value/xor_stream.rs),
// each made after the CPU was checked to have them; each has a scalar twin
// and a test comparing them.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod blob_set;
mod byte_order;
mod compress;
// Each codec and section writes as well as reads; a decode-only build
// (`--no-default-features`) leaves the writing halves unused.
#[cfg_attr(not(feature = "encode"), allow(dead_code))]
mod encoding;
pub mod error;
pub mod format;
pub mod hash;
#[cfg(feature = "head")]
mod head;
pub mod limits;
mod lookup;
pub mod numeric;
mod order;
mod payload;
#[cfg(feature = "encode")]
pub mod registry;
#[cfg_attr(not(feature = "encode"), allow(dead_code))]
mod section;
#[cfg(feature = "stream")]
pub mod stream;
pub mod text;

// Lets the shared test helpers in tests/common name the crate as `mebo`.
extern crate self as mebo;

#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod test_support;

pub use byte_order::ByteOrder;
pub use error::{Error, Result};
pub use format::{ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};
pub use hash::metric_id;
#[cfg(feature = "head")]
pub use head::BlobHead;
pub use limits::DecodeLimits;
pub use section::flags::{uses_compression, BlobKind, HEADER_SIZE};

/// The repository README's Rust example, compiled and run as a doctest
/// (`cargo test --doc -p mebo`).
#[cfg(all(doctest, feature = "encode"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExample;

/// The crate README's example (crates.io's page), compiled and run likewise.
#[cfg(all(doctest, feature = "encode"))]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeExample;

/// What the fuzz targets, the wasm bindings and the tests use of the crate's
/// internals: not part of the API, and it may change in any release.
#[doc(hidden)]
pub mod internals {
    #[cfg(feature = "encode")]
    pub use crate::compress::compress;
    pub use crate::compress::{decompress, decompress_expecting};
    #[cfg(all(feature = "zstd-extern", not(feature = "zstd")))]
    pub use crate::compress::{set_zstd_decoder, ZstdDecoder, ZstdFailure};
    pub use crate::encoding::timestamp::{DeltaKernel, DeltaPackedTimestamps, DeltaTimestamps, PackedKernel};
    pub use crate::encoding::value::{allow_xor_bmi2, ChimpValues, GorillaValues};
    pub use crate::encoding::{
        decode_timestamps, decode_timestamps_within, decode_values, decode_values_four, decode_values_two, decode_values_within,
    };
    #[cfg(feature = "encode")]
    pub use crate::encoding::{encode_timestamps, encode_values};
}
