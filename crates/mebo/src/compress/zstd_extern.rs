//! zstd payloads through a decoder the embedder registers, for builds without
//! libzstd (feature `zstd-extern` without `zstd`): the light wasm core keeps
//! libzstd in a module of its own, loaded the first time a blob needs it.
//! Until a decoder is registered, zstd payloads are `UnsupportedCompression`.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Why a registered decoder gave no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZstdFailure {
    /// The frame is malformed; the detail says how.
    Corrupt(String),
    /// The output would pass the cap: `size` is what it reached or declared.
    SizeCap(u64),
    /// The decoder could not allocate `bytes`.
    OutOfMemory(usize),
    /// The decoder is not there (not loaded, or failed to load).
    Unavailable,
}

/// A zstd decoder: all frames of `data`, refusing more than `cap` bytes of output.
pub type ZstdDecoder = fn(data: &[u8], cap: usize) -> std::result::Result<Vec<u8>, ZstdFailure>;

static DECODER: OnceLock<ZstdDecoder> = OnceLock::new();

/// Register the decoder zstd payloads go through (the first registration wins).
pub fn set_zstd_decoder(decoder: ZstdDecoder) {
    let _ = DECODER.set(decoder);
}

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
    let Some(decoder) = DECODER.get() else { return Err(Error::UnsupportedCompression { codec: "zstd", what }) };
    let out = decoder(data, cap).map_err(|failure| match failure {
        ZstdFailure::Corrupt(detail) => Error::Decompress { codec: "zstd", what, detail },
        ZstdFailure::SizeCap(size) => Error::SizeCap { what, size, cap: cap as u64 },
        ZstdFailure::OutOfMemory(bytes) => Error::OutOfMemory { what, bytes },
        ZstdFailure::Unavailable => Error::UnsupportedCompression { codec: "zstd", what },
    })?;
    // The decoder is outside this crate: its promise is checked, not trusted.
    if out.len() > cap {
        return Err(Error::SizeCap { what, size: out.len() as u64, cap: cap as u64 });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lying(data: &[u8], cap: usize) -> std::result::Result<Vec<u8>, ZstdFailure> {
        match data {
            b"corrupt" => Err(ZstdFailure::Corrupt("bad block".into())),
            b"big" => Err(ZstdFailure::SizeCap(cap as u64 + 1)),
            b"missing" => Err(ZstdFailure::Unavailable),
            _ => Ok(vec![7; cap + data.len()]),
        }
    }

    #[test]
    fn failures_map_to_the_errors_libzstd_gives() {
        assert_eq!(decompress(b"x", 4, "test").unwrap_err().code(), "UNSUPPORTED_COMPRESSION");
        set_zstd_decoder(lying);
        assert_eq!(decompress(b"corrupt", 4, "test").unwrap_err().code(), "DECOMPRESS");
        assert!(matches!(decompress(b"big", 4, "test").unwrap_err(), Error::SizeCap { size: 5, cap: 4, what: "test" }));
        assert_eq!(decompress(b"missing", 4, "test").unwrap_err().code(), "UNSUPPORTED_COMPRESSION");
        // More than the cap from the decoder itself is refused too.
        assert!(matches!(decompress(b"ab", 4, "test").unwrap_err(), Error::SizeCap { size: 6, cap: 4, .. }));
    }
}
