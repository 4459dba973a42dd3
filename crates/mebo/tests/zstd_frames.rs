//! Every zstd frame in the conformance vectors, re-encoded: our encoder must
//! write the reference's bytes (klauspost/compress at SpeedDefault).

mod common;

use common::{manifest, vectors_dir};
use mebo::Compression;

/// The zstd-compressed payloads of a blob, named.
fn zstd_frames(blob: &[u8]) -> Vec<(&'static str, &[u8])> {
    let flags = u16::from_le_bytes([blob[0], blob[1]]);
    let big_endian = flags & 0x2 != 0;
    let u32_at = |p: usize| {
        let b = [blob[p], blob[p + 1], blob[p + 2], blob[p + 3]];
        (if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }) as usize
    };
    let mut frames = Vec::new();
    match flags & 0xFFF0 {
        // Numeric: timestamp, value and tag payloads; the tag payload is always zstd.
        0xEA10 | 0xEA20 | 0xEA30 => {
            let (ts, values, tags) = (u32_at(20), u32_at(24), u32_at(28));
            if blob[3] & 0xF == 2 {
                frames.push(("timestamps", &blob[ts..values]));
            }
            if blob[3] >> 4 == 2 {
                frames.push(("values", &blob[values..tags]));
            }
            if flags & 0x1 != 0 {
                frames.push(("tags", &blob[tags..]));
            }
        }
        // Text: the data payload runs to the end of the blob.
        0xEB10 => {
            if blob[3] == 2 {
                frames.push(("text data", &blob[u32_at(20)..]));
            }
        }
        other => panic!("unknown magic {other:#x}"),
    }
    // The reference writes empty payloads as zero bytes, not as frames.
    frames.retain(|(_, f)| !f.is_empty());
    frames
}

#[test]
fn every_vector_frame_is_reproduced_byte_for_byte() {
    let mut compared = 0;
    let mut by_payload = std::collections::BTreeMap::<&str, usize>::new();
    for case in manifest() {
        let name = case["name"].as_str().unwrap();
        let blob = std::fs::read(vectors_dir().join(case["file"].as_str().unwrap())).unwrap();
        for (payload, frame) in zstd_frames(&blob) {
            let data = mebo::internals::decompress(Compression::Zstd, frame, 1 << 26, payload)
                .unwrap_or_else(|e| panic!("{name}: {payload}: {e}"));
            let ours = mebo::internals::compress(Compression::Zstd, &data).unwrap();
            assert!(
                ours.as_ref() == frame,
                "{name}: {payload} frame differs ({} input bytes; ours {} bytes, reference {}; first difference at {})",
                data.len(),
                ours.len(),
                frame.len(),
                ours.iter().zip(frame).position(|(a, b)| a != b).unwrap_or(ours.len().min(frame.len())),
            );
            compared += 1;
            *by_payload.entry(payload).or_default() += 1;
        }
    }
    println!("{compared} frames reproduced byte for byte: {by_payload:?}");
    assert_eq!(compared, 376, "{by_payload:?}");
}
