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

/// An empty vector with room for exactly `capacity` items, allocated fallibly.
pub(crate) fn with_capacity<T>(capacity: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, capacity, what)?;
    Ok(v)
}

/// A copy of `items`, allocated fallibly.
pub(crate) fn copied<T: Clone>(items: &[T], what: &'static str) -> Result<Vec<T>> {
    let mut v = with_capacity(items.len(), what)?;
    v.extend_from_slice(items);
    Ok(v)
}

/// The items of `iter` (at most `len` of them expected; more grow the vector
/// fallibly), or its first error. `collect` would reserve infallibly.
pub(crate) fn collect<T>(iter: impl IntoIterator<Item = Result<T>>, len: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = with_capacity(len, what)?;
    for item in iter {
        push(&mut v, item?, what)?;
    }
    Ok(v)
}

/// Append `item`, growing the vector fallibly (amortized, as `push` does).
pub(crate) fn push<T>(v: &mut Vec<T>, item: T, what: &'static str) -> Result<()> {
    room_for_one(v, what)?;
    v.push(item);
    Ok(())
}

/// Room for one more item: the vector grown fallibly when full (amortized).
pub(crate) fn room_for_one<T>(v: &mut Vec<T>, what: &'static str) -> Result<()> {
    if v.len() == v.capacity() {
        v.try_reserve(1).map_err(|_| Error::OutOfMemory { what, bytes: v.len().saturating_mul(std::mem::size_of::<T>()) })?;
    }
    Ok(())
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

    #[test]
    fn fallible_constructors_hold_what_the_infallible_ones_would() {
        let v: Vec<u64> = with_capacity(5, "x").unwrap();
        assert!(v.is_empty() && v.capacity() == 5);
        assert_eq!(copied(&[3u16, 1, 2], "x").unwrap(), [3, 1, 2]);
        assert_eq!(collect([Ok(1u8), Ok(2), Ok(3)], 2, "x").unwrap(), [1, 2, 3]);
        let err = collect([Ok(1u8), Err(Error::Truncated { what: "t", needed: 2, available: 1 }), Ok(3)], 3, "x").unwrap_err();
        assert_eq!(err.code(), "TRUNCATED");
        let mut grown = Vec::new();
        for i in 0..100u32 {
            push(&mut grown, i, "x").unwrap();
        }
        assert_eq!(grown, (0..100).collect::<Vec<_>>());
        let err = with_capacity::<u64>(usize::MAX / 4, "huge").unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { what: "huge", .. }), "{err}");
        assert!(matches!(collect(std::iter::empty::<Result<u64>>(), usize::MAX / 4, "c"), Err(Error::OutOfMemory { what: "c", .. })));
    }
}
