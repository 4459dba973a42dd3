//! The frame: header, then the input cut into 128 KiB blocks.

use super::block::{BlockEncoder, Offsets};
use super::double_fast::{BlockMatches, MatchFinder, Mode, MAX_MATCH_OFFSET};

const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const MAX_BLOCK_SIZE: usize = 128 << 10;
const MIN_WINDOW_SIZE: usize = 1 << 10;
/// The repeat offsets every frame starts with.
const INITIAL_OFFSETS: [u32; 2] = [1, 4];

/// Compress `src` into one frame, as klauspost's `EncodeAll` at SpeedDefault
/// without checksum.
pub(super) fn encode_all(src: &[u8]) -> Vec<u8> {
    let mut dst = Vec::with_capacity(src.len().min(1 << 20) + 32);
    write_header(src.len(), &mut dst);
    if src.is_empty() {
        // One empty raw block, marked last.
        dst.extend_from_slice(&[1, 0, 0]);
        return dst;
    }
    FINDER.with(|finder| {
        let mut finder = finder.borrow_mut();
        finder.start_frame(src.len());
        encode_blocks(src, &mut finder, &mut dst);
    });
    dst
}

thread_local! {
    /// The match finder's tables (640 KB), kept across frames: a small payload
    /// would otherwise cost more in clearing them than in encoding.
    static FINDER: std::cell::RefCell<MatchFinder> = std::cell::RefCell::new(MatchFinder::new());
}

/// The blocks of a frame holding `src` (not empty), appended to `dst`.
fn encode_blocks(src: &[u8], finder: &mut MatchFinder, dst: &mut Vec<u8>) {
    let mut blocks = BlockEncoder::new();
    let mut matches = BlockMatches::default();
    let mut rep = INITIAL_OFFSETS;
    if src.len() <= MAX_BLOCK_SIZE {
        // One block: the reference's history-free loop.
        finder.find(src, 0, &mut rep, Mode::SingleBlock, &mut matches);
        blocks.encode(src, &matches, true, dst);
        return;
    }
    let mut start = 0;
    while start < src.len() {
        let end = (start + MAX_BLOCK_SIZE).min(src.len());
        let before = rep;
        finder.find(&src[..end], start, &mut rep, Mode::WithHistory, &mut matches);
        if blocks.encode(&src[start..end], &matches, end == src.len(), dst) == Offsets::Restore {
            rep = before;
        }
        start = end;
    }
}

/// Frame header: no dictionary, no checksum. Inputs above 1 KiB and within the
/// 8 MiB window are "single segment" (no window descriptor) and state their
/// size; smaller ones declare the smallest power-of-two window that holds them
/// (at least 1 KiB) and state their size only from 256 bytes on; larger ones
/// declare the 8 MiB window.
fn write_header(len: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&MAGIC);
    let single = if len == 0 { true } else { len <= MAX_MATCH_OFFSET && len > MIN_WINDOW_SIZE };
    let size = len as u64;
    let fcs: u8 = match size {
        0..=255 => 0,
        256..=65_791 => 1,
        65_792..=0xFFFF_FFFE => 2,
        _ => 3,
    };
    out.push((u8::from(single) << 5) | (fcs << 6));
    if !single {
        let window =
            if len < MAX_MATCH_OFFSET { (1usize << (usize::BITS - len.leading_zeros())).max(MIN_WINDOW_SIZE) } else { MAX_MATCH_OFFSET };
        let window_log = usize::BITS - (window - 1).leading_zeros();
        out.push(((window_log - 10) << 3) as u8);
    }
    match fcs {
        0 if single => out.push(size as u8),
        0 => {}
        1 => out.extend_from_slice(&((size - 256) as u16).to_le_bytes()),
        2 => out.extend_from_slice(&(size as u32).to_le_bytes()),
        _ => out.extend_from_slice(&size.to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        write_header(len, &mut out);
        out[4..].to_vec()
    }

    #[test]
    fn headers_match_the_reference() {
        // Bytes the reference writes for these sizes.
        assert_eq!(header(0), [0x20, 0x00]);
        assert_eq!(header(6), [0x00, 0x00]);
        assert_eq!(header(300), [0x40, 0x00, 0x2C, 0x00]);
        assert_eq!(header(1024), [0x40, 0x08, 0x00, 0x03]);
        assert_eq!(header(1025), [0x60, 0x01, 0x03]);
        assert_eq!(header(65_792), [0xA0, 0x00, 0x01, 0x01, 0x00]);
        assert_eq!(header(8 << 20), [0xA0, 0x00, 0x00, 0x80, 0x00]);
        assert_eq!(header((8 << 20) + 1), [0x80, 0x68, 0x01, 0x00, 0x80, 0x00]);
    }

    #[test]
    fn the_empty_frame() {
        assert_eq!(encode_all(&[]), [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00, 0x01, 0x00, 0x00]);
    }

    #[test]
    fn tiny_inputs_are_one_raw_block() {
        assert_eq!(encode_all(b"hello\n"), b"\x28\xb5\x2f\xfd\x00\x00\x31\x00\x00hello\n");
    }
}
