//! Frames (RFC 8878 section 3.1): the magic number, the frame header
//! (window, dictionary, content size), the blocks (raw, RLE, compressed)
//! and the content checksum; skippable frames (section 3.1.2).

use crate::buffer::Buffer;
use crate::failure::Failure::{self, Corrupt, SizeCap};
use crate::huffman::Huffman;
use crate::literals;
use crate::sequences::{self, History, Output};
use crate::MAX_BLOCK;

const MAGIC: u32 = 0xfd2f_b528;
/// Skippable frames' magic numbers: 0x184D2A50 to 0x184D2A5F.
const SKIPPABLE: u32 = 0x184d_2a50;
/// The largest window libzstd accepts (2^31 bytes).
const MAX_WINDOW_LOG: u32 = 31;

/// Bytes the core crate's decoder and the part before it read a frame's
/// output in: a stream past the cap is reported at the end of the chunk
/// that passed it (or of the frame, when that comes first).
const CHUNK: u64 = 64 << 10;

/// A frame header.
#[derive(Clone, Copy)]
pub enum Header {
    /// A skippable frame of this many bytes in all.
    Skippable(usize),
    Frame {
        /// The header's length, magic number included.
        len: usize,
        window: u64,
        content_size: Option<u64>,
        checksum: bool,
    },
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    match data.get(at..at + 4) {
        Some(&[a, b, c, d]) => Some(u32::from_le_bytes([a, b, c, d])),
        _ => None,
    }
}

/// The header at the start of `data`.
pub fn header(data: &[u8]) -> Result<Header, Failure> {
    let bad = Corrupt(b"bad frame header");
    let magic = u32_at(data, 0).ok_or(bad)?;
    if magic & !15 == SKIPPABLE {
        let len = u32_at(data, 4).ok_or(bad)? as usize;
        return Ok(Header::Skippable(8usize.checked_add(len).ok_or(bad)?));
    }
    if magic != MAGIC {
        return Err(Corrupt(b"unknown frame magic number"));
    }
    let descriptor = *data.get(4).ok_or(bad)?;
    if descriptor & 8 != 0 {
        return Err(Corrupt(b"reserved bit set in the frame header"));
    }
    let single_segment = descriptor & 32 != 0;
    let mut at = 5;
    let mut window = 0;
    if !single_segment {
        let byte = *data.get(at).ok_or(bad)?;
        let log = 10 + u32::from(byte >> 3);
        if log > MAX_WINDOW_LOG {
            return Err(Corrupt(b"window too large"));
        }
        window = (1u64 << log) + (1u64 << log) / 8 * u64::from(byte & 7);
        at += 1;
    }
    let dictionary_len = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let dictionary = little_endian(data.get(at..at + dictionary_len).ok_or(bad)?);
    if dictionary != 0 {
        return Err(Corrupt(b"frame needs a dictionary"));
    }
    at += dictionary_len;
    let size_len = match descriptor >> 6 {
        0 => usize::from(single_segment),
        flag => 1 << flag,
    };
    let size = little_endian(data.get(at..at + size_len).ok_or(bad)?) + if size_len == 2 { 256 } else { 0 };
    let content_size = (size_len > 0).then_some(size);
    if single_segment {
        window = size;
    }
    Ok(Header::Frame { len: at + size_len, window, content_size, checksum: descriptor & 4 != 0 })
}

fn little_endian(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |value, &byte| value << 8 | u64::from(byte))
}

/// What frames share while decoding: the last Huffman tree and sequence
/// tables (reset at each frame), the literals' scratch buffer, and where
/// the frame, block or section being read starts in the payload (a
/// failure's place: kept here rather than in every `Failure`, which would
/// cost each of the checks' returns a field).
pub struct Decoder {
    pub huffman: Option<Huffman>,
    pub history: History,
    pub scratch: Buffer,
    pub at: usize,
}

/// Decode the frame at `start` in `data`, whose header
/// (`header(&data[start..])`) is `header`, onto `out`, which never goes past
/// `cap`; windows past `max_window` are refused when the frame states no
/// content size. Where the frame ends.
pub fn decode(
    data: &[u8],
    start: usize,
    header: Header,
    out: &mut Buffer,
    cap: usize,
    max_window: u64,
    decoder: &mut Decoder,
) -> Result<usize, Failure> {
    decoder.at = start;
    let (mut at, window, content_size, checksum) = match header {
        Header::Skippable(len) => {
            return start.checked_add(len).filter(|&end| end <= data.len()).ok_or(Corrupt(b"truncated skippable frame"))
        }
        Header::Frame { len, window, content_size, checksum } => (start + len, window, content_size, checksum),
    };
    if content_size.is_none() && window > max_window {
        return Err(Corrupt(b"frame window larger than the cap allows"));
    }
    decoder.huffman = None;
    decoder.history.reset();
    let frame_start = out.len();
    // Frame's end as declared: output past it is corruption, not the cap.
    let declared_end = content_size.map_or(u64::MAX, |size| (frame_start as u64).saturating_add(size));
    let block_max = window.min(MAX_BLOCK as u64) as usize;
    loop {
        let block_at = at;
        decoder.at = block_at;
        let block = data.get(at..at + 3).ok_or(Corrupt(b"truncated block header"))?;
        let block = little_endian(block) as usize;
        at += 3;
        let (last, kind, size) = (block & 1 != 0, (block >> 1) & 3, block >> 3);
        let block_start = out.len();
        let limit = (cap as u64).min(declared_end).min(block_start as u64 + block_max as u64) as usize;
        let mut output = Output { out, frame_start, limit };
        let result = match kind {
            0 => {
                let bytes = data.get(at..at + size).ok_or(Corrupt(b"truncated raw block"))?;
                at += size;
                sequences::push_checked(&mut output, bytes, (block_start + size) as u64)
            }
            1 => {
                let byte = *data.get(at).ok_or(Corrupt(b"truncated RLE block"))?;
                at += 1;
                rle(&mut output, byte, size)
            }
            2 => {
                if size > MAX_BLOCK {
                    return Err(Corrupt(b"block larger than its maximum size"));
                }
                let block = data.get(at..at + size).ok_or(Corrupt(b"truncated compressed block"))?;
                decoder.at = at;
                let (literals, used) = literals::read(block, &mut decoder.huffman, &mut decoder.scratch)?;
                decoder.at = at + used;
                at += size;
                sequences::execute(block.get(used..).unwrap_or_default(), literals, &mut decoder.history, &mut output)
            }
            _ => Err(Corrupt(b"reserved block type")),
        };
        if let Err(SizeCap(block_end)) = result {
            decoder.at = block_at;
            if block_end.saturating_sub(block_start as u64) > block_max as u64 {
                return Err(Corrupt(b"block larger than its maximum size"));
            }
            if block_end > declared_end {
                return Err(Corrupt(b"frame larger than its declared content size"));
            }
            // The core reports the end of the 64 KiB chunk (counted from the
            // frame's start) that passed the cap, or the frame's end.
            let chunk_end = frame_start as u64 + ((cap - frame_start) as u64 / CHUNK + 1) * CHUNK;
            let frame_end = if content_size.is_some() { declared_end } else { block_end };
            return Err(SizeCap(chunk_end.min(frame_end)));
        }
        result?;
        if last {
            break;
        }
    }
    let content = out.as_slice().get(frame_start..).unwrap_or_default();
    if content_size.is_some_and(|size| size != content.len() as u64) {
        decoder.at = start;
        return Err(Corrupt(b"frame content size mismatch"));
    }
    if checksum {
        decoder.at = at;
        let stored = u32_at(data, at).ok_or(Corrupt(b"truncated checksum"))?;
        if stored != xxhash_rust::xxh64::xxh64(content, 0) as u32 {
            return Err(Corrupt(b"checksum mismatch"));
        }
        at += 4;
    }
    Ok(at)
}

/// `size` copies of `byte`.
fn rle(output: &mut Output, byte: u8, size: usize) -> Result<(), Failure> {
    let start = output.out.len();
    if start + size > output.limit {
        return Err(SizeCap((start + size) as u64));
    }
    output.out.extend_repeated(byte, size).map_err(Failure::OutOfMemory)
}
