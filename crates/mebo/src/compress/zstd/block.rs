//! One block: raw, RLE, or compressed (literals section + sequences section).
//!
//! The encoder's decisions — when a block stays raw, when literals stay raw,
//! which of the predefined, previous or a new FSE table codes each sequence
//! field — are the reference's, including its size estimates.

use super::bit_writer::BitWriter;
use super::double_fast::BlockMatches;
use super::fse::{high_bit, sequence_table_log, SequenceField, Table};
use super::huffman::{Literals, LiteralsEncoder};
use super::{Internal, Sequence};

const BLOCK_RAW: u32 = 0;
const BLOCK_RLE: u32 = 1;
const BLOCK_COMPRESSED: u32 = 2;

const LITERALS_RAW: u64 = 0;
const LITERALS_RLE: u64 = 1;
const LITERALS_COMPRESSED: u64 = 2;
const LITERALS_TREELESS: u64 = 3;

/// Extra bits per literal-length code.
const LL_BITS: [u8; 36] =
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
/// Extra bits per match-length code.
const ML_BITS: [u8; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8,
    9, 10, 11, 12, 13, 14, 15, 16,
];

fn ll_code(lit_len: u32) -> u8 {
    const TABLE: [u8; 64] = [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21, 22, 22, 22,
        22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 23, 23, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
    ];
    match TABLE.get(lit_len as usize) {
        Some(&c) => c,
        None => high_bit(lit_len) as u8 + 19,
    }
}

fn ml_code(match_len: u32) -> u8 {
    if match_len < 32 {
        return match_len as u8;
    }
    if match_len <= 127 {
        // 32..=127 follow the same doubling ranges as the large codes.
        const TABLE: [u8; 96] = [
            32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 36, 36, 37, 37, 37, 37, 38, 38, 38, 38, 38, 38, 38, 38, 39, 39, 39, 39, 39, 39, 39, 39,
            40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41,
            42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42,
        ];
        return TABLE[match_len as usize - 32];
    }
    high_bit(match_len) as u8 + 36
}

fn of_code(offset: u32) -> u8 {
    high_bit(offset) as u8
}

fn block_header(out: &mut Vec<u8>, last: bool, kind: u32, size: u32) {
    let h = u32::from(last) | (kind << 1) | (size << 3);
    out.extend_from_slice(&h.to_le_bytes()[..3]);
}

/// Header of a raw or RLE literals section, as (value, byte count).
fn literals_header_single(kind: u64, regenerated: usize) -> (u64, usize) {
    let n = regenerated as u64;
    match 32 - (regenerated as u32).leading_zeros() {
        0..=4 => (kind | (n << 3), 1),
        5..=11 => (kind | (1 << 2) | (n << 4), 2),
        _ => (kind | (3 << 2) | (n << 4), 3),
    }
}

/// Header of a Huffman-coded literals section, as (value, byte count).
fn literals_header_compressed(kind: u64, compressed: usize, regenerated: usize, single: bool) -> (u64, usize) {
    let (c, r) = (compressed as u64, regenerated as u64);
    let bits = |v: usize| 32 - (v as u32).leading_zeros();
    let widest = bits(compressed).max(bits(regenerated));
    match widest {
        0..=10 => (kind | (u64::from(!single) << 2) | (r << 4) | (c << 14), 3),
        11..=14 => (kind | (2 << 2) | (r << 4) | (c << 18), 4),
        _ => (kind | (3 << 2) | (r << 4) | (c << 22), 5),
    }
}

fn put_header(out: &mut Vec<u8>, (value, bytes): (u64, usize)) {
    out.extend_from_slice(&value.to_le_bytes()[..bytes]);
}

/// What the frame must do with the repeat offsets after a block.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Offsets {
    /// Keep what the match finder left.
    Keep,
    /// The block was stored raw: restore the offsets from before it.
    Restore,
}

/// How a sequence field is coded in a block.
enum FieldMode {
    Predefined,
    Rle(u8),
    New(Table),
    Repeat,
}

impl FieldMode {
    fn bits(&self) -> u8 {
        match self {
            FieldMode::Predefined => 0,
            FieldMode::Rle(_) => 1,
            FieldMode::New(_) => 2,
            FieldMode::Repeat => 3,
        }
    }
}

/// A field's table as used for the bit stream (`None`: RLE, no state bits).
fn coding_table<'a>(mode: &'a FieldMode, predefined: &'a Table, prev: Option<&'a Table>) -> Result<Option<&'a Table>, Internal> {
    Ok(match mode {
        FieldMode::Predefined => Some(predefined),
        FieldMode::Rle(_) => None,
        FieldMode::New(t) => Some(t),
        FieldMode::Repeat => Some(prev.ok_or(Internal)?),
    })
}

/// Entropy state carried from block to block within one frame.
pub(super) struct BlockEncoder {
    literals: LiteralsEncoder,
    /// Per field (literal length, offset, match length): the predefined table
    /// and the table the last compressed block defined, if it may be repeated.
    predefined: [Table; 3],
    prev: [Option<Table>; 3],
}

impl BlockEncoder {
    pub(super) fn new() -> Self {
        Self {
            literals: LiteralsEncoder::default(),
            predefined: [
                Table::predefined(SequenceField::LiteralLength),
                Table::predefined(SequenceField::Offset),
                Table::predefined(SequenceField::MatchLength),
            ],
            prev: [None, None, None],
        }
    }

    /// Append block `org` (its matches in `m`) to `out`.
    pub(super) fn encode(&mut self, org: &[u8], m: &BlockMatches, last: bool, out: &mut Vec<u8>) -> Offsets {
        let start = out.len();
        match self.encode_block(org, m, last, out) {
            Ok(offsets) => offsets,
            Err(Internal) => {
                // Not reachable with the reference's algorithms (it would
                // panic); stay a valid frame all the same.
                out.truncate(start);
                self.encode_raw(org, last, out)
            }
        }
    }

    fn encode_raw(&mut self, org: &[u8], last: bool, out: &mut Vec<u8>) -> Offsets {
        block_header(out, last, BLOCK_RAW, org.len() as u32);
        out.extend_from_slice(org);
        self.literals.set_reuse(false);
        Offsets::Restore
    }

    fn encode_block(&mut self, org: &[u8], m: &BlockMatches, last: bool, out: &mut Vec<u8>) -> Result<Offsets, Internal> {
        let (lits, seqs) = (m.literals.as_slice(), m.sequences.as_slice());
        if seqs.is_empty() {
            block_header(out, last, BLOCK_RAW, lits.len() as u32);
            out.extend_from_slice(lits);
            return Ok(Offsets::Keep);
        }
        if let [seq] = seqs {
            // A single distance-1 match covering the block: one repeated byte.
            if !org.is_empty() && lits.len() <= 1 && seq.lit_len as usize == lits.len() && seq.offset.wrapping_sub(3) == 1 {
                block_header(out, last, BLOCK_RLE, seq.match_len + 3 + seq.lit_len);
                out.push(org[0]);
                return Ok(Offsets::Keep);
            }
        }
        let size = org.len();
        let saved = size as i64 - lits.len() as i64 - (size >> 6) as i64;
        if saved < 16 {
            block_header(out, last, BLOCK_RAW, size as u32);
            out.extend_from_slice(org);
            return Ok(Offsets::Restore);
        }

        let header_at = out.len();
        out.extend_from_slice(&[0; 3]);
        self.write_literals(lits, out)?;
        let modes = self.write_sequences(seqs, out)?;

        let block_size = out.len() - header_at - 3;
        if block_size >= size {
            out.truncate(header_at);
            return Ok(self.encode_raw(org, last, out));
        }
        let h = u32::from(last) | (BLOCK_COMPRESSED << 1) | ((block_size as u32) << 3);
        out[header_at..header_at + 3].copy_from_slice(&h.to_le_bytes()[..3]);
        // Only a block that was kept defines what a later block may repeat.
        for (prev, mode) in self.prev.iter_mut().zip(modes) {
            match mode {
                FieldMode::New(t) => *prev = Some(t),
                FieldMode::Rle(_) | FieldMode::Predefined => *prev = None,
                FieldMode::Repeat => {}
            }
        }
        Ok(Offsets::Keep)
    }

    fn write_literals(&mut self, lits: &[u8], out: &mut Vec<u8>) -> Result<(), Internal> {
        let single = lits.len() < 1024;
        let mut coded = if lits.len() > 16 { self.literals.compress(lits, !single)? } else { Literals::Incompressible };
        if let Literals::Compressed { out: c, .. } = &coded {
            if c.len() + 5 > lits.len() {
                // Close to raw: keep raw unless strictly smaller with headers.
                let raw = literals_header_single(LITERALS_RAW, lits.len()).1;
                let comp = literals_header_compressed(LITERALS_COMPRESSED, c.len(), lits.len(), single).1;
                if c.len() + comp >= lits.len() + raw {
                    coded = Literals::Incompressible;
                }
            }
        }
        match coded {
            Literals::Incompressible => {
                put_header(out, literals_header_single(LITERALS_RAW, lits.len()));
                out.extend_from_slice(lits);
            }
            Literals::Rle => {
                put_header(out, literals_header_single(LITERALS_RLE, lits.len()));
                out.push(lits[0]);
            }
            Literals::Compressed { out: c, reused } => {
                let kind = if reused { LITERALS_TREELESS } else { LITERALS_COMPRESSED };
                put_header(out, literals_header_compressed(kind, c.len(), lits.len(), single));
                out.extend_from_slice(&c);
                self.literals.set_reuse(true);
            }
        }
        Ok(())
    }

    /// Write the sequences section; returns each field's coding mode.
    fn write_sequences(&self, seqs: &[Sequence], out: &mut Vec<u8>) -> Result<Vec<FieldMode>, Internal> {
        let n = seqs.len();
        match n {
            0..=127 => out.push(n as u8),
            128..=0x7eff => out.extend_from_slice(&[128 + (n >> 8) as u8, n as u8]),
            _ => {
                let m = (n - 0x7f00) as u16;
                out.push(255);
                out.extend_from_slice(&m.to_le_bytes());
            }
        }
        // Codes per sequence: literal length, offset, match length.
        let codes: Vec<[u8; 3]> = seqs.iter().map(|s| [ll_code(s.lit_len), of_code(s.offset), ml_code(s.match_len)]).collect();
        let mut modes = Vec::with_capacity(3);
        for field in 0..3 {
            let mut hist = [0u32; 64];
            for c in &codes {
                *hist.get_mut(usize::from(c[field])).ok_or(Internal)? += 1;
            }
            let symbol_len = hist.iter().rposition(|&c| c != 0).map_or(1, |p| p + 1);
            let hist = &hist[..symbol_len];
            modes.push(self.choose(field, hist, n as u32, codes[0][field])?);
        }
        out.push((modes[0].bits() << 6) | (modes[1].bits() << 4) | (modes[2].bits() << 2));
        for mode in &modes {
            match mode {
                FieldMode::Rle(symbol) => out.push(*symbol),
                FieldMode::New(t) => t.write_header(out)?,
                FieldMode::Predefined | FieldMode::Repeat => {}
            }
        }

        let tables = [
            coding_table(&modes[0], &self.predefined[0], self.prev[0].as_ref())?,
            coding_table(&modes[1], &self.predefined[1], self.prev[1].as_ref())?,
            coding_table(&modes[2], &self.predefined[2], self.prev[2].as_ref())?,
        ];
        let mut w = BitWriter::new(std::mem::take(out));
        // Coded last to first: the decoder reads the stream backwards.
        let mut states = [0u16; 3];
        let (last, rest) = codes.split_last().ok_or(Internal)?;
        for ((state, table), &code) in states.iter_mut().zip(&tables).zip(last) {
            if let Some(t) = table {
                *state = t.initial_state(code)?;
            }
        }
        let extra_bits = |w: &mut BitWriter, s: &Sequence, c: &[u8; 3]| {
            w.add(u64::from(s.lit_len), u32::from(LL_BITS[usize::from(c[0]).min(35)]));
            w.add(u64::from(s.match_len), u32::from(ML_BITS[usize::from(c[2]).min(52)]));
            w.add(u64::from(s.offset), u32::from(c[1]).min(31));
        };
        extra_bits(&mut w, &seqs[n - 1], last);
        for (s, c) in seqs[..n - 1].iter().zip(rest).rev() {
            // State order: offset, match length, literal length.
            for field in [1, 2, 0] {
                if let Some(t) = tables[field] {
                    states[field] = t.encode(&mut w, states[field], c[field])?;
                }
            }
            extra_bits(&mut w, s, c);
        }
        for field in [2, 1, 0] {
            if let Some(t) = tables[field] {
                w.add(u64::from(states[field]), t.table_log);
            }
        }
        *out = w.close();
        Ok(modes)
    }

    /// Pick the cheapest coding of one field: RLE if all codes are equal, else
    /// the predefined, the previous or a new table by estimated size (a new
    /// table pays its header plus a small penalty).
    fn choose(&self, field: usize, hist: &[u32], n: u32, first: u8) -> Result<FieldMode, Internal> {
        let max_count = hist.iter().copied().max().unwrap_or(0);
        let table_log = sequence_table_log(n, hist.len() as u32);
        if max_count == n {
            return Ok(FieldMode::Rle(first));
        }
        let cur = Table::from_counts(hist, n, table_log)?;
        let header_bits = (((hist.len() as u32 * table_log) >> 3) + 3) * 8;
        let mut new_size = cur.approx_size(hist).wrapping_add(header_bits);
        new_size = new_size.wrapping_add(new_size.wrapping_add(2 * 8 * 16) >> 4);
        let predefined_size = self.predefined[field].approx_size(hist);
        let prev_size = self.prev[field].as_ref().map_or(u32::MAX, |p| p.approx_size(hist));
        Ok(if predefined_size <= prev_size && predefined_size <= new_size {
            FieldMode::Predefined
        } else if prev_size <= new_size {
            FieldMode::Repeat
        } else {
            FieldMode::New(cur)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_format_tables() {
        assert_eq!(ll_code(15), 15);
        assert_eq!(ll_code(16), 16);
        assert_eq!(ll_code(63), 24);
        assert_eq!(ll_code(64), 25);
        assert_eq!(ll_code(65535), 34);
        assert_eq!(ml_code(31), 31);
        assert_eq!(ml_code(32), 32);
        assert_eq!(ml_code(127), 42);
        assert_eq!(ml_code(128), 43);
        assert_eq!(ml_code(131071), 52);
        assert_eq!(of_code(1), 0);
        assert_eq!(of_code(4), 2);
        assert_eq!(of_code((8 << 20) + 3), 23);
    }

    /// Every code covers exactly the values its baseline and extra bits reach.
    #[test]
    fn code_tables_agree_with_the_extra_bits() {
        let mut base = 0u32;
        for (code, &bits) in LL_BITS.iter().enumerate() {
            for v in [base, base + (1 << bits) - 1] {
                assert_eq!(ll_code(v), code as u8, "literal length {v}");
            }
            base += 1 << bits;
        }
        let mut base = 0u32;
        for (code, &bits) in ML_BITS.iter().enumerate() {
            for v in [base, base + (1 << bits) - 1] {
                assert_eq!(ml_code(v), code as u8, "match length {v}");
            }
            base += 1 << bits;
        }
    }

    #[test]
    fn literal_headers_use_the_smallest_size_format() {
        assert_eq!(literals_header_single(LITERALS_RAW, 15), (15 << 3, 1));
        assert_eq!(literals_header_single(LITERALS_RAW, 16), (4 | (16 << 4), 2));
        assert_eq!(literals_header_single(LITERALS_RLE, 5000), (1 | 12 | (5000 << 4), 3));
        assert_eq!(literals_header_compressed(LITERALS_COMPRESSED, 500, 1000, true).1, 3);
        assert_eq!(literals_header_compressed(LITERALS_COMPRESSED, 900, 1100, false).1, 4);
        assert_eq!(literals_header_compressed(LITERALS_COMPRESSED, 100_000, 131_072, false).1, 5);
    }
}
