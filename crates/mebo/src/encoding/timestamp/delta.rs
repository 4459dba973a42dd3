//! Placeholder: being written.
pub struct DeltaTimestamps;
