//! The module's exports, read by packages/mebo/src/zstd-part.ts: `input(len)`
//! empties the arena and returns room for the payload (0 when the memory
//! cannot grow), `decompress(cap)` decodes it and returns a status; the
//! output, the failure's number and its detail are read back through the
//! other exports until the next `input`.

use crate::arena::ARENA;
use crate::buffer::Buffer;
use crate::failure::MESSAGE;
use crate::frames::{decompress as decode, Failure};
use core::cell::Cell;

/// `decompress`'s statuses; zstd-part.ts turns each into the core's code.
const OK: u32 = 0;
const SIZE_CAP: u32 = 1;
const OUT_OF_MEMORY: u32 = 2;
const DECOMPRESS: u32 = 3;

/// What the last call left for the SDK to read.
struct Results {
    input: Cell<(usize, usize)>,
    output: Cell<(usize, usize)>,
    number: Cell<f64>,
    /// The failure's message (DECOMPRESS): its first `detail_len` bytes.
    detail: Cell<[u8; MESSAGE]>,
    detail_len: Cell<usize>,
}

// SAFETY: the module runs on one thread (wasm32 without the atomics feature).
unsafe impl Sync for Results {}

static RESULTS: Results = Results {
    input: Cell::new((0, 0)),
    output: Cell::new((0, 0)),
    number: Cell::new(0.0),
    detail: Cell::new([0; MESSAGE]),
    detail_len: Cell::new(0),
};

/// Room for a payload of `len` bytes; every earlier allocation is released.
#[no_mangle]
pub extern "C" fn input(len: usize) -> usize {
    ARENA.reset();
    RESULTS.output.set((0, 0));
    // A payload of 0 bytes still gets a non-zero address (1 byte reserved).
    let Ok(room) = Buffer::zeroed(len.max(1)) else {
        RESULTS.input.set((0, 0));
        return 0;
    };
    let at = room.leak().0;
    RESULTS.input.set((at, len));
    at
}

/// Decode the payload `input` made room for, at most `cap` bytes of output.
#[no_mangle]
pub extern "C" fn decompress(cap: f64) -> u32 {
    let (at, len) = RESULTS.input.get();
    if at == 0 {
        RESULTS.number.set(len as f64);
        return OUT_OF_MEMORY;
    }
    // SAFETY: `input` reserved `len` bytes at `at` in the arena and nothing
    // has been allocated or released since; the SDK wrote the payload there.
    let data = unsafe { core::slice::from_raw_parts(at as *const u8, len) };
    // The core passes a cap it computed as a usize: a whole number in range.
    let mut detail = [0; MESSAGE];
    let mut detail_len = 0;
    let (status, number) = match decode(data, cap as usize) {
        Ok(out) => {
            RESULTS.output.set(out.leak());
            (OK, 0.0)
        }
        Err(Failure::SizeCap(size)) => (SIZE_CAP, size as f64),
        Err(Failure::OutOfMemory(bytes)) => (OUT_OF_MEMORY, bytes as f64),
        Err(failure @ Failure::Corrupt(..)) => {
            detail_len = failure.message(&mut detail);
            (DECOMPRESS, 0.0)
        }
    };
    RESULTS.number.set(number);
    RESULTS.detail.set(detail);
    RESULTS.detail_len.set(detail_len);
    status
}

#[no_mangle]
pub extern "C" fn output_ptr() -> usize {
    RESULTS.output.get().0
}

#[no_mangle]
pub extern "C" fn output_len() -> usize {
    RESULTS.output.get().1
}

/// The failure's number: the size reached (SIZE_CAP) or the bytes asked (OUT_OF_MEMORY).
#[no_mangle]
pub extern "C" fn number() -> f64 {
    RESULTS.number.get()
}

/// The failure's detail (DECOMPRESS): which check failed at which byte of
/// the payload, UTF-8 at `detail_ptr`.
#[no_mangle]
pub extern "C" fn detail_ptr() -> usize {
    RESULTS.detail.as_ptr() as usize
}

#[no_mangle]
pub extern "C" fn detail_len() -> usize {
    RESULTS.detail_len.get()
}

/// Nothing here panics on any input; should a bug make it, the module traps
/// (the SDK reports a trap as DECOMPRESS) rather than carry `core::fmt`.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
