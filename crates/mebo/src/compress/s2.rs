//! S2 blocks (klauspost's Snappy extension): a uvarint of the decoded length,
//! then literal and copy elements.

use crate::error::{Error, Result};

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
    let fail = |e: minlz::Error| Error::Decompress { codec: "s2", what, detail: e.to_string() };
    let (len, _) = minlz::decode_len(data).map_err(fail)?;
    if len > cap {
        return Err(Error::SizeCap { what, size: len as u64, cap: cap as u64 });
    }
    let mut out = vec![0u8; len];
    let written = minlz::decode_into(&mut out, data).map_err(fail)?;
    if written != len {
        return Err(Error::Decompress { codec: "s2", what, detail: format!("produced {written} of {len} bytes") });
    }
    Ok(out)
}

#[cfg(feature = "encode")]
pub(super) fn compress(data: &[u8]) -> Vec<u8> {
    minlz::encode(data)
}
