//! # mebo
//!
//! Reader and writer for the mebo binary format: batches of time-series metrics
//! (float64 or string values, int64 microsecond timestamps, optional per-point
//! tags) keyed by the xxHash64 of the metric name. Wire-compatible with the Go
//! reference implementation, mebo v1.9.
//!
//! The tree follows the format: [`section`] holds one module per section of a
//! blob, [`encoding`] one module per column encoding, [`compress`] one module per
//! column codec; [`numeric`], [`text`] and [`blob_set`] are the blob API over them.
//! `docs/FORMAT.md` describes every byte.

// Decoding handles hostile input: no unsafe code anywhere in the crate.
#![forbid(unsafe_code)]

pub mod blob_set;
pub mod byte_order;
pub mod compress;
pub mod encoding;
pub mod error;
pub mod format;
pub mod hash;
pub mod limits;
mod lookup;
pub mod numeric;
#[doc(hidden)] // for the wasm bindings: not part of the format API
pub mod order;
mod payload;
#[cfg(feature = "encode")]
pub mod registry;
pub mod section;
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
pub use limits::DecodeLimits;
pub use section::flags::BlobKind;
