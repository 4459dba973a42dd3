//! Gorilla values: XOR of consecutive float64 bit patterns, stored as a bit
//! stream with a reusable "meaningful bits" window (Pelkonen et al., VLDB 2015),
//! in the variant of the reference encoder.
//!
//! Stream (MSB-first, see [`bitstream`](crate::encoding::bitstream)):
//! - the first value: 64 bits;
//! - each next value, `x = bits ^ previous_bits`:
//!   - `0`                              x == 0
//!   - `10` + `size` bits               x fits the previous window
//!   - `11` + 5-bit leading + 6-bit (size - 1) + `size` bits   new window
//! - zero bits up to the next byte boundary.
//!
//! The window of a new block starts `leading` bits from the top and is `size`
//! bits wide; the bits below it (`64 - leading - size`) are zero in `x`. A
//! value reuses the previous window when its XOR fits inside it. The 6-bit
//! field holds `size - 1`, so a full 64-bit window is representable.

use super::xor_stream::{self, XorStream};
use crate::byte_order::ByteOrder;
use crate::encoding::bitstream::{append_bits, Tail, AHEAD_HEAD_BITS};
use crate::error::{Error, Result};

/// Gorilla XOR float64 column.
pub struct GorillaValues;

/// Widest leading-zero count the 5-bit field holds.
const MAX_LEADING: u32 = 31;
/// Control bits plus the new-window header: `11` + 5 + 6 bits.
const NEW_BLOCK_HEADER_BITS: u32 = 13;
/// The most bits a value after the first takes: a new window's header and 64 bits.
const MAX_VALUE_BITS: usize = NEW_BLOCK_HEADER_BITS as usize + 64;

impl GorillaValues {
    /// Append one metric's column to `out`.
    pub fn encode(values: &[f64], _order: ByteOrder, out: &mut Vec<u8>) {
        let Some((first, rest)) = values.split_first() else { return };
        append_bits(out, 64 + rest.len() * MAX_VALUE_BITS, |bits| {
            let mut prev = first.to_bits();
            bits.write_bits(prev, 64);
            // Current window; `size == 0` means none yet.
            let (mut win_leading, mut win_trailing, mut win_size) = (0u32, 0u32, 0u32);
            for value in rest {
                let current = value.to_bits();
                let xor = current ^ prev;
                prev = current;
                if xor == 0 {
                    bits.write_zeros(1);
                    continue;
                }
                // Leading zeros beyond 31 do not fit the 5-bit field. The reference
                // then clamps leading to 31 and also lowers trailing by the excess
                // (floored at 0): not the narrowest window, but the bytes and the
                // reuse test below depend on it.
                let excess = xor.leading_zeros().saturating_sub(MAX_LEADING);
                let leading = xor.leading_zeros() - excess;
                let trailing = xor.trailing_zeros().saturating_sub(excess);
                // Reuse or not changes unpredictably on noisy data: select the
                // header and field instead of branching.
                let reuse = (win_size > 0) & (leading >= win_leading) & (trailing >= win_trailing);
                let size = 64 - leading - trailing;
                let (header, header_bits) =
                    if reuse { (0b10, 2) } else { ((0b11 << 11) | (leading << 6) | (size - 1), NEW_BLOCK_HEADER_BITS) };
                if !reuse {
                    (win_leading, win_trailing, win_size) = (leading, trailing, size);
                }
                // Header and window in one field of up to 77 bits: one write
                // when it fits a word, as most do.
                let field = (u128::from(header) << win_size) | u128::from(xor >> win_trailing);
                bits.write_wide(field, header_bits + win_size);
            }
        });
    }

    /// Decode exactly `out.len()` values from one metric's column `col`.
    /// Trailing bytes are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [f64]) -> Result<()> {
        let mut buf = Vec::new();
        let [col] = as_read([col], &mut buf)?;
        xor_stream::run_one::<GorillaStream>(col, out)
    }

    /// [`decode`](Self::decode) for two columns at once, their values
    /// decoded side by side (in wasm; one after the other on x86-64, see
    /// `decode_four`). On an error, which column failed is not known.
    #[inline(never)]
    pub fn decode_two(a: (&[u8], &mut [f64]), b: (&[u8], &mut [f64])) -> Result<()> {
        #[cfg(target_arch = "x86_64")]
        {
            // See `decode_four`.
            Self::decode_each([a, b])
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut buf = Vec::new();
            let [col_a, col_b] = as_read([a.0, b.0], &mut buf)?;
            xor_stream::run_two::<GorillaStream>((col_a, a.1), (col_b, b.1))
        }
    }

    /// [`decode`](Self::decode) for four columns at once, their values
    /// decoded side by side (in wasm; one after the other on x86-64, see
    /// `decode_four`). On an error, which column failed is not known.
    #[inline(never)]
    pub fn decode_four(a: (&[u8], &mut [f64]), b: (&[u8], &mut [f64]), c: (&[u8], &mut [f64]), d: (&[u8], &mut [f64])) -> Result<()> {
        #[cfg(target_arch = "x86_64")]
        {
            // On x86-64 one column after the other is the faster loop (bench
            // kernels, one sitting: 2.50 ns a value against 2.72 for four
            // streams, 2.69 for two): one stream's chain is short since the
            // value bits are read apart from it (`Chunk`), and four streams'
            // state does not fit the registers.
            Self::decode_each([a, b, c, d])
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut buf = Vec::new();
            let [col_a, col_b, col_c, col_d] = as_read([a.0, b.0, c.0, d.0], &mut buf)?;
            xor_stream::run_four::<GorillaStream>((col_a, a.1), (col_b, b.1), (col_c, c.1), (col_d, d.1))
        }
    }

    /// Each column decoded by itself, stopping at the first error.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn decode_each<const N: usize>(cols: [(&[u8], &mut [f64]); N]) -> Result<()> {
        cols.into_iter().try_for_each(|(col, out)| xor_stream::run_one::<GorillaStream>(col, out))
    }
}

/// The columns as [`GorillaReader`] reads them: in the scalar wasm build
/// laid out reversed into `buf` (a copy per call; see
/// `bitstream::reversed`), elsewhere as stored (`buf` unused).
#[inline(always)]
fn as_read<'b, const N: usize>(cols: [&'b [u8]; N], buf: &'b mut Vec<u8>) -> Result<[&'b [u8]; N]> {
    #[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
    {
        crate::encoding::bitstream::reversed::lay_out(cols, buf)
    }
    #[cfg(not(all(target_arch = "wasm32", not(target_feature = "simd128"))))]
    {
        let _ = buf;
        Ok(cols)
    }
}

/// What a Gorilla stream reads through: without simd128 in wasm, a column
/// laid out reversed (no byte swap a read), elsewhere the column as stored.
#[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
type GorillaReader<'a> = crate::encoding::bitstream::reversed::ReversedReader<'a>;
#[cfg(not(all(target_arch = "wasm32", not(target_feature = "simd128"))))]
type GorillaReader<'a> = crate::encoding::bitstream::BitReader<'a>;

/// `win_trailing` before any window is defined: makes a reuse fail.
const NO_WINDOW: u32 = u32::MAX;

/// A Gorilla column's decoder between two values.
struct GorillaStream<'a> {
    reader: GorillaReader<'a>,
    prev: u64,
    /// Current window: value bits land at `win_trailing`; a `win_trailing`
    /// above 63 means no usable window (none defined yet, or a bad one).
    win_trailing: u32,
    win_size: u32,
}

impl<'a> XorStream<'a> for GorillaStream<'a> {
    const CODEC: &'static str = "gorilla";

    type Reader = GorillaReader<'a>;

    #[inline(always)]
    fn new(reader: GorillaReader<'a>, prev: u64) -> Self {
        GorillaStream { reader, prev, win_trailing: NO_WINDOW, win_size: 0 }
    }

    #[inline(always)]
    fn step(&mut self, tail: &Tail, out: &mut [f64], next: usize) -> Result<usize> {
        let ahead = self.reader.ahead(tail);
        let window = ahead.head();
        if window >> 63 == 0 {
            // A run of unchanged values: one 0 bit each, taken in one go (up
            // to AHEAD_HEAD_BITS: zeros past those may not be the stream's).
            let run = (window.leading_zeros().min(AHEAD_HEAD_BITS) as usize).min(out.len() - next);
            out[next..next + run].fill(f64::from_bits(self.prev));
            self.reader.skip(run as u32);
            return Ok(next + run);
        }
        // A branch on the window kind: it predicts well (on the bench data
        // nearly every value opens a new window), and selects measured
        // 1.2-1.5x slower.
        let new_window = window & (1 << 62) != 0;
        let leading = (window >> 57) as u32 & 0x1F;
        let size = ((window >> 51) as u32 & 0x3F) + 1;
        if new_window {
            self.win_size = size;
            self.win_trailing = 64u32.wrapping_sub(leading + size); // wraps when leading + size > 64
        }
        // A window's size is 1..=64, and its trailing zeros wrap past 63 when
        // leading + size > 64: one test covers that and "no window yet".
        if self.win_trailing > 63 {
            return Err(bad_window(new_window, leading, size));
        }
        let header = if new_window { NEW_BLOCK_HEADER_BITS } else { 2 };
        // win_size is 1..=64 and win_trailing 0..=63: both shifts are in range.
        let meaningful = ahead.field(header, self.win_size);
        self.reader.skip(header + self.win_size);
        self.prev ^= meaningful << self.win_trailing;
        out[next] = f64::from_bits(self.prev);
        Ok(next + 1)
    }

    fn reader(&self) -> &GorillaReader<'a> {
        &self.reader
    }
}

#[cold]
fn bad_window(new_window: bool, leading: u32, size: u32) -> Error {
    let detail = if new_window {
        format!("gorilla window of {leading} leading zeros and {size} bits exceeds 64 bits")
    } else {
        "gorilla reuses a window before defining one".to_string()
    };
    Error::corrupt("value", detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::value::raw::codec_tests::{assert_round_trip, check_against_vectors, check_hostile_input, float_series};
    use proptest::prelude::*;

    fn encode(values: &[f64]) -> Vec<u8> {
        let mut out = Vec::new();
        GorillaValues::encode(values, ByteOrder::Little, &mut out);
        out
    }

    #[test]
    fn matches_reference_vectors() {
        assert!(check_against_vectors("gorilla", GorillaValues::encode, GorillaValues::decode) > 0);
    }

    #[test]
    fn layout_of_each_case() {
        assert_eq!(encode(&[]), [] as [u8; 0]);
        assert_eq!(encode(&[1.0]), 1f64.to_bits().to_be_bytes());
        // Unchanged: one 0 bit, padded.
        assert_eq!(encode(&[1.0, 1.0])[8..], [0x00]);
        // 1.0 ^ 2.0 = 0x7FF0.., leading 1, trailing 52, size 11:
        // 11 00001 001010 11111111111 -> 1100 0010 0101 0111 1111 1111 (24 bits)
        assert_eq!(encode(&[1.0, 2.0])[8..], [0xC2, 0x57, 0xFF]);
        // Back to 1.0: same XOR fits the window: 10 + 11 bits.
        assert_eq!(encode(&[1.0, 2.0, 1.0])[8..], [0xC2, 0x57, 0xFF, 0xBF, 0xF8]);
    }

    #[test]
    fn clamps_leading_zeros_like_the_reference() {
        // XOR 1: 63 leading zeros, clamped to 31; trailing 0 stays 0, size 33.
        let a = f64::from_bits(0x4000_0000_0000_0000);
        let b = f64::from_bits(0x4000_0000_0000_0001);
        let col = encode(&[a, b]);
        let mut r = crate::encoding::bitstream::BitReader::new(&col[8..]);
        assert_eq!(r.read_bits(2), 0b11);
        assert_eq!(r.read_bits(5), 31);
        assert_eq!(r.read_bits(6), 32);
        assert_eq!(r.read_bits(33), 1);
        // XOR 0x100 (leading 55, trailing 8): trailing lowered by 24 -> 0.
        let c = f64::from_bits(0x4000_0000_0000_0101);
        let col = encode(&[b, c]);
        let mut r = crate::encoding::bitstream::BitReader::new(&col[8..]);
        assert_eq!(r.read_bits(13), (0b11 << 11) | (31 << 6) | 32);
    }

    #[test]
    fn rejects_malformed_streams() {
        let mut out = [0.0; 3];
        // Reuse bit before any window.
        let mut col = 1f64.to_bits().to_be_bytes().to_vec();
        col.extend([0b1000_0000, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(GorillaValues::decode(&col, ByteOrder::Little, &mut out).is_err());
        // leading 31 + size 64 > 64.
        let mut col = 1f64.to_bits().to_be_bytes().to_vec();
        col.extend([0b1111_1111, 0b1111_1000, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(GorillaValues::decode(&col, ByteOrder::Little, &mut out).is_err());
        // Short first value.
        assert!(GorillaValues::decode(&[0; 7], ByteOrder::Little, &mut out[..1]).is_err());
        assert!(GorillaValues::decode(&[], ByteOrder::Little, &mut []).is_ok());
    }

    #[test]
    fn leading_zero_size_64_window_decodes() {
        // 11 00000 111111: a full 64-bit window, leading 0, trailing 0.
        let mut col = 0u64.to_be_bytes().to_vec();
        append_bits(&mut col, 13 + 64 + 2 + 64, |w| {
            w.write_bits((0b11 << 11) | 0x3F, 13); // leading 0, size - 1 = 63
            w.write_bits(0xDEAD_BEEF_0123_4567, 64);
            w.write_bits(0b10, 2);
            w.write_bits(0xDEAD_BEEF_0123_4567, 64);
        });
        let mut out = [0.0; 3];
        GorillaValues::decode(&col, ByteOrder::Little, &mut out).unwrap();
        assert_eq!(out.map(f64::to_bits), [0, 0xDEAD_BEEF_0123_4567, 0]);
    }

    #[test]
    fn hostile_input_never_panics() {
        check_hostile_input(GorillaValues::encode, GorillaValues::decode);
    }

    proptest! {
        #[test]
        fn round_trips_by_bits(values in float_series()) {
            assert_round_trip(GorillaValues::encode, GorillaValues::decode, &values, ByteOrder::Little)?;
        }
    }
}
