//! The part's allocator: a bump arena over the memory past what the module
//! started with, emptied at the start of each call (`reset`). The payload,
//! the output and the decoded literals' scratch buffer are all a call
//! allocates: an output of declared size is allocated whole before the
//! scratch, one of unknown size grows in place while it is the newest block
//! (and is moved when it is not); a free of the newest block gives its bytes
//! back.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::Cell;

const PAGE: usize = 64 << 10;

pub struct Arena {
    /// Where the arena starts: the end of the memory at the first allocation.
    base: Cell<usize>,
    /// The first free byte.
    top: Cell<usize>,
    /// The end of the memory.
    end: Cell<usize>,
}

// SAFETY: the module runs on one thread (wasm32 without the atomics feature).
unsafe impl Sync for Arena {}

#[global_allocator]
pub static ARENA: Arena = Arena { base: Cell::new(0), top: Cell::new(0), end: Cell::new(0) };

impl Arena {
    /// Forget every allocation. Only for when none is in use any more.
    pub fn reset(&self) {
        self.top.set(self.base.get());
    }

    /// Make the memory reach `to`; false when it cannot grow.
    fn reach(&self, to: usize) -> bool {
        if self.end.get() == 0 {
            let end = wasm32::memory_size(0) * PAGE;
            self.base.set(end);
            self.top.set(end);
            self.end.set(end);
        }
        if to <= self.end.get() {
            return true;
        }
        let pages = (to - self.end.get()).div_ceil(PAGE);
        if wasm32::memory_grow(0, pages) == usize::MAX {
            return false;
        }
        self.end.set(self.end.get() + pages * PAGE);
        true
    }
}

unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !self.reach(0) {
            return core::ptr::null_mut();
        }
        let Some(start) = self.top.get().checked_next_multiple_of(layout.align()) else { return core::ptr::null_mut() };
        let Some(stop) = start.checked_add(layout.size()) else { return core::ptr::null_mut() };
        if !self.reach(stop) {
            return core::ptr::null_mut();
        }
        self.top.set(stop);
        start as *mut u8
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ptr as usize + layout.size() == self.top.get() {
            self.top.set(ptr as usize);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let start = ptr as usize;
        if start + layout.size() == self.top.get() {
            // The newest block (the output as it grows): extended in place.
            let Some(stop) = start.checked_add(new_size) else { return core::ptr::null_mut() };
            if !self.reach(stop) {
                return core::ptr::null_mut();
            }
            self.top.set(stop);
            return ptr;
        }
        // SAFETY: `layout` and `new_size` are the caller's, who holds
        // GlobalAlloc::realloc's contract; the default moves the block.
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else { return core::ptr::null_mut() };
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks are live, distinct (the new one lies past
            // `top`, above the old) and at least `min` bytes long.
            unsafe { core::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size)) };
        }
        moved
    }
}
