//! Blob to record batch: only the columns asked for, only the metrics asked
//! for, each decoded straight into the vector that becomes its Arrow buffer.

use std::borrow::Cow;
use std::sync::Arc;

use arrow::array::{new_null_array, ArrayRef, Float64Array, StringArray, TimestampMicrosecondArray, UInt64Array};
use arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use mebo::numeric::NumericBlob;
use mebo::text::{StringColumn, TextBlob};
use mebo::BlobKind;

use crate::error::{Error, Result};
use crate::id_map::IdMap;
use crate::schema::{numeric_schema, schema_of, text_schema, COLUMNS};

/// Which of the five schema columns a read fills.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Columns {
    /// `metric_id`
    pub metric_id: bool,
    /// `metric`
    pub metric: bool,
    /// `ts`
    pub ts: bool,
    /// `value`
    pub value: bool,
    /// `tag`
    pub tag: bool,
}

impl Columns {
    /// The columns a projection (indices into the schema) names.
    pub fn of(projection: &[usize]) -> Columns {
        let has = |i: usize| projection.contains(&i);
        Columns { metric_id: has(0), metric: has(1), ts: has(2), value: has(3), tag: has(4) }
    }
}

/// What to read of a blob.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices into the schema, in the order the batch holds them; `None`
    /// for all five. An empty projection yields a batch of no column with
    /// the selected metrics' point count, which reads the index only.
    pub projection: Option<Vec<usize>>,
    /// The metric ids to read, `None` for every metric. Ids the blob does
    /// not hold are skipped; each metric is read once, in index order.
    pub metrics: Option<Vec<u64>>,
}

impl Selection {
    /// Every column of every metric.
    pub fn all() -> Selection {
        Selection::default()
    }

    /// What this selection reads of a blob of `len` metrics: `position`
    /// finds a metric by id, `count` gives the points at an index position.
    fn of_blob(
        &self,
        len: usize,
        position: impl Fn(u64) -> Option<usize>,
        count: impl Fn(usize) -> mebo::Result<usize>,
    ) -> Result<Selected> {
        let projection = self.projection.clone().unwrap_or_else(|| (0..COLUMNS.len()).collect());
        if let Some(bad) = projection.iter().find(|&&i| i >= COLUMNS.len()) {
            return Err(Error::Schema(format!("projection names column {bad}, the schema has {}", COLUMNS.len())));
        }
        let positions = match &self.metrics {
            None => (0..len).collect(),
            Some(ids) => {
                let mut found: Vec<usize> = ids.iter().filter_map(|&id| position(id)).collect();
                found.sort_unstable();
                found.dedup();
                found
            }
        };
        let counts = positions.iter().map(|&p| count(p)).collect::<mebo::Result<Vec<_>>>()?;
        Ok(Selected {
            want: Columns::of(&projection),
            projection,
            every_metric: positions.len() == len,
            total: counts.iter().sum(),
            positions,
            counts,
        })
    }
}

/// A selection resolved against one blob.
struct Selected {
    /// Schema columns, in the batch's order.
    projection: Vec<usize>,
    want: Columns,
    /// Index positions of the selected metrics, ascending.
    positions: Vec<usize>,
    /// Points of each selected metric.
    counts: Vec<usize>,
    /// Points of all selected metrics: the batch's rows.
    total: usize,
    every_metric: bool,
}

impl Selected {
    /// Each selected metric's points decoded into its stretch of `column`.
    fn fill<T>(&self, column: &mut [T], decode: impl Fn(usize, &mut [T]) -> mebo::Result<()>) -> Result<()> {
        let mut at = 0;
        for (&p, &n) in self.positions.iter().zip(&self.counts) {
            decode(p, &mut column[at..at + n])?;
            at += n;
        }
        Ok(())
    }

    /// The `metric_id` column: each selected metric's id, once a point.
    fn ids(&self, all: &[u64]) -> Result<ArrayRef> {
        let mut column = Vec::new();
        column.try_reserve_exact(self.total).map_err(|_| out_of_memory("metric id column", self.total))?;
        for (&p, &n) in self.positions.iter().zip(&self.counts) {
            column.extend(std::iter::repeat_n(all[p], n));
        }
        Ok(Arc::new(UInt64Array::new(ScalarBuffer::from(column), None)))
    }

    /// The `metric` column: each selected metric's name, once a point (null
    /// when the blob carries no names).
    fn names(&self, all: Option<&[Cow<'_, str>]>) -> ArrayRef {
        match all {
            None => new_null_array(&DataType::Utf8, self.total),
            Some(all) => {
                let per_point: Vec<&str> =
                    self.positions.iter().zip(&self.counts).flat_map(|(&p, &n)| std::iter::repeat_n(all[p].as_ref(), n)).collect();
                Arc::new(StringArray::from_iter_values(per_point))
            }
        }
    }

    /// The batch of `schema`'s projected columns.
    fn batch(&self, schema: SchemaRef, arrays: Vec<ArrayRef>) -> Result<RecordBatch> {
        let schema = Arc::new(schema.project(&self.projection)?);
        Ok(RecordBatch::try_new_with_options(schema, arrays, &RecordBatchOptions::new().with_row_count(Some(self.total)))?)
    }
}

/// The selected rows of a blob of `kind` whose head alone was read: each
/// metric's id and point count in index order (`mebo::BlobHead::metrics`).
/// The projection may name `metric_id` or no column, which the index
/// answers; the batch is the one [`numeric_batch`] or [`text_batch`] gives.
pub fn index_batch(kind: BlobKind, metrics: &[(u64, u32)], selection: &Selection) -> Result<RecordBatch> {
    // Each id's first position, when a selection looks ids up.
    let mut first: IdMap<usize> = IdMap::default();
    if selection.metrics.is_some() {
        first.reserve(metrics.len());
        metrics.iter().enumerate().rev().for_each(|(p, &(id, _))| _ = first.insert(id, p));
    }
    let position = |id: u64| first.get(&id).copied();
    let sel = selection.of_blob(metrics.len(), position, |p| Ok(metrics[p].1 as usize))?;
    if let Some(&column) = sel.projection.iter().find(|&&c| c != 0) {
        return Err(Error::Schema(format!("a blob's index holds metric ids and counts, not {}", COLUMNS[column])));
    }
    let ids: Vec<u64> = metrics.iter().map(|&(id, _)| id).collect();
    let arrays = sel.projection.iter().map(|_| sel.ids(&ids)).collect::<Result<Vec<_>>>()?;
    sel.batch(schema_of(kind), arrays)
}

/// A numeric blob's selected points as one batch of [`numeric_schema`] (projected).
pub fn numeric_batch(blob: &NumericBlob<'_>, selection: &Selection) -> Result<RecordBatch> {
    let sel = selection.of_blob(blob.len(), |id| blob.position(id), |p| blob.metric_at(p).map(|m| m.len()))?;
    let (want, total) = (sel.want, sel.total);

    let (mut timestamps, mut values) = (None, None);
    if sel.every_metric && want.ts && want.value {
        // The fast path of the core: both columns of every metric in one pass.
        let columns = blob.decode_all()?;
        timestamps = Some(columns.timestamps);
        values = Some(columns.values);
    } else {
        if want.ts {
            let mut column = zeroed(total, 0i64, "timestamp column")?;
            sel.fill(&mut column, |p, out| blob.metric_at(p)?.timestamps_into(out))?;
            timestamps = Some(column);
        }
        if want.value {
            let mut column = zeroed(total, 0f64, "value column")?;
            sel.fill(&mut column, |p, out| blob.metric_at(p)?.values_into(out))?;
            values = Some(column);
        }
    }

    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(sel.projection.len());
    for &column in &sel.projection {
        arrays.push(match column {
            0 => sel.ids(blob.metric_ids())?,
            1 => sel.names(blob.names()),
            2 => timestamp_array(timestamps.take().unwrap_or_default()),
            3 => Arc::new(Float64Array::new(ScalarBuffer::from(Buffer::from_vec(values.take().unwrap_or_default())), None)),
            _ => match blob.options().tags {
                false => new_null_array(&DataType::Utf8, total),
                true => {
                    let mut tags: Vec<&str> = Vec::new();
                    tags.try_reserve_exact(total).map_err(|_| out_of_memory("tag column", total))?;
                    for &p in &sel.positions {
                        tags.extend(blob.metric_at(p)?.tags()?.unwrap_or_default());
                    }
                    Arc::new(StringArray::from_iter_values(tags))
                }
            },
        });
    }
    sel.batch(numeric_schema(), arrays)
}

/// A text blob's selected points as one batch of [`text_schema`] (projected).
pub fn text_batch(blob: &TextBlob<'_>, selection: &Selection) -> Result<RecordBatch> {
    let sel = selection.of_blob(blob.len(), |id| blob.position(id), |p| blob.metric_at(p).map(|m| m.len()))?;
    let (want, total) = (sel.want, sel.total);
    let has_tags = blob.options().tags;

    let (mut timestamps, mut values, mut tags) = (None, None, None);
    if want.ts || want.value || (want.tag && has_tags) {
        if sel.every_metric {
            // Rows hold timestamp, value and tag together: one pass reads all three.
            let columns = blob.decode_all()?;
            timestamps = Some(timestamp_array(columns.timestamps));
            values = Some(string_array(columns.values)?);
            tags = columns.tags.map(string_array).transpose()?;
        } else {
            let mut ts = zeroed(total, 0i64, "timestamp column")?;
            let (mut vs, mut tg) = (StringColumn::default(), StringColumn::default());
            let mut at = 0;
            for (&p, &n) in sel.positions.iter().zip(&sel.counts) {
                let metric = blob.metric_at(p)?;
                metric.timestamps_into(&mut ts[at..at + n])?;
                at += n;
                metric.values()?.into_iter().for_each(|v| vs.push(v));
                if let Some(t) = metric.tags()? {
                    t.into_iter().for_each(|v| tg.push(v));
                }
            }
            timestamps = Some(timestamp_array(ts));
            values = Some(string_array(vs)?);
            tags = has_tags.then(|| string_array(tg)).transpose()?;
        }
    }

    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(sel.projection.len());
    for &column in &sel.projection {
        arrays.push(match column {
            0 => sel.ids(blob.metric_ids())?,
            1 => sel.names(blob.names()),
            2 => timestamps.take().unwrap_or_else(|| timestamp_array(Vec::new())),
            3 => values.take().unwrap_or_else(|| Arc::new(StringArray::new_null(0))),
            _ => tags.take().unwrap_or_else(|| new_null_array(&DataType::Utf8, total)),
        });
    }
    sel.batch(text_schema(), arrays)
}

fn out_of_memory(what: &'static str, items: usize) -> Error {
    Error::Mebo(mebo::Error::OutOfMemory { what, bytes: items.saturating_mul(8) })
}

/// A column of `len` copies of `zero`, allocated fallibly.
fn zeroed<T: Copy>(len: usize, zero: T, what: &'static str) -> Result<Vec<T>> {
    let mut column = Vec::new();
    column.try_reserve_exact(len).map_err(|_| out_of_memory(what, len))?;
    column.resize(len, zero);
    Ok(column)
}

fn timestamp_array(column: Vec<i64>) -> ArrayRef {
    Arc::new(TimestampMicrosecondArray::new(ScalarBuffer::from(Buffer::from_vec(column)), None).with_timezone("UTC"))
}

/// The core's string column as an Arrow one: its bytes and offsets become
/// the array's buffers (u32 offsets reinterpreted as Arrow's i32).
fn string_array(column: StringColumn) -> Result<ArrayRef> {
    let StringColumn { bytes, offsets } = column;
    let ascending = offsets.windows(2).all(|w| w[0] <= w[1]);
    if !ascending || offsets.last().is_some_and(|&end| end > i32::MAX as u32) || offsets.is_empty() {
        return Err(Error::Schema(format!("a string column of {} bytes does not fit Arrow's 32-bit offsets", bytes.len())));
    }
    let offsets = OffsetBuffer::new(ScalarBuffer::<i32>::from(Buffer::from_vec(offsets)));
    Ok(Arc::new(StringArray::try_new(offsets, Buffer::from_vec(bytes.into_bytes()), None)?))
}
