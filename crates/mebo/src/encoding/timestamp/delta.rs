//! Delta-of-delta timestamps in LEB128 varints.
//!
//! Point 0 is an unsigned varint of the timestamp's two's-complement bits (so a
//! negative timestamp takes 10 bytes), point 1 a zigzag varint of the first
//! delta, every later point a zigzag varint of its delta minus the previous delta.
//! Regular series cost one byte a point. All arithmetic wraps, so every int64
//! sequence round-trips, including jumps across the whole int64 range (which
//! need 10-byte varints; the reference decoder stops at those, this one does not).

use super::stop_walk::{StopWalk, STOP_BLOCK};
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
        // Written into room for the longest varints, then cut to what they took.
        let start = out.len();
        out.resize(start + rest.len() * varint::MAX_VARINT_LEN, 0);
        let buf = &mut out[start..];
        let mut at = 0;
        for &ts in rest {
            let delta = ts.wrapping_sub(prev_ts);
            at = varint::write_uvarint(buf, at, varint::zigzag(delta.wrapping_sub(prev_delta)));
            prev_ts = ts;
            prev_delta = delta;
        }
        out.truncate(start + at);
    }

    /// Decode exactly `out.len()` timestamps from one metric's column `col`.
    /// Trailing bytes after the last point are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [i64]) -> Result<()> {
        Self::decode_with(DeltaKernel::Shuffle, col, out)
    }

    /// [`decode`](Self::decode) by a given kernel: every kernel gives the same
    /// result; the slower ones are the faster one's references in the tests
    /// and its baselines in the bench.
    #[inline]
    pub fn decode_with(kernel: DeltaKernel, col: &[u8], out: &mut [i64]) -> Result<()> {
        Self::decode_within(kernel, col, col.len(), out)
    }

    /// [`decode_with`](Self::decode_with) of the column `bytes[..len]`,
    /// where the bytes after it (a payload's next columns) may be read but
    /// are never decoded: the shuffle then reads on to the column's end,
    /// where a column alone leaves its last bytes to a padded copy. The
    /// result is that of the column alone, whatever follows it.
    #[inline(never)]
    pub fn decode_within(kernel: DeltaKernel, bytes: &[u8], len: usize, out: &mut [i64]) -> Result<()> {
        let valid = len.min(bytes.len());
        let (state, rest) = decode_delta_head(&bytes[..valid], out)?;
        decode_delta_of_deltas(bytes, valid, state, rest, kernel)
            .map_err(|pos| corrupt(format!("delta-of-delta varint at byte {pos} is short or invalid")))
    }
}

/// The delta-of-delta loops, fastest last. Each falls back to the one before
/// it where it cannot go on (a long varint, the column's last bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaKernel {
    /// One varint at a time, branching on its length.
    Varint,
    /// Stop bits of 64 bytes at once, then each varint without a branch.
    StopBits,
    /// Stop bits, then four varints per byte shuffle (SSSE3, simd128);
    /// [`StopBits`](Self::StopBits) on a target without one.
    Shuffle,
}

impl DeltaKernel {
    /// Every kernel, slowest first.
    pub const ALL: [DeltaKernel; 3] = [Self::Varint, Self::StopBits, Self::Shuffle];
}

/// The hot loop: fill `out` from the varints at `state.pos`. Fails with the
/// byte position of the bad varint; the error is built by the caller, which
/// keeps this loop small.
///
/// Where each varint ends is found first, for 64 bytes at a time: the bytes
/// with a clear stop bit, as one bit mask ([`stop_bits`]). Walking that mask
/// (lowest set bit, then clear it) gives every varint's start and length from
/// a register, so no point waits on the one before it: a 1- to 3-byte varint
/// is then decoded without a branch on its length (the lengths of jittered
/// series vary at random), and the CPU runs many points ahead. The bytes after
/// the last whole block go through [`decode_delta_of_deltas_scalar`], which is
/// also the reference the tests compare this loop with.
fn decode_delta_of_deltas(bytes: &[u8], valid: usize, state: DeltaState, out: &mut [i64], kernel: DeltaKernel) -> Result<(), usize> {
    let col = &bytes[..valid];
    if kernel == DeltaKernel::Varint {
        return decode_delta_of_deltas_scalar(col, state, out);
    }
    let mut walk = StopWalk { start: state.pos, done: 0, ts: state.ts, delta: state.delta };
    let shuffle = kernel == DeltaKernel::Shuffle;
    if shuffle {
        super::delta_simd::decode_groups(bytes, valid, &mut walk, out)?;
    }
    // Whole blocks of the column while more is left than the tail below takes
    // (where the shuffle stopped, less is: its groups then go on in the tail,
    // not a block of varints one by one).
    if valid.saturating_sub(walk.start) > TAIL_BYTES {
        walk.blocks(bytes, valid, out)?;
    }
    if walk.done < out.len() {
        // The last bytes, copied after the unfinished varint's start into
        // zeros, so that the same loops read them: a varint whose end lies in
        // the zeros is one the column cut short.
        let from = walk.start;
        let mut tail = [0u8; TAIL];
        let rest = col.get(from..).unwrap_or_default();
        if rest.len() <= TAIL_BYTES {
            tail[..rest.len()].copy_from_slice(rest);
            let mut tail_walk = StopWalk { start: 0, ..walk };
            if shuffle {
                super::delta_simd::decode_groups(&tail, rest.len(), &mut tail_walk, out).map_err(|pos| from + pos)?;
            }
            tail_walk.blocks(&tail, rest.len(), out).map_err(|pos| from + pos)?;
            walk = StopWalk { start: from + tail_walk.start, ..tail_walk };
        }
    }
    let StopWalk { start, done, ts, delta } = walk;
    decode_delta_of_deltas_scalar(col, DeltaState { pos: start, ts, delta }, &mut out[done..])
}

/// The zero-padded copy of a column's last bytes: room for them (fewer than
/// a stop window and its loads) and for a window and its loads after them.
const TAIL: usize = 3 * STOP_BLOCK;
/// The column's bytes the tail takes at most.
const TAIL_BYTES: usize = TAIL - STOP_BLOCK - 16;

/// The varint-at-a-time loop: the fast loop's tail (fewer than a block and 8
/// bytes left) and its reference. Fails with the byte position of the bad varint.
fn decode_delta_of_deltas_scalar(col: &[u8], state: DeltaState, out: &mut [i64]) -> Result<(), usize> {
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
    use super::super::stop_walk::stop_bits;
    use super::super::test_vectors::{by_kernels, cases, check_kernels_on_vectors, deterministic_runner, Codec};
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

    /// Every kernel's result on `col`: the timestamps, or the error's message.
    fn by_every_kernel(col: &[u8], n: usize) -> Vec<std::result::Result<Vec<i64>, String>> {
        by_kernels(&DeltaKernel::ALL, DeltaTimestamps::decode_within, col, n)
    }

    /// Series whose delta-of-deltas take 1 to 10 bytes, mostly 2 and 3 as
    /// jittered ones do: steps of a random scale each, from any start.
    fn jittered_series() -> impl Strategy<Value = Vec<i64>> {
        let step = prop_oneof![
            8 => -1_000_000i64..1_000_000,
            2 => -60i64..60,
            1 => -(1i64 << 40)..(1i64 << 40),
            1 => any::<i64>(),
        ];
        (any::<i64>(), proptest::collection::vec(step, 0..700)).prop_map(|(start, steps)| {
            steps
                .iter()
                .scan(start, |t, s| {
                    *t = t.wrapping_add(*s);
                    Some(*t)
                })
                .collect()
        })
    }

    #[test]
    fn every_kernel_decodes_what_the_varint_loop_decodes() {
        let mut runner = deterministic_runner(1500);
        runner
            .run(&(jittered_series(), 0usize..8, any::<bool>()), |(ts, extra, cut)| {
                let mut col = encoded(&ts);
                // Trailing bytes, or a column cut short anywhere.
                col.extend(std::iter::repeat_n(0x80, extra));
                if cut && !col.is_empty() {
                    let len = col.len();
                    col.truncate(extra * 97 % len);
                }
                let results = by_every_kernel(&col, ts.len());
                if !cut {
                    prop_assert_eq!(results[0].as_ref(), Ok(&ts));
                }
                for (kernel, other) in DeltaKernel::ALL.iter().zip(&results).skip(1) {
                    prop_assert_eq!(other, &results[0], "{:?}", kernel);
                }
                Ok(())
            })
            .unwrap();
        // Random bytes, biased to stop-bit-free runs, read as any point count.
        let bytes = proptest::collection::vec(prop_oneof![any::<u8>(), 0x80u8.., 0u8..0x80], 0..400);
        runner
            .run(&(bytes, 0usize..300), |(bytes, n)| {
                let results = by_every_kernel(&bytes, n);
                for other in &results[1..] {
                    prop_assert_eq!(other, &results[0]);
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn every_kernel_decodes_the_vectors() {
        check_kernels_on_vectors("delta", &DeltaKernel::ALL, DeltaTimestamps::decode_within);
    }

    #[test]
    fn stop_bits_mark_the_bytes_without_a_top_bit() {
        let mut runner = deterministic_runner(2000);
        runner
            .run(
                &proptest::array::uniform32(any::<u8>()).prop_flat_map(|a| (Just(a), proptest::array::uniform32(any::<u8>()))),
                |(a, b)| {
                    let block: Vec<u8> = a.iter().chain(&b).copied().collect();
                    let block: [u8; STOP_BLOCK] = block.try_into().unwrap();
                    let plain = block.iter().enumerate().fold(0u64, |m, (i, &byte)| m | (u64::from(byte < 0x80) << i));
                    prop_assert_eq!(stop_bits(&block), plain);
                    Ok(())
                },
            )
            .unwrap();
    }
}
