//! Open a text blob from arbitrary bytes and decode everything through every
//! accessor (see crates/mebo/tests/exercise).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/mebo/tests/exercise/mod.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let limits = mebo::DecodeLimits { max_decompressed_bytes: 16 << 20, max_points: 1 << 20 };
    let _ = exercise::text(data, &limits);
});
