//! The points of a time range.

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
    /// The points of `timestamps` with `from <= t < to`.
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
pub(crate) fn in_order(timestamps: &[i64]) -> bool {
    timestamps.iter().zip(timestamps.iter().skip(1)).fold(true, |ok, (a, b)| ok & (a <= b))
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
}
