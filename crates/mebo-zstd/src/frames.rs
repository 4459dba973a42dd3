//! zstd frames decoded with every bound the core crate's decoder has
//! (crates/mebo/src/compress/zstd/mod.rs), reaching the same outcomes: a
//! declared size checked against the cap and the ratio ceiling before
//! anything is allocated, frames without one decoded under a window limit
//! taken from the cap, output never past the cap, allocation failure
//! reported with the bytes asked; each failure with where in the payload
//! it happened.

use crate::buffer::Buffer;
pub use crate::failure::Failure;
use crate::frame::{self, Decoder, Header};
use crate::huffman::Huffman;
use crate::sequences::History;
use crate::MAX_BLOCK;

/// Why a payload did not decode, and where: the byte of the payload at
/// which the frame, block or section being read starts (a frame's header,
/// each block, a compressed block's literals and sequences sections, the
/// checksum). For `Failure::Corrupt` that is the part whose check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    pub failure: Failure,
    pub at: usize,
}

/// Every frame of `data`, at most `cap` bytes of output.
pub fn decompress(data: &[u8], cap: usize) -> Result<Buffer, Error> {
    let mut decoder = Decoder { huffman: None::<Huffman>, history: History::new(), scratch: Buffer::new(), at: 0 };
    frames(data, cap, &mut decoder).map_err(|failure| Error { failure, at: decoder.at })
}

fn frames(data: &[u8], cap: usize, decoder: &mut Decoder) -> Result<Buffer, Failure> {
    // The first frame's header usually states the content size: check it
    // against the cap before allocating, then allocate exactly once. The
    // header parsed here is the one its frame is decoded with.
    let mut header = frame::header(data)?;
    let declared = match header {
        Header::Skippable(_) => 0,
        Header::Frame { content_size, .. } => content_size.unwrap_or(0),
    };
    if declared > cap as u64 {
        return Err(Failure::SizeCap(declared));
    }
    // A frame cannot expand past its ratio ceiling: a declared size beyond
    // it is a lie, refused before a buffer of that size is allocated.
    if declared > max_content_size(data.len()) {
        return Err(Failure::Corrupt(b"the frame declares more content than its compressed bytes can hold"));
    }
    let mut out = Buffer::with_capacity(declared as usize).map_err(Failure::OutOfMemory)?;
    // A frame without a declared size could otherwise name a window of up to
    // 2 GiB; no output may exceed `cap`, so windows beyond what the cap can
    // use are refused.
    let max_window = 1u64 << window_log_max(cap);
    let mut at = 0;
    loop {
        at = frame::decode(data, at, header, &mut out, cap, max_window, decoder)?;
        let Some(next) = data.get(at..).filter(|next| !next.is_empty()) else { break };
        decoder.at = at;
        header = frame::header(next)?;
    }
    Ok(out)
}

/// Fewest bytes a block of `MAX_BLOCK` decoded bytes takes: a 3-byte header
/// and one byte repeated (an RLE block). No block expands more.
const MIN_FULL_BLOCK: u64 = 4;

/// The most content `len` bytes of zstd frames can decode to: every 4 bytes
/// an RLE block of 128 KiB (frame headers only lower it).
pub fn max_content_size(len: usize) -> u64 {
    (len as u64).div_ceil(MIN_FULL_BLOCK).saturating_mul(MAX_BLOCK as u64)
}

/// Smallest window log that covers `cap` bytes, at least 2^23 (8 MiB,
/// libzstd's window at its higher levels) and at most 2^27 (libzstd's default
/// limit).
pub fn window_log_max(cap: usize) -> u32 {
    let log = usize::BITS - cap.saturating_sub(1).leading_zeros();
    log.clamp(23, 27)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A single-segment frame declaring `size` bytes whose one block is an
    /// RLE block of `block` bytes of `x`.
    fn rle_frame(size: u32, block: u32) -> Vec<u8> {
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        f.extend_from_slice(&size.to_le_bytes());
        let header = 1 | (1 << 1) | (block << 3); // last, RLE, size
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(b'x');
        f
    }

    /// A frame without a content size, declaring a 2^`log` window, holding
    /// one RLE block of `block` zero bytes.
    fn frame_with_window(log: u32, block: u32) -> Vec<u8> {
        let descriptor = ((log - 10) << 3) as u8;
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, descriptor];
        let header = 1u32 | (1 << 1) | (block << 3);
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(0);
        f
    }

    fn bytes(result: Result<Buffer, Error>) -> Result<Vec<u8>, Failure> {
        result.map(|out| out.as_slice().to_vec()).map_err(|e| e.failure)
    }

    fn failure(data: &[u8], cap: usize) -> Error {
        decompress(data, cap).err().unwrap()
    }

    #[test]
    fn declared_sizes_are_checked_against_the_cap_then_the_ratio_ceiling() {
        assert_eq!(bytes(decompress(&rle_frame(1000, 1000), 999)), Err(Failure::SizeCap(1000)));
        // 13 bytes can hold at most 4 RLE blocks: 512 KiB.
        assert_eq!(max_content_size(13), 4 * (128 << 10));
        assert!(matches!(bytes(decompress(&rle_frame(256 << 20, 1000), 256 << 20)), Err(Failure::Corrupt(_))));
        // A claim within the ceiling that the frame does not fill is an error too.
        assert!(matches!(bytes(decompress(&rle_frame(400 << 10, 1000), 1 << 20)), Err(Failure::Corrupt(_))));
        assert_eq!(bytes(decompress(&rle_frame(1000, 1000), 1000)), Ok(vec![b'x'; 1000]));
    }

    #[test]
    fn streaming_output_stops_at_the_cap_with_the_size_reached() {
        assert_eq!(bytes(decompress(&frame_with_window(17, 1000), 500)), Err(Failure::SizeCap(1000)));
        assert_eq!(bytes(decompress(&frame_with_window(17, 1000), 1000)), Ok(vec![0; 1000]));
    }

    #[test]
    fn window_limit_follows_the_cap() {
        assert_eq!(window_log_max(0), 23);
        assert_eq!(window_log_max(8 << 20), 23);
        assert_eq!(window_log_max((8 << 20) + 1), 24);
        assert_eq!(window_log_max(64 << 20), 26);
        assert_eq!(window_log_max(usize::MAX), 27);
        for log in [24, 26, 27] {
            assert!(matches!(bytes(decompress(&frame_with_window(log, 1), 4096)), Err(Failure::Corrupt(_))), "window 2^{log}");
        }
        assert_eq!(bytes(decompress(&frame_with_window(23, 1), 4096)), Ok(vec![0]));
        assert_eq!(bytes(decompress(&frame_with_window(26, 1), 64 << 20)), Ok(vec![0]));
    }

    #[test]
    fn several_frames_decode_whole_and_broken_ones_are_named() {
        let mut two = rle_frame(1000, 1000);
        two.extend_from_slice(&frame_with_window(17, 24));
        let mut expected = vec![b'x'; 1000];
        expected.extend_from_slice(&[0; 24]);
        assert_eq!(bytes(decompress(&two, 4096)), Ok(expected));
        // Truncated within the second frame's block, which starts at 13 + 6.
        assert_eq!(failure(&two[..two.len() - 1], 4096), Error { failure: Failure::Corrupt(b"truncated RLE block"), at: 19 });
        assert_eq!(failure(b"not a frame", 4096), Error { failure: Failure::Corrupt(b"unknown frame magic number"), at: 0 });
        assert_eq!(failure(&[], 4096), Error { failure: Failure::Corrupt(b"bad frame header"), at: 0 });
        // Garbage after a complete frame of 13 bytes.
        let mut trailing = rle_frame(10, 10);
        trailing.extend_from_slice(b"garbage!");
        assert_eq!(failure(&trailing, 4096), Error { failure: Failure::Corrupt(b"unknown frame magic number"), at: 13 });
    }

    #[test]
    fn a_later_frame_declaring_the_largest_size_is_corrupt_not_an_overflow() {
        let mut two = rle_frame(10, 10);
        two.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x38]);
        two.extend_from_slice(&[0xff; 8]);
        let header = 1u32 | (1 << 1) | (10 << 3);
        two.extend_from_slice(&header.to_le_bytes()[..3]);
        two.push(b'y');
        assert_eq!(failure(&two, 4096), Error { failure: Failure::Corrupt(b"frame content size mismatch"), at: 13 });
    }

    #[test]
    fn allocation_failure_is_a_value() {
        assert_eq!(Buffer::zeroed(usize::MAX).err(), Some(usize::MAX));
        let mut out = Buffer::new();
        out.extend(b"abc").unwrap();
        out.extend(&[7; 100]).unwrap();
        assert_eq!(out.len(), 103);
        assert_eq!(&out.as_slice()[..4], b"abc\x07");
    }
}
