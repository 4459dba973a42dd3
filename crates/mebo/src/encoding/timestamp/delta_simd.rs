//! Four delta-of-delta varints per step by byte shuffle (Masked VByte:
//! Plaisance, Kurz and Lemire, "Vectorized VByte Decoding", 2015), for varints
//! of 1 to 3 bytes, as jittered series' delta-of-deltas are.
//!
//! The stop bits of 64 bytes are gathered first (`stop_bits`); the 12 of them
//! from a group's first byte pick a table entry: the shuffle that moves the
//! group's four varints into four 32-bit lanes (a byte of zeros above each)
//! and the bytes they take. One 16-byte load, one shuffle and a few shifts
//! and masks decode the four; the prefix sums (delta-of-delta to delta to
//! timestamp) are scalar adds. A pattern whose first four varints are not all
//! of 1 to 3 bytes (a long one, or fewer than four in 12 bytes) has no entry:
//! that varint goes through the plain reader, and the walk goes on.
//!
//! deltapacked's groups (a control byte, then four values of 1, 2, 4 or 8
//! bytes) take the same shuffle when no value is of 8 bytes: the control byte
//! picks it from a 256-entry table ([`decode_packed_groups`]).
//!
//! SSSE3 natively (`pshufb`, detected at run time), simd128 in wasm
//! (`i8x16.swizzle`, the simd build); elsewhere nothing: the caller's
//! [`StopWalk`] decodes everything. The tests compare both with it.

#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
use super::packed_layout::{GROUP_LENS, WIDTHS};
use super::stop_walk::StopWalk;
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
use super::stop_walk::{long_varint, STOP_BLOCK};
use super::DeltaState;
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
use crate::encoding::varint;

/// Stop bits a group's table entry is chosen by: four varints of up to 3 bytes.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
const PATTERN_BITS: usize = 12;
/// Groups a window always holds when they are short: each takes at most 12
/// bytes, so the fifth starts by byte 48, its pattern within the 64 stop bits.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
const WINDOW_GROUPS: usize = (STOP_BLOCK - PATTERN_BITS) / (3 * GROUP) + 1;
/// Varints a group decodes.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
const GROUP: usize = 4;

/// The table entry of each 12-bit stop pattern (bit `i` set when byte `i`
/// ends a varint): shuffle indexes (0x80: a zero byte) and bytes taken, 0 for
/// a pattern whose first four varints are not all of 1 to 3 bytes.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
struct GroupTable {
    shuffles: [[u8; 16]; 1 << PATTERN_BITS],
    taken: [u8; 1 << PATTERN_BITS],
}

#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
const fn group_table() -> GroupTable {
    let mut table = GroupTable { shuffles: [[0x80; 16]; 1 << PATTERN_BITS], taken: [0; 1 << PATTERN_BITS] };
    let mut pattern = 0;
    while pattern < 1 << PATTERN_BITS {
        let mut shuffle = [0x80u8; 16];
        let (mut start, mut lane, mut valid) = (0, 0, true);
        while lane < GROUP && valid {
            // The varint's last byte: the first stop at or after `start`.
            let mut end = start;
            while end < PATTERN_BITS && pattern >> end & 1 == 0 {
                end += 1;
            }
            if end >= PATTERN_BITS || end - start >= 3 {
                valid = false;
            } else {
                let mut byte = start;
                while byte <= end {
                    shuffle[lane * 4 + byte - start] = byte as u8;
                    byte += 1;
                }
                start = end + 1;
                lane += 1;
            }
        }
        if valid {
            table.shuffles[pattern] = shuffle;
            table.taken[pattern] = start as u8;
        }
        pattern += 1;
    }
    table
}

/// The group table, built on first use: stored in the module it was 68 KB of
/// data, 1.1 kB gzipped, more than the code that builds it; built, it takes
/// the same memory, zeroed until then.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
fn group_table_built() -> &'static GroupTable {
    static TABLE: std::sync::OnceLock<GroupTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(group_table)
}

/// Decode from `walk.start` while a stop window and the loads fit in `bytes`
/// and four points are left, with the shuffle the target has; returns at
/// once where there is none. The column is `bytes[..valid]` (the bytes after
/// it are zeros for the column's last bytes): the walk stops before a group
/// that reaches past it. Fails with the byte position of a bad varint.
#[inline]
pub(super) fn decode_groups(bytes: &[u8], valid: usize, walk: &mut StopWalk, out: &mut [i64]) -> Result<(), usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: the only requirement of a `target_feature` function is
            // that the CPU has the feature, checked just above.
            #[allow(unsafe_code)]
            return unsafe { x86::decode_groups_ssse3(bytes, valid, walk, out) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        return walk_groups(bytes, valid, walk, out, wasm::stop_bits, wasm::decode_four);
    }
    #[allow(unreachable_code)]
    {
        let _ = (bytes, valid, walk, out);
        Ok(())
    }
}

/// The walk over groups, given the target's `decode_four(bytes, shuffle)`:
/// the four zigzag-decoded delta-of-deltas of the varints at the start of
/// `bytes` that a valid pattern's `shuffle` moves into lanes.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn walk_groups(
    bytes: &[u8],
    valid: usize,
    walk: &mut StopWalk,
    out: &mut [i64],
    stop_bits: impl Fn(&[u8; STOP_BLOCK]) -> u64,
    decode_four: impl Fn(&[u8; 16], &[u8; 16]) -> [i64; GROUP],
) -> Result<(), usize> {
    let col = &bytes[..valid.min(bytes.len())];
    let StopWalk { mut start, mut done, mut ts, mut delta } = *walk;
    let table = group_table_built();
    let result = 'windows: loop {
        // A window of stop bits, and room for the last group's 16-byte load.
        let Some(window) = bytes.get(start..start.saturating_add(STOP_BLOCK + 16)) else {
            break Ok(());
        };
        let stops = stop_bits(window.first_chunk::<STOP_BLOCK>().unwrap_or(&[0; STOP_BLOCK]));
        // A fixed count of groups a window, so that the loop's exit is
        // predicted (a count that follows the data mispredicted once a window).
        let mut offset = 0;
        for _ in 0..WINDOW_GROUPS {
            let Some(slots) = out.get_mut(done..done + GROUP) else { break 'windows Ok(()) };
            let ahead = stops >> offset;
            let pattern = ahead as usize & ((1 << PATTERN_BITS) - 1);
            let taken = usize::from(table.taken[pattern]);
            if taken == 0 {
                // A long varint, or one of 4+ bytes ahead: one the plain way,
                // then a window from after it.
                let end = start + ahead.trailing_zeros() as usize + 1;
                let zigzag = match long_varint(col, start, end) {
                    Ok(value) => value,
                    Err(pos) => break 'windows Err(pos),
                };
                delta = delta.wrapping_add(varint::unzigzag(zigzag));
                ts = ts.wrapping_add(delta);
                slots[0] = ts;
                done += 1;
                start = end;
                continue 'windows;
            }
            let group = window.get(offset..).and_then(|b| b.first_chunk::<16>());
            let Some(group) = group.filter(|_| start + taken <= valid) else { break 'windows Ok(()) };
            add_up(slots, decode_four(group, &table.shuffles[pattern]), &mut delta, &mut ts);
            done += GROUP;
            start += taken;
            offset += taken;
        }
    };
    *walk = StopWalk { start, done, ts, delta };
    result
}

/// deltapacked: the shuffle of each control byte that moves its group's
/// four values (the 16 bytes after the control byte) into four 32-bit lanes,
/// when all are of 1, 2 or 4 bytes; all 0x80 for a control with a value of 8.
/// Built on first use, as the group table is.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
fn packed_table_built() -> &'static [[u8; 16]; 256] {
    static TABLE: std::sync::OnceLock<[[u8; 16]; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(packed_table)
}

#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
const fn packed_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80; 16]; 256];
    let mut control = 0;
    while control < 256 {
        let mut shuffle = [0x80u8; 16];
        let (mut offset, mut lane, mut short) = (0, 0, true);
        while lane < GROUP {
            let width = WIDTHS[(control >> (2 * lane)) & 3] as usize;
            let mut byte = 0;
            while byte < width && width < 8 {
                shuffle[lane * 4 + byte] = (offset + byte) as u8;
                byte += 1;
            }
            short &= width < 8;
            offset += width;
            lane += 1;
        }
        if short {
            table[control] = shuffle;
        }
        control += 1;
    }
    table
}

/// deltapacked's whole groups from `state.pos` while every value of the
/// group is of 1, 2 or 4 bytes, the group and a 16-byte load fit in `col` and
/// four points are left in `out[*done..]`, with the shuffle the target has;
/// returns at once where there is none. The table kernel goes on from there.
#[inline]
pub(super) fn decode_packed_groups(col: &[u8], state: &mut DeltaState, done: &mut usize, out: &mut [i64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: as in `decode_groups`.
            #[allow(unsafe_code)]
            return unsafe { x86::decode_packed_groups_ssse3(col, state, done, out) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        return walk_packed(col, state, done, out, wasm::packed_four);
    }
    #[allow(unreachable_code)]
    {
        let _ = (col, state, done, out);
    }
}

/// Bytes a group of short values takes by control byte, the control byte
/// included; 0 for a control with a value of 8 bytes, which ends the walk.
/// One load gives both the next position and the check.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
static PACKED_LENS: [u8; 256] = {
    let mut lens = [0; 256];
    let mut control = 0;
    while control < 256 {
        // Width code 3 (both bits of a pair set): a value of 8 bytes.
        if control & (control >> 1) & 0x55 == 0 {
            lens[control] = GROUP_LENS[control];
        }
        control += 1;
    }
    lens
};

/// The walk over one column's deltapacked groups, given the target's
/// `packed_four(values, shuffle)`: the four delta-of-deltas of a group of
/// short values, `shuffle` its control byte's entry.
///
/// It walks a slice, not a position: the next group's address is then the
/// chain's only add. (By position, V8 adds the column's address to it before
/// each control byte's load, a cycle more on a chain of about ten a group.)
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn walk_packed(
    col: &[u8],
    state: &mut DeltaState,
    done: &mut usize,
    out: &mut [i64],
    packed_four: impl Fn(&[u8; 16], &[u8; 16]) -> [i64; GROUP],
) {
    let DeltaState { pos, mut ts, mut delta } = *state;
    let shuffles = packed_table_built();
    let Some(mut rest) = col.get(pos..) else { return };
    let (groups, _) = out.get_mut(*done..).unwrap_or_default().as_chunks_mut::<GROUP>();
    let mut taken = 0;
    for slots in groups {
        // A group and its 16-byte load take 17 bytes from its control byte on.
        let Some((&control, values)) = rest.first_chunk::<17>().and_then(|w| w.split_first()) else { break };
        let len = usize::from(PACKED_LENS[usize::from(control)]);
        let (Some(values), Some(next)) = (values.first_chunk(), rest.get(len..).filter(|_| len != 0)) else { break };
        add_up(slots, packed_four(values, &shuffles[usize::from(control)]), &mut delta, &mut ts);
        taken += 1;
        rest = next;
    }
    (*state, *done) = (DeltaState { pos: col.len() - rest.len(), ts, delta }, *done + taken * GROUP);
}

/// The two prefix sums: delta-of-deltas to deltas to the timestamps in `slots`.
#[cfg(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn add_up(slots: &mut [i64], dods: [i64; GROUP], delta: &mut i64, ts: &mut i64) {
    for (slot, dod) in slots.iter_mut().zip(dods) {
        *delta = delta.wrapping_add(dod);
        *ts = ts.wrapping_add(*delta);
        *slot = *ts;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{walk_groups, walk_packed, DeltaState, StopWalk, GROUP, STOP_BLOCK};
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cvtsi128_si64, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi32, _mm_set_epi64x, _mm_setzero_si128,
        _mm_shuffle_epi8, _mm_srli_epi32, _mm_sub_epi32, _mm_unpackhi_epi64, _mm_xor_si128,
    };

    #[target_feature(enable = "ssse3")]
    #[inline]
    fn load(bytes: &[u8; 16]) -> __m128i {
        let (lo, hi) = bytes.split_at(8);
        let lo = i64::from_le_bytes(lo.try_into().unwrap_or([0; 8]));
        let hi = i64::from_le_bytes(hi.try_into().unwrap_or([0; 8]));
        _mm_set_epi64x(hi, lo)
    }

    /// Four zigzag values in 32-bit lanes, unzigzagged, as i64.
    #[target_feature(enable = "ssse3")]
    #[inline]
    fn unzigzag_lanes(zigzag: __m128i) -> [i64; GROUP] {
        // (z >> 1) ^ -(z & 1), in 32 bits: the values take at most 32.
        let sign = _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(zigzag, _mm_set1_epi32(1)));
        let dods = _mm_xor_si128(_mm_srli_epi32::<1>(zigzag), sign);
        let (a, b) = (_mm_cvtsi128_si64(dods), _mm_cvtsi128_si64(_mm_unpackhi_epi64(dods, dods)));
        [i64::from(a as i32), a >> 32, i64::from(b as i32), b >> 32]
    }

    /// [`walk_groups`] with `pshufb`, and `pmovmskb` for the stop bits.
    #[target_feature(enable = "ssse3")]
    pub(super) fn decode_groups_ssse3(bytes: &[u8], valid: usize, walk: &mut StopWalk, out: &mut [i64]) -> Result<(), usize> {
        let stop_bits = |block: &[u8; STOP_BLOCK]| -> u64 {
            let mut continued = 0u64;
            for (i, chunk) in block.chunks_exact(16).enumerate() {
                let chunk: &[u8; 16] = chunk.try_into().unwrap_or(&[0; 16]);
                continued |= u64::from(_mm_movemask_epi8(load(chunk)) as u16) << (16 * i);
            }
            !continued
        };
        walk_groups(bytes, valid, walk, out, stop_bits, |bytes, shuffle| {
            let lanes = _mm_shuffle_epi8(load(bytes), load(shuffle));
            // Each lane: b0 | b1 << 8 | b2 << 16, stop bits still in; join the 7-bit groups.
            let low = _mm_and_si128(lanes, _mm_set1_epi32(0x7f));
            let mid = _mm_and_si128(_mm_srli_epi32::<1>(lanes), _mm_set1_epi32(0x3f80));
            let high = _mm_and_si128(_mm_srli_epi32::<2>(lanes), _mm_set1_epi32(0x1f_c000));
            unzigzag_lanes(_mm_or_si128(_mm_or_si128(low, mid), high))
        })
    }

    /// [`walk_packed`] with `pshufb`.
    #[target_feature(enable = "ssse3")]
    pub(super) fn decode_packed_groups_ssse3(col: &[u8], state: &mut DeltaState, done: &mut usize, out: &mut [i64]) {
        walk_packed(col, state, done, out, |values, shuffle| unzigzag_lanes(_mm_shuffle_epi8(load(values), load(shuffle))))
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::{GROUP, STOP_BLOCK};
    use core::arch::wasm32::{
        i32x4_splat, i32x4_sub, i64x2, i64x2_extract_lane, i8x16_swizzle, u32x4_shr, u8x16_bitmask, v128, v128_and, v128_or, v128_xor,
    };

    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> v128 {
        let (lo, hi) = bytes.split_at(8);
        i64x2(i64::from_le_bytes(lo.try_into().unwrap_or([0; 8])), i64::from_le_bytes(hi.try_into().unwrap_or([0; 8])))
    }

    /// Bit `i` set when byte `i` has a clear top bit: one `i8x16.bitmask` per
    /// 16 bytes, where the scalar build's multiply trick takes about five
    /// operations per 8 bytes.
    #[inline(always)]
    pub(super) fn stop_bits(block: &[u8; STOP_BLOCK]) -> u64 {
        let mut continued = 0u64;
        for (i, chunk) in block.chunks_exact(16).enumerate() {
            continued |= u64::from(u8x16_bitmask(load(chunk.try_into().unwrap_or(&[0; 16])))) << (16 * i);
        }
        !continued
    }

    /// Four zigzag values in 32-bit lanes, unzigzagged, as i64.
    #[inline(always)]
    fn unzigzag_lanes(zigzag: v128) -> [i64; GROUP] {
        let sign = i32x4_sub(i32x4_splat(0), v128_and(zigzag, i32x4_splat(1)));
        let dods = v128_xor(u32x4_shr(zigzag, 1), sign);
        let (a, b) = (i64x2_extract_lane::<0>(dods), i64x2_extract_lane::<1>(dods));
        [i64::from(a as i32), a >> 32, i64::from(b as i32), b >> 32]
    }

    /// The x86 decode with `i8x16.swizzle` (an index of 0x80 also gives 0).
    #[inline(always)]
    pub(super) fn decode_four(bytes: &[u8; 16], shuffle: &[u8; 16]) -> [i64; GROUP] {
        let lanes = i8x16_swizzle(load(bytes), load(shuffle));
        let low = v128_and(lanes, i32x4_splat(0x7f));
        let mid = v128_and(u32x4_shr(lanes, 1), i32x4_splat(0x3f80));
        let high = v128_and(u32x4_shr(lanes, 2), i32x4_splat(0x1f_c000));
        unzigzag_lanes(v128_or(v128_or(low, mid), high))
    }

    /// The x86 deltapacked group with `i8x16.swizzle`.
    #[inline(always)]
    pub(super) fn packed_four(values: &[u8; 16], shuffle: &[u8; 16]) -> [i64; GROUP] {
        unzigzag_lanes(i8x16_swizzle(load(values), load(shuffle)))
    }
}
