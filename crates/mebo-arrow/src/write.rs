//! Record batches to a blob: the points grouped by metric in the order each
//! metric first appears, each metric's points in batch order.

use std::ops::Range;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Float64Type, TimeUnit, TimestampMicrosecondType, UInt64Type};
use mebo::numeric::{NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextEncoder, TextEncoderOptions};

use crate::error::{Error, Result};
use crate::id_map::IdMap;
use crate::schema::{METRIC, METRIC_ID, TAG, TS, VALUE};

/// One metric's points, gathered across batches.
struct Metric<V> {
    id: u64,
    name: Option<String>,
    timestamps: Vec<i64>,
    values: Vec<V>,
    /// A tag a point, once any point has one (the points before it: the
    /// empty tag); `None` while none has.
    tags: Option<Vec<String>>,
}

/// A batch's value column, typed once, appending a run of rows to a metric.
trait ValueColumn<V> {
    fn append(&self, rows: Range<usize>, out: &mut Vec<V>);
}

impl ValueColumn<f64> for &[f64] {
    fn append(&self, rows: Range<usize>, out: &mut Vec<f64>) {
        append_run(self, rows, out);
    }
}

impl ValueColumn<String> for &StringArray {
    fn append(&self, rows: Range<usize>, out: &mut Vec<String>) {
        out.extend(rows.map(|r| self.value(r).to_owned()));
    }
}

/// `from[rows]` appended to `to`. A run of one (rows interleaved by time)
/// is a push: a slice's copy calls `memcpy` for its eight bytes.
fn append_run<T: Copy>(from: &[T], rows: Range<usize>, to: &mut Vec<T>) {
    if rows.len() == 1 {
        to.push(from[rows.start]);
    } else {
        to.extend_from_slice(&from[rows]);
    }
}

/// Points of the batches by metric, taken a run of one metric at a time
/// (the rows of a blob or a sorted query come so). `values` types a batch's
/// value column.
fn gather<'b, V, C: ValueColumn<V>>(
    batches: &'b [RecordBatch],
    values: impl Fn(&'b dyn Array) -> Result<C>,
) -> Result<(Vec<Metric<V>>, bool)> {
    let mut metrics: Vec<Metric<V>> = Vec::new();
    let mut by_id: IdMap<usize> = IdMap::default();
    let mut tagged = false;
    for batch in batches {
        let ids = column(batch, METRIC_ID, true)?.ok_or_else(|| missing(METRIC_ID))?;
        let ids = ids.as_primitive_opt::<UInt64Type>().ok_or_else(|| wrong_type(METRIC_ID, "UInt64"))?.values();
        let ts = column(batch, TS, true)?.ok_or_else(|| missing(TS))?;
        if !matches!(ts.data_type(), DataType::Timestamp(TimeUnit::Microsecond, _)) {
            return Err(wrong_type(TS, "Timestamp(Microsecond)"));
        }
        let ts = ts.as_primitive::<TimestampMicrosecondType>().values();
        let value_column = values(column(batch, VALUE, true)?.ok_or_else(|| missing(VALUE))?.as_ref())?;
        let names =
            column(batch, METRIC, false)?.map(|c| c.as_string_opt::<i32>().ok_or_else(|| wrong_type(METRIC, "Utf8"))).transpose()?;
        let tags = column(batch, TAG, false)?.map(|c| c.as_string_opt::<i32>().ok_or_else(|| wrong_type(TAG, "Utf8"))).transpose()?;
        // A column of nulls (no tag given) is no tag column.
        let tags = tags.filter(|t| t.null_count() < t.len());
        let names = names.filter(|n| n.null_count() < n.len());
        let mut row = 0;
        while row < ids.len() {
            let id = ids[row];
            let end = row + ids[row..].iter().take_while(|&&other| other == id).count();
            let at = *by_id.entry(id).or_insert_with(|| {
                metrics.push(Metric { id, name: None, timestamps: Vec::new(), values: Vec::new(), tags: None });
                metrics.len() - 1
            });
            let metric = &mut metrics[at];
            if let Some(names) = names {
                for r in (row..end).filter(|&r| names.is_valid(r)) {
                    let name = names.value(r);
                    // A metric's name is hashed once; its later rows compare with it.
                    if metric.name.as_deref() == Some(name) {
                        continue;
                    }
                    if mebo::metric_id(name) != id {
                        return Err(Error::Schema(format!(
                            "row {r}: metric {name:?} has id {:016x}, not {id:016x}",
                            mebo::metric_id(name)
                        )));
                    }
                    if metric.name.is_none() {
                        metric.name = Some(name.to_owned());
                    }
                }
            }
            let before = metric.timestamps.len();
            append_run(ts, row..end, &mut metric.timestamps);
            value_column.append(row..end, &mut metric.values);
            match tags {
                Some(tags) if metric.tags.is_some() || (row..end).any(|r| tags.is_valid(r)) => {
                    tagged = true;
                    let kept = metric.tags.get_or_insert_with(|| vec![String::new(); before]);
                    kept.extend((row..end).map(|r| if tags.is_valid(r) { tags.value(r).to_owned() } else { String::new() }));
                }
                _ => {
                    if let Some(kept) = metric.tags.as_mut() {
                        kept.resize(before + end - row, String::new());
                    }
                }
            }
            row = end;
        }
    }
    Ok((metrics, tagged))
}

/// A column by name; a required one must have no null.
fn column<'b>(batch: &'b RecordBatch, name: &str, required: bool) -> Result<Option<&'b ArrayRef>> {
    let Some(array) = batch.column_by_name(name) else { return Ok(None) };
    if required && array.null_count() > 0 {
        return Err(Error::Schema(format!("column {name:?} holds nulls")));
    }
    Ok(Some(array))
}

fn missing(name: &str) -> Error {
    Error::Schema(format!("no column {name:?}"))
}

fn wrong_type(name: &str, want: &str) -> Error {
    Error::Schema(format!("column {name:?} is not {want}"))
}

/// The earliest timestamp, the blob's start time when none is given.
fn start<V>(metrics: &[Metric<V>], start_time: Option<i64>) -> i64 {
    start_time.unwrap_or_else(|| metrics.iter().flat_map(|m| m.timestamps.iter().copied()).min().unwrap_or(0))
}

/// The encoder calls [`encode`] makes, which the numeric and the text
/// encoder share but for the value type.
trait MetricEncoder<V> {
    fn start_metric_name(&mut self, name: &str, count: usize) -> mebo::Result<()>;
    fn start_metric_id(&mut self, id: u64, count: usize) -> mebo::Result<()>;
    fn add_points(&mut self, timestamps: &[i64], values: &[V], tags: Option<&[String]>) -> mebo::Result<()>;
    fn end_metric(&mut self) -> mebo::Result<()>;
    fn finish(&self) -> mebo::Result<Vec<u8>>;
}

macro_rules! metric_encoder {
    ($encoder:ty, $value:ty) => {
        impl MetricEncoder<$value> for $encoder {
            fn start_metric_name(&mut self, name: &str, count: usize) -> mebo::Result<()> {
                <$encoder>::start_metric_name(self, name, count)
            }
            fn start_metric_id(&mut self, id: u64, count: usize) -> mebo::Result<()> {
                <$encoder>::start_metric_id(self, id, count)
            }
            fn add_points(&mut self, timestamps: &[i64], values: &[$value], tags: Option<&[String]>) -> mebo::Result<()> {
                <$encoder>::add_points(self, timestamps, values, tags)
            }
            fn end_metric(&mut self) -> mebo::Result<()> {
                <$encoder>::end_metric(self)
            }
            fn finish(&self) -> mebo::Result<Vec<u8>> {
                <$encoder>::finish(self)
            }
        }
    };
}

metric_encoder!(NumericEncoder, f64);
metric_encoder!(TextEncoder, String);

/// The gathered metrics written by `encoder`, each by name where it has
/// one, with its tags when `tags`.
fn encode<V>(mut encoder: impl MetricEncoder<V>, metrics: &[Metric<V>], tags: bool) -> Result<Vec<u8>> {
    for m in metrics {
        match &m.name {
            Some(name) => encoder.start_metric_name(name, m.timestamps.len())?,
            None => encoder.start_metric_id(m.id, m.timestamps.len())?,
        }
        let empty;
        let tags = match (&m.tags, tags) {
            (_, false) => None,
            (Some(kept), true) => Some(kept.as_slice()),
            // A blob with tags, a metric without: the empty tag a point.
            (None, true) => {
                empty = vec![String::new(); m.timestamps.len()];
                Some(empty.as_slice())
            }
        };
        encoder.add_points(&m.timestamps, &m.values, tags)?;
        encoder.end_metric()?;
    }
    Ok(encoder.finish()?)
}

/// Batches of [`numeric_schema`](crate::numeric_schema) (`metric` and `tag`
/// may be absent) as one numeric blob. Tags are stored when `options.tags`
/// is set or a row has one (a null tag is stored as the empty tag). A
/// metric's name, where given, must hash to its id; it is written as a name.
pub fn batch_to_numeric(batches: &[RecordBatch], mut options: NumericEncoderOptions, start_time: Option<i64>) -> Result<Vec<u8>> {
    let (metrics, tagged) =
        gather(batches, |values| Ok(&values.as_primitive_opt::<Float64Type>().ok_or_else(|| wrong_type(VALUE, "Float64"))?.values()[..]))?;
    options.tags |= tagged;
    encode(NumericEncoder::new(start(&metrics, start_time), options), &metrics, options.tags)
}

/// Batches of [`text_schema`](crate::text_schema) as one text blob, as
/// [`batch_to_numeric`].
pub fn batch_to_text(batches: &[RecordBatch], mut options: TextEncoderOptions, start_time: Option<i64>) -> Result<Vec<u8>> {
    let (metrics, tagged) = gather(batches, |values| values.as_string_opt::<i32>().ok_or_else(|| wrong_type(VALUE, "Utf8")))?;
    options.tags |= tagged;
    encode(TextEncoder::new(start(&metrics, start_time), options)?, &metrics, options.tags)
}
