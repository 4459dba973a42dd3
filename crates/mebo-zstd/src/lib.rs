//! # mebo-zstd
//!
//! The zstd part of the light wasm core (`mebo-wasm --features light`):
//! libzstd's decoder in a module of its own, which the SDK loads the first
//! time a blob has a zstd payload. The core calls it through an import
//! (packages/mebo/src/zstd-part.ts copies the payload in and the output out)
//! and rebuilds its own `mebo::Error` from the `[code, number, detail]` that
//! import throws.
//!
//! Built for wasm32 the crate is `no_std` and carries no wasm-bindgen, no
//! `core::fmt` and no general-purpose allocator: its weight is libzstd's
//! decoder. [`frames`] decodes with the bounds of the core crate's zstd
//! decoder; [`arena`] is the allocator and [`exports`] the module's exports.

#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

pub mod buffer;
pub mod frames;
mod libzstd;

#[cfg(target_arch = "wasm32")]
mod arena;
#[cfg(target_arch = "wasm32")]
mod exports;
