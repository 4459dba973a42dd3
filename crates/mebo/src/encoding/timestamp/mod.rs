//! Timestamp column encodings (int64 microseconds).

pub mod delta;
pub mod delta_packed;
pub mod raw;

pub use delta::DeltaTimestamps;
pub use delta_packed::DeltaPackedTimestamps;
pub use raw::RawTimestamps;
