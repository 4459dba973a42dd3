//! Raw timestamps: each point is its int64 as 8 bytes in the blob's byte order.
//!
//! The only timestamp encoding that follows the byte order, and the only one
//! with random access (point `i` lives at bytes `8*i..8*i+8`).

use super::corrupt;
use crate::byte_order::ByteOrder;
use crate::error::Result;

/// Fixed-width 8-byte timestamps.
pub struct RawTimestamps;

const WIDTH: usize = 8;

impl RawTimestamps {
    /// Append one metric's column to `out`.
    #[cfg(feature = "encode")]
    pub fn encode(timestamps: &[i64], order: ByteOrder, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + timestamps.len() * WIDTH, 0);
        let words = out[start..].chunks_exact_mut(WIDTH).zip(timestamps);
        // One loop per byte order keeps the order test out of the loop body;
        // stores into the slice compile to vector copies.
        match order {
            ByteOrder::Little => words.for_each(|(w, ts)| w.copy_from_slice(&ts.to_le_bytes())),
            ByteOrder::Big => words.for_each(|(w, ts)| w.copy_from_slice(&ts.to_be_bytes())),
        }
    }

    /// Decode exactly `out.len()` timestamps from one metric's column `col`.
    /// Trailing bytes after the last point are ignored. Short/malformed -> Err.
    pub fn decode(col: &[u8], order: ByteOrder, out: &mut [i64]) -> Result<()> {
        let bytes = out.len().checked_mul(WIDTH).and_then(|n| col.get(..n)).ok_or_else(|| {
            corrupt(format!("{} raw timestamps need {} bytes, column has {}", out.len(), out.len().saturating_mul(WIDTH), col.len()))
        })?;
        let words = bytes.chunks_exact(WIDTH);
        // `chunks_exact` guarantees 8 bytes, so the conversion never fails and
        // its fallback is optimized away; the loops compile to vector copies.
        let word = |chunk: &[u8]| <[u8; WIDTH]>::try_from(chunk).unwrap_or_default();
        match order {
            ByteOrder::Little => out.iter_mut().zip(words).for_each(|(ts, w)| *ts = i64::from_le_bytes(word(w))),
            ByteOrder::Big => out.iter_mut().zip(words).for_each(|(ts, w)| *ts = i64::from_be_bytes(word(w))),
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::super::test_vectors::{cases, deterministic_runner, edge_sequences};
    use super::*;
    use proptest::prelude::*;

    const ORDERS: [ByteOrder; 2] = [ByteOrder::Little, ByteOrder::Big];

    fn encoded(ts: &[i64], order: ByteOrder) -> Vec<u8> {
        let mut out = Vec::new();
        RawTimestamps::encode(ts, order, &mut out);
        out
    }

    fn decoded(col: &[u8], order: ByteOrder, n: usize) -> Result<Vec<i64>> {
        let mut out = vec![0; n];
        RawTimestamps::decode(col, order, &mut out).map(|()| out)
    }

    #[test]
    fn matches_reference_vectors_byte_for_byte() {
        let (mut columns, mut by_order) = (0, [0usize; 2]);
        for case in cases("raw") {
            for (col, ts) in case.columns.iter().zip(&case.timestamps) {
                assert_eq!(encoded(ts, case.order), col.timestamps, "{}: metric {:016x}", case.name, col.id);
                assert_eq!(&decoded(&col.timestamps, case.order, ts.len()).unwrap(), ts, "{}", case.name);
                columns += 1;
            }
            by_order[(case.order == ByteOrder::Big) as usize] += 1;
        }
        eprintln!("raw: {columns} columns matched, cases le/be = {by_order:?}");
        assert!(by_order[0] > 0 && by_order[1] > 0, "both byte orders covered");
    }

    #[test]
    fn layout_is_fixed_width_in_blob_order() {
        assert_eq!(encoded(&[1, -1], ByteOrder::Little), [1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(encoded(&[1], ByteOrder::Big), [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(encoded(&[i64::MIN], ByteOrder::Big), [0x80, 0, 0, 0, 0, 0, 0, 0]);
        assert!(encoded(&[], ByteOrder::Little).is_empty());
    }

    #[test]
    fn round_trips_edge_sequences_and_appends() {
        for order in ORDERS {
            for ts in edge_sequences() {
                let mut out = vec![0xAA];
                RawTimestamps::encode(&ts, order, &mut out);
                assert_eq!(out.len(), 1 + 8 * ts.len());
                assert_eq!(decoded(&out[1..], order, ts.len()).unwrap(), ts);
            }
        }
    }

    #[test]
    fn trailing_bytes_are_ignored_and_short_columns_fail() {
        let mut col = encoded(&[5, 6, 7], ByteOrder::Little);
        col.extend_from_slice(&[1, 2, 3]);
        assert_eq!(decoded(&col, ByteOrder::Little, 3).unwrap(), [5, 6, 7]);
        assert_eq!(decoded(&col, ByteOrder::Little, 2).unwrap(), [5, 6]);
        assert_eq!(decoded(&[], ByteOrder::Little, 0).unwrap(), Vec::<i64>::new());
        for len in 0..24 {
            let err = decoded(&col[..len], ByteOrder::Little, 3).unwrap_err();
            assert_eq!(err.code(), "CORRUPT_COLUMN");
        }
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let mut runner = deterministic_runner(1000);
        runner
            .run(&(proptest::collection::vec(any::<u8>(), 0..80), 0usize..12), |(bytes, n)| {
                for order in ORDERS {
                    let _ = decoded(&bytes, order, n);
                }
                Ok(())
            })
            .unwrap();
    }

    proptest! {
        #[test]
        fn round_trips_any_sequence(ts in proptest::collection::vec(any::<i64>(), 0..200), big in any::<bool>()) {
            let order = if big { ByteOrder::Big } else { ByteOrder::Little };
            prop_assert_eq!(decoded(&encoded(&ts, order), order, ts.len()).unwrap(), ts);
        }
    }
}
