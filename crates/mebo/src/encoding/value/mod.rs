//! Value column encodings (float64, bit-exact).

pub mod alp;
pub mod chimp;
pub mod gorilla;
pub mod raw;
mod xor_stream;

pub use alp::AlpValues;
pub use chimp::ChimpValues;
pub use gorilla::GorillaValues;
pub use raw::RawValues;
