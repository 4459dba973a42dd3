//! Input bytes on their way in: JavaScript copies a blob (or a set's blobs)
//! straight into wasm memory at an address this module picks, then opens
//! what it copied (`openStaged`). The handle keeps the buffer.
//!
//! Why not the glue's own copy of a `Vec<u8>` argument: the allocator puts a
//! large buffer 8 bytes past a 64-byte boundary, and a page-aligned source
//! then lies 8 bytes behind its destination modulo 4 KiB. Chromium's copy
//! (`TypedArray.prototype.set`) runs 12× slower at such offsets (4–12 bytes,
//! measured on an AMD EPYC: 4K aliasing of its loads with the stores just
//! made): 235 µs instead of 17 µs for an 800 KB blob. Milder, the same
//! aliasing slows Node's copy by 10-35% when the destination lies 24-250
//! bytes past the source modulo 4 KiB. Here the destination is placed at the
//! source's own offset modulo 4 KiB (modulo 64 for a small input, to keep its
//! padding small): a page-aligned source then lies at its destination
//! modulo 4 KiB, and one that starts 16 bytes past a page (glibc's large
//! allocations, so Node's) 16 bytes ahead of it; both copy at full speed.

use std::cell::RefCell;
use std::ops::Range;

use mebo::Error;
use wasm_bindgen::prelude::*;

use crate::js::{check, JsResult};

/// How far a staged buffer's start may move to match its source's address:
/// a page for an input of `PAGE_MATCH_FROM` bytes or more, 64 bytes below.
const PAGE: usize = 4096;
const LINE: usize = 64;
const PAGE_MATCH_FROM: usize = 64 << 10;

thread_local! {
    /// The buffer of the last `stageInput`, with where its bytes lie.
    static STAGED: RefCell<Option<(Vec<u8>, Range<usize>)>> = const { RefCell::new(None) };
}

/// Room for `len` bytes in wasm memory, at an address equal to `source_offset`
/// (the source's `byteOffset`) modulo 4 KiB, or 64 for a small input: JavaScript copies the input there,
/// then calls an `openStaged`. A buffer staged before and not opened is
/// dropped. Returns the address; refused past the memory budget
/// (`OUT_OF_MEMORY`).
#[wasm_bindgen(js_name = stageInput)]
pub fn stage_input(len: usize, source_offset: usize) -> JsResult<usize> {
    #[cfg(feature = "light")]
    crate::zstd_part::route_zstd_through_part();
    STAGED.set(None);
    let mut buffer = Vec::new();
    let align = if len >= PAGE_MATCH_FROM { PAGE } else { LINE };
    let room = len.checked_add(align).ok_or(Error::OutOfMemory { what: "input bytes", bytes: usize::MAX });
    check(room.and_then(|room| buffer.try_reserve_exact(room).map_err(|_| Error::OutOfMemory { what: "input bytes", bytes: room })))?;
    let base = buffer.as_ptr() as usize;
    let start = (source_offset % align + align - base % align) % align;
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
    // `range.end` bytes (`len + align`, and `range.start < align`) and
    // zeroed those before `range`; JavaScript wrote every byte of `range`
    // through the module's memory before calling an `openStaged` (the SDK's
    // `stage`, the one caller: the glue's `stageInput` is internal). Writes
    // through the memory initialize it as an FFI call's would.
    unsafe { buffer.set_len(range.end) };
    Ok((buffer, range))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_input_lies_at_its_source_offset_modulo_a_page_a_small_one_modulo_64() {
        // The expectations are written out, not taken from the constants.
        for (len, align) in [(64 << 10, 4096), (3 << 20, 4096), ((64 << 10) - 1, 64), (10, 64), (0, 64)] {
            for source_offset in [0, 8, 16, 24, 63, 64, 4000, 4095, 4096 + 40, 1 << 20] {
                let at = stage_input(len, source_offset).unwrap();
                assert_eq!(at % align, source_offset % align, "{len} bytes from offset {source_offset}");
                let (buffer, range) = take_staged().unwrap();
                assert_eq!(buffer.as_ptr() as usize + range.start, at);
                assert_eq!((range.len(), buffer.len()), (len, range.end));
                assert!(range.start < align && buffer.capacity() >= len + range.start);
                assert!(buffer[..range.start].iter().all(|&b| b == 0));
            }
        }
    }
}
