//! Run merging: the points of an out-of-order series in time order.

/// `positions` ordered by `timestamps[position]`, equal times in the order
/// given: a bottom-up merge of the runs already in time order. A series that
/// is sorted but for some late points (a window appended out of order) costs
/// a pass per doubling of its run count, not a sort; any order is at worst a
/// merge sort.
pub(crate) fn in_time_order(timestamps: &[i64], mut positions: Vec<usize>) -> Vec<usize> {
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
pub(crate) fn leading<T>(items: &[T], before: impl Fn(&T) -> bool) -> usize {
    let mut probe = 1;
    while probe <= items.len() && before(&items[probe - 1]) {
        probe *= 2;
    }
    // `items[..probe / 2]` all satisfy it; the first that does not is below `probe`.
    let known = probe / 2;
    known + items[known..probe.min(items.len())].partition_point(before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

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
}
