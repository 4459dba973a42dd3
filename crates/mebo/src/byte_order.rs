//! Byte order of a blob: every multi-byte field after the first two header bytes
//! follows it (the first two bytes, the flags, are always little endian).

use crate::error::{Error, Result};

/// Little or big endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ByteOrder {
    /// Least significant byte first (the default).
    #[default]
    Little,
    /// Most significant byte first (flag bit 1).
    Big,
}

impl ByteOrder {
    /// The u16 of two bytes in this order.
    #[inline]
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            ByteOrder::Little => u16::from_le_bytes(b),
            ByteOrder::Big => u16::from_be_bytes(b),
        }
    }
    /// The u32 of four bytes in this order.
    #[inline]
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            ByteOrder::Little => u32::from_le_bytes(b),
            ByteOrder::Big => u32::from_be_bytes(b),
        }
    }
    /// The u64 of eight bytes in this order.
    #[inline]
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            ByteOrder::Little => u64::from_le_bytes(b),
            ByteOrder::Big => u64::from_be_bytes(b),
        }
    }
    /// The bytes of a u16 in this order.
    #[inline]
    pub fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }
    /// The bytes of a u32 in this order.
    #[inline]
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }
    /// The bytes of a u64 in this order.
    #[inline]
    pub fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    /// Read a u16 at `pos`, or a `Truncated` error naming `what`.
    #[inline]
    pub fn read_u16(self, data: &[u8], pos: usize, what: &'static str) -> Result<u16> {
        Ok(self.u16(read_array(data, pos, what)?))
    }
    /// Read a u32 at `pos`, or a `Truncated` error naming `what`.
    #[inline]
    pub fn read_u32(self, data: &[u8], pos: usize, what: &'static str) -> Result<u32> {
        Ok(self.u32(read_array(data, pos, what)?))
    }
    /// Read a u64 at `pos`, or a `Truncated` error naming `what`.
    #[inline]
    pub fn read_u64(self, data: &[u8], pos: usize, what: &'static str) -> Result<u64> {
        Ok(self.u64(read_array(data, pos, what)?))
    }
}

/// Copy `N` bytes at `pos` out of `data`, or a `Truncated` error naming `what`.
#[inline]
pub(crate) fn read_array<const N: usize>(data: &[u8], pos: usize, what: &'static str) -> Result<[u8; N]> {
    // Not `ok_or`: that builds (and drops) the error on every read.
    match data.get(pos..pos.saturating_add(N)).and_then(|s| s.try_into().ok()) {
        Some(bytes) => Ok(bytes),
        None => Err(Error::Truncated { what, needed: pos.saturating_add(N), available: data.len() }),
    }
}
