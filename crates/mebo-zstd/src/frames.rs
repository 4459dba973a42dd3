//! zstd frames decoded with every bound the core crate's decoder has
//! (crates/mebo/src/compress/zstd/mod.rs), reaching the same outcomes: a
//! declared size checked against the cap and the ratio ceiling before
//! anything is allocated, frames without one streamed under a window limit
//! taken from the cap, output grown in chunks and never past the cap,
//! allocation failure reported with the bytes asked.

use crate::buffer::Buffer;
use crate::libzstd::{frame_content_size, DCtx};

/// Why a payload did not decode; the SDK sends each as the core's error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// `SIZE_CAP`: the output would reach this many bytes, more than the cap.
    SizeCap(u64),
    /// `OUT_OF_MEMORY`: this many bytes could not be allocated.
    OutOfMemory(usize),
    /// `DECOMPRESS`: the frames are not valid zstd (libzstd's error name, or
    /// which of this decoder's checks failed).
    Corrupt(&'static [u8]),
}

/// Bytes each streaming step decodes into before they are appended to the
/// output (the core crate reads through a buffer of the same size).
const CHUNK: usize = 64 << 10;

/// Every frame of `data`, at most `cap` bytes of output.
pub fn decompress(data: &[u8], cap: usize) -> Result<Buffer, Failure> {
    // The frame header usually states the content size: check it against the
    // cap before allocating, then allocate exactly once.
    let declared = frame_content_size(data).map_err(|_| Failure::Corrupt(b"bad frame header"))?;
    if let Some(size) = declared {
        if size > cap as u64 {
            return Err(Failure::SizeCap(size));
        }
        // A frame cannot expand past its ratio ceiling: a declared size beyond
        // it is a lie, refused before a buffer of that size is allocated.
        if size > max_content_size(data.len()) {
            return Err(Failure::Corrupt(b"the frame declares more content than its compressed bytes can hold"));
        }
        if let Some(out) = decompress_declared(data, size as usize)? {
            return Ok(out);
        }
        // Anything else (several frames, a size that does not match) goes
        // through the streaming decoder below, which also names the error.
    }
    let mut context = DCtx::try_create().ok_or(Failure::Corrupt(b"Allocation error : not enough memory"))?;
    if declared.is_none() {
        // Without a declared size libzstd sizes its buffers by the frame's
        // window, up to 128 MiB: a payload of a few bytes could make it
        // allocate that much. No output may exceed `cap`, so windows beyond
        // what the cap can use are refused.
        context.set_window_log_max(window_log_max(cap)).map_err(|code| Failure::Corrupt(code.name()))?;
    }
    let mut read = 0;
    let mut chunk = [0u8; CHUNK];
    let mut out = Buffer::new();
    loop {
        let (n, hint) = context.decompress_stream(&mut chunk, data, &mut read).map_err(|code| Failure::Corrupt(code.name()))?;
        if out.len() + n > cap {
            return Err(Failure::SizeCap((out.len() + n) as u64));
        }
        out.extend(chunk.get(..n).unwrap_or_default()).map_err(Failure::OutOfMemory)?;
        let consumed = read == data.len();
        if hint == 0 && consumed {
            // The last frame is complete and nothing follows it.
            return Ok(out);
        }
        if consumed && n < CHUNK && hint != 0 {
            // All input read, room left for output, and the frame wants more.
            return Err(Failure::Corrupt(b"incomplete frame"));
        }
    }
}

/// Largest zstd block: 128 KiB (the format's `Block_Maximum_Size`).
const MAX_BLOCK: u64 = 128 << 10;
/// Fewest bytes a block of `MAX_BLOCK` decoded bytes takes: a 3-byte header
/// and one byte repeated (an RLE block). No block expands more.
const MIN_FULL_BLOCK: u64 = 4;

/// The most content `len` bytes of zstd frames can decode to: every 4 bytes
/// an RLE block of 128 KiB (frame headers only lower it).
pub fn max_content_size(len: usize) -> u64 {
    (len as u64).div_ceil(MIN_FULL_BLOCK).saturating_mul(MAX_BLOCK)
}

/// A single frame declaring `size` bytes (already checked against the cap
/// and the ratio ceiling) decoded in one call straight into a buffer of that
/// size. `None` when the data is not exactly that.
fn decompress_declared(data: &[u8], size: usize) -> Result<Option<Buffer>, Failure> {
    let mut out = Buffer::zeroed(size).map_err(Failure::OutOfMemory)?;
    let Some(mut context) = DCtx::try_create() else { return Ok(None) };
    let written = context.decompress(out.as_mut_slice(), data);
    Ok((written == Ok(size)).then_some(out))
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

    fn bytes(result: Result<Buffer, Failure>) -> Result<Vec<u8>, Failure> {
        result.map(|out| out.as_slice().to_vec())
    }

    #[test]
    fn declared_sizes_are_checked_against_the_cap_then_the_ratio_ceiling() {
        assert_eq!(bytes(decompress(&rle_frame(1000, 1000), 999)), Err(Failure::SizeCap(1000)));
        // 13 bytes can hold at most 4 RLE blocks: 512 KiB.
        assert_eq!(max_content_size(13), 4 * (128 << 10));
        assert!(matches!(decompress(&rle_frame(256 << 20, 1000), 256 << 20), Err(Failure::Corrupt(_))));
        // A claim within the ceiling that the frame does not fill is an error too.
        assert!(matches!(decompress(&rle_frame(400 << 10, 1000), 1 << 20), Err(Failure::Corrupt(_))));
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
            assert!(matches!(decompress(&frame_with_window(log, 1), 4096), Err(Failure::Corrupt(_))), "window 2^{log}");
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
        // Truncated within the second frame: libzstd wants more input.
        assert_eq!(bytes(decompress(&two[..two.len() - 1], 4096)), Err(Failure::Corrupt(b"incomplete frame")));
        assert_eq!(bytes(decompress(b"not a frame", 4096)), Err(Failure::Corrupt(b"bad frame header")));
        assert_eq!(bytes(decompress(&[], 4096)), Err(Failure::Corrupt(b"bad frame header")));
        // Garbage after a complete frame: libzstd's own error name.
        let mut trailing = rle_frame(10, 10);
        trailing.extend_from_slice(b"garbage!");
        assert!(matches!(decompress(&trailing, 4096), Err(Failure::Corrupt(name)) if name.starts_with(b"Unknown frame descriptor")));
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
