//! Huffman coding of a block's literals (klauspost's huff0 with zstd's
//! settings: table log at most 11, output must save at least 1/16).
//!
//! The tree construction, depth limiting and the choice between a new table and
//! the previous block's ("treeless" literals) follow huff0 step by step: ties in
//! the tree decide code lengths, and code lengths are in the frame.

use super::bit_writer::BitWriter;
use super::fse::{compress_weights, high_bit};
use super::Internal;

const TABLE_LOG_MAX: u8 = 11;
const MIN_TABLE_LOG: u8 = 5;
/// Output must be smaller than input minus input/16 to be worth it.
const WANT_LOG_LESS: u32 = 4;

/// One symbol's code: `nb_bits` low bits of `val` (0 bits: symbol absent).
#[derive(Clone, Copy, Default, Debug)]
struct Code {
    val: u16,
    nb_bits: u8,
}

/// What became of the literals.
pub(super) enum Literals {
    /// Huffman-coded; `reused` when coded with the previous block's table
    /// (which is then not repeated in the output).
    Compressed { out: Vec<u8>, reused: bool },
    /// A single repeated byte.
    Rle,
    /// Not worth coding: store them raw.
    Incompressible,
}

/// Huffman state carried from block to block within a frame.
#[derive(Default)]
pub(super) struct LiteralsEncoder {
    /// The table of the last block that wrote one, when reuse is allowed.
    prev: Option<Vec<Code>>,
    reuse_allowed: bool,
}

impl LiteralsEncoder {
    /// Allow or forbid reusing the previous table for the next block (the
    /// reference forbids it at frame start and after a block fell back to raw).
    pub(super) fn set_reuse(&mut self, allowed: bool) {
        self.reuse_allowed = allowed;
    }

    /// Code `lits` as one stream (`four_streams` false) or four.
    pub(super) fn compress(&mut self, lits: &[u8], four_streams: bool) -> Result<Literals, Internal> {
        if !self.reuse_allowed {
            self.prev = None;
        }
        let mut count = [0u32; 256];
        for &b in lits {
            count[usize::from(b)] += 1;
        }
        let symbol_len = count.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
        let count = &count[..symbol_len];
        let max_count = count.iter().copied().max().unwrap_or(0) as usize;
        let can_reuse = self
            .prev
            .as_ref()
            .is_some_and(|prev| count.iter().enumerate().all(|(i, &c)| c == 0 || prev.get(i).is_some_and(|p| p.nb_bits != 0)));
        let len = lits.len();
        let want_size = len - (len >> WANT_LOG_LESS);
        if max_count >= len {
            return Ok(if len == 1 { Literals::Incompressible } else { Literals::Rle });
        }
        if max_count == 1 || max_count < len >> 7 {
            return Ok(Literals::Incompressible);
        }
        let (codes, table_log) = build_table(count, len as u32)?;
        if let (true, Some(prev)) = (can_reuse, &self.prev) {
            // The reference compares against the output buffer's length here,
            // which is still empty: the "header size" term is always 0.
            let old_size = estimate_size(prev, count);
            let new_size = estimate_size(&codes, count);
            if old_size <= new_size || 12 >= want_size {
                let Some(out) = encode_streams(prev, lits, four_streams, Vec::new())? else {
                    return Ok(Literals::Incompressible);
                };
                if out.len() >= want_size {
                    return Ok(Literals::Incompressible);
                }
                return Ok(Literals::Compressed { out, reused: true });
            }
        }
        let Some(header) = write_table(&codes, table_log) else {
            return Ok(Literals::Incompressible);
        };
        let Some(out) = encode_streams(&codes, lits, four_streams, header)? else {
            return Ok(Literals::Incompressible);
        };
        if out.len() >= want_size {
            return Ok(Literals::Incompressible);
        }
        self.prev = Some(codes);
        Ok(Literals::Compressed { out, reused: false })
    }
}

/// Estimated coded size in bytes of `count` under `codes`.
fn estimate_size(codes: &[Code], count: &[u32]) -> u32 {
    let bits = codes.iter().zip(count).fold(7u32, |acc, (c, &n)| acc.wrapping_add(u32::from(c.nb_bits).wrapping_mul(n)));
    bits >> 3
}

/// Code `src` into one stream (symbols from last to first, as the decoder reads
/// backwards) or four with a jump table. `None` if a stream outgrows the jump
/// table's 16-bit sizes.
fn encode_streams(codes: &[Code], src: &[u8], four: bool, mut out: Vec<u8>) -> Result<Option<Vec<u8>>, Internal> {
    if !four {
        return encode_stream(codes, src, out).map(Some);
    }
    let segment = src.len().div_ceil(4);
    let jump_table = out.len();
    out.extend_from_slice(&[0; 6]);
    for (i, chunk) in src.chunks(segment.max(1)).enumerate() {
        let start = out.len();
        out = encode_stream(codes, chunk, out)?;
        let size = out.len() - start;
        let Ok(size) = u16::try_from(size) else {
            return Ok(None);
        };
        if i < 3 {
            out[jump_table + 2 * i..jump_table + 2 * i + 2].copy_from_slice(&size.to_le_bytes());
        }
    }
    Ok(Some(out))
}

fn encode_stream(codes: &[Code], src: &[u8], out: Vec<u8>) -> Result<Vec<u8>, Internal> {
    let mut w = BitWriter::new(out);
    for &b in src.iter().rev() {
        let c = codes.get(usize::from(b)).ok_or(Internal)?;
        w.add(u64::from(c.val), u32::from(c.nb_bits));
    }
    Ok(w.close())
}

/// The Huffman tree description: weights FSE-compressed when that is smaller
/// than half the symbol count, else packed 4 bits each (at most 128 weights).
fn write_table(codes: &[Code], table_log: u8) -> Option<Vec<u8>> {
    let symbol_len = codes.len();
    // The last symbol's weight is implied.
    let max_symbol = symbol_len - 1;
    let mut weights = vec![0u8; symbol_len + 1];
    for (w, c) in weights.iter_mut().zip(&codes[..max_symbol]) {
        if c.nb_bits != 0 {
            *w = (table_log + 1).wrapping_sub(c.nb_bits) & 15;
        }
    }
    if max_symbol >= 2 {
        // An FSE failure is not an error: the raw form below is the fallback.
        if let Ok(Some(fse)) = compress_weights(&weights[..max_symbol]) {
            if fse.len() < symbol_len >> 1 {
                let mut out = Vec::with_capacity(fse.len() + 1);
                out.push(fse.len() as u8);
                out.extend_from_slice(&fse);
                return Some(out);
            }
        }
    }
    if max_symbol > 128 {
        return None;
    }
    let mut out = vec![128 | (max_symbol as u8).wrapping_sub(1)];
    out.extend(weights[..max_symbol.next_multiple_of(2)].chunks(2).map(|p| (p[0] << 4) | p[1]));
    Some(out)
}

#[derive(Clone, Copy, Default)]
struct Node {
    count: u32,
    parent: u16,
    symbol: u8,
    nb_bits: u8,
}

/// Build a depth-limited Huffman code for `count` (`src_len` symbols in all,
/// at least two distinct). Returns the codes and the table log.
fn build_table(count: &[u32], src_len: u32) -> Result<(Vec<Code>, u8), Internal> {
    let symbol_len = count.len();
    let table_log = huff_table_log(src_len, symbol_len as u32);
    // `nodes[0]` is a sentinel ("index -1"); tree node i lives at nodes[i + 1].
    let mut nodes = vec![Node::default(); 2 * 256 + 1];
    sort_symbols(count, &mut nodes[1..]);
    let start_node = symbol_len;
    let mut non_null_rank = symbol_len.checked_sub(1).ok_or(Internal)?;
    while nodes[non_null_rank + 1].count == 0 {
        non_null_rank = non_null_rank.checked_sub(1).ok_or(Internal)?;
    }
    if non_null_rank == 0 {
        return Err(Internal);
    }
    // Indices are "tree node" numbers, possibly -1 (the sentinel).
    let at = |i: isize| (i + 1) as usize;
    let mut low_s = non_null_rank as isize;
    let node_root = start_node as isize + low_s - 1;
    let mut low_n = start_node as isize;
    let mut node_nb = start_node as isize;
    nodes[at(node_nb)].count = nodes[at(low_s)].count + nodes[at(low_s - 1)].count;
    nodes[at(low_s)].parent = node_nb as u16;
    nodes[at(low_s - 1)].parent = node_nb as u16;
    node_nb += 1;
    low_s -= 2;
    for n in node_nb..=node_root {
        nodes[at(n)].count = 1 << 30;
    }
    nodes[0].count = 1 << 31;
    // Merge the two smallest of (next leaf, next internal node), leaves losing ties.
    while node_nb <= node_root {
        let mut pick = || {
            if nodes[at(low_s)].count < nodes[at(low_n)].count {
                low_s -= 1;
                low_s + 1
            } else {
                low_n += 1;
                low_n - 1
            }
        };
        let n1 = pick();
        let n2 = pick();
        nodes[at(node_nb)].count = nodes[at(n1)].count.wrapping_add(nodes[at(n2)].count);
        nodes[at(n1)].parent = node_nb as u16;
        nodes[at(n2)].parent = node_nb as u16;
        node_nb += 1;
    }
    let tree = &mut nodes[1..];
    let root = node_root as usize;
    tree[root].nb_bits = 0;
    for n in (start_node..root).rev() {
        tree[n].nb_bits = tree[usize::from(tree[n].parent)].nb_bits.wrapping_add(1);
    }
    for n in 0..=non_null_rank {
        tree[n].nb_bits = tree[usize::from(tree[n].parent)].nb_bits.wrapping_add(1);
    }
    let max_nb_bits = limit_depth(tree, non_null_rank, table_log)?;
    if max_nb_bits > TABLE_LOG_MAX {
        return Err(Internal);
    }
    // Canonical values: per length, consecutive values in symbol order.
    let mut nb_per_rank = [0u16; TABLE_LOG_MAX as usize + 1];
    for node in &tree[..=non_null_rank] {
        *nb_per_rank.get_mut(usize::from(node.nb_bits)).ok_or(Internal)? += 1;
    }
    let mut val_per_rank = [0u16; 16];
    let mut min = 0u16;
    for n in (1..=usize::from(max_nb_bits)).rev() {
        val_per_rank[n] = min;
        min = min.wrapping_add(nb_per_rank[n]) >> 1;
    }
    let mut codes = vec![Code::default(); symbol_len];
    for node in &tree[..=non_null_rank] {
        codes.get_mut(usize::from(node.symbol)).ok_or(Internal)?.nb_bits = node.nb_bits;
    }
    for code in &mut codes {
        let rank = usize::from(code.nb_bits & 15);
        code.val = val_per_rank[rank];
        val_per_rank[rank] = val_per_rank[rank].wrapping_add(1);
    }
    Ok((codes, max_nb_bits))
}

fn huff_table_log(src_len: u32, symbol_len: u32) -> u8 {
    let mut table_log = TABLE_LOG_MAX;
    let min_bits_src = high_bit(src_len).wrapping_add(1);
    let min_bits_symbols = high_bit(symbol_len.wrapping_sub(1)).wrapping_add(2);
    let min_bits = min_bits_src.min(min_bits_symbols) as u8;
    let max_bits_src = (high_bit(src_len.wrapping_sub(1)) as u8).wrapping_sub(1);
    if max_bits_src < table_log {
        table_log = max_bits_src;
    }
    if min_bits > table_log {
        table_log = min_bits;
    }
    table_log.clamp(MIN_TABLE_LOG, TABLE_LOG_MAX)
}

/// Sort symbols by decreasing count into `tree[..count.len()]`: bucket by
/// bit length, then insertion within the bucket (stable, so ties keep symbol
/// order).
fn sort_symbols(count: &[u32], tree: &mut [Node]) {
    let bucket = |c: u32| (high_bit(c.wrapping_add(1)) & 31) as usize;
    let mut base = [0u32; 32];
    for &c in count {
        base[bucket(c)] += 1;
    }
    for n in (1..=19).rev() {
        base[n - 1] += base[n];
    }
    let mut current = base;
    for (symbol, &c) in count.iter().enumerate() {
        let r = (bucket(c) + 1) & 31;
        let mut pos = current[r] as usize;
        current[r] += 1;
        while pos > base[r] as usize && c > tree[pos - 1].count {
            tree[pos] = tree[pos - 1];
            pos -= 1;
        }
        tree[pos] = Node { count: c, parent: 0, symbol: symbol as u8, nb_bits: 0 };
    }
}

/// Limit code lengths to `max_nb_bits`, repaying the Kraft debt by lengthening
/// the cheapest shorter codes (huff0's `setMaxHeight`). Returns the largest
/// code length.
fn limit_depth(tree: &mut [Node], last_non_null: usize, max_nb_bits: u8) -> Result<u8, Internal> {
    const NO_SYMBOL: u32 = 0xF0F0_F0F0;
    let largest_bits = tree[last_non_null].nb_bits;
    if largest_bits <= max_nb_bits {
        return Ok(largest_bits);
    }
    let node = |tree: &[Node], i: u32| tree.get(i as usize).copied().ok_or(Internal);
    let mut total_cost: i64 = 0;
    let base_cost = 1i64 << (largest_bits - max_nb_bits);
    let mut n = last_non_null as u32;
    while node(tree, n)?.nb_bits > max_nb_bits {
        total_cost += base_cost - (1i64 << (largest_bits - tree[n as usize].nb_bits));
        tree[n as usize].nb_bits = max_nb_bits;
        n = n.wrapping_sub(1);
    }
    while node(tree, n)?.nb_bits == max_nb_bits {
        n = n.wrapping_sub(1);
    }
    total_cost >>= largest_bits - max_nb_bits;

    let mut rank_last = [NO_SYMBOL; TABLE_LOG_MAX as usize + 2];
    let mut current_nb_bits = max_nb_bits;
    for pos in (0..=n as usize).rev() {
        let bits = node(tree, pos as u32)?.nb_bits;
        if bits >= current_nb_bits {
            continue;
        }
        current_nb_bits = bits;
        *rank_last.get_mut(usize::from(max_nb_bits - current_nb_bits)).ok_or(Internal)? = pos as u32;
    }
    let rank = |rank_last: &[u32], i: u8| rank_last.get(usize::from(i)).copied().ok_or(Internal);
    while total_cost > 0 {
        let mut n_bits_to_decrease = high_bit(total_cost as u32) as u8 + 1;
        while n_bits_to_decrease > 1 {
            let high_pos = rank(&rank_last, n_bits_to_decrease)?;
            let low_pos = rank(&rank_last, n_bits_to_decrease - 1)?;
            if high_pos == NO_SYMBOL {
                n_bits_to_decrease -= 1;
                continue;
            }
            if low_pos == NO_SYMBOL {
                break;
            }
            let high_total = node(tree, high_pos)?.count;
            let low_total = node(tree, low_pos)?.count.wrapping_mul(2);
            if high_total <= low_total {
                break;
            }
            n_bits_to_decrease -= 1;
        }
        while n_bits_to_decrease <= TABLE_LOG_MAX && rank(&rank_last, n_bits_to_decrease)? == NO_SYMBOL {
            n_bits_to_decrease += 1;
        }
        total_cost -= 1i64 << (n_bits_to_decrease - 1);
        let nb = usize::from(n_bits_to_decrease);
        let last = rank(&rank_last, n_bits_to_decrease)?;
        if rank_last[nb - 1] == NO_SYMBOL {
            rank_last[nb - 1] = last;
        }
        let grown = tree.get_mut(last as usize).ok_or(Internal)?;
        grown.nb_bits = grown.nb_bits.wrapping_add(1);
        if last == 0 {
            rank_last[nb] = NO_SYMBOL;
        } else {
            rank_last[nb] = last - 1;
            if tree[last as usize - 1].nb_bits != max_nb_bits.wrapping_sub(n_bits_to_decrease) {
                rank_last[nb] = NO_SYMBOL;
            }
        }
    }
    while total_cost < 0 {
        // The repayment overshot: shorten codes again.
        if rank_last[1] == NO_SYMBOL {
            while node(tree, n)?.nb_bits == max_nb_bits {
                n = n.wrapping_sub(1);
            }
            let i = n.wrapping_add(1);
            let shortened = tree.get_mut(i as usize).ok_or(Internal)?;
            shortened.nb_bits = shortened.nb_bits.wrapping_sub(1);
            rank_last[1] = i;
            total_cost += 1;
            continue;
        }
        let i = rank_last[1].wrapping_add(1);
        let shortened = tree.get_mut(i as usize).ok_or(Internal)?;
        shortened.nb_bits = shortened.nb_bits.wrapping_sub(1);
        rank_last[1] = i;
        total_cost += 1;
    }
    Ok(max_nb_bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kraft equality: a complete prefix code's lengths sum to exactly 1.
    fn assert_complete(codes: &[Code], max: u8) {
        let kraft: u64 = codes.iter().filter(|c| c.nb_bits > 0).map(|c| 1u64 << (max - c.nb_bits)).sum();
        assert_eq!(kraft, 1 << max);
    }

    #[test]
    fn skewed_counts_are_limited_to_eleven_bits() {
        // Fibonacci counts make the unlimited tree 20+ levels deep.
        let mut count = vec![0u32; 30];
        let (mut a, mut b) = (1u32, 1u32);
        for c in &mut count {
            *c = a;
            (a, b) = (b, a + b);
        }
        let total = count.iter().sum();
        let (codes, log) = build_table(&count, total).unwrap();
        assert!(log <= TABLE_LOG_MAX);
        assert!(codes.iter().all(|c| c.nb_bits >= 1 && c.nb_bits <= log));
        assert_complete(&codes, log);
    }

    #[test]
    fn two_symbols_get_one_bit_each() {
        let (codes, log) = build_table(&[10, 0, 5], 15).unwrap();
        assert_eq!(log, 1);
        assert_eq!((codes[0].nb_bits, codes[1].nb_bits, codes[2].nb_bits), (1, 0, 1));
    }

    #[test]
    fn repeated_and_flat_literals_are_not_coded() {
        let mut enc = LiteralsEncoder::default();
        assert!(matches!(enc.compress(&[7; 100], false).unwrap(), Literals::Rle));
        let flat: Vec<u8> = (0..=255).collect();
        assert!(matches!(enc.compress(&flat, false).unwrap(), Literals::Incompressible));
    }

    #[test]
    fn a_table_is_reused_only_when_allowed() {
        let text = b"the quick brown fox jumps over the lazy dog, again and again and again".repeat(4);
        let mut enc = LiteralsEncoder::default();
        let Literals::Compressed { reused: false, out: first } = enc.compress(&text, false).unwrap() else { panic!("new table expected") };
        enc.set_reuse(true);
        let Literals::Compressed { reused: true, out } = enc.compress(&text, false).unwrap() else { panic!("reuse expected") };
        assert!(out.len() < first.len(), "no table in the reused output");
        enc.set_reuse(false);
        assert!(matches!(enc.compress(&text, false).unwrap(), Literals::Compressed { reused: false, .. }));
    }
}
