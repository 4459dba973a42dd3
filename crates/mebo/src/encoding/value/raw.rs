//! Raw values: each float64's IEEE-754 bits as a u64 in the blob's byte order,
//! 8 bytes per point, no header.

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};

/// Fixed-width float64 column.
pub struct RawValues;

impl RawValues {
    /// Append one metric's column to `out`.
    pub fn encode(values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + values.len() * 8, 0);
        let words = out[start..].chunks_exact_mut(8).zip(values);
        // One loop per byte order so each compiles to a plain copy/bswap loop.
        match order {
            ByteOrder::Little => words.for_each(|(w, v)| w.copy_from_slice(&v.to_bits().to_le_bytes())),
            ByteOrder::Big => words.for_each(|(w, v)| w.copy_from_slice(&v.to_bits().to_be_bytes())),
        }
    }

    /// Decode exactly `out.len()` values from one metric's column `col`.
    /// Trailing bytes are ignored. Short/malformed -> Err.
    pub fn decode(col: &[u8], order: ByteOrder, out: &mut [f64]) -> Result<()> {
        if col.len() / 8 < out.len() {
            return Err(Error::corrupt(
                "value",
                format!("raw column has {} bytes, {} points need {}", col.len(), out.len(), out.len().saturating_mul(8)),
            ));
        }
        let words = col.chunks_exact(8).zip(out.iter_mut());
        match order {
            ByteOrder::Little => {
                for (word, slot) in words {
                    *slot = f64::from_bits(u64::from_le_bytes(to_array(word)));
                }
            }
            ByteOrder::Big => {
                for (word, slot) in words {
                    *slot = f64::from_bits(u64::from_be_bytes(to_array(word)));
                }
            }
        }
        Ok(())
    }
}

/// An 8-byte chunk from `chunks_exact(8)` as an array (the length is known, so
/// the fallback never runs and the conversion compiles away).
#[inline(always)]
fn to_array(chunk: &[u8]) -> [u8; 8] {
    chunk.first_chunk::<8>().copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::codec_tests::{assert_round_trip, check_against_vectors, check_hostile_input, float_series};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn matches_reference_vectors() {
        assert!(check_against_vectors("raw", RawValues::encode, RawValues::decode) > 0);
    }

    #[test]
    fn byte_order_is_per_value() {
        let mut le = Vec::new();
        let mut be = Vec::new();
        RawValues::encode(&[1.0], ByteOrder::Little, &mut le);
        RawValues::encode(&[1.0], ByteOrder::Big, &mut be);
        assert_eq!(le, [0, 0, 0, 0, 0, 0, 0xF0, 0x3F]);
        assert_eq!(be, [0x3F, 0xF0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn short_columns_fail() {
        let mut out = [0.0; 2];
        assert!(RawValues::decode(&[0; 15], ByteOrder::Little, &mut out).is_err());
        assert!(RawValues::decode(&[0; 17], ByteOrder::Big, &mut out).is_ok());
        assert!(RawValues::decode(&[], ByteOrder::Big, &mut []).is_ok());
    }

    #[test]
    fn hostile_input_never_panics() {
        check_hostile_input(RawValues::encode, RawValues::decode);
    }

    proptest! {
        #[test]
        fn round_trips_by_bits(values in float_series(), big in any::<bool>()) {
            let order = if big { ByteOrder::Big } else { ByteOrder::Little };
            assert_round_trip(RawValues::encode, RawValues::decode, &values, order)?;
        }
    }
}

/// Checks shared by the raw, Gorilla and Chimp tests: reference vectors,
/// hostile input, round-trip strategies.
#[cfg(test)]
pub(super) mod codec_tests {
    use crate::byte_order::ByteOrder;
    use crate::error::Result;
    use crate::test_support::{read_blob, read_input, v1_columns, vectors_dir};
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    pub type EncodeFn = fn(&[f64], ByteOrder, &mut Vec<u8>);
    pub type DecodeFn = fn(&[u8], ByteOrder, &mut [f64]) -> Result<()>;

    /// Names of the v1 cases without codecs whose value encoding is `encoding`.
    fn v1_cases(encoding: &str) -> Vec<(String, String)> {
        let mut cases = Vec::new();
        for entry in std::fs::read_dir(vectors_dir().join("blobs")).expect("vector blobs") {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(case) = name.strip_suffix(".mebo") else { continue };
            let Some(rest) = case.strip_prefix("num-").and_then(|c| c.strip_suffix("-v1")) else { continue };
            // <dataset>-<tsEnc>-<tsComp>-<valEnc>-<valComp>-<tags>-<order>; the
            // dataset may itself contain dashes, so split from the right.
            let fields: Vec<&str> = rest.rsplitn(7, '-').collect();
            let [_order, _tags, val_comp, val_enc, ts_comp, _ts_enc, dataset] = fields[..] else { continue };
            if val_enc == encoding && val_comp == "none" && ts_comp == "none" {
                cases.push((case.to_string(), dataset.to_string()));
            }
        }
        cases.sort();
        cases
    }

    /// (metric id, point count, value column) of each metric of a v1 blob.
    type ValueColumns = (ByteOrder, Vec<(u64, usize, Vec<u8>)>);

    fn cut_with_test_support(blob: &[u8]) -> ValueColumns {
        let (order, cols) = v1_columns(blob);
        (order, cols.into_iter().map(|c| (c.id, c.count, c.values)).collect())
    }

    /// Cut only the value columns of a v1 no-codec blob. `v1_columns` also cuts
    /// the tag payload by the index's tag-offset deltas, which in the tagged
    /// vectors add up to more than the tag payload, so it cannot be used there.
    fn value_columns(blob: &[u8]) -> ValueColumns {
        let order = if u16::from_le_bytes([blob[0], blob[1]]) & 0x2 != 0 { ByteOrder::Big } else { ByteOrder::Little };
        let u32_at = |p: usize| order.u32(blob[p..p + 4].try_into().unwrap()) as usize;
        let u16_at = |p: usize| order.u16(blob[p..p + 2].try_into().unwrap()) as usize;
        let (count, values_start, tags_start) = (u32_at(12), u32_at(24), u32_at(28));
        let mut starts = Vec::with_capacity(count + 1);
        let mut offset = 0;
        let mut meta = Vec::with_capacity(count);
        for i in 0..count {
            let entry = 32 + i * 16;
            offset += u16_at(entry + 12);
            starts.push(values_start + offset);
            meta.push((order.u64(blob[entry..entry + 8].try_into().unwrap()), u16_at(entry + 8)));
        }
        starts.push(tags_start);
        let cols = meta.into_iter().enumerate().map(|(i, (id, n))| (id, n, blob[starts[i]..starts[i + 1]].to_vec())).collect();
        (order, cols)
    }

    /// Encode every metric of every matching vector and compare with the
    /// reference column byte for byte; decode every reference column and
    /// compare with the input by bits. Returns the number of columns checked.
    pub fn check_against_vectors(encoding: &str, encode: EncodeFn, decode: DecodeFn) -> usize {
        let cases = v1_cases(encoding);
        assert!(!cases.is_empty(), "no vectors for {encoding}");
        let (mut columns, mut big_endian) = (0, 0);
        for (case, dataset) in &cases {
            let blob = read_blob(case);
            let (order, cols) = if case.contains("-tags-") { value_columns(&blob) } else { cut_with_test_support(&blob) };
            let input = read_input(dataset);
            assert_eq!(cols.len(), input.metrics.len(), "{case}");
            for (i, ((id, count, column), metric)) in cols.iter().zip(&input.metrics).enumerate() {
                assert_eq!(*id, metric.id, "{case} metric #{i}");
                assert_eq!(*count, metric.values.len(), "{case} metric #{i}");
                let mut encoded = vec![0xEE]; // appends after existing bytes
                encode(&metric.values, order, &mut encoded);
                assert!(encoded[1..] == column[..], "{case} metric #{i}: encoded column differs");
                let mut decoded = vec![0.0; *count];
                decode(column, order, &mut decoded).unwrap_or_else(|e| panic!("{case} metric #{i}: {e}"));
                let got: Vec<u64> = decoded.iter().map(|v| v.to_bits()).collect();
                let want: Vec<u64> = metric.values.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{case} metric #{i}: decoded values differ");
                columns += 1;
                big_endian += usize::from(order == ByteOrder::Big);
            }
        }
        println!("{encoding}: {} cases, {columns} columns byte-identical ({big_endian} big endian)", cases.len());
        columns
    }

    /// Every strict truncation of an encoded column must fail and random bytes
    /// must decode to Ok or Err; nothing may panic.
    pub fn check_hostile_input(encode: EncodeFn, decode: DecodeFn) {
        let special = read_input("special");
        let mut series: Vec<Vec<f64>> = special.metrics.into_iter().map(|m| m.values).collect();
        series.push((0..300).map(|i| f64::from(i).sin() * 1e3).collect());
        series.push((0..300).map(|i| f64::from_bits(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i + 1))).collect());
        for order in [ByteOrder::Little, ByteOrder::Big] {
            for values in &series {
                let mut col = Vec::new();
                encode(values, order, &mut col);
                let mut out = vec![0.0; values.len()];
                assert!(decode(&col, order, &mut out).is_ok());
                for cut in 0..col.len() {
                    assert!(decode(&col[..cut], order, &mut out).is_err(), "truncated to {cut} of {}", col.len());
                }
                // Asking for more points than were written must not panic either.
                let mut more = vec![0.0; values.len() + 70];
                let _ = decode(&col, order, &mut more);
            }
        }
        // Deterministic garbage (xorshift), all lengths up to 64 and a few long ones.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..4000usize {
            let len = if round % 10 == 0 { 512 } else { round % 65 };
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 3 == 0 {
                // Mostly-one bytes exercise the header paths, mostly-zero the runs.
                bytes.iter_mut().for_each(|b| *b |= (next() as u8) | 0xC0);
            } else if round % 3 == 1 {
                bytes.iter_mut().for_each(|b| *b &= next() as u8 & 0x0F);
            }
            let mut out = vec![0.0; (next() % 2000) as usize];
            let order = if round % 2 == 0 { ByteOrder::Little } else { ByteOrder::Big };
            let _ = decode(&bytes, order, &mut out);
        }
    }

    /// Encode then decode `values`, comparing by bits; also checks that trailing
    /// bytes after the column are ignored.
    pub fn assert_round_trip(encode: EncodeFn, decode: DecodeFn, values: &[f64], order: ByteOrder) -> Result<(), TestCaseError> {
        let mut col = Vec::new();
        encode(values, order, &mut col);
        col.extend_from_slice(&[0xFF, 0x00, 0xA5]);
        let mut out = vec![0.0; values.len()];
        decode(&col, order, &mut out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (i, (a, b)) in values.iter().zip(&out).enumerate() {
            prop_assert_eq!(a.to_bits(), b.to_bits(), "point {}", i);
        }
        Ok(())
    }

    /// A step from one value to the next in a generated series.
    #[derive(Debug, Clone)]
    enum Step {
        Repeat(u8),
        FlipLowBits(u64),
        FlipBit(u8),
        AddUlps(i8),
        Jump(u64),
    }

    /// Series of floats: arbitrary bit patterns (NaN payloads, -0.0,
    /// subnormals, infinities) and series that repeat or change a little.
    pub fn float_series() -> impl Strategy<Value = Vec<f64>> {
        let arbitrary = prop::collection::vec(any::<u64>().prop_map(f64::from_bits), 0..300);
        let step = prop_oneof![
            (1u8..40).prop_map(Step::Repeat),
            any::<u16>().prop_map(|m| Step::FlipLowBits(u64::from(m))),
            (0u8..64).prop_map(Step::FlipBit),
            any::<i8>().prop_map(Step::AddUlps),
            any::<u64>().prop_map(Step::Jump),
        ];
        let walk = (any::<u64>(), prop::collection::vec(step, 0..200)).prop_map(|(start, steps)| {
            let mut bits = start;
            let mut series = vec![f64::from_bits(bits)];
            for step in steps {
                match step {
                    Step::Repeat(n) => {
                        series.extend(std::iter::repeat_n(f64::from_bits(bits), usize::from(n)));
                        continue;
                    }
                    Step::FlipLowBits(mask) => bits ^= mask,
                    Step::FlipBit(b) => bits ^= 1 << b,
                    Step::AddUlps(d) => bits = bits.wrapping_add_signed(i64::from(d)),
                    Step::Jump(to) => bits = to,
                }
                series.push(f64::from_bits(bits));
            }
            series
        });
        let special = prop::collection::vec(
            prop::sample::select(vec![
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::from_bits(0x7FF0_0000_0000_0001),
                f64::from_bits(0xFFF8_0000_DEAD_BEEF),
                f64::from_bits(1),
                f64::MIN_POSITIVE,
                f64::MAX,
                f64::MIN,
                1.0,
            ]),
            0..100,
        );
        prop_oneof![arbitrary, walk, special]
    }
}
