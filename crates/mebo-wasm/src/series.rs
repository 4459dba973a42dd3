//! Chart-ready reads of one decoded series: the points of a time range, and
//! decimation to a screen's resolution (M4 min/max buckets, LTTB). Pure
//! functions over decoded columns, so blob and set handles share them and
//! they are tested natively.

use std::ops::Range;

use mebo::internals::{signed_key, stable_order};

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
        if timestamps.is_sorted() {
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
    let (ts, vs) = if ts.is_sorted() {
        let lo = from.map_or(0, |f| ts.partition_point(|&t| t < f));
        let hi = to.map_or(n, |end| ts.partition_point(|&t| t < end)).max(lo);
        let (ts, vs) = (&ts[lo..hi], &vs[lo..hi]);
        if vs.iter().any(|v| v.is_nan()) {
            let keep: Vec<usize> = (0..ts.len()).filter(|&i| !vs[i].is_nan()).collect();
            kept = Some((keep.iter().map(|&i| ts[i]).collect(), keep.iter().map(|&i| vs[i]).collect()));
            kept.as_ref().map(|(t, v)| (t.as_slice(), v.as_slice())).unwrap_or_default()
        } else {
            (ts, vs)
        }
    } else {
        let inside = |t: i64| from.is_none_or(|f| f <= t) && to.is_none_or(|end| t < end);
        let window: Vec<usize> = (0..n).filter(|&i| !vs[i].is_nan() && inside(ts[i])).collect();
        let order: Vec<usize> = stable_order(window.iter().map(|&i| signed_key(ts[i]))).into_iter().map(|k| window[k]).collect();
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
    // Bucket b starts at offset ceil(b * span / buckets): one division per
    // non-empty bucket, none per point; in i64 when the products fit (i128
    // division is a slow library call in wasm), else in i128.
    let fits_i64 = span <= (i128::from(i64::MAX) - buckets) / buckets;
    let bucket_end = |t: i64| {
        let offset = i128::from(t) - lo;
        let end = if fits_i64 {
            let (offset, span, buckets) = (offset as i64, span as i64, buckets as i64);
            i128::from(((offset * buckets / span + 1) * span + buckets - 1) / buckets)
        } else {
            ((offset * buckets / span + 1) * span + buckets - 1) / buckets
        };
        lo + end
    };
    let mut out = Vec::new();
    let mut start = 0;
    while start < ts.len() {
        let end_at = bucket_end(ts[start]);
        // Compared in i64 (i128 takes several wasm instructions): an end past
        // i64::MAX takes every later point.
        let end_time = i64::try_from(end_at).unwrap_or(i64::MAX);
        let past_max = i128::from(end_time) < end_at;
        // One pass over the bucket's points: its end is found by the same
        // walk that reads its values for the minimum and maximum.
        let (mut min_at, mut max_at) = (start, start);
        let (mut min, mut max) = (vs[start], vs[start]);
        let mut end = start + 1;
        for (&t, &v) in ts[end..].iter().zip(&vs[end..]) {
            if !(past_max || t < end_time) {
                break;
            }
            if v < min {
                (min, min_at) = (v, end);
            }
            if v > max {
                (max, max_at) = (v, end);
            }
            end += 1;
        }
        // First, min and max in time order, last; each point once.
        for p in [start, min_at.min(max_at), min_at.max(max_at), end - 1] {
            if out.last() != Some(&p) {
                out.push(p);
            }
        }
        start = end;
    }
    out
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
        let mut max_area = -1.0;
        let start = bound(i);
        for (k, (&x, &v)) in points(start, bound(i + 1)).enumerate() {
            let area = ((ax - avg_x) * (v - ay) - (ax - x) * (avg_y - ay)).abs() * 0.5;
            if area > max_area {
                max_area = area;
                next_a = start + k;
            }
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

    #[test]
    fn min_max_buckets_match_a_plain_point_by_point_m4() {
        // A small deterministic generator: sorted series with gaps, repeats and
        // jumps, bucket counts below, near and far above the point count.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
            let vs: Vec<f64> = (0..n).map(|_| (next() % 1000) as f64 - 500.0).collect();
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
