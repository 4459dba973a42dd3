//! Placeholder: being written.
pub struct RawTimestamps;
