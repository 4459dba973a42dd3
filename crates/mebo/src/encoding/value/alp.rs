//! Placeholder: being written.
pub struct AlpValues;
