//! Chimp values: XOR of consecutive float64 bit patterns with leading zeros
//! rounded to eight buckets (Liakos et al., VLDB 2022; the plain variant, not
//! Chimp128).
//!
//! Stream (MSB-first, see [`bitstream`](crate::encoding::bitstream)):
//! - the first value: 64 bits;
//! - each next value, `x = bits ^ previous_bits`, `lead` = bucketed leading zeros:
//!   - `00`                                          x == 0
//!   - `01` + 3-bit bucket + 6-bit n + n bits        x >> trailing (trailing > 6)
//!   - `10` + (64 - lead) bits                        same bucket as before
//!   - `11` + 3-bit bucket + (64 - lead) bits          new bucket
//! - zero bits up to the next byte boundary.
//!
//! `n` = 64 - lead - trailing; a 0 in the 6-bit field means 64. `11` sets the
//! remembered bucket, `10` keeps it, `00` and `01` clear it.

use core::hint::select_unpredictable;

use super::xor_stream::{self, XorStream};
use crate::byte_order::ByteOrder;
use crate::encoding::bitstream::{append_bits, BitReader, Tail, AHEAD_HEAD_BITS};
use crate::error::{Error, Result};

/// Chimp XOR float64 column.
pub struct ChimpValues;

/// More trailing zeros than this: store the value without them (`01`).
const TRAILING_THRESHOLD: u32 = 6;
/// Leading-zero counts each 3-bit bucket code stands for.
const BUCKET_LEADING: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];
/// Control bits plus the `01` header: 2 + 3 + 6 bits.
const TRAILING_HEADER_BITS: u32 = 11;
/// At least the bits a value after the first takes: the longest header and 64 bits.
const MAX_VALUE_BITS: usize = TRAILING_HEADER_BITS as usize + 64;

/// Decoder: "no width remembered"; a `10` then has width 0, which is rejected.
const NO_WIDTH: u32 = 0;
/// Encoder: "no bucket remembered" (bucket codes are 0..=7).
const NO_BUCKET: u32 = 8;

/// Bucket code of each leading-zero count (0..=64): the largest bucket whose
/// leading zeros do not exceed it. A table, not a `match`: the match compiles
/// to a chain of compares that mispredicts on noisy data.
const BUCKET_OF_LEADING: [u8; 65] = {
    let mut table = [0u8; 65];
    let mut leading = 0;
    while leading < 65 {
        let mut bucket = 7;
        while BUCKET_LEADING[bucket] > leading as u32 {
            bucket -= 1;
        }
        table[leading] = bucket as u8;
        leading += 1;
    }
    table
};

#[inline(always)]
fn bucket_of(leading: u32) -> u32 {
    u32::from(BUCKET_OF_LEADING[leading as usize])
}

impl ChimpValues {
    /// Append one metric's column to `out`.
    pub fn encode(values: &[f64], _order: ByteOrder, out: &mut Vec<u8>) {
        let Some((first, rest)) = values.split_first() else { return };
        append_bits(out, 64 + rest.len() * MAX_VALUE_BITS, |bits| {
            let mut prev = first.to_bits();
            bits.write_bits(prev, 64);
            // Bucket code remembered by the last `11`, or NO_BUCKET.
            let mut stored_bucket = NO_BUCKET;
            for value in rest {
                let current = value.to_bits();
                let xor = current ^ prev;
                prev = current;
                if xor == 0 {
                    bits.write_zeros(2);
                    stored_bucket = NO_BUCKET;
                    continue;
                }
                let bucket = bucket_of(xor.leading_zeros());
                let lead = BUCKET_LEADING[bucket as usize];
                let trailing = xor.trailing_zeros();
                // Which of the three cases applies changes unpredictably on noisy
                // data: pick header and field with selects, not branches.
                let trimmed = trailing > TRAILING_THRESHOLD;
                let reuse = stored_bucket == bucket;
                let shift = if trimmed { trailing } else { 0 };
                // lead <= leading zeros, so width >= 1; a trimmed width is < 58.
                let width = 64 - lead - shift;
                let (header, header_bits) = if trimmed {
                    ((0b01 << 9) | (bucket << 6) | width, TRAILING_HEADER_BITS)
                } else if reuse {
                    (0b10, 2)
                } else {
                    ((0b11 << 3) | bucket, 5)
                };
                stored_bucket = if trimmed { NO_BUCKET } else { bucket };
                // One field of up to 75 bits: one write when it fits a word.
                bits.write_wide((u128::from(header) << width) | u128::from(xor >> shift), header_bits + width);
            }
        });
    }

    /// Decode exactly `out.len()` values from one metric's column `col`.
    /// Trailing bytes are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [f64]) -> Result<()> {
        xor_stream::run_one::<ChimpStream>(col, out)
    }

    /// [`decode`](Self::decode) for two columns at once, their values
    /// decoded side by side. On an error, which column failed is not known.
    #[inline(never)]
    pub fn decode_two(a: (&[u8], &mut [f64]), b: (&[u8], &mut [f64])) -> Result<()> {
        xor_stream::run_two::<ChimpStream>(a, b)
    }

    /// [`decode`](Self::decode) for four columns at once, their values
    /// decoded side by side. On an error, which column failed is not known.
    #[inline(never)]
    pub fn decode_four(a: (&[u8], &mut [f64]), b: (&[u8], &mut [f64]), c: (&[u8], &mut [f64]), d: (&[u8], &mut [f64])) -> Result<()> {
        xor_stream::run_four::<ChimpStream>(a, b, c, d)
    }
}

/// A Chimp column's decoder between two values.
struct ChimpStream<'a> {
    reader: BitReader<'a>,
    prev: u64,
    /// Width below the leading zeros remembered by the last `11`, or NO_WIDTH.
    stored_width: u32,
}

impl<'a> XorStream<'a> for ChimpStream<'a> {
    const CODEC: &'static str = "chimp";

    type Reader = BitReader<'a>;

    #[inline(always)]
    fn new(reader: BitReader<'a>, prev: u64) -> Self {
        ChimpStream { reader, prev, stored_width: NO_WIDTH }
    }

    #[inline(always)]
    fn step(&mut self, tail: &Tail, out: &mut [f64], next: usize) -> Result<usize> {
        let ahead = self.reader.ahead(tail);
        let window = ahead.head();
        let flag = (window >> 62) as u32;
        if flag == 0b00 {
            // A run of unchanged values: one `00` pair each, taken in one go
            // (within the head's sure bits).
            let run = ((window.leading_zeros().min(AHEAD_HEAD_BITS) / 2) as usize).min(out.len() - next);
            out[next..next + run].fill(f64::from_bits(self.prev));
            self.reader.skip(2 * run as u32);
            self.stored_width = NO_WIDTH;
            return Ok(next + run);
        }
        if flag == 0b01 {
            // Trailing zeros cut off. A branch: rare in noisy data (under 1%
            // of the bench's values), most values of integer-valued series.
            // Inline: as a cold call it made those 35-40% slower.
            let leading = BUCKET_LEADING[(window >> 59) as usize & 7];
            // The 6-bit field; 0 means 64.
            let field_bits = (((window >> 53) as u32 + 63) & 63) + 1;
            // A field reaching below bit 0 wraps trailing around.
            let trailing = (64 - leading).wrapping_sub(field_bits);
            if trailing > 63 {
                return Err(bad_field(flag, leading, field_bits));
            }
            self.stored_width = NO_WIDTH;
            // field_bits is 1..=64 and trailing 0..=63: both shifts are in range.
            let meaningful = ahead.field(TRAILING_HEADER_BITS, field_bits);
            self.reader.skip(TRAILING_HEADER_BITS + field_bits);
            self.prev ^= meaningful << trailing;
            out[next] = f64::from_bits(self.prev);
            return Ok(next + 1);
        }
        // `10` and `11` alternate unpredictably on noisy data: a select, not
        // a branch. Both take every bit below the leading zeros: the stored
        // ones (`10`) or the bucket's (`11`). One table load by the top five
        // bits gives the header's length and, for `11`, the width.
        let case = STEP_TABLE[(window >> 59) as usize];
        let header = u32::from(case >> 8);
        let width = select_unpredictable(case & 0xFF == 0, self.stored_width, u32::from(case & 0xFF));
        // A `10` with nothing stored has width 0.
        if width == NO_WIDTH {
            return Err(bad_field(flag, 0, 0));
        }
        self.stored_width = width;
        // width is 1..=64: the shift in `field` is in range.
        let meaningful = ahead.field(header, width);
        self.reader.skip(header + width);
        self.prev ^= meaningful;
        out[next] = f64::from_bits(self.prev);
        Ok(next + 1)
    }

    fn reader(&self) -> &BitReader<'a> {
        &self.reader
    }
}

/// By the top five bits of a `10` or `11` value: its header's length (high
/// byte) and, for `11`, the bits below its bucket's leading zeros (low byte;
/// 0 for `10`, which takes the stored width). One load in place of the
/// bucket's shift of a packed constant, a compare and a select for the
/// header: four streams 3.41 -> 3.22 ns a value natively.
static STEP_TABLE: [u16; 32] = {
    let mut table = [0u16; 32];
    let mut code = 0;
    while code < 8 {
        table[0b10_000 | code] = 2 << 8;
        table[0b11_000 | code] = (5 << 8) | (64 - BUCKET_LEADING[code]) as u16;
        code += 1;
    }
    table
};

#[cold]
fn bad_field(flag: u32, bucket_lead: u32, field_bits: u32) -> Error {
    let detail = if flag == 0b10 {
        "chimp reuses leading zeros before defining them".to_string()
    } else {
        format!("chimp field of {field_bits} bits below {bucket_lead} leading zeros exceeds 64 bits")
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
        ChimpValues::encode(values, ByteOrder::Little, &mut out);
        out
    }

    #[test]
    fn matches_reference_vectors() {
        assert!(check_against_vectors("chimp", ChimpValues::encode, ChimpValues::decode) > 0);
    }

    #[test]
    fn step_table_by_flag_and_bucket() {
        for (top, &case) in STEP_TABLE.iter().enumerate() {
            let (flag, bucket) = (top >> 3, top & 7);
            let expected = match flag {
                0b10 => (2, 0),
                0b11 => (5, [64, 56, 52, 48, 46, 44, 42, 40][bucket]),
                _ => (0, 0), // `00` and `01` do not read it
            };
            assert_eq!((case >> 8, case & 0xFF), expected, "{top:05b}");
        }
    }

    #[test]
    fn buckets_round_down() {
        let expected = |lz: u32| BUCKET_LEADING.iter().rposition(|&b| b <= lz).unwrap() as u32;
        for lz in 0..=64 {
            assert_eq!(bucket_of(lz), expected(lz), "{lz}");
        }
    }

    #[test]
    fn layout_of_each_case() {
        assert_eq!(encode(&[1.0]), 1f64.to_bits().to_be_bytes());
        // Unchanged: 00, padded.
        assert_eq!(encode(&[1.0, 1.0])[8..], [0x00]);
        // 1.0 ^ 2.0 = 0x7FF0..: leading 1 -> bucket 0, trailing 52 > 6, n = 12:
        // 01 000 001100 + 0111 1111 1111 (23 bits)
        assert_eq!(encode(&[1.0, 2.0])[8..], [0b0100_0001, 0b1000_1111, 0b1111_1110]);
        // XOR 0x...01 twice: `11` + bucket 7 + 40 bits, then `10` + 40 bits.
        let a = f64::from_bits(0x4000_0000_0000_0000);
        let b = f64::from_bits(0x4000_0000_0000_0001);
        let col = encode(&[a, b, a]);
        let mut r = BitReader::new(&col[8..]);
        assert_eq!(r.read_bits(5), 0b11_111);
        assert_eq!(r.read_bits(40), 1);
        assert_eq!(r.read_bits(2), 0b10);
        assert_eq!(r.read_bits(40), 1);
        assert_eq!(col.len(), 8 + (5 + 40 + 2 + 40usize).div_ceil(8));
    }

    #[test]
    fn rejects_malformed_streams() {
        let mut out = [0.0; 3];
        // `10` before any `11`.
        let mut col = 1f64.to_bits().to_be_bytes().to_vec();
        col.extend([0b1000_0000; 9]);
        assert!(ChimpValues::decode(&col, ByteOrder::Little, &mut out).is_err());
        // `01` with bucket 7 (24) and n = 0 (64): exceeds 64 bits.
        let mut col = 1f64.to_bits().to_be_bytes().to_vec();
        col.extend([0b0111_1000, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(ChimpValues::decode(&col, ByteOrder::Little, &mut out).is_err());
        assert!(ChimpValues::decode(&[0; 7], ByteOrder::Little, &mut out[..1]).is_err());
    }

    #[test]
    fn n_zero_means_64_bits() {
        // `01` + bucket 0 + n = 0: a full 64-bit XOR with no trailing zeros.
        let mut col = 0u64.to_be_bytes().to_vec();
        append_bits(&mut col, 11 + 64, |w| {
            w.write_bits(0b01 << 9, 11); // bucket 0, n field 0
            w.write_bits(u64::MAX, 64);
        });
        let mut out = [0.0; 2];
        ChimpValues::decode(&col, ByteOrder::Little, &mut out).unwrap();
        assert_eq!(out[1].to_bits(), u64::MAX);
    }

    #[test]
    fn hostile_input_never_panics() {
        check_hostile_input(ChimpValues::encode, ChimpValues::decode);
    }

    proptest! {
        #[test]
        fn round_trips_by_bits(values in float_series()) {
            assert_round_trip(ChimpValues::encode, ChimpValues::decode, &values, ByteOrder::Little)?;
        }
    }
}
