//! The few libzstd calls the decoder makes, wrapped safely. zstd-safe would
//! do this, but its build script turns its `std` feature on for wasm32, and
//! `std` is what this module is built without.

use core::ffi::{c_void, CStr};
use core::ptr::NonNull;
use zstd_sys as sys;

/// A libzstd error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code(usize);

impl Code {
    /// libzstd's name of the error (static ASCII text, left undecoded: the
    /// SDK reads it as UTF-8).
    pub fn name(self) -> &'static [u8] {
        // SAFETY: ZSTD_getErrorName returns a pointer to a static,
        // NUL-terminated string for any value.
        unsafe { CStr::from_ptr(sys::ZSTD_getErrorName(self.0)) }.to_bytes()
    }
}

fn checked(result: usize) -> Result<usize, Code> {
    // SAFETY: ZSTD_isError reads nothing but its argument.
    if unsafe { sys::ZSTD_isError(result) } != 0 {
        Err(Code(result))
    } else {
        Ok(result)
    }
}

const ERROR: u64 = u64::MAX - 1;

/// The content size the first frame of `data` declares: `Ok(None)` when it
/// declares none, `Err` when `data` does not start with a frame header.
pub fn frame_content_size(data: &[u8]) -> Result<Option<u64>, ()> {
    // SAFETY: libzstd reads at most `data.len()` bytes from `data`.
    let size = unsafe { sys::ZSTD_getFrameContentSize(data.as_ptr().cast(), data.len()) };
    // The two sentinels, (0ULL - 2) and (0ULL - 1) in zstd.h.
    match size {
        u64::MAX => Ok(None),
        ERROR => Err(()),
        size => Ok(Some(size)),
    }
}

/// A decompression context, freed on drop.
pub struct DCtx(NonNull<sys::ZSTD_DCtx>);

impl DCtx {
    /// A new context; `None` when libzstd cannot allocate one.
    pub fn try_create() -> Option<DCtx> {
        // SAFETY: no arguments; a null result is handled.
        NonNull::new(unsafe { sys::ZSTD_createDCtx() }).map(DCtx)
    }

    /// Refuse frames whose window is larger than 2^`log` bytes.
    pub fn set_window_log_max(&mut self, log: u32) -> Result<(), Code> {
        // SAFETY: the context is live; the parameter is a valid enum value.
        checked(unsafe { sys::ZSTD_DCtx_setParameter(self.0.as_ptr(), sys::ZSTD_dParameter::ZSTD_d_windowLogMax, log as i32) }).map(|_| ())
    }

    /// Every frame of `src` into `dst`; the bytes written.
    pub fn decompress(&mut self, dst: &mut [u8], src: &[u8]) -> Result<usize, Code> {
        // SAFETY: the context is live; libzstd writes at most `dst.len()`
        // bytes to `dst` and reads at most `src.len()` bytes from `src`.
        checked(unsafe {
            sys::ZSTD_decompressDCtx(self.0.as_ptr(), dst.as_mut_ptr().cast::<c_void>(), dst.len(), src.as_ptr().cast(), src.len())
        })
    }

    /// One streaming step: input from `src[*read..]` into `dst`. Advances
    /// `*read`; returns the bytes written and libzstd's hint (0 when a frame
    /// is complete and flushed).
    pub fn decompress_stream(&mut self, dst: &mut [u8], src: &[u8], read: &mut usize) -> Result<(usize, usize), Code> {
        let mut output = sys::ZSTD_outBuffer { dst: dst.as_mut_ptr().cast(), size: dst.len(), pos: 0 };
        let mut input = sys::ZSTD_inBuffer { src: src.as_ptr().cast(), size: src.len(), pos: (*read).min(src.len()) };
        // SAFETY: the context is live; the buffers describe `dst` and `src`
        // (positions within them), which libzstd keeps to.
        let hint = checked(unsafe { sys::ZSTD_decompressStream(self.0.as_ptr(), &mut output, &mut input) })?;
        *read = input.pos;
        Ok((output.pos, hint))
    }
}

impl Drop for DCtx {
    fn drop(&mut self) {
        // SAFETY: the context was created by ZSTD_createDCtx and is freed once.
        unsafe { sys::ZSTD_freeDCtx(self.0.as_ptr()) };
    }
}
