//! The index of a text blob: one 16-byte entry per metric, in the order the
//! metrics were added.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | metric id, u64 |
//! | 8..10 | point count, u16 |
//! | 10..12 | reserved, u16 (written as zero, not checked) |
//! | 12..16 | offset of the metric's first row in the uncompressed data payload, u32 |
//!
//! A metric's rows end where the next entry's start (the last entry's at the
//! data size in the header).

use crate::byte_order::ByteOrder;
use crate::error::Result;

/// Length of one index entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// One index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextIndexEntry {
    pub id: u64,
    pub count: u16,
    pub offset: u32,
}

impl TextIndexEntry {
    /// Parse the entry at the start of `data`.
    pub fn parse(data: &[u8], order: ByteOrder) -> Result<TextIndexEntry> {
        Ok(TextIndexEntry {
            id: order.read_u64(data, 0, "text index entry")?,
            count: order.read_u16(data, 8, "text index entry")?,
            offset: order.read_u32(data, 12, "text index entry")?,
        })
    }

    /// Append the 16 entry bytes to `out`.
    pub fn write(&self, order: ByteOrder, out: &mut Vec<u8>) {
        out.extend_from_slice(&order.u64_bytes(self.id));
        out.extend_from_slice(&order.u16_bytes(self.count));
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&order.u32_bytes(self.offset));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let e = TextIndexEntry { id: 0x0102_0304_0506_0708, count: 0xABCD, offset: 0x1122_3344 };
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = Vec::new();
            e.write(order, &mut out);
            assert_eq!(out.len(), ENTRY_SIZE);
            assert_eq!(TextIndexEntry::parse(&out, order).unwrap(), e);
            assert!(TextIndexEntry::parse(&out[..15], order).is_err());
        }
        let mut out = Vec::new();
        e.write(ByteOrder::Big, &mut out);
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8, 0xAB, 0xCD, 0, 0, 0x11, 0x22, 0x33, 0x44]);
    }
}
