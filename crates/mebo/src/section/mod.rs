//! The sections of a blob, one module each, in the order they appear.

pub mod header;
pub mod index;
pub mod metric_names;
pub mod shared_timestamps;
pub mod tags;
