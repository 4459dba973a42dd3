//! Finite State Entropy (RFC 8878 section 4.1): a table description of
//! normalized counts, the decoding table built from them, and the predefined
//! distributions of the sequence fields.

use crate::bits::BackwardBits;
use crate::failure::Failure::{self, Corrupt};

/// The largest accuracy log any FSE table of the format has (literal and
/// match lengths: 9).
const MAX_LOG: u32 = 9;

#[derive(Clone, Copy, Default)]
pub struct Entry {
    pub symbol: u8,
    bits: u8,
    base: u16,
}

/// A decoding table: `1 << log` states.
#[derive(Clone)]
pub struct Table {
    log: u32,
    entries: [Entry; 1 << MAX_LOG],
}

impl Table {
    pub const fn new() -> Table {
        Table { log: 0, entries: [Entry { symbol: 0, bits: 0, base: 0 }; 1 << MAX_LOG] }
    }

    /// A table of one symbol that reads no bits (a sequence field's RLE mode).
    pub fn rle(&mut self, symbol: u8) {
        self.log = 0;
        self.entries[0] = Entry { symbol, bits: 0, base: 0 };
    }

    /// The table of the description at the start of `data` (at most
    /// `max_log` and symbols up to `max_symbol`); the bytes it took.
    pub fn read(&mut self, data: &[u8], max_log: u32, max_symbol: usize) -> Result<usize, Failure> {
        let mut counts = [0i16; 256];
        let mut bits = ForwardBits { data, pos: 0 };
        let log = bits.read(4) + 5;
        if log > max_log {
            return Err(Corrupt(b"FSE accuracy log too large"));
        }
        let mut remaining = (1 << log) + 1;
        let mut threshold = 1 << log;
        let mut width = log + 1;
        let mut symbol = 0;
        while remaining > 1 {
            if symbol > max_symbol {
                return Err(Corrupt(b"FSE table has too many symbols"));
            }
            // Values below `small` take one bit less (section 4.1.1).
            let small = 2 * threshold - 1 - remaining;
            let raw = bits.peek(width);
            let value = if raw & (threshold - 1) < small {
                bits.pos += width as usize - 1;
                raw & (threshold - 1)
            } else {
                bits.pos += width as usize;
                let value = raw & (2 * threshold - 1);
                if value >= threshold {
                    value - small
                } else {
                    value
                }
            };
            let count = value as i32 - 1;
            remaining -= count.unsigned_abs();
            *counts.get_mut(symbol).ok_or(Corrupt(b"FSE table has too many symbols"))? = count as i16;
            symbol += 1;
            if count == 0 {
                // Zero counts are followed by 2-bit repeat flags.
                loop {
                    let repeat = bits.read(2) as usize;
                    symbol += repeat;
                    if repeat != 3 {
                        break;
                    }
                }
            }
            while remaining < threshold && threshold > 1 {
                width -= 1;
                threshold >>= 1;
            }
        }
        let used = bits.pos.div_ceil(8);
        if remaining != 1 || symbol > max_symbol + 1 || used > data.len() {
            return Err(Corrupt(b"corrupt FSE table description"));
        }
        self.build(counts.get(..symbol).unwrap_or_default(), log)?;
        Ok(used)
    }

    /// The decoding table of normalized `counts` (-1: "less than one").
    pub fn build(&mut self, counts: &[i16], log: u32) -> Result<(), Failure> {
        let size = 1usize << log;
        let mut next = [0u16; 256];
        let mut high = size;
        for ((symbol, &count), next) in counts.iter().enumerate().zip(&mut next) {
            if count == -1 {
                high -= 1;
                *self.entries.get_mut(high).ok_or(Corrupt(b"corrupt FSE table"))? = Entry { symbol: symbol as u8, bits: 0, base: 0 };
                *next = 1;
            } else {
                *next = count as u16;
            }
        }
        let step = (size >> 1) + (size >> 3) + 3;
        let mask = size - 1;
        let mut pos = 0;
        for (symbol, &count) in counts.iter().enumerate() {
            for _ in 0..count.max(0) {
                *self.entries.get_mut(pos).ok_or(Corrupt(b"corrupt FSE table"))? = Entry { symbol: symbol as u8, bits: 0, base: 0 };
                pos = (pos + step) & mask;
                while pos >= high {
                    pos = (pos + step) & mask;
                }
            }
        }
        if pos != 0 {
            return Err(Corrupt(b"corrupt FSE table"));
        }
        for entry in self.entries.iter_mut().take(size) {
            let n = next.get_mut(entry.symbol as usize).ok_or(Corrupt(b"corrupt FSE table"))?;
            let state = *n as u32;
            *n += 1;
            let bits = state.checked_ilog2().and_then(|high| log.checked_sub(high)).ok_or(Corrupt(b"corrupt FSE table"))?;
            entry.bits = bits as u8;
            entry.base = ((state << bits).wrapping_sub(size as u32)) as u16;
        }
        self.log = log;
        Ok(())
    }

    /// A first state, read from `bits`.
    #[inline]
    pub fn start(&self, bits: &mut BackwardBits) -> usize {
        bits.read(self.log) as usize
    }

    /// The state's entry (its symbol); states stay below the table's size.
    #[inline]
    pub fn entry(&self, state: usize) -> Entry {
        self.entries.get(state).copied().unwrap_or_default()
    }

    /// The state after `state`.
    #[inline]
    pub fn next(&self, state: usize, bits: &mut BackwardBits) -> usize {
        let entry = self.entry(state);
        entry.base as usize + bits.read(entry.bits.into()) as usize
    }
}

/// The little-endian forward bit reader of table descriptions.
struct ForwardBits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl ForwardBits<'_> {
    /// The next `n` (at most 16) bits, zeros past the end.
    fn peek(&self, n: u32) -> u32 {
        let at = self.pos / 8;
        let mut word = 0u32;
        for (i, &byte) in self.data.iter().skip(at).take(4).enumerate() {
            word |= u32::from(byte) << (8 * i);
        }
        (word >> (self.pos % 8)) & ((1 << n) - 1)
    }

    fn read(&mut self, n: u32) -> u32 {
        let value = self.peek(n);
        self.pos += n as usize;
        value
    }
}

/// Normalized counts and their accuracy log.
pub type Distribution = (&'static [i16], u32);

/// The predefined distributions (RFC 8878 section 3.1.1.3.2.2).
pub const LITERAL_LENGTHS: Distribution =
    (&[4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1], 6);
pub const MATCH_LENGTHS: Distribution = (
    &[
        1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, -1, -1, -1, -1, -1, -1, -1,
    ],
    6,
);
pub const OFFSETS: Distribution = (&[1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1], 5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_tables_spread_every_state() {
        for (counts, log) in [LITERAL_LENGTHS, MATCH_LENGTHS, OFFSETS] {
            let mut table = Table::new();
            table.build(counts, log).unwrap();
            for state in 0..1usize << log {
                let e = table.entry(state);
                assert!((e.symbol as usize) < counts.len());
                assert!(e.base as usize + (1 << e.bits) <= 1 << log);
            }
        }
    }

    #[test]
    fn a_description_whose_counts_do_not_add_up_is_refused() {
        let mut table = Table::new();
        // Accuracy log 5, then counts that leave the total short.
        assert!(table.read(&[0x00, 0x00, 0x00], 9, 35).is_err());
        assert!(table.read(&[0x0f], 9, 35).is_err());
    }
}
