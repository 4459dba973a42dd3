//! Reading a text blob.
//!
//! [`TextBlob::open`] checks everything that does not need the rows: header,
//! names, index, offsets, and the decompressed size against what the index can
//! justify; it decompresses the data payload once. A metric's rows are walked
//! in each accessor call. Every accessor checks the metric's whole row
//! structure (rows must fill its bytes exactly), so a structural error shows
//! the same way through every accessor; only a string that is not UTF-8 fails
//! just the calls that return it.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::compress::decompress_expecting;
use crate::error::{Error, Result};
use crate::limits::{self, DecodeLimits};
use crate::lookup::MetricKeys;
use crate::payload::Payload;
use crate::section::flags::HEADER_SIZE;
use crate::section::metric_names::MetricNames;
use crate::section::text_header::{TextHeader, TextOptions};
use crate::section::text_index::{TextIndexEntry, ENTRY_SIZE};

use super::rows::{Row, RowLayout, Rows};

/// Where one metric's rows are in the data payload.
#[derive(Debug, Clone, Copy)]
struct Span {
    count: usize,
    start: usize,
    end: usize,
}

/// Where each section of a text blob lies in the bytes it was opened from,
/// in blob order: the ranges are adjacent and the last ends at the blob's
/// length. Without metric names, `names` is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextSections {
    /// The fixed-size header.
    pub header: Range<usize>,
    /// The metric-names payload.
    pub names: Range<usize>,
    /// The metric index.
    pub index: Range<usize>,
    /// The data payload (rows of every metric), as stored.
    pub data: Range<usize>,
}

/// An opened text blob. Strings borrow from the blob bytes when the data
/// payload is uncompressed, else from the one decompressed copy held here.
#[derive(Debug, Clone)]
pub struct TextBlob<'a> {
    header: TextHeader,
    /// Ids and names in index order, and lookups by either.
    keys: MetricKeys<'a>,
    spans: Vec<Span>,
    data: Payload<'a>,
    total_points: usize,
    /// Length of the bytes it was opened from (where the data payload ends).
    byte_length: usize,
}

impl<'a> TextBlob<'a> {
    /// Open a text blob with the default [`DecodeLimits`].
    pub fn open(bytes: &'a [u8]) -> Result<TextBlob<'a>> {
        Self::open_with_limits(bytes, &DecodeLimits::default())
    }

    /// Open a text blob, refusing more points or decompressed bytes than `limits` allow.
    pub fn open_with_limits(bytes: &'a [u8], limits: &DecodeLimits) -> Result<TextBlob<'a>> {
        let header = TextHeader::parse(bytes)?;
        let options = header.options;
        let order = options.byte_order;
        let count = header.metric_count as usize;

        // The index alone must fit before anything is allocated per metric.
        let index_bytes = (count as u64) * ENTRY_SIZE as u64;
        if (HEADER_SIZE as u64).saturating_add(index_bytes) > bytes.len() as u64 {
            return Err(Error::Truncated {
                what: "text index",
                needed: usize::try_from(HEADER_SIZE as u64 + index_bytes).unwrap_or(usize::MAX),
                available: bytes.len(),
            });
        }

        let (names, index_offset) = if options.metric_names {
            let (names, used) = MetricNames::decode(&bytes[HEADER_SIZE..], order)?;
            if names.len() != count {
                return Err(Error::CountMismatch { what: "metric names vs metric count", expected: count, actual: names.len() });
            }
            (Some(names), HEADER_SIZE + used)
        } else {
            (None, HEADER_SIZE)
        };
        if header.index_offset as usize != index_offset {
            return Err(Error::InvalidHeader {
                detail: format!("index offset is {}, the index starts at {index_offset}", header.index_offset),
            });
        }
        // `count * ENTRY_SIZE` fits (checked against the input above); the sum
        // saturates rather than wrap on wasm32, and then fails the comparison.
        let data_offset = index_offset.saturating_add(count * ENTRY_SIZE);
        if header.data_offset as usize != data_offset {
            return Err(Error::InvalidHeader { detail: format!("data offset is {}, the index ends at {data_offset}", header.data_offset) });
        }
        let index = bytes.get(index_offset..data_offset).ok_or(Error::Truncated {
            what: "text index",
            needed: data_offset,
            available: bytes.len(),
        })?;

        let layout = RowLayout::new(options.timestamp_encoding, options.tags, order, header.start_time);
        let data_size = header.data_size as usize;
        // `count` is bounded by the blob's length (checked above), but each
        // entry takes more room here than in the blob: reserved fallibly.
        let mut ids = limits::with_capacity(count, "metric ids")?;
        let mut spans: Vec<Span> = limits::with_capacity(count, "text metric spans")?;
        let mut total_points = 0u64;
        for raw in index.chunks_exact(ENTRY_SIZE) {
            let entry = TextIndexEntry::parse(raw, order)?;
            let start = entry.offset as usize;
            if start > data_size {
                return Err(Error::OffsetOutOfRange { what: "text metric", offset: start, limit: data_size });
            }
            // Metrics tile the payload: the first starts it, each later one
            // ends the previous.
            match spans.last_mut() {
                None if start != 0 => {
                    return Err(Error::OffsetOutOfRange { what: "first text metric", offset: start, limit: 0 });
                }
                None => {}
                Some(prev) if start < prev.start => {
                    return Err(Error::OffsetOutOfRange { what: "text metric (offsets run backwards)", offset: start, limit: prev.start });
                }
                Some(prev) => prev.end = start,
            }
            ids.push(entry.id);
            spans.push(Span { count: usize::from(entry.count), start, end: data_size });
            total_points += u64::from(entry.count);
        }
        if total_points > limits.max_points {
            return Err(Error::SizeCap { what: "text blob points", size: total_points, cap: limits.max_points });
        }
        if count == 0 && data_size != 0 {
            return Err(Error::CountMismatch { what: "text data bytes of a blob with no metrics", expected: 0, actual: data_size });
        }
        // Each metric's bytes must be what its point count can fill: this bounds
        // the decompressed size by the counts before decompressing.
        for (i, span) in spans.iter().enumerate() {
            let size = (span.end - span.start) as u64;
            let n = span.count as u64;
            if size < n * layout.min_row() || size > n * layout.max_row() {
                return Err(Error::CorruptColumn { what: "text data", metric: i, detail: format!("{size} bytes cannot hold {n} points") });
            }
        }
        if data_size > limits.max_decompressed_bytes {
            return Err(Error::SizeCap { what: "text data payload", size: data_size as u64, cap: limits.max_decompressed_bytes as u64 });
        }

        let payload = bytes.get(data_offset..).unwrap_or_default();
        // The header states the data's size: LZ4 need not walk the block for it.
        let data = decompress_expecting(options.data_compression, payload, data_size, Some(data_size), "text data")?;
        if data.len() != data_size {
            return Err(Error::CountMismatch { what: "text data payload bytes", expected: data_size, actual: data.len() });
        }

        Ok(TextBlob {
            header,
            keys: MetricKeys::new(ids, names)?,
            spans,
            data: Payload::from(data),
            total_points: total_points as usize,
            byte_length: bytes.len(),
        })
    }

    /// Open a blob from bytes it then holds, as [`open_with_limits`]: a data
    /// payload stored without a codec is read in place, not copied out.
    ///
    /// [`open_with_limits`]: TextBlob::open_with_limits
    pub fn open_owned(bytes: Vec<u8>, limits: &DecodeLimits) -> Result<TextBlob<'static>> {
        let all = 0..bytes.len();
        Self::open_owned_range(bytes, all, limits)
    }

    /// [`open_owned`](Self::open_owned) of the blob at `range` of `bytes`
    /// (the rest of them held, unread).
    pub fn open_owned_range(bytes: Vec<u8>, range: Range<usize>, limits: &DecodeLimits) -> Result<TextBlob<'static>> {
        let input = Arc::new(bytes);
        let available = input.len();
        let blob_bytes = input.get(range.clone()).ok_or(Error::Truncated { what: "blob", needed: range.end, available })?;
        let blob = TextBlob::open_with_limits(blob_bytes, limits)?;
        Ok(blob.map_payload(|payload| payload.anchored_in(&input)))
    }

    /// Copy what the blob borrows (an uncompressed data payload, the names) so
    /// it no longer borrows the input.
    pub fn into_owned(self) -> TextBlob<'static> {
        self.map_payload(Payload::into_owned)
    }

    /// The blob with owned names and its data payload passed through `own`.
    fn map_payload(self, own: impl FnOnce(Payload<'a>) -> Payload<'static>) -> TextBlob<'static> {
        TextBlob {
            header: self.header,
            keys: self.keys.into_owned(),
            spans: self.spans,
            data: own(self.data),
            total_points: self.total_points,
            byte_length: self.byte_length,
        }
    }

    /// The blob's start time (the base of the first delta of every metric).
    pub fn start_time(&self) -> i64 {
        self.header.start_time
    }

    /// Number of metrics.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when the blob has no metric.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The options recorded in the header.
    pub fn options(&self) -> TextOptions {
        self.header.options
    }

    /// The parsed header.
    pub fn header(&self) -> &TextHeader {
        &self.header
    }

    /// Metric ids in index order (the order they were added).
    pub fn metric_ids(&self) -> &[u64] {
        self.keys.ids()
    }

    /// Metric names in index order, when the blob carries them.
    pub fn names(&self) -> Option<&[Cow<'a, str>]> {
        self.keys.names()
    }

    /// Points over all metrics.
    pub fn total_points(&self) -> usize {
        self.total_points
    }

    /// Where each section lies in the bytes the blob was opened from, from
    /// the header's offsets (which `open` checked).
    pub fn sections(&self) -> TextSections {
        let (index, data) = (self.header.index_offset as usize, self.header.data_offset as usize);
        TextSections { header: 0..HEADER_SIZE, names: HEADER_SIZE..index, index: index..data, data: data..self.byte_length }
    }

    /// Uncompressed size of the data payload.
    pub fn data_size(&self) -> usize {
        self.data.len()
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

    /// The metric with this id.
    pub fn metric(&self, id: u64) -> Result<TextMetric<'_>> {
        let at = self.position(id).ok_or_else(|| Error::MetricNotFound { key: format!("id {id:016x}") })?;
        self.metric_at(at)
    }

    /// The metric with this name.
    pub fn metric_by_name(&self, name: &str) -> Result<TextMetric<'_>> {
        let at = self.position_by_name(name).ok_or_else(|| Error::name_not_found(name))?;
        self.metric_at(at)
    }

    /// The metric at this index position.
    pub fn metric_at(&self, index: usize) -> Result<TextMetric<'_>> {
        if index >= self.spans.len() {
            return Err(Error::IndexOutOfRange { index, len: self.spans.len() });
        }
        Ok(self.metric_unchecked(index))
    }

    /// Every metric in index order.
    pub fn metrics(&self) -> impl ExactSizeIterator<Item = TextMetric<'_>> + '_ {
        (0..self.len()).map(|i| self.metric_unchecked(i))
    }

    /// `index` is below `len()`.
    fn metric_unchecked(&self, index: usize) -> TextMetric<'_> {
        let span = self.spans[index];
        TextMetric {
            index,
            id: self.keys.ids()[index],
            name: self.keys.name(index),
            // In range: open checked that the spans tile the decompressed payload.
            rows: self.data.get(span.start..span.end).unwrap_or_default(),
            count: span.count,
            layout: self.layout(),
        }
    }

    fn layout(&self) -> RowLayout {
        let o = &self.header.options;
        RowLayout::new(o.timestamp_encoding, o.tags, o.byte_order, self.header.start_time)
    }
}

pub(super) fn utf8<'b>(bytes: &'b [u8], what: &'static str, index: usize) -> Result<&'b str> {
    std::str::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 { what, index })
}

/// One metric of a text blob. Decoding happens in the calls, not before; every
/// call walks the metric's rows from the start (rows have no fixed size and
/// delta timestamps chain), so `*_at` accessors cost as much as a full decode.
#[derive(Debug, Clone, Copy)]
pub struct TextMetric<'b> {
    index: usize,
    id: u64,
    name: Option<&'b str>,
    rows: &'b [u8],
    count: usize,
    layout: RowLayout,
}

impl<'b> TextMetric<'b> {
    /// The metric's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Position in the blob's index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The metric's name, when the blob carries names.
    pub fn name(&self) -> Option<&'b str> {
        self.name
    }

    /// Point count.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when the metric has no point.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// True when the blob carries tags.
    pub fn has_tags(&self) -> bool {
        self.layout.tags
    }

    pub(super) fn rows(&self) -> Rows<'b> {
        Rows::new(self.rows, self.count, self.layout, self.index)
    }

    /// Decode the timestamps into `out`, which must hold exactly `len()` slots.
    pub fn timestamps_into(&self, out: &mut [i64]) -> Result<()> {
        if out.len() != self.count {
            return Err(Error::BufferSize { what: "timestamp", expected: self.count, actual: out.len() });
        }
        for (slot, row) in out.iter_mut().zip(self.rows()) {
            *slot = row?.ts;
        }
        Ok(())
    }

    /// Decode the timestamps.
    pub fn timestamps(&self) -> Result<Vec<i64>> {
        limits::collect(self.rows().map(|row| row.map(|r| r.ts)), self.count, "timestamp column")
    }

    /// Decode the values (borrowed from the blob).
    pub fn values(&self) -> Result<Vec<&'b str>> {
        limits::collect(self.rows().enumerate().map(|(i, row)| utf8(row?.value, "text value", i)), self.count, "value column")
    }

    /// The per-point tags, when the blob has tags.
    pub fn tags(&self) -> Result<Option<Vec<&'b str>>> {
        if !self.layout.tags {
            return Ok(None);
        }
        limits::collect(self.rows().enumerate().map(|(i, row)| utf8(row?.tag, "text tag", i)), self.count, "tag column").map(Some)
    }

    /// Row `index`, after checking every row of the metric.
    fn row_at(&self, index: usize) -> Result<Row<'b>> {
        if index >= self.count {
            return Err(Error::IndexOutOfRange { index, len: self.count });
        }
        let mut found = None;
        for (i, row) in self.rows().enumerate() {
            let row = row?;
            if i == index {
                found = Some(row);
            }
        }
        found.ok_or(Error::IndexOutOfRange { index, len: self.count })
    }

    /// The timestamp of point `index`.
    pub fn timestamp_at(&self, index: usize) -> Result<i64> {
        Ok(self.row_at(index)?.ts)
    }

    /// The value of point `index`.
    pub fn value_at(&self, index: usize) -> Result<&'b str> {
        utf8(self.row_at(index)?.value, "text value", index)
    }

    /// The tag of point `index` (`None` when the blob has no tags).
    pub fn tag_at(&self, index: usize) -> Result<Option<&'b str>> {
        let row = self.row_at(index)?;
        if !self.layout.tags {
            return Ok(None);
        }
        utf8(row.tag, "text tag", index).map(Some)
    }

    /// Every point as `(timestamp, value, tag)`, decoded once up front.
    pub fn points(&self) -> Result<impl ExactSizeIterator<Item = (i64, &'b str, Option<&'b str>)>> {
        let tags = self.layout.tags;
        let points = self.rows().enumerate().map(|(i, row)| {
            let row = row?;
            let tag = if tags { Some(utf8(row.tag, "text tag", i)?) } else { None };
            Ok((row.ts, utf8(row.value, "text value", i)?, tag))
        });
        let points = limits::collect(points, self.count, "points")?;
        Ok(points.into_iter())
    }
}
