//! A stream of blobs from arbitrary bytes: its frames, each opened as the
//! blob it holds and read through every accessor (crates/mebo/tests/exercise);
//! the same bytes read as they arrive, in chunks the input sizes, give the
//! same blobs and end the same way.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::stream::{write_stream, Frames, StreamReader};

#[path = "../../crates/mebo/tests/exercise/mod.rs"]
mod exercise;

const MAX_BLOB_BYTES: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let limits = mebo::DecodeLimits { max_decompressed_bytes: 16 << 20, max_points: 1 << 20 };
    let arrived = as_it_arrives(data, 1 + data.first().map_or(0, |b| usize::from(b % 13)));
    let frames = match Frames::new(data) {
        Ok(frames) => frames,
        Err(e) => {
            assert!(!mebo::stream::is_stream(data));
            assert!(arrived.0.is_empty());
            assert_eq!(arrived.1.map_err(|e| e.code()), Err(e.code()));
            return;
        }
    };
    let mut whole = Vec::new();
    let mut end = Ok(());
    for frame in frames.with_max_blob_bytes(MAX_BLOB_BYTES) {
        assert!(end.is_ok(), "a frame after an error");
        match frame {
            Ok(blob) => {
                let _ = exercise::any_blob(blob, &limits);
                whole.push(blob);
            }
            Err(e) => {
                assert!(matches!(e.code(), "TRUNCATED" | "SIZE_CAP"), "{e}");
                end = Err(e);
            }
        }
    }
    // The whole frames, framed again, are the stream's bytes up to where they end.
    let again = write_stream(whole.iter().copied()).unwrap();
    assert_eq!(&data[..again.len()], &again[..]);
    assert_eq!(end.is_err(), again.len() < data.len());
    assert_eq!(arrived.0, whole);
    assert_eq!(arrived.1, end);
});

/// The blobs a `StreamReader` takes from `data` pushed `step` bytes at a
/// time, and how it ends.
fn as_it_arrives(data: &[u8], step: usize) -> (Vec<Vec<u8>>, mebo::Result<()>) {
    let mut reader = StreamReader::new().with_max_blob_bytes(MAX_BLOB_BYTES);
    let mut blobs = Vec::new();
    for chunk in data.chunks(step) {
        reader.push(chunk);
        loop {
            match reader.next_blob() {
                Ok(Some(blob)) => blobs.push(blob),
                Ok(None) => break,
                Err(e) => return (blobs, Err(e)),
            }
        }
        // Never more than a frame and a chunk held.
        assert!(reader.held() <= 4 + MAX_BLOB_BYTES + step);
    }
    let end = reader.finish();
    (blobs, end)
}
