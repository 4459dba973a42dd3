//! Delta-of-delta timestamps in LEB128 varints.
//!
//! Point 0 is an unsigned varint of the timestamp's two's-complement bits (so a
//! negative timestamp takes 10 bytes), point 1 a zigzag varint of the first
//! delta, every later point a zigzag varint of its delta minus the previous delta.
//! Regular series cost one byte a point. All arithmetic wraps, so every int64
//! sequence round-trips, including jumps across the whole int64 range (which
//! need 10-byte varints; the reference decoder stops at those, this one does not).

use super::{corrupt, decode_delta_head, DeltaState};
use crate::byte_order::ByteOrder;
use crate::encoding::varint;
use crate::error::Result;

/// Delta-of-delta timestamps, one varint per point.
pub struct DeltaTimestamps;

impl DeltaTimestamps {
    /// Append one metric's column to `out`.
    #[cfg(feature = "encode")]
    pub fn encode(timestamps: &[i64], _order: ByteOrder, out: &mut Vec<u8>) {
        let (DeltaState { ts: mut prev_ts, delta: mut prev_delta, .. }, rest) = super::encode_delta_head(timestamps, out);
        // Most points of a real series take one or two bytes.
        out.reserve(rest.len() * 2);
        for &ts in rest {
            let delta = ts.wrapping_sub(prev_ts);
            varint::put_uvarint(out, varint::zigzag(delta.wrapping_sub(prev_delta)));
            prev_ts = ts;
            prev_delta = delta;
        }
    }

    /// Decode exactly `out.len()` timestamps from one metric's column `col`.
    /// Trailing bytes after the last point are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [i64]) -> Result<()> {
        let (state, rest) = decode_delta_head(col, out)?;
        decode_delta_of_deltas(col, state, rest).map_err(|pos| corrupt(format!("delta-of-delta varint at byte {pos} is short or invalid")))
    }
}

/// The hot loop: fill `out` from the varints at `state.pos`. Fails with the
/// byte position of the bad varint; the error is built by the caller, which
/// keeps this loop small.
fn decode_delta_of_deltas(col: &[u8], state: DeltaState, out: &mut [i64]) -> Result<(), usize> {
    let DeltaState { pos, mut ts, mut delta } = state;
    // The unread bytes as a slice rather than a position: "8 bytes left?" is
    // then one compare, and the position is only computed for an error.
    let mut rest = col.get(pos..).unwrap_or_default();
    for slot in out {
        let zigzag = match rest.first_chunk::<8>().map(|word| short_varint(u64::from_le_bytes(*word))) {
            // 1 to 3 bytes of at least 8: no bounds check left to make.
            Some(Some((value, len))) => {
                rest = &rest[len..];
                value
            }
            _ => {
                let mut len = 0;
                let value = varint::read_uvarint(rest, &mut len).ok_or(col.len() - rest.len())?;
                rest = &rest[len..];
                value
            }
        };
        delta = delta.wrapping_add(varint::unzigzag(zigzag));
        ts = ts.wrapping_add(delta);
        *slot = ts;
    }
    Ok(())
}

/// The varint at the start of `w` (8 bytes, little endian) if it takes 1 to 3
/// bytes, as real series' delta-of-deltas do, with its length. Plain branches
/// on the stop bits: once they are predicted the CPU runs ahead to the next
/// varint, whereas a branch-free decode makes every point wait on the load at
/// the position the last one computed (measured about twice as slow on
/// jittered series; decoding two varints per load was no faster either).
#[inline(always)]
fn short_varint(w: u64) -> Option<(u64, usize)> {
    if w & 0x80 == 0 {
        return Some((w & 0x7f, 1));
    }
    let two = (w & 0x7f) | (w >> 1 & 0x3f80);
    if w & 0x8000 == 0 {
        return Some((two, 2));
    }
    if w & 0x80_0000 == 0 {
        return Some((two | (w >> 2 & 0x1f_c000), 3));
    }
    None
}

/// The varint at the start of `data` and its length: [`short_varint`] when 8
/// bytes are left, else the plain reader.
#[cfg(all(test, feature = "encode"))]
fn read_varint(data: &[u8]) -> Option<(u64, usize)> {
    if let Some(short) = data.first_chunk::<8>().and_then(|word| short_varint(u64::from_le_bytes(*word))) {
        return Some(short);
    }
    let mut len = 0;
    varint::read_uvarint(data, &mut len).map(|v| (v, len))
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::super::test_vectors::{cases, deterministic_runner, Codec};
    use super::*;
    use proptest::prelude::*;

    const CODEC: Codec = Codec { name: "delta", encode: DeltaTimestamps::encode, decode: DeltaTimestamps::decode };

    fn encoded(ts: &[i64]) -> Vec<u8> {
        CODEC.encoded(ts)
    }

    fn decoded(col: &[u8], n: usize) -> Result<Vec<i64>> {
        CODEC.decoded(col, n)
    }

    #[test]
    fn matches_reference_vectors_byte_for_byte() {
        let (mut columns, mut cases_seen, mut ten_byte_varint_columns) = (0, 0, 0);
        for case in cases("delta") {
            for (col, ts) in case.columns.iter().zip(&case.timestamps) {
                let what = format!("{}: metric {:016x}", case.name, col.id);
                assert_eq!(encoded(ts), col.timestamps, "{what}");
                // The column is the same in either blob byte order.
                let mut big = Vec::new();
                DeltaTimestamps::encode(ts, ByteOrder::Big, &mut big);
                assert_eq!(big, col.timestamps, "{what}");
                assert_eq!(&decoded(&col.timestamps, ts.len()).unwrap(), ts, "{what}");
                let needs_ten_bytes = ts.windows(3).any(|w| {
                    let dod = w[2].wrapping_sub(w[1]).wrapping_sub(w[1].wrapping_sub(w[0]));
                    varint::zigzag(dod) >= 1 << 63
                });
                ten_byte_varint_columns += needs_ten_bytes as usize;
                columns += 1;
            }
            cases_seen += 1;
        }
        eprintln!("delta: {columns} columns in {cases_seen} cases matched ({ten_byte_varint_columns} with a 10-byte delta-of-delta)");
        assert!(cases_seen > 0 && ten_byte_varint_columns > 0);
    }

    /// `special`/`extreme.ts` is the column the reference decoder gets wrong.
    #[test]
    fn decodes_the_ten_byte_varint_the_reference_stops_at() {
        let input = crate::test_support::read_input("special");
        let extreme = input.metrics.iter().find(|m| m.name.as_deref() == Some("extreme.ts")).unwrap();
        let col = encoded(&extreme.timestamps);
        assert!(col.windows(10).any(|w| w[..9].iter().all(|&b| b >= 0x80) && w[9] == 1));
        assert_eq!(decoded(&col, extreme.timestamps.len()).unwrap(), extreme.timestamps);
    }

    #[test]
    fn first_point_is_plain_uvarint_of_the_bits() {
        assert_eq!(encoded(&[0]), [0]);
        assert_eq!(encoded(&[300]), [0xac, 0x02]);
        assert_eq!(encoded(&[-1]), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        // Then zigzag delta (-1 -> 1), then zigzag delta-of-delta (+2 - -1 = 3 -> 6).
        assert_eq!(encoded(&[10, 9, 11]), [10, 1, 6]);
        assert!(encoded(&[]).is_empty());
    }

    #[test]
    fn round_trips_edge_sequences() {
        CODEC.check_edge_sequences();
    }

    #[test]
    fn trailing_bytes_are_ignored() {
        let mut col = encoded(&[100, 200, 300, 400]);
        col.extend_from_slice(&[0xff; 3]);
        assert_eq!(decoded(&col, 4).unwrap(), [100, 200, 300, 400]);
        assert_eq!(decoded(&col, 2).unwrap(), [100, 200]);
        assert!(decoded(&col, 8).is_err());
        assert_eq!(decoded(&[], 0).unwrap(), Vec::<i64>::new());
    }

    #[test]
    fn every_truncation_of_every_vector_column_fails_cleanly() {
        CODEC.check_truncations();
    }

    #[test]
    fn hostile_bytes_never_panic() {
        CODEC.check_hostile_bytes(120, 40);
        // Varints that never end, or end past 64 bits.
        assert!(decoded(&[0x80; 64], 3).is_err());
        assert!(decoded(&[0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0], 3).is_err());
    }

    #[test]
    fn fast_varint_reader_agrees_with_the_plain_one() {
        let mut runner = deterministic_runner(4000);
        // Random bytes biased to long varints, and well-formed varints of every length.
        let bytes = proptest::collection::vec(prop_oneof![any::<u8>(), 0x80u8..], 0..40);
        runner
            .run(&bytes, |bytes| {
                let (mut fast_pos, mut plain_pos) = (0, 0);
                loop {
                    let fast = read_varint(&bytes[fast_pos..]);
                    let plain = varint::read_uvarint(&bytes, &mut plain_pos);
                    prop_assert_eq!(fast.map(|(v, _)| v), plain);
                    let Some((_, len)) = fast else { return Ok(()) };
                    fast_pos += len;
                    prop_assert_eq!(fast_pos, plain_pos);
                }
            })
            .unwrap();
        for shift in 0..64 {
            for v in [1u64 << shift, (1u64 << shift) - 1, u64::MAX >> shift] {
                // With room for the 8-byte load after it, and without.
                for padding in [0, 10] {
                    let mut buf = Vec::new();
                    varint::put_uvarint(&mut buf, v);
                    buf.extend(std::iter::repeat_n(0x80, padding));
                    let (value, len) = read_varint(&buf).unwrap();
                    assert_eq!(value, v);
                    assert_eq!(buf.len() - len, padding);
                }
            }
        }
    }

    #[test]
    fn round_trips_any_and_jittered_sequences() {
        CODEC.check_round_trips();
    }
}
