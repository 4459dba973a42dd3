//! The module's memory budget: every allocation of the module goes through
//! [`Budgeted`], which refuses one that would take the bytes held past the
//! budget. The core reserves every buffer sized by its input fallibly
//! (`try_reserve_exact`), so a refusal there, like memory that cannot grow,
//! is `OUT_OF_MEMORY` and not an abort; the handle stays usable and freeable.
//!
//! Allocations below [`SMALL`] (names, errors, small vectors the core does not
//! reserve fallibly) may pass the budget by up to [`SMALL_HEADROOM`], so a
//! refusal of a large buffer leaves room for the error that reports it.

// Installed as the global allocator on wasm32 only; elsewhere only the tests use it.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The default budget: 1 GiB held at once (`init({ maxMemoryBytes })` changes it).
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 1 << 30;
/// Allocations under this size are the small ones.
const SMALL: usize = 64 << 10;
/// How far small allocations may go past the budget.
const SMALL_HEADROOM: usize = 8 << 20;

/// Bytes allocated and not yet freed.
static HELD: AtomicUsize = AtomicUsize::new(0);
/// The most bytes [`HELD`] reached.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The budget, in bytes.
static MAX: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_MEMORY_BYTES);

/// Whether `more` bytes may be allocated now.
fn admits(more: usize) -> bool {
    let limit = if more < SMALL { MAX.load(Relaxed).saturating_add(SMALL_HEADROOM) } else { MAX.load(Relaxed) };
    HELD.load(Relaxed).saturating_add(more) <= limit
}

fn took(bytes: usize) {
    let held = HELD.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(held, Relaxed);
}

fn gave(bytes: usize) {
    HELD.fetch_sub(bytes, Relaxed);
}

/// The system allocator, refusing what the budget does not admit.
pub struct Budgeted;

// SAFETY: every call is forwarded to `System` with the caller's arguments
// unchanged, or answered with null (a refusal, which `GlobalAlloc` allows);
// the counters are plain atomics.
// Each method out of line: inlined, its body (the allocator's call and the
// counter's update) was copied into every allocation and drop, 2.5-4.3 kB
// gzipped of each build.
unsafe impl GlobalAlloc for Budgeted {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admits(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            took(layout.size());
        }
        p
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admits(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            took(layout.size());
        }
        p
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.dealloc(ptr, layout) };
        gave(layout.size());
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !admits(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged (see the impl).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            gave(old);
            took(new_size);
        }
        p
    }
}

/// Set the budget in bytes (at least what is held now is not required: a
/// budget below it refuses every large allocation until memory is freed).
pub fn set_max(bytes: usize) {
    MAX.store(bytes, Relaxed);
}

/// The budget, the bytes held now and the most held, in bytes.
pub fn figures() -> (usize, usize, usize) {
    (MAX.load(Relaxed), HELD.load(Relaxed), PEAK.load(Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_allocations_stop_at_the_budget_small_ones_at_the_headroom() {
        // The accounting alone (the allocator is not installed in tests).
        let before = figures();
        set_max(HELD.load(Relaxed) + (1 << 20));
        assert!(admits(1 << 20));
        assert!(!admits((1 << 20) + 1));
        assert!(admits(SMALL - 1));
        took(1 << 20);
        assert!(!admits(SMALL));
        assert!(admits(SMALL - 1));
        gave(1 << 20);
        assert!(admits(1 << 20));
        set_max(before.0);
    }
}
