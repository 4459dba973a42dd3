//! The literals section of a compressed block (RFC 8878 section 3.1.1.3.1):
//! raw, RLE, Huffman-compressed with a new tree or the previous one
//! (treeless), in one stream or four.

use crate::buffer::Buffer;
use crate::failure::Failure::{self, Corrupt};
use crate::huffman::Huffman;
use crate::MAX_BLOCK;

/// The literals section at the start of `block`: the literals (in the block
/// itself when raw, else decoded into `scratch`) and the bytes it took.
/// `huffman` is the frame's last tree, `None` before its first.
pub fn read<'a>(block: &'a [u8], huffman: &mut Option<Huffman>, scratch: &'a mut Buffer) -> Result<(&'a [u8], usize), Failure> {
    let truncated = Corrupt(b"truncated literals section");
    let mut header = [0u8; 5];
    for (byte, &value) in header.iter_mut().zip(block) {
        *byte = value;
    }
    let kind = header[0] & 3;
    let format = (header[0] >> 2) & 3;
    let value = u64::from_le_bytes([header[0], header[1], header[2], header[3], header[4], 0, 0, 0]);
    if kind < 2 {
        // Raw or RLE: the size in 5, 12 or 20 bits.
        let (size, start) = match format {
            0 | 2 => ((value >> 3) & 31, 1),
            1 => ((value >> 4) & 0xfff, 2),
            _ => ((value >> 4) & 0xfffff, 3),
        };
        let size = size as usize;
        if size > MAX_BLOCK || start > block.len() {
            return Err(Corrupt(b"literals section too large"));
        }
        if kind == 0 {
            return Ok((block.get(start..start + size).ok_or(truncated)?, start + size));
        }
        let byte = *block.get(start).ok_or(truncated)?;
        // Written once, not zero-filled first (the scratch keeps its capacity).
        scratch.clear();
        scratch.extend_repeated(byte, size).map_err(Failure::OutOfMemory)?;
        return Ok((scratch.as_slice(), start + 1));
    }
    // Compressed: regenerated and compressed sizes of 10, 14 or 18 bits.
    let (streams, start, width) = match format {
        0 => (1, 3, 10),
        1 => (4, 3, 10),
        2 => (4, 4, 14),
        _ => (4, 5, 18),
    };
    let mask = (1 << width) - 1;
    let size = ((value >> 4) & mask) as usize;
    let compressed = ((value >> (4 + width)) & mask) as usize;
    if size > MAX_BLOCK || (streams == 4 && size < 6) {
        return Err(Corrupt(b"bad literals size"));
    }
    let mut body = block.get(start..start + compressed).ok_or(truncated)?;
    if kind == 2 {
        let tree = huffman.get_or_insert_with(Huffman::new);
        let used = tree.read(body)?;
        body = body.get(used..).unwrap_or_default();
    }
    let tree = huffman.as_ref().ok_or(Corrupt(b"treeless literals without a previous tree"))?;
    let out = room(scratch, size)?;
    if streams == 1 {
        tree.decode(body, out)?;
    } else {
        // A jump table of the first three streams' sizes, then the streams.
        let (jump, streams) = body.split_at_checked(6).ok_or(truncated)?;
        let mut at = 0;
        let mut parts = [&[][..]; 4];
        for (i, part) in parts.iter_mut().enumerate() {
            let len = match jump.get(2 * i..2 * i + 2) {
                Some(&[a, b]) if i < 3 => u16::from_le_bytes([a, b]) as usize,
                _ => streams.len().saturating_sub(at),
            };
            *part = streams.get(at..at + len).ok_or(Corrupt(b"bad literals jump table"))?;
            at += len;
        }
        tree.decode4(parts, out)?;
    }
    Ok((out, start + compressed))
}

/// The first `size` bytes of `scratch` for Huffman decoding to overwrite,
/// the scratch grown (zero-filled) to hold them when it must grow.
fn room(scratch: &mut Buffer, size: usize) -> Result<&mut [u8], Failure> {
    if scratch.len() < size {
        scratch.extend_repeated(0, size - scratch.len()).map_err(Failure::OutOfMemory)?;
    }
    scratch.as_mut_slice().get_mut(..size).ok_or(Corrupt(b"bad literals size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An RLE literals section of `size` (below 32) copies of `byte`.
    fn rle(size: u8, byte: u8) -> [u8; 2] {
        [1 | (size << 3), byte]
    }

    #[test]
    fn rle_literals_are_exactly_their_bytes_in_a_reused_scratch() {
        let mut scratch = Buffer::new();
        let mut huffman = None;
        let (a, b, c) = (rle(20, b'a'), rle(3, b'b'), rle(0, b'c'));
        let (literals, used) = read(&a, &mut huffman, &mut scratch).unwrap();
        assert_eq!((literals, used), (&[b'a'; 20][..], 2));
        let (literals, used) = read(&b, &mut huffman, &mut scratch).unwrap();
        assert_eq!((literals, used), (&b"bbb"[..], 2));
        let (literals, _) = read(&c, &mut huffman, &mut scratch).unwrap();
        assert!(literals.is_empty());
        // Raw literals are the block's own bytes.
        let block = [(5 << 3), 1, 2, 3, 4, 5, 9];
        assert_eq!(read(&block, &mut huffman, &mut scratch).unwrap(), (&[1, 2, 3, 4, 5][..], 6));
        assert!(read(&[1 | (4 << 3)], &mut huffman, &mut scratch).is_err());
    }
}
