//! The 32-byte numeric blob header.
//!
//! ```text
//! 0..2   flags, always little endian: bits 4-15 magic, bit 0 tags,
//!        bit 1 big endian, bit 2 metric-names payload, bit 3 shared timestamps
//! 2      encodings: low nibble timestamps, high nibble values
//! 3      codecs: low nibble timestamps, high nibble values
//! 4..12  start time (i64 microseconds)     } in the blob's
//! 12..16 metric count                       } byte order
//! 16..20 index offset
//! 20..24 timestamp payload offset
//! 24..28 value payload offset
//! 28..32 tag payload offset
//! ```

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::format::{ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};
use crate::section::flags::{
    self, read_flags, FLAG_BIG_ENDIAN, FLAG_METRIC_NAMES, FLAG_SHARED_TIMESTAMPS, FLAG_TAGS, HEADER_SIZE, MAGIC_MASK, MAGIC_NUMERIC_V1,
    MAGIC_NUMERIC_V2, MAGIC_NUMERIC_V2_EXT,
};

/// Which numeric index layout a magic selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// 0xEA10: insertion order, 16-byte entries.
    V1,
    /// 0xEA20: sorted by id, 16-byte entries.
    V2Compact,
    /// 0xEA30: sorted by id, 32-byte entries.
    V2Extended,
}

impl IndexKind {
    /// Bytes of one index entry.
    pub fn entry_size(self) -> usize {
        match self {
            IndexKind::V1 | IndexKind::V2Compact => 16,
            IndexKind::V2Extended => 32,
        }
    }
    /// The magic that selects this layout.
    pub(crate) fn magic(self) -> u16 {
        match self {
            IndexKind::V1 => MAGIC_NUMERIC_V1,
            IndexKind::V2Compact => MAGIC_NUMERIC_V2,
            IndexKind::V2Extended => MAGIC_NUMERIC_V2_EXT,
        }
    }
    /// True when the index is sorted by id (v2).
    pub fn is_sorted(self) -> bool {
        self != IndexKind::V1
    }
}

/// A parsed numeric header; every field validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumericHeader {
    /// Which index layout the magic selects.
    pub index_kind: IndexKind,
    /// Byte order of every field after the flag word (flag bit 1).
    pub byte_order: ByteOrder,
    /// Every point carries a tag (flag bit 0).
    pub tags: bool,
    /// The metric-names payload follows the header (flag bit 2).
    pub metric_names: bool,
    /// The shared-timestamp table follows the index (flag bit 3).
    pub shared_timestamps: bool,
    /// The four column choices: byte 2 (encodings) and byte 3 (codecs).
    pub config: ColumnConfig,
    /// Start time of the blob, i64 microseconds.
    pub start_time: i64,
    /// Number of metrics.
    pub metric_count: u32,
    /// Where the index starts: 32, or 32 plus the names payload.
    pub index_offset: u32,
    /// Where the timestamp payload starts.
    pub timestamp_offset: u32,
    /// Where the value payload starts.
    pub value_offset: u32,
    /// Where the tag payload starts (it runs to the end of the blob).
    pub tag_offset: u32,
}

impl NumericHeader {
    /// Parse and check the header at the start of `data`.
    pub(crate) fn parse(data: &[u8]) -> Result<NumericHeader> {
        if data.len() < HEADER_SIZE {
            return Err(Error::Truncated { what: "header", needed: HEADER_SIZE, available: data.len() });
        }
        let flags = read_flags(data)?;
        let index_kind = match flags & MAGIC_MASK {
            MAGIC_NUMERIC_V1 => IndexKind::V1,
            MAGIC_NUMERIC_V2 => IndexKind::V2Compact,
            MAGIC_NUMERIC_V2_EXT => IndexKind::V2Extended,
            other => return Err(Error::BadMagic { found: other }),
        };
        let order = flags::byte_order(flags);
        let u32_at = |pos| order.read_u32(data, pos, "header");
        Ok(NumericHeader {
            index_kind,
            byte_order: order,
            tags: flags & FLAG_TAGS != 0,
            metric_names: flags & FLAG_METRIC_NAMES != 0,
            shared_timestamps: flags & FLAG_SHARED_TIMESTAMPS != 0,
            config: ColumnConfig {
                timestamp_encoding: TimestampEncoding::from_code(data[2] & 0x0F)?,
                timestamp_compression: Compression::from_code(data[3] & 0x0F, "timestamp")?,
                value_encoding: ValueEncoding::from_code(data[2] >> 4)?,
                value_compression: Compression::from_code(data[3] >> 4, "value")?,
            },
            start_time: order.read_u64(data, 4, "header")? as i64,
            metric_count: u32_at(12)?,
            index_offset: u32_at(16)?,
            timestamp_offset: u32_at(20)?,
            value_offset: u32_at(24)?,
            tag_offset: u32_at(28)?,
        })
    }

    /// The layout the index kind and the shared-timestamp flag make. A blob
    /// written with `V2Shared` whose metrics share no timestamps has no table,
    /// so it reads as `V2` (the layout that writes it again byte for byte).
    pub fn layout(&self) -> Layout {
        match (self.index_kind, self.shared_timestamps) {
            (IndexKind::V1, _) => Layout::V1,
            (_, false) => Layout::V2,
            (_, true) => Layout::V2Shared,
        }
    }

    /// The flag word: the magic, then the tags, byte order, names and shared-timestamp bits.
    pub(crate) fn flags(&self) -> u16 {
        flags::compose(
            self.index_kind.magic(),
            &[
                (self.tags, FLAG_TAGS),
                (self.byte_order == ByteOrder::Big, FLAG_BIG_ENDIAN),
                (self.metric_names, FLAG_METRIC_NAMES),
                (self.shared_timestamps, FLAG_SHARED_TIMESTAMPS),
            ],
        )
    }

    /// Append the 32 header bytes.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let (order, c) = (self.byte_order, &self.config);
        out.extend_from_slice(&self.flags().to_le_bytes());
        out.push(c.timestamp_encoding.code() | (c.value_encoding.code() << 4));
        out.push(c.timestamp_compression.code() | (c.value_compression.code() << 4));
        out.extend_from_slice(&order.u64_bytes(self.start_time as u64));
        for v in [self.metric_count, self.index_offset, self.timestamp_offset, self.value_offset, self.tag_offset] {
            out.extend_from_slice(&order.u32_bytes(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_reference_header_and_writes_it_back() {
        let blob = crate::test_support::read_blob("num-gauge1-delta-none-gorilla-none-notags-be-v1");
        let h = NumericHeader::parse(&blob).unwrap();
        assert_eq!(h.index_kind, IndexKind::V1);
        assert_eq!(h.byte_order, ByteOrder::Big);
        assert_eq!(h.config.to_string(), "delta-none-gorilla-none");
        assert_eq!(h.layout(), Layout::V1);
        assert_eq!(h.metric_count, 12);
        assert_eq!(h.start_time, 1_700_000_000_000_000);
        let mut out = Vec::new();
        h.write(&mut out);
        assert_eq!(out, blob[..32]);
    }

    #[test]
    fn rejects_unknown_magic_and_nibbles() {
        let mut blob = crate::test_support::read_blob("num-gauge1-delta-none-gorilla-none-notags-le-v1");
        assert!(matches!(NumericHeader::parse(&blob[..31]), Err(Error::Truncated { .. })));
        blob[2] = 0x73; // timestamp encoding 3 is a value encoding
        assert!(matches!(NumericHeader::parse(&blob), Err(Error::UnknownEncoding { column: "timestamp", .. })));
        blob[2] = 0x32;
        blob[3] = 0x51;
        assert!(matches!(NumericHeader::parse(&blob), Err(Error::UnknownCompression { column: "value", .. })));
        blob[1] = 0xEC;
        assert!(matches!(NumericHeader::parse(&blob), Err(Error::BadMagic { found: 0xEC10 })));
    }
}
