//! Blob sets: consecutive time windows of the same metrics, read as one series
//! per metric. Blobs are ordered by start time; a metric may be missing from
//! some windows. [`BlobSet`] takes numeric and text blobs together and sorts
//! them by kind, as the reference's `DecodeBlobSet` does.

use crate::error::{Error, Result};
use crate::limits;
use crate::numeric::{NumericBlob, NumericColumns};
use crate::order;
use crate::section::flags::{read_flags, BlobKind};
use crate::text::{TextBlob, TextColumns};

/// A blob as one window of a set: what [`Windows`] asks of a blob of either
/// kind. A window has a start time (sets order their windows by it) and
/// metrics, each with a point count, timestamps, values and, when the blob has
/// tags, tags; a window may lack some of the set's metrics. Metrics are
/// addressed by index position, found once per window with [`position`].
///
/// [`position`]: WindowBlob::position
pub trait WindowBlob {
    /// One point's value as the blob hands it out: `f64`, or `&str` borrowed from the blob.
    type Value<'v>
    where
        Self: 'v;
    /// One point's value as a materialized series keeps it: `f64` or `String`.
    type OwnedValue: Default;

    /// The window's start time.
    fn start_time(&self) -> i64;
    /// Metric ids in index order.
    fn metric_ids(&self) -> &[u64];
    /// Whether the points carry tags.
    fn has_tags(&self) -> bool;
    /// Index position of the metric with this id, `None` when the window lacks it.
    fn position(&self, id: u64) -> Option<usize>;
    /// Point count of the metric at `index`.
    fn point_count_at(&self, index: usize) -> usize;
    /// Timestamp of point `point` of the metric at `index`.
    fn timestamp_at(&self, index: usize, point: usize) -> Result<i64>;
    /// Value of point `point` of the metric at `index`.
    fn value_at(&self, index: usize, point: usize) -> Result<Self::Value<'_>>;
    /// Decode the timestamps of the metric at `index` into `out` (its point count).
    fn timestamps_into(&self, index: usize, out: &mut [i64]) -> Result<()>;
    /// Append the values of the metric at `index` to `out`.
    fn extend_values(&self, index: usize, out: &mut Vec<Self::OwnedValue>) -> Result<()>;
    /// The tags of the metric at `index`, `None` when the blob has none.
    fn tags_at(&self, index: usize) -> Result<Option<Vec<&str>>>;

    /// Point count of a metric, `None` when the window lacks it.
    fn point_count(&self, id: u64) -> Option<usize> {
        self.position(id).map(|index| self.point_count_at(index))
    }

    /// First and last timestamp of a metric with at least one point.
    fn first_last(&self, id: u64) -> Result<Option<(i64, i64)>> {
        match self.position(id) {
            Some(index) if self.point_count_at(index) > 0 => {
                Ok(Some((self.timestamp_at(index, 0)?, self.timestamp_at(index, self.point_count_at(index) - 1)?)))
            }
            _ => Ok(None),
        }
    }
}

impl WindowBlob for NumericBlob<'_> {
    type Value<'v>
        = f64
    where
        Self: 'v;
    type OwnedValue = f64;

    fn start_time(&self) -> i64 {
        NumericBlob::start_time(self)
    }
    fn metric_ids(&self) -> &[u64] {
        NumericBlob::metric_ids(self)
    }
    fn has_tags(&self) -> bool {
        self.options().tags
    }
    fn position(&self, id: u64) -> Option<usize> {
        NumericBlob::position(self, id)
    }
    fn point_count_at(&self, index: usize) -> usize {
        self.metric_at(index).map_or(0, |m| m.len())
    }
    fn timestamp_at(&self, index: usize, point: usize) -> Result<i64> {
        self.metric_at(index)?.timestamp_at(point)
    }
    fn value_at(&self, index: usize, point: usize) -> Result<f64> {
        self.metric_at(index)?.value_at(point)
    }
    fn timestamps_into(&self, index: usize, out: &mut [i64]) -> Result<()> {
        self.metric_at(index)?.timestamps_into(out)
    }
    fn extend_values(&self, index: usize, out: &mut Vec<f64>) -> Result<()> {
        let m = self.metric_at(index)?;
        let start = out.len();
        limits::resize(out, start + m.len(), 0.0, "values")?;
        m.values_into(&mut out[start..])
    }
    fn tags_at(&self, index: usize) -> Result<Option<Vec<&str>>> {
        self.metric_at(index)?.tags()
    }
}

impl WindowBlob for TextBlob<'_> {
    type Value<'v>
        = &'v str
    where
        Self: 'v;
    type OwnedValue = String;

    fn start_time(&self) -> i64 {
        TextBlob::start_time(self)
    }
    fn metric_ids(&self) -> &[u64] {
        TextBlob::metric_ids(self)
    }
    fn has_tags(&self) -> bool {
        self.options().tags
    }
    fn position(&self, id: u64) -> Option<usize> {
        TextBlob::position(self, id)
    }
    fn point_count_at(&self, index: usize) -> usize {
        self.metric_at(index).map_or(0, |m| m.len())
    }
    fn timestamp_at(&self, index: usize, point: usize) -> Result<i64> {
        self.metric_at(index)?.timestamp_at(point)
    }
    fn value_at(&self, index: usize, point: usize) -> Result<&str> {
        self.metric_at(index)?.value_at(point)
    }
    fn timestamps_into(&self, index: usize, out: &mut [i64]) -> Result<()> {
        self.metric_at(index)?.timestamps_into(out)
    }
    fn extend_values(&self, index: usize, out: &mut Vec<String>) -> Result<()> {
        let values = self.metric_at(index)?.values()?;
        limits::reserve(out, values.len(), "values")?;
        out.extend(values.into_iter().map(str::to_string));
        Ok(())
    }
    fn tags_at(&self, index: usize) -> Result<Option<Vec<&str>>> {
        self.metric_at(index)?.tags()
    }
}

/// Blobs of one kind ordered by start time (stable for equal starts).
#[derive(Debug, Clone)]
pub struct Windows<B> {
    blobs: Vec<B>,
}

impl<B: WindowBlob> Windows<B> {
    /// Order `blobs` by start time (stable for equal starts); at least one is needed.
    pub fn new(blobs: Vec<B>) -> Result<Self> {
        if blobs.is_empty() {
            return Err(Error::BlobSet { detail: "a blob set needs at least one blob".into() });
        }
        Ok(Windows { blobs: order::sorted_by_key(blobs, |b| order::signed_key(b.start_time())) })
    }

    /// The blobs, in time order.
    pub fn blobs(&self) -> &[B] {
        &self.blobs
    }

    /// Start times of the first and the last blob.
    pub fn time_range(&self) -> (i64, i64) {
        (self.blobs[0].start_time(), self.blobs[self.blobs.len() - 1].start_time())
    }

    /// Every metric id in the set, ascending.
    pub fn metric_ids(&self) -> Vec<u64> {
        let all: Vec<u64> = self.blobs.iter().flat_map(|b| b.metric_ids().iter().copied()).collect();
        let mut ids: Vec<u64> = order::stable_order(all.iter().copied()).into_iter().map(|i| all[i]).collect();
        ids.dedup();
        ids
    }

    /// Points of a metric over all blobs (0 when absent).
    pub fn metric_len(&self, id: u64) -> usize {
        self.blobs.iter().filter_map(|b| b.point_count(id)).sum()
    }

    /// Last timestamp minus first timestamp of a metric over the set (0 when
    /// absent or not increasing), as the reference computes it.
    pub fn metric_duration(&self, id: u64) -> Result<i64> {
        let mut spans = Vec::new();
        for b in &self.blobs {
            if let Some(span) = b.first_last(id)? {
                spans.push(span);
            }
        }
        Ok(match (spans.first(), spans.last()) {
            // Wrapping, as the reference's int64 subtraction: hostile timestamps
            // (i64::MIN .. i64::MAX) must not overflow.
            (Some(&(start, _)), Some(&(_, end))) if end > start => end.wrapping_sub(start),
            _ => 0,
        })
    }

    /// The blobs holding a metric, in time order, each with the metric's index
    /// position in it and the point of the series where its points start.
    fn holding(&self, id: u64) -> Vec<(&B, usize, usize)> {
        let mut at = 0;
        self.blobs
            .iter()
            .filter_map(|b| {
                let index = b.position(id)?;
                let start = at;
                at += b.point_count_at(index);
                Some((b, index, start))
            })
            .collect()
    }

    /// Where every metric of the set lies: one placement per metric and blob
    /// holding it, grouped by id (ascending), blobs in time order within a
    /// group. One sort of every index entry of the set, so materializing every
    /// metric is linear in the entries (up to the sort), not metrics × blobs.
    fn placements(&self) -> Result<Vec<Placement>> {
        let entries: usize = self.blobs.iter().map(|b| b.metric_ids().len()).sum();
        let mut keys = Vec::new();
        limits::reserve(&mut keys, entries, "blob set index")?;
        let mut owners = Vec::new();
        limits::reserve(&mut owners, entries, "blob set index")?;
        for (blob, b) in self.blobs.iter().enumerate() {
            for (index, &id) in b.metric_ids().iter().enumerate() {
                keys.push(id);
                owners.push((blob, index));
            }
        }
        let mut placements = Vec::new();
        limits::reserve(&mut placements, entries, "blob set index")?;
        // Entries of one blob stay in index order and blobs in time order
        // (the order is stable), so a repeated id of a crafted blob is
        // adjacent to its twin: the last of them is placed, the one the
        // blob's own lookup finds.
        let sorted = order::stable_order(keys.iter().copied());
        for (k, &i) in sorted.iter().enumerate() {
            let (id, (blob, index)) = (keys[i], owners[i]);
            if sorted.get(k + 1).is_some_and(|&next| keys[next] == id && owners[next].0 == blob) {
                continue;
            }
            placements.push(Placement { id, blob, index, points: self.blobs[blob].point_count_at(index) });
        }
        Ok(placements)
    }

    /// The point at `index` of a metric's series over the set.
    pub fn point_at(&self, id: u64, index: usize) -> Result<(i64, B::Value<'_>)> {
        let total = self.metric_len(id);
        let (blob, position, point) = self
            .holding(id)
            .into_iter()
            .find(|&(b, position, start)| index >= start && index - start < b.point_count_at(position))
            .map(|(b, position, start)| (b, position, index - start))
            .ok_or(Error::IndexOutOfRange { index, len: total })?;
        Ok((blob.timestamp_at(position, point)?, blob.value_at(position, point)?))
    }

    /// One metric's series over every blob, concatenated in time order.
    pub fn materialize_metric(&self, id: u64) -> Result<MaterializedMetric<B::OwnedValue>> {
        let holding = self.holding(id);
        let Some(&(last, last_index, last_start)) = holding.last() else {
            return Err(Error::MetricNotFound { key: format!("id {id:016x}") });
        };
        let total = last_start + last.point_count_at(last_index);
        let mut out = MaterializedMetric { id, timestamps: limits::filled(total, 0, "set timestamps")?, values: Vec::new(), tags: None };
        limits::reserve(&mut out.values, total, "set values")?;
        let any_tags = holding.iter().any(|(b, ..)| b.has_tags());
        let mut tags = Vec::new();
        if any_tags {
            limits::reserve(&mut tags, total, "set tags")?;
        }
        for (blob, index, start) in holding {
            let count = blob.point_count_at(index);
            blob.timestamps_into(index, &mut out.timestamps[start..start + count])?;
            blob.extend_values(index, &mut out.values)?;
            if any_tags {
                match blob.tags_at(index)? {
                    Some(t) => tags.extend(t.into_iter().map(str::to_string)),
                    None => tags.resize(tags.len() + count, String::new()),
                }
            }
        }
        out.tags = any_tags.then_some(tags);
        Ok(out)
    }

    /// One metric's points with `from <= t < to` over every blob, in time
    /// order: each blob's timestamps are decoded, its values only when one of
    /// its points is picked.
    pub fn range_metric(&self, id: u64, from: i64, to: i64) -> Result<MaterializedMetric<B::OwnedValue>> {
        let holding = self.holding(id);
        if holding.is_empty() {
            return Err(Error::MetricNotFound { key: format!("id {id:016x}") });
        }
        let any_tags = holding.iter().any(|(b, ..)| b.has_tags());
        let mut out = MaterializedMetric { id, timestamps: Vec::new(), values: Vec::new(), tags: any_tags.then(Vec::new) };
        let (mut timestamps, mut values) = (Vec::new(), Vec::new());
        for (blob, index, _) in holding {
            let count = blob.point_count_at(index);
            limits::resize(&mut timestamps, count, 0, "set timestamps")?;
            blob.timestamps_into(index, &mut timestamps[..count])?;
            let picked = |t: &i64| (from..to).contains(t);
            let n = timestamps[..count].iter().filter(|t| picked(t)).count();
            if n == 0 {
                continue;
            }
            limits::reserve(&mut out.timestamps, n, "set timestamps")?;
            limits::reserve(&mut out.values, n, "set values")?;
            values.clear();
            blob.extend_values(index, &mut values)?;
            let tags = if any_tags { blob.tags_at(index)? } else { None };
            for (i, t) in timestamps[..count].iter().enumerate() {
                if picked(t) {
                    out.timestamps.push(*t);
                    // `extend_values` gave `count` values; each is taken once.
                    out.values.push(values.get_mut(i).map(std::mem::take).unwrap_or_default());
                    if let Some(all) = &mut out.tags {
                        all.push(tags.as_ref().and_then(|t| t.get(i)).map_or_else(String::new, |s| s.to_string()));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// One metric held by one blob of a set: its id, the blob (position in time
/// order), its index position in the blob and its point count.
#[derive(Debug, Clone, Copy)]
struct Placement {
    id: u64,
    blob: usize,
    index: usize,
    points: usize,
}

/// Numeric blobs of consecutive windows.
pub type NumericBlobSet<'a> = Windows<NumericBlob<'a>>;
/// Text blobs of consecutive windows.
pub type TextBlobSet<'a> = Windows<TextBlob<'a>>;

/// One metric across every blob of a set: `f64` values for numeric sets,
/// `String` for text ones.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedMetric<V> {
    /// The metric's id.
    pub id: u64,
    /// Timestamps of every window holding the metric, in time order.
    pub timestamps: Vec<i64>,
    /// One value per timestamp.
    pub values: Vec<V>,
    /// Present when any blob holding the metric has tags (empty strings elsewhere).
    pub tags: Option<Vec<String>>,
}

/// One numeric metric across every blob of a set.
pub type MaterializedNumericMetric = MaterializedMetric<f64>;
/// One text metric across every blob of a set.
pub type MaterializedTextMetric = MaterializedMetric<String>;

impl<'a> Windows<NumericBlob<'a>> {
    /// Open every blob and order them.
    pub fn open(blobs: &[&'a [u8]]) -> Result<Self> {
        Self::new(blobs.iter().map(|b| NumericBlob::open(b)).collect::<Result<_>>()?)
    }

    /// Every metric's series over the set, as columns: metric `i` of `ids`
    /// (ascending) owns `offsets[i]..offsets[i + 1]`. Blobs are decoded
    /// whole, one after the other, and each metric's points copied to their
    /// place: the input is read in order (going metric by metric instead
    /// visits every blob once per metric, a cache miss a column) and every
    /// blob gets the whole-blob kernels (XOR columns side by side, shared
    /// timestamp columns decoded once).
    pub fn materialize(&self) -> Result<NumericColumns> {
        let placements = self.placements()?;
        let (ids, offsets, total) = group_offsets(&placements)?;
        // The first point of each blob's metric in the columns, by the
        // blob's first entry in `starts` plus the metric's index position;
        // `u32::MAX` for an entry not placed (a crafted repeat).
        let mut firsts = Vec::new();
        limits::reserve(&mut firsts, self.blobs.len(), "blob set index")?;
        let mut entries = 0usize;
        for b in &self.blobs {
            firsts.push(entries);
            entries += b.metric_ids().len();
        }
        let mut starts = limits::filled(entries, u32::MAX, "blob set index")?;
        let mut at = 0u32;
        for p in &placements {
            starts[firsts[p.blob] + p.index] = at;
            // `group_offsets` checked that every point fits u32.
            at += p.points as u32;
        }
        let mut columns = NumericColumns { ids, offsets, ..Default::default() };
        columns.timestamps = limits::filled(total, 0, "set timestamps")?;
        columns.values = limits::filled(total, 0.0, "set values")?;
        let mut blob_columns = NumericColumns::default();
        for (blob, first) in self.blobs.iter().zip(firsts) {
            blob.decode_all_into(&mut blob_columns)?;
            for (index, &start) in starts[first..first + blob.len()].iter().enumerate() {
                if start == u32::MAX {
                    continue;
                }
                let from = blob_columns.points_of(index).unwrap_or_default();
                let to = start as usize..start as usize + from.len();
                columns.timestamps[to.clone()].copy_from_slice(&blob_columns.timestamps[from.clone()]);
                columns.values[to].copy_from_slice(&blob_columns.values[from]);
            }
        }
        Ok(columns)
    }
}

/// Ids, point offsets and total points of placements grouped by id: what
/// columns of every metric of a set need before they are filled.
fn group_offsets(placements: &[Placement]) -> Result<(Vec<u64>, Vec<u32>, usize)> {
    let (mut ids, mut offsets) = (Vec::new(), vec![0u32]);
    let mut total = 0usize;
    for (i, p) in placements.iter().enumerate() {
        total = total.saturating_add(p.points);
        if placements.get(i + 1).is_none_or(|next| next.id != p.id) {
            // Decoded columns address points with u32 offsets.
            let end = u32::try_from(total).map_err(|_| Error::SizeCap {
                what: "set point count",
                size: total as u64,
                cap: u64::from(u32::MAX),
            })?;
            ids.push(p.id);
            offsets.push(end);
        }
    }
    Ok((ids, offsets, total))
}

impl<'a> Windows<TextBlob<'a>> {
    /// Open every blob and order them.
    pub fn open(blobs: &[&'a [u8]]) -> Result<Self> {
        Self::new(blobs.iter().map(|b| TextBlob::open(b)).collect::<Result<_>>()?)
    }

    /// Every metric's series over the set, as columns (ids ascending).
    pub fn materialize(&self) -> Result<TextColumns> {
        let placements = self.placements()?;
        let (ids, offsets, total) = group_offsets(&placements)?;
        let mut columns = TextColumns { ids, offsets, ..Default::default() };
        columns.timestamps = limits::filled(total, 0, "set timestamps")?;
        let any_tags = self.blobs.iter().any(|b| b.has_tags());
        let mut tags = crate::text::StringColumn::default();
        reserve_strings(&mut columns.values, total)?;
        if any_tags {
            reserve_strings(&mut tags, total)?;
        }
        let mut at = 0;
        for p in &placements {
            let blob = &self.blobs[p.blob];
            blob.timestamps_into(p.index, &mut columns.timestamps[at..at + p.points])?;
            let metric = blob.metric_at(p.index)?;
            for v in metric.values()? {
                limits::reserve_str(&mut columns.values.bytes, v.len(), "set values")?;
                columns.values.push(v);
            }
            if any_tags {
                match metric.tags()? {
                    Some(t) => t.into_iter().try_for_each(|s| {
                        limits::reserve_str(&mut tags.bytes, s.len(), "set tags")?;
                        tags.push(s);
                        Ok::<_, Error>(())
                    })?,
                    None => (0..p.points).for_each(|_| tags.push("")),
                }
            }
            at += p.points;
        }
        columns.tags = any_tags.then_some(tags);
        Ok(columns)
    }
}

/// Room for `strings` more offsets of a string column.
fn reserve_strings(column: &mut crate::text::StringColumn, strings: usize) -> Result<()> {
    limits::reserve(&mut column.offsets, strings, "set string offsets")
}

/// Numeric and text blobs of the same windows, opened together.
#[derive(Debug, Clone)]
pub struct BlobSet<'a> {
    /// The numeric blobs, when there are any.
    pub numeric: Option<NumericBlobSet<'a>>,
    /// The text blobs, when there are any.
    pub text: Option<TextBlobSet<'a>>,
}

impl<'a> BlobSet<'a> {
    /// Open every blob, telling numeric from text by its magic.
    pub fn open(blobs: &[&'a [u8]]) -> Result<BlobSet<'a>> {
        let (mut numeric, mut text) = (Vec::new(), Vec::new());
        for bytes in blobs {
            if BlobKind::from_flags(read_flags(bytes)?) == Some(BlobKind::Text) {
                text.push(TextBlob::open(bytes)?);
            } else {
                numeric.push(NumericBlob::open(bytes)?);
            }
        }
        if numeric.is_empty() && text.is_empty() {
            return Err(Error::BlobSet { detail: "a blob set needs at least one blob".into() });
        }
        Ok(BlobSet {
            numeric: if numeric.is_empty() { None } else { Some(Windows::new(numeric)?) },
            text: if text.is_empty() { None } else { Some(Windows::new(text)?) },
        })
    }
}
