//! Forward bit writer shared by the Huffman, FSE and sequence streams.
//!
//! Zstandard bit streams are little endian: the first bit written is the lowest
//! bit of the first byte. The reference flushes in 32-bit steps at points of its
//! own choosing, but a flush only ever moves whole bytes, so the bytes depend on
//! the order of the bits alone and this writer may flush whenever it likes.

pub(super) struct BitWriter {
    out: Vec<u8>,
    container: u64,
    /// Bits held in `container`, always below 32 between calls.
    bits: u32,
}

impl BitWriter {
    /// Continue writing at the end of `out`.
    pub(super) fn new(out: Vec<u8>) -> Self {
        Self { out, container: 0, bits: 0 }
    }

    /// Append the low `count` bits of `value` (`count` at most 32; higher bits
    /// of `value` are ignored).
    pub(super) fn add(&mut self, value: u64, count: u32) {
        debug_assert!(count <= 32);
        let mask = (1u64 << count) - 1;
        self.container |= (value & mask) << self.bits;
        self.bits += count;
        if self.bits >= 32 {
            self.out.extend_from_slice(&(self.container as u32).to_le_bytes());
            self.container >>= 32;
            self.bits -= 32;
        }
    }

    /// Write the end mark (a single 1 bit the decoder searches for), pad to a
    /// byte and return the buffer.
    pub(super) fn close(mut self) -> Vec<u8> {
        self.add(1, 1);
        let bytes = self.bits.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.container.to_le_bytes()[..bytes]);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_fill_bytes_from_the_lowest_bit() {
        let mut w = BitWriter::new(vec![0xAA]);
        w.add(0b101, 3);
        w.add(0xFFFF_FFFF, 2); // only the low two bits count
        w.add(0x2345_6789, 32);
        w.add(0x1, 4);
        let out = w.close();
        // 3 + 2 + 36 + end mark = 42 bits, 6 bytes after the kept prefix.
        assert_eq!(out.len(), 7);
        assert_eq!(out[0], 0xAA);
        let mut v = 0u64;
        for (i, b) in out[1..].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        assert_eq!(v & 0b111, 0b101);
        assert_eq!((v >> 3) & 0b11, 0b11);
        assert_eq!((v >> 5) & ((1 << 36) - 1), 0x1_2345_6789);
        assert_eq!(v >> 41, 1, "end mark, then zero padding");
    }

    #[test]
    fn close_of_an_empty_writer_is_one_byte() {
        assert_eq!(BitWriter::new(Vec::new()).close(), [1]);
    }
}
