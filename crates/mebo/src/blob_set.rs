//! Blob sets: consecutive time windows of the same metrics, read as one series
//! per metric. Blobs are ordered by start time; a metric may be missing from
//! some windows. [`BlobSet`] takes numeric and text blobs together and sorts
//! them by kind, as the reference's `DecodeBlobSet` does.

use crate::error::{Error, Result};
use crate::numeric::{NumericBlob, NumericColumns};
use crate::order;
use crate::section::flags::{read_flags, BlobKind};
use crate::text::{TextBlob, TextColumns};

/// What a set needs from its blobs.
pub trait WindowBlob {
    fn start_time(&self) -> i64;
    fn metric_ids(&self) -> &[u64];
    /// Point count of a metric, `None` when the blob lacks it.
    fn point_count(&self, id: u64) -> Option<usize>;
    /// First and last timestamp of a metric with at least one point.
    fn first_last(&self, id: u64) -> Result<Option<(i64, i64)>>;
}

/// Numeric and text blobs answer the set's questions the same way.
macro_rules! window_blob {
    ($blob:ident) => {
        impl WindowBlob for $blob<'_> {
            fn start_time(&self) -> i64 {
                $blob::start_time(self)
            }
            fn metric_ids(&self) -> &[u64] {
                $blob::metric_ids(self)
            }
            fn point_count(&self, id: u64) -> Option<usize> {
                self.metric(id).ok().map(|m| m.len())
            }
            fn first_last(&self, id: u64) -> Result<Option<(i64, i64)>> {
                match self.metric(id) {
                    Ok(m) if !m.is_empty() => Ok(Some((m.timestamp_at(0)?, m.timestamp_at(m.len() - 1)?))),
                    _ => Ok(None),
                }
            }
        }
    };
}

window_blob!(NumericBlob);
window_blob!(TextBlob);

/// Blobs of one kind ordered by start time (stable for equal starts).
#[derive(Debug, Clone)]
pub struct Windows<B> {
    blobs: Vec<B>,
}

impl<B: WindowBlob> Windows<B> {
    pub fn new(blobs: Vec<B>) -> Result<Self> {
        if blobs.is_empty() {
            return Err(Error::BlobSet { detail: "a blob set needs at least one blob".into() });
        }
        Ok(Windows { blobs: order::sorted_by_key(blobs, |b| order::signed_key(b.start_time())) })
    }

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

    /// The blobs holding a metric, in time order, with the metric's point
    /// position where each blob's points start in the series.
    fn holding(&self, id: u64) -> Vec<(&B, usize)> {
        let mut at = 0;
        self.blobs
            .iter()
            .filter_map(|b| {
                let n = b.point_count(id)?;
                at += n;
                Some((b, at - n))
            })
            .collect()
    }

    /// The blob and in-blob position of point `index` of a metric's series.
    fn locate(&self, id: u64, index: usize) -> Result<(&B, usize)> {
        let total = self.metric_len(id);
        self.holding(id)
            .into_iter()
            .find(|(b, start)| index >= *start && index - start < b.point_count(id).unwrap_or(0))
            .map(|(b, start)| (b, index - start))
            .ok_or(Error::IndexOutOfRange { index, len: total })
    }
}

/// Numeric blobs of consecutive windows.
pub type NumericBlobSet<'a> = Windows<NumericBlob<'a>>;
/// Text blobs of consecutive windows.
pub type TextBlobSet<'a> = Windows<TextBlob<'a>>;

/// One numeric metric across every blob of a set.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedNumericMetric {
    pub id: u64,
    pub timestamps: Vec<i64>,
    pub values: Vec<f64>,
    /// Present when any blob holding the metric has tags (empty strings elsewhere).
    pub tags: Option<Vec<String>>,
}

/// One text metric across every blob of a set.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedTextMetric {
    pub id: u64,
    pub timestamps: Vec<i64>,
    pub values: Vec<String>,
    /// Present when any blob holding the metric has tags (empty strings elsewhere).
    pub tags: Option<Vec<String>>,
}

fn not_found(id: u64) -> Error {
    Error::MetricNotFound { key: format!("id {id:016x}") }
}

/// Append a blob's tags for a metric, or empty tags when that blob has none.
fn extend_tags(tags: &mut Vec<String>, blob_tags: Option<Vec<&str>>, count: usize) {
    match blob_tags {
        Some(t) => tags.extend(t.into_iter().map(str::to_string)),
        None => tags.resize(tags.len() + count, String::new()),
    }
}

impl<'a> Windows<NumericBlob<'a>> {
    /// Open every blob and order them.
    pub fn open(blobs: &[&'a [u8]]) -> Result<Self> {
        Self::new(blobs.iter().map(|b| NumericBlob::open(b)).collect::<Result<_>>()?)
    }

    /// The point at `index` of a metric's series over the set.
    pub fn point_at(&self, id: u64, index: usize) -> Result<(i64, f64)> {
        let (blob, i) = self.locate(id, index)?;
        let m = blob.metric(id)?;
        Ok((m.timestamp_at(i)?, m.value_at(i)?))
    }

    /// One metric's series over every blob, concatenated in time order.
    pub fn materialize_metric(&self, id: u64) -> Result<MaterializedNumericMetric> {
        let holding = self.holding(id);
        if holding.is_empty() {
            return Err(not_found(id));
        }
        let total = self.metric_len(id);
        let mut out = MaterializedNumericMetric { id, timestamps: vec![0; total], values: vec![0.0; total], tags: None };
        let any_tags = holding.iter().any(|(b, _)| b.options().tags);
        let mut tags = Vec::new();
        for (blob, start) in holding {
            let m = blob.metric(id)?;
            let range = start..start + m.len();
            m.timestamps_into(&mut out.timestamps[range.clone()])?;
            m.values_into(&mut out.values[range])?;
            if any_tags {
                extend_tags(&mut tags, m.tags()?, m.len());
            }
        }
        out.tags = any_tags.then_some(tags);
        Ok(out)
    }

    /// Every metric's series over the set, as columns: metric `i` of `ids`
    /// (ascending) owns `offsets[i]..offsets[i + 1]`.
    pub fn materialize(&self) -> Result<NumericColumns> {
        let ids = self.metric_ids();
        let mut columns = NumericColumns { ids: Vec::with_capacity(ids.len()), offsets: vec![0], ..Default::default() };
        for id in ids {
            let m = self.materialize_metric(id)?;
            columns.ids.push(id);
            columns.timestamps.extend_from_slice(&m.timestamps);
            columns.values.extend_from_slice(&m.values);
            columns.offsets.push(columns.timestamps.len() as u32);
        }
        Ok(columns)
    }
}

impl<'a> Windows<TextBlob<'a>> {
    /// Open every blob and order them.
    pub fn open(blobs: &[&'a [u8]]) -> Result<Self> {
        Self::new(blobs.iter().map(|b| TextBlob::open(b)).collect::<Result<_>>()?)
    }

    /// The point at `index` of a metric's series over the set.
    pub fn point_at(&self, id: u64, index: usize) -> Result<(i64, &str)> {
        let (blob, i) = self.locate(id, index)?;
        let m = blob.metric(id)?;
        Ok((m.timestamp_at(i)?, m.value_at(i)?))
    }

    /// One metric's series over every blob, concatenated in time order.
    pub fn materialize_metric(&self, id: u64) -> Result<MaterializedTextMetric> {
        let holding = self.holding(id);
        if holding.is_empty() {
            return Err(not_found(id));
        }
        let total = self.metric_len(id);
        let mut out = MaterializedTextMetric { id, timestamps: vec![0; total], values: Vec::with_capacity(total), tags: None };
        let any_tags = holding.iter().any(|(b, _)| b.options().tags);
        let mut tags = Vec::new();
        for (blob, start) in holding {
            let m = blob.metric(id)?;
            m.timestamps_into(&mut out.timestamps[start..start + m.len()])?;
            out.values.extend(m.values()?.into_iter().map(str::to_string));
            if any_tags {
                extend_tags(&mut tags, m.tags()?, m.len());
            }
        }
        out.tags = any_tags.then_some(tags);
        Ok(out)
    }

    /// Every metric's series over the set, as columns (ids ascending).
    pub fn materialize(&self) -> Result<TextColumns> {
        let ids = self.metric_ids();
        let mut columns = TextColumns::default();
        columns.offsets.push(0);
        let any_tags = self.blobs.iter().any(|b| b.options().tags);
        let mut tags = crate::text::StringColumn::default();
        for id in ids {
            let m = self.materialize_metric(id)?;
            columns.ids.push(id);
            columns.timestamps.extend_from_slice(&m.timestamps);
            for v in &m.values {
                columns.values.push(v);
            }
            if any_tags {
                match &m.tags {
                    Some(t) => t.iter().for_each(|s| tags.push(s)),
                    None => m.values.iter().for_each(|_| tags.push("")),
                }
            }
            columns.offsets.push(columns.timestamps.len() as u32);
        }
        columns.tags = any_tags.then_some(tags);
        Ok(columns)
    }
}

/// Numeric and text blobs of the same windows, opened together.
#[derive(Debug, Clone)]
pub struct BlobSet<'a> {
    pub numeric: Option<NumericBlobSet<'a>>,
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
