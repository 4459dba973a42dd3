//! LZ4 blocks (no frame, no size prefix, as the reference writes them).
//!
//! A block does not state its decoded size. When the blob implies it (a raw
//! column: 8 bytes a point; a text blob's data size) and that is at most twice
//! the block, the block is decoded into a buffer of that size straight away.
//! Otherwise, or when that fails, we walk its sequences once to add the size
//! up, check it against the cap, and then decode into one buffer of exactly
//! that size. The walk took as long as the decode itself on the bench's raw
//! timestamps (about 80 µs for 400 KB).

use crate::error::{Error, Result};

/// The most an expected size may exceed the block's own bytes for the
/// direct decode: the buffer is allocated before the block is known to fill
/// it, so a blob that claims many points over a small block must not size it
/// (a refused blob allocates at most about its own size; tests/allocation.rs).
/// Raw columns rarely compress further with LZ4 (the bench's timestamps 1.4×,
/// its values 1.0×); the others take the walk.
const MAX_EXPECTED_RATIO: usize = 2;

pub(super) fn decompress(data: &[u8], cap: usize, expected: Option<usize>, what: &'static str) -> Result<Vec<u8>> {
    if let Some(len) = expected.filter(|&len| len <= cap && len <= data.len().saturating_mul(MAX_EXPECTED_RATIO)) {
        let mut out = crate::limits::filled(len, 0u8, what)?;
        // Ok means the whole block decoded within `len` bytes (lz4_flex checks
        // every read and write); any error takes the walk below, which names it.
        if let Ok(written) = lz4_flex::block::decompress_into(data, &mut out) {
            out.truncate(written);
            return Ok(out);
        }
    }
    let fail = |detail: String| Error::Decompress { codec: "lz4", what, detail };
    let len = decoded_len(data, cap).ok_or_else(|| fail("malformed block".into()))?;
    if len > cap {
        return Err(Error::SizeCap { what, size: len as u64, cap: cap as u64 });
    }
    let mut out = crate::limits::filled(len, 0u8, what)?;
    let written = lz4_flex::block::decompress_into(data, &mut out).map_err(|e| fail(e.to_string()))?;
    if written != len {
        return Err(fail(format!("produced {written} of {len} bytes")));
    }
    Ok(out)
}

/// Sum of literal and match lengths of a block, or `None` if the block's
/// structure is broken. Stops counting once past `cap` (the result is then
/// only known to exceed it).
fn decoded_len(data: &[u8], cap: usize) -> Option<usize> {
    let mut pos = 0usize;
    let mut total = 0usize;
    let extended = |pos: &mut usize, mut n: usize| -> Option<usize> {
        loop {
            let b = *data.get(*pos)?;
            *pos += 1;
            n = n.checked_add(b as usize)?;
            if b != 255 {
                return Some(n);
            }
        }
    };
    loop {
        let token = *data.get(pos)?;
        pos += 1;
        let mut literals = (token >> 4) as usize;
        if literals == 15 {
            literals = extended(&mut pos, literals)?;
        }
        pos = pos.checked_add(literals)?;
        if pos > data.len() {
            return None;
        }
        total = total.checked_add(literals)?;
        if pos == data.len() {
            return Some(total); // the last sequence has literals only
        }
        pos = pos.checked_add(2)?; // match offset
        if pos > data.len() {
            return None;
        }
        let mut matched = (token & 0x0f) as usize;
        if matched == 15 {
            matched = extended(&mut pos, matched)?;
        }
        total = total.checked_add(matched + 4)?;
        if total > cap {
            return Some(total);
        }
    }
}

#[cfg(feature = "encode")]
pub(super) fn compress(data: &[u8]) -> Vec<u8> {
    lz4_flex::block::compress(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Timestamp-like words (small steps, as raw columns hold), then noise.
    fn samples() -> Vec<Vec<u8>> {
        let steps: Vec<u8> = (0..5000u64).flat_map(|i| (1_700_000_000_000_000 + i * 1_000_000 + (i * 7919) % 977).to_le_bytes()).collect();
        let noise = crate::test_support::noise(0x9E37_79B9_7F4A_7C15, 20_000);
        vec![steps, noise, vec![7; 100], vec![1]]
    }

    /// With any expected size (right, short, long, past the ratio, none), a
    /// block decodes to what the walk decodes, and a broken one fails with
    /// the walk's error.
    #[test]
    fn an_expected_size_changes_nothing_but_the_path() {
        for data in samples() {
            let block = lz4_flex::block::compress(&data);
            let n = data.len();
            let walked = decompress(&block, 1 << 24, None, "test").unwrap();
            assert_eq!(walked, data);
            for expected in [Some(n), Some(n - 1), Some(n + 1), Some(0), Some(block.len() * 2 + 1), Some(usize::MAX)] {
                assert_eq!(decompress(&block, 1 << 24, expected, "test").unwrap(), data, "expected {expected:?}");
                // Above the cap: refused as without an expected size.
                let capped = decompress(&block, n - 1, expected, "test").unwrap_err();
                assert_eq!(capped.to_string(), decompress(&block, n - 1, None, "test").unwrap_err().to_string());
            }
            for cut in [1, block.len() / 3, block.len() - 1] {
                let broken = &block[..cut];
                let want = decompress(broken, 1 << 24, None, "test").map_err(|e| e.to_string());
                assert_eq!(decompress(broken, 1 << 24, Some(n), "test").map_err(|e| e.to_string()), want, "cut at {cut}");
            }
        }
    }
}
