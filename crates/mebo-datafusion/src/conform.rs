//! The rows a query gives `COPY … TO` or `INSERT INTO` as the long schema
//! of their kind of blob: the columns named as a table of blobs names
//! them, of any type that converts without loss.
//!
//! | column | takes |
//! |---|---|
//! | `metric_id` | any integer type, no negative; absent: the xxHash64 of `metric` |
//! | `metric` | any string type (null: the metric is written by id) |
//! | `ts` | a timestamp of any unit (nanoseconds only where whole microseconds) |
//! | `value` | numeric blobs: Float64, Float32, Float16, integers up to 32 bits; text blobs: any string type |
//! | `tag` | any string type |
//!
//! A 64-bit integer or a decimal `value` is refused rather than rounded;
//! `CAST(value AS DOUBLE)` says the rounding is wanted.

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef, AsArray, RecordBatch, StringArray, UInt64Array};
use arrow::compute::kernels::cast::{cast_with_options, CastOptions};
use arrow::datatypes::{
    DataType, Schema, SchemaRef, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use datafusion::common::{exec_datafusion_err, plan_datafusion_err, Result};
use mebo::BlobKind;
use mebo_arrow::{COLUMNS, METRIC, METRIC_ID, TAG, TS, VALUE};

/// A partition column is a directory's, never one of the blob's: a blob's
/// column moved into directories would read back twice.
pub(crate) fn check_partition_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<()> {
    match names.into_iter().find(|name| COLUMNS.contains(name)) {
        Some(name) => Err(plan_datafusion_err!(
            "{name} is a column of the blob, not of a directory: partition by a column of another name \
             (SELECT …, {name} AS series … PARTITIONED BY (series))"
        )),
        None => Ok(()),
    }
}

/// Where each column of the written schema comes from in the query's rows.
#[derive(Debug, Clone)]
pub(crate) struct Conform {
    kind: BlobKind,
    metric_id: Option<usize>,
    metric: Option<usize>,
    ts: usize,
    value: usize,
    tag: Option<usize>,
}

/// Nothing may be lost, and an error is an error, not a null.
const EXACT: CastOptions<'static> = CastOptions { safe: false, format_options: arrow::util::display::FormatOptions::new() };

fn is_string(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_string(values),
        _ => false,
    }
}

fn is_exact_float(t: &DataType) -> bool {
    use DataType::*;
    matches!(t, Float64 | Float32 | Float16 | Int8 | Int16 | Int32 | UInt8 | UInt16 | UInt32)
}

impl Conform {
    /// How rows of `input` are written, or why they cannot be: checked when
    /// the statement is planned, before a file is written. `kind`: the
    /// table's, else the `value` column's type decides.
    pub(crate) fn new(input: &Schema, kind: Option<BlobKind>) -> Result<Conform> {
        let find = |name: &str| input.index_of(name).ok();
        let unknown: Vec<&str> = input.fields().iter().map(|f| f.name().as_str()).filter(|n| !COLUMNS.contains(n)).collect();
        if !unknown.is_empty() {
            return Err(plan_datafusion_err!(
                "a blob stores the columns metric_id, metric, ts, value and tag; the rows also have {}: \
                 leave them out, or fold them into the metric name or the tag",
                unknown.join(", ")
            ));
        }
        let required = |name: &str, hint: &str| find(name).ok_or_else(|| plan_datafusion_err!("the rows have no {name} column: {hint}"));
        let ts = required(TS, "name the timestamp column ts")?;
        let value = required(VALUE, "name the value column value")?;
        let (metric_id, metric) = (find(METRIC_ID), find(METRIC));
        if metric_id.is_none() && metric.is_none() {
            return Err(plan_datafusion_err!("the rows have neither metric_id nor metric: name the metric's column metric"));
        }
        let type_of = |i: usize| input.field(i).data_type();
        let value_type = type_of(value);
        let kind = kind.unwrap_or(if is_string(value_type) { BlobKind::Text } else { BlobKind::Numeric });
        match kind {
            BlobKind::Numeric if !is_exact_float(value_type) => {
                return Err(plan_datafusion_err!(
                    "value is {value_type}, which a numeric blob's Float64 does not hold exactly: \
                     CAST(value AS DOUBLE) if rounding is wanted"
                ))
            }
            BlobKind::Text if !is_string(value_type) => {
                return Err(plan_datafusion_err!("value is {value_type}, not a string, in a table of text blobs"))
            }
            _ => {}
        }
        if let Some(i) = metric_id {
            if !type_of(i).is_integer() {
                return Err(plan_datafusion_err!("metric_id is {}, not an integer", type_of(i)));
            }
        }
        for (name, at) in [(METRIC, metric), (TAG, find(TAG))] {
            if let Some(i) = at.filter(|&i| !is_string(type_of(i))) {
                return Err(plan_datafusion_err!("{name} is {}, not a string", type_of(i)));
            }
        }
        if !matches!(type_of(ts), DataType::Timestamp(..)) {
            return Err(plan_datafusion_err!(
                "ts is {}, not a timestamp: to_timestamp_micros(ts) reads integers as microseconds",
                type_of(ts)
            ));
        }
        Ok(Conform { kind, metric_id, metric, ts, value, tag: find(TAG) })
    }

    /// The kind of blob the rows make.
    pub(crate) fn kind(&self) -> BlobKind {
        self.kind
    }

    /// The schema of what [`batch`](Self::batch) gives.
    pub(crate) fn schema(&self) -> SchemaRef {
        mebo_arrow::schema_of(self.kind)
    }

    /// `batch` in the schema of its kind of blob.
    pub(crate) fn batch(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let string = |at: Option<usize>| -> Result<ArrayRef> {
            match at {
                Some(i) => Ok(cast_with_options(batch.column(i), &DataType::Utf8, &EXACT)?),
                None => Ok(new_null_array(&DataType::Utf8, rows)),
            }
        };
        let metric = string(self.metric)?;
        let metric_id: ArrayRef = match self.metric_id {
            Some(i) => {
                no_nulls(batch.column(i), METRIC_ID, "")?;
                cast_with_options(batch.column(i), &DataType::UInt64, &EXACT)
                    .map_err(|e| exec_datafusion_err!("metric_id: {e} (an id is the name's xxHash64, never negative)"))?
            }
            None => {
                let names = metric.as_string::<i32>();
                no_nulls(names, METRIC, ", and the rows have no metric_id")?;
                Arc::new(names.iter().map(|n| n.map(mebo::metric_id)).collect::<UInt64Array>())
            }
        };
        no_nulls(batch.column(self.ts), TS, "")?;
        let ts = micros(batch.column(self.ts))?;
        let value = batch.column(self.value);
        no_nulls(value, VALUE, ": filter them out (WHERE value IS NOT NULL) or replace them (COALESCE)")?;
        let value = match self.kind {
            BlobKind::Numeric => cast_with_options(value, &DataType::Float64, &EXACT)?,
            BlobKind::Text => cast_with_options(value, &DataType::Utf8, &EXACT)?,
        };
        let tag = string(self.tag)?;
        Ok(RecordBatch::try_new(self.schema(), vec![metric_id, metric, ts, value, tag])?)
    }
}

fn no_nulls(array: &dyn Array, name: &str, hint: &str) -> Result<()> {
    match array.null_count() {
        0 => Ok(()),
        n => Err(exec_datafusion_err!("{name} holds {n} null(s), which a blob cannot store{hint}")),
    }
}

/// A timestamp column of any unit in microseconds, UTC.
fn micros(array: &ArrayRef) -> Result<ArrayRef> {
    let DataType::Timestamp(unit, _) = array.data_type() else {
        return Err(exec_datafusion_err!("ts is {}, not a timestamp", array.data_type()));
    };
    let overflow = |v: i64, unit: &str| exec_datafusion_err!("ts {v} {unit} is past the range of int64 microseconds");
    let us = match unit {
        TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().clone(),
        TimeUnit::Millisecond => array
            .as_primitive::<TimestampMillisecondType>()
            .try_unary::<_, TimestampMicrosecondType, _>(|v| v.checked_mul(1_000).ok_or_else(|| overflow(v, "ms")))?,
        TimeUnit::Second => array
            .as_primitive::<TimestampSecondType>()
            .try_unary::<_, TimestampMicrosecondType, _>(|v| v.checked_mul(1_000_000).ok_or_else(|| overflow(v, "s")))?,
        TimeUnit::Nanosecond => {
            array.as_primitive::<TimestampNanosecondType>().try_unary::<_, TimestampMicrosecondType, _>(|v| match v % 1_000 {
                0 => Ok(v / 1_000),
                _ => Err(exec_datafusion_err!(
                    "ts {v} ns is not a whole microsecond, what a blob stores: date_trunc('microsecond', ts) rounds it"
                )),
            })?
        }
    };
    Ok(Arc::new(us.with_timezone("UTC")))
}

/// The `metric` column of a conformed batch.
pub(crate) fn names(batch: &RecordBatch) -> &StringArray {
    batch.column(1).as_string::<i32>()
}

/// The `metric_id` column of a conformed batch.
pub(crate) fn ids(batch: &RecordBatch) -> &UInt64Array {
    batch.column(0).as_primitive()
}
