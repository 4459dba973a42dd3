//! Decimation of one series to a chart's resolution: the window, NaN
//! points left out, time order, then M4 or LTTB.

use crate::extremes::Kernel;
use crate::lttb::lttb;
use crate::m4::min_max;
use crate::order::in_time_order;
use crate::range::in_order;
use crate::time::micros_to_millis;

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
    /// The chosen points' times, epoch milliseconds (see [`micros_to_millis`](crate::micros_to_millis)).
    pub timestamps_ms: Vec<f64>,
    /// The chosen points' values.
    pub values: Vec<f64>,
    /// Points in the window (NaN values left out) before decimation.
    pub source_points: usize,
}

/// Thin the points with `from <= t < to` (either bound may be absent) to
/// about `buckets` points. NaN values are skipped, ±Inf kept; points are
/// taken in time order (a stable sort when timestamps go backwards).
pub fn decimate(timestamps: &[i64], values: &[f64], from: Option<i64>, to: Option<i64>, buckets: usize, method: Method) -> Decimated {
    decimate_with(timestamps, values, from, to, buckets, method, Kernel::default())
}

/// [`decimate`] with the M4 extremes found by `kernel`.
pub fn decimate_with(
    timestamps: &[i64],
    values: &[f64],
    from: Option<i64>,
    to: Option<i64>,
    buckets: usize,
    method: Method,
    kernel: Kernel,
) -> Decimated {
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
        Method::MinMax => min_max(ts, vs, from, to, buckets, kernel),
        Method::Lttb => lttb(ts, vs, buckets),
    };
    Decimated {
        timestamps_ms: picked.iter().map(|&i| micros_to_millis(ts[i])).collect(),
        values: picked.iter().map(|&i| vs[i]).collect(),
        source_points: ts.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
