//! The numeric metric index: one entry per metric.
//!
//! Compact entries (v1 and 0xEA20) are 16 bytes: id u64, count u16, then the
//! timestamp, value and tag offsets as u16. Extended entries (0xEA30) are 32
//! bytes: id u64, count u32, three u32 offsets and 8 reserved zero bytes.
//! Offsets are stored as deltas: each is the distance from the previous
//! metric's column start (the first is 0), so a column's length is the next
//! metric's delta, and the last column runs to the end of its payload.

use std::ops::Range;

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::limits;
use crate::section::numeric_header::IndexKind;

/// One metric's entry with absolute column ranges into the decompressed payloads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRanges {
    pub id: u64,
    pub count: usize,
    pub timestamps: Range<usize>,
    pub values: Range<usize>,
    pub tags: Range<usize>,
}

/// An entry as stored: offsets are deltas from the previous metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumericIndexEntry {
    pub id: u64,
    pub count: u32,
    pub timestamp_delta: u32,
    pub value_delta: u32,
    pub tag_delta: u32,
}

impl NumericIndexEntry {
    /// Parse `metric_count` entries from `data` (which must hold them all).
    pub fn parse_all(data: &[u8], kind: IndexKind, order: ByteOrder, metric_count: usize) -> Result<Vec<NumericIndexEntry>> {
        let size = kind.entry_size();
        // In u64: on wasm32 a count near u32::MAX times 32 bytes overflows
        // usize, and such an index is as truncated there as on 64-bit hosts.
        let needed = (size as u64).saturating_mul(metric_count as u64);
        if (data.len() as u64) < needed {
            let needed = usize::try_from(needed).unwrap_or(usize::MAX);
            return Err(Error::Truncated { what: "metric index", needed, available: data.len() });
        }
        let needed = needed as usize;
        limits::collect(data[..needed].chunks_exact(size).map(|e| Self::parse(e, kind, order)), metric_count, "metric index")
    }

    fn parse(e: &[u8], kind: IndexKind, order: ByteOrder) -> Result<NumericIndexEntry> {
        let id = order.read_u64(e, 0, "index entry")?;
        if kind == IndexKind::V2Extended {
            if e[24..32].iter().any(|&b| b != 0) {
                return Err(Error::InvalidHeader { detail: format!("index entry of {id:016x} has non-zero reserved bytes") });
            }
            let u32_at = |p| order.read_u32(e, p, "index entry");
            Ok(NumericIndexEntry { id, count: u32_at(8)?, timestamp_delta: u32_at(12)?, value_delta: u32_at(16)?, tag_delta: u32_at(20)? })
        } else {
            let u16_at = |p| order.read_u16(e, p, "index entry").map(u32::from);
            Ok(NumericIndexEntry { id, count: u16_at(8)?, timestamp_delta: u16_at(10)?, value_delta: u16_at(12)?, tag_delta: u16_at(14)? })
        }
    }

    /// Append this entry in the given layout. The caller has checked that every
    /// field fits (see [`NumericIndexEntry::fits_compact`]).
    pub fn write(&self, kind: IndexKind, order: ByteOrder, out: &mut Vec<u8>) {
        out.extend_from_slice(&order.u64_bytes(self.id));
        if kind == IndexKind::V2Extended {
            for v in [self.count, self.timestamp_delta, self.value_delta, self.tag_delta] {
                out.extend_from_slice(&order.u32_bytes(v));
            }
            out.extend_from_slice(&[0u8; 8]);
        } else {
            for v in [self.count, self.timestamp_delta, self.value_delta, self.tag_delta] {
                out.extend_from_slice(&order.u16_bytes(v as u16));
            }
        }
    }

    pub fn fits_compact(&self) -> bool {
        [self.count, self.timestamp_delta, self.value_delta, self.tag_delta].iter().all(|&v| v <= u16::MAX as u32)
    }
}

/// Turn offset deltas into absolute column ranges, checking that offsets only
/// move forward and stay inside their payloads. One pass: each entry ends the
/// one before it (a second pass over saved starts was a third of an open).
pub fn resolve_ranges(raw: &[NumericIndexEntry], ts_len: usize, val_len: usize, tag_len: usize) -> Result<Vec<ColumnRanges>> {
    let mut ranges: Vec<ColumnRanges> = limits::with_capacity(raw.len(), "column ranges")?;
    let (mut t, mut v, mut g) = (0usize, 0usize, 0usize);
    for e in raw {
        // u32 deltas summed over at most 2^32 entries cannot overflow u64/usize on
        // 64-bit, but wasm32 has 32-bit usize: use checked adds.
        // A `match`, not `ok_or`: that built and dropped three errors an
        // entry, a sixth of a 200-metric blob's open.
        let add = |acc: usize, d: u32, what: &'static str, limit: usize| match acc.checked_add(d as usize) {
            Some(sum) => Ok(sum),
            None => Err(Error::OffsetOutOfRange { what, offset: usize::MAX, limit }),
        };
        t = add(t, e.timestamp_delta, "timestamp", ts_len)?;
        v = add(v, e.value_delta, "value", val_len)?;
        g = add(g, e.tag_delta, "tag", tag_len)?;
        if let Some(previous) = ranges.last_mut() {
            (previous.timestamps.end, previous.values.end, previous.tags.end) = (t, v, g);
        }
        // The last column runs to the end of its payload.
        ranges.push(ColumnRanges { id: e.id, count: e.count as usize, timestamps: t..ts_len, values: v..val_len, tags: g..tag_len });
    }
    for (what, offset, limit) in [("timestamp", t, ts_len), ("value", v, val_len), ("tag", g, tag_len)] {
        if offset > limit {
            return Err(Error::OffsetOutOfRange { what, offset, limit });
        }
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_and_extended_entries_round_trip() {
        let e = NumericIndexEntry { id: 0x0123_4567_89ab_cdef, count: 250, timestamp_delta: 0, value_delta: 7, tag_delta: 0 };
        for kind in [IndexKind::V1, IndexKind::V2Extended] {
            for order in [ByteOrder::Little, ByteOrder::Big] {
                let mut out = Vec::new();
                e.write(kind, order, &mut out);
                assert_eq!(out.len(), kind.entry_size());
                assert_eq!(NumericIndexEntry::parse_all(&out, kind, order, 1).unwrap(), vec![e]);
            }
        }
    }

    #[test]
    fn offsets_resolve_and_are_checked() {
        let raw = [
            NumericIndexEntry { id: 1, count: 2, timestamp_delta: 0, value_delta: 0, tag_delta: 0 },
            NumericIndexEntry { id: 2, count: 2, timestamp_delta: 16, value_delta: 5, tag_delta: 0 },
        ];
        let r = resolve_ranges(&raw, 32, 9, 0).unwrap();
        assert_eq!(r[0].timestamps, 0..16);
        assert_eq!(r[1].timestamps, 16..32);
        assert_eq!(r[1].values, 5..9);
        assert!(matches!(resolve_ranges(&raw, 15, 9, 0), Err(Error::OffsetOutOfRange { what: "timestamp", .. })));
    }

    #[test]
    fn truncated_index_and_reserved_bytes_are_errors() {
        assert!(matches!(
            NumericIndexEntry::parse_all(&[0; 31], IndexKind::V2Extended, ByteOrder::Little, 1),
            Err(Error::Truncated { .. })
        ));
        let mut ext = [0u8; 32];
        ext[30] = 1;
        assert!(NumericIndexEntry::parse_all(&ext, IndexKind::V2Extended, ByteOrder::Little, 1).is_err());
        assert!(NumericIndexEntry::parse_all(&[0; 16], IndexKind::V1, ByteOrder::Little, usize::MAX).is_err());
    }
}
