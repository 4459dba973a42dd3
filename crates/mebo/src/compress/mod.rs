//! Column codecs: a whole payload (every metric's timestamp column, value
//! column, tag column or text data, concatenated) is compressed as one unit.
//!
//! Decompression is always bounded: the caller passes the largest size the
//! blob's own counts can justify, and a payload that claims or produces more is
//! an error before anything that large is allocated.

//!
//! Each codec is a Cargo feature (`zstd`, `s2`, `lz4`, all on by default). A
//! payload of a codec the build leaves out is `Error::UnsupportedCompression`,
//! reading and writing alike; the header still parses.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::format::Compression;

#[cfg(feature = "lz4")]
mod lz4;
#[cfg(feature = "s2")]
mod s2;
#[cfg(feature = "zstd")]
mod zstd;
#[cfg(all(feature = "zstd-extern", not(feature = "zstd")))]
mod zstd_extern;
#[cfg(all(feature = "zstd-extern", not(feature = "zstd")))]
pub use zstd_extern::{set_zstd_decoder, ZstdDecoder, ZstdFailure};

fn not_built(codec: Compression, what: &'static str) -> Error {
    Error::UnsupportedCompression { codec: codec.name(), what }
}

/// Decompress `data` with `codec`, refusing output larger than `cap` bytes.
/// `what` names the payload in errors. `None` borrows the input.
pub fn decompress<'a>(codec: Compression, data: &'a [u8], cap: usize, what: &'static str) -> Result<Cow<'a, [u8]>> {
    decompress_expecting(codec, data, cap, None, what)
}

/// [`decompress`] of a payload whose decoded size the blob implies
/// (`expected`): LZ4, which does not state its size, then decodes into a
/// buffer of that size without first walking the block to learn it. A wrong
/// size costs time, never a wrong result.
pub fn decompress_expecting<'a>(
    codec: Compression,
    data: &'a [u8],
    cap: usize,
    expected: Option<usize>,
    what: &'static str,
) -> Result<Cow<'a, [u8]>> {
    // The reference writes an empty payload as zero bytes for every codec.
    if data.is_empty() {
        return Ok(Cow::Borrowed(data));
    }
    match codec {
        Compression::None => Ok(Cow::Borrowed(data)),
        #[cfg(feature = "zstd")]
        Compression::Zstd => zstd::decompress(data, cap, what).map(Cow::Owned),
        #[cfg(all(feature = "zstd-extern", not(feature = "zstd")))]
        Compression::Zstd => zstd_extern::decompress(data, cap, what).map(Cow::Owned),
        #[cfg(feature = "s2")]
        Compression::S2 => s2::decompress(data, cap, what).map(Cow::Owned),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => lz4::decompress(data, cap, expected, what).map(Cow::Owned),
        #[allow(unreachable_patterns)] // every codec built: no codec is left
        _ => {
            let _ = (cap, expected);
            Err(not_built(codec, what))
        }
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
        #[cfg(feature = "zstd")]
        Compression::Zstd => Ok(Cow::Owned(zstd::compress(data))),
        #[cfg(feature = "s2")]
        Compression::S2 => Ok(Cow::Owned(s2::compress(data))),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => Ok(Cow::Owned(lz4::compress(data))),
        #[allow(unreachable_patterns)] // every codec built: no codec is left
        _ => Err(not_built(codec, "payload to compress")),
    }
}

/// Whatever the features: a codec left out is a typed error, a codec built
/// reads what it writes. Runs in every feature set (`--no-default-features
/// --features encode` checks the first half).
#[cfg(all(test, feature = "encode"))]
#[test]
fn codecs_left_out_are_unsupported_compression() {
    let data = b"a payload, a payload, a payload".repeat(8);
    for codec in Compression::ALL {
        if codec.is_built() {
            let packed = compress(codec, &data).unwrap();
            assert_eq!(decompress(codec, &packed, data.len(), "test").unwrap().as_ref(), data.as_slice(), "{codec}");
        } else {
            let err = compress(codec, &data).unwrap_err();
            assert!(matches!(err, Error::UnsupportedCompression { .. }), "{codec}: {err}");
            assert_eq!(err.code(), "UNSUPPORTED_COMPRESSION");
            let err = decompress(codec, &data, 1 << 20, "test").unwrap_err();
            assert!(matches!(err, Error::UnsupportedCompression { what: "test", .. }), "{codec}: {err}");
            // Nothing to decompress: nothing to refuse.
            assert!(decompress(codec, &[], 0, "test").is_ok());
            // Blobs whose header names the codec (their payloads stored as is).
            let (numeric, text) = uncompressed_blobs();
            let mut n = numeric.clone();
            n[3] = codec.code() | (codec.code() << 4);
            let err = crate::numeric::NumericBlob::open(&n).unwrap_err();
            assert!(matches!(err, Error::UnsupportedCompression { what: "timestamp payload", .. }), "{codec}: {err}");
            let mut t = text.clone();
            t[3] = codec.code();
            let err = crate::text::TextBlob::open(&t).unwrap_err();
            assert!(matches!(err, Error::UnsupportedCompression { what: "text data", .. }), "{codec}: {err}");
        }
    }
}

/// A numeric and a text blob of one metric, with no codec.
#[cfg(all(test, feature = "encode"))]
fn uncompressed_blobs() -> (Vec<u8>, Vec<u8>) {
    use crate::numeric::{NumericEncoder, NumericEncoderOptions};
    use crate::text::{TextEncoder, TextEncoderOptions};
    let mut n = NumericEncoder::new(0, NumericEncoderOptions::default());
    n.start_metric_id(1, 2).unwrap();
    n.add_points::<&str>(&[1, 2], &[0.5, 1.5], None).unwrap();
    n.end_metric().unwrap();
    let mut t = TextEncoder::new(0, TextEncoderOptions { data_compression: Compression::None, ..Default::default() }).unwrap();
    t.start_metric_id(1, 2).unwrap();
    t.add_points(&[1, 2], &["a", "b"], None).unwrap();
    t.end_metric().unwrap();
    (n.finish().unwrap(), t.finish().unwrap())
}

// Round trips need the encoders, and every codec.
#[cfg(all(test, feature = "encode", feature = "zstd", feature = "s2", feature = "lz4"))]
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
