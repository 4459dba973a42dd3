//! # mebo-series
//!
//! Chart-ready reads of one decoded series (`i64` microsecond timestamps and
//! `f64` values, as the `mebo` crate decodes them): the points of a time
//! range ([`Selection`]), and decimation to a screen's resolution
//! ([`decimate`]: M4 min/max buckets or LTTB).
//!
//! Pure functions over decoded columns: the wasm bindings (`mebo-wasm`) only
//! convert their arguments and results, so everything here is tested
//! natively. The one SIMD kernel (the extremes of an M4 bucket, simd128 in
//! wasm) is written once over a two-lane type ([`extremes`]), which native
//! tests run through a portable lane type beside the scalar twin
//! ([`Kernel`]).

#![warn(missing_docs)]

mod decimate;
mod extremes;
mod lttb;
mod m4;
mod order;
mod range;
mod time;

pub use decimate::{decimate, decimate_with, Decimated, Method};
pub use extremes::Kernel;
pub use range::Selection;
pub use time::micros_to_millis;

/// Deterministic inputs for the randomized tests.
#[cfg(test)]
mod testing {
    /// A small deterministic generator (xorshift64).
    pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }
}
