//! Placeholder: being written.
pub struct RawValues;
