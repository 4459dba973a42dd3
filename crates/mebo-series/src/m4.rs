//! M4: per time bucket its first, minimum, maximum and last point.

use crate::extremes::{extremes, Kernel};
use crate::order::leading;

/// M4 over a time-ordered series. Buckets split `from..to` into equal
/// parts, an absent bound replaced by the first or last point's time (the
/// last point included); integer arithmetic in i128, so any two i64
/// timestamps work. `kernel` finds each bucket's extremes.
pub(crate) fn min_max(ts: &[i64], vs: &[f64], from: Option<i64>, to: Option<i64>, buckets: usize, kernel: Kernel) -> Vec<usize> {
    let (Some(&first), Some(&last)) = (ts.first(), ts.last()) else {
        return Vec::new();
    };
    let lo = i128::from(from.unwrap_or(first));
    let span = to.map_or(i128::from(last) + 1, i128::from) - lo;
    let buckets = buckets.max(1) as i128;
    // Bucket k holds the points whose offset o from `lo` has
    // k * span <= o * buckets < (k + 1) * span: a bucket's k is one division,
    // and whether a later point is still in it one multiplication. In i64
    // when the products fit (i128 division is a slow library call in wasm),
    // else in i128.
    let fits_i64 = span <= (i128::from(i64::MAX) - buckets) / buckets;
    let mut out = Vec::new();
    let mut start = 0;
    while start < ts.len() {
        // The bucket's end, searched in the time-ordered points; then its
        // extremes.
        let later = &ts[start + 1..];
        let end = start
            + 1
            + if fits_i64 {
                // Every point is within `lo..lo + span`, so offsets and products fit.
                let (lo, span, buckets) = (lo as i64, span as i64, buckets as i64);
                let limit = ((ts[start] - lo) * buckets / span + 1) * span;
                leading(later, |&t| (t - lo) * buckets < limit)
            } else {
                let limit = ((i128::from(ts[start]) - lo) * buckets / span + 1) * span;
                leading(later, |&t| (i128::from(t) - lo) * buckets < limit)
            };
        if end - start == 1 {
            // The usual bucket of a series about as long as the chart is wide.
            out.push(start);
        } else {
            let (min_at, max_at) = extremes(&vs[start..end], kernel);
            let (min_at, max_at) = (start + min_at, start + max_at);
            // First, min and max in time order, last; each point once.
            for p in [start, min_at.min(max_at), min_at.max(max_at), end - 1] {
                if out.last() != Some(&p) {
                    out.push(p);
                }
            }
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// M4 as its definition says, point by point: bucket = floor((t - lo) *
    /// buckets / span) in i128, then first, min, max and last per bucket.
    fn plain_min_max(ts: &[i64], vs: &[f64], from: Option<i64>, to: Option<i64>, buckets: usize) -> Vec<usize> {
        let (Some(&first), Some(&last)) = (ts.first(), ts.last()) else { return Vec::new() };
        let lo = i128::from(from.unwrap_or(first));
        let span = to.map_or(i128::from(last) + 1, i128::from) - lo;
        let bucket = |i: usize| (i128::from(ts[i]) - lo) * buckets as i128 / span;
        let mut out = Vec::new();
        let mut i = 0;
        while i < ts.len() {
            let mut j = i;
            while j + 1 < ts.len() && bucket(j + 1) == bucket(i) {
                j += 1;
            }
            let min = (i..=j).fold(i, |m, k| if vs[k] < vs[m] { k } else { m });
            let max = (i..=j).fold(i, |m, k| if vs[k] > vs[m] { k } else { m });
            let mut picks = vec![i, min, max, j];
            picks.sort();
            picks.dedup();
            out.extend(picks);
            i = j + 1;
        }
        out
    }

    #[test]
    fn min_max_buckets_match_a_plain_point_by_point_m4() {
        // Sorted series with gaps, repeats and jumps, bucket counts below,
        // near and far above the point count.
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        for case in 0..400 {
            let n = (next() % 300) as usize + 1;
            let mut t = (next() as i64) >> (next() % 40 + 20);
            let ts: Vec<i64> = (0..n)
                .map(|_| {
                    t = t.saturating_add(match next() % 4 {
                        0 => 0,
                        1 => (next() % 1000) as i64,
                        2 => (next() % 10) as i64,
                        _ => (next() % 1_000_000_000) as i64,
                    });
                    t
                })
                .collect();
            // Ties, both zeros and infinities among ordinary values.
            let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 7.0];
            let vs: Vec<f64> = (0..n)
                .map(|_| if next().is_multiple_of(4) { special[(next() % 5) as usize] } else { (next() % 1000) as f64 - 500.0 })
                .collect();
            let buckets = [1, 2, 7, n / 3 + 1, n, 4 * n + 3, 1000][case % 7];
            let (from, to) = match case % 3 {
                0 => (None, None),
                1 => (Some(ts[0]), Some(ts[n - 1] + 1 + (next() % 1000) as i64)),
                _ => (Some(ts[0] - (next() % 1000) as i64), None),
            };
            let want = plain_min_max(&ts, &vs, from, to, buckets);
            for kernel in [Kernel::Scalar, Kernel::Simd] {
                let picked = min_max(&ts, &vs, from, to, buckets, kernel);
                assert_eq!(picked, want, "case {case}: {n} points, {buckets} buckets, {kernel:?}");
            }
        }
        // Extreme spans take the division path on every skip.
        let ts = [i64::MIN, -5, 0, 3, i64::MAX];
        for buckets in [1, 2, 3, 5, 1000] {
            assert_eq!(min_max(&ts, &[1.0; 5], None, None, buckets, Kernel::default()), plain_min_max(&ts, &[1.0; 5], None, None, buckets));
        }
    }
}
