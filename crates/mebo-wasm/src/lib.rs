//! # mebo-wasm
//!
//! wasm-bindgen bindings of the `mebo` crate: one handle class per blob kind
//! and per encoder, wrapped by the TypeScript SDK in `packages/mebo`.
//!
//! The layer only converts: every format decision is the core's. The rules it
//! keeps:
//!
//! - Errors cross as a JS `Error` whose `code` is [`mebo::Error::code`] and
//!   whose message is the core's (see [`js::error`]); nothing panics.
//! - Columns leave wasm memory with one copy: a returned `Vec` becomes a typed
//!   array (the glue copies it out and frees it), and [`js`] builds typed
//!   arrays straight from Rust slices.
//! - Strings leave as one string plus UTF-16 end offsets, so JavaScript decodes
//!   UTF-8 once and slices (see [`js::strings`]).
//! - Handles own what they read: blobs are opened, then made owned, so the
//!   input bytes the glue copied in are freed when the call returns.

mod accessors;
pub mod blob_set;
mod js;
pub mod numeric;
pub mod series;
pub mod text;

pub use blob_set::{NumericBlobSetHandle, TextBlobSetHandle};
pub use numeric::NumericBlobHandle;
#[cfg(feature = "encode")]
pub use numeric::NumericEncoderHandle;
pub use text::TextBlobHandle;
#[cfg(feature = "encode")]
pub use text::TextEncoderHandle;

use wasm_bindgen::prelude::*;

/// The version of the `mebo` crate this module was built from.
#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The id of a metric name: xxHash64 of its UTF-8 bytes, seed 0.
#[wasm_bindgen(js_name = metricId)]
pub fn metric_id(name: &str) -> u64 {
    mebo::metric_id(name)
}

/// The core's default decode limits, as `{ maxDecompressedBytes, maxPoints }`.
#[wasm_bindgen(js_name = defaultDecodeLimits)]
pub fn default_decode_limits() -> JsValue {
    let d = mebo::DecodeLimits::default();
    js::JsObject::new().set("maxDecompressedBytes", d.max_decompressed_bytes as f64).set("maxPoints", d.max_points as f64).into()
}

/// The kind of blob its first two bytes (the flag word) name: `"numeric"`,
/// `"text"`, or `undefined` for anything else (fewer than two bytes included).
#[wasm_bindgen(js_name = blobKind)]
pub fn blob_kind(bytes: &[u8]) -> Option<String> {
    match mebo::BlobKind::of(bytes)? {
        mebo::BlobKind::Numeric => Some("numeric".into()),
        mebo::BlobKind::Text => Some("text".into()),
    }
}

/// True when this build contains the encoders (feature `encode`).
#[wasm_bindgen(js_name = hasEncoders)]
pub fn has_encoders() -> bool {
    cfg!(feature = "encode")
}
