//! A numeric blob's options: what the encoder takes and what an opened
//! blob's header gives back (in decode-only builds too).

use crate::byte_order::ByteOrder;
use crate::format::{ColumnConfig, Layout, TimestampEncoding, ValueEncoding};

/// How to write a numeric blob, and how an opened one was written
/// ([`NumericBlob::options`](crate::numeric::NumericBlob::options)). Defaults
/// are the reference's documented ones: delta timestamps, Gorilla values, no
/// codecs, no tags, little endian, v1 layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NumericEncoderOptions {
    /// The four column choices: how timestamps and values are encoded, and
    /// the codec of each payload.
    pub config: ColumnConfig,
    /// Store a tag string with every point (written only when one is not empty, as the reference).
    pub tags: bool,
    /// Byte order of every field after the flag word.
    pub byte_order: ByteOrder,
    /// Index layout.
    pub layout: Layout,
}

impl NumericEncoderOptions {
    /// These options with the four column choices of `config`, such as `delta-zstd-gorilla-none`.
    pub fn with_config(self, config: ColumnConfig) -> Self {
        NumericEncoderOptions { config, ..self }
    }

    /// Most points one metric may hold. v1 offsets are 16-bit deltas, so the
    /// reference bounds a metric by its worst-case bytes per point; v2 by u32.
    pub fn max_points_per_metric(&self) -> usize {
        if self.layout != Layout::V1 {
            return i32::MAX as usize;
        }
        let ts = match self.config.timestamp_encoding {
            TimestampEncoding::Raw => 8,
            TimestampEncoding::DeltaPacked => 5,
            TimestampEncoding::Delta => 9,
        };
        let val = if self.config.value_encoding == ValueEncoding::Raw { 8 } else { 9 };
        u16::MAX as usize / ts.max(val)
    }
}
