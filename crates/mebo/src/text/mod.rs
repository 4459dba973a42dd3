//! Text blobs (magic 0xEB10): per metric, points of an i64 timestamp, a string
//! value of at most 255 bytes and optionally a tag string of at most 255 bytes.
//!
//! Layout: 32-byte [`header`], the metric-names payload when the blob was
//! written by name ([`crate::section::metric_names`]), one 16-byte [`index`]
//! entry per metric, then the data payload: every metric's rows back to back,
//! compressed as a whole. Unlike numeric blobs the data is stored row by row
//! (timestamp, lengths, value, tag per point), see `rows`.

pub mod blob;
pub mod dictionary;
#[cfg(feature = "encode")]
pub mod encoder;
pub mod header;
pub mod index;
mod rows;

pub use blob::{StringColumn, TextBlob, TextColumns, TextMetric};
pub use dictionary::{Dictionary, DictionaryColumns};
#[cfg(feature = "encode")]
pub use encoder::{TextEncoder, TextEncoderOptions, MAX_METRICS, MAX_POINTS_PER_METRIC};
pub use header::{TextHeader, TextOptions};
pub use rows::MAX_TEXT_LEN;

#[cfg(all(test, feature = "encode"))]
mod tests;
