//! Chart-ready reads of one decoded series: the points of a time range, and
//! decimation to a screen's resolution (M4 min/max buckets, LTTB). Pure
//! functions over decoded columns, so blob and set handles share them and
//! they are tested natively.

use std::ops::Range;

/// The points of a series with `from <= t < to`.
#[derive(Debug, PartialEq)]
pub enum Selection {
    /// A contiguous run: sorted timestamps, found by binary search.
    Span(Range<usize>),
    /// Scattered points in stored order: timestamps that go backwards.
    Picked(Vec<usize>),
}

impl Selection {
    pub fn of(timestamps: &[i64], from: i64, to: i64) -> Selection {
        if in_order(timestamps) {
            let lo = timestamps.partition_point(|&t| t < from);
            let hi = timestamps.partition_point(|&t| t < to).max(lo);
            Selection::Span(lo..hi)
        } else {
            Selection::Picked((0..timestamps.len()).filter(|&i| from <= timestamps[i] && timestamps[i] < to).collect())
        }
    }

    /// The selected items of a column of the series.
    pub fn pick<T: Clone>(&self, column: &[T]) -> Vec<T> {
        match self {
            Selection::Span(range) => column[range.clone()].to_vec(),
            Selection::Picked(indexes) => indexes.iter().map(|&i| column[i].clone()).collect(),
        }
    }
}

/// Whether the timestamps never go backwards. Every pair is compared, with no
/// early exit, so the loop vectorizes: the usual series is in order and read
/// to its end anyway.
fn in_order(timestamps: &[i64]) -> bool {
    timestamps.iter().zip(timestamps.iter().skip(1)).fold(true, |ok, (a, b)| ok & (a <= b))
}

/// How `decimate` thins a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// M4: `buckets` equal time buckets; per non-empty bucket its first,
    /// minimum, maximum and last point, in time order, each point once.
    MinMax,
    /// Largest-Triangle-Three-Buckets (Steinarsson 2013) to `buckets` points,
    /// computed as the author's JavaScript does (x: epoch milliseconds).
    Lttb,
}

/// A decimated series, ready for a chart.
#[derive(Debug, PartialEq)]
pub struct Decimated {
    pub timestamps_ms: Vec<f64>,
    pub values: Vec<f64>,
    /// Points in the window (NaN values left out) before decimation.
    pub source_points: usize,
}

impl Decimated {
    /// `[timestamps_ms…, values…, source_points]`: one array crosses the
    /// boundary instead of an object of two (the SDK splits it into views).
    pub fn packed(self) -> Vec<f64> {
        let mut all = self.timestamps_ms;
        all.extend_from_slice(&self.values);
        all.push(self.source_points as f64);
        all
    }
}

/// Epoch microseconds as fractional milliseconds, as `timestampsMs` gives them.
pub fn micros_to_millis(t: i64) -> f64 {
    t as f64 / 1000.0
}

/// Thin the points with `from <= t < to` (either bound may be absent) to
/// about `buckets` points. NaN values are skipped, ±Inf kept; points are
/// taken in time order (a stable sort when timestamps go backwards).
pub fn decimate(timestamps: &[i64], values: &[f64], from: Option<i64>, to: Option<i64>, buckets: usize, method: Method) -> Decimated {
    let n = timestamps.len().min(values.len());
    let (ts, vs) = (&timestamps[..n], &values[..n]);
    // The usual series (sorted) is windowed by binary search and read in
    // place when the window holds no NaN; any other is first copied into the
    // points to look at, in time order.
    let kept: Option<(Vec<i64>, Vec<f64>)>;
    let (ts, vs) = if in_order(ts) {
        let lo = from.map_or(0, |f| ts.partition_point(|&t| t < f));
        let hi = to.map_or(n, |end| ts.partition_point(|&t| t < end)).max(lo);
        let (ts, vs) = (&ts[lo..hi], &vs[lo..hi]);
        if vs.iter().fold(false, |any, v| any | v.is_nan()) {
            let keep: Vec<usize> = (0..ts.len()).filter(|&i| !vs[i].is_nan()).collect();
            kept = Some((keep.iter().map(|&i| ts[i]).collect(), keep.iter().map(|&i| vs[i]).collect()));
            kept.as_ref().map(|(t, v)| (t.as_slice(), v.as_slice())).unwrap_or_default()
        } else {
            (ts, vs)
        }
    } else {
        let inside = |t: i64| from.is_none_or(|f| f <= t) && to.is_none_or(|end| t < end);
        let window: Vec<usize> = (0..n).filter(|&i| !vs[i].is_nan() && inside(ts[i])).collect();
        let order = in_time_order(ts, window);
        kept = Some((order.iter().map(|&i| ts[i]).collect(), order.iter().map(|&i| vs[i]).collect()));
        kept.as_ref().map(|(t, v)| (t.as_slice(), v.as_slice())).unwrap_or_default()
    };
    let picked = match method {
        Method::MinMax => min_max(ts, vs, from, to, buckets),
        Method::Lttb => lttb(ts, vs, buckets),
    };
    Decimated {
        timestamps_ms: picked.iter().map(|&i| micros_to_millis(ts[i])).collect(),
        values: picked.iter().map(|&i| vs[i]).collect(),
        source_points: ts.len(),
    }
}

/// `positions` ordered by `timestamps[position]`, equal times in the order
/// given: a bottom-up merge of the runs already in time order. A series that
/// is sorted but for some late points (a window appended out of order) costs
/// a pass per doubling of its run count, not a sort; any order is at worst a
/// merge sort.
fn in_time_order(timestamps: &[i64], mut positions: Vec<usize>) -> Vec<usize> {
    let n = positions.len();
    let descends = |i: &usize| timestamps[positions[*i]] < timestamps[positions[*i - 1]];
    // Where each run starts, then `n`.
    let mut runs: Vec<usize> = std::iter::once(0).chain((1..n).filter(descends)).chain(std::iter::once(n)).collect();
    let mut merged = vec![0; n];
    while runs.len() > 2 {
        let mut joined = Vec::with_capacity(runs.len() / 2 + 2);
        joined.push(0);
        for pair in runs.windows(3).step_by(2) {
            let (left, right) = positions[pair[0]..pair[2]].split_at(pair[1] - pair[0]);
            merge_by_time(timestamps, left, right, &mut merged[pair[0]..pair[2]]);
            joined.push(pair[2]);
        }
        // An odd run out waits for the next pass.
        let last = *joined.last().unwrap_or(&0);
        merged[last..].copy_from_slice(&positions[last..]);
        if last < n {
            joined.push(n);
        }
        std::mem::swap(&mut positions, &mut merged);
        runs = joined;
    }
    positions
}

/// Merge two runs of positions in time order into `out` (as long as both);
/// on equal times the left run's position first, which keeps the order stable.
/// Each run's next stretch that goes before the other's next point is found
/// by [`leading`] and copied whole: a few late points cost their own count of
/// searches, not a step per point.
fn merge_by_time<'a>(timestamps: &[i64], mut left: &'a [usize], mut right: &'a [usize], out: &mut [usize]) {
    let mut at = 0;
    while let (Some(&l), Some(&r)) = (left.first(), right.first()) {
        let (from_left, from_right) =
            (leading(left, |&p| timestamps[p] <= timestamps[r]), leading(right, |&p| timestamps[p] < timestamps[l]));
        // One of the two is at least 1: `l` goes first, or `r` does.
        let (run, rest) = if from_left > 0 { left.split_at(from_left) } else { right.split_at(from_right) };
        out[at..at + run.len()].copy_from_slice(run);
        at += run.len();
        if from_left > 0 {
            left = rest;
        } else {
            right = rest;
        }
    }
    out[at..at + left.len()].copy_from_slice(left);
    out[at + left.len()..].copy_from_slice(right);
}

/// How many leading items of `items` satisfy `before`, which holds for a
/// prefix: an exponential then a binary search, so the cost follows the
/// prefix's length, not the slice's.
fn leading<T>(items: &[T], before: impl Fn(&T) -> bool) -> usize {
    let mut probe = 1;
    while probe <= items.len() && before(&items[probe - 1]) {
        probe *= 2;
    }
    // `items[..probe / 2]` all satisfy it; the first that does not is below `probe`.
    let known = probe / 2;
    known + items[known..probe.min(items.len())].partition_point(before)
}

/// M4 over a time-ordered series. Buckets split `from..to` into equal
/// parts, an absent bound replaced by the first or last point's time (the
/// last point included); integer arithmetic in i128, so any two i64
/// timestamps work.
fn min_max(ts: &[i64], vs: &[f64], from: Option<i64>, to: Option<i64>, buckets: usize) -> Vec<usize> {
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
            let (min_at, max_at) = extremes(&vs[start..end]);
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

/// Lanes of [`extreme_values`]: enough independent running extremes for the
/// CPU to overlap them, in two simd128 registers.
const LANES: usize = 4;

/// The first positions of the minimum and of the maximum of `vs` (no NaN;
/// -0.0 and +0.0 are equal, as to `<`). In two passes: the extremes' values
/// (with simd128 and natively without a data-dependent branch: V8 compiles a
/// scalar float select to a branch, which mispredicts at each new record),
/// then the first point equal to each. One pass that also tracked positions
/// kept too much state for wasm's registers (V8 spilled it to the stack).
fn extremes(vs: &[f64]) -> (usize, usize) {
    let (min, max) = extreme_values(vs);
    let at = |x: f64| vs.iter().position(|&v| v == x).unwrap_or(0);
    (at(min), at(max))
}

/// Both paths' last step: the least of the lanes' minima and the points
/// left over after the last whole chunk, and the greatest likewise.
fn lanes_and_rest(first: f64, lo: &[f64], hi: &[f64], rest: &[f64]) -> (f64, f64) {
    let min = lo.iter().chain(rest).fold(first, |m, &v| if v < m { v } else { m });
    let max = hi.iter().chain(rest).fold(first, |m, &v| if v > m { v } else { m });
    (min, max)
}

/// The minimum and maximum of `vs` (not NaN; of an empty slice, 0): the
/// portable path, lane by lane, and the twin of the simd128 path below.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn extreme_values(vs: &[f64]) -> (f64, f64) {
    let first = vs.first().copied().unwrap_or(0.0);
    let (mut lo, mut hi) = ([first; LANES], [first; LANES]);
    let mut chunks = vs.chunks_exact(LANES);
    for chunk in &mut chunks {
        for lane in 0..LANES {
            lo[lane] = if chunk[lane] < lo[lane] { chunk[lane] } else { lo[lane] };
            hi[lane] = if chunk[lane] > hi[lane] { chunk[lane] } else { hi[lane] };
        }
    }
    lanes_and_rest(first, &lo, &hi, chunks.remainder())
}

/// The simd128 path of [`extreme_values`]: `f64x2.pmin`/`pmax` are exactly
/// its selects (`b < a ? b : a`), one instruction each (`minpd`/`maxpd` on
/// x86). The SDK's variant tests decimate with the simd128 and the scalar
/// builds and compare.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn extreme_values(vs: &[f64]) -> (f64, f64) {
    use core::arch::wasm32::{f64x2, f64x2_extract_lane, f64x2_pmax, f64x2_pmin, f64x2_splat};
    let first = vs.first().copied().unwrap_or(0.0);
    let (mut lo, mut hi) = ([f64x2_splat(first); 2], [f64x2_splat(first); 2]);
    let mut chunks = vs.chunks_exact(LANES);
    for chunk in &mut chunks {
        let pairs = [f64x2(chunk[0], chunk[1]), f64x2(chunk[2], chunk[3])];
        for lane in 0..2 {
            lo[lane] = f64x2_pmin(lo[lane], pairs[lane]);
            hi[lane] = f64x2_pmax(hi[lane], pairs[lane]);
        }
    }
    let (lo, hi) = (f64x2_pmin(lo[0], lo[1]), f64x2_pmax(hi[0], hi[1]));
    let lanes = |v| [f64x2_extract_lane::<0>(v), f64x2_extract_lane::<1>(v)];
    lanes_and_rest(first, &lanes(lo), &lanes(hi), chunks.remainder())
}

/// LTTB over a time-ordered series, step for step as Steinarsson's
/// `largestTriangleThreeBuckets` (flot-downsample), so results match it point
/// for point (x: epoch milliseconds, each computed once). As there, the
/// chosen point carries over to the next bucket when no area beats -1 (NaN
/// areas from infinite values); before any was chosen, that is the first point.
fn lttb(ts: &[i64], vs: &[f64], threshold: usize) -> Vec<usize> {
    let n = ts.len();
    if threshold >= n || threshold == 0 {
        return (0..n).collect();
    }
    let xs: Vec<f64> = ts.iter().map(|&t| micros_to_millis(t)).collect();
    let every = (n - 2) as f64 / (threshold as f64 - 2.0);
    let bound = |k: usize| (k as f64 * every).floor() as usize + 1;
    let mut out = Vec::with_capacity(threshold);
    out.push(0);
    let (mut a, mut next_a) = (0, 0);
    for i in 0..threshold.saturating_sub(2) {
        let (avg_start, avg_end) = (bound(i + 1), bound(i + 2).min(n));
        // Slices by `get`: the bounds stay inside the series by construction,
        // and a float surprise must not become a panic.
        let points = |lo: usize, hi: usize| xs.get(lo..hi).unwrap_or_default().iter().zip(vs.get(lo..hi).unwrap_or_default());
        let (mut avg_x, mut avg_y) = (0.0, 0.0);
        for (&x, &v) in points(avg_start, avg_end) {
            avg_x += x;
            avg_y += v;
        }
        let avg_len = avg_end as f64 - avg_start as f64;
        avg_x /= avg_len;
        avg_y /= avg_len;
        let (ax, ay) = (xs[a], vs[a]);
        // The largest area as an integer (an area is >= 0 or NaN, and
        // non-negative floats order as their bits): selects, not branches. -1
        // stands for the original's -1.0, which a NaN area does not beat.
        let mut max_area = -1i64;
        let start = bound(i);
        for (k, (&x, &v)) in points(start, bound(i + 1)).enumerate() {
            let area = ((ax - avg_x) * (v - ay) - (ax - x) * (avg_y - ay)).abs() * 0.5;
            let area = if area.is_nan() { -1 } else { area.to_bits() as i64 };
            (max_area, next_a) = if area > max_area { (area, start + k) } else { (max_area, next_a) };
        }
        out.push(next_a);
        a = next_a;
    }
    out.push(n - 1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_of_sorted_and_unsorted_series() {
        let sorted = [10, 20, 20, 30, 40];
        assert_eq!(Selection::of(&sorted, 20, 40), Selection::Span(1..4));
        assert_eq!(Selection::of(&sorted, 41, 50), Selection::Span(5..5));
        assert_eq!(Selection::of(&sorted, 30, 10), Selection::Span(3..3));
        assert_eq!(Selection::of(&sorted, i64::MIN, i64::MAX).pick(&sorted), sorted.to_vec());
        let unsorted = [30, 10, 20, 40, 15];
        let picked = Selection::of(&unsorted, 15, 31);
        assert_eq!(picked, Selection::Picked(vec![0, 2, 4]));
        assert_eq!(picked.pick(&["a", "b", "c", "d", "e"]), vec!["a", "c", "e"]);
    }

    #[test]
    fn min_max_keeps_first_min_max_last_once_in_time_order() {
        // Two buckets over 0..8 µs: [0, 4) and [4, 8).
        let ts = [0, 1, 2, 3, 4, 5, 6, 7];
        let vs = [5.0, 1.0, 9.0, 4.0, 2.0, 2.0, f64::NAN, 2.0];
        let d = decimate(&ts, &vs, Some(0), Some(8), 2, Method::MinMax);
        assert_eq!(d.timestamps_ms, vec![0.0, 0.001, 0.002, 0.003, 0.004, 0.007]);
        assert_eq!(d.values, vec![5.0, 1.0, 9.0, 4.0, 2.0, 2.0]);
        assert_eq!(d.source_points, 7);
        // Out-of-order timestamps are taken in time order; ±Inf kept.
        let d = decimate(&[3, 1, 2], &[f64::INFINITY, f64::NEG_INFINITY, 0.0], None, None, 1, Method::MinMax);
        assert_eq!(d.timestamps_ms, vec![0.001, 0.003]);
        assert_eq!(d.values, vec![f64::NEG_INFINITY, f64::INFINITY]);
        // Extreme timestamps do not overflow the bucket arithmetic.
        let d = decimate(&[i64::MIN, 0, i64::MAX], &[1.0, 2.0, 3.0], None, None, 3, Method::MinMax);
        assert_eq!(d.values, vec![1.0, 2.0, 3.0]);
        assert!(decimate(&[], &[], None, None, 10, Method::MinMax).values.is_empty());
        // One bound: from 4 µs to the last point, two buckets [4, 6) and [6, 8).
        let d = decimate(&ts, &[0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 2.0, 5.0], Some(4), None, 2, Method::MinMax);
        assert_eq!(d.values, vec![1.0, 3.0, 2.0, 5.0]);
    }

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

    /// A small deterministic generator (xorshift64) for the random cases.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn time_order_is_the_stable_sort() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for case in 0..500 {
            let n = (next() % 200) as usize;
            // Sorted runs of random lengths with few distinct times (ties), a
            // late window appended, or no order at all.
            let ts: Vec<i64> = match case % 3 {
                0 => (0..n).map(|i| (i as i64 % (1 + (next() % 50) as i64)) * 3).collect(),
                1 => (0..n).map(|i| if i < n * 9 / 10 { i as i64 } else { (i - n * 9 / 10) as i64 }).collect(),
                _ => (0..n).map(|_| (next() % 20) as i64 - 10).collect(),
            };
            // A window leaves some positions out.
            let positions: Vec<usize> = (0..n).filter(|_| !next().is_multiple_of(5)).collect();
            let mut want = positions.clone();
            want.sort_by_key(|&p| ts[p]);
            assert_eq!(in_time_order(&ts, positions), want, "case {case}: {ts:?}");
        }
        assert!(in_time_order(&[], Vec::new()).is_empty());
        assert_eq!(in_time_order(&[i64::MAX, i64::MIN, 0], vec![0, 1, 2]), vec![1, 2, 0]);
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
            let picked = min_max(&ts, &vs, from, to, buckets);
            assert_eq!(picked, plain_min_max(&ts, &vs, from, to, buckets), "case {case}: {n} points, {buckets} buckets");
        }
        // Extreme spans take the division path on every skip.
        let ts = [i64::MIN, -5, 0, 3, i64::MAX];
        for buckets in [1, 2, 3, 5, 1000] {
            assert_eq!(min_max(&ts, &[1.0; 5], None, None, buckets), plain_min_max(&ts, &[1.0; 5], None, None, buckets));
        }
    }

    /// Steinarsson's `largestTriangleThreeBuckets` transcribed line by line.
    fn plain_lttb(xs: &[f64], ys: &[f64], threshold: usize) -> Vec<usize> {
        let n = xs.len();
        if threshold >= n || threshold == 0 {
            return (0..n).collect();
        }
        let every = (n - 2) as f64 / (threshold - 2) as f64;
        let (mut a, mut next_a, mut out) = (0, 0, vec![0]);
        for i in 0..threshold - 2 {
            let (mut avg_x, mut avg_y) = (0.0, 0.0);
            let avg_start = ((i + 1) as f64 * every).floor() as usize + 1;
            let avg_end = (((i + 2) as f64 * every).floor() as usize + 1).min(n);
            for k in avg_start..avg_end {
                avg_x += xs[k];
                avg_y += ys[k];
            }
            avg_x /= (avg_end - avg_start) as f64;
            avg_y /= (avg_end - avg_start) as f64;
            let (range_offs, range_to) = ((i as f64 * every).floor() as usize + 1, ((i + 1) as f64 * every).floor() as usize + 1);
            let (point_ax, point_ay) = (xs[a], ys[a]);
            let mut max_area = -1.0;
            for k in range_offs..range_to {
                let area = ((point_ax - avg_x) * (ys[k] - point_ay) - (point_ax - xs[k]) * (avg_y - point_ay)).abs() * 0.5;
                if area > max_area {
                    max_area = area;
                    next_a = k;
                }
            }
            out.push(next_a);
            a = next_a;
        }
        out.push(n - 1);
        out
    }

    #[test]
    fn lttb_matches_the_original_point_by_point() {
        let mut next = xorshift(0xD1B5_4A32_D192_ED03);
        for case in 0..300 {
            let n = (next() % 2000) as usize + 3;
            let mut t = 1_700_000_000_000_000i64;
            let ts: Vec<i64> = (0..n)
                .map(|_| {
                    t += (next() % 5_000_000) as i64;
                    t
                })
                .collect();
            // Ties, runs of one value, infinities (their areas are NaN or infinite).
            let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e300];
            let vs: Vec<f64> = (0..n)
                .map(|i| match next() % 8 {
                    0 if case % 2 == 0 => special[(next() % 5) as usize],
                    1 => (i / 7) as f64,
                    _ => (next() % 100_000) as f64 / 7.0 - 5000.0,
                })
                .collect();
            let threshold = [3, 4, 10, n / 3 + 2, n - 1, 1000][case % 6];
            let xs: Vec<f64> = ts.iter().map(|&t| micros_to_millis(t)).collect();
            assert_eq!(lttb(&ts, &vs, threshold), plain_lttb(&xs, &vs, threshold), "case {case}: {n} points, {threshold} buckets");
        }
    }

    #[test]
    fn lttb_keeps_ends_and_the_largest_triangles() {
        let ts: Vec<i64> = (0..10).map(|i| i * 1000).collect();
        let vs = [0.0, 0.0, 10.0, 0.0, 0.0, 0.0, -10.0, 0.0, 0.0, 0.0];
        let d = decimate(&ts, &vs, None, None, 4, Method::Lttb);
        assert_eq!(d.values, vec![0.0, 10.0, -10.0, 0.0]);
        assert_eq!(d.timestamps_ms, vec![0.0, 2.0, 6.0, 9.0]);
        // Enough buckets: every point; two: the ends.
        assert_eq!(decimate(&ts, &vs, None, None, 10, Method::Lttb).values.len(), 10);
        assert_eq!(decimate(&ts, &vs, None, None, 2, Method::Lttb).values, vec![0.0, 0.0]);
    }
}
