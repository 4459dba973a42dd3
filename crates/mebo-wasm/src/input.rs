//! Input bytes on their way in: JavaScript copies a blob (or a set's blobs)
//! straight into wasm memory at an address this module picks, then opens
//! what it copied (`openStaged`). The handle keeps the buffer.
//!
//! Why not the glue's own copy of a `Vec<u8>` argument: the allocator puts a
//! large buffer 8 bytes past a 64-byte boundary, and a page-aligned source
//! then lies 8 bytes behind its destination modulo 4 KiB. Chromium's copy
//! (`TypedArray.prototype.set`) runs 12× slower at such offsets (4–12 bytes,
//! measured on an AMD EPYC: 4K aliasing of its loads with the stores just
//! made): 235 µs instead of 17 µs for an 800 KB blob. Here the destination is
//! placed at the source's own offset modulo 64.

use std::cell::RefCell;
use std::ops::Range;

use mebo::Error;
use wasm_bindgen::prelude::*;

use crate::js::{check, JsResult};

/// How far a staged buffer's start may move to match its source's alignment.
const ALIGN: usize = 64;

thread_local! {
    /// The buffer of the last `stageInput`, with where its bytes lie.
    static STAGED: RefCell<Option<(Vec<u8>, Range<usize>)>> = const { RefCell::new(None) };
}

/// Room for `len` bytes in wasm memory, at an address equal to `source_offset`
/// modulo 64 (the source's `byteOffset`): JavaScript copies the input there,
/// then calls an `openStaged`. A buffer staged before and not opened is
/// dropped. Returns the address; refused past the memory budget
/// (`OUT_OF_MEMORY`).
#[wasm_bindgen(js_name = stageInput)]
pub fn stage_input(len: usize, source_offset: usize) -> JsResult<usize> {
    STAGED.set(None);
    let mut buffer = Vec::new();
    let room = len.checked_add(ALIGN).ok_or(Error::OutOfMemory { what: "input bytes", bytes: usize::MAX });
    check(room.and_then(|room| buffer.try_reserve_exact(room).map_err(|_| Error::OutOfMemory { what: "input bytes", bytes: room })))?;
    let base = buffer.as_ptr() as usize;
    let start = (source_offset % ALIGN + ALIGN - base % ALIGN) % ALIGN;
    // The alignment bytes are zeroed; the input's bytes are left for
    // JavaScript to write (a zero fill first cost 8 µs of an 800 KB blob's
    // 17 µs copy in Node).
    buffer.resize(start, 0);
    STAGED.set(Some((buffer, start..start + len)));
    Ok(base + start)
}

/// The buffer the last `stageInput` made, holding the bytes JavaScript wrote,
/// and where they lie.
pub(crate) fn take_staged() -> JsResult<(Vec<u8>, Range<usize>)> {
    let (mut buffer, range) =
        STAGED.take().ok_or_else(|| crate::js::error(Error::InvalidOptions { detail: "nothing staged: call stageInput first".into() }))?;
    debug_assert!(range.end <= buffer.capacity(), "stageInput reserves the staged range");
    // SAFETY: `stageInput`, the one place `STAGED` is set, reserved at least
    // `range.end` bytes (`len + ALIGN`, and `range.start < ALIGN`) and
    // zeroed those before `range`; JavaScript wrote every byte of `range`
    // through the module's memory before calling an `openStaged` (the SDK's
    // `stage`, the one caller: the glue's `stageInput` is internal). Writes
    // through the memory initialize it as an FFI call's would.
    unsafe { buffer.set_len(range.end) };
    Ok((buffer, range))
}
