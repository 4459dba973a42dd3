//! Numeric blobs: float64 values with int64 microsecond timestamps.

mod blob;
mod columns;
#[cfg(feature = "encode")]
mod encoder;

pub use blob::{NumericBlob, NumericMetric, NumericOptions};
pub use columns::NumericColumns;
#[cfg(feature = "encode")]
pub use encoder::{NumericEncoder, NumericEncoderOptions};
