//! Blob to record batch: only the columns asked for, only the metrics asked
//! for, each decoded straight into the vector that becomes its Arrow buffer.

use std::sync::Arc;

use arrow::array::{new_null_array, ArrayRef, Float64Array, StringArray, TimestampMicrosecondArray, UInt64Array};
use arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use mebo::numeric::NumericBlob;
use mebo::text::{StringColumn, TextBlob};

use crate::error::{Error, Result};
use crate::schema::{numeric_schema, text_schema, COLUMNS};

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

    fn projection(&self) -> Result<Vec<usize>> {
        let projection = self.projection.clone().unwrap_or_else(|| (0..COLUMNS.len()).collect());
        if let Some(bad) = projection.iter().find(|&&i| i >= COLUMNS.len()) {
            return Err(Error::Schema(format!("projection names column {bad}, the schema has {}", COLUMNS.len())));
        }
        Ok(projection)
    }

    /// Positions of the selected metrics in a blob's index, ascending.
    fn positions(&self, len: usize, position: impl Fn(u64) -> Option<usize>) -> Vec<usize> {
        match &self.metrics {
            None => (0..len).collect(),
            Some(ids) => {
                let mut found: Vec<usize> = ids.iter().filter_map(|&id| position(id)).collect();
                found.sort_unstable();
                found.dedup();
                found
            }
        }
    }
}

/// A numeric blob's selected points as one batch of [`numeric_schema`] (projected).
pub fn numeric_batch(blob: &NumericBlob<'_>, selection: &Selection) -> Result<RecordBatch> {
    let projection = selection.projection()?;
    let want = Columns::of(&projection);
    let positions = selection.positions(blob.len(), |id| blob.position(id));
    let counts = positions.iter().map(|&p| blob.metric_at(p).map(|m| m.len())).collect::<mebo::Result<Vec<_>>>()?;
    let total: usize = counts.iter().sum();
    let every_metric = positions.len() == blob.len();

    let (mut timestamps, mut values) = (None, None);
    if every_metric && want.ts && want.value {
        // The fast path of the core: both columns of every metric in one pass.
        let columns = blob.decode_all()?;
        timestamps = Some(columns.timestamps);
        values = Some(columns.values);
    } else {
        if want.ts {
            let mut column = zeroed(total, 0i64, "timestamp column")?;
            fill(&positions, &counts, &mut column, |p, out| blob.metric_at(p)?.timestamps_into(out))?;
            timestamps = Some(column);
        }
        if want.value {
            let mut column = zeroed(total, 0f64, "value column")?;
            fill(&positions, &counts, &mut column, |p, out| blob.metric_at(p)?.values_into(out))?;
            values = Some(column);
        }
    }

    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(projection.len());
    for &column in &projection {
        arrays.push(match column {
            0 => ids(blob.metric_ids(), &positions, &counts, total)?,
            1 => names(blob.names().map(|n| n.iter().map(|s| s.as_ref()).collect::<Vec<_>>()), &positions, &counts, total),
            2 => timestamp_array(timestamps.take().unwrap_or_default()),
            3 => Arc::new(Float64Array::new(ScalarBuffer::from(Buffer::from_vec(values.take().unwrap_or_default())), None)),
            _ => match blob.options().tags {
                false => new_null_array(&DataType::Utf8, total),
                true => {
                    let mut tags: Vec<&str> = Vec::new();
                    tags.try_reserve_exact(total).map_err(|_| out_of_memory("tag column", total))?;
                    for &p in &positions {
                        tags.extend(blob.metric_at(p)?.tags()?.unwrap_or_default());
                    }
                    Arc::new(StringArray::from_iter_values(tags))
                }
            },
        });
    }
    batch(numeric_schema(), &projection, arrays, total)
}

/// A text blob's selected points as one batch of [`text_schema`] (projected).
pub fn text_batch(blob: &TextBlob<'_>, selection: &Selection) -> Result<RecordBatch> {
    let projection = selection.projection()?;
    let want = Columns::of(&projection);
    let positions = selection.positions(blob.len(), |id| blob.position(id));
    let counts = positions.iter().map(|&p| blob.metric_at(p).map(|m| m.len())).collect::<mebo::Result<Vec<_>>>()?;
    let total: usize = counts.iter().sum();
    let every_metric = positions.len() == blob.len();
    let has_tags = blob.options().tags;

    let (mut timestamps, mut values, mut tags) = (None, None, None);
    if want.ts || want.value || (want.tag && has_tags) {
        if every_metric {
            // Rows hold timestamp, value and tag together: one pass reads all three.
            let columns = blob.decode_all()?;
            timestamps = Some(timestamp_array(columns.timestamps));
            values = Some(string_array(columns.values)?);
            tags = columns.tags.map(string_array).transpose()?;
        } else {
            let mut ts = zeroed(total, 0i64, "timestamp column")?;
            let (mut vs, mut tg) = (StringColumn::default(), StringColumn::default());
            let mut at = 0;
            for (&p, &n) in positions.iter().zip(&counts) {
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

    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(projection.len());
    for &column in &projection {
        arrays.push(match column {
            0 => ids(blob.metric_ids(), &positions, &counts, total)?,
            1 => names(blob.names().map(|n| n.iter().map(|s| s.as_ref()).collect::<Vec<_>>()), &positions, &counts, total),
            2 => timestamps.take().unwrap_or_else(|| timestamp_array(Vec::new())),
            3 => values.take().unwrap_or_else(|| Arc::new(StringArray::new_null(0))),
            _ => tags.take().unwrap_or_else(|| new_null_array(&DataType::Utf8, total)),
        });
    }
    batch(text_schema(), &projection, arrays, total)
}

fn batch(schema: SchemaRef, projection: &[usize], arrays: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let schema = Arc::new(schema.project(projection)?);
    Ok(RecordBatch::try_new_with_options(schema, arrays, &RecordBatchOptions::new().with_row_count(Some(rows)))?)
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

/// Each selected metric's points decoded into its stretch of `column`.
fn fill<T>(positions: &[usize], counts: &[usize], column: &mut [T], decode: impl Fn(usize, &mut [T]) -> mebo::Result<()>) -> Result<()> {
    let mut at = 0;
    for (&p, &n) in positions.iter().zip(counts) {
        decode(p, &mut column[at..at + n])?;
        at += n;
    }
    Ok(())
}

fn ids(all: &[u64], positions: &[usize], counts: &[usize], total: usize) -> Result<ArrayRef> {
    let mut column = Vec::new();
    column.try_reserve_exact(total).map_err(|_| out_of_memory("metric id column", total))?;
    for (&p, &n) in positions.iter().zip(counts) {
        column.extend(std::iter::repeat_n(all[p], n));
    }
    Ok(Arc::new(UInt64Array::new(ScalarBuffer::from(column), None)))
}

fn names(all: Option<Vec<&str>>, positions: &[usize], counts: &[usize], total: usize) -> ArrayRef {
    match all {
        None => new_null_array(&DataType::Utf8, total),
        Some(all) => {
            let per_point: Vec<&str> = positions.iter().zip(counts).flat_map(|(&p, &n)| std::iter::repeat_n(all[p], n)).collect();
            Arc::new(StringArray::from_iter_values(per_point))
        }
    }
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
