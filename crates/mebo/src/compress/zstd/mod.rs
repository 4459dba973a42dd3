//! Zstandard frames (the reference writes one frame per payload, no checksum).
//!
//! Decoding uses libzstd. Encoding is this module's own: the reference's frames
//! come from klauspost/compress v1.19.0 (`zstd.NewWriter` at `SpeedDefault`,
//! CRC off, `EncodeAll`), and a blob can only be reproduced byte for byte if
//! every encoder decision is the same. So the encoder follows that library's
//! algorithm step by step — its double-fast match finder, block splitting,
//! huff0 literal coding and FSE table choices — while being written afresh in
//! safe Rust. klauspost/compress is BSD-3-Clause, Copyright (c) 2019 Klaus Post
//! and Copyright (c) 2012 The Go Authors; its license text is in
//! `LICENSE-klauspost` next to this file.
//!
//! The encoder's parts: [`frame`] (header, 128 KiB blocks), [`double_fast`]
//! (the match finder), [`block`] (literals and sequences sections), [`huffman`]
//! (literal coding), [`fse`] (table normalisation and coding), [`bit_writer`].

use std::io::Read;

use crate::error::{Error, Result};

#[cfg(feature = "encode")]
mod bit_writer;
#[cfg(feature = "encode")]
mod block;
#[cfg(feature = "encode")]
mod double_fast;
#[cfg(feature = "encode")]
mod frame;
#[cfg(feature = "encode")]
mod fse;
#[cfg(feature = "encode")]
mod huffman;

/// One match, what the match finder (`double_fast`) finds and a block
/// (`block`) codes: `lit_len` literals, then `match_len + 3` bytes copied from
/// `offset` back. `offset` is coded as in the format: 1..=3 name a repeat
/// offset, anything else is the distance + 3.
#[cfg(feature = "encode")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sequence {
    lit_len: u32,
    match_len: u32,
    offset: u32,
}

/// An encoder invariant failed. The reference would panic; this encoder stores
/// the block raw instead, so it stays a valid frame.
#[cfg(feature = "encode")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Internal;

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
    let fail = |detail: String| Error::Decompress { codec: "zstd", what, detail };
    // The frame header usually states the content size: check it against the cap
    // before allocating, then allocate exactly once.
    let declared = zstd::zstd_safe::get_frame_content_size(data).map_err(|_| fail("bad frame header".into()))?;
    if let Some(size) = declared {
        if size > cap as u64 {
            return Err(Error::SizeCap { what, size, cap: cap as u64 });
        }
        // A frame cannot expand past its ratio ceiling: a declared size beyond
        // it is a lie, refused before a buffer of that size is allocated.
        let most = max_content_size(data.len());
        if size > most {
            return Err(fail(format!("the frame declares {size} bytes, more than {} compressed bytes can hold ({most})", data.len())));
        }
    }
    if let Some(size) = declared {
        if let Some(out) = decompress_declared(data, size as usize, what)? {
            return Ok(out);
        }
        // Anything else (several frames, a size that does not match) goes
        // through the streaming decoder below, which also names the error.
    }
    let mut decoder = zstd::stream::read::Decoder::with_buffer(data).map_err(|e| fail(e.to_string()))?;
    if declared.is_none() {
        // Without a declared size libzstd sizes its output buffer by the frame's
        // window, up to 128 MiB: a payload of a few bytes could make it allocate
        // that much. No output may exceed `cap`, so refuse windows beyond what
        // the cap can use (the reference leaves the size out only below 256
        // bytes, with a 1 KiB window; the floor keeps frames of ordinary
        // streaming encoders readable).
        decoder.window_log_max(window_log_max(cap)).map_err(|e| fail(e.to_string()))?;
    }
    // The output grows as the frame produces it (in chunks, each reserved
    // fallibly), so a frame that stops early never had its claim allocated.
    let mut out = Vec::new();
    let mut chunk = [0u8; 64 << 10];
    loop {
        let n = decoder.read(&mut chunk).map_err(|e| fail(e.to_string()))?;
        if n == 0 {
            return Ok(out);
        }
        if out.len() + n > cap {
            return Err(Error::SizeCap { what, size: (out.len() + n) as u64, cap: cap as u64 });
        }
        // Amortized growth: `reserve`'s doubling, fallibly.
        out.try_reserve(n).map_err(|_| Error::OutOfMemory { what, bytes: out.len() + n })?;
        out.extend_from_slice(&chunk[..n]);
    }
}

/// Largest zstd block: 128 KiB (the format's `Block_Maximum_Size`).
const MAX_BLOCK: u64 = 128 << 10;
/// Fewest bytes a block of `MAX_BLOCK` decoded bytes takes: a 3-byte header and
/// one byte repeated (an RLE block). No block expands more.
const MIN_FULL_BLOCK: u64 = 4;

/// The most content `len` bytes of zstd frames can decode to: every 4 bytes
/// an RLE block of 128 KiB (frame headers only lower it).
fn max_content_size(len: usize) -> u64 {
    (len as u64).div_ceil(MIN_FULL_BLOCK).saturating_mul(MAX_BLOCK)
}

thread_local! {
    /// One decompression context per thread, reused: creating one per payload
    /// costs more than decompressing a small payload.
    static CONTEXT: std::cell::RefCell<zstd::zstd_safe::DCtx<'static>> =
        std::cell::RefCell::new(zstd::zstd_safe::DCtx::create());
}

/// A single frame declaring `size` bytes of content (already checked against
/// the cap and the ratio ceiling), decompressed in one call straight into a
/// buffer of that size: no streaming window to allocate and copy through.
/// `None` when the data is not exactly that.
fn decompress_declared(data: &[u8], size: usize, what: &'static str) -> Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    out.try_reserve_exact(size).map_err(|_| Error::OutOfMemory { what, bytes: size })?;
    let Ok(written) = CONTEXT.with(|context| context.borrow_mut().decompress(&mut out, data)) else { return Ok(None) };
    Ok((written == size && out.len() == size).then_some(out))
}

/// Smallest window log that covers `cap` bytes, at least 2^23 (8 MiB, libzstd's
/// window at its higher levels) and at most 2^27 (libzstd's default limit).
fn window_log_max(cap: usize) -> u32 {
    let log = usize::BITS - cap.saturating_sub(1).leading_zeros();
    log.clamp(23, 27)
}

/// One frame holding `data`, byte for byte as the reference writes it.
#[cfg(feature = "encode")]
pub(super) fn compress(data: &[u8]) -> Vec<u8> {
    frame::encode_all(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single-segment frame declaring `size` bytes whose one block is an
    /// RLE block of `block` bytes.
    fn rle_frame(size: u32, block: u32) -> Vec<u8> {
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        f.extend_from_slice(&size.to_le_bytes());
        let header = 1 | (1 << 1) | (block << 3); // last, RLE, size
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(b'x');
        f
    }

    #[test]
    fn declared_sizes_past_the_ratio_ceiling_are_refused_before_allocating() {
        // 13 bytes can hold at most 4 RLE blocks: 512 KiB.
        let err = decompress(&rle_frame(256 << 20, 1000), 256 << 20, "test").unwrap_err();
        assert!(matches!(&err, Error::Decompress { detail, .. } if detail.contains("declares 268435456 bytes")), "{err}");
        // A claim within the ceiling that the frame does not fill is an error too.
        let err = decompress(&rle_frame(400 << 10, 1000), 1 << 20, "test").unwrap_err();
        assert!(matches!(err, Error::Decompress { .. }), "{err}");
        // The honest frame decodes.
        assert_eq!(decompress(&rle_frame(1000, 1000), 1000, "test").unwrap(), vec![b'x'; 1000]);
        assert_eq!(max_content_size(13), 4 * (128 << 10));
    }

    /// Deterministic test data (the same generator produced the reference
    /// frames the digests below were taken from).
    #[cfg(feature = "encode")]
    mod samples {
        pub struct Lcg(pub u32);

        impl Lcg {
            pub fn next(&mut self) -> u32 {
                self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0x7fff_ffff;
                self.0 >> 16
            }
        }

        /// 400 jittered microsecond timestamps, then a repeated tag string.
        pub fn timestamps_and_tags() -> Vec<u8> {
            let mut rng = Lcg(12_345);
            let mut ts = 1_700_000_000_000_000i64;
            let mut out = Vec::new();
            for _ in 0..400 {
                ts += 1_000_000 + i64::from(rng.next() % 2000) - 1000;
                out.extend_from_slice(&ts.to_le_bytes());
            }
            out.extend_from_slice(&b"host=a,dc=eu-west;host=b,dc=eu-west;host=c,dc=us-east;".repeat(8));
            out
        }

        /// `len` bytes of words drawn from a 64-word vocabulary.
        pub fn words(len: usize, seed: u32) -> Vec<u8> {
            let mut rng = Lcg(seed);
            let vocab: Vec<Vec<u8>> = (0..64)
                .map(|_| {
                    let n = 1 + rng.next() % 8;
                    (0..n).map(|_| b'a' + (rng.next() % 26) as u8).collect()
                })
                .collect();
            let mut out = Vec::with_capacity(len + 10);
            while out.len() < len {
                out.extend_from_slice(&vocab[(rng.next() % 64) as usize]);
                out.push(if !rng.next().is_multiple_of(8) { b' ' } else { b'\n' });
            }
            out.truncate(len);
            out
        }
    }

    #[cfg(feature = "encode")]
    fn sha256_hex(data: &[u8]) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[cfg(feature = "encode")]
    fn round_trip(data: &[u8]) -> Vec<u8> {
        let frame = compress(data);
        let back = zstd::stream::decode_all(frame.as_slice()).expect("libzstd decodes the frame");
        assert_eq!(back, data, "round trip of {} bytes", data.len());
        frame
    }

    /// Frames the reference (klauspost/compress v1.19.0, SpeedDefault, no CRC)
    /// writes for these inputs: size and SHA-256 of the whole frame.
    #[cfg(feature = "encode")]
    #[test]
    fn frames_match_the_reference_encoder() {
        let cases = [
            // Raw literals, FSE-coded sequences.
            (samples::timestamps_and_tags(), 1345, "567f4daa719b56491fc9b30aebe00fa6c9c2f000573264974efa55d4f936fa87"),
            // Huffman-coded literals (one stream).
            (samples::words(5000, 7), 1691, "60fd51938350afa9afe4cb6571b732cda0fbb8766e24482ea3eae00895cd31e2"),
            // Three blocks matching into each other, four-stream literals.
            (samples::words(300_000, 9), 84017, "96ce491cfd0853f73b3e45336969f3079d212a54452ad022e81f95069db2cbda"),
        ];
        for (data, size, digest) in cases {
            let frame = round_trip(&data);
            assert_eq!((frame.len(), sha256_hex(&frame).as_str()), (size, digest), "{} input bytes", data.len());
        }
    }

    #[cfg(feature = "encode")]
    #[test]
    fn edge_inputs_round_trip() {
        // The reference's frame for an empty input (mebo itself never asks).
        assert_eq!(compress(&[]), [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00, 0x01, 0x00, 0x00]);
        assert_eq!(zstd::stream::decode_all(&compress(&[])[..]).unwrap(), b"");
        // One byte: a raw block.
        assert_eq!(round_trip(&[0x42]), [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, 0x09, 0x00, 0x00, 0x42]);
        // All-equal bytes: one RLE block.
        let rle = round_trip(&[7; 100_000]);
        assert!(rle.len() < 20, "{} bytes", rle.len());
        // Incompressible: stored raw, a few bytes of framing.
        let mut rng = samples::Lcg(99);
        let random: Vec<u8> = (0..300_000).map(|_| rng.next() as u8).collect();
        assert_eq!(round_trip(&random).len(), random.len() + 9 + 3 * 3, "header and three raw block headers");
        // Just under, at and over the 128 KiB block size.
        for len in [(128 << 10) - 1, 128 << 10, (128 << 10) + 1, (256 << 10) + 5] {
            round_trip(&samples::words(len, len as u32));
        }
        // About 1 MiB of numeric-looking data.
        let floats: Vec<u8> = (0..131_072u32).flat_map(|i| (f64::from(i % 1000) * 0.25 + f64::from(i / 1000)).to_le_bytes()).collect();
        assert!(round_trip(&floats).len() < floats.len() / 4);
    }

    #[cfg(feature = "encode")]
    mod prop {
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn arbitrary_bytes_round_trip(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
                super::round_trip(&data);
            }

            /// Small alphabets and copied runs make matches of every kind.
            #[test]
            fn repetitive_bytes_round_trip(
                parts in proptest::collection::vec((0u8..4, 1usize..300, any::<bool>()), 0..200),
            ) {
                let mut data = Vec::new();
                for (symbol, len, copy) in parts {
                    if copy && data.len() > len {
                        let start = data.len() - len;
                        data.extend_from_within(start..start + len / 2);
                    } else {
                        data.extend(std::iter::repeat_n(symbol, len));
                    }
                }
                super::round_trip(&data);
            }
        }
    }

    /// A frame without a content size, declaring a 2^`log` window, holding one
    /// RLE block of a single zero byte.
    fn frame_with_window(log: u32) -> Vec<u8> {
        let descriptor = ((log - 10) << 3) as u8; // exponent, mantissa 0
        let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, descriptor];
        let header = 1u32 | (1 << 1) | (1 << 3); // last block, RLE, 1 byte
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(0);
        f
    }

    #[test]
    fn window_limit_follows_the_cap() {
        assert_eq!(window_log_max(0), 23);
        assert_eq!(window_log_max(100), 23);
        assert_eq!(window_log_max(8 << 20), 23);
        assert_eq!(window_log_max((8 << 20) + 1), 24);
        assert_eq!(window_log_max(64 << 20), 26);
        assert_eq!(window_log_max(usize::MAX), 27);
    }

    /// Fuzzing finding: an 83-byte frame with no content size and a 64 MiB
    /// window made libzstd malloc 64 MiB before producing a byte.
    #[test]
    fn undeclared_frame_with_a_window_beyond_the_cap_is_refused() {
        for log in [24, 26, 27] {
            let err = decompress(&frame_with_window(log), 4096, "test").unwrap_err();
            assert!(matches!(err, Error::Decompress { codec: "zstd", .. }), "window 2^{log}: {err:?}");
        }
        // Windows the cap (or the 8 MiB floor) covers still decode.
        assert_eq!(decompress(&frame_with_window(23), 4096, "test").unwrap(), [0]);
        assert_eq!(decompress(&frame_with_window(10), 1, "test").unwrap(), [0]);
        assert_eq!(decompress(&frame_with_window(26), 64 << 20, "test").unwrap(), [0]);
    }
}
