//! Caps on what decoding may allocate.
//!
//! Structural caps come from the blob itself (a column cannot decompress to more
//! than its metrics' point counts allow); these limits bound the rest and can be
//! lowered by callers that decode untrusted blobs in small memory.

/// Limits applied while opening and decoding a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Largest size of one decompressed payload, in bytes (default 256 MiB).
    pub max_decompressed_bytes: usize,
    /// Largest total point count of one blob (default 64 Mi points, 1 GiB of
    /// decoded timestamp and value columns). Never above `u32::MAX`, whatever
    /// is set here: decoded columns address points with u32 offsets.
    pub max_points: u64,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits { max_decompressed_bytes: 256 << 20, max_points: 64 << 20 }
    }
}
