//! The backward bit reader (RFC 8878 section 4.1): FSE and Huffman streams
//! are written forward and read from their last byte, whose highest set bit
//! marks where the stream starts. Reads past the stream's start give zero
//! bits and leave the position negative, which the callers check: a stream
//! must end exactly at its start.

use crate::failure::Failure::{self, Corrupt};

pub struct BackwardBits<'a> {
    data: &'a [u8],
    /// Bits not yet read; negative once reads went past the stream's start.
    pos: isize,
}

impl<'a> BackwardBits<'a> {
    pub fn new(data: &'a [u8]) -> Result<Self, Failure> {
        let last = *data.last().ok_or(Corrupt(b"empty bitstream"))?;
        if last == 0 {
            return Err(Corrupt(b"bitstream without its end mark"));
        }
        let pos = data.len() as isize * 8 - 1 - last.leading_zeros() as isize;
        Ok(BackwardBits { data, pos })
    }

    /// The 64 bits starting at byte `at` (zeros past the end).
    #[inline(always)]
    fn word(&self, at: usize) -> u64 {
        match self.data.get(at..).and_then(<[u8]>::first_chunk) {
            Some(&word) => u64::from_le_bytes(word),
            None => {
                let mut word = 0;
                for (i, &byte) in self.data.iter().skip(at).take(8).enumerate() {
                    word |= u64::from(byte) << (8 * i);
                }
                word
            }
        }
    }

    /// The next `n` (at most 32) bits, not consumed.
    #[inline(always)]
    pub fn peek(&self, n: u32) -> u64 {
        let low = self.pos - n as isize;
        if low >= 0 {
            let low = low as usize;
            (self.word(low / 8) >> (low % 8)) & ((1 << n) - 1)
        } else {
            // Past the start: the stream's remaining bits, then zeros.
            let missing = low.unsigned_abs().min(64) as u32;
            if missing >= n {
                0
            } else {
                (self.word(0) & ((1 << (n - missing)) - 1)) << missing
            }
        }
    }

    /// The next bits with the first at the top, at least 57 of them; `None`
    /// when fewer than 64 are left (then `peek` reads them).
    #[inline]
    pub fn window(&self) -> Option<u64> {
        let low = usize::try_from(self.pos - 64).ok()?;
        let at = low.div_ceil(8);
        // Always 8 bytes there (64 bits left): no fallback to read bytewise.
        let word = u64::from_le_bytes(*self.data.get(at..)?.first_chunk()?);
        Some(word << (at * 8 - low))
    }

    #[inline]
    pub fn consume(&mut self, n: u32) {
        self.pos -= n as isize;
    }

    /// Read `n` (at most 32) bits.
    #[inline(always)]
    pub fn read(&mut self, n: u32) -> u64 {
        let value = self.peek(n);
        self.consume(n);
        value
    }

    /// Reads went past the stream's start.
    pub fn overflowed(&self) -> bool {
        self.pos < 0
    }

    /// Every bit read, none past the start.
    pub fn finished(&self) -> bool {
        self.pos == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_from_the_end_after_the_mark() {
        // 0b0000_0101 0b1000_0011: the mark is the top bit of the last byte,
        // then 0000011 0000 0101 read from the highest bit down.
        let mut bits = BackwardBits::new(&[0b0000_0101, 0b1000_0011]).unwrap();
        assert_eq!(bits.read(3), 0b000);
        assert_eq!(bits.read(4), 0b0011);
        assert_eq!(bits.peek(8), 0b0000_0101);
        assert_eq!(bits.read(5), 0b00000);
        assert_eq!(bits.read(3), 0b101);
        assert!(bits.finished());
        assert_eq!(bits.read(2), 0);
        assert!(bits.overflowed());
        assert!(BackwardBits::new(&[1, 0]).is_err());
        assert!(BackwardBits::new(&[]).is_err());
    }

    #[test]
    fn windows_hold_the_next_bits_at_the_top() {
        let data: Vec<u8> = (1..=12).collect();
        let mut bits = BackwardBits::new(&data).unwrap();
        for _ in 0..3 {
            let window = bits.window().unwrap();
            assert_eq!(window >> 51, bits.peek(13));
            bits.consume(7);
        }
        bits.consume(bits.pos as u32 - 63);
        assert!(bits.window().is_none());
    }

    #[test]
    fn peeks_past_the_start_fill_with_zeros() {
        let mut bits = BackwardBits::new(&[0b1011_0110]).unwrap();
        assert_eq!(bits.peek(9), 0b0_1101_1000); // 0110110 then two zeros
        bits.consume(3);
        assert_eq!(bits.peek(6), 0b01_1000); // 0110 then two zeros
        assert_eq!(bits.read(32), 0b0110 << 28);
    }
}
