//! Bit packing of ALP codes: `width`-bit codes back to back, least significant
//! bit first, bytes in little-endian order whatever the blob's byte order.
//!
//! Decoding goes through kernels specialised for each width (`W` a const
//! generic): 8 codes are exactly `W` bytes, so within a group every byte offset
//! and shift is a constant and the unrolled group compiles to plain loads,
//! shifts and masks with no bounds checks, which LLVM can schedule and vectorize.

// Built for size (`compact-decoders`) the per-width kernels go unused.
#![cfg_attr(feature = "compact-decoders", allow(dead_code))]

/// Mask of the low `width` bits (`width` ≤ 64).
#[inline(always)]
pub(super) const fn low_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Codes per kernel group: 8 codes of `W` bits end on a byte boundary.
const GROUP: usize = 8;
/// Bytes a group's window spans beyond its `W` own bytes: each code is read
/// with one 8-byte load (plus one byte when it straddles that load).
const WINDOW_SLACK: usize = 8;

/// Size of the zero-padded copy the last groups are decoded from: room for at
/// least 3 groups of 64-bit codes and their window slack.
const TAIL_COPY_LEN: usize = 256;

/// Code number `lane` of a group whose first bit is bit 0 of `window`
/// (`window.len() == W + WINDOW_SLACK`; `lane` < 8 so every index is in range).
#[inline(always)]
fn group_lane<const W: usize>(window: &[u8], lane: usize) -> u64 {
    let bit = lane * W;
    let byte = bit / 8;
    let shift = bit % 8;
    let word = u64::from_le_bytes(window[byte..byte + 8].try_into().expect("8-byte window"));
    let mut code = word >> shift;
    if shift + W > 64 {
        // Only for W > 56: the code's top bits spill into the ninth byte.
        code |= u64::from(window[byte + 8]) << (64 - shift);
    }
    code & low_mask(W as u32)
}

/// The 8 codes of one group.
#[inline(always)]
fn unpack_group<const W: usize>(window: &[u8]) -> [u64; GROUP] {
    let window = &window[..W + WINDOW_SLACK];
    std::array::from_fn(|lane| group_lane::<W>(window, lane))
}

/// Replace every `out[i]` with `map(code_i, out[i])`, where `code_i` is the
/// `i`-th `W`-bit code packed from bit 0 of `packed`.
///
/// `packed` must hold at least `ceil(out.len() * W / 8)` bytes; bytes after
/// those may be anything (they are read as window slack but masked away).
#[inline(always)]
fn map_codes_const<const W: usize>(packed: &[u8], out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    let window_len = W + WINDOW_SLACK;
    // Groups whose whole window lies inside `packed` are read in place.
    let in_place = if packed.len() >= window_len { (packed.len() - window_len) / W + 1 } else { 0 };
    let mut groups = out.chunks_exact_mut(GROUP);
    for (g, chunk) in groups.by_ref().take(in_place).enumerate() {
        let codes = unpack_group::<W>(&packed[g * W..]);
        for (slot, code) in chunk.iter_mut().zip(codes) {
            *slot = map(code, *slot);
        }
    }
    let done = in_place.min(out.len() / GROUP);
    // The rest (at most about `2W + 8` bytes of codes; the callers pass whole
    // groups, a partial last one goes to `map_codes_few`) is read from
    // zero-padded copies, normally a single one.
    let groups_per_copy = (TAIL_COPY_LEN - WINDOW_SLACK) / W;
    let mut padded = [0u8; TAIL_COPY_LEN];
    for (copy, batch) in out[done * GROUP..].chunks_mut(GROUP * groups_per_copy).enumerate() {
        let start = (done + copy * groups_per_copy) * W;
        let avail = packed.get(start..).unwrap_or(&[]);
        let take = avail.len().min(TAIL_COPY_LEN);
        padded[..take].copy_from_slice(&avail[..take]);
        padded[take..].fill(0);
        for (g, chunk) in batch.chunks_mut(GROUP).enumerate() {
            let codes = unpack_group::<W>(&padded[g * W..]);
            for (slot, code) in chunk.iter_mut().zip(codes) {
                *slot = map(code, *slot);
            }
        }
    }
}

/// The scalar twin of the kernels, for any width 0..=64: reads each code with a
/// plain bit cursor. Used for widths without a kernel and as the test oracle.
#[inline]
pub(super) fn map_codes_any(packed: &[u8], width: u32, out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    let mask = low_mask(width);
    let byte_at = |i: usize| u64::from(packed.get(i).copied().unwrap_or(0));
    let mut bit = 0usize;
    for slot in out.iter_mut() {
        let (byte, shift) = (bit / 8, (bit % 8) as u32);
        // 9 bytes cover any code of up to 64 bits at any shift.
        let mut word = 0u64;
        for k in 0..8 {
            word |= byte_at(byte + k) << (8 * k);
        }
        let mut code = word >> shift;
        if shift != 0 {
            code |= byte_at(byte + 8) << (64 - shift);
        }
        *slot = map(code & mask, *slot);
        bit += width as usize;
    }
}

/// Dispatch a runtime width to the const-generic kernel for the listed widths,
/// falling back to [`map_codes_any`] for the others. The kernel takes the
/// whole groups; a partial last group goes to [`map_codes_few`], which reads
/// its few codes in place (where a column is followed by others, as in a
/// payload, the kernel's padded copy is then never made).
#[cfg(not(feature = "compact-decoders"))]
macro_rules! map_codes_for_widths {
    ($width:expr, $packed:expr, $out:expr, $map:expr, [$($w:literal)*]) => {{
        let (width, packed, out, map) = ($width, $packed, $out, $map);
        let (whole, last) = out.split_at_mut(out.len() / GROUP * GROUP);
        match width {
            $($w => map_codes_const::<$w>(packed, whole, &map),)*
            other => map_codes_any(packed, other, whole, &map),
        }
        // Whole groups of codes end on a byte boundary.
        let at = whole.len() / GROUP * width as usize;
        map_codes_few(packed.get(at..).unwrap_or_default(), width, last, map);
    }};
}

/// Built for size: every width through the one loop of [`map_codes_few`]
/// (an 8-byte load a code where there is room, else [`map_codes_any`]), no
/// kernel per width. Same results.
#[cfg(feature = "compact-decoders")]
macro_rules! map_codes_for_widths {
    ($width:expr, $packed:expr, $out:expr, $map:expr, [$($w:literal)*]) => {{
        map_codes_few($packed, $width, $out, $map)
    }};
}

/// [`map_codes_any`] for the codes of a partial last group, and every code
/// built for size: each from one 8-byte load (and a ninth byte for codes of
/// more than 56 bits) where `packed` has room for them all, as when a column
/// is followed by others.
#[inline(never)]
fn map_codes_few(packed: &[u8], width: u32, out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    let bits = out.len() * width as usize;
    let Some(packed) = packed.get(..bits.div_ceil(8) + 9) else {
        return map_codes_any(packed, width, out, map);
    };
    let mask = low_mask(width);
    // Always there: `packed` holds the codes' bytes and 9 more.
    let word_at = |byte: usize| packed.get(byte..byte + 8).and_then(|w| w.first_chunk::<8>()).map_or(0, |w| u64::from_le_bytes(*w));
    let mut bit = 0;
    if width <= 56 {
        // A code of at most 56 bits at a shift of at most 7 lies within its load.
        for slot in out.iter_mut() {
            *slot = map((word_at(bit / 8) >> (bit % 8)) & mask, *slot);
            bit += width as usize;
        }
        return;
    }
    for slot in out.iter_mut() {
        let (byte, shift) = (bit / 8, (bit % 8) as u32);
        let mut code = word_at(byte) >> shift;
        if shift != 0 {
            code |= u64::from(packed.get(byte + 8).copied().unwrap_or(0)) << (64 - shift);
        }
        *slot = map(code & mask, *slot);
        bit += width as usize;
    }
}

/// [`map_codes_const`] for ALP-main digits: every width up to 64 has a kernel.
#[inline]
pub(super) fn map_codes_main(packed: &[u8], width: u32, out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    if width == 0 {
        // Constant columns: no code bits at all.
        for slot in out.iter_mut() {
            *slot = map(0, *slot);
        }
        return;
    }
    map_codes_for_widths!(width, packed, out, map, [
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64
    ])
}

/// [`map_codes_const`] for ALP-RD right parts: the encoder only cuts at 48..=63.
#[inline]
pub(super) fn map_codes_rd_right(packed: &[u8], width: u32, out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    map_codes_for_widths!(width, packed, out, map, [48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63])
}

/// [`map_codes_const`] for ALP-RD dictionary codes (1 to 3 bits).
#[inline]
pub(super) fn map_codes_rd_left(packed: &[u8], width: u32, out: &mut [f64], map: impl Fn(u64, f64) -> f64) {
    map_codes_for_widths!(width, packed, out, map, [1 2 3])
}

/// Append `codes` packed at `width` bits each (the low `width` bits of each
/// code), `ceil(n * width / 8)` bytes in all.
#[cfg(feature = "encode")]
pub(super) fn pack_codes(out: &mut Vec<u8>, codes: impl IntoIterator<Item = u64>, width: u32) {
    if width == 0 {
        return;
    }
    let mask = low_mask(width);
    // `acc` holds `filled` (< 64) pending bits; full words are flushed whole.
    let mut acc = 0u64;
    let mut filled = 0u32;
    for code in codes {
        let code = code & mask;
        acc |= code << filled;
        if filled + width >= 64 {
            out.extend_from_slice(&acc.to_le_bytes());
            acc = if filled == 0 { 0 } else { code >> (64 - filled) };
            filled = filled + width - 64;
        } else {
            filled += width;
        }
    }
    out.extend_from_slice(&acc.to_le_bytes()[..filled.div_ceil(8) as usize]);
}
