//! The 32-byte header of a text blob (magic 0xEB10).
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | flags, always little endian: magic `0xEB1` in bits 4..16, bit 0 tags, bit 1 big endian, bit 2 metric names, bit 3 reserved (zero) |
//! | 2 | timestamp encoding code (1 raw, 2 delta) |
//! | 3 | data payload codec code (1 none, 2 zstd, 3 s2, 4 lz4) |
//! | 4..12 | start time, i64 |
//! | 12..16 | metric count, u32 |
//! | 16..20 | index offset, u32 (32 + length of the metric-names payload) |
//! | 20..24 | data offset, u32 (index offset + 16 x metric count) |
//! | 24..28 | data size, u32: the data payload's length before compression |
//! | 28..32 | reserved (written as zero, not checked when reading, as the reference) |

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::format::{Compression, TimestampEncoding};
use crate::section::flags::{self, FLAG_BIG_ENDIAN, FLAG_METRIC_NAMES, FLAG_TAGS, HEADER_SIZE, MAGIC_MASK, MAGIC_TEXT_V1};

/// Flag bit 3, the numeric blobs' shared-timestamp bit, is reserved in text blobs.
const RESERVED_BIT: u16 = flags::FLAG_SHARED_TIMESTAMPS;

/// The options a text blob's header records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextOptions {
    /// `Raw` or `Delta` (text blobs have no delta-packed form).
    pub timestamp_encoding: TimestampEncoding,
    /// Codec of the data payload as a whole.
    pub data_compression: Compression,
    /// Every point carries a tag string.
    pub tags: bool,
    /// Byte order of every field after the flag word (flag bit 1).
    pub byte_order: ByteOrder,
    /// The metric-names payload follows the header.
    pub metric_names: bool,
}

/// A parsed text header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextHeader {
    /// The options the header records.
    pub options: TextOptions,
    /// Start time of the blob: the base of every metric's first delta.
    pub start_time: i64,
    /// Number of metrics.
    pub metric_count: u32,
    /// Where the index starts: 32, or 32 plus the names payload.
    pub index_offset: u32,
    /// Where the data payload starts: the end of the index.
    pub data_offset: u32,
    /// The data payload's length before compression.
    pub data_size: u32,
}

impl TextHeader {
    /// Parse the header at the start of `blob`.
    pub(crate) fn parse(blob: &[u8]) -> Result<TextHeader> {
        let Some(head) = blob.get(..HEADER_SIZE) else {
            return Err(Error::Truncated { what: "text header", needed: HEADER_SIZE, available: blob.len() });
        };
        let flags = u16::from_le_bytes([head[0], head[1]]);
        if flags & MAGIC_MASK != MAGIC_TEXT_V1 {
            return Err(Error::BadMagic { found: flags & MAGIC_MASK });
        }
        if flags & RESERVED_BIT != 0 {
            return Err(Error::InvalidHeader { detail: format!("reserved flag bit 0x8 is set (flags 0x{flags:04X})") });
        }
        let timestamp_encoding = match TimestampEncoding::from_code(head[2])? {
            TimestampEncoding::DeltaPacked => {
                return Err(Error::UnknownEncoding { column: "text timestamp", code: head[2] });
            }
            other => other,
        };
        let data_compression = Compression::from_code(head[3], "text data")?;
        let order = flags::byte_order(flags);
        let u32_at = |pos: usize| order.read_u32(head, pos, "text header");
        Ok(TextHeader {
            options: TextOptions {
                timestamp_encoding,
                data_compression,
                tags: flags & FLAG_TAGS != 0,
                byte_order: order,
                metric_names: flags & FLAG_METRIC_NAMES != 0,
            },
            start_time: order.read_u64(head, 4, "text header")? as i64,
            metric_count: u32_at(12)?,
            index_offset: u32_at(16)?,
            data_offset: u32_at(20)?,
            data_size: u32_at(24)?,
        })
    }

    /// The flag word: the magic, then the tags, byte order and names bits.
    pub(crate) fn flags(&self) -> u16 {
        let o = &self.options;
        flags::compose(
            MAGIC_TEXT_V1,
            &[(o.tags, FLAG_TAGS), (o.byte_order == ByteOrder::Big, FLAG_BIG_ENDIAN), (o.metric_names, FLAG_METRIC_NAMES)],
        )
    }

    /// Append the 32 header bytes to `out`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let o = &self.options;
        let order = o.byte_order;
        out.extend_from_slice(&self.flags().to_le_bytes());
        out.push(o.timestamp_encoding.code());
        out.push(o.data_compression.code());
        out.extend_from_slice(&order.u64_bytes(self.start_time as u64));
        out.extend_from_slice(&order.u32_bytes(self.metric_count));
        out.extend_from_slice(&order.u32_bytes(self.index_offset));
        out.extend_from_slice(&order.u32_bytes(self.data_offset));
        out.extend_from_slice(&order.u32_bytes(self.data_size));
        out.extend_from_slice(&[0; 4]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(order: ByteOrder) -> TextHeader {
        TextHeader {
            options: TextOptions {
                timestamp_encoding: TimestampEncoding::Delta,
                data_compression: Compression::S2,
                tags: true,
                byte_order: order,
                metric_names: true,
            },
            start_time: -1_700_000_000_000_000,
            metric_count: 3,
            index_offset: 40,
            data_offset: 88,
            data_size: 1234,
        }
    }

    #[test]
    fn round_trips() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = Vec::new();
            sample(order).write(&mut out);
            assert_eq!(out.len(), HEADER_SIZE);
            assert_eq!(TextHeader::parse(&out).unwrap(), sample(order));
        }
        let mut out = Vec::new();
        sample(ByteOrder::Big).write(&mut out);
        assert_eq!(&out[..4], &[0x17, 0xEB, 0x02, 0x03]);
    }

    #[test]
    fn rejects_bad_headers() {
        let mut good = Vec::new();
        sample(ByteOrder::Little).write(&mut good);
        assert!(matches!(TextHeader::parse(&good[..31]), Err(Error::Truncated { .. })));
        let with = |i: usize, b: u8| {
            let mut h = good.clone();
            h[i] = b;
            TextHeader::parse(&h)
        };
        assert!(matches!(with(1, 0xEA), Err(Error::BadMagic { found: 0xEA10 })));
        assert!(matches!(with(0, 0x1D), Err(Error::InvalidHeader { .. })));
        assert!(matches!(with(2, 5), Err(Error::UnknownEncoding { code: 5, .. })));
        assert!(matches!(with(2, 3), Err(Error::UnknownEncoding { code: 3, .. })));
        assert!(matches!(with(3, 0), Err(Error::UnknownCompression { code: 0, .. })));
        assert!(matches!(with(3, 5), Err(Error::UnknownCompression { code: 5, .. })));
        assert!(with(30, 0xFF).is_ok(), "reserved bytes are not checked");
    }
}
