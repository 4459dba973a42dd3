//! Column encodings: how one metric's timestamps, values or tags become bytes.
//!
//! Every codec works on one metric's column at a time: `encode` appends the
//! column to a buffer, `decode` fills a caller's slice of exactly the metric's
//! point count and fails (never panics) on a malformed or short stream.

pub mod bitstream;
pub mod timestamp;
pub mod value;
pub mod varint;
