//! Numeric blobs (magics 0xEA10, 0xEA20, 0xEA30): float64 values with int64
//! microsecond timestamps and optionally a tag string per point.
//!
//! Layout: the 32-byte header (`section/numeric_header.rs`), the
//! metric-names payload on a hash collision (`section/metric_names.rs`),
//! one 16- or 32-byte index entry per metric (`section/numeric_index.rs`),
//! the shared-timestamp table (v2-shared, `section/shared_timestamps.rs`),
//! then the timestamp, value and tag payloads: every metric's column of each
//! kind back to back, each payload compressed as a whole.
//!
//! The modules mirror [`crate::text`]'s: `blob` opens and reads one metric at a
//! time, `columns` decodes every metric at once, `encoder` writes, `options`
//! says how a blob is (to be) written.

#[cfg(feature = "encode")]
pub mod auto;
mod blob;
mod columns;
#[cfg(feature = "encode")]
mod encoder;
mod options;

#[cfg(feature = "encode")]
pub use crate::registry::MAX_METRICS;
pub use crate::section::numeric_header::{IndexKind, NumericHeader};
#[cfg(feature = "encode")]
pub use auto::{AutoEncoder, Prefer};
pub use blob::{NumericBlob, NumericMetric, NumericSections};
pub use columns::{NumericColumns, StoredColumns};
#[cfg(feature = "encode")]
pub use encoder::NumericEncoder;
pub use options::NumericEncoderOptions;
