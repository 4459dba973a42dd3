//! Huffman coding of literals (RFC 8878 section 4.2): the tree description
//! (weights written directly or FSE-compressed), the decoding table built
//! from the weights, and the decoding of one stream.

use crate::bits::BackwardBits;
use crate::failure::Failure::{self, Corrupt};
use crate::fse;

/// The longest code libzstd decodes (the format says 11; libzstd takes 12).
const MAX_BITS: u32 = 12;

/// A decoding table: `1 << bits` entries of (symbol, code length).
pub struct Huffman {
    bits: u32,
    entries: [(u8, u8); 1 << MAX_BITS],
}

impl Huffman {
    pub const fn new() -> Huffman {
        Huffman { bits: 0, entries: [(0, 0); 1 << MAX_BITS] }
    }

    /// The table of the tree description at the start of `data`; the bytes
    /// it took.
    pub fn read(&mut self, data: &[u8]) -> Result<usize, Failure> {
        let header = *data.first().ok_or(Corrupt(b"missing Huffman tree description"))? as usize;
        let mut weights = [0u8; 256];
        let (mut count, used) = if header < 128 {
            (fse_weights(data.get(1..1 + header).ok_or(Corrupt(b"truncated Huffman weights"))?, &mut weights)?, 1 + header)
        } else {
            // Two 4-bit weights a byte, the first in the high half.
            let count = header - 127;
            let bytes = data.get(1..1 + count.div_ceil(2)).ok_or(Corrupt(b"truncated Huffman weights"))?;
            for (i, weight) in weights.iter_mut().take(count).enumerate() {
                let byte = bytes.get(i / 2).copied().unwrap_or(0);
                *weight = if i % 2 == 0 { byte >> 4 } else { byte & 15 };
            }
            (count, 1 + count.div_ceil(2))
        };
        // The last symbol's weight is implied: it completes a power of two.
        let mut total = 0u32;
        for &weight in weights.iter().take(count) {
            if weight as u32 > MAX_BITS {
                return Err(Corrupt(b"Huffman weight too large"));
            }
            if weight > 0 {
                total += 1 << (weight - 1);
            }
        }
        let bits = total.checked_ilog2().ok_or(Corrupt(b"Huffman weights all zero"))? + 1;
        let rest = (1u32 << bits) - total;
        if bits > MAX_BITS || !rest.is_power_of_two() {
            return Err(Corrupt(b"Huffman weights do not complete a tree"));
        }
        *weights.get_mut(count).ok_or(Corrupt(b"too many Huffman weights"))? = rest.ilog2() as u8 + 1;
        count += 1;
        let mut ranks = [0u32; MAX_BITS as usize + 1];
        for &weight in weights.iter().take(count) {
            *ranks.get_mut(weight as usize).ok_or(Corrupt(b"Huffman weight too large"))? += 1;
        }
        // A complete tree has an even number (at least two) of the longest codes.
        if ranks[1] < 2 || ranks[1] % 2 != 0 {
            return Err(Corrupt(b"Huffman weights do not complete a tree"));
        }
        // Codes from the longest (weight 1) up, symbols in order within each.
        let mut start = [0usize; MAX_BITS as usize + 1];
        let mut next = 0;
        for (weight, (start, &rank)) in start.iter_mut().zip(&ranks).enumerate().skip(1) {
            *start = next;
            next += (rank as usize) << (weight - 1);
        }
        for (symbol, &weight) in weights.iter().enumerate().take(count) {
            let Some(at) = start.get_mut(weight as usize).filter(|_| weight > 0) else { continue };
            let len = 1 << (weight - 1);
            let entry = (symbol as u8, (bits + 1 - weight as u32) as u8);
            self.entries.get_mut(*at..*at + len).ok_or(Corrupt(b"corrupt Huffman table"))?.fill(entry);
            *at += len;
        }
        self.bits = bits;
        Ok(used)
    }

    /// Decode the stream `data` into every byte of `out`; the stream must end
    /// exactly there.
    pub fn decode(&self, data: &[u8], out: &mut [u8]) -> Result<(), Failure> {
        self.finish(BackwardBits::new(data)?, out)
    }

    /// Decode four streams into `out`: a quarter of it (rounded up) each, the
    /// last the rest. While each has a window left the streams take turns a
    /// symbol at a time: four independent chains of table lookups, which the
    /// processor overlaps, where one stream is a chain of dependent ones.
    /// Each stream must end exactly at its part.
    pub fn decode4(&self, [a, b, c, d]: [&[u8]; 4], out: &mut [u8]) -> Result<(), Failure> {
        let bad = Corrupt(b"bad literals size");
        let (mut a, mut b, mut c, mut d) = (BackwardBits::new(a)?, BackwardBits::new(b)?, BackwardBits::new(c)?, BackwardBits::new(d)?);
        let quarter = out.len().div_ceil(4);
        let (oa, rest) = out.split_at_mut_checked(quarter).ok_or(bad)?;
        let (ob, rest) = rest.split_at_mut_checked(quarter).ok_or(bad)?;
        let (oc, od) = rest.split_at_mut_checked(quarter).ok_or(bad)?;
        let shift = 64 - self.bits;
        let mut done = 0;
        while let (Some(mut wa), Some(mut wb), Some(mut wc), Some(mut wd)) = (a.window(), b.window(), c.window(), d.window()) {
            let (Some(ca), Some(cb), Some(cc), Some(cd)) = (chunk(oa, done), chunk(ob, done), chunk(oc, done), chunk(od, done)) else {
                break;
            };
            let (mut ua, mut ub, mut uc, mut ud) = (0, 0, 0, 0);
            for i in 0..4 {
                ca[i] = self.symbol(&mut wa, &mut ua, shift);
                cb[i] = self.symbol(&mut wb, &mut ub, shift);
                cc[i] = self.symbol(&mut wc, &mut uc, shift);
                cd[i] = self.symbol(&mut wd, &mut ud, shift);
            }
            a.consume(ua);
            b.consume(ub);
            c.consume(uc);
            d.consume(ud);
            done += 4;
        }
        for (bits, out) in [(a, oa), (b, ob), (c, oc), (d, od)] {
            self.finish(bits, out.get_mut(done..).unwrap_or_default())?;
        }
        Ok(())
    }

    /// The symbol at the top of `window`, its code shifted out and its
    /// length added to `used`.
    #[inline(always)]
    fn symbol(&self, window: &mut u64, used: &mut u32, shift: u32) -> u8 {
        // Masked to the table's size: no bounds check.
        let (symbol, len) = self.entries[(*window >> shift) as usize & ((1 << MAX_BITS) - 1)];
        *window <<= len;
        *used += u32::from(len);
        symbol
    }

    /// Decode from `bits` into every byte of `out`; the stream must end
    /// exactly there.
    fn finish(&self, mut bits: BackwardBits, out: &mut [u8]) -> Result<(), Failure> {
        let shift = 64 - self.bits;
        // Four codes (48 bits at most) from each 57-bit window while there is one.
        for chunk in out.chunks_mut(4) {
            if let Some(mut window) = bits.window() {
                let mut used = 0;
                for byte in chunk {
                    *byte = self.symbol(&mut window, &mut used, shift);
                }
                bits.consume(used);
            } else {
                for byte in chunk {
                    let (symbol, len) = self.entries[bits.peek(self.bits) as usize & ((1 << MAX_BITS) - 1)];
                    *byte = symbol;
                    bits.consume(len.into());
                }
            }
        }
        if !bits.finished() {
            return Err(Corrupt(b"Huffman stream not consumed exactly"));
        }
        Ok(())
    }
}

/// The 4 bytes of `out` at `at`, when it has them.
#[inline(always)]
fn chunk(out: &mut [u8], at: usize) -> Option<&mut [u8; 4]> {
    out.get_mut(at..)?.first_chunk_mut()
}

/// FSE-compressed weights (section 4.2.1.2): two states taking turns until
/// the stream runs out; the number of weights decoded.
fn fse_weights(data: &[u8], weights: &mut [u8; 256]) -> Result<usize, Failure> {
    let mut table = fse::Table::new();
    let used = table.read(data, 6, 255)?;
    let mut bits = BackwardBits::new(data.get(used..).unwrap_or_default())?;
    let mut current = table.start(&mut bits);
    let mut other = table.start(&mut bits);
    let mut count = 0;
    loop {
        *weights.get_mut(count).filter(|_| count < 254).ok_or(Corrupt(b"too many Huffman weights"))? = table.entry(current).symbol;
        count += 1;
        current = table.next(current, &mut bits);
        if bits.overflowed() {
            // The other state's symbol is the last weight.
            *weights.get_mut(count).ok_or(Corrupt(b"too many Huffman weights"))? = table.entry(other).symbol;
            return Ok(count + 1);
        }
        core::mem::swap(&mut current, &mut other);
    }
}
