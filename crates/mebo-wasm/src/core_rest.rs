//! The light core's rest (feature `light`). The build splits the optimized
//! core by function (scripts/build/split.mjs): what numeric blobs without
//! zstd run stays, the rest is a second module sharing this one's memory,
//! tables and globals, and each function moved is reached through a slot of
//! a table that instantiating the rest fills. A function whose slot is still
//! empty calls this import first: the SDK's `loadRest` instantiates the rest
//! synchronously, or throws `MISSING_PART`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "mebo-core-rest")]
extern "C" {
    #[wasm_bindgen(js_name = loadRest)]
    fn load_rest();
}

/// Nothing in Rust calls the import: this keeps it in the module for the
/// split's stubs.
#[used]
static LOAD_REST: fn() = load_rest;
