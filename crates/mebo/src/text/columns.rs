//! Decoding every metric of a text blob at once: into contiguous columns
//! (strings as one buffer plus offsets), or with values and tags as
//! dictionaries. The numeric counterpart is `numeric/columns.rs`.

use crate::error::Result;
use crate::limits;

use super::blob::{utf8, TextBlob};
use super::dictionary::{DictionaryBuilder, DictionaryColumns};
use super::string_column::StringColumn;

impl TextBlob<'_> {
    /// Decode every metric into new columns.
    pub fn decode_all(&self) -> Result<TextColumns> {
        let mut columns = TextColumns::default();
        self.decode_all_into(&mut columns)?;
        Ok(columns)
    }

    /// Decode every metric into `columns`, reusing its allocations. On error
    /// the columns are cleared: no partial result.
    pub fn decode_all_into(&self, columns: &mut TextColumns) -> Result<()> {
        let result = self.fill_columns(columns);
        if result.is_err() {
            columns.clear();
        }
        result
    }

    fn fill_columns(&self, c: &mut TextColumns) -> Result<()> {
        c.clear();
        let points = self.total_points();
        limits::reserve(&mut c.ids, self.len(), "metric ids")?;
        c.ids.extend_from_slice(self.metric_ids());
        limits::reserve(&mut c.offsets, self.len() + 1, "point offsets")?;
        c.offsets.push(0);
        limits::reserve(&mut c.timestamps, points, "timestamp column")?;
        c.values.reserve(points, self.data_size())?;
        let mut tags = match self.options().tags {
            true => {
                let mut t = c.tags.take().unwrap_or_default();
                t.clear();
                t.reserve(points, 0)?;
                Some(t)
            }
            false => None,
        };
        for metric in self.metrics() {
            metric.rows().try_for_each_row(|i, row| {
                c.timestamps.push(row.ts);
                c.values.try_push(utf8(row.value, "text value", i)?)?;
                if let Some(tags) = &mut tags {
                    tags.try_push(utf8(row.tag, "text tag", i)?)?;
                }
                Ok(())
            })?;
            // Fits: points are bounded by the u32 data size.
            c.offsets.push(c.timestamps.len() as u32);
        }
        c.tags = tags;
        Ok(())
    }

    /// Decode every metric with values and tags as dictionaries (see
    /// [`Dictionary`](super::Dictionary)): strings borrow the blob, each
    /// distinct one checked for UTF-8 once.
    pub fn decode_dictionary(&self) -> Result<DictionaryColumns<'_>> {
        // Every buffer sized by the blob is reserved fallibly: a refusal is
        // `OutOfMemory`, not an abort.
        let points = self.total_points();
        let mut offsets = limits::with_capacity(self.len() + 1, "point offsets")?;
        offsets.push(0);
        let mut timestamps = limits::with_capacity(points, "timestamp column")?;
        let mut values = DictionaryBuilder::new(points, "value codes")?;
        let mut tags = match self.options().tags {
            true => Some(DictionaryBuilder::new(points, "tag codes")?),
            false => None,
        };
        let ids = limits::copied(self.metric_ids(), "metric ids")?;
        for metric in self.metrics() {
            metric.rows().try_for_each_row(|i, row| {
                // Reserved for the blob's points: no growth here.
                timestamps.push(row.ts);
                values.push(row.value).map_err(|refused| refused.into_error("text value", i))?;
                if let Some(tags) = &mut tags {
                    tags.push(row.tag).map_err(|refused| refused.into_error("text tag", i))?;
                }
                Ok(())
            })?;
            // Fits: points are bounded by the u32 data size.
            offsets.push(timestamps.len() as u32);
        }
        Ok(DictionaryColumns { ids, offsets, timestamps, values: values.finish(), tags: tags.map(DictionaryBuilder::finish) })
    }
}

/// Every metric of a text blob, column by column. Metric `m` owns the points
/// `offsets[m]..offsets[m + 1]` of `timestamps`, `values` and `tags`. Strings
/// are stored as one buffer plus offsets ([`StringColumn`]), not one
/// allocation each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextColumns {
    /// Metric ids in index order.
    pub ids: Vec<u64>,
    /// `ids.len() + 1` point offsets.
    pub offsets: Vec<u32>,
    /// Every point's timestamp.
    pub timestamps: Vec<i64>,
    /// Every point's value.
    pub values: StringColumn,
    /// `None` when the blob has no tags.
    pub tags: Option<StringColumn>,
}

impl TextColumns {
    /// Range of point positions of metric `m`.
    pub fn points_of(&self, m: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.offsets.get(m)? as usize;
        let end = *self.offsets.get(m.checked_add(1)?)? as usize;
        Some(start..end)
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.timestamps.clear();
        self.values.clear();
        if let Some(tags) = &mut self.tags {
            tags.clear();
        }
    }
}
