//! Placeholder: being written.
pub struct GorillaValues;
