//! Sorting by key through one sort instance.
//!
//! Every `sort_by_key` call site with its own closure is its own copy of the
//! standard library's sort (about 6 KB of WebAssembly for the stable one).
//! The blob API orders metrics by id, a set's blobs by start time, an
//! encoder's metrics by id and shared-timestamp groups by their first metric;
//! all of them go through [`stable_order`], whose
//! sort is the one `sort_unstable` of `(u64, usize)` pairs. The position in
//! each pair makes every key distinct, so the unstable sort gives the stable
//! order.

/// The positions of `keys` in the order that sorts them: the `j`-th item is
/// the position of the `j`-th smallest key, equal keys in position order.
pub fn stable_order(keys: impl IntoIterator<Item = u64>) -> Vec<usize> {
    let mut pairs: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, position)| position).collect()
}

/// [`stable_order`] of `len` keys sized by a blob, allocated fallibly.
pub fn try_stable_order(keys: impl IntoIterator<Item = u64>, len: usize) -> crate::Result<Vec<usize>> {
    let mut pairs: Vec<(u64, usize)> = crate::limits::collect(keys.into_iter().zip(0..).map(Ok), len, "metric order")?;
    pairs.sort_unstable();
    crate::limits::collect(pairs.into_iter().map(|(_, position)| Ok(position)), len, "metric order")
}

/// `items` in the stable order of `key`.
pub fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> u64) -> Vec<T> {
    let order = stable_order(items.iter().map(key));
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    // `order` is a permutation of the positions: every slot is taken once.
    order.into_iter().filter_map(|i| slots.get_mut(i)?.take()).collect()
}

/// A signed key as an unsigned one in the same order (the sign bit flipped),
/// for [`stable_order`].
pub fn signed_key(key: i64) -> u64 {
    (key as u64) ^ (1 << 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_order_is_the_stable_sort() {
        let keys = [5u64, 1, 5, 0, u64::MAX, 1, 3, 5];
        let mut want: Vec<usize> = (0..keys.len()).collect();
        want.sort_by_key(|&i| keys[i]);
        assert_eq!(stable_order(keys), want);
        assert!(stable_order([]).is_empty());
        let items: Vec<(u64, char)> = vec![(2, 'a'), (1, 'b'), (2, 'c'), (0, 'd'), (1, 'e')];
        let mut stable = items.clone();
        stable.sort_by_key(|item| item.0);
        assert_eq!(sorted_by_key(items, |item| item.0), stable);
    }

    #[test]
    fn signed_keys_keep_the_order() {
        let values = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for pair in values.windows(2) {
            assert!(signed_key(pair[0]) < signed_key(pair[1]), "{pair:?}");
        }
        let times = [3i64, -2, 3, i64::MIN, 0, -2];
        let mut want: Vec<usize> = (0..times.len()).collect();
        want.sort_by_key(|&i| times[i]);
        assert_eq!(stable_order(times.iter().map(|&t| signed_key(t))), want);
    }
}
