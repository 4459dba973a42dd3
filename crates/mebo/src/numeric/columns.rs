//! Decoding every metric at once into contiguous columns: the shape the wasm
//! bindings hand to JavaScript, and the fast path of the crate.

use crate::byte_order::ByteOrder;
use crate::encoding;
use crate::error::Result;
use crate::format::{TimestampEncoding, ValueEncoding};
use crate::limits;
use crate::numeric::NumericBlob;

/// Every metric of a blob, column by column. Metric `i` owns the points
/// `offsets[i]..offsets[i + 1]` of `timestamps` and `values`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NumericColumns {
    /// Metric ids in index order.
    pub ids: Vec<u64>,
    /// `ids.len() + 1` point offsets.
    pub offsets: Vec<u32>,
    /// Every point's timestamp.
    pub timestamps: Vec<i64>,
    /// Every point's value.
    pub values: Vec<f64>,
}

impl NumericColumns {
    fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.timestamps.clear();
        self.values.clear();
    }

    /// Range of point positions of metric `m`.
    pub fn points_of(&self, m: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.offsets.get(m)? as usize;
        let end = *self.offsets.get(m.checked_add(1)?)? as usize;
        Some(start..end)
    }
}

/// The columns [`NumericBlob::decode_unstored_into`] did not decode because
/// the blob stores them as they decode: each is the little-endian bytes of
/// every point, metric after metric (`8 × total_points` bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StoredColumns<'b> {
    /// Every point's timestamp as stored, when the blob's timestamp column is.
    pub timestamps: Option<&'b [u8]>,
    /// Every point's value as stored, when the blob's value column is.
    pub values: Option<&'b [u8]>,
}

impl NumericBlob<'_> {
    /// Decode every metric into new columns.
    pub fn decode_all(&self) -> Result<NumericColumns> {
        let mut columns = NumericColumns::default();
        self.decode_all_into(&mut columns)?;
        Ok(columns)
    }

    /// Decode every metric into `columns`, reusing its allocations. On error
    /// the columns are cleared: no partial result.
    pub fn decode_all_into(&self, columns: &mut NumericColumns) -> Result<()> {
        let result = self.fill_columns(columns, self.stored_columns(), StoredColumns::default());
        if result.is_err() {
            columns.clear();
        }
        result
    }

    /// [`decode_all_into`](Self::decode_all_into), but a column the blob
    /// stores exactly as it decodes (raw encoding, little-endian, each
    /// metric's points right after the previous metric's, no shared
    /// timestamps) is left empty in `columns` and returned as its stored
    /// bytes: a binding copies those straight to its caller (the wasm SDK
    /// saves a copy of every point that way). `take` says which stored
    /// columns the caller can use as they lie (a view may need them aligned);
    /// the others are decoded. On error the columns are cleared.
    pub fn decode_unstored_into(&self, columns: &mut NumericColumns, take: impl Fn(&[u8]) -> bool) -> Result<StoredColumns<'_>> {
        let all = self.stored_columns();
        let stored = StoredColumns { timestamps: all.timestamps.filter(|b| take(b)), values: all.values.filter(|b| take(b)) };
        let result = self.fill_columns(columns, all, stored);
        if result.is_err() {
            columns.clear();
        }
        result.map(|()| stored)
    }

    /// Every column into `c` but those in `skip`; `stored` is every column the
    /// blob stores as it decodes (its callers have found them already).
    #[inline(never)] // one copy for both entry points (wasm size)
    fn fill_columns(&self, c: &mut NumericColumns, stored: StoredColumns<'_>, skip: StoredColumns<'_>) -> Result<()> {
        let total = self.total_points();
        c.ids.clear();
        limits::reserve(&mut c.ids, self.len(), "metric ids")?;
        c.ids.extend_from_slice(self.metric_ids());
        c.offsets.clear();
        limits::reserve(&mut c.offsets, self.len() + 1, "point offsets")?;
        c.offsets.push(0);
        let mut end = 0u32;
        for i in 0..self.len() {
            // total_points fits the caps checked at open, far below u32::MAX points
            end += self.entry(i).count as u32;
            c.offsets.push(end);
        }
        // Every slot is overwritten below, so reused columns are only resized:
        // zero-filling 16 bytes a point again would cost more than some decoders.
        // Reserved fallibly: an allocation refused is OUT_OF_MEMORY, not an abort.
        let sized = |skipped: bool| if skipped { 0 } else { total };
        c.timestamps.truncate(sized(skip.timestamps.is_some()));
        limits::resize(&mut c.timestamps, sized(skip.timestamps.is_some()), 0, "timestamp column")?;
        c.values.truncate(sized(skip.values.is_some()));
        limits::resize(&mut c.values, sized(skip.values.is_some()), 0.0, "value column")?;
        // A column stored as it decodes is read in one pass, not metric by metric.
        if skip.timestamps.is_none() {
            match stored.timestamps {
                Some(bytes) => encoding::decode_timestamps(TimestampEncoding::Raw, bytes, ByteOrder::Little, &mut c.timestamps)?,
                None => self.fill_timestamps(&c.offsets, &mut c.timestamps)?,
            }
        }
        if skip.values.is_none() {
            match stored.values {
                Some(bytes) => encoding::decode_values(ValueEncoding::Raw, bytes, ByteOrder::Little, &mut c.values)?,
                None => self.fill_values(&c.offsets, &mut c.values)?,
            }
        }
        Ok(())
    }

    /// Every metric's timestamps, at the points `offsets` gives each.
    fn fill_timestamps(&self, offsets: &[u32], timestamps: &mut [i64]) -> Result<()> {
        let range = |i: usize| offsets[i] as usize..offsets[i + 1] as usize;
        for i in 0..self.len() {
            let points = range(i);
            let source = self.timestamp_source(i);
            if source != i && range(source).len() == points.len() && source < i {
                // A shared timestamp column: copy the canonical metric's decoded points.
                timestamps.copy_within(range(source), points.start);
            } else {
                self.decode_timestamps_at(i, &mut timestamps[points])?;
            }
        }
        Ok(())
    }

    /// Every metric's values, at the points `offsets` gives each.
    fn fill_values(&self, offsets: &[u32], values: &mut [f64]) -> Result<()> {
        let range = |i: usize| offsets[i] as usize..offsets[i + 1] as usize;
        if !self.header().config.value_encoding.is_xor() {
            // One by one, each column read within its payload.
            return (0..self.len()).try_for_each(|i| self.decode_values_at(i, &mut values[range(i)]));
        }
        // Values four metrics at a time, then two: the XOR codecs decode them
        // side by side (the metrics' ranges are consecutive, so the four
        // outputs are split off the column in order).
        let mut i = 0;
        while i + 3 < self.len() {
            let rest = &mut values[range(i).start..range(i + 3).end];
            let (a, rest) = rest.split_at_mut(range(i).len());
            let (b, rest) = rest.split_at_mut(range(i + 1).len());
            let (c2, d) = rest.split_at_mut(range(i + 2).len());
            self.decode_values_four_at([(i, a), (i + 1, b), (i + 2, c2), (i + 3, d)])?;
            i += 4;
        }
        while i + 1 < self.len() {
            let (a, b) = (range(i), range(i + 1));
            let (head, tail) = values.split_at_mut(b.start);
            self.decode_values_two_at((i, &mut head[a]), (i + 1, &mut tail[..b.len()]))?;
            i += 2;
        }
        if i < self.len() {
            self.decode_values_at(i, &mut values[range(i)])?;
        }
        Ok(())
    }
}
