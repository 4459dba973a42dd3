//! LEB128 unsigned varints (at most 10 bytes for a u64) and zigzag mapping.

/// Append `v` as an unsigned varint.
#[inline]
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The most bytes a varint takes (a u64's 64 bits, 7 a byte).
pub const MAX_VARINT_LEN: usize = 10;

/// Store `v` as an unsigned varint at `buf[at..]`; where the next one goes.
/// For runs of varints written into a slice sized for the most they take
/// ([`MAX_VARINT_LEN`] each), with no capacity check per byte. (A branch-free
/// form built in a word was 30-50% slower on the bench's timestamps, whose
/// deltas of deltas mostly take one byte: the loop's branch predicts well.)
#[inline(always)]
pub fn write_uvarint(buf: &mut [u8], mut at: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        buf[at] = (v as u8) | 0x80;
        v >>= 7;
        at += 1;
    }
    buf[at] = v as u8;
    at + 1
}

/// Read an unsigned varint at `*pos`, advancing it. `None` if the data ends
/// first or the varint is longer than 10 bytes or overflows 64 bits.
#[inline]
pub fn read_uvarint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut result: u64 = 0;
    let mut shift = 0u32;
    for i in 0..10 {
        let b = *data.get(*pos + i)?;
        if i == 9 && b > 1 {
            return None; // more than 64 bits
        }
        result |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            *pos += i + 1;
            return Some(result);
        }
        shift += 7;
    }
    None
}

/// Map a signed value to unsigned so small magnitudes stay small.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_extremes() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut buf = Vec::new();
            put_uvarint(&mut buf, v);
            let mut pos = 0;
            assert_eq!(read_uvarint(&buf, &mut pos), Some(v));
            assert_eq!(pos, buf.len());
        }
        assert_eq!(
            {
                let mut b = Vec::new();
                put_uvarint(&mut b, u64::MAX);
                b.len()
            },
            10
        );
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -64, 63] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn writes_into_a_slice_as_it_appends() {
        // Every length, at both ends of it.
        let edges = (1..64).flat_map(|bits| [(1u64 << bits) - 1, 1 << bits]);
        for v in [0u64, 300, 0x0123_4567_89AB_CDEF, u64::MAX].into_iter().chain(edges) {
            let mut appended = vec![7];
            put_uvarint(&mut appended, v);
            let mut buf = [7u8; 1 + MAX_VARINT_LEN];
            let end = write_uvarint(&mut buf, 1, v);
            assert_eq!(buf[..end], appended[..], "{v:#x}");
        }
    }

    #[test]
    fn rejects_short_and_overlong() {
        let mut pos = 0;
        assert_eq!(read_uvarint(&[0x80, 0x80], &mut pos), None);
        assert_eq!(read_uvarint(&[0xff; 10], &mut pos), None);
        assert_eq!(read_uvarint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], &mut pos), None);
        assert_eq!(pos, 0);
    }
}
