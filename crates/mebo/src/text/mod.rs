//! Text blobs (magic 0xEB10): per metric, points of an i64 timestamp, a string
//! value of at most 255 bytes and optionally a tag string of at most 255 bytes.
//!
//! Layout: the 32-byte header (`section/text_header.rs`), the
//! metric-names payload when the blob was written by name
//! (`section/metric_names.rs`), one 16-byte index entry per metric
//! (`section/text_index.rs`), then the data payload: every metric's
//! rows back to back, compressed as a whole. Unlike numeric blobs the data is
//! stored row by row (timestamp, lengths, value, tag per point), see `rows`.
//!
//! The modules mirror [`crate::numeric`]'s: `blob` opens and reads one metric
//! at a time, `columns` decodes every metric at once, `encoder` writes.

mod blob;
mod columns;
mod dictionary;
#[cfg(feature = "encode")]
mod encoder;
mod rows;
mod string_column;

#[cfg(feature = "encode")]
pub use crate::registry::MAX_METRICS;
pub use crate::section::text_header::{TextHeader, TextOptions};
pub use blob::{TextBlob, TextMetric, TextSections};
pub use columns::TextColumns;
pub use dictionary::{Dictionary, DictionaryColumns};
#[cfg(feature = "encode")]
pub use encoder::{TextEncoder, TextEncoderOptions, MAX_POINTS_PER_METRIC};
pub use rows::MAX_TEXT_LEN;
pub use string_column::StringColumn;
