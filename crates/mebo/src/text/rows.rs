//! One point of a text metric is one row of the data payload:
//!
//! `timestamp | value length: u8 | [tag length: u8] | value bytes | [tag bytes]`
//!
//! The timestamp is either raw (a length byte that is always 8, then the i64 in
//! the blob's byte order) or delta (the zigzag varint of the difference from
//! the previous point's timestamp; the first point's from the blob start time).
//! Tag fields are present only when the blob has tags.

use crate::byte_order::ByteOrder;
use crate::encoding::varint::{read_uvarint, unzigzag};
use crate::error::{Error, Result};
use crate::format::TimestampEncoding;

#[cfg(feature = "encode")]
use crate::encoding::varint::{put_uvarint, zigzag};

/// Longest value or tag, in bytes: its length is one byte.
pub const MAX_TEXT_LEN: usize = 255;

/// Length byte written before a raw timestamp.
const RAW_TS_LEN: u8 = 8;

/// What shapes the rows of one blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowLayout {
    /// True for delta timestamps, false for raw.
    pub delta: bool,
    pub tags: bool,
    pub order: ByteOrder,
    pub start_time: i64,
}

impl RowLayout {
    pub fn new(encoding: TimestampEncoding, tags: bool, order: ByteOrder, start_time: i64) -> RowLayout {
        RowLayout { delta: encoding != TimestampEncoding::Raw, tags, order, start_time }
    }

    /// Fewest bytes one row can take.
    pub fn min_row(&self) -> u64 {
        let ts = if self.delta { 1 } else { 1 + u64::from(RAW_TS_LEN) };
        ts + if self.tags { 2 } else { 1 }
    }

    /// Most bytes one row can take.
    pub fn max_row(&self) -> u64 {
        let ts = if self.delta { 10 } else { 1 + u64::from(RAW_TS_LEN) };
        let strings = 1 + MAX_TEXT_LEN as u64;
        ts + if self.tags { 2 * strings } else { strings }
    }

    /// Append one row. The caller has checked both lengths against
    /// [`MAX_TEXT_LEN`]; `prev` is the previous point's timestamp (the start
    /// time for the first point).
    #[cfg(feature = "encode")]
    pub fn encode_row(&self, prev: i64, ts: i64, value: &[u8], tag: &[u8], out: &mut Vec<u8>) {
        debug_assert!(value.len() <= MAX_TEXT_LEN && tag.len() <= MAX_TEXT_LEN);
        if self.delta {
            // Wrapping, as the reference: every i64 pair has a delta that decodes back.
            put_uvarint(out, zigzag(ts.wrapping_sub(prev)));
        } else {
            out.push(RAW_TS_LEN);
            out.extend_from_slice(&self.order.u64_bytes(ts as u64));
        }
        out.push(value.len() as u8);
        if self.tags {
            out.push(tag.len() as u8);
        }
        out.extend_from_slice(value);
        if self.tags {
            out.extend_from_slice(tag);
        }
    }

    /// Bytes [`Self::encode_row`] appends.
    #[cfg(feature = "encode")]
    pub fn row_len(&self, prev: i64, ts: i64, value: &[u8], tag: &[u8]) -> usize {
        let ts_len = if self.delta {
            let bits = 64 - zigzag(ts.wrapping_sub(prev)).leading_zeros() as usize;
            bits.div_ceil(7).max(1)
        } else {
            1 + usize::from(RAW_TS_LEN)
        };
        ts_len + 1 + value.len() + if self.tags { 1 + tag.len() } else { 0 }
    }
}

/// One decoded row, strings still as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row<'b> {
    pub ts: i64,
    pub value: &'b [u8],
    /// Empty when the blob has no tags.
    pub tag: &'b [u8],
}

/// Walks the rows of one metric. Yields exactly `count` rows, then checks the
/// rows filled the metric's bytes exactly; stops after the first error.
pub(crate) struct Rows<'b> {
    data: &'b [u8],
    pos: usize,
    remaining: usize,
    prev: i64,
    layout: RowLayout,
    metric: usize,
}

impl<'b> Rows<'b> {
    pub fn new(data: &'b [u8], count: usize, layout: RowLayout, metric: usize) -> Rows<'b> {
        Rows { data, pos: 0, remaining: count, prev: layout.start_time, layout, metric }
    }

    #[cold]
    #[inline(never)]
    fn corrupt(&self, detail: String) -> Error {
        Error::CorruptColumn { what: "text data", metric: self.metric, detail }
    }

    /// The error of a field of `n` bytes at the position that runs past the end.
    #[cold]
    #[inline(never)]
    fn past_end(&self, n: usize, what: &str) -> Error {
        self.corrupt(format!("{what} of {n} bytes at offset {} runs past the metric's {} bytes", self.pos, self.data.len()))
    }

    // The row's fields are read with one bounds check each and their errors
    // built out of line: a text decode is this loop, once per point.
    #[inline(always)]
    fn take(&mut self, n: usize, what: &str) -> Result<&'b [u8]> {
        match self.data.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.past_end(n, what)),
        }
    }

    #[inline(always)]
    fn byte(&mut self, what: &str) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.past_end(1, what)),
        }
    }

    #[inline(always)]
    fn row(&mut self) -> Result<Row<'b>> {
        let ts = if self.layout.delta {
            let Some(zz) = read_uvarint(self.data, &mut self.pos) else {
                return Err(self.corrupt(format!("timestamp varint at offset {} is cut or overlong", self.pos)));
            };
            // From the previous point whatever its value: the reference decoder
            // wrongly restarts from the start time after a timestamp of 0.
            self.prev.wrapping_add(unzigzag(zz))
        } else {
            let len = self.byte("raw timestamp length")?;
            if len != RAW_TS_LEN {
                return Err(self.corrupt(format!("raw timestamp length is {len}, not 8")));
            }
            let bytes = self.take(8, "raw timestamp")?;
            let mut raw = [0u8; 8];
            raw.copy_from_slice(bytes);
            self.layout.order.u64(raw) as i64
        };
        self.prev = ts;
        let value_len = self.byte("value length")?;
        let tag_len = if self.layout.tags { self.byte("tag length")? } else { 0 };
        let value = self.take(usize::from(value_len), "value")?;
        let tag = self.take(usize::from(tag_len), "tag")?;
        Ok(Row { ts, value, tag })
    }
}

impl<'b> Rows<'b> {
    /// Every row in turn to `f` with its position, with the errors of the
    /// iterator (the check that the rows fill the metric's bytes comes before
    /// the last row reaches `f`). The decodes of whole blobs use this: a row
    /// then stays in registers, where the iterator's `Option<Result<Row>>`
    /// goes through memory and stalls the loop on reading it back.
    #[inline(always)]
    pub fn try_for_each_row(mut self, mut f: impl FnMut(usize, Row<'b>) -> Result<()>) -> Result<()> {
        let count = self.remaining;
        for i in 0..count {
            let row = self.row()?;
            if i + 1 == count && self.pos != self.data.len() {
                return Err(self.left_over());
            }
            f(i, row)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn left_over(&self) -> Error {
        self.corrupt(format!("{} bytes left after the last point", self.data.len() - self.pos))
    }
}

impl<'b> Iterator for Rows<'b> {
    type Item = Result<Row<'b>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let row = self.row().and_then(|row| {
            if self.remaining == 0 && self.pos != self.data.len() {
                return Err(self.left_over());
            }
            Ok(row)
        });
        if row.is_err() {
            self.remaining = 0;
        }
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining))
    }
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::*;

    fn layouts() -> Vec<RowLayout> {
        let mut v = Vec::new();
        for enc in [TimestampEncoding::Raw, TimestampEncoding::Delta] {
            for tags in [false, true] {
                for order in [ByteOrder::Little, ByteOrder::Big] {
                    v.push(RowLayout::new(enc, tags, order, 1_000));
                }
            }
        }
        v
    }

    #[test]
    fn rows_round_trip_and_lengths_agree() {
        let long = "é".repeat(127) + "x";
        let points: [(i64, &str, &str); 6] =
            [(1_000, "a", "t"), (0, "", ""), (5, &long, &long), (i64::MIN, "z", ""), (i64::MAX, "", "q"), (0, "b", "")];
        for layout in layouts() {
            let mut out = Vec::new();
            let mut prev = layout.start_time;
            for &(ts, v, t) in &points {
                let before = out.len();
                layout.encode_row(prev, ts, v.as_bytes(), t.as_bytes(), &mut out);
                assert_eq!(out.len() - before, layout.row_len(prev, ts, v.as_bytes(), t.as_bytes()));
                let len = (out.len() - before) as u64;
                assert!(layout.min_row() <= len && len <= layout.max_row());
                prev = ts;
            }
            let rows: Vec<Row> = Rows::new(&out, points.len(), layout, 0).collect::<Result<_>>().unwrap();
            for (row, &(ts, v, t)) in rows.iter().zip(&points) {
                assert_eq!(row.ts, ts);
                assert_eq!(row.value, v.as_bytes());
                assert_eq!(row.tag, if layout.tags { t.as_bytes() } else { b"" });
            }
            // Too few rows claimed: bytes left over. Too many: runs out.
            assert!(Rows::new(&out, points.len() - 1, layout, 0).any(|r| r.is_err()));
            assert!(Rows::new(&out, points.len() + 1, layout, 0).any(|r| r.is_err()));
            for cut in 0..out.len() {
                assert!(Rows::new(&out[..cut], points.len(), layout, 0).any(|r| r.is_err()), "cut {cut}");
            }
        }
    }

    #[test]
    fn raw_timestamp_needs_length_eight() {
        let layout = RowLayout::new(TimestampEncoding::Raw, false, ByteOrder::Little, 0);
        let mut out = Vec::new();
        layout.encode_row(0, 42, b"v", b"", &mut out);
        assert_eq!(&out[..9], &[8, 42, 0, 0, 0, 0, 0, 0, 0]);
        out[0] = 7;
        assert!(matches!(Rows::new(&out, 1, layout, 3).next(), Some(Err(Error::CorruptColumn { metric: 3, .. }))));
    }

    #[test]
    fn delta_after_zero_is_from_zero() {
        let layout = RowLayout::new(TimestampEncoding::Delta, false, ByteOrder::Little, 100);
        let mut out = Vec::new();
        layout.encode_row(100, 0, b"", b"", &mut out);
        layout.encode_row(0, -5, b"", b"", &mut out);
        assert_eq!(out, [199, 1, 0, 9, 0], "zigzag(-100) = 199, zigzag(-5) = 9");
        let ts: Vec<i64> = Rows::new(&out, 2, layout, 0).map(|r| r.unwrap().ts).collect();
        assert_eq!(ts, [0, -5]);
    }
}
