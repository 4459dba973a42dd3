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
        if timestamps.is_sorted() {
            let lo = timestamps.partition_point(|&t| t < from);
            let hi = timestamps.partition_point(|&t| t < to).max(lo);
            Selection::Span(lo..hi)
        } else {
            Selection::Picked(
                (0..timestamps.len())
                    .filter(|&i| from <= timestamps[i] && timestamps[i] < to)
                    .collect(),
            )
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

/// Epoch microseconds as fractional milliseconds, as `timestampsMs` gives them.
pub fn micros_to_millis(t: i64) -> f64 {
    t as f64 / 1000.0
}

/// Thin the points with `from <= t < to` (either bound may be absent) to
/// about `buckets` points. NaN values are skipped, ±Inf kept; points are
/// taken in time order (a stable sort when timestamps go backwards).
pub fn decimate(
    timestamps: &[i64],
    values: &[f64],
    from: Option<i64>,
    to: Option<i64>,
    buckets: usize,
    method: Method,
) -> Decimated {
    let inside =
        |i: usize| from.is_none_or(|f| f <= timestamps[i]) && to.is_none_or(|t| timestamps[i] < t);
    let mut order: Vec<usize> = (0..timestamps.len().min(values.len()))
        .filter(|&i| !values[i].is_nan() && inside(i))
        .collect();
    if !order.is_sorted_by_key(|&i| timestamps[i]) {
        order.sort_by_key(|&i| timestamps[i]);
    }
    let picked = match method {
        Method::MinMax => min_max(&order, timestamps, values, from, to, buckets),
        Method::Lttb => lttb(
            &order,
            |i| micros_to_millis(timestamps[i]),
            |i| values[i],
            buckets,
        ),
    };
    Decimated {
        timestamps_ms: picked
            .iter()
            .map(|&i| micros_to_millis(timestamps[i]))
            .collect(),
        values: picked.iter().map(|&i| values[i]).collect(),
        source_points: order.len(),
    }
}

/// M4 over `order` (point indexes in time order). Buckets split `from..to`
/// into equal parts, an absent bound replaced by the first or last point's
/// time (the last point included); integer arithmetic in i128, so any two
/// i64 timestamps work.
fn min_max(
    order: &[usize],
    ts: &[i64],
    vs: &[f64],
    from: Option<i64>,
    to: Option<i64>,
    buckets: usize,
) -> Vec<usize> {
    let (Some(&first), Some(&last)) = (order.first(), order.last()) else {
        return Vec::new();
    };
    let lo = i128::from(from.unwrap_or(ts[first]));
    let span = to.map_or(i128::from(ts[last]) + 1, i128::from) - lo;
    let buckets = buckets.max(1) as i128;
    let bucket_of = |p: usize| (i128::from(ts[order[p]]) - lo) * buckets / span;
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let bucket = bucket_of(start);
        let mut end = start + 1;
        while end < order.len() && bucket_of(end) == bucket {
            end += 1;
        }
        let (mut min_at, mut max_at) = (start, start);
        for p in start..end {
            if vs[order[p]] < vs[order[min_at]] {
                min_at = p;
            }
            if vs[order[p]] > vs[order[max_at]] {
                max_at = p;
            }
        }
        let mut picks = [start, min_at, max_at, end - 1];
        picks.sort_unstable();
        for (j, &p) in picks.iter().enumerate() {
            if j == 0 || p != picks[j - 1] {
                out.push(order[p]);
            }
        }
        start = end;
    }
    out
}

/// LTTB over `order`, step for step as Steinarsson's `largestTriangleThreeBuckets`
/// (flot-downsample), so results match it point for point. As there, the chosen
/// point carries over to the next bucket when no area beats -1 (NaN areas
/// from infinite values); before any was chosen, that is the first point.
fn lttb(
    order: &[usize],
    x: impl Fn(usize) -> f64,
    y: impl Fn(usize) -> f64,
    threshold: usize,
) -> Vec<usize> {
    let n = order.len();
    if threshold >= n || threshold == 0 {
        return order.to_vec();
    }
    let (x, y) = (|p: usize| x(order[p]), |p: usize| y(order[p]));
    let every = (n - 2) as f64 / (threshold as f64 - 2.0);
    let bound = |k: usize| (k as f64 * every).floor() as usize + 1;
    let mut out = Vec::with_capacity(threshold);
    out.push(order[0]);
    let (mut a, mut next_a) = (0, 0);
    for i in 0..threshold.saturating_sub(2) {
        let (avg_start, avg_end) = (bound(i + 1), bound(i + 2).min(n));
        let (mut avg_x, mut avg_y) = (0.0, 0.0);
        for p in avg_start..avg_end {
            avg_x += x(p);
            avg_y += y(p);
        }
        let avg_len = avg_end as f64 - avg_start as f64;
        avg_x /= avg_len;
        avg_y /= avg_len;
        let (ax, ay) = (x(a), y(a));
        let mut max_area = -1.0;
        for p in bound(i)..bound(i + 1) {
            let area = ((ax - avg_x) * (y(p) - ay) - (ax - x(p)) * (avg_y - ay)).abs() * 0.5;
            if area > max_area {
                max_area = area;
                next_a = p;
            }
        }
        out.push(order[next_a]);
        a = next_a;
    }
    out.push(order[n - 1]);
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
        assert_eq!(
            Selection::of(&sorted, i64::MIN, i64::MAX).pick(&sorted),
            sorted.to_vec()
        );
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
        assert_eq!(
            d.timestamps_ms,
            vec![0.0, 0.001, 0.002, 0.003, 0.004, 0.007]
        );
        assert_eq!(d.values, vec![5.0, 1.0, 9.0, 4.0, 2.0, 2.0]);
        assert_eq!(d.source_points, 7);
        // Out-of-order timestamps are taken in time order; ±Inf kept.
        let d = decimate(
            &[3, 1, 2],
            &[f64::INFINITY, f64::NEG_INFINITY, 0.0],
            None,
            None,
            1,
            Method::MinMax,
        );
        assert_eq!(d.timestamps_ms, vec![0.001, 0.003]);
        assert_eq!(d.values, vec![f64::NEG_INFINITY, f64::INFINITY]);
        // Extreme timestamps do not overflow the bucket arithmetic.
        let d = decimate(
            &[i64::MIN, 0, i64::MAX],
            &[1.0, 2.0, 3.0],
            None,
            None,
            3,
            Method::MinMax,
        );
        assert_eq!(d.values, vec![1.0, 2.0, 3.0]);
        assert!(decimate(&[], &[], None, None, 10, Method::MinMax)
            .values
            .is_empty());
        // One bound: from 4 µs to the last point, two buckets [4, 6) and [6, 8).
        let d = decimate(
            &ts,
            &[0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 2.0, 5.0],
            Some(4),
            None,
            2,
            Method::MinMax,
        );
        assert_eq!(d.values, vec![1.0, 3.0, 2.0, 5.0]);
    }

    #[test]
    fn lttb_keeps_ends_and_the_largest_triangles() {
        let ts: Vec<i64> = (0..10).map(|i| i * 1000).collect();
        let vs = [0.0, 0.0, 10.0, 0.0, 0.0, 0.0, -10.0, 0.0, 0.0, 0.0];
        let d = decimate(&ts, &vs, None, None, 4, Method::Lttb);
        assert_eq!(d.values, vec![0.0, 10.0, -10.0, 0.0]);
        assert_eq!(d.timestamps_ms, vec![0.0, 2.0, 6.0, 9.0]);
        // Enough buckets: every point; two: the ends.
        assert_eq!(
            decimate(&ts, &vs, None, None, 10, Method::Lttb)
                .values
                .len(),
            10
        );
        assert_eq!(
            decimate(&ts, &vs, None, None, 2, Method::Lttb).values,
            vec![0.0, 0.0]
        );
    }
}
