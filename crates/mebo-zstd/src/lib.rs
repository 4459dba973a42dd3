//! # mebo-zstd
//!
//! The zstd part of the light wasm core (`mebo-wasm --features light`): a
//! zstd decoder in a module of its own, which the SDK loads the first time a
//! blob has a zstd payload. The core calls it through an import
//! (packages/mebo/src/zstd-part.ts copies the payload in and the output out)
//! and rebuilds its own `mebo::Error` from the `[code, number, detail]` that
//! import throws.
//!
//! The decoder is written from RFC 8878 in safe Rust, one module per part of
//! the format: [`frame`] (frame header, blocks, checksum), [`literals`],
//! [`huffman`], [`fse`], [`sequences`] (decoding and execution) and [`bits`]
//! (the backward bit reader). [`frames`] decodes a payload's frames with the
//! bounds of the core crate's zstd decoder.
//!
//! Built for wasm32 the crate is `no_std` and carries no wasm-bindgen, no
//! `core::fmt` and no general-purpose allocator: [`arena`] is the allocator,
//! [`buffer`] the output that fails as a value, [`exports`] the module's
//! exports.

#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

mod bits;
pub mod buffer;
mod failure;
mod frame;
pub mod frames;
mod fse;
mod huffman;
mod literals;
mod sequences;

#[cfg(target_arch = "wasm32")]
mod arena;
#[cfg(target_arch = "wasm32")]
mod exports;

/// The most bytes a block decodes to, and so the most literals it has:
/// `Block_Maximum_Size` (or the window, when that is smaller).
pub const MAX_BLOCK: usize = 128 << 10;
