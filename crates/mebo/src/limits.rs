//! Caps on what decoding may allocate, and the fallible allocations every
//! buffer sized by the input goes through.
//!
//! Structural caps come from the blob itself (a column cannot decompress to more
//! than its metrics' point counts allow); these limits bound the rest and can be
//! lowered by callers that decode untrusted blobs in small memory.
//!
//! A buffer sized by the input is reserved with `try_reserve_exact`, so a
//! refused allocation (the wasm module's memory budget, or memory that cannot
//! grow) is [`Error::OutOfMemory`] instead of an abort.

use crate::error::{Error, Result};

/// Limits applied while opening and decoding a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Largest size of one decompressed payload, in bytes (default 128 MiB,
    /// the reference's cap on any decompressed payload).
    pub max_decompressed_bytes: usize,
    /// Largest total point count of one blob (default 64 Mi points, 1 GiB of
    /// decoded timestamp and value columns). Never above `u32::MAX`, whatever
    /// is set here: decoded columns address points with u32 offsets.
    pub max_points: u64,
}

/// The default of [`DecodeLimits::max_decompressed_bytes`]: the reference's
/// `maxDecompressSize`.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 128 << 20;

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits { max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES, max_points: 64 << 20 }
    }
}

/// Reserve room for exactly `additional` more items, or `OutOfMemory`.
pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    v.try_reserve_exact(additional).map_err(|_| Error::OutOfMemory { what, bytes: additional.saturating_mul(std::mem::size_of::<T>()) })
}

/// Reserve room for `additional` more bytes of a string, or `OutOfMemory`:
/// amortized (the string may double), as it is called once a string appended.
pub(crate) fn reserve_str(s: &mut String, additional: usize, what: &'static str) -> Result<()> {
    s.try_reserve(additional).map_err(|_| Error::OutOfMemory { what, bytes: additional })
}

/// `v` resized to `len` items (new ones `fill`), the room reserved fallibly.
pub(crate) fn resize<T: Clone>(v: &mut Vec<T>, len: usize, fill: T, what: &'static str) -> Result<()> {
    if len > v.len() {
        reserve(v, len - v.len(), what)?;
    }
    v.resize(len, fill);
    Ok(())
}

/// A vector of `len` copies of `fill`, allocated fallibly.
pub(crate) fn filled<T: Clone>(len: usize, fill: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    resize(&mut v, len, fill, what)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_allocations_are_out_of_memory() {
        let err = filled(usize::MAX / 2, 0u64, "test column").unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { what: "test column", .. }), "{err}");
        assert_eq!(err.code(), "OUT_OF_MEMORY");
        let mut s = String::new();
        assert!(matches!(reserve_str(&mut s, usize::MAX, "s"), Err(Error::OutOfMemory { .. })));
        assert_eq!(filled(3, 7u8, "x").unwrap(), vec![7, 7, 7]);
        let mut v = vec![1u32, 2, 3];
        resize(&mut v, 1, 0, "x").unwrap();
        assert_eq!(v, [1]);
    }
}
