//! A blob's head: the header, the names and the index, the bytes before its
//! first payload. It tells the kind and how many points the blob holds with
//! no payload read or decompressed, so a reader that fetches files from
//! object storage can count a blob's rows from a range read of its start,
//! and fetch only the bytes of the metrics it wants.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::format::Compression;
use crate::section::flags::{BlobKind, HEADER_SIZE};
use crate::section::numeric_header::NumericHeader;
use crate::section::numeric_index::{resolve_ranges, NumericIndexEntry};
use crate::section::shared_timestamps::SharedTimestampTable;
use crate::section::text_header::TextHeader;
use crate::section::text_index::{TextIndexEntry, ENTRY_SIZE as TEXT_ENTRY_SIZE};

/// What a blob's head says: checked as [`NumericBlob::open`] and
/// [`TextBlob::open`] check the header and the index, but no payload (a
/// blob whose head parses may still fail to open).
///
/// [`NumericBlob::open`]: crate::numeric::NumericBlob::open
/// [`TextBlob::open`]: crate::text::TextBlob::open
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobHead {
    /// Numeric or text.
    pub kind: BlobKind,
    /// How many metrics the index lists.
    pub metric_count: usize,
    /// The points of every metric: the index's counts summed.
    pub total_points: u64,
}

impl BlobHead {
    /// How many bytes the head takes, read from the header (a blob's first
    /// [`HEADER_SIZE`] bytes): where the first payload begins.
    pub fn len(header: &[u8]) -> Result<usize> {
        match kind(header)? {
            BlobKind::Numeric => Ok(NumericHeader::parse(header)?.timestamp_offset as usize),
            BlobKind::Text => Ok(TextHeader::parse(header)?.data_offset as usize),
        }
    }

    /// Parse the head of a blob of `blob_len` bytes from `head`, its first
    /// [`len`](Self::len) bytes or more.
    pub fn parse(head: &[u8], blob_len: usize) -> Result<BlobHead> {
        let (kind, metrics) = index(head, blob_len)?;
        let total_points = metrics.iter().map(|&(_, count)| u64::from(count)).sum();
        Ok(BlobHead { kind, metric_count: metrics.len(), total_points })
    }

    /// Each metric the index lists, as its id and point count, in the
    /// index's order, from the same bytes and with the same checks as
    /// [`parse`](Self::parse): what a reader needs to know whether a blob
    /// holds the metrics it wants, and how many points, before it fetches
    /// the payloads.
    pub fn metrics(head: &[u8], blob_len: usize) -> Result<Vec<(u64, u32)>> {
        Ok(index(head, blob_len)?.1)
    }

    /// The byte ranges past the head that opening the blob and decoding the
    /// metrics `wanted` accepts read: each such metric's columns in a
    /// payload stored without a codec, and each compressed payload whole
    /// (opening decompresses it; a numeric blob's tag payload is always
    /// zstd). A buffer of `blob_len` bytes that holds the head and these
    /// ranges opens whatever its other bytes are, and gives those metrics'
    /// points as the whole blob does: a reader of one metric of a large
    /// blob on object storage fetches these, not the blob. Ascending,
    /// none empty, touching ranges joined.
    pub fn ranges(head: &[u8], blob_len: usize, wanted: impl Fn(u64) -> bool) -> Result<Vec<Range<usize>>> {
        let ranges = match kind(head)? {
            BlobKind::Numeric => numeric_ranges(head, blob_len, wanted)?,
            BlobKind::Text => text_ranges(head, blob_len, wanted)?,
        };
        Ok(joined(ranges))
    }
}

/// The blob's kind and its index: each metric's id and point count.
fn index(head: &[u8], blob_len: usize) -> Result<(BlobKind, Vec<(u64, u32)>)> {
    match kind(head)? {
        BlobKind::Numeric => Ok((BlobKind::Numeric, numeric(head, blob_len)?.1.iter().map(|e| (e.id, e.count)).collect())),
        BlobKind::Text => Ok((BlobKind::Text, text(head, blob_len)?.1.iter().map(|e| (e.id, u32::from(e.count))).collect())),
    }
}

fn kind(header: &[u8]) -> Result<BlobKind> {
    if header.len() < HEADER_SIZE {
        return Err(Error::Truncated { what: "header", needed: HEADER_SIZE, available: header.len() });
    }
    // A foreign magic: the numeric header's parse names it.
    BlobKind::of(header).map_or_else(|| NumericHeader::parse(header).map(|_| BlobKind::Numeric), Ok)
}

/// The bytes `range` of the head, which must hold them.
fn part<'a>(head: &'a [u8], start: usize, end: usize, what: &'static str) -> Result<&'a [u8]> {
    head.get(start..end).ok_or(Error::Truncated { what, needed: end, available: head.len() })
}

fn numeric(head: &[u8], blob_len: usize) -> Result<(NumericHeader, Vec<NumericIndexEntry>)> {
    let header = NumericHeader::parse(head)?;
    let (ts, val, tag) = (header.timestamp_offset as usize, header.value_offset as usize, header.tag_offset as usize);
    if ts > val || val > tag || tag > blob_len {
        return Err(Error::OffsetOutOfRange { what: "payload", offset: ts.max(val).max(tag), limit: blob_len });
    }
    let index = header.index_offset as usize;
    if index < HEADER_SIZE || index > ts || (!header.metric_names && index != HEADER_SIZE) {
        return Err(Error::InvalidHeader { detail: format!("index offset {index}, the timestamp payload at {ts}") });
    }
    let metric_count = header.metric_count as usize;
    let entries = part(head, index, ts, "metric index")?;
    let entries = NumericIndexEntry::parse_all(entries, header.index_kind, header.byte_order, metric_count)?;
    Ok((header, entries))
}

fn text(head: &[u8], blob_len: usize) -> Result<(TextHeader, Vec<TextIndexEntry>)> {
    let header = TextHeader::parse(head)?;
    let (index, data) = (header.index_offset as usize, header.data_offset as usize);
    if data > blob_len {
        return Err(Error::OffsetOutOfRange { what: "data payload", offset: data, limit: blob_len });
    }
    let metric_count = header.metric_count as usize;
    if index < HEADER_SIZE || data.checked_sub(index) != metric_count.checked_mul(TEXT_ENTRY_SIZE) {
        return Err(Error::InvalidHeader {
            detail: format!("data offset is {data}, not the end of an index of {metric_count} at {index}"),
        });
    }
    let entries = part(head, index, data, "text index")?.chunks_exact(TEXT_ENTRY_SIZE);
    let entries = entries.map(|entry| TextIndexEntry::parse(entry, header.options.byte_order)).collect::<Result<_>>()?;
    Ok((header, entries))
}

/// A numeric blob's compressed payloads, and the wanted metrics' columns in
/// the others (a metric sharing its timestamps reads its group's column).
fn numeric_ranges(head: &[u8], blob_len: usize, wanted: impl Fn(u64) -> bool) -> Result<Vec<Range<usize>>> {
    let (header, entries) = numeric(head, blob_len)?;
    let (ts, val, tag) = (header.timestamp_offset as usize, header.value_offset as usize, header.tag_offset as usize);
    let config = header.config;
    let (ts_whole, val_whole) = (config.timestamp_compression != Compression::None, config.value_compression != Compression::None);
    let mut ranges = Vec::new();
    if ts_whole {
        ranges.push(ts..val);
    }
    if val_whole {
        ranges.push(val..tag);
    }
    if header.tags {
        ranges.push(tag..blob_len);
    }
    if ts_whole && val_whole {
        return Ok(ranges);
    }
    // A compressed payload's length is known only once decompressed: its
    // columns are not needed, so it bounds nothing here.
    let (ts_len, val_len) = (if ts_whole { usize::MAX } else { val - ts }, if val_whole { usize::MAX } else { tag - val });
    let columns = resolve_ranges(&entries, ts_len, val_len, usize::MAX)?;
    let mut timestamp_source: Vec<usize> = (0..columns.len()).collect();
    if header.shared_timestamps {
        let index_end = header.index_offset as usize + entries.len() * header.index_kind.entry_size();
        let table = SharedTimestampTable::parse(part(head, index_end, ts, "shared timestamp table")?, header.byte_order, entries.len())?;
        for group in &table.groups {
            group.members.iter().for_each(|&m| timestamp_source[m] = group.canonical);
        }
    }
    for (column, &source) in columns.iter().zip(&timestamp_source).filter(|(c, _)| wanted(c.id)) {
        if !ts_whole {
            let own = &columns[source].timestamps;
            ranges.push(ts + own.start..ts + own.end);
        }
        if !val_whole {
            ranges.push(val + column.values.start..val + column.values.end);
        }
    }
    Ok(ranges)
}

/// A text blob's compressed data payload, or the wanted metrics' rows in it.
fn text_ranges(head: &[u8], blob_len: usize, wanted: impl Fn(u64) -> bool) -> Result<Vec<Range<usize>>> {
    let (header, entries) = text(head, blob_len)?;
    let data = header.data_offset as usize;
    if header.options.data_compression != Compression::None {
        return Ok(std::iter::once(data..blob_len).collect());
    }
    // Rows tile the payload in index order: a metric's run to the next one's start.
    let ends = entries.iter().skip(1).map(|e| e.offset as usize).chain([blob_len - data]);
    let mut ranges = Vec::new();
    for (entry, end) in entries.iter().zip(ends).filter(|(e, _)| wanted(e.id)) {
        let start = entry.offset as usize;
        if start > end || end > blob_len - data {
            return Err(Error::OffsetOutOfRange { what: "text metric", offset: start.max(end), limit: (blob_len - data).min(end) });
        }
        ranges.push(data + start..data + end);
    }
    Ok(ranges)
}

/// `ranges` ascending, empty ones dropped, those that touch or overlap joined.
fn joined(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_unstable_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}
