//! The "double fast" match finder of klauspost's SpeedDefault level: two hash
//! tables (8-byte hashes for long matches, 5-byte hashes for short ones), a
//! check of the last offset before each search, and greedy parsing.
//!
//! Positions are absolute offsets into the frame's input. The reference keeps a
//! sliding history buffer and a moving base instead, but every check it makes
//! (match distance below the window, no reach before the input) comes out the
//! same in absolute terms, and an encoder reset leaves no usable entry behind, so
//! each frame finds the matches fresh tables would give. The tables are reused
//! across frames with a moving base of their own, which makes earlier frames'
//! entries unusable without clearing them.

use super::Sequence;

const LONG_TABLE_BITS: u32 = 17;
const SHORT_TABLE_BITS: u32 = 15;
/// Matches must be closer than this (the reference's 8 MiB window).
pub(super) const MAX_MATCH_OFFSET: usize = 8 << 20;
/// Longest match the format allows.
const MAX_MATCH_LENGTH: usize = 131_074;
const MIN_MATCH: u32 = 3;
/// Blocks shorter than this are all literals.
const MIN_NON_LITERAL_BLOCK: usize = 16;
/// Bytes kept clear of the end: the loop reads 8 bytes, up to 2 ahead.
const INPUT_MARGIN: usize = 8 + 2;
const PRIME_5_BYTES: u64 = 889_523_592_379;
const PRIME_8_BYTES: u64 = 0xcf1b_bcdc_b7a5_6463;

/// The matches and literals of one block.
#[derive(Default)]
pub(super) struct BlockMatches {
    pub(super) literals: Vec<u8>,
    pub(super) sequences: Vec<Sequence>,
}

impl BlockMatches {
    fn clear(&mut self) {
        self.literals.clear();
        self.sequences.clear();
    }
}

/// How the block is searched. The reference has two copies of the loop that
/// differ in details which change the output, so both are kept.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// The whole frame is one block (`EncodeNoHist`).
    SingleBlock,
    /// One of several blocks, matching into earlier ones (`Encode`).
    WithHistory,
}

pub(super) struct MatchFinder {
    /// `base` + position + 1 of the last occurrence of each hash; entries at
    /// or below `base` are from earlier frames (or none) and never match.
    long: Box<[u32; 1 << LONG_TABLE_BITS]>,
    short: Box<[u32; 1 << SHORT_TABLE_BITS]>,
    /// Where this frame's entries start, so the tables are reused across
    /// frames without clearing their 640 KB (as the reference's encoder does
    /// with its moving offset).
    base: u32,
    /// The largest entry this frame can write: the next frame's base.
    end: u32,
}

const LONG_MASK: usize = (1 << LONG_TABLE_BITS) - 1;
const SHORT_MASK: usize = (1 << SHORT_TABLE_BITS) - 1;

/// A zeroed table on the heap (a boxed array literal would be built on the
/// stack first).
fn zeroed_table<const N: usize>() -> Box<[u32; N]> {
    vec![0; N].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("the length is N"))
}

fn load64(src: &[u8], i: usize) -> u64 {
    // Never short: callers stay INPUT_MARGIN from the end.
    src.get(i..i + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes)
}

fn load32(src: &[u8], i: usize) -> Option<u32> {
    src.get(i..i + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
}

// The masks do not change the hash values; they let the compiler see that
// table indexing is in bounds.
fn hash_long(v: u64) -> usize {
    (v.wrapping_mul(PRIME_8_BYTES) >> (64 - LONG_TABLE_BITS)) as usize & LONG_MASK
}

fn hash_short(v: u64) -> usize {
    ((v << 24).wrapping_mul(PRIME_5_BYTES) >> (64 - SHORT_TABLE_BITS)) as usize & SHORT_MASK
}

/// Length of the common prefix of `src[a..]` and `src[b..]`.
fn match_len(src: &[u8], a: usize, b: usize) -> usize {
    match (src.get(a..), src.get(b..)) {
        (Some(x), Some(y)) => {
            let mut n = 0;
            for (cx, cy) in x.chunks_exact(8).zip(y.chunks_exact(8)) {
                let diff = u64::from_le_bytes(cx.try_into().unwrap_or([0; 8])) ^ u64::from_le_bytes(cy.try_into().unwrap_or([0; 8]));
                if diff != 0 {
                    return n + (diff.trailing_zeros() / 8) as usize;
                }
                n += 8;
            }
            n + x[n.min(x.len())..].iter().zip(&y[n.min(y.len())..]).take_while(|(p, q)| p == q).count()
        }
        _ => 0,
    }
}

impl MatchFinder {
    pub(super) fn new() -> Self {
        Self { long: zeroed_table(), short: zeroed_table(), base: 0, end: 0 }
    }

    /// Prepare for a frame of `len` bytes: earlier frames' entries become
    /// stale. The tables are cleared only when the entries would overflow.
    pub(super) fn start_frame(&mut self, len: usize) {
        match u32::try_from(len).ok().and_then(|len| self.end.checked_add(len)?.checked_add(1)) {
            Some(end) => (self.base, self.end) = (self.end, end),
            None => {
                self.long.fill(0);
                self.short.fill(0);
                // Inputs are bounded by the format's u32 sizes.
                (self.base, self.end) = (0, u32::try_from(len).unwrap_or(u32::MAX));
            }
        }
    }

    /// A table entry's position if it is a usable candidate at `s`: from this
    /// frame and inside the window. (Entries always lie before `s`; the check
    /// keeps that provable.)
    fn candidate(entry: u32, base: u32, s: usize) -> Option<usize> {
        let t = (entry as usize).checked_sub(base as usize + 1)?;
        (t < s && s - t < MAX_MATCH_OFFSET).then_some(t)
    }

    /// Find the sequences of the block `src[start..]` (`src` is the input up to
    /// the block's end; earlier bytes are history). `rep` holds the two most
    /// recent offsets and is updated in `WithHistory` mode.
    pub(super) fn find(&mut self, src: &[u8], start: usize, rep: &mut [u32; 2], mode: Mode, out: &mut BlockMatches) {
        out.clear();
        let block = src.get(start..).unwrap_or_default();
        if block.len() < MIN_NON_LITERAL_BLOCK {
            out.literals.extend_from_slice(block);
            return;
        }
        let s_limit = src.len() - INPUT_MARGIN;
        let mut s = start;
        let mut next_emit = start;
        let mut cv = load64(src, s);
        let mut offset1 = rep[0] as usize;
        let mut offset2 = rep[1] as usize;
        let single = mode == Mode::SingleBlock;
        // Table entries are base + positions + 1; they fit in u32 (see
        // `start_frame`; frame sizes are u32 in mebo).
        let base = self.base;
        let entry = |p: usize| base.wrapping_add(p as u32 + 1);

        'encode: loop {
            // The history variant decides about repeat offsets once per match.
            let can_repeat_here = out.sequences.len() > 2;
            let t;
            loop {
                let hash_l = hash_long(cv);
                let hash_s = hash_short(cv);
                let candidate_l = self.long[hash_l];
                let candidate_s = self.short[hash_s];
                self.long[hash_l] = entry(s);
                self.short[hash_s] = entry(s);

                let can_repeat = if single { out.sequences.len() > 2 } else { can_repeat_here };
                // Repeat offset, checked one byte ahead.
                if can_repeat {
                    if let Some(rep_index) = (s + 1).checked_sub(offset1) {
                        if load32(src, rep_index) == Some((cv >> 8) as u32) {
                            let length = 4 + match_len(src, s + 5, rep_index + 4);
                            let mut match_len_field = (length as u32).wrapping_sub(MIN_MATCH);
                            let mut begin = s + 1;
                            let mut rep_index = rep_index;
                            // Extend backwards, keeping at least one literal.
                            let t_min = s.saturating_sub(MAX_MATCH_OFFSET);
                            while rep_index > t_min
                                && begin > next_emit + 1
                                && src[rep_index - 1] == src[begin - 1]
                                && (match_len_field as usize) < MAX_MATCH_LENGTH - MIN_MATCH as usize - 1
                            {
                                rep_index -= 1;
                                begin -= 1;
                                match_len_field += 1;
                            }
                            let mut seq = Sequence { lit_len: 0, match_len: match_len_field, offset: 1 };
                            if begin != next_emit {
                                out.literals.extend_from_slice(&src[next_emit..begin]);
                                seq.lit_len = (begin - next_emit) as u32;
                            }
                            out.sequences.push(seq);
                            s += length + 1;
                            next_emit = s;
                            if s >= s_limit {
                                break 'encode;
                            }
                            cv = load64(src, s);
                            continue;
                        }
                    }
                }
                let cv32 = cv as u32;
                if let Some(tl) = Self::candidate(candidate_l, base, s) {
                    if load32(src, tl) == Some(cv32) {
                        t = tl;
                        break;
                    }
                }
                if let Some(ts) = Self::candidate(candidate_s, base, s) {
                    if load32(src, ts) == Some(cv32) {
                        // A short match: prefer a long one starting a byte later.
                        let cv_next = load64(src, s + 1);
                        let hash_next = hash_long(cv_next);
                        let candidate_next = self.long[hash_next];
                        self.long[hash_next] = entry(s + 1);
                        if let Some(tn) = Self::candidate(candidate_next, base, s + 1) {
                            if load32(src, tn) == Some(cv_next as u32) {
                                t = tn;
                                s += 1;
                                break;
                            }
                        }
                        t = ts;
                        break;
                    }
                }
                // No match: step forward, faster the longer nothing matched.
                s += 1 + ((s - next_emit) >> 7);
                if s >= s_limit {
                    break 'encode;
                }
                cv = load64(src, s);
            }

            offset2 = offset1;
            offset1 = s - t;
            let mut t = t;
            let mut l = match_len(src, s + 4, t + 4) + 4;
            let t_min = s.saturating_sub(MAX_MATCH_OFFSET);
            while t > t_min && s > next_emit && src[t - 1] == src[s - 1] && l < MAX_MATCH_LENGTH {
                s -= 1;
                t -= 1;
                l += 1;
            }
            let lit_len = s - next_emit;
            if lit_len > 0 {
                out.literals.extend_from_slice(&src[next_emit..s]);
            }
            out.sequences.push(Sequence {
                lit_len: lit_len as u32,
                match_len: (l as u32).wrapping_sub(MIN_MATCH),
                offset: (s - t) as u32 + 3,
            });
            s += l;
            next_emit = s;
            if s >= s_limit {
                break 'encode;
            }

            // Index the match's second byte and its last two.
            let index0 = s - l + 1;
            let index1 = s - 2;
            let cv0 = load64(src, index0);
            let cv1 = load64(src, index1);
            self.long[hash_long(cv0)] = entry(index0);
            self.long[hash_long(cv1)] = entry(index1);
            self.short[hash_short(cv0 >> 8)] = entry(index0 + 1);
            self.short[hash_short(cv1 >> 8)] = entry(index1 + 1);
            cv = load64(src, s);

            let check_offset2 = if single { out.sequences.len() > 2 } else { can_repeat_here };
            if !check_offset2 {
                continue;
            }
            // Immediately repeated second offset: zero literals.
            while let Some(o2) = s.checked_sub(offset2) {
                if load32(src, o2) != Some(cv as u32) {
                    break;
                }
                // The single-block loop hashes the wrong bytes here (the end of
                // the previous match); that is part of its output.
                let hash_s = if single { hash_short(cv1 >> 16) } else { hash_short(cv) };
                let hash_l = hash_long(cv);
                let l = 4 + match_len(src, s + 4, o2 + 4);
                self.long[hash_l] = entry(s);
                self.short[hash_s] = entry(s);
                out.sequences.push(Sequence { lit_len: 0, match_len: (l as u32).wrapping_sub(MIN_MATCH), offset: 1 });
                s += l;
                next_emit = s;
                std::mem::swap(&mut offset1, &mut offset2);
                if s >= s_limit {
                    break 'encode;
                }
                cv = load64(src, s);
            }
        }

        if next_emit < src.len() {
            out.literals.extend_from_slice(&src[next_emit..]);
        }
        if !single {
            *rep = [offset1 as u32, offset2 as u32];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rebuild the block from its sequences (offsets as the finder emits them).
    fn replay(history: &[u8], m: &BlockMatches, rep: [u32; 2]) -> Vec<u8> {
        let mut out = history.to_vec();
        let mut lits = m.literals.as_slice();
        let (mut o1, mut o2) = (rep[0] as usize, rep[1] as usize);
        for s in &m.sequences {
            let (l, rest) = lits.split_at(s.lit_len as usize);
            out.extend_from_slice(l);
            lits = rest;
            let dist = match (s.offset, s.lit_len) {
                (1, 0) => {
                    std::mem::swap(&mut o1, &mut o2);
                    o1
                }
                (1, _) => o1,
                (o, _) => {
                    o2 = o1;
                    o1 = o as usize - 3;
                    o1
                }
            };
            for _ in 0..s.match_len + 3 {
                out.push(out[out.len() - dist]);
            }
        }
        out.extend_from_slice(lits);
        out
    }

    #[test]
    fn sequences_rebuild_the_input() {
        let text = b"abcdefgh abcdefgh 0123456789 abcdefgh 0123456789 xyz xyz xyz xyz xyz xyz".repeat(20);
        let mut finder = MatchFinder::new();
        let mut m = BlockMatches::default();
        let mut rep = [1, 4];
        finder.find(&text, 0, &mut rep, Mode::SingleBlock, &mut m);
        assert!(m.sequences.len() >= 3, "{:?}", m.sequences);
        assert!(m.literals.len() < 100, "{} literals", m.literals.len());
        assert_eq!(replay(&[], &m, [1, 4]), text);
    }

    #[test]
    fn history_mode_matches_into_earlier_blocks() {
        let mut data: Vec<u8> = (0..5000u32).flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes()).collect();
        let first_len = data.len();
        data.extend_from_within(..first_len);
        let mut finder = MatchFinder::new();
        let mut m = BlockMatches::default();
        let mut rep = [1, 4];
        finder.find(&data[..first_len], 0, &mut rep, Mode::WithHistory, &mut m);
        let before = rep;
        finder.find(&data, first_len, &mut rep, Mode::WithHistory, &mut m);
        assert!(m.literals.len() < 64, "{} literals", m.literals.len());
        assert_eq!(replay(&data[..first_len], &m, before), data);
    }

    #[test]
    fn reused_tables_find_what_fresh_ones_find() {
        let earlier = b"abcdefgh abcdefgh 0123456789 xyz ".repeat(40);
        // Shares strings with `earlier`: its stale entries would match if used.
        let frame = b"0123456789 abcdefgh qrs 0123456789 tuv abcdefgh ".repeat(20);
        let find = |finder: &mut MatchFinder| {
            let mut m = BlockMatches::default();
            finder.start_frame(frame.len());
            finder.find(&frame, 0, &mut [1, 4], Mode::SingleBlock, &mut m);
            (m.literals, m.sequences)
        };
        let fresh = find(&mut MatchFinder::new());
        let mut reused = MatchFinder::new();
        reused.start_frame(earlier.len());
        reused.find(&earlier, 0, &mut [1, 4], Mode::SingleBlock, &mut BlockMatches::default());
        assert_eq!(find(&mut reused), fresh);
        assert!(reused.base > 0);
        // Entries that would overflow: the tables are cleared and the base restarts.
        reused.end = u32::MAX - 100;
        assert_eq!(find(&mut reused), fresh);
        assert_eq!((reused.base, reused.end as usize), (0, frame.len()));
        assert_eq!(find(&mut reused), fresh);
    }

    #[test]
    fn short_blocks_are_literals() {
        let mut finder = MatchFinder::new();
        let mut m = BlockMatches::default();
        finder.find(&[1; 15], 0, &mut [1, 4], Mode::SingleBlock, &mut m);
        assert_eq!(m.literals, [1; 15]);
        assert!(m.sequences.is_empty());
    }
}
