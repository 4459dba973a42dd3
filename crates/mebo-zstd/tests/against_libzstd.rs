//! The decoder against libzstd (the `zstd` crate): the same bytes for every
//! frame libzstd writes or meets in the repository's blobs, and on hostile
//! input never a panic, and `Ok` only with libzstd's own output.

use mebo_zstd::frames::{decompress, Failure};
use proptest::prelude::*;
use zstd::zstd_safe::{CCtx, CParameter};

/// Cap for the hostile inputs: far above any test frame's content.
const CAP: usize = 64 << 20;

fn ours(data: &[u8], cap: usize) -> Result<Vec<u8>, Failure> {
    decompress(data, cap).map(|out| out.as_slice().to_vec()).map_err(|e| e.failure)
}

/// libzstd's one-shot decoder (every frame, skippable ones skipped).
fn libzstd(data: &[u8], cap: usize) -> Option<Vec<u8>> {
    zstd::bulk::decompress(data, cap).ok()
}

struct Options {
    level: i32,
    checksum: bool,
    content_size: bool,
    window_log: Option<u32>,
}

fn compress(data: &[u8], o: &Options) -> Vec<u8> {
    let mut cctx = CCtx::create();
    cctx.set_parameter(CParameter::CompressionLevel(o.level)).unwrap();
    cctx.set_parameter(CParameter::ChecksumFlag(o.checksum)).unwrap();
    cctx.set_parameter(CParameter::ContentSizeFlag(o.content_size)).unwrap();
    if let Some(log) = o.window_log {
        cctx.set_parameter(CParameter::WindowLog(log)).unwrap();
    }
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(data.len()));
    cctx.compress2(&mut out, data).unwrap();
    out
}

fn level(level: i32) -> Options {
    Options { level, checksum: false, content_size: true, window_log: None }
}

/// Decodes to `expected`, as libzstd does.
fn check(frame: &[u8], expected: &[u8]) {
    assert_eq!(libzstd(frame, expected.len()).as_deref(), Some(expected), "libzstd itself");
    match ours(frame, expected.len()) {
        Ok(out) => assert!(out == expected, "output differs from libzstd's ({} bytes against {})", out.len(), expected.len()),
        Err(e) => panic!("{e:?} where libzstd decodes {} bytes", expected.len()),
    }
}

/// Compressible test data: words and runs from a seed.
fn sample(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let words: [&[u8]; 8] = [b"cpu.usage", b"host=a,", b"dc=eu-west;", b"\x00\x00\x00\x01", b"value", b"ok", b"down", b"1700000000"];
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let r = next();
        match r % 10 {
            0..=5 => out.extend_from_slice(words[(r >> 8) as usize % 8]),
            6 => out.extend(std::iter::repeat_n((r >> 16) as u8, (r >> 24) as usize % 300)),
            _ => out.extend_from_slice(&r.to_le_bytes()[..(r >> 40) as usize % 8]),
        }
    }
    out.truncate(len);
    out
}

/// Every zstd frame inside the blobs of `dir` (found by its magic number,
/// delimited by libzstd): decoded as libzstd decodes it.
fn blob_frames(dir: &std::path::Path) -> usize {
    let mut seen = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("blobs")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        let blob = std::fs::read(&path).unwrap();
        for at in 0..blob.len().saturating_sub(4) {
            if blob[at..at + 4] != [0x28, 0xb5, 0x2f, 0xfd] {
                continue;
            }
            let Ok(len) = zstd::zstd_safe::find_frame_compressed_size(&blob[at..]) else { continue };
            let frame = &blob[at..at + len];
            let Ok(expected) = zstd::stream::decode_all(frame) else { continue };
            check(frame, &expected);
            seen += 1;
        }
    }
    seen
}

#[test]
fn every_zstd_payload_of_the_vectors_and_the_bench() {
    let vectors = blob_frames(&mebo_testdata::vectors_dir());
    let bench = blob_frames(&mebo_testdata::bench_dir());
    eprintln!("{vectors} frames in the vectors, {bench} in the bench");
    assert!(vectors >= 376, "{vectors}");
    assert!(bench >= 9, "{bench}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn libzstd_frames_at_every_level(seed: u64, len in 0usize..200_000, level in prop::sample::select(vec![1, 3, 9, 19]), checksum: bool, content_size: bool) {
        let data = sample(seed, len);
        check(&compress(&data, &Options { level, checksum, content_size, window_log: None }), &data);
    }

    #[test]
    fn random_bytes_in_raw_blocks(data in prop::collection::vec(any::<u8>(), 0..5000)) {
        check(&compress(&data, &level(3)), &data);
    }
}

#[test]
fn empty_input_and_empty_frames() {
    assert_eq!(ours(&[], 100), Err(Failure::Corrupt(b"bad frame header")));
    for checksum in [false, true] {
        for content_size in [false, true] {
            let frame = compress(&[], &Options { level: 3, checksum, content_size, window_log: None });
            check(&frame, &[]);
        }
    }
}

#[test]
fn several_frames_and_skippable_frames() {
    let a = sample(1, 50_000);
    let b = sample(2, 3000);
    let mut data = compress(&a, &level(19));
    data.extend_from_slice(&[0x5f, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
    data.extend(compress(&b, &Options { level: 1, checksum: true, content_size: false, window_log: None }));
    data.extend(compress(&[], &level(3)));
    let mut skippable_first = vec![0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0];
    skippable_first.extend_from_slice(&data);
    let expected = [a, b].concat();
    check(&data, &expected);
    check(&skippable_first, &expected);
    // A skippable frame alone decodes to nothing; cut short it is an error.
    check(&[0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 7], &[]);
    assert!(ours(&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 7], 100).is_err());
}

#[test]
fn large_outputs_past_the_window_rle_and_raw_blocks() {
    // Many blocks, matches reaching back across them, a window smaller than
    // the output (no content size: the window bounds the decoder).
    let data = sample(7, 3 << 20);
    for window_log in [10, 17, 20] {
        for content_size in [false, true] {
            check(&compress(&data, &Options { level: 3, checksum: true, content_size, window_log: Some(window_log) }), &data);
        }
    }
    check(&compress(&data, &level(19)), &data);
    // One byte repeated: RLE blocks.
    let run = vec![7u8; 1 << 20];
    let frame = compress(&run, &level(3));
    assert!(frame.len() < 100, "{}", frame.len());
    check(&frame, &run);
    // Incompressible: raw blocks.
    let noise: Vec<u8> = (0..400_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    check(&compress(&noise, &level(3)), &noise);
}

#[test]
fn caps_and_declared_sizes_are_checked() {
    let data = sample(3, 200_000);
    let frame = compress(&data, &level(3));
    assert_eq!(ours(&frame, data.len() - 1), Err(Failure::SizeCap(data.len() as u64)));
    // Without a content size the output stops at the cap, the size reported
    // at the end of the 64 KiB chunk (from the frame's start) that passed it.
    let streamed = compress(&data, &Options { level: 3, checksum: false, content_size: false, window_log: None });
    assert_eq!(ours(&streamed, 100_000), Err(Failure::SizeCap(128 << 10)));
    assert_eq!(ours(&streamed, 196_607), Err(Failure::SizeCap(196_608)));
    assert_eq!(ours(&streamed, 196_608), Err(Failure::SizeCap(200_000)));
    assert_eq!(ours(&streamed, 200_000).as_deref(), Ok(&data[..]));
}

/// Hostile input: no panic, and `Ok` only with libzstd's output. (libzstd
/// also decodes some frames this decoder refuses: a Huffman stream whose
/// last code reads past the stream's start, which its double-symbol decoder
/// lets pass, and windows past the cap's limit and raw or RLE blocks larger
/// than the window, which its one-shot decoder does not check.) Whether the
/// decoder decoded the input.
fn hostile(data: &[u8]) -> bool {
    let expected = libzstd(data, CAP);
    let Ok(out) = ours(data, CAP) else { return false };
    assert_eq!(Some(&out), expected.as_ref(), "decoded where libzstd does not, or differently");
    true
}

fn hostile_samples() -> Vec<Vec<u8>> {
    let a = sample(11, 20_000);
    vec![
        compress(&a, &level(1)),
        compress(&a, &Options { level: 19, checksum: true, content_size: false, window_log: None }),
        compress(&sample(12, 700), &level(9)),
        compress(&[5; 3000], &level(3)),
    ]
}

#[test]
fn truncations_at_every_length() {
    for frame in hostile_samples() {
        for len in 0..frame.len() {
            assert!(ours(&frame[..len], CAP).is_err(), "cut at {len} of {}", frame.len());
            hostile(&frame[..len]);
        }
    }
}

#[test]
fn byte_flips_over_valid_frames() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut decoded = 0;
    for frame in hostile_samples() {
        for _ in 0..3000 {
            let mut data = frame.clone();
            for _ in 0..1 + state % 3 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let at = (state >> 33) as usize % data.len();
                data[at] ^= 1 << ((state >> 20) % 8);
            }
            decoded += usize::from(hostile(&data));
        }
    }
    // Flips in raw literals (no checksum) still decode, as libzstd's do.
    assert!(decoded > 100, "{decoded}");
}
