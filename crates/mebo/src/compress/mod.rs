//! Column codecs: a whole payload (every metric's timestamp column, value
//! column, tag column or text data, concatenated) is compressed as one unit.
//!
//! Decompression is always bounded: the caller passes the largest size the
//! blob's own counts can justify, and a payload that claims or produces more is
//! an error before anything that large is allocated.

use std::borrow::Cow;

use crate::error::Result;
use crate::format::Compression;

mod lz4;
mod s2;
mod zstd;

/// Decompress `data` with `codec`, refusing output larger than `cap` bytes.
/// `what` names the payload in errors. `None` borrows the input.
pub fn decompress<'a>(codec: Compression, data: &'a [u8], cap: usize, what: &'static str) -> Result<Cow<'a, [u8]>> {
    // The reference writes an empty payload as zero bytes for every codec.
    if data.is_empty() {
        return Ok(Cow::Borrowed(data));
    }
    match codec {
        Compression::None => Ok(Cow::Borrowed(data)),
        Compression::Zstd => zstd::decompress(data, cap, what).map(Cow::Owned),
        Compression::S2 => s2::decompress(data, cap, what).map(Cow::Owned),
        Compression::Lz4 => lz4::decompress(data, cap, what).map(Cow::Owned),
    }
}

/// Compress `data` with `codec` as the reference does (empty stays empty).
#[cfg(feature = "encode")]
pub fn compress<'a>(codec: Compression, data: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    if data.is_empty() {
        return Ok(Cow::Borrowed(data));
    }
    match codec {
        Compression::None => Ok(Cow::Borrowed(data)),
        Compression::Zstd => Ok(Cow::Owned(zstd::compress(data))),
        Compression::S2 => Ok(Cow::Owned(s2::compress(data))),
        Compression::Lz4 => Ok(Cow::Owned(lz4::compress(data))),
    }
}

// Round trips need the encoders.
#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::*;
    use crate::Error;

    fn sample() -> Vec<u8> {
        (0..20_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect()
    }

    #[test]
    fn every_codec_round_trips() {
        let data = sample();
        for codec in Compression::ALL {
            let packed = compress(codec, &data).unwrap();
            if codec != Compression::None {
                assert!(packed.len() < data.len() / 2, "{codec} compresses");
            }
            let back = decompress(codec, &packed, data.len(), "test").unwrap();
            assert_eq!(back.as_ref(), data.as_slice(), "{codec}");
        }
    }

    #[test]
    fn output_over_the_cap_is_refused() {
        let data = sample();
        for codec in [Compression::Zstd, Compression::S2, Compression::Lz4] {
            let packed = compress(codec, &data).unwrap();
            let err = decompress(codec, &packed, data.len() - 1, "test").unwrap_err();
            assert!(matches!(err, Error::SizeCap { .. }), "{codec}: {err}");
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let data = sample();
        for codec in [Compression::Zstd, Compression::S2, Compression::Lz4] {
            let packed = compress(codec, &data).unwrap().into_owned();
            for cut in (1..packed.len()).step_by(97) {
                let _ = decompress(codec, &packed[..cut], data.len(), "test");
            }
            let mut flipped = packed.clone();
            for i in (0..flipped.len()).step_by(13) {
                flipped[i] ^= 0x5a;
                let _ = decompress(codec, &flipped, data.len(), "test");
            }
            assert!(decompress(codec, &[0xff; 64], data.len(), "test").is_err());
        }
    }
}
