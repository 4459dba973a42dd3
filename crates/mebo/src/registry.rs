//! The metrics an encoder has been given: one registry behind both the
//! numeric and the text encoder, so both refuse the same calls with the same
//! errors.
//!
//! A blob holds metrics started either all by name (the id is the name's
//! xxHash64) or all by id; the first `start_metric_*` call decides. The rules:
//!
//! | call | refused with |
//! |---|---|
//! | starting a metric while one is open | `EncoderState` |
//! | starting by name in a blob by id, or by id in a blob by name | `EncoderState` |
//! | a point count of 0, or over the kind's most per metric | `LimitExceeded` (`points per metric`) |
//! | a metric past the most per blob: [`MAX_METRICS`] by id, [`MAX_NAMES`] by name (the names payload counts them in a u16) | `LimitExceeded` (`metric count`) |
//! | an empty name, or id 0 | `EncoderState` |
//! | a name over [`MAX_NAME_LEN`] bytes (it could not be written in the names payload) | `LimitExceeded` (`metric name length`) |
//! | a name or an id already in the blob | `DuplicateMetric` |
//! | adding a point with no metric open | `EncoderState` |
//! | adding points as slices of different lengths | `CountMismatch` |
//! | adding more points than the metric was started with | `LimitExceeded` (`points added`) |
//! | ending a metric with fewer points than it was started with | `CountMismatch` |
//! | finishing with a metric open, or with no metric | `EncoderState` |
//!
//! Every refused call leaves the encoder as it was: a refused `end_metric`
//! leaves the metric open, to be completed or dropped with `cancel_metric`
//! (which, dropping the only metric, also frees the choice of name or id).
//!
//! Two different names with one hash are not an error: both are kept, the
//! registry records the collision, and the blob carries the names so readers
//! can tell the metrics apart. Lookups in a blob with repeated ids or names
//! find the last such metric (see `crate::lookup`).

use std::collections::HashSet;

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::hash::metric_id;
use crate::section::metric_names::MetricNames;
pub use crate::section::metric_names::{MAX_NAMES, MAX_NAME_LEN};

/// Most metrics one blob can hold, as the reference (by name one fewer: the
/// names payload counts them in a u16).
pub const MAX_METRICS: usize = 65_536;

/// How the blob's metrics are identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Undecided,
    ByName,
    ById,
}

/// The metric being written.
#[derive(Debug)]
pub(crate) struct OpenMetric {
    pub id: u64,
    /// The point count it was started with.
    pub declared: usize,
    /// Points added so far.
    pub added: usize,
    name: Option<String>,
}

/// The ended metrics and the open one, with the rules above.
#[derive(Debug)]
pub(crate) struct MetricRegistry {
    max_points: usize,
    mode: Mode,
    /// Ids of the ended metrics, in the order they ended.
    ids: Vec<u64>,
    /// Names of the ended metrics, in the order they ended (name mode).
    names: Vec<String>,
    used_ids: HashSet<u64>,
    used_names: HashSet<String>,
    collision: bool,
    open: Option<OpenMetric>,
    /// The name hash; tests swap it to make collisions.
    pub(crate) hash: fn(&str) -> u64,
}

impl MetricRegistry {
    /// A registry whose metrics hold at most `max_points` points each.
    pub fn new(max_points: usize) -> MetricRegistry {
        MetricRegistry {
            max_points,
            mode: Mode::Undecided,
            ids: Vec::new(),
            names: Vec::new(),
            used_ids: HashSet::new(),
            used_names: HashSet::new(),
            collision: false,
            open: None,
            hash: metric_id,
        }
    }

    /// Start a metric by name; returns its id.
    pub fn start_name(&mut self, name: &str, points: usize) -> Result<u64> {
        self.check_start(Mode::ByName, points)?;
        if name.is_empty() {
            return Err(Error::EncoderState { detail: "a metric name cannot be empty".into() });
        }
        if name.len() > MAX_NAME_LEN {
            return Err(Error::LimitExceeded { what: "metric name length", value: name.len() as u64, limit: MAX_NAME_LEN as u64 });
        }
        let id = (self.hash)(name);
        if self.used_names.contains(name) {
            return Err(Error::DuplicateMetric { id });
        }
        self.mode = Mode::ByName;
        self.open = Some(OpenMetric { id, declared: points, added: 0, name: Some(name.to_string()) });
        Ok(id)
    }

    /// Start a metric by id.
    pub fn start_id(&mut self, id: u64, points: usize) -> Result<()> {
        self.check_start(Mode::ById, points)?;
        if id == 0 {
            return Err(Error::EncoderState { detail: "metric id 0 is reserved".into() });
        }
        if self.used_ids.contains(&id) {
            return Err(Error::DuplicateMetric { id });
        }
        self.mode = Mode::ById;
        self.open = Some(OpenMetric { id, declared: points, added: 0, name: None });
        Ok(())
    }

    fn check_start(&self, mode: Mode, points: usize) -> Result<()> {
        if let Some(open) = &self.open {
            return Err(Error::EncoderState { detail: format!("metric {:016x} is still open", open.id) });
        }
        if self.mode != Mode::Undecided && self.mode != mode {
            return Err(Error::EncoderState { detail: "metrics started by name and by id cannot mix in one blob".into() });
        }
        if points == 0 || points > self.max_points {
            return Err(Error::LimitExceeded { what: "points per metric", value: points as u64, limit: self.max_points as u64 });
        }
        let limit = if mode == Mode::ByName { MAX_NAMES } else { MAX_METRICS };
        if self.ids.len() >= limit {
            return Err(Error::LimitExceeded { what: "metric count", value: self.ids.len() as u64 + 1, limit: limit as u64 });
        }
        Ok(())
    }

    /// The open metric, when `points` more points fit it.
    pub fn room_for(&self, points: usize) -> Result<&OpenMetric> {
        let open = self.open.as_ref().ok_or_else(|| Error::EncoderState { detail: "no metric is open".into() })?;
        let total = open.added.saturating_add(points);
        if total > open.declared {
            return Err(Error::LimitExceeded { what: "points added", value: total as u64, limit: open.declared as u64 });
        }
        Ok(open)
    }

    /// [`room_for`](Self::room_for) `timestamps` points given as parallel
    /// slices: `values` and, when given, `tags` must be as long (`CountMismatch`).
    pub fn room_for_slices(&self, timestamps: usize, values: usize, tags: Option<usize>) -> Result<&OpenMetric> {
        if values != timestamps {
            return Err(Error::CountMismatch { what: "values for the timestamps", expected: timestamps, actual: values });
        }
        if let Some(tags) = tags.filter(|&tags| tags != timestamps) {
            return Err(Error::CountMismatch { what: "tags for the timestamps", expected: timestamps, actual: tags });
        }
        self.room_for(timestamps)
    }

    /// Count `points` added to the open metric (after [`room_for`](Self::room_for)).
    pub fn add(&mut self, points: usize) {
        if let Some(open) = &mut self.open {
            open.added += points;
        }
    }

    /// The open metric, when it holds the points it was started with.
    pub fn check_end(&self) -> Result<&OpenMetric> {
        let open = self.open.as_ref().ok_or_else(|| Error::EncoderState { detail: "no metric is open".into() })?;
        if open.added != open.declared {
            return Err(Error::CountMismatch { what: "points in the metric", expected: open.declared, actual: open.added });
        }
        Ok(open)
    }

    /// End the open metric (after [`check_end`](Self::check_end) and the
    /// encoder's own checks passed); returns it.
    pub fn end(&mut self) -> Option<OpenMetric> {
        let open = self.open.take()?;
        // By name, a known id is another name with the same hash.
        self.collision |= !self.used_ids.insert(open.id);
        self.ids.push(open.id);
        if let Some(name) = &open.name {
            self.used_names.insert(name.clone());
            self.names.push(name.clone());
        }
        Some(open)
    }

    /// Drop the open metric, if any; returns it.
    pub fn cancel(&mut self) -> Option<OpenMetric> {
        let open = self.open.take()?;
        if self.ids.is_empty() {
            self.mode = Mode::Undecided;
        }
        Some(open)
    }

    /// Refuse to finish a blob with a metric open or none ended.
    pub fn check_finish(&self) -> Result<()> {
        if let Some(open) = &self.open {
            return Err(Error::EncoderState { detail: format!("metric {:016x} was not ended", open.id) });
        }
        if self.ids.is_empty() {
            return Err(Error::EncoderState { detail: "no metric was added".into() });
        }
        Ok(())
    }

    /// Ended metrics.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the metrics were started by name.
    pub fn by_name(&self) -> bool {
        self.mode == Mode::ByName
    }

    /// True once two different names with one hash were ended.
    pub fn has_collision(&self) -> bool {
        self.collision
    }

    /// Append the metric-names payload: the names of the ended metrics at
    /// `positions` (in the order they ended), in that order.
    pub fn write_names(&self, positions: impl IntoIterator<Item = usize>, order: ByteOrder, out: &mut Vec<u8>) -> Result<()> {
        let names: Vec<&str> = positions.into_iter().filter_map(|i| self.names.get(i).map(String::as_str)).collect();
        MetricNames::encode(&names, order, out)
    }
}

/// Each rule of the registry, through both encoders.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
    use crate::text::{TextBlob, TextEncoder, TextEncoderOptions};
    use crate::{Compression, Layout};

    /// Ids and point counts of the metrics of a blob, in index order.
    type Written = (Vec<u64>, Vec<usize>);
    /// Reads a blob one of the encoders wrote.
    type Reader = dyn Fn(&[u8]) -> Result<Written>;

    /// What a rule needs of an encoder, numeric or text.
    trait Encoder {
        fn start_name(&mut self, name: &str, points: usize) -> Result<()>;
        fn start_id(&mut self, id: u64, points: usize) -> Result<()>;
        /// Add `n` points one at a time (`bulk` false) or as one slice.
        fn add(&mut self, n: usize, bulk: bool) -> Result<()>;
        /// Add slices of these lengths.
        fn add_slices(&mut self, timestamps: usize, values: usize, tags: Option<usize>) -> Result<()>;
        fn end(&mut self) -> Result<()>;
        fn cancel(&mut self);
        fn finish(&self) -> Result<Vec<u8>>;
        fn count(&self) -> usize;
        fn collision(&self) -> bool;
        fn max_points(&self) -> usize;
        fn registry(&mut self) -> &mut MetricRegistry;
        /// What a blob this encoder wrote holds.
        fn read(blob: &[u8]) -> Result<Written>
        where
            Self: Sized;
    }

    /// The two encoders have the same methods (values aside), so one body
    /// serves both; `$value` is the value every point gets.
    macro_rules! encoder_for {
        ($encoder:ident, $blob:ident, $value:expr) => {
            impl Encoder for $encoder {
                fn start_name(&mut self, name: &str, points: usize) -> Result<()> {
                    self.start_metric_name(name, points)
                }
                fn start_id(&mut self, id: u64, points: usize) -> Result<()> {
                    self.start_metric_id(id, points)
                }
                fn add(&mut self, n: usize, bulk: bool) -> Result<()> {
                    if bulk {
                        let ts: Vec<i64> = (0..n as i64).collect();
                        return self.add_points(&ts, &vec![$value; n], None::<&[&str]>);
                    }
                    (0..n).try_for_each(|i| self.add_point(i as i64, $value, None))
                }
                fn add_slices(&mut self, timestamps: usize, values: usize, tags: Option<usize>) -> Result<()> {
                    let tags = tags.map(|n| vec![""; n]);
                    self.add_points(&vec![0; timestamps], &vec![$value; values], tags.as_deref())
                }
                fn end(&mut self) -> Result<()> {
                    self.end_metric()
                }
                fn cancel(&mut self) {
                    self.cancel_metric()
                }
                fn finish(&self) -> Result<Vec<u8>> {
                    $encoder::finish(self)
                }
                fn count(&self) -> usize {
                    self.metric_count()
                }
                fn collision(&self) -> bool {
                    self.has_collision()
                }
                fn max_points(&self) -> usize {
                    self.options().max_points_per_metric()
                }
                fn registry(&mut self) -> &mut MetricRegistry {
                    &mut self.registry
                }
                fn read(blob: &[u8]) -> Result<Written> {
                    let b = $blob::open(blob)?;
                    Ok((b.metric_ids().to_vec(), b.metrics().map(|m| m.len()).collect()))
                }
            }
        };
    }
    encoder_for!(NumericEncoder, NumericBlob, 1.5);
    encoder_for!(TextEncoder, TextBlob, "v");

    /// Run a rule on a fresh numeric encoder (v2, so a metric may be tiny and
    /// large alike) and a fresh text encoder.
    fn both(rule: fn(&mut dyn Encoder, &Reader)) {
        let mut numeric = NumericEncoder::new(0, NumericEncoderOptions { layout: Layout::V2, ..Default::default() });
        rule(&mut numeric, &<NumericEncoder as Encoder>::read);
        // No codec: the rules hold in every feature set.
        let mut text = TextEncoder::new(0, TextEncoderOptions { data_compression: Compression::None, ..Default::default() }).unwrap();
        rule(&mut text, &<TextEncoder as Encoder>::read);
    }

    fn metric(e: &mut dyn Encoder, name: &str, n: usize) {
        e.start_name(name, n).unwrap();
        e.add(n, false).unwrap();
        e.end().unwrap();
    }

    #[test]
    fn names_and_ids_do_not_mix() {
        both(|e, _| {
            metric(e, "a", 1);
            assert!(matches!(e.start_id(7, 1), Err(Error::EncoderState { .. })));
        });
        both(|e, _| {
            e.start_id(7, 1).unwrap();
            e.add(1, false).unwrap();
            e.end().unwrap();
            assert!(matches!(e.start_name("a", 1), Err(Error::EncoderState { .. })));
        });
        // Cancelling the only metric frees the choice again.
        both(|e, read| {
            e.start_name("a", 1).unwrap();
            e.cancel();
            e.start_id(7, 1).unwrap();
            e.add(1, true).unwrap();
            e.end().unwrap();
            assert_eq!(read(&e.finish().unwrap()).unwrap().0, [7]);
        });
    }

    #[test]
    fn one_metric_is_open_at_a_time() {
        both(|e, _| {
            e.start_name("a", 2).unwrap();
            assert!(matches!(e.start_name("b", 1), Err(Error::EncoderState { .. })));
            assert!(matches!(e.start_id(9, 1), Err(Error::EncoderState { .. })));
            assert!(matches!(e.finish(), Err(Error::EncoderState { .. })));
        });
    }

    #[test]
    fn point_counts_are_from_one_to_the_kinds_most() {
        both(|e, _| {
            let max = e.max_points();
            for bad in [0, max + 1] {
                let err = e.start_name("a", bad).unwrap_err();
                assert!(matches!(err, Error::LimitExceeded { what: "points per metric", .. }), "{bad}: {err}");
                assert!(matches!(e.start_id(3, bad), Err(Error::LimitExceeded { what: "points per metric", .. })));
            }
            e.start_name("a", max).unwrap();
        });
    }

    #[test]
    fn points_past_the_declared_count_are_refused_and_not_written() {
        both(|e, read| {
            e.start_name("a", 2).unwrap();
            e.add(1, false).unwrap();
            let err = e.add(2, true).unwrap_err();
            assert!(matches!(err, Error::LimitExceeded { what: "points added", value: 3, limit: 2 }), "{err}");
            e.add(1, true).unwrap();
            for bulk in [false, true] {
                let err = e.add(1, bulk).unwrap_err();
                assert!(matches!(err, Error::LimitExceeded { what: "points added", value: 3, limit: 2 }), "{err}");
            }
            e.end().unwrap();
            assert_eq!(read(&e.finish().unwrap()).unwrap().1, [2]);
        });
        both(|e, _| {
            for bulk in [false, true] {
                assert!(matches!(e.add(1, bulk), Err(Error::EncoderState { .. })));
            }
        });
    }

    #[test]
    fn slices_of_different_lengths_are_refused() {
        both(|e, read| {
            // Checked before whether a metric is open.
            assert!(matches!(e.add_slices(2, 1, None), Err(Error::CountMismatch { what: "values for the timestamps", .. })));
            e.start_name("a", 2).unwrap();
            assert!(matches!(e.add_slices(2, 3, None), Err(Error::CountMismatch { expected: 2, actual: 3, .. })));
            assert!(matches!(e.add_slices(2, 2, Some(1)), Err(Error::CountMismatch { what: "tags for the timestamps", .. })));
            e.add_slices(2, 2, Some(2)).unwrap();
            e.end().unwrap();
            assert_eq!(read(&e.finish().unwrap()).unwrap().1, [2]);
        });
    }

    #[test]
    fn a_refused_end_leaves_the_metric_open() {
        both(|e, read| {
            assert!(matches!(e.end(), Err(Error::EncoderState { .. })));
            e.start_name("a", 3).unwrap();
            e.add(1, false).unwrap();
            assert!(matches!(e.end(), Err(Error::CountMismatch { expected: 3, actual: 1, .. })));
            assert_eq!(e.count(), 0);
            assert!(matches!(e.start_name("b", 1), Err(Error::EncoderState { .. })));
            // The points added so far are kept: add the missing ones and end.
            e.add(2, true).unwrap();
            e.end().unwrap();
            assert_eq!(read(&e.finish().unwrap()).unwrap().1, [3]);
        });
    }

    #[test]
    fn cancel_drops_the_open_metric_and_its_points() {
        both(|e, read| {
            e.cancel(); // nothing open: nothing happens
            metric(e, "a", 2);
            e.start_name("b", 3).unwrap();
            e.add(2, false).unwrap();
            assert!(e.end().is_err());
            e.cancel();
            assert_eq!(e.count(), 1);
            metric(e, "b", 1);
            let (ids, counts) = read(&e.finish().unwrap()).unwrap();
            // Numeric v2 orders metrics by id, text as they ended.
            let mut got: Vec<(u64, usize)> = ids.into_iter().zip(counts).collect();
            got.sort_unstable();
            let mut want = vec![(metric_id("a"), 2), (metric_id("b"), 1)];
            want.sort_unstable();
            assert_eq!(got, want);
        });
    }

    #[test]
    fn empty_names_and_id_zero_are_refused() {
        both(|e, _| assert!(matches!(e.start_name("", 1), Err(Error::EncoderState { .. }))));
        both(|e, _| assert!(matches!(e.start_id(0, 1), Err(Error::EncoderState { .. }))));
    }

    #[test]
    fn names_must_fit_the_names_payload() {
        both(|e, read| {
            let long = "n".repeat(MAX_NAME_LEN + 1);
            assert!(matches!(e.start_name(&long, 1), Err(Error::LimitExceeded { what: "metric name length", .. })));
            metric(e, &long[1..], 1);
            let (ids, _) = read(&e.finish().unwrap()).unwrap();
            assert_eq!(ids, [metric_id(&long[1..])]);
        });
    }

    #[test]
    fn repeated_names_and_ids_are_duplicates() {
        both(|e, _| {
            metric(e, "a", 1);
            assert!(matches!(e.start_name("a", 1), Err(Error::DuplicateMetric { id }) if id == metric_id("a")));
            metric(e, "b", 1);
        });
        both(|e, _| {
            e.start_id(5, 1).unwrap();
            e.add(1, false).unwrap();
            e.end().unwrap();
            assert!(matches!(e.start_id(5, 1), Err(Error::DuplicateMetric { id: 5 })));
        });
        // A started but cancelled name is not in the blob.
        both(|e, _| {
            e.start_name("a", 1).unwrap();
            e.cancel();
            metric(e, "a", 1);
        });
    }

    #[test]
    fn colliding_names_are_kept_and_a_repeat_of_either_is_a_duplicate() {
        both(|e, _| {
            // Every name hashes alike here: real xxHash64 collisions are too rare to find.
            e.registry().hash = |_| 0x1234;
            metric(e, "first", 1);
            assert!(!e.collision());
            metric(e, "second", 1);
            assert!(e.collision());
            for name in ["first", "second"] {
                assert!(matches!(e.start_name(name, 1), Err(Error::DuplicateMetric { id: 0x1234 })));
            }
            assert_eq!(e.count(), 2);
            // Written with the names (they do not hash to the test id, so the blob itself is not opened).
            let blob = e.finish().unwrap();
            assert_eq!(blob[0] & 0x4, 0x4);
        });
    }

    /// The names payload of a text blob keeps colliding names apart, in the
    /// order they were added.
    #[test]
    fn colliding_names_are_kept_apart_by_the_names_payload() {
        let mut e =
            TextEncoder::new(0, TextEncoderOptions { data_compression: Compression::None, ..TextEncoderOptions::default() }).unwrap();
        // Every name hashes alike here: real xxHash64 collisions are too rare to find.
        e.registry.hash = |_| 0x1234;
        for (name, v) in [("first", "1"), ("second", "2")] {
            e.start_metric_name(name, 1).unwrap();
            e.add_point(3, v, None).unwrap();
            e.end_metric().unwrap();
        }
        assert!(e.has_collision());
        assert!(matches!(e.start_metric_name("first", 1), Err(Error::DuplicateMetric { .. })));
        let blob = e.finish().unwrap();
        // The names do not hash to the test ids, so check the layout by hand.
        assert_eq!(blob[0] & 0x4, 0x4);
        let (names, _) =
            crate::section::metric_names::MetricNames::decode(&blob[crate::section::flags::HEADER_SIZE..], crate::ByteOrder::Little)
                .unwrap();
        assert_eq!(names, ["first", "second"]);
        assert!(matches!(TextBlob::open(&blob), Err(Error::NameHashMismatch { .. })));
    }

    #[test]
    fn finishing_needs_a_metric_and_none_open() {
        both(|e, _| {
            assert!(matches!(e.finish(), Err(Error::EncoderState { .. })));
            metric(e, "a", 1);
            e.start_name("b", 1).unwrap();
            assert!(matches!(e.finish(), Err(Error::EncoderState { .. })));
            e.cancel();
            assert!(e.finish().is_ok());
        });
    }

    #[test]
    fn metric_counts_stop_at_the_most_a_blob_holds() {
        both(|e, read| {
            for i in 0..MAX_NAMES {
                e.start_name(&i.to_string(), 1).unwrap();
                e.add(1, false).unwrap();
                e.end().unwrap();
            }
            let err = e.start_name("one more", 1).unwrap_err();
            assert!(matches!(err, Error::LimitExceeded { what: "metric count", value: 65_536, limit: 65_535 }), "{err}");
            assert_eq!(read(&e.finish().unwrap()).unwrap().0.len(), MAX_NAMES);
        });
        both(|e, read| {
            for id in 1..=MAX_METRICS as u64 {
                e.start_id(id, 1).unwrap();
                e.add(1, false).unwrap();
                e.end().unwrap();
            }
            let err = e.start_id(70_000, 1).unwrap_err();
            assert!(matches!(err, Error::LimitExceeded { what: "metric count", value: 65_537, limit: 65_536 }), "{err}");
            assert_eq!(read(&e.finish().unwrap()).unwrap().0.len(), MAX_METRICS);
        });
    }
}
