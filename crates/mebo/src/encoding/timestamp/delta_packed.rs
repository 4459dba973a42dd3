//! Delta-of-delta timestamps in group-varint packing.
//!
//! Same head as the delta encoding (point 0 as an unsigned varint of its bits,
//! point 1 as a zigzag varint delta), then the zigzag delta-of-deltas of the
//! remaining points in groups of four: one control byte whose bit pairs, lowest
//! pair first, give each value's width (0 -> 1 byte, 1 -> 2, 2 -> 4, 3 -> 8),
//! then the values little endian at those widths. A last group of fewer than
//! four values has only their pairs set (the rest zero) and only their bytes.
//! Fixed widths let a decoder find every value of a group from one table lookup.

use super::{corrupt, decode_delta_head, DeltaState};
use crate::byte_order::ByteOrder;
use crate::encoding::varint;
use crate::error::Result;

/// Delta-of-delta timestamps, four values per control byte.
pub struct DeltaPackedTimestamps;

const GROUP: usize = 4;
/// Bytes a group's values can take at most (four 8-byte values).
const MAX_GROUP_PAYLOAD: usize = GROUP * 8;

/// Byte width of each 2-bit width code.
const WIDTHS: [u8; 4] = [1, 2, 4, 8];

/// Where each value of a group sits after its control byte, where it ends, and
/// which low bytes of an 8-byte little-endian load belong to it.
#[derive(Clone, Copy)]
struct GroupLayout {
    offsets: [u8; GROUP],
    ends: [u8; GROUP],
    masks: [u64; GROUP],
}

const fn group_layouts() -> [GroupLayout; 256] {
    let mut layouts = [GroupLayout { offsets: [0; GROUP], ends: [0; GROUP], masks: [0; GROUP] }; 256];
    let mut control = 0;
    while control < 256 {
        let mut offset = 0u8;
        let mut lane = 0;
        while lane < GROUP {
            let width = WIDTHS[(control >> (2 * lane)) & 3];
            layouts[control].offsets[lane] = offset;
            layouts[control].masks[lane] = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
            offset += width;
            layouts[control].ends[lane] = offset;
            lane += 1;
        }
        control += 1;
    }
    layouts
}

static GROUP_LAYOUTS: [GroupLayout; 256] = group_layouts();

/// The 2-bit code of the narrowest width that holds `v`. Branch-free: in a
/// jittered series the widths vary at random, and branches on them mispredict.
#[cfg(feature = "encode")]
#[inline]
fn width_code(v: u64) -> u8 {
    let bits = 64 - v.leading_zeros();
    u8::from(bits > 8) + u8::from(bits > 16) + u8::from(bits > 32)
}

impl DeltaPackedTimestamps {
    /// Append one metric's column to `out`.
    #[cfg(feature = "encode")]
    pub fn encode(timestamps: &[i64], _order: ByteOrder, out: &mut Vec<u8>) {
        let (DeltaState { ts: mut prev_ts, delta: mut prev_delta, .. }, rest) = super::encode_delta_head(timestamps, out);
        // A regular series costs 5 bytes per group; jittered ones a few more.
        out.reserve(rest.len() * 2 + 1);
        for group in rest.chunks(GROUP) {
            let mut zigzags = [0u64; GROUP];
            let mut control = 0u8;
            for (lane, (zz, &ts)) in zigzags.iter_mut().zip(group).enumerate() {
                let delta = ts.wrapping_sub(prev_ts);
                *zz = varint::zigzag(delta.wrapping_sub(prev_delta));
                control |= width_code(*zz) << (2 * lane);
                prev_ts = ts;
                prev_delta = delta;
            }
            // Assemble the group with fixed 8-byte stores, each overwritten from
            // its value's width on by the next one.
            let mut packed = [0u8; 1 + MAX_GROUP_PAYLOAD];
            packed[0] = control;
            let mut len = 1;
            for (lane, zz) in zigzags.iter().take(group.len()).enumerate() {
                // `len` is at most 1 + 3 * 8 here, so the store fits.
                packed[len..len + 8].copy_from_slice(&zz.to_le_bytes());
                len += usize::from(WIDTHS[usize::from(control >> (2 * lane)) & 3]);
            }
            // A fixed-size copy and a truncate beat a variable-length copy.
            out.extend_from_slice(&packed);
            out.truncate(out.len() - (packed.len() - len));
        }
    }

    /// Decode exactly `out.len()` timestamps from one metric's column `col`.
    /// Trailing bytes after the last point are ignored. Short/malformed -> Err.
    // Not inlined into its callers: its hot loop then gets registers of its own.
    #[inline(never)]
    pub fn decode(col: &[u8], _order: ByteOrder, out: &mut [i64]) -> Result<()> {
        let (DeltaState { mut pos, mut ts, mut delta }, rest) = decode_delta_head(col, out)?;
        let mut accumulate = |slot: &mut i64, zigzag: u64| {
            delta = delta.wrapping_add(varint::unzigzag(zigzag));
            ts = ts.wrapping_add(delta);
            *slot = ts;
        };
        let mut groups = rest.chunks_exact_mut(GROUP);
        // Fast path for whole groups with a full-size group still ahead in the
        // column (all but the last few): each value is an 8-byte load masked to
        // its width, placed by a table lookup on the control byte.
        for group in groups.by_ref() {
            let Some(window) = col.get(pos..).and_then(<[u8]>::first_chunk::<{ 1 + MAX_GROUP_PAYLOAD }>) else {
                // Too close to the end for the window: check every read.
                let zigzags = read_group_checked(col, &mut pos, GROUP)?;
                group.iter_mut().zip(zigzags).for_each(|(slot, zz)| accumulate(slot, zz));
                continue;
            };
            let layout = &GROUP_LAYOUTS[usize::from(window[0])];
            for (lane, slot) in group.iter_mut().enumerate() {
                // Offsets are at most 24, so the load stays inside the window.
                let offset = 1 + usize::from(layout.offsets[lane]).min(MAX_GROUP_PAYLOAD - 8);
                let word = window[offset..].first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
                accumulate(slot, word & layout.masks[lane]);
            }
            pos += 1 + usize::from(layout.ends[GROUP - 1]);
        }
        // A last group of 1 to 3 values.
        let tail = groups.into_remainder();
        if !tail.is_empty() {
            let zigzags = read_group_checked(col, &mut pos, tail.len())?;
            tail.iter_mut().zip(zigzags).for_each(|(slot, zz)| accumulate(slot, zz));
        }
        Ok(())
    }
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
    use super::super::test_vectors::{cases, Codec};
    use super::*;

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
            assert_eq!(decoded(&col, 6).unwrap(), want, "fast path, control {control:08b}");
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
}
