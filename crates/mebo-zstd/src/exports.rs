//! The module's exports, read by packages/mebo/src/zstd-part.ts: `input(len)`
//! empties the arena and returns room for the payload (0 when the memory
//! cannot grow), `decompress(cap)` decodes it and returns a status; the
//! output, the failure's number and its detail are read back through the
//! other exports until the next `input`.

use crate::arena::ARENA;
use crate::buffer::Buffer;
use crate::frames::{decompress as decode, Error, Failure};
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
    detail: Cell<&'static [u8]>,
}

// SAFETY: the module runs on one thread (wasm32 without the atomics feature).
unsafe impl Sync for Results {}

static RESULTS: Results = Results { input: Cell::new((0, 0)), output: Cell::new((0, 0)), number: Cell::new(0.0), detail: Cell::new(b"") };

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
    let (status, number, detail) = match decode(data, cap as usize) {
        Ok(out) => {
            RESULTS.output.set(out.leak());
            (OK, 0.0, &b""[..])
        }
        Err(Error { failure, at }) => match failure {
            Failure::SizeCap(size) => (SIZE_CAP, size as f64, &b""[..]),
            Failure::OutOfMemory(bytes) => (OUT_OF_MEMORY, bytes as f64, &b""[..]),
            // zstd-part.ts writes the message: "<detail> at byte <number>".
            Failure::Corrupt(detail) => (DECOMPRESS, at as f64, detail),
        },
    };
    RESULTS.number.set(number);
    RESULTS.detail.set(detail);
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

/// The failure's number: the size reached (SIZE_CAP), the bytes asked
/// (OUT_OF_MEMORY), or the byte of the payload where the frame, block or
/// section that failed its check starts (DECOMPRESS).
#[no_mangle]
pub extern "C" fn number() -> f64 {
    RESULTS.number.get()
}

/// The failure's detail (DECOMPRESS: which check failed), UTF-8 at `detail_ptr`.
#[no_mangle]
pub extern "C" fn detail_ptr() -> usize {
    RESULTS.detail.get().as_ptr() as usize
}

#[no_mangle]
pub extern "C" fn detail_len() -> usize {
    RESULTS.detail.get().len()
}

/// Nothing here panics on any input; should a bug make it, the module traps
/// (the SDK reports a trap as DECOMPRESS) rather than carry `core::fmt`.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
