//! The light core's zstd (feature `light`): libzstd is not linked in; zstd
//! payloads go to the zstd part (crates/mebo-zstd), a module the SDK loads the
//! first time a blob needs it and calls through this import. The SDK's
//! `zstdDecompress` throws `[code, number, detail]` as the part does, or
//! `["MISSING_PART", 0, ""]` when the part is not loaded.

use mebo::internals::ZstdFailure;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "mebo-zstd-part")]
extern "C" {
    #[wasm_bindgen(catch, js_name = zstdDecompress)]
    fn zstd_decompress(data: &[u8], cap: f64) -> Result<Vec<u8>, JsValue>;
}

/// The core's zstd decoder: the part through the import.
fn through_part(data: &[u8], cap: usize) -> Result<Vec<u8>, ZstdFailure> {
    zstd_decompress(data, cap as f64).map_err(|thrown| {
        let parts = js_sys::Array::from(&thrown);
        let number = parts.get(1).as_f64().unwrap_or(0.0);
        match parts.get(0).as_string().as_deref() {
            Some("SIZE_CAP") => ZstdFailure::SizeCap(number as u64),
            Some("OUT_OF_MEMORY") => ZstdFailure::OutOfMemory(number as usize),
            Some("DECOMPRESS") => ZstdFailure::Corrupt(parts.get(2).as_string().unwrap_or_default()),
            _ => ZstdFailure::Unavailable,
        }
    })
}

/// Route zstd payloads through the part: called before each blob is staged
/// (not as a start function, so that this module's glue also instantiates
/// the decode-only builds, which have none).
pub fn route_zstd_through_part() {
    mebo::internals::set_zstd_decoder(through_part);
}
