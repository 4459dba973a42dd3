//! The output buffer: `Vec<u8>` without its infallible paths. Every growth
//! of a `Vec` can end in `handle_alloc_error`, whose message formats the size
//! and so keeps `core::fmt` in the module; here a failed allocation is only
//! ever a value (the bytes asked), which becomes OUT_OF_MEMORY.

use alloc::alloc::{alloc_zeroed, dealloc, realloc, Layout};
use core::ptr::NonNull;

pub struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    capacity: usize,
}

impl Buffer {
    /// An empty buffer; allocates nothing.
    pub fn new() -> Buffer {
        Buffer { ptr: NonNull::dangling(), len: 0, capacity: 0 }
    }

    /// `len` zero bytes; `Err(len)` when they cannot be allocated.
    pub fn zeroed(len: usize) -> Result<Buffer, usize> {
        if len == 0 {
            return Ok(Buffer::new());
        }
        let layout = Layout::array::<u8>(len).map_err(|_| len)?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or(len)?;
        Ok(Buffer { ptr, len, capacity: len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` holds `len` initialized bytes (or is dangling with len 0).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `self` is borrowed mutably.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// An empty buffer with room for `capacity` bytes; `Err(capacity)` when
    /// they cannot be allocated.
    pub fn with_capacity(capacity: usize) -> Result<Buffer, usize> {
        let mut out = Buffer::new();
        out.reserve(capacity)?;
        Ok(out)
    }

    /// Room for `additional` more bytes, growing the capacity at least
    /// twofold when it must grow. `Err` with the length that could not be
    /// allocated.
    #[inline]
    fn reserve(&mut self, additional: usize) -> Result<(), usize> {
        let needed = self.len.checked_add(additional).ok_or(usize::MAX)?;
        if needed > self.capacity {
            let capacity = if self.capacity == 0 { needed } else { needed.max(self.capacity.saturating_mul(2)) };
            let layout = Layout::array::<u8>(capacity).map_err(|_| needed)?;
            let grown = if self.capacity == 0 {
                // SAFETY: `layout` has a non-zero size (`needed` > 0 here).
                unsafe { alloc::alloc::alloc(layout) }
            } else {
                // SAFETY: `ptr` was allocated with `capacity` bytes at align 1;
                // the new size is non-zero and fits a Layout (checked above).
                unsafe { realloc(self.ptr.as_ptr(), Layout::from_size_align_unchecked(self.capacity, 1), capacity) }
            };
            self.ptr = NonNull::new(grown).ok_or(needed)?;
            self.capacity = capacity;
        }
        Ok(())
    }

    /// Append `n` copies of `byte`, each byte written once. `Err` with the
    /// length that could not be allocated.
    #[inline]
    pub fn extend_repeated(&mut self, byte: u8, n: usize) -> Result<(), usize> {
        self.reserve(n)?;
        // SAFETY: `reserve` made room for `len + n` bytes.
        unsafe { core::ptr::write_bytes(self.ptr.as_ptr().add(self.len), byte, n) };
        self.len += n;
        Ok(())
    }

    /// Keep the first `len` bytes (all of them when there are fewer).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Forget the bytes, keeping the capacity.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Append `bytes`, growing the capacity at least twofold when it must
    /// grow. `Err` with the length that could not be allocated.
    #[inline]
    pub fn extend(&mut self, bytes: &[u8]) -> Result<(), usize> {
        self.reserve(bytes.len())?;
        // SAFETY: `reserve` made room for `len + bytes.len()` bytes; `bytes`
        // is another allocation (or the stack), so the two do not overlap.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.as_ptr().add(self.len), bytes.len()) };
        self.len += bytes.len();
        Ok(())
    }

    /// The bytes' address and length, kept allocated (the part's arena
    /// releases them at the next call).
    #[cfg(target_arch = "wasm32")]
    pub fn leak(self) -> (usize, usize) {
        let parts = (self.ptr.as_ptr() as usize, self.len);
        core::mem::forget(self);
        parts
    }
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::new()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.capacity > 0 {
            // SAFETY: allocated with `capacity` bytes at align 1, freed once.
            unsafe { dealloc(self.ptr.as_ptr(), Layout::from_size_align_unchecked(self.capacity, 1)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Buffer;

    #[test]
    fn repeated_bytes_and_clearing() {
        let mut out = Buffer::new();
        out.extend_repeated(7, 3).unwrap();
        out.extend(b"ab").unwrap();
        out.extend_repeated(9, 0).unwrap();
        out.extend_repeated(1, 2).unwrap();
        assert_eq!(out.as_slice(), b"\x07\x07\x07ab\x01\x01");
        out.clear();
        assert!(out.is_empty());
        out.extend_repeated(5, 2).unwrap();
        assert_eq!(out.as_slice(), &[5, 5]);
        assert_eq!(out.extend_repeated(0, usize::MAX), Err(usize::MAX));
        assert_eq!(out.as_slice(), &[5, 5]);
    }
}
