//! A blob's head: the header, the names and the index, the bytes before its
//! first payload. It tells the kind and how many points the blob holds with
//! no payload read or decompressed, so a reader that fetches files from
//! object storage can count a blob's rows from a range read of its start.

use crate::error::{Error, Result};
use crate::section::flags::{BlobKind, HEADER_SIZE};
use crate::section::numeric_header::NumericHeader;
use crate::section::numeric_index::NumericIndexEntry;
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
}

/// The blob's kind and its index: each metric's id and point count.
fn index(head: &[u8], blob_len: usize) -> Result<(BlobKind, Vec<(u64, u32)>)> {
    match kind(head)? {
        BlobKind::Numeric => Ok((BlobKind::Numeric, numeric(head, blob_len)?)),
        BlobKind::Text => Ok((BlobKind::Text, text(head, blob_len)?)),
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

fn numeric(head: &[u8], blob_len: usize) -> Result<Vec<(u64, u32)>> {
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
    Ok(entries.iter().map(|e| (e.id, e.count)).collect())
}

fn text(head: &[u8], blob_len: usize) -> Result<Vec<(u64, u32)>> {
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
    entries.map(|entry| TextIndexEntry::parse(entry, header.options.byte_order).map(|e| (e.id, u32::from(e.count)))).collect()
}
