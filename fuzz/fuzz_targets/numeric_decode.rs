//! Open a numeric blob from arbitrary bytes and decode everything through every
//! accessor (see crates/mebo/tests/exercise). Any panic, including a decoder
//! contradicting itself, is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/mebo/tests/exercise/mod.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    // Lower caps than the defaults keep each run small (a blob may legitimately
    // claim up to max_points points, and decode_all allocates 16 bytes each).
    let limits = mebo::DecodeLimits { max_decompressed_bytes: 16 << 20, max_points: 1 << 20 };
    let _ = exercise::numeric(data, &limits);
});
