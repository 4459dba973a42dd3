//! Zstandard frames (the reference writes one frame per payload, no checksum).

use std::io::Read;

use crate::error::{Error, Result};

pub(super) fn decompress(data: &[u8], cap: usize, what: &'static str) -> Result<Vec<u8>> {
    let fail = |detail: String| Error::Decompress { codec: "zstd", what, detail };
    // The frame header usually states the content size: check it against the cap
    // before allocating, then allocate exactly once.
    let declared = zstd::zstd_safe::get_frame_content_size(data).map_err(|_| fail("bad frame header".into()))?;
    if let Some(size) = declared {
        if size > cap as u64 {
            return Err(Error::SizeCap { what, size, cap: cap as u64 });
        }
    }
    let mut decoder = zstd::stream::read::Decoder::with_buffer(data).map_err(|e| fail(e.to_string()))?;
    let mut out = Vec::with_capacity(declared.map_or(0, |s| s as usize));
    // Read at most cap + 1 bytes: one byte more than allowed proves the overflow.
    (&mut decoder).take(cap as u64 + 1).read_to_end(&mut out).map_err(|e| fail(e.to_string()))?;
    if out.len() > cap {
        return Err(Error::SizeCap { what, size: out.len() as u64, cap: cap as u64 });
    }
    Ok(out)
}

#[cfg(feature = "encode")]
pub(super) fn compress(data: &[u8]) -> Result<Vec<u8>> {
    // Level 3 is libzstd's default and the closest to the reference's SpeedDefault.
    let mut c = zstd::bulk::Compressor::new(3).map_err(|e| Error::Decompress {
        codec: "zstd",
        what: "encoder",
        detail: e.to_string(),
    })?;
    c.include_checksum(false).ok();
    c.include_contentsize(true).ok();
    c.compress(data).map_err(|e| Error::Decompress { codec: "zstd", what: "payload", detail: e.to_string() })
}
