//! The sequences section of a compressed block (RFC 8878 section
//! 3.1.1.3.2) and its execution (section 3.1.1.4): the number of
//! sequences, each field's table (predefined, RLE, FSE-compressed or the
//! previous block's), the interleaved decoding of literal length, match
//! length and offset, the repeat offsets, and the copies into the output.

use crate::bits::BackwardBits;
use crate::buffer::Buffer;
use crate::failure::Failure::{self, Corrupt, SizeCap};
use crate::fse::{self, Table};

/// Literal lengths' codes 16 to 35: baseline and extra bits (codes below 16
/// are the length itself).
const LITERAL_LENGTHS: [(u32, u8); 20] = [
    (16, 1),
    (18, 1),
    (20, 1),
    (22, 1),
    (24, 2),
    (28, 2),
    (32, 3),
    (40, 3),
    (48, 4),
    (64, 6),
    (128, 7),
    (256, 8),
    (512, 9),
    (1024, 10),
    (2048, 11),
    (4096, 12),
    (8192, 13),
    (16384, 14),
    (32768, 15),
    (65536, 16),
];

/// Match lengths' codes 32 to 52: baseline and extra bits (codes below 32
/// are the length minus 3).
const MATCH_LENGTHS: [(u32, u8); 21] = [
    (35, 1),
    (37, 1),
    (39, 1),
    (41, 1),
    (43, 2),
    (47, 2),
    (51, 3),
    (59, 3),
    (67, 4),
    (83, 4),
    (99, 5),
    (131, 7),
    (259, 8),
    (515, 9),
    (1027, 10),
    (2051, 11),
    (4099, 12),
    (8195, 13),
    (16387, 14),
    (32771, 15),
    (65539, 16),
];

/// A field's table, kept from block to block within a frame (repeat mode).
pub struct Field {
    table: Table,
    /// A table was set in this frame.
    set: bool,
    /// The table is the predefined one (kept across frames: it is rebuilt
    /// only when another replaced it).
    predefined: bool,
}

/// What a frame's compressed blocks carry over: the three fields' tables
/// (literal lengths, offsets, match lengths) and the repeat offsets.
pub struct History {
    fields: [Field; 3],
    repeats: [usize; 3],
}

/// Per field: the predefined distribution, the largest accuracy log and the
/// largest code.
const FIELDS: [(fse::Distribution, u32, usize); 3] = [(fse::LITERAL_LENGTHS, 9, 35), (fse::OFFSETS, 8, 31), (fse::MATCH_LENGTHS, 9, 52)];

impl History {
    pub const fn new() -> History {
        const UNSET: Field = Field { table: Table::new(), set: false, predefined: false };
        History { fields: [UNSET; 3], repeats: [1, 4, 8] }
    }

    /// A new frame: no tables, the initial repeat offsets.
    pub fn reset(&mut self) {
        for field in &mut self.fields {
            field.set = false;
        }
        self.repeats = [1, 4, 8];
    }
}

/// Where a block's bytes go: `out` from `frame_start` is the frame so far,
/// and nothing may go past `limit`.
pub struct Output<'a> {
    pub out: &'a mut Buffer,
    pub frame_start: usize,
    pub limit: usize,
}

impl Output<'_> {
    #[inline]
    fn push(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.out.extend(bytes).map_err(Failure::OutOfMemory)
    }
}

/// The sequences section `data` executed with `literals` into `output`.
/// Past the limit: `SizeCap` with the size the block would end at.
pub fn execute(data: &[u8], literals: &[u8], history: &mut History, output: &mut Output) -> Result<(), Failure> {
    let truncated = Corrupt(b"truncated sequences section");
    let (count, mut at) = match *data {
        [] => return Err(truncated),
        [0, ..] => (0, 1),
        [b @ 0..=127, ..] => (b as usize, 1),
        [b @ 128..=254, c, ..] => (((b as usize - 128) << 8) + c as usize, 2),
        [255, c, d, ..] => (c as usize + ((d as usize) << 8) + 0x7f00, 3),
        _ => return Err(truncated),
    };
    let block_start = output.out.len();
    if count == 0 {
        if at != data.len() {
            return Err(Corrupt(b"bytes after the sequences section"));
        }
        return push_checked(output, literals, (block_start + literals.len()) as u64);
    }
    let modes = *data.get(at).ok_or(truncated)?;
    at += 1;
    if modes & 3 != 0 {
        return Err(Corrupt(b"reserved bits set in the sequence modes"));
    }
    for (i, (field, ((counts, log), max_log, max_code))) in history.fields.iter_mut().zip(FIELDS).enumerate() {
        let rest = data.get(at..).unwrap_or_default();
        match (modes >> (6 - 2 * i)) & 3 {
            0 if field.predefined => {}
            0 => {
                field.table.build(counts, log)?;
                field.predefined = true;
            }
            1 => {
                let symbol = *rest.first().ok_or(truncated)?;
                if symbol as usize > max_code {
                    return Err(Corrupt(b"sequence code out of range"));
                }
                field.table.rle(symbol);
                field.predefined = false;
                at += 1;
            }
            2 => {
                field.predefined = false;
                at += field.table.read(rest, max_log, max_code)?;
            }
            _ if field.set => {}
            _ => return Err(Corrupt(b"repeated sequence table without a previous one")),
        }
        field.set = true;
    }
    let [lengths, offsets, matches] = &history.fields;
    let (lengths, offsets, matches) = (&lengths.table, &offsets.table, &matches.table);
    let mut bits = BackwardBits::new(data.get(at..).unwrap_or_default())?;
    let mut states = [lengths.start(&mut bits), offsets.start(&mut bits), matches.start(&mut bits)];
    // The block is written in place: the output grown (zero-filled) to its
    // limit, written through bounds-checked slices (short copies as 8-byte
    // words, not a memory.copy each), then cut back to what the block made.
    output.out.extend_repeated(0, output.limit.saturating_sub(block_start)).map_err(Failure::OutOfMemory)?;
    let dst = output.out.as_mut_slice();
    let mut pos = block_start;
    let mut used = 0;
    let mut matched = 0u64;
    let mut past_limit = false;
    for left in (0..count).rev() {
        let offset_code = offsets.entry(states[1]).symbol as u32;
        let offset = (1usize << offset_code) + bits.read(offset_code) as usize;
        let match_len = extra(matches.entry(states[2]).symbol, 32, 3, &MATCH_LENGTHS, &mut bits)?;
        let literal_len = extra(lengths.entry(states[0]).symbol, 16, 0, &LITERAL_LENGTHS, &mut bits)?;
        if left > 0 {
            states = [lengths.next(states[0], &mut bits), matches.next(states[2], &mut bits), offsets.next(states[1], &mut bits)];
            states.swap(1, 2);
        }
        matched = matched.saturating_add(match_len as u64);
        if past_limit {
            // Past the limit, only the block's size is wanted.
            continue;
        }
        let offset = repeat(&mut history.repeats, offset, literal_len == 0)?;
        let literal =
            literals.get(used..).filter(|rest| rest.len() >= literal_len).ok_or(Corrupt(b"sequences use more literals than there are"))?;
        used += literal_len;
        if pos + literal_len + match_len > dst.len() {
            past_limit = true;
            continue;
        }
        copy_literals(dst, pos, literal, literal_len).ok_or(Corrupt(b"sequences use more literals than there are"))?;
        pos += literal_len;
        if offset == 0 || offset > pos - output.frame_start {
            return Err(Corrupt(b"match offset past the frame's start"));
        }
        copy_match(dst, pos, offset, match_len).ok_or(Corrupt(b"match offset past the frame's start"))?;
        pos += match_len;
    }
    output.out.truncate(pos);
    if !bits.finished() {
        return Err(Corrupt(b"sequences bitstream not consumed exactly"));
    }
    let block_end = ((block_start + literals.len()) as u64).saturating_add(matched);
    if past_limit {
        return Err(SizeCap(block_end));
    }
    push_checked(output, literals.get(used..).unwrap_or_default(), block_end)
}

/// The first `len` bytes of `src` written at `pos`: up to 16 as two words
/// when both sides have room for them (the bytes past `len` are overwritten
/// later, or cut). `None` only when `len` does not fit, which the caller
/// checked.
#[inline(always)]
fn copy_literals(dst: &mut [u8], pos: usize, src: &[u8], len: usize) -> Option<()> {
    if len <= 16 {
        if let (Some(to), Some(from)) = (dst.get_mut(pos..).and_then(<[u8]>::first_chunk_mut::<16>), src.first_chunk::<16>()) {
            *to = *from;
            return Some(());
        }
    }
    dst.get_mut(pos..pos + len)?.copy_from_slice(src.get(..len)?);
    Some(())
}

/// The match of `len` bytes `offset` back from `pos` (`offset` at most
/// `pos`), copied within `dst`, where it may overlap itself: as 8-byte words
/// when the offset is at least 8 (each word then reads bytes already
/// written) and `dst` has room for the last word to run up to 7 bytes past
/// the match, else in copies that double the pattern.
#[inline(always)]
fn copy_match(dst: &mut [u8], pos: usize, offset: usize, len: usize) -> Option<()> {
    let end = pos + len;
    if len >= 32 && offset >= len {
        // Long and apart: one memory.copy.
        let (before, from_pos) = dst.split_at_mut_checked(pos)?;
        let from = pos.checked_sub(offset)?;
        from_pos.get_mut(..len)?.copy_from_slice(before.get(from..from + len)?);
    } else if offset >= 8 && end + 8 <= dst.len() {
        for at in (pos..end).step_by(8) {
            let word = *dst.get(at - offset..)?.first_chunk::<8>()?;
            *dst.get_mut(at..)?.first_chunk_mut::<8>()? = word;
        }
    } else {
        // A short offset (a run of a pattern), or the block's end: each copy
        // from the match's source doubles the pattern written, so source and
        // destination never overlap and the distance stays a multiple of the
        // offset.
        let from = pos.checked_sub(offset)?;
        let mut at = pos;
        while at < end {
            let n = (end - at).min(at - from);
            let (before, rest) = dst.split_at_mut_checked(at)?;
            rest.get_mut(..n)?.copy_from_slice(before.get(from..from + n)?);
            at += n;
        }
    }
    Some(())
}

/// Append `bytes`, unless that passes the limit: then `SizeCap(block_end)`.
pub fn push_checked(output: &mut Output, bytes: &[u8], block_end: u64) -> Result<(), Failure> {
    if output.out.len() + bytes.len() > output.limit {
        return Err(SizeCap(block_end));
    }
    output.push(bytes)
}

/// A length field's value: codes below `first` are `code + add`, the others
/// a baseline and extra bits from `table`.
#[inline]
fn extra(code: u8, first: u8, add: usize, table: &[(u32, u8)], bits: &mut BackwardBits) -> Result<usize, Failure> {
    match code.checked_sub(first) {
        None => Ok(code as usize + add),
        Some(i) => {
            let (base, n) = *table.get(i as usize).ok_or(Corrupt(b"sequence code out of range"))?;
            Ok(base as usize + bits.read(n.into()) as usize)
        }
    }
}

/// The offset an offset value names (section 3.1.1.5), the repeat offsets
/// updated.
#[inline]
fn repeat(repeats: &mut [usize; 3], value: usize, no_literals: bool) -> Result<usize, Failure> {
    let [first, second, third] = *repeats;
    if value > 3 {
        *repeats = [value - 3, first, second];
        return Ok(value - 3);
    }
    // Without literals, each repeat code names the next one.
    let offset = match value + no_literals as usize {
        1 => return Ok(first),
        2 => {
            *repeats = [second, first, third];
            second
        }
        3 => {
            *repeats = [third, first, second];
            third
        }
        _ => {
            let offset = first.checked_sub(1).filter(|&o| o > 0).ok_or(Corrupt(b"repeat offset of zero"))?;
            *repeats = [offset, first, second];
            offset
        }
    };
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::copy_match;

    #[test]
    fn match_copies_are_the_bytewise_copy_with_or_without_room() {
        for offset in 1..80 {
            for len in 0..70 {
                // Room for words past the match, then none.
                for room in [16, 0] {
                    let pos = 80;
                    let mut dst: Vec<u8> = (0..pos + len + room).map(|i| (i * 7 + 3) as u8).collect();
                    let mut expected = dst.clone();
                    for at in pos..pos + len {
                        expected[at] = expected[at - offset];
                    }
                    copy_match(&mut dst, pos, offset, len).unwrap();
                    assert_eq!(dst[..pos + len], expected[..pos + len], "offset {offset}, length {len}, room {room}");
                }
            }
        }
    }
}
