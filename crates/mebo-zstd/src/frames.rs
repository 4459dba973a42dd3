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
