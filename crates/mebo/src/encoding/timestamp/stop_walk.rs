//! Where delta's varints end, 64 bytes at a time: the stop bits of a block
//! as one mask ([`stop_bits`]), and the walk over it ([`StopWalk`]) that the
//! delta decoder runs and the shuffle kernels (`delta_simd`) hand on to.

use crate::encoding::varint;

/// Where [`StopWalk::blocks`] is: the next varint's start, the points done,
/// the last timestamp and delta.
#[derive(Clone, Copy)]
pub(super) struct StopWalk {
    pub(super) start: usize,
    pub(super) done: usize,
    pub(super) ts: i64,
    pub(super) delta: i64,
}

impl StopWalk {
    /// Decode the varints that end in the whole blocks of `bytes[self.start..]`
    /// (a block and 8 bytes after it in `bytes`), of which the first `valid`
    /// bytes are the column's: a varint ending past them is an error.
    #[inline(always)]
    pub(super) fn blocks(&mut self, bytes: &[u8], valid: usize, out: &mut [i64]) -> Result<(), usize> {
        let StopWalk { mut start, mut done, mut ts, mut delta } = *self;
        let mut base = start;
        let result = 'blocks: loop {
            if done >= out.len() {
                break Ok(());
            }
            // A whole block and the 8 bytes a varint ending in it may load.
            let Some(block) = bytes.get(base..base.saturating_add(STOP_BLOCK + 8)).and_then(|b| b.first_chunk::<STOP_BLOCK>()) else {
                break Ok(());
            };
            let mut stops = stop_bits(block);
            while stops != 0 {
                let Some(slot) = out.get_mut(done) else { break 'blocks Ok(()) };
                let end = base + stops.trailing_zeros() as usize + 1;
                stops &= stops - 1;
                let len = end - start;
                let zigzag = match bytes.get(start..).and_then(|b| b.first_chunk::<8>()) {
                    Some(word) if len <= 3 && end <= valid => three_byte_varint(u64::from_le_bytes(*word)) & VARINT_MASK[len],
                    _ => match long_varint(&bytes[..valid.min(bytes.len())], start, end) {
                        Ok(value) => value,
                        Err(pos) => break 'blocks Err(pos),
                    },
                };
                start = end;
                delta = delta.wrapping_add(varint::unzigzag(zigzag));
                ts = ts.wrapping_add(delta);
                *slot = ts;
                done += 1;
            }
            base += STOP_BLOCK;
        };
        *self = StopWalk { start, done, ts, delta };
        result
    }
}

/// Bytes whose stop bits [`stop_bits`] gathers at once.
pub(super) const STOP_BLOCK: usize = 64;

/// The low `7 * len` bits, for varints of `len` 0 to 3 bytes.
const VARINT_MASK: [u64; 4] = [0, 0x7f, 0x3fff, 0x1f_ffff];

/// The payload bits of the first three bytes of `w` (little endian), joined
/// as a varint of three bytes would be; [`VARINT_MASK`] keeps those of a
/// shorter one.
#[inline(always)]
fn three_byte_varint(w: u64) -> u64 {
    (w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1f_c000)
}

/// A varint of 4 or more bytes, `col[start..end]` (its last byte the first
/// with a clear stop bit), or one that `col` cuts short: rare in timestamps,
/// read by the plain reader.
#[cold]
#[inline(never)]
pub(super) fn long_varint(col: &[u8], start: usize, end: usize) -> Result<u64, usize> {
    let mut pos = start;
    match varint::read_uvarint(col, &mut pos) {
        Some(value) if pos == end => Ok(value),
        _ => Err(start),
    }
}

/// Bit `i` set when byte `i` of `block` ends a varint (its top bit is clear).
#[inline(always)]
pub(super) fn stop_bits(block: &[u8; STOP_BLOCK]) -> u64 {
    let mut stops = 0u64;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let top_bits_clear = !word & 0x8080_8080_8080_8080;
        // Moves each byte's top bit (at 8k + 7) to bit 56 + k, then down.
        stops |= ((top_bits_clear >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    stops
}
