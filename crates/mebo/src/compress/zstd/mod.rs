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
    if declared.is_none() {
        // Without a declared size libzstd sizes its output buffer by the frame's
        // window, up to 128 MiB: a payload of a few bytes could make it allocate
        // that much. No output may exceed `cap`, so refuse windows beyond what
        // the cap can use (the reference always declares the size; the floor
        // keeps frames of ordinary streaming encoders readable).
        decoder.window_log_max(window_log_max(cap)).map_err(|e| fail(e.to_string()))?;
    }
    let mut out = Vec::with_capacity(declared.map_or(0, |s| s as usize));
    // Read at most cap + 1 bytes: one byte more than allowed proves the overflow.
    (&mut decoder).take(cap as u64 + 1).read_to_end(&mut out).map_err(|e| fail(e.to_string()))?;
    if out.len() > cap {
        return Err(Error::SizeCap { what, size: out.len() as u64, cap: cap as u64 });
    }
    Ok(out)
}

/// Smallest window log that covers `cap` bytes, at least 2^23 (8 MiB, libzstd's
/// window at its higher levels) and at most 2^27 (libzstd's default limit).
fn window_log_max(cap: usize) -> u32 {
    let log = usize::BITS - cap.saturating_sub(1).leading_zeros();
    log.clamp(23, 27)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame without a content size, declaring a 2^`log` window, holding one
    /// RLE block of a single zero byte.
    fn frame_with_window(log: u32) -> Vec<u8> {
        let descriptor = ((log - 10) << 3) as u8; // exponent, mantissa 0
        let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, descriptor];
        let header = 1u32 | (1 << 1) | (1 << 3); // last block, RLE, 1 byte
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(0);
        f
    }

    #[test]
    fn window_limit_follows_the_cap() {
        assert_eq!(window_log_max(0), 23);
        assert_eq!(window_log_max(100), 23);
        assert_eq!(window_log_max(8 << 20), 23);
        assert_eq!(window_log_max((8 << 20) + 1), 24);
        assert_eq!(window_log_max(64 << 20), 26);
        assert_eq!(window_log_max(usize::MAX), 27);
    }

    /// Fuzzing finding: an 83-byte frame with no content size and a 64 MiB
    /// window made libzstd malloc 64 MiB before producing a byte.
    #[test]
    fn undeclared_frame_with_a_window_beyond_the_cap_is_refused() {
        for log in [24, 26, 27] {
            let err = decompress(&frame_with_window(log), 4096, "test").unwrap_err();
            assert!(matches!(err, Error::Decompress { codec: "zstd", .. }), "window 2^{log}: {err:?}");
        }
        // Windows the cap (or the 8 MiB floor) covers still decode.
        assert_eq!(decompress(&frame_with_window(23), 4096, "test").unwrap(), [0]);
        assert_eq!(decompress(&frame_with_window(10), 1, "test").unwrap(), [0]);
        assert_eq!(decompress(&frame_with_window(26), 64 << 20, "test").unwrap(), [0]);
    }
}
