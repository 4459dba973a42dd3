//! Reading a numeric blob: open validates everything structural up front and
//! decompresses each payload once; metrics are then decoded on demand.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::byte_order::ByteOrder;
use crate::compress;
use crate::encoding::{self, MAX_COLUMN_BYTES_PER_METRIC, MAX_COLUMN_BYTES_PER_POINT};
use crate::error::{Error, Result};
use crate::format::{Compression, TimestampEncoding, ValueEncoding};
use crate::limits::DecodeLimits;
use crate::lookup::MetricKeys;
use crate::numeric::columns::StoredColumns;
use crate::numeric::options::NumericEncoderOptions;
use crate::payload::Payload;
use crate::section::flags::HEADER_SIZE;
use crate::section::metric_names::MetricNames;
use crate::section::numeric_header::{IndexKind, NumericHeader};
use crate::section::numeric_index::{resolve_ranges, ColumnRanges, NumericIndexEntry};
use crate::section::shared_timestamps::SharedTimestampTable;
use crate::section::tags::TagColumn;

/// Fewest bytes a value column of `count` points takes: raw 8 a point;
/// Gorilla and Chimp the first value's 64 bits, then 1 (Gorilla) or 2
/// (Chimp) control bits a point, padded to a byte; ALP its scheme byte (a
/// main column of width 0 holds any count in its header).
#[inline(always)]
fn min_value_bytes(encoding: ValueEncoding, count: usize) -> usize {
    if count == 0 {
        return 0;
    }
    let xor = |bits_per_point: usize| count.saturating_sub(1).saturating_mul(bits_per_point).saturating_add(64).div_ceil(8);
    match encoding {
        ValueEncoding::Raw => count.saturating_mul(8),
        ValueEncoding::Gorilla => xor(1),
        ValueEncoding::Chimp => xor(2),
        ValueEncoding::Alp => 1,
    }
}

/// Most bytes one tag can take: a 2-byte length varint and 255 bytes.
const MAX_TAG_BYTES: usize = 257;

/// Where each section of a numeric blob lies in the bytes it was opened
/// from, in blob order: the ranges are adjacent and the last ends at the
/// blob's length. An absent section (names, shared-timestamp table, tags) is
/// an empty range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumericSections {
    /// The fixed-size header.
    pub header: Range<usize>,
    /// The metric-names payload.
    pub names: Range<usize>,
    /// The metric index.
    pub index: Range<usize>,
    /// The shared-timestamp table (layout v2-shared).
    pub shared_timestamps: Range<usize>,
    /// The timestamp payload, as stored (compressed or not).
    pub timestamps: Range<usize>,
    /// The value payload, as stored.
    pub values: Range<usize>,
    /// The tag payload, as stored.
    pub tags: Range<usize>,
}

/// An opened numeric blob, borrowing the bytes it was opened from.
#[derive(Debug, Clone)]
pub struct NumericBlob<'a> {
    header: NumericHeader,
    /// Ids and names in index order, and lookups by either.
    keys: MetricKeys<'a>,
    /// Entries in index order, with absolute ranges into the payloads (a shared
    /// metric's timestamp range is its canonical metric's).
    entries: Vec<ColumnRanges>,
    /// For each metric, the index of the first metric with the same timestamp
    /// range (itself unless it shares), so a shared column is decoded once.
    timestamp_source: Vec<u32>,
    timestamps: Payload<'a>,
    values: Payload<'a>,
    tags: Payload<'a>,
    total_points: usize,
    /// Length of the bytes it was opened from (where the tag payload ends).
    byte_length: usize,
}

impl<'a> NumericBlob<'a> {
    /// Open a blob with the default [`DecodeLimits`].
    pub fn open(bytes: &'a [u8]) -> Result<NumericBlob<'a>> {
        Self::open_with_limits(bytes, &DecodeLimits::default())
    }

    /// Open a blob: parse and check header, names, index, shared-timestamp
    /// table and offsets; decompress the payloads (each at most once).
    pub fn open_with_limits(bytes: &'a [u8], limits: &DecodeLimits) -> Result<NumericBlob<'a>> {
        let header = NumericHeader::parse(bytes)?;
        let order = header.byte_order;
        let metric_count = header.metric_count as usize;

        let (ts_start, val_start, tag_start) = (header.timestamp_offset as usize, header.value_offset as usize, header.tag_offset as usize);
        if ts_start > val_start || val_start > tag_start || tag_start > bytes.len() {
            return Err(Error::OffsetOutOfRange { what: "payload", offset: ts_start.max(val_start).max(tag_start), limit: bytes.len() });
        }

        let (names, names_len) = if header.metric_names {
            let (names, used) = MetricNames::decode(section(bytes, HEADER_SIZE, ts_start, "metric names")?, order)?;
            if names.len() != metric_count {
                return Err(Error::CountMismatch { what: "metric names", expected: metric_count, actual: names.len() });
            }
            (Some(names), used)
        } else {
            (None, 0)
        };
        let index_start = HEADER_SIZE + names_len;
        if header.index_offset as usize != index_start {
            return Err(Error::InvalidHeader {
                detail: format!("index offset {} but the index starts at {index_start}", header.index_offset),
            });
        }

        let raw =
            NumericIndexEntry::parse_all(section(bytes, index_start, ts_start, "metric index")?, header.index_kind, order, metric_count)?;
        let index_end = index_start + metric_count * header.index_kind.entry_size();

        let total_points = raw.iter().map(|e| e.count as u64).sum::<u64>();
        // Decoded columns address points with u32 offsets (`NumericColumns`), so
        // no caller limit lifts the count past u32::MAX.
        let max_points = limits.max_points.min(u64::from(u32::MAX));
        if total_points > max_points {
            return Err(Error::SizeCap { what: "total point count", size: total_points, cap: max_points });
        }
        let total_points = total_points as usize;

        // A column cannot be larger than its points can fill: cap each payload.
        let column_cap = total_points
            .saturating_mul(MAX_COLUMN_BYTES_PER_POINT)
            .saturating_add(metric_count.saturating_mul(MAX_COLUMN_BYTES_PER_METRIC))
            .min(limits.max_decompressed_bytes);
        let tag_cap = total_points.saturating_mul(MAX_TAG_BYTES).min(limits.max_decompressed_bytes);

        // Raw columns decode to 8 bytes a point (less when timestamps are shared).
        let column = |codec, payload, raw: bool, what| {
            compress::decompress_expecting(codec, payload, column_cap, raw.then(|| total_points.saturating_mul(8)), what)
        };
        let config = header.config;
        let (ts_raw, values_raw) = (config.timestamp_encoding == TimestampEncoding::Raw, config.value_encoding == ValueEncoding::Raw);
        let timestamps = column(config.timestamp_compression, &bytes[ts_start..val_start], ts_raw, "timestamp payload")?;
        let values = column(config.value_compression, &bytes[val_start..tag_start], values_raw, "value payload")?;
        // The reference always compresses the tag payload with zstd.
        let tags = if header.tags {
            compress::decompress(Compression::Zstd, &bytes[tag_start..], tag_cap, "tag payload")?
        } else {
            Cow::Borrowed(&bytes[..0])
        };
        let (timestamps, values, tags) = (Payload::from(timestamps), Payload::from(values), Payload::from(tags));

        let mut entries = resolve_ranges(&raw, timestamps.len(), values.len(), tags.len())?;

        let shared = if header.shared_timestamps {
            if index_end >= ts_start {
                return Err(Error::SharedTimestampTable { detail: "flag set but the table is missing".into() });
            }
            Some(SharedTimestampTable::parse(&bytes[index_end..ts_start], order, metric_count)?)
        } else if index_end != ts_start {
            return Err(Error::OffsetOutOfRange { what: "timestamp payload", offset: ts_start, limit: index_end });
        } else {
            None
        };

        let mut timestamp_source: Vec<u32> = crate::limits::collect((0..metric_count as u32).map(Ok), metric_count, "timestamp sources")?;
        if let Some(table) = &shared {
            for g in &table.groups {
                let range = entries[g.canonical].timestamps.clone();
                for &m in &g.members {
                    entries[m].timestamps = range.clone();
                    timestamp_source[m] = g.canonical as u32;
                }
            }
        }

        // Every timestamp encoding takes at least a byte a point (raw: eight), so
        // a count its column cannot hold is corrupt. Checked here, before any
        // caller sizes a buffer by the count: this bounds the decoded points by
        // the decompressed bytes, not only by `max_points` (an ALP value column
        // can claim any count in a few bytes).
        // The value and tag columns likewise, each by the fewest bytes its
        // encoding takes for a count (see `min_value_bytes`).
        let min_bytes = if config.timestamp_encoding == TimestampEncoding::Raw { 8 } else { 1 };
        for (i, e) in entries.iter().enumerate() {
            let short = |what, have| {
                Err(Error::CorruptColumn { what, metric: i, detail: format!("{} points cannot fit in {have} bytes", e.count) })
            };
            if e.count.saturating_mul(min_bytes) > e.timestamps.len() {
                return short("timestamp", e.timestamps.len());
            }
            if min_value_bytes(config.value_encoding, e.count) > e.values.len() {
                return short("value", e.values.len());
            }
            // A tag is at least its one-byte length.
            if header.tags && e.count > e.tags.len() {
                return short("tag", e.tags.len());
            }
        }

        let keys = MetricKeys::new(crate::limits::collect(entries.iter().map(|e| Ok(e.id)), entries.len(), "metric ids")?, names)?;
        if header.index_kind.is_sorted() && keys.ids().windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::InvalidHeader { detail: "v2 index is not sorted by metric id".into() });
        }

        Ok(NumericBlob { header, keys, entries, timestamp_source, timestamps, values, tags, total_points, byte_length: bytes.len() })
    }

    /// The blob's start time, i64 microseconds.
    pub fn start_time(&self) -> i64 {
        self.header.start_time
    }

    /// Number of metrics.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the blob has no metric (a blob always has one, but a crafted one may not).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Points over all metrics.
    pub fn total_points(&self) -> usize {
        self.total_points
    }

    /// The options recorded in the header: those that write the blob again
    /// in the same layout.
    pub fn options(&self) -> NumericEncoderOptions {
        let h = &self.header;
        NumericEncoderOptions { config: h.config, tags: h.tags, byte_order: h.byte_order, layout: h.layout() }
    }

    /// True when the index has 32-byte entries (magic 0xEA30): the encoder
    /// chooses them when a count or offset exceeds 16 bits.
    pub fn extended_index(&self) -> bool {
        self.header.index_kind == IndexKind::V2Extended
    }

    /// The parsed header.
    pub fn header(&self) -> &NumericHeader {
        &self.header
    }

    /// Metric ids in index order.
    pub fn metric_ids(&self) -> &[u64] {
        self.keys.ids()
    }

    /// Metric names in index order, when the blob carries them.
    pub fn names(&self) -> Option<&[Cow<'a, str>]> {
        self.keys.names()
    }

    /// Open a blob from bytes it then holds, as [`open_with_limits`]: a
    /// payload stored without a codec is read in place, not copied out. For
    /// holders that cannot keep the bytes alive beside the blob, such as the
    /// wasm bindings.
    ///
    /// [`open_with_limits`]: NumericBlob::open_with_limits
    pub fn open_owned(bytes: Vec<u8>, limits: &DecodeLimits) -> Result<NumericBlob<'static>> {
        let all = 0..bytes.len();
        Self::open_owned_range(bytes, all, limits)
    }

    /// [`open_owned`](Self::open_owned) of the blob at `range` of `bytes`
    /// (the rest of them held, unread).
    pub fn open_owned_range(bytes: Vec<u8>, range: Range<usize>, limits: &DecodeLimits) -> Result<NumericBlob<'static>> {
        let input = Arc::new(bytes);
        let available = input.len();
        let blob_bytes = input.get(range.clone()).ok_or(Error::Truncated { what: "blob", needed: range.end, available })?;
        let blob = NumericBlob::open_with_limits(blob_bytes, limits)?;
        Ok(blob.map_payloads(|payload| payload.anchored_in(&input)))
    }

    /// Copy what the blob borrows (payloads stored without a codec, names) so
    /// it no longer borrows the input.
    pub fn into_owned(self) -> NumericBlob<'static> {
        self.map_payloads(Payload::into_owned)
    }

    /// The blob with owned names and each payload passed through `own`.
    fn map_payloads(self, own: impl Fn(Payload<'a>) -> Payload<'static>) -> NumericBlob<'static> {
        NumericBlob {
            header: self.header,
            keys: self.keys.into_owned(),
            entries: self.entries,
            timestamp_source: self.timestamp_source,
            timestamps: own(self.timestamps),
            values: own(self.values),
            tags: own(self.tags),
            total_points: self.total_points,
            byte_length: self.byte_length,
        }
    }

    /// Where each section lies in the bytes the blob was opened from, from
    /// the header's offsets (which `open` checked).
    pub fn sections(&self) -> NumericSections {
        let h = &self.header;
        let index = h.index_offset as usize;
        let index_end = index + h.metric_count as usize * h.index_kind.entry_size();
        let (ts, val, tag) = (h.timestamp_offset as usize, h.value_offset as usize, h.tag_offset as usize);
        NumericSections {
            header: 0..HEADER_SIZE,
            names: HEADER_SIZE..index,
            index: index..index_end,
            shared_timestamps: index_end..ts,
            timestamps: ts..val,
            values: val..tag,
            tags: tag..self.byte_length,
        }
    }

    /// Decompressed payload sizes: (timestamps, values, tags).
    pub fn payload_sizes(&self) -> (usize, usize, usize) {
        (self.timestamps.len(), self.values.len(), self.tags.len())
    }

    /// Index position of the metric with this id. When ids repeat (two names
    /// with one hash) the last such metric, as the reference's lookup.
    pub fn position(&self, id: u64) -> Option<usize> {
        self.keys.position(id)
    }

    /// Index position of the metric with this name: by the names payload when
    /// there is one, else by the name's hash (the last match, as [`position`](Self::position)).
    pub fn position_by_name(&self, name: &str) -> Option<usize> {
        self.keys.position_by_name(name)
    }

    /// The metric at index position `index`.
    pub fn metric_at(&self, index: usize) -> Result<NumericMetric<'_, 'a>> {
        if index >= self.entries.len() {
            return Err(Error::IndexOutOfRange { index, len: self.entries.len() });
        }
        Ok(NumericMetric { blob: self, index })
    }

    /// The metric with this id.
    pub fn metric(&self, id: u64) -> Result<NumericMetric<'_, 'a>> {
        let index = self.position(id).ok_or_else(|| Error::MetricNotFound { key: format!("id {id:016x}") })?;
        Ok(NumericMetric { blob: self, index })
    }

    /// The metric with this name (by the names payload when present, else by hash).
    pub fn metric_by_name(&self, name: &str) -> Result<NumericMetric<'_, 'a>> {
        let index = self.position_by_name(name).ok_or_else(|| Error::name_not_found(name))?;
        Ok(NumericMetric { blob: self, index })
    }

    /// All metrics in index order.
    pub fn metrics(&self) -> impl ExactSizeIterator<Item = NumericMetric<'_, 'a>> {
        (0..self.entries.len()).map(move |index| NumericMetric { blob: self, index })
    }

    pub(crate) fn entry(&self, index: usize) -> &ColumnRanges {
        &self.entries[index]
    }

    pub(crate) fn timestamp_source(&self, index: usize) -> usize {
        self.timestamp_source[index] as usize
    }

    /// The columns stored as they decode (see [`StoredColumns`]).
    pub(crate) fn stored_columns(&self) -> StoredColumns<'_> {
        let shared = (0..self.len()).any(|i| self.timestamp_source(i) != i);
        StoredColumns {
            timestamps: self.stored_column(
                &self.timestamps,
                |e| &e.timestamps,
                self.header.config.timestamp_encoding == TimestampEncoding::Raw && !shared,
            ),
            values: self.stored_column(&self.values, |e| &e.values, self.header.config.value_encoding == ValueEncoding::Raw),
        }
    }

    /// The first `8 × total_points` bytes of a raw column's payload, when
    /// every metric's column starts where the previous one's points end, in
    /// little-endian order.
    fn stored_column<'s>(&self, payload: &'s [u8], range: impl Fn(&ColumnRanges) -> &Range<usize>, raw: bool) -> Option<&'s [u8]> {
        if !raw || self.header.byte_order != ByteOrder::Little {
            return None;
        }
        let mut end = 0usize;
        for e in &self.entries {
            let (start, bytes) = (range(e).start, e.count.checked_mul(8)?);
            if start != end || range(e).len() < bytes {
                return None;
            }
            end = start.checked_add(bytes)?;
        }
        payload.get(..end)
    }

    pub(crate) fn decode_timestamps_at(&self, index: usize, out: &mut [i64]) -> Result<()> {
        let e = &self.entries[index];
        check_len("timestamp", e.count, out.len())?;
        // The payload from the column on: a kernel may read past the column's end.
        let from = &self.timestamps[e.timestamps.start..];
        encoding::decode_timestamps_within(self.header.config.timestamp_encoding, from, e.timestamps.len(), self.header.byte_order, out)
            .map_err(|err| err.in_metric(index))
    }

    pub(crate) fn decode_values_at(&self, index: usize, out: &mut [f64]) -> Result<()> {
        let e = &self.entries[index];
        check_len("value", e.count, out.len())?;
        // The payload from the column on: a kernel may read past the column's end.
        let from = &self.values[e.values.start..];
        encoding::decode_values_within(self.header.config.value_encoding, from, e.values.len(), self.header.byte_order, out)
            .map_err(|err| err.in_metric(index))
    }

    /// [`decode_values_at`](Self::decode_values_at) for metrics `a` and `b`
    /// at once (faster for the XOR codecs).
    pub(crate) fn decode_values_two_at(&self, (a, out_a): (usize, &mut [f64]), (b, out_b): (usize, &mut [f64])) -> Result<()> {
        let (entry_a, entry_b) = (&self.entries[a], &self.entries[b]);
        check_len("value", entry_a.count, out_a.len()).map_err(|err| err.in_metric(a))?;
        check_len("value", entry_b.count, out_b.len()).map_err(|err| err.in_metric(b))?;
        let (col_a, col_b) = (&self.values[entry_a.values.clone()], &self.values[entry_b.values.clone()]);
        let both = encoding::decode_values_two(
            self.header.config.value_encoding,
            (col_a, &mut *out_a),
            (col_b, &mut *out_b),
            self.header.byte_order,
        );
        if both.is_err() {
            // One by one, for the error that names the metric at fault.
            self.decode_values_at(a, out_a)?;
            self.decode_values_at(b, out_b)?;
        }
        both
    }

    /// [`decode_values_at`](Self::decode_values_at) for four metrics at
    /// once (faster still for the XOR codecs).
    pub(crate) fn decode_values_four_at(&self, [a, b, c, d]: [(usize, &mut [f64]); 4]) -> Result<()> {
        for (index, out) in [(a.0, &*a.1), (b.0, &*b.1), (c.0, &*c.1), (d.0, &*d.1)] {
            check_len("value", self.entries[index].count, out.len()).map_err(|err| err.in_metric(index))?;
        }
        let col = |index: usize| &self.values[self.entries[index].values.clone()];
        let all = encoding::decode_values_four(
            self.header.config.value_encoding,
            (col(a.0), &mut *a.1),
            (col(b.0), &mut *b.1),
            (col(c.0), &mut *c.1),
            (col(d.0), &mut *d.1),
            self.header.byte_order,
        );
        if all.is_err() {
            // One by one, for the error that names the metric at fault.
            for (index, out) in [a, b, c, d] {
                self.decode_values_at(index, out)?;
            }
        }
        all
    }

    pub(crate) fn decode_tags_at(&self, index: usize) -> Result<Option<Vec<&str>>> {
        if !self.header.tags {
            return Ok(None);
        }
        let e = &self.entries[index];
        TagColumn::decode(&self.tags[e.tags.clone()], self.header.byte_order, e.count).map(Some).map_err(|err| err.in_metric(index))
    }
}

/// `bytes[start..end]`, or an error when the header's offsets put `end` before `start`.
fn section<'a>(bytes: &'a [u8], start: usize, end: usize, what: &'static str) -> Result<&'a [u8]> {
    bytes.get(start..end).ok_or(Error::Truncated { what, needed: start, available: end })
}

fn check_len(what: &'static str, expected: usize, actual: usize) -> Result<()> {
    if expected != actual {
        return Err(Error::BufferSize { what, expected, actual });
    }
    Ok(())
}

/// One metric of an opened blob. Decoding happens in the calls, not before.
#[derive(Debug, Clone, Copy)]
pub struct NumericMetric<'b, 'a> {
    blob: &'b NumericBlob<'a>,
    index: usize,
}

impl<'b, 'a> NumericMetric<'b, 'a> {
    /// The metric's id.
    pub fn id(&self) -> u64 {
        self.blob.entries[self.index].id
    }

    /// Position in the blob's index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The metric's name, when the blob carries names.
    pub fn name(&self) -> Option<&'b str> {
        self.blob.keys.name(self.index)
    }

    /// Point count.
    pub fn len(&self) -> usize {
        self.blob.entries[self.index].count
    }

    /// True when the metric has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decode the timestamps into `out`, which must hold exactly `len()` slots.
    pub fn timestamps_into(&self, out: &mut [i64]) -> Result<()> {
        self.blob.decode_timestamps_at(self.index, out)
    }

    /// Decode the values into `out`, which must hold exactly `len()` slots.
    pub fn values_into(&self, out: &mut [f64]) -> Result<()> {
        self.blob.decode_values_at(self.index, out)
    }

    /// Decode the timestamps.
    pub fn timestamps(&self) -> Result<Vec<i64>> {
        let mut out = crate::limits::filled(self.len(), 0, "timestamp column")?;
        self.timestamps_into(&mut out)?;
        Ok(out)
    }

    /// Decode the values.
    pub fn values(&self) -> Result<Vec<f64>> {
        let mut out = crate::limits::filled(self.len(), 0.0, "value column")?;
        self.values_into(&mut out)?;
        Ok(out)
    }

    /// The per-point tags, when the blob has tags.
    pub fn tags(&self) -> Result<Option<Vec<&'b str>>> {
        self.blob.decode_tags_at(self.index)
    }

    /// The timestamp of point `i`: O(1) for raw columns, a decode otherwise.
    pub fn timestamp_at(&self, i: usize) -> Result<i64> {
        self.check_point(i)?;
        let h = &self.blob.header;
        if h.config.timestamp_encoding == TimestampEncoding::Raw {
            let col = &self.blob.timestamps[self.blob.entries[self.index].timestamps.clone()];
            // Saturating, here and in `value_at`: open bounds counts by the
            // timestamp column only, so on wasm32 `i * 8` into a raw value column
            // can pass usize, and a wrapped offset would read another point.
            return h.byte_order.read_u64(col, i.saturating_mul(8), "timestamp column").map(|v| v as i64);
        }
        Ok(self.timestamps()?[i])
    }

    /// The value of point `i`: O(1) for raw columns, a decode otherwise.
    pub fn value_at(&self, i: usize) -> Result<f64> {
        self.check_point(i)?;
        let h = &self.blob.header;
        if h.config.value_encoding == ValueEncoding::Raw {
            let col = &self.blob.values[self.blob.entries[self.index].values.clone()];
            return h.byte_order.read_u64(col, i.saturating_mul(8), "value column").map(f64::from_bits);
        }
        Ok(self.values()?[i])
    }

    /// The tag of point `i` (`None` when the blob has no tags).
    pub fn tag_at(&self, i: usize) -> Result<Option<&'b str>> {
        self.check_point(i)?;
        Ok(self.tags()?.map(|t| t[i]))
    }

    /// Every point as `(timestamp, value, tag)`, decoded once up front.
    pub fn points(&self) -> Result<impl ExactSizeIterator<Item = (i64, f64, Option<&'b str>)>> {
        let ts = self.timestamps()?;
        let vs = self.values()?;
        let tags = self.tags()?;
        Ok((0..ts.len()).map(move |i| (ts[i], vs[i], tags.as_ref().map(|t| t[i]))))
    }

    /// Whether the blob holding this metric carries tags.
    pub fn has_tags(&self) -> bool {
        self.blob.header.tags
    }

    fn check_point(&self, i: usize) -> Result<()> {
        if i >= self.len() {
            return Err(Error::IndexOutOfRange { index: i, len: self.len() });
        }
        Ok(())
    }
}
