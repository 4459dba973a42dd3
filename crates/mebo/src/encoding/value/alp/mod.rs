//! ALP (Adaptive Lossless floating-Point) value columns, with the ALP-RD and
//! raw fallbacks (Afroozeh, Kuffó, Boncz, SIGMOD 2024).
//!
//! A column starts with one scheme byte:
//!
//! - **main** (0): values that are decimals stored as doubles become integers
//!   `digit = round(v · 10^e · 10^-f)`, frame-of-reference coded against their
//!   minimum and bit-packed; values that do not decode back bit for bit are
//!   stored verbatim as exceptions.
//! - **RD** (1): full-precision doubles are cut into a left part (the top 1–16
//!   bits, coded through a dictionary of at most 8 entries) and a bit-packed
//!   right part; lefts missing from the dictionary are exceptions.
//! - **raw** (2): 8 bytes per value, when neither beats that.
//!
//! The encoder picks the scheme, exponents, cut and dictionary exactly as the
//! reference does, so its output is byte-identical. `docs/FORMAT.md` has the
//! byte layout.

use crate::byte_order::ByteOrder;
use crate::error::Result;

mod bitpack;
mod decode;
#[cfg(feature = "encode")]
mod encode;
#[cfg(feature = "encode")]
mod lanes;
#[cfg(test)]
mod tests;

/// Scheme byte of an ALP-main column.
const SCHEME_MAIN: u8 = 0;
/// Scheme byte of an ALP-RD column.
const SCHEME_RD: u8 = 1;
/// Scheme byte of a raw column.
const SCHEME_RAW: u8 = 2;

/// Largest decimal exponent `e` (and factor `f`) a main column may use.
const MAX_EXPONENT: u8 = 18;
/// Main header after the scheme byte: e, f, width, exception count (u32), minimum (u64).
const MAIN_HEADER_LEN: usize = 15;
/// One main exception: position (u32), value bits (u64).
const MAIN_EXCEPTION_LEN: usize = 12;
/// RD header after the scheme byte: right width, code width, dictionary size, exception count (u32).
const RD_HEADER_LEN: usize = 7;
/// One RD exception: position (u32), left part (u16).
const RD_EXCEPTION_LEN: usize = 6;
/// An RD dictionary holds at most this many left parts.
const RD_MAX_DICT: usize = 8;
/// An RD left part has at most this many bits, so the right part at least 48.
#[cfg(feature = "encode")]
const RD_MAX_LEFT_BITS: u32 = 16;

/// `10^i`, exact for every index.
const POW10: [f64; 19] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18];

/// The double nearest to `10^-i`. Encode and decode multiply by these tables in
/// a fixed order (never by a precomputed product) because the rounding of each
/// step is part of the format.
const INV_POW10: [f64; 19] =
    [1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18];

/// Width in bits of an RD dictionary code for a dictionary of `dict_len` entries
/// (at least 1, even for a one-entry dictionary).
#[cfg(any(feature = "encode", test))]
#[inline]
fn rd_code_bits(dict_len: usize) -> u32 {
    if dict_len <= 1 {
        1
    } else {
        usize::BITS - (dict_len - 1).leading_zeros()
    }
}

/// Bytes taken by `count` codes of `width` bits packed back to back, or `None`
/// when that does not fit the address space (only a corrupt header gets there).
#[inline]
fn packed_len(count: usize, width: u32) -> Option<usize> {
    let bits = (count as u64).checked_mul(u64::from(width))?;
    usize::try_from(bits.div_ceil(8)).ok()
}

/// The ALP value column codec.
pub struct AlpValues;

impl AlpValues {
    /// Append one metric's column to `out`, choosing scheme, exponent/factor,
    /// bit width, exceptions and ALP-RD parameters exactly as the reference does.
    /// An empty metric writes nothing.
    #[cfg(feature = "encode")]
    pub fn encode(values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
        encode::encode_column(values, order, out);
    }

    /// Decode exactly `out.len()` values from one metric's column
    /// `bytes[..len]`; trailing bytes in it are ignored, short or malformed is
    /// an error. The bytes after it (a payload's next columns) may be read,
    /// never decoded, so that the last codes need no padded copy: the result
    /// is that of the column alone, whatever follows it.
    pub fn decode_within(bytes: &[u8], len: usize, order: ByteOrder, out: &mut [f64]) -> Result<()> {
        decode::decode_column(bytes, len, order, out)
    }
}
