//! Placeholder: being written.
pub struct ChimpValues;
