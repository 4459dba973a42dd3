//! Finite State Entropy tables: normalising a histogram, building the encoding
//! table, writing its header, and the two FSE streams the encoder emits (the
//! sequence codes of a block, and the weights of a Huffman table).
//!
//! Every rounding decision here is the reference's: the normalised counts end up
//! in the frame, so "equivalent" is not good enough.

use super::bit_writer::BitWriter;
use super::Internal;

/// Position of the highest set bit, as Go's `bits.Len32(v) - 1` in `uint32`:
/// `highbit(0)` wraps to `u32::MAX`, and the table-log formulas rely on it.
pub(super) fn high_bit(v: u32) -> u32 {
    (32 - v.leading_zeros()).wrapping_sub(1)
}

/// Rest-to-beat thresholds for rounding small probabilities up.
const RTB_TABLE: [u64; 8] = [0, 473195, 504333, 520860, 550000, 700000, 750000, 830000];

/// How one symbol moves the encoder state.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct SymbolTransform {
    delta_nb_bits: u32,
    delta_find_state: i32,
}

/// A normalised distribution and the encoding table built from it.
#[derive(Clone, Debug, Default)]
pub(super) struct Table {
    pub(super) table_log: u32,
    /// Normalised counts, one per symbol below the table's symbol count (-1 is
    /// a "less than one" probability).
    pub(super) norm: Vec<i16>,
    state_table: Vec<u16>,
    transforms: Vec<SymbolTransform>,
}

impl Table {
    /// Normalise `count` (one entry per symbol, `total` their sum) to
    /// `2^table_log` and build the table.
    pub(super) fn from_counts(count: &[u32], total: u32, table_log: u32) -> Result<Self, Internal> {
        let norm = normalize(count, total, table_log)?;
        Self::from_norm(norm, table_log)
    }

    /// Build the encoding table of an already normalised distribution.
    pub(super) fn from_norm(norm: Vec<i16>, table_log: u32) -> Result<Self, Internal> {
        let table_size = 1usize << table_log;
        let symbols = norm.len();
        let mut table_symbol = vec![0u8; table_size];
        let mut cumul = vec![0i32; symbols + 1];
        // Symbols of probability "less than one" take the top cells, one each.
        let mut high_threshold = table_size as i64 - 1;
        for (u, &v) in norm.iter().enumerate() {
            if v == -1 {
                cumul[u + 1] = cumul[u] + 1;
                *table_symbol.get_mut(usize::try_from(high_threshold).map_err(|_| Internal)?).ok_or(Internal)? = u as u8;
                high_threshold -= 1;
            } else {
                cumul[u + 1] = cumul[u] + i32::from(v);
            }
        }
        if cumul[symbols] != table_size as i32 {
            return Err(Internal);
        }
        // Spread the others over the remaining cells with the standard step.
        let step = (table_size >> 1) + (table_size >> 3) + 3;
        let mask = table_size - 1;
        let mut position = 0usize;
        for (symbol, &v) in norm.iter().enumerate() {
            for _ in 0..v.max(0) {
                table_symbol[position] = symbol as u8;
                position = (position + step) & mask;
                while position as i64 > high_threshold {
                    position = (position + step) & mask;
                }
            }
        }
        if position != 0 {
            return Err(Internal);
        }
        let mut state_table = vec![0u16; table_size];
        for (u, &symbol) in table_symbol.iter().enumerate() {
            let slot = cumul.get_mut(usize::from(symbol)).ok_or(Internal)?;
            *state_table.get_mut(usize::try_from(*slot).map_err(|_| Internal)?).ok_or(Internal)? = (table_size + u) as u16;
            *slot += 1;
        }
        let mut transforms = vec![SymbolTransform::default(); symbols];
        let mut total = 0i32;
        let low_prob_bits = (table_log << 16).wrapping_sub(1 << table_log);
        for (t, &v) in transforms.iter_mut().zip(&norm) {
            match v {
                0 => {}
                -1 | 1 => {
                    *t = SymbolTransform { delta_nb_bits: low_prob_bits, delta_find_state: total - 1 };
                    total += 1;
                }
                _ => {
                    let max_bits_out = table_log.wrapping_sub(high_bit(v as u32 - 1));
                    let min_state_plus = (v as u32) << (max_bits_out & 31);
                    *t = SymbolTransform {
                        delta_nb_bits: (max_bits_out << 16).wrapping_sub(min_state_plus),
                        delta_find_state: total - i32::from(v),
                    };
                    total += i32::from(v);
                }
            }
        }
        if total != table_size as i32 {
            return Err(Internal);
        }
        Ok(Self { table_log, norm, state_table, transforms })
    }

    /// The predefined distributions of the format (tables 14, 15 and 16 of RFC 8878).
    pub(super) fn predefined(kind: SequenceField) -> Self {
        let (norm, log): (&[i16], u32) = match kind {
            SequenceField::LiteralLength => {
                (&[4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1], 6)
            }
            SequenceField::Offset => (&[1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1], 5),
            SequenceField::MatchLength => (
                &[
                    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                    1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
                ],
                6,
            ),
        };
        // Fixed, valid distributions: building them cannot fail.
        Self::from_norm(norm.to_vec(), log).unwrap_or_default()
    }

    fn transform(&self, symbol: u8) -> Result<SymbolTransform, Internal> {
        self.transforms.get(usize::from(symbol)).copied().ok_or(Internal)
    }

    /// The state after encoding the first symbol (which writes no bits).
    pub(super) fn initial_state(&self, symbol: u8) -> Result<u16, Internal> {
        let t = self.transform(symbol)?;
        let nb_bits_out = t.delta_nb_bits.wrapping_add(1 << 15) >> 16;
        let im = ((nb_bits_out << 16).wrapping_sub(t.delta_nb_bits)) as i32;
        let lookup = (im >> (nb_bits_out & 31)).wrapping_add(t.delta_find_state);
        self.state_at(lookup)
    }

    /// Encode `symbol`: write the low bits of `state` that it sheds and
    /// return the next state.
    pub(super) fn encode(&self, w: &mut BitWriter, state: u16, symbol: u8) -> Result<u16, Internal> {
        let t = self.transform(symbol)?;
        let nb_bits_out = (u32::from(state).wrapping_add(t.delta_nb_bits)) >> 16;
        w.add(u64::from(state), nb_bits_out & 31);
        let next = i32::from(state >> (nb_bits_out & 15)).wrapping_add(t.delta_find_state);
        self.state_at(next)
    }

    fn state_at(&self, index: i32) -> Result<u16, Internal> {
        usize::try_from(index).ok().and_then(|i| self.state_table.get(i).copied()).ok_or(Internal)
    }

    /// Approximate cost in bits of coding `hist` with this table, `u32::MAX`
    /// when a symbol of `hist` is missing from it.
    pub(super) fn approx_size(&self, hist: &[u32]) -> u32 {
        if self.norm.len() < hist.len() {
            return u32::MAX;
        }
        const ACCURACY_LOG: u32 = 8;
        let bad_cost = (self.table_log + 1) << ACCURACY_LOG;
        let mut cost = 0u32;
        for ((&v, &norm), t) in hist.iter().zip(&self.norm).zip(&self.transforms) {
            if v == 0 {
                continue;
            }
            if norm == 0 {
                return u32::MAX;
            }
            let bit_cost = self.bit_cost(*t, ACCURACY_LOG);
            if bit_cost > bad_cost {
                return u32::MAX;
            }
            cost = cost.wrapping_add(v.wrapping_mul(bit_cost));
        }
        cost >> ACCURACY_LOG
    }

    /// Fractional bit cost of one symbol, linearly interpolated within its
    /// state range (fixed point with `accuracy_log` fraction bits).
    fn bit_cost(&self, t: SymbolTransform, accuracy_log: u32) -> u32 {
        let min_nb_bits = t.delta_nb_bits >> 16;
        let threshold = (min_nb_bits + 1) << 16;
        let table_size = 1u32 << self.table_log;
        let delta_from_threshold = threshold.wrapping_sub(t.delta_nb_bits.wrapping_add(table_size));
        let normalized = (delta_from_threshold << accuracy_log) >> self.table_log;
        ((min_nb_bits + 1) << accuracy_log).wrapping_sub(normalized)
    }

    /// Append the table header (the normalised counts, variable-length coded).
    pub(super) fn write_header(&self, out: &mut Vec<u8>) -> Result<(), Internal> {
        write_header(&self.norm, self.table_log, out)
    }
}

/// Scale `count` (summing to `total`) so it sums to `2^table_log`, every present
/// symbol keeping at least a "less than one" (-1) share.
fn normalize(count: &[u32], total: u32, table_log: u32) -> Result<Vec<i16>, Internal> {
    if total == 0 {
        return Err(Internal);
    }
    let scale = 62 - u64::from(table_log);
    let step = (1u64 << 62) / u64::from(total);
    let v_step = 1u64 << (scale - 20);
    let mut still_to_distribute = 1i32 << table_log;
    let (mut largest, mut largest_p) = (0usize, 0i32);
    let low_threshold = total >> table_log;
    let mut norm = vec![0i16; count.len()];
    for (i, &cnt) in count.iter().enumerate() {
        if cnt == 0 {
            continue;
        }
        if cnt <= low_threshold {
            norm[i] = -1;
            still_to_distribute -= 1;
            continue;
        }
        let mut proba = ((u64::from(cnt) * step) >> scale) as i32;
        if proba < 8 {
            let rest_to_beat = v_step * RTB_TABLE[proba as usize];
            let v = u64::from(cnt) * step - ((proba as u64) << scale);
            if v > rest_to_beat {
                proba += 1;
            }
        }
        if proba > largest_p {
            largest_p = proba;
            largest = i;
        }
        norm[i] = proba as i16;
        still_to_distribute -= proba;
    }
    if -still_to_distribute >= i32::from(norm[largest] >> 1) {
        // Corner case: the largest symbol cannot absorb the rounding error.
        normalize_secondary(count, total, table_log, &mut norm)?;
    } else {
        norm[largest] = (i32::from(norm[largest]) + still_to_distribute) as i16;
    }
    Ok(norm)
}

/// The fallback normalisation: assign the low counts first, then spread the
/// rest proportionally with a cumulative rounding.
fn normalize_secondary(count: &[u32], total: u32, table_log: u32, norm: &mut [i16]) -> Result<(), Internal> {
    const NOT_YET_ASSIGNED: i16 = -2;
    let mut distributed = 0u32;
    let mut total = total;
    let low_threshold = total >> table_log;
    let mut low_one = total.wrapping_mul(3) >> (table_log + 1);
    for (n, &cnt) in norm.iter_mut().zip(count) {
        if cnt == 0 {
            *n = 0;
        } else if cnt <= low_threshold {
            *n = -1;
            distributed += 1;
            total -= cnt;
        } else if cnt <= low_one {
            *n = 1;
            distributed += 1;
            total -= cnt;
        } else {
            *n = NOT_YET_ASSIGNED;
        }
    }
    let mut to_distribute = (1u32 << table_log).wrapping_sub(distributed);
    if total.checked_div(to_distribute).ok_or(Internal)? > low_one {
        // Risk of rounding to zero.
        low_one = total.wrapping_mul(3) / to_distribute.wrapping_mul(2).max(1);
        for (n, &cnt) in norm.iter_mut().zip(count) {
            if *n == NOT_YET_ASSIGNED && cnt <= low_one {
                *n = 1;
                distributed += 1;
                total -= cnt;
            }
        }
        to_distribute = (1u32 << table_log).wrapping_sub(distributed);
    }
    if distributed as usize == count.len() + 1 {
        // All counts are poor: give everything left to the most frequent.
        let mut max_v = 0;
        let mut max_c = 0;
        for (i, &cnt) in count.iter().enumerate() {
            if cnt > max_c {
                max_v = i;
                max_c = cnt;
            }
        }
        norm[max_v] = norm[max_v].wrapping_add(to_distribute as i16);
        return Ok(());
    }
    if total == 0 {
        // Everything was low: hand the remainder out round-robin.
        if !norm.iter().any(|&n| n > 0) {
            return Err(Internal);
        }
        let mut i = 0;
        while to_distribute > 0 {
            if norm[i] > 0 {
                to_distribute -= 1;
                norm[i] += 1;
            }
            i = (i + 1) % norm.len();
        }
        return Ok(());
    }
    let v_step_log = 62 - u64::from(table_log);
    let mid = (1u64 << (v_step_log - 1)) - 1;
    let r_step = ((1u64 << v_step_log).wrapping_mul(u64::from(to_distribute)).wrapping_add(mid)) / u64::from(total);
    let mut tmp_total = mid;
    for (n, &cnt) in norm.iter_mut().zip(count) {
        if *n == NOT_YET_ASSIGNED {
            let end = tmp_total.wrapping_add(u64::from(cnt).wrapping_mul(r_step));
            let weight = ((end >> v_step_log) as u32).wrapping_sub((tmp_total >> v_step_log) as u32);
            if weight < 1 {
                return Err(Internal);
            }
            *n = weight as i16;
            tmp_total = end;
        }
    }
    Ok(())
}

/// Write a normalised distribution as an FSE table header (RFC 8878 4.1.1).
fn write_header(norm: &[i16], table_log: u32, out: &mut Vec<u8>) -> Result<(), Internal> {
    let table_size = 1i32 << table_log;
    let mut bit_stream = table_log.wrapping_sub(5);
    let mut bit_count = 4u32;
    let mut remaining = table_size + 1; // +1 for extra accuracy
    let mut threshold = table_size;
    let mut nb_bits = table_log + 1;
    let mut previous0 = false;
    let mut charnum = 0usize;
    let flush16 = |bit_stream: &mut u32, out: &mut Vec<u8>| {
        out.extend_from_slice(&(*bit_stream as u16).to_le_bytes());
        *bit_stream >>= 16;
    };
    while remaining > 1 {
        if previous0 {
            // A run of zero counts: repeat flags, 2 bits per 3 symbols.
            let mut start = charnum;
            while *norm.get(charnum).ok_or(Internal)? == 0 {
                charnum += 1;
            }
            while charnum >= start + 24 {
                start += 24;
                bit_stream = bit_stream.wrapping_add(0xFFFF << bit_count);
                flush16(&mut bit_stream, out);
            }
            while charnum >= start + 3 {
                start += 3;
                bit_stream = bit_stream.wrapping_add(3 << bit_count);
                bit_count += 2;
            }
            bit_stream = bit_stream.wrapping_add(((charnum - start) as u32) << bit_count);
            bit_count += 2;
            if bit_count > 16 {
                flush16(&mut bit_stream, out);
                bit_count -= 16;
            }
        }
        let mut count = i32::from(*norm.get(charnum).ok_or(Internal)?);
        charnum += 1;
        let max = (2 * threshold - 1) - remaining;
        remaining -= count.abs();
        count += 1; // +1 for extra accuracy
        if count >= threshold {
            count += max;
        }
        bit_stream = bit_stream.wrapping_add((count as u32) << bit_count);
        bit_count += nb_bits;
        if count < max {
            bit_count -= 1;
        }
        previous0 = count == 1;
        if remaining < 1 {
            return Err(Internal);
        }
        while remaining < threshold {
            nb_bits -= 1;
            threshold >>= 1;
        }
        if bit_count > 16 {
            flush16(&mut bit_stream, out);
            bit_count -= 16;
        }
    }
    let tail = (bit_stream as u16).to_le_bytes();
    out.extend_from_slice(&tail[..bit_count.div_ceil(8).min(2) as usize]);
    Ok(())
}

/// The three sequence fields, each with its own code table.
#[derive(Clone, Copy, Debug)]
pub(super) enum SequenceField {
    LiteralLength,
    Offset,
    MatchLength,
}

/// Table log for a block's sequence codes (at most 8, at least 5).
pub(super) fn sequence_table_log(sequences: u32, symbol_len: u32) -> u32 {
    optimal_table_log(8, 8, high_bit(sequences).wrapping_add(1), sequences, symbol_len)
}

/// The shared table-log rule, with Go's unsigned wrap-arounds kept: a tiny
/// input makes `max_bits_src` wrap to a large value and so never limits.
fn optimal_table_log(wanted: u8, max_log: u8, min_bits_src: u32, total: u32, symbol_len: u32) -> u32 {
    let mut table_log = wanted;
    let min_bits_symbols = high_bit(symbol_len.wrapping_sub(1)).wrapping_add(2);
    let min_bits = if min_bits_src < min_bits_symbols { min_bits_src as u8 } else { min_bits_symbols as u8 };
    let max_bits_src = (high_bit(total.wrapping_sub(1)) as u8).wrapping_sub(2);
    if max_bits_src < table_log {
        table_log = max_bits_src;
    }
    if min_bits > table_log {
        table_log = min_bits;
    }
    u32::from(table_log.clamp(5, max_log))
}

/// FSE-compress the weights of a Huffman table (huff0's `fse.Compress` with a
/// table log of 6). `None` when FSE does not apply (one repeated weight, too
/// flat, or no smaller than the input).
pub(super) fn compress_weights(weights: &[u8]) -> Result<Option<Vec<u8>>, Internal> {
    let len = weights.len();
    if len <= 2 {
        return Ok(None);
    }
    let mut hist = [0u32; 16];
    for &w in weights {
        *hist.get_mut(usize::from(w)).ok_or(Internal)? += 1;
    }
    // The caller hands over the histogram of all weights it counted, which is
    // exactly this one (weights fit in 4 bits).
    let symbol_len = hist.iter().rposition(|&c| c != 0).map_or(1, |p| p + 1);
    let max_count = hist.iter().copied().max().unwrap_or(0) as usize;
    if max_count == len || max_count == 1 || max_count < len >> 7 {
        return Ok(None);
    }
    let total = len as u32;
    let table_log = optimal_table_log(6, 12, high_bit(total - 1).wrapping_add(1), total, symbol_len as u32);
    let table = Table::from_counts(&hist[..symbol_len], total, table_log)?;
    let mut out = Vec::with_capacity(len);
    table.write_header(&mut out)?;
    // Two interleaved states, the input coded from its end.
    let mut w = BitWriter::new(out);
    let mut ip = len;
    let (mut c1, mut c2);
    if ip & 1 == 1 {
        c1 = table.initial_state(weights[ip - 1])?;
        c2 = table.initial_state(weights[ip - 2])?;
        c1 = table.encode(&mut w, c1, weights[ip - 3])?;
        ip -= 3;
    } else {
        c2 = table.initial_state(weights[ip - 1])?;
        c1 = table.initial_state(weights[ip - 2])?;
        ip -= 2;
    }
    if ip & 2 != 0 {
        c2 = table.encode(&mut w, c2, weights[ip - 1])?;
        c1 = table.encode(&mut w, c1, weights[ip - 2])?;
        ip -= 2;
    }
    while ip >= 4 {
        c2 = table.encode(&mut w, c2, weights[ip - 1])?;
        c1 = table.encode(&mut w, c1, weights[ip - 2])?;
        c2 = table.encode(&mut w, c2, weights[ip - 3])?;
        c1 = table.encode(&mut w, c1, weights[ip - 4])?;
        ip -= 4;
    }
    w.add(u64::from(c2), table_log);
    w.add(u64::from(c1), table_log);
    let out = w.close();
    Ok((out.len() < len).then_some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_bit_wraps_like_go() {
        assert_eq!(high_bit(0), u32::MAX);
        assert_eq!(high_bit(1), 0);
        assert_eq!(high_bit(255), 7);
        assert_eq!(high_bit(256), 8);
    }

    #[test]
    fn predefined_tables_build() {
        for (field, log) in [(SequenceField::LiteralLength, 6), (SequenceField::Offset, 5), (SequenceField::MatchLength, 6)] {
            let t = Table::predefined(field);
            assert_eq!(t.table_log, log);
            assert_eq!(t.state_table.len(), 1 << log);
        }
    }

    #[test]
    fn normalisation_sums_to_the_table_size() {
        let counts = [100u32, 1, 0, 50, 3, 0, 0, 7];
        let total = counts.iter().sum();
        for log in 5..=8 {
            let norm = normalize(&counts, total, log).unwrap();
            let sum: i32 = norm.iter().map(|&n| i32::from(n).abs()).sum();
            assert_eq!(sum, 1 << log);
            assert_eq!(norm[2], 0);
            assert!(norm[1] != 0);
        }
    }

    /// The header of a known distribution, checked against the bytes libzstd's
    /// `FSE_writeNCount` produces for it (the predefined literal-length table).
    #[test]
    fn header_of_the_predefined_literal_lengths() {
        let t = Table::predefined(SequenceField::LiteralLength);
        let mut out = Vec::new();
        t.write_header(&mut out).unwrap();
        // Accuracy log 6 - 5 = 1 in the low 4 bits.
        assert_eq!(out[0] & 0xF, 1);
        assert!(out.len() > 4 && out.len() < 30, "{out:?}");
    }

    #[test]
    fn sequence_table_log_follows_the_reference() {
        // One sequence: max_bits_src wraps to 253 and never limits.
        assert_eq!(sequence_table_log(1, 1), 8);
        assert_eq!(sequence_table_log(5, 3), 5);
        assert_eq!(sequence_table_log(1000, 36), 7);
        assert_eq!(sequence_table_log(100, 20), 6);
    }
}
