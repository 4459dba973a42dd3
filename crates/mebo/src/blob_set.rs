//! Blob sets: consecutive time windows of the same metrics, read as one series
//! per metric. Blobs are ordered by start time; a metric may be missing from
//! some windows.

use crate::error::{Error, Result};
use crate::numeric::{NumericBlob, NumericColumns};

/// Numeric blobs ordered by start time (stable for equal starts).
#[derive(Debug, Clone)]
pub struct NumericBlobSet<'a> {
    blobs: Vec<NumericBlob<'a>>,
}

/// One metric across every blob of a set.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedNumericMetric {
    pub id: u64,
    pub timestamps: Vec<i64>,
    pub values: Vec<f64>,
    /// Present when any blob holding the metric has tags (empty strings elsewhere).
    pub tags: Option<Vec<String>>,
}

impl<'a> NumericBlobSet<'a> {
    pub fn new(mut blobs: Vec<NumericBlob<'a>>) -> Result<NumericBlobSet<'a>> {
        if blobs.is_empty() {
            return Err(Error::BlobSet { detail: "a blob set needs at least one blob".into() });
        }
        blobs.sort_by_key(|b| b.start_time());
        Ok(NumericBlobSet { blobs })
    }

    /// Open every blob and order them.
    pub fn open(blobs: &[&'a [u8]]) -> Result<NumericBlobSet<'a>> {
        Self::new(blobs.iter().map(|b| NumericBlob::open(b)).collect::<Result<_>>()?)
    }

    pub fn blobs(&self) -> &[NumericBlob<'a>] {
        &self.blobs
    }

    /// Start times of the first and the last blob.
    pub fn time_range(&self) -> (i64, i64) {
        (self.blobs[0].start_time(), self.blobs[self.blobs.len() - 1].start_time())
    }

    /// Every metric id in the set, ascending.
    pub fn metric_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.blobs.iter().flat_map(|b| b.metric_ids().iter().copied()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Points of a metric over all blobs (0 when absent).
    pub fn metric_len(&self, id: u64) -> usize {
        self.blobs.iter().filter_map(|b| b.metric(id).ok()).map(|m| m.len()).sum()
    }

    /// Last timestamp minus first timestamp of a metric over the set (0 when
    /// absent or not increasing), as the reference computes it.
    pub fn metric_duration(&self, id: u64) -> Result<i64> {
        let mut holding = self.blobs.iter().filter_map(|b| b.metric(id).ok()).filter(|m| !m.is_empty());
        let Some(first) = holding.next() else { return Ok(0) };
        let last = holding.last().unwrap_or(first);
        let (start, end) = (first.timestamp_at(0)?, last.timestamp_at(last.len() - 1)?);
        Ok(if end > start { end - start } else { 0 })
    }

    /// The point at `index` of a metric's series over the set.
    pub fn point_at(&self, id: u64, mut index: usize) -> Result<(i64, f64)> {
        let total = self.metric_len(id);
        for m in self.blobs.iter().filter_map(|b| b.metric(id).ok()) {
            if index < m.len() {
                return Ok((m.timestamp_at(index)?, m.value_at(index)?));
            }
            index -= m.len();
        }
        Err(Error::IndexOutOfRange { index: index + total, len: total })
    }

    /// One metric's series over every blob, concatenated in time order.
    pub fn materialize_metric(&self, id: u64) -> Result<MaterializedNumericMetric> {
        let holding: Vec<_> = self.blobs.iter().filter_map(|b| b.metric(id).ok()).collect();
        if holding.is_empty() {
            return Err(Error::MetricNotFound { key: format!("id {id:016x}") });
        }
        let total: usize = holding.iter().map(|m| m.len()).sum();
        let mut out = MaterializedNumericMetric { id, timestamps: vec![0; total], values: vec![0.0; total], tags: None };
        let any_tags = holding.iter().any(|m| m.blob_has_tags());
        let mut tags = Vec::new();
        let mut at = 0;
        for m in &holding {
            let range = at..at + m.len();
            m.timestamps_into(&mut out.timestamps[range.clone()])?;
            m.values_into(&mut out.values[range])?;
            if any_tags {
                match m.tags()? {
                    Some(t) => tags.extend(t.into_iter().map(str::to_string)),
                    None => tags.resize(tags.len() + m.len(), String::new()),
                }
            }
            at += m.len();
        }
        if any_tags {
            out.tags = Some(tags);
        }
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
