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
//! - Every object that crosses has its TypeScript type declared once, in a
//!   `typescript_custom_section` beside the Rust that builds or reads it
//!   (`js.rs`, `numeric.rs`, `text.rs`, here), and the functions name it
//!   through a `typescript_type` extern type: the glue's `.d.ts` declares
//!   them, and the SDK imports them from there.
//! - Columns leave wasm memory with one copy: a returned `Vec` becomes a typed
//!   array (the glue copies it out and frees it), and [`js`] builds typed
//!   arrays straight from Rust slices.
//! - Strings leave as one string plus UTF-16 end offsets, so JavaScript decodes
//!   UTF-8 once and slices (see [`js::strings`]).
//! - Input bytes cross once: JavaScript copies them into a buffer the module
//!   stages for them ([`input`]), which a blob's handle then keeps (a set's
//!   blobs are made owned and the buffer freed).

mod accessors;
#[cfg(feature = "encode")]
mod batch;
pub mod blob_set;
mod budget;
#[cfg(feature = "light")]
mod core_rest;
mod input;
#[cfg(feature = "encode")]
mod joined;
mod js;
pub mod numeric;
pub mod text;
#[cfg(feature = "light")]
mod zstd_part;

pub use blob_set::{NumericBlobSetHandle, TextBlobSetHandle};
pub use numeric::NumericBlobHandle;
#[cfg(feature = "encode")]
pub use numeric::NumericEncoderHandle;
pub use text::TextBlobHandle;
#[cfg(feature = "encode")]
pub use text::TextEncoderHandle;

use wasm_bindgen::prelude::*;

/// Every allocation of the module is checked against its memory budget.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: budget::Budgeted = budget::Budgeted;

/// Set the module's memory budget: the most bytes its heap may hold at once
/// (default [`budget::DEFAULT_MAX_MEMORY_BYTES`], 1 GiB). An allocation
/// that would pass it is refused: `OUT_OF_MEMORY`.
#[wasm_bindgen(js_name = setMemoryBudget)]
pub fn set_memory_budget(bytes: f64) {
    // The SDK checks the number; a fraction or a huge value saturates.
    budget::set_max(bytes as usize);
}

/// `[budget, held, peak]`: the memory budget, the bytes the heap holds now
/// and the most it held, in bytes.
#[wasm_bindgen(js_name = memoryBudget)]
pub fn memory_budget() -> Vec<f64> {
    let (max, held, peak) = budget::figures();
    vec![max as f64, held as f64, peak as f64]
}

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

#[wasm_bindgen(typescript_custom_section)]
const TS_MODULE: &str = r#"
/** Caps on what decoding one blob may allocate; absent fields keep the defaults. */
export interface DecodeLimits {
  /** Largest size of one decompressed payload, in bytes (default 128 MiB). */
  maxDecompressedBytes?: number;
  /** Largest total point count of one blob (default 64 Mi). */
  maxPoints?: number;
}

export type BlobKind = 'numeric' | 'text';
"#;

#[wasm_bindgen]
extern "C" {
    /// Every field of `DecodeLimits`: see [`default_decode_limits`].
    #[wasm_bindgen(typescript_type = "Required<DecodeLimits>")]
    pub type DefaultDecodeLimits;
    /// `"numeric"` or `"text"`: see [`blob_kind`].
    #[wasm_bindgen(typescript_type = "BlobKind")]
    pub type BlobKind;
}

/// The core's default decode limits, as `{ maxDecompressedBytes, maxPoints }`.
#[wasm_bindgen(js_name = defaultDecodeLimits)]
pub fn default_decode_limits() -> DefaultDecodeLimits {
    let d = mebo::DecodeLimits::default();
    js::JsObject::new().set("maxDecompressedBytes", d.max_decompressed_bytes as f64).set("maxPoints", d.max_points as f64).typed()
}

/// The kind of blob its first two bytes (the flag word) name: `"numeric"`,
/// `"text"`, or `undefined` for anything else (fewer than two bytes included).
#[wasm_bindgen(js_name = blobKind)]
pub fn blob_kind(bytes: &[u8]) -> Option<BlobKind> {
    let kind = match mebo::BlobKind::of(bytes)? {
        mebo::BlobKind::Numeric => "numeric",
        mebo::BlobKind::Text => "text",
    };
    Some(JsValue::from_str(kind).unchecked_into())
}

/// Whether a blob's payloads use zstd, from its first four bytes (see
/// `mebo::uses_compression`): what the SDK reads to fetch the light core's
/// zstd part before it opens the blob.
#[wasm_bindgen(js_name = needsZstd)]
pub fn needs_zstd(bytes: &[u8]) -> bool {
    mebo::uses_compression(bytes, mebo::Compression::Zstd)
}

/// The code of every core error (`mebo::Error::CODES`): what the `code` of
/// an error this module throws can be. The SDK's `CORE_ERROR_CODES` is tested
/// against it.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    mebo::Error::CODES.iter().map(|c| c.to_string()).collect()
}

/// True when this build contains the encoders (feature `encode`).
#[wasm_bindgen(js_name = hasEncoders)]
pub fn has_encoders() -> bool {
    cfg!(feature = "encode")
}
