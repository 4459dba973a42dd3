//! # mebo-datafusion
//!
//! SQL over files and buckets of mebo blobs with DataFusion: one `.mebo`
//! file is one blob, one `.mbs` file a stream of blobs, a table is a
//! directory, a glob or a single file on any `object_store`, with the long schema of `mebo-arrow` (`metric_id`,
//! `metric`, `ts`, `value`, `tag`).
//!
//! ```text
//! CREATE EXTERNAL TABLE cpu STORED AS MEBO LOCATION 'blobs/';
//! SELECT metric_id, avg(value) FROM cpu WHERE metric_id = mebo_id('cpu.user') GROUP BY 1;
//! ```
//!
//! What the format gives the scan: `count(*)` from each blob's index (exact
//! file statistics, and an empty projection reads no column); only the
//! projected columns decoded; `metric_id = …` / `IN (…)` decoding only those
//! metrics; a `ts` range skipping the values of metrics whose timestamps
//! fall outside it; files spread over `target_partitions`, whole.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod cluster;
mod conform;
mod error;
mod format;
mod heads;
mod opener;
mod options;
mod pushdown;
mod run;
mod scan;
mod session;
mod sink;
mod source;
mod store;
mod stream_scan;
mod table;
mod udf;

/// The extension of a blob file: a directory's table lists these.
pub(crate) const EXTENSION: &str = "mebo";

/// The extension of a file holding a stream of blobs: `COPY … TO 'x.mbs'`
/// writes one. A table reads one named as its location, or by a glob.
pub(crate) const STREAM_EXTENSION: &str = "mbs";

pub use error::FileError;
pub use format::{MeboFormat, MeboFormatFactory};
pub use options::{MeboOptions, WriteOptions, DEFAULT_MAX_POINTS_PER_BLOB};
pub use pushdown::ScanFilter;
pub use run::{query, query_all, run_statements, scan_counter, OutputFormat, QueryResult};
pub use session::{enable_mebo_on, mebo_session_config, MeboContextExt};
pub use source::{MeboSource, SCAN_METRICS};
pub use store::{register_s3_store, StoresFromEnv};
pub use table::{MeboTable, MeboTableFactory};
pub use udf::{mebo_id_udf, MeboId};
