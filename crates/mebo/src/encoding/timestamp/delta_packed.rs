//! Placeholder: being written.
pub struct DeltaPackedTimestamps;
