//! The flag word that starts every blob, numeric or text: the magic in bits
//! 4..16 and one bit per optional part. It is always little endian, whatever
//! the blob's byte order (bit 1 says which that is); both headers are 32 bytes.

use crate::byte_order::{read_array, ByteOrder};
use crate::error::Result;
use crate::format::Compression;

/// Length of the header of either kind, in bytes.
pub const HEADER_SIZE: usize = 32;

/// The bits of the flag word that hold the magic.
pub const MAGIC_MASK: u16 = 0xFFF0;
/// Numeric blob, v1 layout: 16-byte index entries in insertion order.
pub const MAGIC_NUMERIC_V1: u16 = 0xEA10;
/// Numeric blob, v2 layout: 16-byte index entries sorted by id.
pub const MAGIC_NUMERIC_V2: u16 = 0xEA20;
/// Numeric blob, v2 layout: 32-byte index entries sorted by id.
pub const MAGIC_NUMERIC_V2_EXT: u16 = 0xEA30;
/// Text blob.
pub const MAGIC_TEXT_V1: u16 = 0xEB10;

/// Bit 0: every point carries a tag.
pub const FLAG_TAGS: u16 = 0x1;
/// Bit 1: every field after the flag word is big endian.
pub const FLAG_BIG_ENDIAN: u16 = 0x2;
/// Bit 2: the metric-names payload follows the header.
pub const FLAG_METRIC_NAMES: u16 = 0x4;
/// Bit 3: in a numeric blob, the shared-timestamp table follows the index; in
/// a text blob reserved, and must be zero.
pub const FLAG_SHARED_TIMESTAMPS: u16 = 0x8;

/// Read the little-endian flag word that starts every blob.
pub fn read_flags(data: &[u8]) -> Result<u16> {
    Ok(u16::from_le_bytes(read_array(data, 0, "header")?))
}

/// The byte order flag bit 1 selects.
pub fn byte_order(flags: u16) -> ByteOrder {
    if flags & FLAG_BIG_ENDIAN != 0 {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    }
}

/// A flag word: `magic` with each bit whose condition holds.
pub fn compose(magic: u16, bits: &[(bool, u16)]) -> u16 {
    bits.iter().filter(|(on, _)| *on).fold(magic, |flags, (_, bit)| flags | bit)
}

/// The two kinds of blob, told apart by their magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlobKind {
    /// Float64 values (magics 0xEA10, 0xEA20, 0xEA30).
    Numeric,
    /// String values (magic 0xEB10).
    Text,
}

impl BlobKind {
    /// The kind a flag word's magic names, `None` for an unknown magic.
    pub fn from_flags(flags: u16) -> Option<BlobKind> {
        match flags & MAGIC_MASK {
            MAGIC_NUMERIC_V1 | MAGIC_NUMERIC_V2 | MAGIC_NUMERIC_V2_EXT => Some(BlobKind::Numeric),
            MAGIC_TEXT_V1 => Some(BlobKind::Text),
            _ => None,
        }
    }

    /// The kind of blob `bytes` start, by its first two bytes; `None` for an
    /// unknown magic or fewer than two bytes. Nothing else is checked.
    pub fn of(bytes: &[u8]) -> Option<BlobKind> {
        BlobKind::from_flags(read_flags(bytes).ok()?)
    }
}

/// Whether a blob's payloads use `codec`, read from its first four bytes
/// alone: byte 3 holds a numeric blob's timestamp and value codecs (low and
/// high nibble) and a text blob's data codec; a numeric blob's tag payload
/// (flag bit 0) is always zstd. False for bytes that start no blob. What
/// lets a reader fetch a codec before it opens a blob that needs it.
pub fn uses_compression(bytes: &[u8], codec: Compression) -> bool {
    let (Ok(flags), Some(&codecs)) = (read_flags(bytes), bytes.get(3)) else { return false };
    let code = codec.code();
    match BlobKind::from_flags(flags) {
        Some(BlobKind::Numeric) => codecs & 0x0F == code || codecs >> 4 == code || (codec == Compression::Zstd && flags & FLAG_TAGS != 0),
        Some(BlobKind::Text) => codecs == code,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_from_the_first_four_bytes() {
        // Numeric, little endian, no tags: timestamps s2 (3), values zstd (2).
        let numeric = [0x10, 0xEA, 0x11, 0x23];
        assert!(uses_compression(&numeric, Compression::Zstd) && uses_compression(&numeric, Compression::S2));
        assert!(!uses_compression(&numeric, Compression::Lz4));
        // Tagged, no codec on either column: the tags are zstd.
        assert!(uses_compression(&[0x11, 0xEA, 0x11, 0x11], Compression::Zstd));
        assert!(!uses_compression(&[0x10, 0xEA, 0x11, 0x11], Compression::Zstd));
        // Text: byte 3 is the data codec; its tag bit says nothing of zstd.
        assert!(uses_compression(&[0x11, 0xEB, 0x01, 0x04], Compression::Lz4));
        assert!(!uses_compression(&[0x11, 0xEB, 0x01, 0x04], Compression::Zstd));
        // No blob, or too short.
        assert!(!uses_compression(&[0x10, 0xEC, 0x22, 0x22], Compression::Zstd));
        assert!(!uses_compression(&[0x10, 0xEA, 0x22], Compression::Zstd));
    }

    #[test]
    fn kinds_and_bits() {
        assert_eq!(BlobKind::of(&[0x17, 0xEB]), Some(BlobKind::Text));
        assert_eq!(BlobKind::of(&[0x1F, 0xEA]), Some(BlobKind::Numeric));
        assert_eq!(BlobKind::of(&[0x30, 0xEA, 0]), Some(BlobKind::Numeric));
        assert_eq!(BlobKind::of(&[0x10, 0xEC]), None);
        assert_eq!(BlobKind::of(&[0x10]), None);
        assert_eq!(compose(MAGIC_TEXT_V1, &[(true, FLAG_TAGS), (false, FLAG_BIG_ENDIAN), (true, FLAG_METRIC_NAMES)]), 0xEB15);
        assert_eq!(byte_order(0xEA12), ByteOrder::Big);
        assert_eq!(byte_order(0xEA1D), ByteOrder::Little);
    }
}
