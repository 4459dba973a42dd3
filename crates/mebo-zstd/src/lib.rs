//! # mebo-zstd
//!
//! The zstd part of the light wasm core (`mebo-wasm --features light`):
//! libzstd's decoder, which is a third of a decode module gzipped, in a module
//! of its own that the SDK loads the first time a blob has a zstd payload.
//! The core calls it through an import (the SDK copies the payload in and the
//! output out); its errors are the core's own (`mebo::Error`), sent as
//! `[code, number, detail]` so the core rebuilds the same error.

use wasm_bindgen::prelude::*;

/// Every frame of `data`, at most `cap` bytes of output. Throws
/// `[code, number, detail]` on failure: `SIZE_CAP` with the size reached,
/// `OUT_OF_MEMORY` with the bytes asked for, `DECOMPRESS` with what is wrong.
#[wasm_bindgen]
pub fn decompress(data: &[u8], cap: f64) -> Result<Vec<u8>, JsValue> {
    // The core passes a cap it computed as a usize: a whole number in range.
    let cap = cap as usize;
    mebo::internals::decompress(mebo::Compression::Zstd, data, cap, "payload").map(|out| out.into_owned()).map_err(|err| {
        let (number, detail) = failure(&err);
        js_sys::Array::of3(&err.code().into(), &number.into(), &detail.into()).into()
    })
}

/// The number and the detail each error of the decoder carries.
fn failure(err: &mebo::Error) -> (f64, String) {
    match err {
        mebo::Error::SizeCap { size, .. } => (*size as f64, String::new()),
        mebo::Error::OutOfMemory { bytes, .. } => (*bytes as f64, String::new()),
        mebo::Error::Decompress { detail, .. } => (0.0, detail.clone()),
        other => (0.0, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_carry_what_the_core_needs() {
        let cap =
            mebo::internals::decompress(mebo::Compression::Zstd, &[0x28, 0xb5, 0x2f, 0xfd, 0x20, 0xff, 0, 0], 4, "payload").unwrap_err();
        assert_eq!(cap.code(), "SIZE_CAP");
        assert_eq!(failure(&cap).0, 255.0);
        let corrupt = mebo::internals::decompress(mebo::Compression::Zstd, b"not a frame", 4, "payload").unwrap_err();
        assert_eq!(corrupt.code(), "DECOMPRESS");
        assert!(!failure(&corrupt).1.is_empty());
    }
}
