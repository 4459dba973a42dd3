//! Value column encodings (float64, bit-exact).

pub mod alp;
pub mod chimp;
pub mod gorilla;
pub mod raw;
mod xor_stream;

pub use xor_stream::allow_bmi2 as allow_xor_bmi2;

pub use alp::AlpValues;
pub use chimp::ChimpValues;
pub use gorilla::GorillaValues;
pub use raw::RawValues;
