//! LZ4 blocks (no frame, no size prefix, as the reference writes them).
//!
//! A block does not state its decoded size, so we walk its sequences once to
//! add the size up, check it against the cap, and then decode into one buffer
//! of exactly that size.

use crate::error::{Error, Result};

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
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
