//! The zstd part's decoder (crates/mebo-zstd) against libzstd.
//!
//! Input: cap as u32 little endian (at most 16 MiB), then the payload.
//! Never a panic; output only within the cap and only where libzstd decodes
//! the same bytes; where libzstd decodes within the cap, the same bytes too,
//! but for the refusals the part has and libzstd's one-shot decoder does
//! not: a window past what the cap can use, a raw or RLE block larger than
//! the frame's window (the format's Block_Maximum_Size), and a Huffman
//! stream whose last code reads past the stream's start (libzstd's
//! double-symbol decoder lets it pass; the format and its single-symbol
//! decoder do not).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo_zstd::frames::{decompress, Error, Failure};

fuzz_target!(|data: &[u8]| {
    let [c0, c1, c2, c3, payload @ ..] = data else { return };
    let cap = (u32::from_le_bytes([*c0, *c1, *c2, *c3]) as usize) % ((16 << 20) + 1);
    let ours = decompress(payload, cap).map(|out| out.as_slice().to_vec());
    let theirs = zstd::bulk::decompress(payload, cap).ok();
    match ours {
        Ok(out) => {
            assert!(out.len() <= cap, "{} bytes over the cap {cap}", out.len());
            assert_eq!(theirs.as_ref(), Some(&out), "decoded where libzstd does not, or differently");
        }
        Err(Error {
            failure:
                Failure::Corrupt(b"frame window larger than the cap allows" | b"block larger than its maximum size" | b"Huffman stream not consumed exactly"),
            ..
        }) => {}
        // libzstd decodes no bytes to nothing; the part refuses them.
        Err(_) if payload.is_empty() => {}
        Err(e) => assert!(theirs.is_none(), "{e:?} where libzstd decodes {} bytes", theirs.map_or(0, |v| v.len())),
    }
});
