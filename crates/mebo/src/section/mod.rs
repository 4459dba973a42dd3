//! The sections of a blob, one module each, numeric and text side by side:
//! the flag word both kinds start with, each kind's header and index, the
//! metric-names payload both kinds share, and the numeric blobs' shared-
//! timestamp table and tag columns.

pub mod flags;
pub mod metric_names;
pub mod numeric_header;
pub mod numeric_index;
pub mod shared_timestamps;
pub mod tags;
pub mod text_header;
pub mod text_index;
