//! Why a payload did not decode: what every part of the decoder returns,
//! and what the exports turn into the core's error codes.

/// Why a payload did not decode; the SDK sends each as the core's error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// `SIZE_CAP`: the output would reach this many bytes, more than the cap.
    SizeCap(u64),
    /// `OUT_OF_MEMORY`: this many bytes could not be allocated.
    OutOfMemory(usize),
    /// `DECOMPRESS`: the frames are not valid zstd (which check failed;
    /// `frames::Error` adds where).
    Corrupt(&'static [u8]),
}
