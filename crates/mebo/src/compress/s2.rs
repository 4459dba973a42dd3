//! S2 blocks (klauspost's Snappy extension): a uvarint of the decoded length,
//! then literal and copy elements.
//!
//! The stated length is only a claim: the elements are walked once to add
//! up what they produce, and a block whose elements do not produce its claim
//! is refused before a buffer of the claimed size is allocated.

use crate::error::{Error, Result};

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
    let fail = |e: minlz::Error| Error::Decompress { codec: "s2", what, detail: e.to_string() };
    let (len, header) = minlz::decode_len(data).map_err(fail)?;
    if len > cap {
        return Err(Error::SizeCap { what, size: len as u64, cap: cap as u64 });
    }
    match data.get(header..).and_then(|elements| produced_len(elements, len)) {
        Some(produced) if produced == len => {}
        produced => {
            let detail = match produced {
                Some(n) => format!("the block states {len} bytes, its elements produce {n}"),
                None => "malformed block".into(),
            };
            return Err(Error::Decompress { codec: "s2", what, detail });
        }
    }
    let mut out = crate::limits::filled(len, 0u8, what)?;
    let written = minlz::decode_into(&mut out, data).map_err(fail)?;
    if written != len {
        return Err(Error::Decompress { codec: "s2", what, detail: format!("produced {written} of {len} bytes") });
    }
    Ok(out)
}

/// Bytes the elements of a block produce (literal and copy lengths added up,
/// as minlz's decoder reads them), or `None` when an element is cut short.
/// Stops once past `most` (the result then only exceeds it).
fn produced_len(src: &[u8], most: usize) -> Option<usize> {
    let byte = |i: usize| src.get(i).map(|&b| b as usize);
    let le = |from: usize, n: usize| -> Option<usize> { (0..n).try_fold(0usize, |v, k| Some(v | (byte(from + k)? << (8 * k)))) };
    let (mut s, mut total) = (0usize, 0usize);
    while s < src.len() {
        let tag = src[s];
        let (length, used) = match tag & 3 {
            0 => {
                let (len, used) = match tag >> 2 {
                    x @ 0..=59 => (x as usize + 1, 1),
                    60 => (byte(s + 1)? + 1, 2),
                    61 => (le(s + 1, 2)? + 1, 3),
                    62 => (le(s + 1, 3)? + 1, 4),
                    _ => (le(s + 1, 4)?.checked_add(1)?, 5),
                };
                (len, (used as usize).checked_add(len)?)
            }
            1 => {
                let offset = ((tag as usize & 0xe0) << 3) | byte(s + 1)?;
                let code = ((tag >> 2) & 7) as usize;
                match (offset, code) {
                    // A repeat of the last offset, its length in extra bytes.
                    (0, 5) => (byte(s + 2)? + 8, 3),
                    (0, 6) => (le(s + 2, 2)? + (1 << 8) + 4, 4),
                    (0, 7) => (le(s + 2, 3)? + (1 << 16) + 4, 5),
                    _ => (code + 4, 2),
                }
            }
            2 => (1 + (tag >> 2) as usize, 3),
            _ => (1 + (tag >> 2) as usize, 5),
        };
        s = s.checked_add(used)?;
        if s > src.len() {
            return None;
        }
        total = total.checked_add(length)?;
        if total > most {
            return Some(total);
        }
    }
    Some(total)
}

#[cfg(feature = "encode")]
pub(super) fn compress(data: &[u8]) -> Vec<u8> {
    minlz::encode(data)
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::*;

    #[test]
    fn the_walk_adds_up_what_the_decoder_produces() {
        for data in [vec![], b"abc".to_vec(), vec![0u8; 1 << 20], (0..200_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect()] {
            let packed = compress(&data);
            let (len, header) = minlz::decode_len(&packed).unwrap();
            assert_eq!(produced_len(&packed[header..], usize::MAX), Some(len));
            assert_eq!(decompress(&packed, data.len(), "test").unwrap(), data);
        }
    }

    #[test]
    fn a_claim_its_elements_cannot_fill_is_refused_before_allocating() {
        // 128 MiB claimed, one 4-byte literal given.
        let mut bomb = vec![0x80, 0x80, 0x80, 0x40, 3 << 2];
        bomb.extend_from_slice(b"abcd");
        let err = decompress(&bomb, 128 << 20, "test").unwrap_err();
        assert!(matches!(&err, Error::Decompress { detail, .. } if detail.contains("produce 4")), "{err}");
    }
}
