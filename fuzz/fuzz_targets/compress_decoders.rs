//! One column decompressor over arbitrary bytes, with an output cap.
//!
//! Input: selector byte (codec = low bits mod 4), cap as u32 little endian
//! (at most 16 MiB), then the payload. Decompressing with an expected size
//! must give what decompressing without one gives. Output must never exceed
//! the cap, a payload that decompresses must re-compress and decompress to the
//! same bytes, and the payload itself, compressed, must decompress to itself
//! (the encoders, our zstd one included, over arbitrary input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::Compression;

fuzz_target!(|data: &[u8]| {
    let [selector, c0, c1, c2, c3, payload @ ..] = data else { return };
    let codec = Compression::ALL[usize::from(*selector) % Compression::ALL.len()];
    let cap = (u32::from_le_bytes([*c0, *c1, *c2, *c3]) as usize) % ((16 << 20) + 1);
    let packed = mebo::internals::compress(codec, payload).expect("compress");
    let back = mebo::internals::decompress(codec, &packed, payload.len(), "fuzz").expect("own output decompresses");
    assert_eq!(back.as_ref(), payload, "{codec:?} round trip of the input");
    // An expected size (the cap's high byte picks one) changes the path, never the result.
    let expected = match c3 % 4 {
        0 => None,
        1 => Some(cap),
        2 => Some(payload.len()),
        _ => Some(payload.len().saturating_mul(2)),
    };
    let plain = mebo::internals::decompress(codec, payload, cap, "fuzz");
    let sized = mebo::internals::decompress_expecting(codec, payload, cap, expected, "fuzz");
    assert_eq!(
        sized.as_ref().map_err(ToString::to_string),
        plain.as_ref().map_err(ToString::to_string),
        "{codec:?} expecting {expected:?}"
    );
    let Ok(out) = plain else { return };
    if codec != Compression::None {
        assert!(out.len() <= cap, "{codec:?}: {} bytes over the cap {cap}", out.len());
    }
    let packed = mebo::internals::compress(codec, &out).expect("compress");
    let back = mebo::internals::decompress(codec, &packed, out.len(), "fuzz").expect("own output decompresses");
    assert_eq!(back.as_ref(), out.as_ref(), "{codec:?} round trip");
});
