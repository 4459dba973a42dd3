//! # mebo-arrow
//!
//! mebo blobs as Arrow record batches (arrow-rs), and record batches back
//! into blobs. Every blob of a kind has one long schema, one row a point:
//!
//! | column | type | |
//! |---|---|---|
//! | `metric_id` | UInt64 | the metric's id (xxHash64 of its name) |
//! | `metric` | Utf8, nullable | the name where the blob stores names, else null |
//! | `ts` | Timestamp(Microsecond, "UTC") | the point's timestamp, the blob's int64 as is |
//! | `value` | Float64 (numeric) or Utf8 (text) | the point's value, floats by bits |
//! | `tag` | Utf8, nullable | the point's tag where the blob has tags, else null |
//!
//! The decoded timestamp and float columns become the Arrow buffers as they
//! are ([`Buffer::from_vec`]): no copy per point. A text blob's strings
//! become one value buffer the same way.
//!
//! [`Buffer::from_vec`]: arrow::buffer::Buffer::from_vec

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod id_map;
mod read;
mod schema;
mod write;

pub use error::{Error, Result};
pub use id_map::{IdHasher, IdMap};
pub use read::{index_batch, numeric_batch, text_batch, Columns, Selection};
pub use schema::{numeric_schema, schema_of, text_schema, COLUMNS, METRIC, METRIC_ID, TAG, TS, VALUE};
pub use write::{batch_to_numeric, batch_to_text};
