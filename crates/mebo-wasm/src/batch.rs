//! Every metric of a one-call encode (`encodeNumeric`, `encodeText`) in one
//! crossing (one a million points or so, which bounds the staged columns):
//! the SDK lays the metrics out back to back (their shapes, keys,
//! timestamps, values and tags each in one array, one joined string, or
//! coded strings: see `joined.rs`), and the handle's `addMetrics` walks them
//! through the core encoder's usual calls. One call instead of three per
//! metric, each with its own argument conversions, is what a many-metric
//! encode spent most of its crossing on.
//!
//! The numeric columns do not cross as arguments: JavaScript copies each
//! metric's straight into room the handle stages in wasm memory
//! ([`room`]). Gathered into one typed array first, then copied again by the
//! glue, they cost the bench input's raw encode 40% more at the median than
//! the per-metric calls (a second 800 KB copy, into fresh JavaScript memory).

use std::borrow::Cow;

use js_sys::Reflect;
use mebo::Error;
use wasm_bindgen::JsValue;

use crate::js::{self, JsResult};

/// `u32`s a metric takes in the shapes array: flags, timestamp count, value count, tag count.
const SHAPE_LEN: usize = 4;
/// Flag: the metric is started by its name (else by its id).
const BY_NAME: u32 = 1;
/// A tag count meaning the metric gave no tags (its points are added without).
const NO_TAGS: u32 = u32::MAX;

/// How a metric is started.
pub enum Key<'a> {
    Name(&'a str),
    Id(u64),
}

/// What `addMetrics` does with each metric: the core encoder's calls.
pub trait MetricSink<V> {
    fn start(&mut self, key: Key<'_>, points: usize) -> mebo::Result<()>;
    fn add_points(&mut self, timestamps: &[i64], values: &[V], tags: Option<&[Cow<'_, str>]>) -> mebo::Result<()>;
    fn end(&mut self) -> mebo::Result<()>;
    fn cancel(&mut self);
}

/// The metrics laid out back to back, as the SDK sends them.
pub struct Batch<'a, V> {
    /// [`SHAPE_LEN`] `u32`s a metric.
    pub shapes: &'a [u32],
    /// A name a metric (the empty string for one started by id).
    pub names: &'a [Cow<'a, str>],
    /// An id a metric (ignored for one started by name).
    pub ids: &'a [u64],
    pub timestamps: &'a [i64],
    pub values: &'a [V],
    /// Every metric's tags that gave tags, back to back.
    pub tags: Option<&'a [Cow<'a, str>]>,
}

impl<V> Batch<'_, V> {
    /// Each metric through `sink`: started with its timestamp count, its
    /// points added, ended. The metrics before a refused one stay added; the
    /// refused one is cancelled, and its error carries its index as `metric`
    /// (the SDK names the metric in the message). A layout that does not add
    /// up (counts past the arrays, arrays longer than the counts) is refused
    /// before any metric is added: ENCODER_STATE.
    pub fn add_to<S: MetricSink<V>>(&self, sink: &mut S) -> JsResult<()> {
        self.walk(sink).map_err(|(err, metric)| match metric {
            Some(i) => error_at(err, i),
            None => js::error(err),
        })
    }

    /// [`add_to`](Self::add_to) before the error crosses: the refused metric's index, if one was refused.
    fn walk<S: MetricSink<V>>(&self, sink: &mut S) -> Result<(), (Error, Option<usize>)> {
        self.check_layout().map_err(|err| (err, None))?;
        let no_tags: &[Cow<'_, str>] = &[];
        let (mut ts_at, mut vs_at, mut tags_at) = (0usize, 0usize, 0usize);
        for (i, shape) in self.shapes.chunks_exact(SHAPE_LEN).enumerate() {
            let (ts_len, vs_len) = (shape[1] as usize, shape[2] as usize);
            let timestamps = &self.timestamps[ts_at..ts_at + ts_len];
            let values = &self.values[vs_at..vs_at + vs_len];
            let tags = (shape[3] != NO_TAGS).then(|| {
                let all = self.tags.unwrap_or(no_tags);
                &all[tags_at..tags_at + shape[3] as usize]
            });
            let key = if shape[0] & BY_NAME != 0 { Key::Name(&self.names[i]) } else { Key::Id(self.ids[i]) };
            let added = sink
                .start(key, ts_len)
                .and_then(|()| sink.add_points(timestamps, values, tags).and_then(|()| sink.end()).inspect_err(|_| sink.cancel()));
            added.map_err(|err| (err, Some(i)))?;
            ts_at += ts_len;
            vs_at += vs_len;
            tags_at += tags.map_or(0, <[_]>::len);
        }
        Ok(())
    }

    /// The arrays hold exactly what the shapes count (so the walk's slices are in bounds).
    fn check_layout(&self) -> mebo::Result<()> {
        let bad = |detail: String| Err(Error::EncoderState { detail: format!("addMetrics: {detail}") });
        if !self.shapes.len().is_multiple_of(SHAPE_LEN) {
            return bad(format!("{} shape entries, not {SHAPE_LEN} a metric", self.shapes.len()));
        }
        let metrics = self.shapes.len() / SHAPE_LEN;
        if self.names.len() != metrics || self.ids.len() != metrics {
            return bad(format!("{} names and {} ids for {metrics} metrics", self.names.len(), self.ids.len()));
        }
        // u64 sums: a u32 count a metric cannot overflow them.
        let sum = |field: usize| {
            self.shapes.chunks_exact(SHAPE_LEN).map(|s| s[field]).filter(|&n| n != NO_TAGS || field != 3).map(u64::from).sum::<u64>()
        };
        let tags = self.tags.map_or(0, <[_]>::len);
        for (what, counted, given) in
            [("timestamps", sum(1), self.timestamps.len()), ("values", sum(2), self.values.len()), ("tags", sum(3), tags)]
        {
            if counted != given as u64 {
                return bad(format!("the shapes count {counted} {what}, {given} given"));
            }
        }
        Ok(())
    }
}

/// Room for `len` items that JavaScript writes through the module's memory
/// before `addMetrics` reads them; zeroed (what JavaScript leaves unwritten
/// reads as zero). Past the memory budget: OUT_OF_MEMORY.
pub fn room<T: Copy + Default>(len: usize, what: &'static str) -> mebo::Result<Vec<T>> {
    let mut room = Vec::new();
    let refused = || Error::OutOfMemory { what, bytes: len.saturating_mul(std::mem::size_of::<T>()) };
    room.try_reserve_exact(len).map_err(|_| refused())?;
    room.resize(len, T::default());
    Ok(room)
}

/// A core error as [`js::error`] builds it, carrying the index of the metric it refused as `metric`.
fn error_at(err: Error, metric: usize) -> JsValue {
    let js = js::error(err);
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&js, &"metric".into(), &(metric as f64).into());
    js
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the calls, refusing the metric named "bad" at its points.
    #[derive(Default)]
    struct Calls(Vec<String>);

    impl MetricSink<f64> for Calls {
        fn start(&mut self, key: Key<'_>, points: usize) -> mebo::Result<()> {
            self.0.push(match key {
                Key::Name(n) => format!("start {n} {points}"),
                Key::Id(id) => format!("start #{id} {points}"),
            });
            Ok(())
        }
        fn add_points(&mut self, timestamps: &[i64], values: &[f64], tags: Option<&[Cow<'_, str>]>) -> mebo::Result<()> {
            if self.0.last().is_some_and(|c| c.starts_with("start bad")) {
                return Err(Error::CountMismatch { what: "values for the timestamps", expected: 1, actual: 2 });
            }
            self.0.push(format!("add {timestamps:?} {values:?} {:?}", tags.map(|t| t.iter().map(|s| s.to_string()).collect::<Vec<_>>())));
            Ok(())
        }
        fn end(&mut self) -> mebo::Result<()> {
            self.0.push("end".into());
            Ok(())
        }
        fn cancel(&mut self) {
            self.0.push("cancel".into());
        }
    }

    fn cows(of: &[&'static str]) -> Vec<Cow<'static, str>> {
        of.iter().map(|&s| Cow::Borrowed(s)).collect()
    }

    #[test]
    fn walks_each_metric_with_its_slices() {
        let names = cows(&["a", "", "c"]);
        let tags = cows(&["x", "y", "z"]);
        let batch = Batch {
            shapes: &[1, 2, 2, 2, 0, 0, 0, NO_TAGS, 1, 1, 1, 1],
            names: &names,
            ids: &[0, 7, 0],
            timestamps: &[1, 2, 3],
            values: &[1.5, 2.5, 3.5],
            tags: Some(&tags),
        };
        let mut calls = Calls::default();
        assert!(batch.walk(&mut calls).is_ok());
        assert_eq!(
            calls.0,
            [
                r#"start a 2"#,
                r#"add [1, 2] [1.5, 2.5] Some(["x", "y"])"#,
                "end",
                "start #7 0",
                "add [] [] None",
                "end",
                "start c 1",
                r#"add [3] [3.5] Some(["z"])"#,
                "end",
            ]
        );
    }

    #[test]
    fn room_is_zeroed_and_refused_past_what_can_be_held() {
        assert_eq!(room::<i64>(5, "timestamps").unwrap(), [0; 5]);
        let err = room::<f64>(usize::MAX / 4, "values").unwrap_err();
        assert_eq!(err.code(), "OUT_OF_MEMORY");
        assert!(room::<f64>(0, "values").unwrap().is_empty());
    }

    #[test]
    fn checks_the_layout_before_any_metric() {
        let names = cows(&["a", "b"]);
        let refused = |shapes: &[u32], ids: &[u64], timestamps: &[i64], values: &[f64]| {
            let batch = Batch { shapes, names: &names, ids, timestamps, values, tags: None };
            let err = batch.check_layout().unwrap_err();
            assert_eq!(err.code(), "ENCODER_STATE");
            err.to_string()
        };
        let two = [1, 1, 1, NO_TAGS, 1, 1, 1, NO_TAGS];
        assert!(refused(&two[..7], &[0, 0], &[1, 2], &[1.0, 2.0]).contains("not 4 a metric"));
        assert!(refused(&two, &[0], &[1, 2], &[1.0, 2.0]).contains("1 ids for 2 metrics"));
        assert!(refused(&two, &[0, 0], &[1], &[1.0, 2.0]).contains("count 2 timestamps, 1 given"));
        assert!(refused(&two, &[0, 0], &[1, 2], &[1.0, 2.0, 3.0]).contains("count 2 values, 3 given"));
        assert!(refused(&[1, 1, 1, 1, 1, 1, 1, NO_TAGS], &[0, 0], &[1, 2], &[1.0, 2.0]).contains("count 1 tags, 0 given"));
        assert!(refused(&[1, u32::MAX, 1, NO_TAGS, 1, u32::MAX, 1, NO_TAGS], &[0, 0], &[1, 2], &[1.0, 2.0]).contains("timestamps"));
    }

    #[test]
    fn a_refused_metric_is_cancelled_and_the_walk_stops() {
        let names = cows(&["a", "bad", "c"]);
        let batch = Batch {
            shapes: &[1, 1, 1, NO_TAGS, 1, 1, 1, NO_TAGS, 1, 1, 1, NO_TAGS],
            names: &names,
            ids: &[0; 3],
            timestamps: &[1, 2, 3],
            values: &[1.0, 2.0, 3.0],
            tags: None,
        };
        let mut calls = Calls::default();
        let (err, metric) = batch.walk(&mut calls).unwrap_err();
        assert_eq!((err.code(), metric), ("COUNT_MISMATCH", Some(1)));
        assert_eq!(calls.0[..5], ["start a 1", "add [1] [1.0] None", "end", "start bad 1", "cancel"]);
    }
}
