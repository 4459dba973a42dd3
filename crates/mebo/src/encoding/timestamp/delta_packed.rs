//! Delta-of-delta timestamps in group-varint packing.
//!
//! Same head as the delta encoding (point 0 as an unsigned varint of its bits,
//! point 1 as a zigzag varint delta), then the zigzag delta-of-deltas of the
//! remaining points in groups of four: one control byte whose bit pairs, lowest
//! pair first, give each value's width (0 -> 1 byte, 1 -> 2, 2 -> 4, 3 -> 8),
//! then the values little endian at those widths. A last group of fewer than
//! four values has only their pairs set (the rest zero) and only their bytes.
//! Fixed widths let a decoder find every value of a group from one table lookup.

use super::packed_layout::{group_layouts_built, group_len, GroupLayout, GROUP};
use super::{corrupt, decode_delta_head, DeltaState};
use crate::byte_order::ByteOrder;
use crate::encoding::varint;
use crate::error::Result;

/// Delta-of-delta timestamps, four values per control byte.
pub struct DeltaPackedTimestamps;

/// Bytes a group's values can take at most (four 8-byte values).
const MAX_GROUP_PAYLOAD: usize = GROUP * 8;
/// The bytes the table kernel reads a group from: the largest group.
const WINDOW: usize = 1 + MAX_GROUP_PAYLOAD;

/// The 2-bit code of the narrowest width that holds `v`. Branch-free: in a
/// jittered series the widths vary at random, and branches on them mispredict.
#[cfg(feature = "encode")]
#[inline]
fn width_code(v: u64) -> u8 {
    WIDTH_CODES[v.leading_zeros() as usize]
}

/// The width code of a value by its leading zeros (0..=64): one load instead
/// of three compares (the bench input's timestamps natively 86 -> 75 µs).
#[cfg(feature = "encode")]
static WIDTH_CODES: [u8; 65] = {
    let mut codes = [0u8; 65];
    let mut zeros = 0;
    while zeros <= 64 {
        let bits = 64 - zeros;
        codes[zeros] = (bits > 8) as u8 + (bits > 16) as u8 + (bits > 32) as u8;
        zeros += 1;
    }
    codes
};

/// Store a group of `count` zigzagged values (the rest of `zigzags` unused)
/// at the start of `window`: its control byte, then each value in its width.
/// Fixed 8-byte stores straight into the room, each overwritten from its
/// value's width on by the next one (staged in a zeroed window and copied,
/// 13% slower natively). Returns the group's length.
#[cfg(feature = "encode")]
#[inline(always)]
fn store_group(window: &mut [u8; WINDOW], zigzags: &[u64; GROUP], count: usize) -> usize {
    let codes = zigzags.map(width_code);
    // Missing lanes of a last, short group have their pairs zero.
    let control = (0..count).fold(0u8, |control, lane| control | (codes[lane] << (2 * lane)));
    window[0] = control;
    let mut len = 1;
    for (zz, code) in zigzags.iter().zip(codes).take(count) {
        window[len..len + 8].copy_from_slice(&zz.to_le_bytes());
        // A shift, not a table: the compiler then knows each width is at
        // most 8, so every store is within the window.
        len += 1 << (code & 3);
    }
    len
}

impl DeltaPackedTimestamps {
    /// Append one metric's column to `out`.
    #[cfg(feature = "encode")]
    pub fn encode(timestamps: &[i64], _order: ByteOrder, out: &mut Vec<u8>) {
        let (DeltaState { ts: mut prev_ts, delta: mut prev_delta, .. }, rest) = super::encode_delta_head(timestamps, out);
        // Written into room for every group at its widest, cut to what they
        // took at the end: no capacity check per group.
        let start = out.len();
        out.resize(start + rest.len().div_ceil(GROUP) * WINDOW, 0);
        let buf = &mut out[start..];
        let mut at = 0;
        let mut groups = rest.chunks_exact(GROUP);
        for group in &mut groups {
            // A whole group unrolled: its four values stay in registers.
            let mut zigzags = [0u64; GROUP];
            for (zz, &ts) in zigzags.iter_mut().zip(group) {
                let delta = ts.wrapping_sub(prev_ts);
                *zz = varint::zigzag(delta.wrapping_sub(prev_delta));
                prev_ts = ts;
                prev_delta = delta;
            }
            let Some(window) = buf.get_mut(at..).and_then(<[u8]>::first_chunk_mut::<WINDOW>) else { break };
            at += store_group(window, &zigzags, GROUP);
        }
        let tail = groups.remainder();
        if !tail.is_empty() {
            let mut zigzags = [0u64; GROUP];
            for (zz, &ts) in zigzags.iter_mut().zip(tail) {
                let delta = ts.wrapping_sub(prev_ts);
                *zz = varint::zigzag(delta.wrapping_sub(prev_delta));
                prev_ts = ts;
                prev_delta = delta;
            }
            if let Some(window) = buf.get_mut(at..).and_then(<[u8]>::first_chunk_mut::<WINDOW>) {
                at += store_group(window, &zigzags, tail.len());
            }
        }
        out.truncate(start + at);
    }

    /// Decode exactly `out.len()` timestamps from one metric's column `col`.
    /// Trailing bytes after the last point are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [i64]) -> Result<()> {
        Self::decode_with(PackedKernel::Shuffle, col, out)
    }

    /// [`decode`](Self::decode) by a given kernel: both give the same result;
    /// the table kernel is the shuffle's reference in the tests and its
    /// baseline in the bench.
    #[inline]
    pub fn decode_with(kernel: PackedKernel, col: &[u8], out: &mut [i64]) -> Result<()> {
        Self::decode_within(kernel, col, col.len(), out)
    }

    /// [`decode_with`](Self::decode_with) of the column `bytes[..len]`,
    /// where the bytes after it (a payload's next columns) may be read but
    /// are never decoded: the shuffle then reads the column's last groups in
    /// place, where a column alone leaves them to a padded copy and the
    /// table. The result is that of the column alone, whatever follows it.
    #[inline(never)]
    pub fn decode_within(kernel: PackedKernel, bytes: &[u8], len: usize, out: &mut [i64]) -> Result<()> {
        let col = &bytes[..len.min(bytes.len())];
        let (mut state, rest) = decode_delta_head(col, out)?;
        let mut done = 0;
        let layouts = group_layouts_built();
        // What the shuffle walks over: its 16-byte windows may pass the column's end.
        let mut walked = bytes;
        loop {
            if kernel == PackedKernel::Shuffle {
                let before = (state, done);
                super::delta_simd::decode_packed_groups(walked, &mut state, &mut done, rest);
                if state.pos > col.len() {
                    // A group ran past the column's end (a cut column): walk
                    // again over the column alone, which stops in time.
                    (state, done) = before;
                    walked = col;
                    continue;
                }
            }
            // A group the shuffle does not take (a value of 8 bytes, the last
            // bytes of the column), or every group without a shuffle.
            let Some(group) = rest.get_mut(done..done + GROUP) else { break };
            let Some(window) = col.get(state.pos..).and_then(<[u8]>::first_chunk::<WINDOW>) else { break };
            add_up(group, table_group(layouts, window, &mut state.pos), &mut state);
            done += GROUP;
        }
        // The column's last whole groups, less than a window from its end: from
        // a zero-padded copy, so that they too are read by table, without a
        // branch on each width (read checked, they took 7% of the kernel's
        // time on the bench input: their widths are as random as the rest).
        let left = col.get(state.pos..).unwrap_or_default();
        if left.len() < WINDOW && rest.len() - done >= GROUP {
            let mut padded = [0; 2 * WINDOW];
            padded[..left.len()].copy_from_slice(left);
            let mut at = 0;
            while let (Some(group), Some(window)) = (rest.get_mut(done..done + GROUP), padded.get(at..).and_then(<[u8]>::first_chunk)) {
                let mut next = at;
                let zigzags = table_group(layouts, window, &mut next);
                if next > left.len() {
                    // Past the column's end: the checked read below names the error.
                    break;
                }
                add_up(group, zigzags, &mut state);
                done += GROUP;
                at = next;
            }
            state.pos += at;
        }
        // A group past the column's end (an error), or a last group of 1 to 3 values.
        for group in rest[done..].chunks_mut(GROUP) {
            let zigzags = read_group_checked(col, &mut state.pos, group.len())?;
            add_up(group, zigzags, &mut state);
        }
        Ok(())
    }
}

/// The deltapacked loops. Each falls back to the one before it where it
/// cannot go on (a value of 8 bytes, the column's last bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackedKernel {
    /// Each value an 8-byte load masked to its width, placed by a table
    /// lookup on the control byte.
    Table,
    /// A group of values of 1, 2 or 4 bytes by one byte shuffle (SSSE3,
    /// simd128); [`Table`](Self::Table) on a target without one.
    Shuffle,
}

impl PackedKernel {
    /// Every kernel, slowest first.
    pub const ALL: [PackedKernel; 2] = [Self::Table, Self::Shuffle];
}

/// The two prefix sums of a group's zigzag delta-of-deltas, into `slots`.
#[inline(always)]
fn add_up(slots: &mut [i64], zigzags: [u64; GROUP], state: &mut DeltaState) {
    for (slot, zigzag) in slots.iter_mut().zip(zigzags) {
        state.delta = state.delta.wrapping_add(varint::unzigzag(zigzag));
        state.ts = state.ts.wrapping_add(state.delta);
        *slot = state.ts;
    }
}

/// One whole group from a window that holds the largest: each value an
/// 8-byte load masked to its width, placed by a table lookup on the control
/// byte. Advances `pos` past the group.
#[inline(always)]
fn table_group(layouts: &[GroupLayout; 256], window: &[u8; WINDOW], pos: &mut usize) -> [u64; GROUP] {
    let layout = &layouts[usize::from(window[0])];
    let zigzags = std::array::from_fn(|lane| {
        // Offsets are at most 24, so the load stays inside the window.
        let offset = 1 + usize::from(layout.offsets[lane]).min(MAX_GROUP_PAYLOAD - 8);
        window[offset..].first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b)) & layout.masks[lane]
    });
    *pos += group_len(window[0]);
    zigzags
}

/// Read the zigzag values of one group of `values` values at `*pos`, checking
/// every read. (It returns them rather than accumulating them itself so that the
/// decoder's running timestamp and delta can stay in registers.)
fn read_group_checked(col: &[u8], pos: &mut usize, values: usize) -> Result<[u64; GROUP]> {
    let short = |at: usize| corrupt(format!("packed delta-of-delta group ends early (at byte {at})"));
    let control = *col.get(*pos).ok_or_else(|| short(*pos))?;
    *pos += 1;
    let mut zigzags = [0; GROUP];
    for (lane, zz) in zigzags.iter_mut().take(values).enumerate() {
        *zz = read_fixed(col, pos, (control >> (2 * lane)) & 3).ok_or_else(|| short(*pos))?;
    }
    Ok(zigzags)
}

/// Read one little-endian value of the width named by `code` at `*pos`.
#[inline]
fn read_fixed(col: &[u8], pos: &mut usize, code: u8) -> Option<u64> {
    let bytes = col.get(*pos..)?;
    let (value, width) = match code {
        0 => (u64::from(*bytes.first()?), 1),
        1 => (u64::from(u16::from_le_bytes(*bytes.first_chunk()?)), 2),
        2 => (u64::from(u32::from_le_bytes(*bytes.first_chunk()?)), 4),
        _ => (u64::from_le_bytes(*bytes.first_chunk()?), 8),
    };
    *pos += width;
    Some(value)
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::super::test_vectors::{by_kernels, cases, check_kernels_on_vectors, Codec};
    use super::*;
    use crate::encoding::timestamp::packed_layout::WIDTHS;

    const CODEC: Codec = Codec { name: "deltapacked", encode: DeltaPackedTimestamps::encode, decode: DeltaPackedTimestamps::decode };

    fn encoded(ts: &[i64]) -> Vec<u8> {
        CODEC.encoded(ts)
    }

    fn decoded(col: &[u8], n: usize) -> Result<Vec<i64>> {
        CODEC.decoded(col, n)
    }

    /// Bytes taken by the first `values` values of a group with this control byte.
    fn group_payload_len(control: u8, values: usize) -> usize {
        (0..values).map(|lane| usize::from(WIDTHS[usize::from(control >> (2 * lane)) & 3])).sum()
    }

    /// Timestamps whose delta-of-deltas (from point 2 on) are exactly `dods`.
    fn with_dods(start: i64, first_delta: i64, dods: &[i64]) -> Vec<i64> {
        let mut ts = vec![start, start.wrapping_add(first_delta)];
        let mut delta = first_delta;
        for &dod in dods {
            delta = delta.wrapping_add(dod);
            ts.push(ts[ts.len() - 1].wrapping_add(delta));
        }
        ts
    }

    #[test]
    fn matches_reference_vectors_byte_for_byte() {
        let (mut columns, mut cases_seen, mut partial_groups) = (0, 0, [0usize; GROUP]);
        for case in cases("deltapacked") {
            for (col, ts) in case.columns.iter().zip(&case.timestamps) {
                let what = format!("{}: metric {:016x}", case.name, col.id);
                assert_eq!(encoded(ts), col.timestamps, "{what}");
                let mut big = Vec::new();
                DeltaPackedTimestamps::encode(ts, ByteOrder::Big, &mut big);
                assert_eq!(big, col.timestamps, "{what}");
                assert_eq!(&decoded(&col.timestamps, ts.len()).unwrap(), ts, "{what}");
                partial_groups[ts.len().saturating_sub(2) % GROUP] += 1;
                columns += 1;
            }
            cases_seen += 1;
        }
        eprintln!("deltapacked: {columns} columns in {cases_seen} cases matched (last-group sizes 4/1/2/3: {partial_groups:?})");
        assert!(cases_seen > 0 && partial_groups.iter().all(|&n| n > 0), "every last-group size covered");
    }

    #[test]
    fn group_layout_on_the_wire() {
        // Head 10, delta 1 -> zigzag 2; dods 0, 1 -> zigzag 0, 2.
        assert_eq!(encoded(&[10, 11, 12, 14]), [10, 2, 0b00_00, 0, 2]);
        // Widths 1, 2, 4, 8 in one group: control 0b11_10_01_00.
        let ts = with_dods(0, 0, &[0x7f, 0x80, 0x8000, 0x8000_0000]);
        let mut want = vec![0, 0, 0b11_10_01_00, 0xfe, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00];
        want.extend_from_slice(&0x1_0000_0000u64.to_le_bytes());
        assert_eq!(encoded(&ts), want);
        // Width boundaries of the zigzag value: 0xff is 1 byte, 0x100 is 2, ...
        for (zz, code) in [(0xffu64, 0), (0x100, 1), (0xffff, 1), (0x1_0000, 2), (0xffff_ffff, 2), (0x1_0000_0000, 3), (u64::MAX, 3)] {
            assert_eq!(width_code(zz), code);
            let ts = with_dods(7, 3, &[varint::unzigzag(zz)]);
            let col = encoded(&ts);
            assert_eq!(col[2], code, "partial group: only the used pair is set");
            assert_eq!(col.len(), 3 + usize::from(WIDTHS[usize::from(code)]));
            assert_eq!(decoded(&col, 3).unwrap(), ts);
        }
        assert_eq!(encoded(&[-1]).len(), 10);
        assert_eq!(encoded(&[5, 4]), [5, 1]);
        assert!(encoded(&[]).is_empty());
    }

    #[test]
    fn every_control_byte_decodes_on_both_paths() {
        for control in 0..=255u8 {
            let mut zigzags = [0u64; GROUP];
            let mut payload = vec![control];
            for (lane, zz) in zigzags.iter_mut().enumerate() {
                let width = usize::from(WIDTHS[usize::from(control >> (2 * lane)) & 3]);
                *zz = 0x0123_4567_89ab_cdefu64.rotate_left(lane as u32 * 8) & (u64::MAX >> (64 - 8 * width));
                payload.extend_from_slice(&zz.to_le_bytes()[..width]);
            }
            let dods: Vec<i64> = zigzags.iter().map(|&z| varint::unzigzag(z)).collect();
            let want = with_dods(1, 2, &dods);
            let mut col = vec![1, 4];
            col.extend_from_slice(&payload);
            assert_eq!(decoded(&col, 6).unwrap(), want, "slow path, control {control:08b}");
            col.extend_from_slice(&[0xee; MAX_GROUP_PAYLOAD]);
            for kernel in PackedKernel::ALL {
                let mut out = [0; 6];
                DeltaPackedTimestamps::decode_with(kernel, &col, &mut out).unwrap();
                assert_eq!(out[..], want, "{kernel:?}, control {control:08b}");
            }
            // A smaller last group reads only its own values.
            assert_eq!(decoded(&col[..2 + 1 + group_payload_len(control, 3)], 5).unwrap(), want[..5]);
        }
    }

    #[test]
    fn round_trips_edge_sequences() {
        CODEC.check_edge_sequences();
    }

    #[test]
    fn trailing_bytes_are_ignored() {
        let ts: Vec<i64> = (0..11).map(|i| i * 1000 + (i % 3)).collect();
        let mut col = encoded(&ts);
        col.extend_from_slice(&[0xff; 40]);
        for n in 0..=ts.len() {
            assert_eq!(decoded(&col, n).unwrap(), ts[..n], "{n} points");
        }
    }

    #[test]
    fn every_truncation_of_every_vector_column_fails_cleanly() {
        CODEC.check_truncations();
    }

    #[test]
    fn hostile_bytes_never_panic() {
        CODEC.check_hostile_bytes(160, 60);
        assert!(decoded(&[0x80; 64], 3).is_err());
        assert!(decoded(&[0, 0, 0xff, 1, 2, 3], 6).is_err());
    }

    #[test]
    fn round_trips_any_and_jittered_sequences() {
        CODEC.check_round_trips();
    }

    /// Each kernel's result on `col`: the timestamps, or the error's message;
    /// last, the plain reader's, every value read checked.
    fn by_every_kernel(col: &[u8], n: usize) -> Vec<std::result::Result<Vec<i64>, String>> {
        let mut results = by_kernels(&PackedKernel::ALL, DeltaPackedTimestamps::decode_within, col, n);
        let mut out = vec![0; n];
        let plain = decode_delta_head(col, &mut out).and_then(|(mut state, rest)| {
            for group in rest.chunks_mut(GROUP) {
                add_up(group, read_group_checked(col, &mut state.pos, group.len())?, &mut state);
            }
            Ok(())
        });
        results.push(plain.map(|()| out).map_err(|e| e.to_string()));
        results
    }

    #[test]
    fn the_shuffle_decodes_what_the_table_decodes() {
        use super::super::test_vectors::deterministic_runner;
        use proptest::prelude::*;
        let mut runner = deterministic_runner(1500);
        // Delta-of-deltas of every width, mostly 1 to 4 bytes; cut anywhere or padded.
        let step = prop_oneof![8 => -1_000_000i64..1_000_000, 2 => -60i64..60, 1 => -(1i64 << 40)..(1i64 << 40), 1 => any::<i64>()];
        let series = (any::<i64>(), proptest::collection::vec(step, 0..700), 0usize..40, any::<bool>());
        runner
            .run(&series, |(start, steps, extra, cut)| {
                let ts: Vec<i64> = steps
                    .iter()
                    .scan(start, |t, s| {
                        *t = t.wrapping_add(*s);
                        Some(*t)
                    })
                    .collect();
                let mut col = encoded(&ts);
                col.extend(std::iter::repeat_n(0xff, extra));
                if cut && !col.is_empty() {
                    let len = col.len();
                    col.truncate(extra * 97 % len);
                }
                let [table, shuffle, plain] = &by_every_kernel(&col, ts.len())[..] else { unreachable!() };
                if !cut {
                    prop_assert_eq!(table.as_ref(), Ok(&ts));
                }
                prop_assert_eq!(table, plain);
                prop_assert_eq!(shuffle, plain);
                Ok(())
            })
            .unwrap();
        // Random bytes read as any point count.
        runner
            .run(&(proptest::collection::vec(any::<u8>(), 0..400), 0usize..300), |(bytes, n)| {
                let results = by_every_kernel(&bytes, n);
                prop_assert_eq!(&results[0], &results[2]);
                prop_assert_eq!(&results[1], &results[2]);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn every_kernel_decodes_the_vectors() {
        check_kernels_on_vectors("deltapacked", &PackedKernel::ALL, DeltaPackedTimestamps::decode_within);
    }
}
