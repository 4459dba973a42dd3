//! The long schema shared by every blob of a kind.

use std::sync::{Arc, OnceLock};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use mebo::BlobKind;

/// Column name: the metric's id.
pub const METRIC_ID: &str = "metric_id";
/// Column name: the metric's name, where the blob stores names.
pub const METRIC: &str = "metric";
/// Column name: the point's timestamp.
pub const TS: &str = "ts";
/// Column name: the point's value.
pub const VALUE: &str = "value";
/// Column name: the point's tag, where the blob has tags.
pub const TAG: &str = "tag";

/// The type of `ts`: microseconds since the epoch, UTC.
pub(crate) fn ts_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

fn schema(value: DataType) -> Schema {
    Schema::new(vec![
        Field::new(METRIC_ID, DataType::UInt64, false),
        Field::new(METRIC, DataType::Utf8, true),
        Field::new(TS, ts_type(), false),
        Field::new(VALUE, value, false),
        Field::new(TAG, DataType::Utf8, true),
    ])
}

/// The schema of numeric blobs: `value` is Float64.
pub fn numeric_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA.get_or_init(|| Arc::new(schema(DataType::Float64))).clone()
}

/// The schema of text blobs: `value` is Utf8.
pub fn text_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA.get_or_init(|| Arc::new(schema(DataType::Utf8))).clone()
}

/// The schema of a kind of blob.
pub fn schema_of(kind: BlobKind) -> SchemaRef {
    match kind {
        BlobKind::Numeric => numeric_schema(),
        BlobKind::Text => text_schema(),
    }
}

/// The columns of both schemas, in order.
pub const COLUMNS: [&str; 5] = [METRIC_ID, METRIC, TS, VALUE, TAG];
