//! Placeholder: being written.
pub struct DecodeLimits;
