//! A stream of blobs from arbitrary bytes: its frames, each opened as the
//! blob it holds and read through every accessor (crates/mebo/tests/exercise).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::stream::{write_stream, Frames};

#[path = "../../crates/mebo/tests/exercise/mod.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let limits = mebo::DecodeLimits { max_decompressed_bytes: 16 << 20, max_points: 1 << 20 };
    let Ok(frames) = Frames::new(data) else {
        assert!(!mebo::stream::is_stream(data));
        return;
    };
    let mut whole = Vec::new();
    let mut failed = false;
    for frame in frames.with_max_blob_bytes(1 << 16) {
        assert!(!failed, "a frame after an error");
        match frame {
            Ok(blob) => {
                let _ = exercise::any_blob(blob, &limits);
                whole.push(blob);
            }
            Err(e) => {
                assert!(matches!(e.code(), "TRUNCATED" | "SIZE_CAP"), "{e}");
                failed = true;
            }
        }
    }
    // The whole frames, framed again, are the stream's bytes up to where they end.
    let again = write_stream(whole.iter().copied()).unwrap();
    assert_eq!(&data[..again.len()], &again[..]);
    assert_eq!(failed, again.len() < data.len());
});
