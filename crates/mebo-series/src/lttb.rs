//! LTTB: Largest-Triangle-Three-Buckets (Steinarsson 2013).

use crate::time::micros_to_millis;

/// LTTB over a time-ordered series, step for step as Steinarsson's
/// `largestTriangleThreeBuckets` (flot-downsample), so results match it point
/// for point (x: epoch milliseconds, each computed once). As there, the
/// chosen point carries over to the next bucket when no area beats -1 (NaN
/// areas from infinite values); before any was chosen, that is the first point.
pub(crate) fn lttb(ts: &[i64], vs: &[f64], threshold: usize) -> Vec<usize> {
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
    use crate::testing::xorshift;

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
}
