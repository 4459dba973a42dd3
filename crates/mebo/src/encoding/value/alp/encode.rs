//! ALP column encoding, byte-identical to the reference encoder.
//!
//! Each scheme's parameters are searched once on a strided sample of about 32
//! values; the scheme is then chosen by the estimated size in bits of the whole
//! column (headers included, the scheme byte not), preferring main, then RD,
//! then raw on ties. Every comparison, tie-break and rounding step below is part
//! of what makes the output match the reference byte for byte.

use super::bitpack::pack_codes;
use super::lanes::F64x2;
use super::{rd_code_bits, INV_POW10, MAX_EXPONENT, POW10, RD_MAX_DICT, RD_MAX_LEFT_BITS, SCHEME_MAIN, SCHEME_RAW, SCHEME_RD};
use crate::byte_order::ByteOrder;

/// Target sample size for the parameter searches.
const SAMPLE_TARGET: usize = 32;
/// Estimated bits of a main header (e, f, width, exception count, minimum).
const MAIN_HEADER_BITS: u64 = 8 + 8 + 8 + 32 + 64;
/// Estimated bits of one main exception (position, value).
const MAIN_EXCEPTION_BITS: u64 = 32 + 64;
/// Estimated bits of an RD header (right width, code width, dictionary size, exception count).
const RD_HEADER_BITS: u64 = 8 + 8 + 8 + 32;
/// Estimated bits of one RD exception (position, left part).
const RD_EXCEPTION_BITS: u64 = 32 + 16;
/// Bits of one RD dictionary entry.
const RD_DICT_ENTRY_BITS: u64 = 16;

/// `2^52 + 2^51`: adding and subtracting it rounds to the nearest integer (ties
/// to even) for `|x| < 2^51`.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// Below this magnitude [`ROUND_MAGIC`] rounds correctly.
const FAST_ROUND_LIMIT: f64 = 2_251_799_813_685_248.0;
/// From this magnitude on every double is an integer: it rounds to itself.
const INTEGER_LIMIT: f64 = 4_503_599_627_370_496.0;
/// Marks a value with no digit: no digit is this small (see [`DIGIT_LIMIT`]).
const NOT_EXACT: i64 = i64::MIN;
/// Rounded values at or beyond this magnitude are not digits (they would not fit an i64).
const DIGIT_LIMIT: f64 = 9.2e18;

pub(super) fn encode_column(values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
    if values.is_empty() {
        return;
    }
    let stride = sample_stride(values.len());
    let raw_bits = 64 * values.len() as u64;

    let (exponent, factor) = best_exponents(values, stride);
    let main = MainPlan::new(values, exponent, factor);
    // Clean decimal data: nothing RD could do better, skip its search.
    if let Some(main) = &main {
        if main.exceptions.is_empty() && main.estimated_bits() <= raw_bits {
            main.write(values, order, out);
            return;
        }
    }

    let rd = RdPlan::new(values, stride);
    let rd_bits = rd.estimated_bits(values.len());
    match main {
        Some(main) if main.estimated_bits() <= rd_bits && main.estimated_bits() <= raw_bits => main.write(values, order, out),
        _ if rd_bits <= raw_bits => rd.write(values, order, out),
        _ => {
            out.push(SCHEME_RAW);
            out.reserve(values.len() * 8);
            for v in values {
                out.extend_from_slice(&order.u64_bytes(v.to_bits()));
            }
        }
    }
}

/// Every `stride`-th value from the first is the sample: about 32 values, at most 63.
fn sample_stride(count: usize) -> usize {
    if count > SAMPLE_TARGET {
        count / SAMPLE_TARGET
    } else {
        1
    }
}

/// Bits needed for the unsigned span `max - min`.
fn span_width(min: i64, max: i64) -> u32 {
    64 - (max.wrapping_sub(min) as u64).leading_zeros()
}

/// `v · 10^e · 10^-f` rounded to an integer, or `None` when it is out of the
/// digit range (or not finite).
#[inline]
fn round_scaled(scaled: f64) -> Option<i64> {
    if scaled.abs() < FAST_ROUND_LIMIT {
        // Branch-free rounding, ties to even, exactly as the reference.
        Some(((scaled + ROUND_MAGIC) - ROUND_MAGIC) as i64)
    } else {
        // Large values round ties away from zero; NaN and infinities fail the
        // range test. (The reference's NaN digit never round-trips either.)
        // From 2^52 on a double is an integer already: no call to `round`
        // (a library call without SSE4.1).
        let rounded = if scaled.abs() >= INTEGER_LIMIT { scaled } else { scaled.round() };
        (rounded.abs() < DIGIT_LIMIT).then_some(rounded as i64)
    }
}

/// The main-scheme digit of `v`, if it decodes back to exactly the same bits
/// (so -0.0, NaN, infinities and inexact values are exceptions).
#[inline]
fn exact_digit(v: f64, exponent: usize, factor: usize) -> Option<i64> {
    let digit = round_scaled(v * POW10[exponent] * INV_POW10[factor])?;
    let back = (digit as f64) * POW10[factor] * INV_POW10[exponent];
    (back.to_bits() == v.to_bits()).then_some(digit)
}

/// The exponent `e` and factor `f ≤ e` whose estimated main size over the sample
/// (`digits × width + exceptions × 96` bits) is smallest; the first found wins a
/// tie, scanning `e` then `f` upward. The estimate compares decoded values with
/// `==` (so -0.0 counts as exact here, unlike in the final encode).
fn best_exponents(values: &[f64], stride: usize) -> (usize, usize) {
    let sample = LaneSample::new(values, stride);
    let mut scaled = [0.0; MAX_SAMPLE];
    search_exponents(|exponent, factor, bound| {
        if factor == 0 {
            sample.scale(exponent, &mut scaled);
        }
        sample.estimate(&scaled, exponent, factor, bound)
    })
}

/// The scan of [`best_exponents`] over any estimator of a candidate's bits
/// (`None` when it cannot beat the bound it is given). Factors run upward
/// within each exponent, from 0.
fn search_exponents(mut estimate: impl FnMut(usize, usize, u64) -> Option<u64>) -> (usize, usize) {
    let mut best = (u64::MAX, 0, 0);
    for exponent in 0..=usize::from(MAX_EXPONENT) {
        for factor in 0..=exponent {
            if let Some(bits) = estimate(exponent, factor, best.0) {
                if bits < best.0 {
                    best = (bits, exponent, factor);
                }
            }
        }
    }
    (best.1, best.2)
}

/// Values between two checks of the early stop: two lane pairs.
const GROUP: usize = 4;
/// Room for the largest sample (63 values; see [`sample_stride`]) in whole groups.
const MAX_SAMPLE: usize = 64;

/// The sample, its last group filled up with copies of the first value that
/// weigh 0: a copy's digit is the first value's (it widens nothing) and its
/// exception counts for nothing.
struct LaneSample {
    values: [f64; MAX_SAMPLE],
    weights: [f64; MAX_SAMPLE],
    len: usize,
    /// The smallest and largest magnitudes, NaN aside.
    min_abs: f64,
    max_abs: f64,
    has_nan: bool,
}

impl LaneSample {
    fn new(values: &[f64], stride: usize) -> LaneSample {
        let mut sample = LaneSample {
            values: [values[0]; MAX_SAMPLE],
            weights: [0.0; MAX_SAMPLE],
            len: 0,
            min_abs: f64::INFINITY,
            max_abs: 0.0,
            has_nan: false,
        };
        for (i, &v) in values.iter().step_by(stride).enumerate() {
            sample.values[i] = v;
            sample.weights[i] = 1.0;
            sample.len = i + 1;
            sample.min_abs = sample.min_abs.min(v.abs());
            sample.max_abs = sample.max_abs.max(v.abs());
            sample.has_nan |= v.is_nan();
        }
        sample
    }

    /// Values in whole groups, copies included.
    fn padded_len(&self) -> usize {
        self.len.next_multiple_of(GROUP)
    }

    /// `v · 10^e` of every value, the first step of every candidate at `e`.
    fn scale(&self, exponent: usize, scaled: &mut [f64; MAX_SAMPLE]) {
        let up_e = POW10[exponent];
        for (out, &v) in scaled.iter_mut().zip(&self.values) {
            *out = v * up_e;
        }
    }

    /// [`sample_estimate`] at (`exponent`, `factor`), the same result. Rounding
    /// is monotonic, so the smallest and largest magnitudes scale to the
    /// smallest and largest `|v · 10^e · 10^-f|`, which tell how every value
    /// rounds: all below [`FAST_ROUND_LIMIT`] (the rounding trick) or all from
    /// 2^52 up (already integers) are computed two at a time without branches
    /// ([`F64x2`]); all beyond the digit range are all exceptions; anything
    /// else (mixed, NaN) is the scalar estimate's. `scaled` is
    /// [`scale`](Self::scale)'s at `exponent`.
    fn estimate(&self, scaled: &[f64; MAX_SAMPLE], exponent: usize, factor: usize, bound: u64) -> Option<u64> {
        let scale = |x: f64| x * POW10[exponent] * INV_POW10[factor];
        let (smallest, largest) = (scale(self.min_abs), scale(self.max_abs));
        if self.has_nan {
            sample_estimate(&self.values[..self.len], exponent, factor, bound)
        } else if largest < FAST_ROUND_LIMIT {
            self.lane_estimate::<true>(scaled, exponent, factor, bound)
        } else if smallest >= INTEGER_LIMIT && largest < DIGIT_LIMIT {
            self.lane_estimate::<false>(scaled, exponent, factor, bound)
        } else if smallest >= DIGIT_LIMIT {
            let bits = self.len as u64 * MAIN_EXCEPTION_BITS;
            (bits < bound).then_some(bits)
        } else {
            sample_estimate(&self.values[..self.len], exponent, factor, bound)
        }
    }

    /// The estimate two values at a time, each value's scaled magnitude below
    /// [`FAST_ROUND_LIMIT`] (`ROUNDS`: round with [`ROUND_MAGIC`]) or from
    /// [`INTEGER_LIMIT`] to [`DIGIT_LIMIT`] (already an integer, its own digit).
    #[inline(always)]
    fn lane_estimate<const ROUNDS: bool>(&self, scaled: &[f64; MAX_SAMPLE], exponent: usize, factor: usize, bound: u64) -> Option<u64> {
        let down_f = F64x2::splat(INV_POW10[factor]);
        let (up_f, down_e) = (F64x2::splat(POW10[factor]), F64x2::splat(INV_POW10[exponent]));
        let (magic, zero) = (F64x2::splat(ROUND_MAGIC), F64x2::splat(0.0));
        let (inf, neg_inf) = (F64x2::splat(f64::INFINITY), F64x2::splat(f64::NEG_INFINITY));
        // Exceptions at or beyond this many cannot beat the bound.
        let most_exceptions = bound.div_ceil(MAIN_EXCEPTION_BITS) as f64;
        let (mut lo, mut hi, mut exceptions) = ([inf; 2], [neg_inf; 2], [zero; 2]);
        let n = self.padded_len();
        let groups = scaled[..n].chunks_exact(GROUP).zip(self.values[..n].chunks_exact(GROUP)).zip(self.weights[..n].chunks_exact(GROUP));
        for ((scaled, values), weights) in groups {
            for h in 0..2 {
                let i = 2 * h;
                let v = F64x2::new(values[i], values[i + 1]);
                let scaled = F64x2::new(scaled[i], scaled[i + 1]).mul(down_f);
                let rounded = if ROUNDS { scaled.add(magic).sub(magic) } else { scaled };
                let back = rounded.mul(up_f).mul(down_e);
                exceptions[h] = exceptions[h].add(back.select_eq(v, zero, F64x2::new(weights[i], weights[i + 1])));
                lo[h] = lo[h].min(back.select_eq(v, rounded, inf));
                hi[h] = hi[h].max(back.select_eq(v, rounded, neg_inf));
            }
            // A lower bound of the final estimate, as the scalar loop's early stop.
            let [a, b] = exceptions[0].add(exceptions[1]).lanes();
            if a + b >= most_exceptions {
                return None;
            }
        }
        let [lo_a, lo_b] = lo[0].min(lo[1]).lanes();
        let [hi_a, hi_b] = hi[0].max(hi[1]).lanes();
        let (lo, hi) = (lo_a.min(lo_b), hi_a.max(hi_b));
        // Digits are integers below 2^63 here: the conversions are exact.
        let digit_bits = if lo <= hi { self.len as u64 * u64::from(span_width(lo as i64, hi as i64)) } else { 0 };
        let [a, b] = exceptions[0].add(exceptions[1]).lanes();
        let bits = digit_bits + (a + b) as u64 * MAIN_EXCEPTION_BITS;
        (bits < bound).then_some(bits)
    }
}

/// Estimated main bits of `sample` at (`exponent`, `factor`), or `None` as soon
/// as it cannot beat `bound` (width and exception count only grow, so the
/// partial estimate is a lower bound of the final one). The scalar twin of
/// [`LaneSample::estimate`], and its fallback for values beyond the fast rounding.
fn sample_estimate(sample: &[f64], exponent: usize, factor: usize, bound: u64) -> Option<u64> {
    let n = sample.len() as u64;
    let (up_e, down_f) = (POW10[exponent], INV_POW10[factor]);
    let (up_f, down_e) = (POW10[factor], INV_POW10[exponent]);
    let mut exception_bits = 0u64;
    let mut digit_bits = 0u64;
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for &v in sample {
        let scaled = v * up_e * down_f;
        let digit = if scaled.abs() < FAST_ROUND_LIMIT {
            // Common case inline; the rounded value is already an exact integer.
            let rounded = (scaled + ROUND_MAGIC) - ROUND_MAGIC;
            (rounded * up_f * down_e == v).then_some(rounded as i64)
        } else {
            round_scaled(scaled).filter(|&d| (d as f64) * up_f * down_e == v)
        };
        match digit {
            Some(d) if d >= lo && d <= hi => continue,
            Some(d) => {
                (lo, hi) = (lo.min(d), hi.max(d));
                digit_bits = n * u64::from(span_width(lo, hi));
            }
            None => exception_bits += MAIN_EXCEPTION_BITS,
        }
        if digit_bits + exception_bits >= bound {
            return None;
        }
    }
    Some(digit_bits + exception_bits)
}

/// A main-scheme encoding of the whole column at a fixed (e, f).
struct MainPlan {
    exponent: usize,
    factor: usize,
    /// Frame of reference: the smallest digit.
    min: i64,
    width: u32,
    /// `digit - min` per point, 0 at exceptions.
    codes: Vec<u64>,
    /// Ascending positions of the values stored verbatim.
    exceptions: Vec<u32>,
}

impl MainPlan {
    /// `None` when no value at all is exact at (e, f).
    fn new(values: &[f64], exponent: usize, factor: usize) -> Option<MainPlan> {
        // Each value's digit, or NOT_EXACT; then, in place, its code.
        let mut codes: Vec<u64> = values.iter().map(|&v| exact_digit(v, exponent, factor).unwrap_or(NOT_EXACT) as u64).collect();
        let (mut min, mut max, mut exact) = (i64::MAX, i64::MIN, 0usize);
        for &code in &codes {
            let digit = code as i64;
            let is_digit = digit != NOT_EXACT;
            min = if is_digit && digit < min { digit } else { min };
            max = if is_digit && digit > max { digit } else { max };
            exact += usize::from(is_digit);
        }
        if exact == 0 {
            return None;
        }
        let mut exceptions = Vec::with_capacity(values.len() - exact);
        for (i, code) in codes.iter_mut().enumerate() {
            let digit = *code as i64;
            if digit == NOT_EXACT {
                // Exception slots hold a plain 0 code, whatever the minimum.
                exceptions.push(i as u32);
                *code = 0;
            } else {
                *code = digit.wrapping_sub(min) as u64;
            }
        }
        Some(MainPlan { exponent, factor, min, width: span_width(min, max), codes, exceptions })
    }

    fn estimated_bits(&self) -> u64 {
        MAIN_HEADER_BITS + self.codes.len() as u64 * u64::from(self.width) + self.exceptions.len() as u64 * MAIN_EXCEPTION_BITS
    }

    fn write(&self, values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
        out.extend_from_slice(&[SCHEME_MAIN, self.exponent as u8, self.factor as u8, self.width as u8]);
        out.extend_from_slice(&order.u32_bytes(self.exceptions.len() as u32));
        out.extend_from_slice(&order.u64_bytes(self.min as u64));
        pack_codes(out, self.codes.iter().copied(), self.width);
        for &p in &self.exceptions {
            out.extend_from_slice(&order.u32_bytes(p));
            out.extend_from_slice(&order.u64_bytes(values[p as usize].to_bits()));
        }
    }
}

/// The up-to-8 most frequent lefts of `runs` (`(left, count)` pairs with
/// distinct lefts), most frequent first, smaller left first on equal counts,
/// and how many values they cover.
fn top_lefts(runs: &mut [(u64, u32)]) -> (Vec<u64>, u64) {
    runs.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top = &runs[..runs.len().min(RD_MAX_DICT)];
    (top.iter().map(|r| r.0).collect(), top.iter().map(|r| u64::from(r.1)).sum())
}

/// `(left, count)` for each distinct value of an ascending sequence.
fn count_runs(sorted: impl IntoIterator<Item = u64>) -> Vec<(u64, u32)> {
    let mut runs: Vec<(u64, u32)> = Vec::new();
    for left in sorted {
        match runs.last_mut() {
            Some((last, count)) if *last == left => *count += 1,
            _ => runs.push((left, 1)),
        }
    }
    runs
}

/// Estimated RD bits of `count` values with a dictionary of `dict_len`
/// entries, lefts cut at `right_width` and `exceptions` uncovered lefts.
fn rd_bits(count: u64, right_width: u32, dict_len: usize, exceptions: u64) -> u64 {
    RD_HEADER_BITS
        + dict_len as u64 * RD_DICT_ENTRY_BITS
        + count * u64::from(rd_code_bits(dict_len))
        + count * u64::from(right_width)
        + exceptions * RD_EXCEPTION_BITS
}

/// An RD encoding of the whole column: the cut and the dictionary.
struct RdPlan {
    right_width: u32,
    /// Most frequent lefts first; a value's code is its left's index here.
    dict: Vec<u64>,
    exceptions: u64,
}

impl RdPlan {
    fn new(values: &[f64], stride: usize) -> RdPlan {
        let right_width = best_cut(values, stride);
        // Lefts have at most 16 bits; sorting them gives each distinct left's count.
        let mut lefts: Vec<u16> = values.iter().map(|v| (v.to_bits() >> right_width) as u16).collect();
        lefts.sort_unstable();
        let mut runs = count_runs(lefts.iter().map(|&l| u64::from(l)));
        let (dict, covered) = top_lefts(&mut runs);
        RdPlan { right_width, dict, exceptions: values.len() as u64 - covered }
    }

    fn estimated_bits(&self, count: usize) -> u64 {
        rd_bits(count as u64, self.right_width, self.dict.len(), self.exceptions)
    }

    fn write(&self, values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
        let code_bits = rd_code_bits(self.dict.len());
        let right_width = self.right_width;
        let code_of = |left: u64| self.dict.iter().position(|&d| d == left);
        let mut exceptions: Vec<(u32, u16)> = Vec::new();
        let codes: Vec<u64> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let left = v.to_bits() >> right_width;
                code_of(left).map_or_else(
                    || {
                        exceptions.push((i as u32, left as u16));
                        0
                    },
                    |code| code as u64,
                )
            })
            .collect();

        out.extend_from_slice(&[SCHEME_RD, right_width as u8, code_bits as u8, self.dict.len() as u8]);
        out.extend_from_slice(&order.u32_bytes(exceptions.len() as u32));
        for &left in &self.dict {
            out.extend_from_slice(&order.u16_bytes(left as u16));
        }
        pack_codes(out, codes, code_bits);
        pack_codes(out, values.iter().map(|v| v.to_bits()), right_width);
        for &(position, left) in &exceptions {
            out.extend_from_slice(&order.u32_bytes(position));
            out.extend_from_slice(&order.u16_bytes(left));
        }
    }
}

/// The right width (48..=63) with the smallest estimated RD size over the
/// sample; the widest right part wins a tie.
fn best_cut(values: &[f64], stride: usize) -> u32 {
    // Sorting the patterns once sorts the lefts of every cut too.
    let mut patterns = [0u64; MAX_SAMPLE];
    let mut n = 0;
    for v in values.iter().step_by(stride) {
        patterns[n] = v.to_bits();
        n += 1;
    }
    let sample = &mut patterns[..n];
    sample.sort_unstable();
    let mut counts = [0u32; MAX_SAMPLE];
    let mut best = (u64::MAX, 64 - 1);
    for left_bits in 1..=RD_MAX_LEFT_BITS {
        let right_width = 64 - left_bits;
        // Each distinct left's count, as `count_runs` has them.
        let mut runs = 0;
        for (i, &p) in sample.iter().enumerate() {
            if i == 0 || p >> right_width != sample[i - 1] >> right_width {
                counts[runs] = 0;
                runs += 1;
            }
            counts[runs - 1] += 1;
        }
        // The dictionary's size and what it covers: its lefts are those of the
        // largest counts, and which of equal counts it takes changes no sum.
        let bits = rd_bits(n as u64, right_width, runs.min(RD_MAX_DICT), n as u64 - largest_counts_sum(&counts[..runs]));
        if bits < best.0 {
            best = (bits, right_width);
        }
    }
    best.1
}

/// The sum of the [`RD_MAX_DICT`] largest of `counts` (all of them when fewer).
fn largest_counts_sum(counts: &[u32]) -> u64 {
    // Descending; a scan, not a sort (few counts, no sort instance of its own).
    let mut top = [0u32; RD_MAX_DICT];
    for &c in counts {
        if c > top[RD_MAX_DICT - 1] {
            let mut i = RD_MAX_DICT - 1;
            while i > 0 && top[i - 1] < c {
                top[i] = top[i - 1];
                i -= 1;
            }
            top[i] = c;
        }
    }
    top.iter().map(|&c| u64::from(c)).sum()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The plain scan: every candidate through the scalar estimate, as before the lanes.
    fn scalar_best_exponents(values: &[f64], stride: usize) -> (usize, usize) {
        let sample: Vec<f64> = values.iter().copied().step_by(stride).collect();
        search_exponents(|exponent, factor, bound| sample_estimate(&sample, exponent, factor, bound))
    }

    /// Every candidate's lane estimate equals the scalar one, under no bound
    /// and under each bound that splits the candidates; the (e, f) search
    /// picks the same, and the RD cut is the one the dictionary itself gives.
    fn assert_searches_match(values: &[f64]) {
        let stride = sample_stride(values.len());
        let plain: Vec<f64> = values.iter().copied().step_by(stride).collect();
        let sample = LaneSample::new(values, stride);
        let mut scaled = [0.0; MAX_SAMPLE];
        for exponent in 0..=usize::from(MAX_EXPONENT) {
            sample.scale(exponent, &mut scaled);
            for factor in 0..=exponent {
                let whole = sample_estimate(&plain, exponent, factor, u64::MAX);
                assert_eq!(sample.estimate(&scaled, exponent, factor, u64::MAX), whole, "e {exponent} f {factor} {values:?}");
                if let Some(bits) = whole {
                    for bound in [bits, bits + 1, bits / 2, 96, 1] {
                        assert_eq!(
                            sample.estimate(&scaled, exponent, factor, bound),
                            sample_estimate(&plain, exponent, factor, bound),
                            "e {exponent} f {factor} bound {bound} {values:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(best_exponents(values, stride), scalar_best_exponents(values, stride), "{values:?}");
        assert_eq!(best_cut(values, stride), plain_best_cut(values, stride), "{values:?}");
    }

    /// The cut by the dictionary itself, as `RdPlan::new` builds it.
    fn plain_best_cut(values: &[f64], stride: usize) -> u32 {
        let mut sample: Vec<u64> = values.iter().step_by(stride).map(|v| v.to_bits()).collect();
        sample.sort_unstable();
        let n = sample.len() as u64;
        let mut best = (u64::MAX, 64 - 1);
        for right_width in (64 - RD_MAX_LEFT_BITS..64).rev() {
            let mut runs = count_runs(sample.iter().map(|&p| p >> right_width));
            let (dict, covered) = top_lefts(&mut runs);
            let bits = rd_bits(n, right_width, dict.len(), n - covered);
            if bits < best.0 {
                best = (bits, right_width);
            }
        }
        best.1
    }

    fn walk(start: f64, steps: &[f64]) -> Vec<f64> {
        steps.iter().scan(start, |x, s| Some(std::mem::replace(x, *x + s))).collect()
    }

    #[test]
    fn searches_match_their_plain_twins_on_each_regime() {
        let decimals: Vec<f64> = (0..250).map(|i| f64::from(i * 37 % 1000 - 300) / 100.0).collect();
        let noise: Vec<f64> = walk(100.0, &(0..250).map(|i| ((i * 7919 % 1013) as f64 - 506.0) / 997.0).collect::<Vec<_>>());
        let huge: Vec<f64> = (0..60).map(|i| 1e17 + f64::from(i) * 1024.0).collect();
        let beyond: Vec<f64> = (0..40).map(|i| -1e300 * f64::from(i + 1)).collect();
        let mut specials = decimals.clone();
        for (i, s) in
            [f64::NAN, f64::INFINITY, -0.0, 0.0, f64::MIN_POSITIVE, 5e-324, 1e19, -1e15, 2251799813685248.5].into_iter().enumerate()
        {
            specials[i * 7] = s;
        }
        let mut mixed = noise.clone();
        mixed[0] = 0.0;
        for values in [&decimals, &noise, &huge, &beyond, &specials, &mixed, &decimals[..1], &noise[..5], &huge[..33], &specials[..63]] {
            assert_searches_match(values);
        }
    }

    proptest! {
        #[test]
        fn searches_match_their_plain_twins(
            digits in prop::collection::vec(-5_000_000i64..5_000_000, 1..300),
            decimals in 0i32..10,
            scale in -20i32..25,
            noise in prop::collection::vec(any::<u64>(), 0..20),
        ) {
            let mut values: Vec<f64> = digits.iter().map(|&d| d as f64 / 10f64.powi(decimals) * 10f64.powi(scale)).collect();
            let len = values.len();
            for (i, bits) in noise.iter().enumerate() {
                values[*bits as usize % len] = f64::from_bits(*bits ^ i as u64);
            }
            assert_searches_match(&values);
        }
    }
}
