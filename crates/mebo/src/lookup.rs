//! The keys of an opened blob's metrics, ids and (when the blob carries them)
//! names, and finding a metric by either: one implementation for both kinds.
//!
//! Ids repeat only when two names share a hash (the blob then carries the
//! names) or in a crafted blob; names repeat only in a crafted one. A lookup
//! finds the **last** metric in index order with that id or name, as the
//! reference's decoders do (each fills a map in index order, later entries
//! replacing earlier ones). A name is looked up by the names payload when
//! there is one, else by its hash.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::error::Result;
use crate::hash::metric_id;
use crate::limits;
use crate::order;
use crate::section::metric_names::MetricNames;

/// Ids and names of a blob's metrics, in index order, with an index for lookups.
#[derive(Debug, Clone)]
pub(crate) struct MetricKeys<'a> {
    ids: Vec<u64>,
    names: Option<Vec<Cow<'a, str>>>,
    /// Index positions sorted by (id, position), built by the first lookup:
    /// a decode of every metric never needs it, and sorting a v1 index is a
    /// quarter of an open. `None` when its allocation was refused: lookups
    /// then scan the ids.
    by_id: OnceLock<Option<Vec<u32>>>,
}

impl<'a> MetricKeys<'a> {
    /// The keys of a blob's metrics: `names`, when present, must hash to `ids`
    /// one for one (`NameHashMismatch` or `CountMismatch` otherwise).
    pub fn new(ids: Vec<u64>, names: Option<Vec<&'a str>>) -> Result<MetricKeys<'a>> {
        if let Some(names) = &names {
            MetricNames::verify(names, &ids)?;
        }
        let names = match names {
            Some(n) => Some(limits::collect(n.into_iter().map(|s| Ok(Cow::Borrowed(s))), ids.len(), "metric names")?),
            None => None,
        };
        Ok(MetricKeys { ids, names, by_id: OnceLock::new() })
    }

    /// The lookup index, built once. Positions fit u32: an index holds at
    /// most u32::MAX entries. Ids in order already (every v2 numeric index)
    /// need no sort. Sized by the blob's index: allocated fallibly.
    fn by_id(&self) -> Option<&[u32]> {
        let ids = &self.ids;
        let build = || -> Result<Vec<u32>> {
            if ids.windows(2).all(|w| w[0] <= w[1]) {
                return limits::collect((0..ids.len() as u32).map(Ok), ids.len(), "metric lookup");
            }
            let order = order::try_stable_order(ids.iter().copied(), ids.len())?;
            limits::collect(order.into_iter().map(|i| Ok(i as u32)), ids.len(), "metric lookup")
        };
        self.by_id.get_or_init(|| build().ok()).as_deref()
    }

    /// Metric ids in index order.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// Metric names in index order, when the blob carries them.
    pub fn names(&self) -> Option<&[Cow<'a, str>]> {
        self.names.as_deref()
    }

    /// The name of the metric at `index`, when the blob carries names.
    pub fn name(&self, index: usize) -> Option<&str> {
        self.names.as_ref()?.get(index).map(|n| n.as_ref())
    }

    /// Index position of the last metric with this id.
    pub fn position(&self, id: u64) -> Option<usize> {
        let Some(by_id) = self.by_id() else {
            return self.ids.iter().rposition(|&x| x == id);
        };
        let end = by_id.partition_point(|&i| self.ids[i as usize] <= id);
        let last = *by_id.get(end.checked_sub(1)?)? as usize;
        (self.ids[last] == id).then_some(last)
    }

    /// Index position of the last metric with this name: by the names when
    /// the blob carries them, else by the name's hash.
    pub fn position_by_name(&self, name: &str) -> Option<usize> {
        let id = metric_id(name);
        let Some(names) = &self.names else {
            return self.position(id);
        };
        // Every name hashes to its metric's id (checked in `new`): only the
        // metrics with this id can have this name.
        let Some(by_id) = self.by_id() else {
            return (0..self.ids.len()).rev().find(|&i| self.ids[i] == id && names[i] == name);
        };
        let start = by_id.partition_point(|&i| self.ids[i as usize] < id);
        let end = by_id.partition_point(|&i| self.ids[i as usize] <= id);
        by_id[start..end].iter().rev().map(|&i| i as usize).find(|&i| names[i] == name)
    }

    /// The keys with no borrow left.
    pub fn into_owned(self) -> MetricKeys<'static> {
        MetricKeys {
            ids: self.ids,
            names: self.names.map(|n| n.into_iter().map(|s| Cow::Owned(s.into_owned())).collect()),
            by_id: self.by_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn lookups_find_the_last_of_repeated_keys() {
        let (a, b) = (metric_id("a"), metric_id("b"));
        for ids in [vec![b, a, b, a], vec![a, a, b, b]] {
            // With the lookup index, and by the scan a refused allocation falls back to.
            for indexed in [true, false] {
                let keys = MetricKeys::new(ids.clone(), None).unwrap();
                if !indexed {
                    keys.by_id.set(None).unwrap();
                }
                let last = |id| ids.iter().rposition(|&x| x == id);
                assert_eq!(keys.position(a), last(a));
                assert_eq!(keys.position(b), last(b));
                assert_eq!(keys.position_by_name("a"), last(a));
                assert_eq!(keys.position(7), None);
                assert_eq!(keys.position_by_name("c"), None);
            }
        }
        for indexed in [true, false] {
            let names = vec!["b", "a", "b", "a"];
            let keys = MetricKeys::new(names.iter().map(|n| metric_id(n)).collect(), Some(names)).unwrap();
            if !indexed {
                keys.by_id.set(None).unwrap();
            }
            assert_eq!(keys.position_by_name("a"), Some(3));
            assert_eq!(keys.position_by_name("b"), Some(2));
            assert_eq!(keys.position(a), Some(3));
            assert_eq!(keys.position_by_name("c"), None);
            assert_eq!(keys.name(1), Some("a"));
        }
        assert!(MetricKeys::new(vec![], None).unwrap().position(0).is_none());
    }

    #[test]
    fn names_must_hash_to_the_ids() {
        let err = MetricKeys::new(vec![metric_id("a"), 5], Some(vec!["a", "b"])).unwrap_err();
        assert!(matches!(err, Error::NameHashMismatch { index: 1, .. }), "{err}");
        assert!(matches!(MetricKeys::new(vec![metric_id("a")], Some(vec![])), Err(Error::CountMismatch { .. })));
    }
}
