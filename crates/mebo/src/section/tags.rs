//! The tag column of a numeric blob: one metric's per-point tag strings.
//!
//! Each tag is an unsigned LEB128 varint byte length followed by the UTF-8
//! bytes; there is no count (the index entry carries it) and no terminator.
//! Nothing in the column depends on the byte order; the parameter is kept so
//! every column codec has the same shape.

use crate::byte_order::ByteOrder;
use crate::encoding::varint::{put_uvarint, read_uvarint};
use crate::error::{Error, Result};
use crate::limits;

/// Longest tag, in bytes, that the reference encoder accepts.
pub const MAX_TAG_LEN: usize = 255;

/// Encoder and decoder of one metric's tag column.
pub struct TagColumn;

impl TagColumn {
    /// Append one metric's tags to `out`.
    ///
    /// A tag longer than [`MAX_TAG_LEN`] bytes is `LimitExceeded`; `out` is left
    /// unchanged in that case (every tag is checked before anything is written).
    pub fn encode<S: AsRef<str>>(tags: &[S], _order: ByteOrder, out: &mut Vec<u8>) -> Result<()> {
        let mut size = 0usize;
        for tag in tags {
            let len = tag.as_ref().len();
            if len > MAX_TAG_LEN {
                return Err(Error::LimitExceeded { what: "tag length", value: len as u64, limit: MAX_TAG_LEN as u64 });
            }
            // A length of at most 255 takes one or two varint bytes.
            size += len + if len < 0x80 { 1 } else { 2 };
        }
        out.reserve(size);
        for tag in tags {
            let tag = tag.as_ref().as_bytes();
            put_uvarint(out, tag.len() as u64);
            out.extend_from_slice(tag);
        }
        Ok(())
    }

    /// Decode exactly `count` tags from `col`, one metric's whole column.
    ///
    /// The tags borrow from `col`. A column that ends early, holds a length
    /// running past its end, or has bytes left after the last tag is
    /// `CorruptColumn`; a tag that is not UTF-8 is `InvalidUtf8`. Tags longer
    /// than 255 bytes are accepted when the column holds them (the reference
    /// decoder reads them too).
    pub fn decode(col: &[u8], _order: ByteOrder, count: usize) -> Result<Vec<&str>> {
        // Every tag takes at least its one-byte length, so a count above the
        // column's length is corrupt; checking first bounds the allocation.
        if count > col.len() {
            return Err(Error::corrupt("tag", format!("{count} tags cannot fit in {} bytes", col.len())));
        }
        // Up to one tag a byte, each a (pointer, length) here: fallibly.
        let mut tags = limits::with_capacity(count, "tag column")?;
        let mut pos = 0usize;
        for index in 0..count {
            let len = read_uvarint(col, &mut pos)
                .ok_or_else(|| Error::corrupt("tag", format!("tag #{index}: length varint is cut or overlong")))?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|len| pos.checked_add(len))
                .filter(|&end| end <= col.len())
                .ok_or_else(|| Error::corrupt("tag", format!("tag #{index}: length {len} runs past the column end {}", col.len())))?;
            let bytes = &col[pos..end];
            let tag = std::str::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 { what: "tag", index })?;
            tags.push(tag);
            pos = end;
        }
        if pos != col.len() {
            return Err(Error::corrupt("tag", format!("{} bytes left after {count} tags", col.len() - pos)));
        }
        Ok(tags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(tags: &[&str]) {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = vec![0xAA];
            TagColumn::encode(tags, order, &mut out).unwrap();
            assert_eq!(out[0], 0xAA, "appends");
            assert_eq!(TagColumn::decode(&out[1..], order, tags.len()).unwrap(), tags);
        }
    }

    #[test]
    fn round_trips() {
        let long = "x".repeat(255);
        let multi = "é".repeat(127); // 254 bytes
        round_trip(&[]);
        round_trip(&[""]);
        round_trip(&["", "", ""]);
        round_trip(&["host=a", "", "ünïcödé ✓", &long, &multi, "\0"]);
    }

    #[test]
    fn wire_format() {
        let mut out = Vec::new();
        let long = "y".repeat(200);
        TagColumn::encode(&["ab", "", &long], ByteOrder::Big, &mut out).unwrap();
        assert_eq!(&out[..4], &[2, b'a', b'b', 0]);
        assert_eq!(&out[4..6], &[0xC8, 0x01], "200 as a two-byte varint");
        assert_eq!(out.len(), 6 + 200);
    }

    #[test]
    fn over_limit_is_refused_and_leaves_out_alone() {
        let mut out = vec![1, 2, 3];
        let err = TagColumn::encode(&["ok", &"z".repeat(256)], ByteOrder::Little, &mut out).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded { value: 256, limit: 255, .. }), "{err}");
        assert_eq!(out, [1, 2, 3]);
    }

    #[test]
    fn malformed_columns_are_errors() {
        let o = ByteOrder::Little;
        assert!(matches!(TagColumn::decode(&[], o, 1), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[0, 0], o, 3), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[3, b'a'], o, 1), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[0x80], o, 1), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[0, 0], o, 1), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[0xff; 11], o, 1), Err(Error::CorruptColumn { .. })));
        assert!(matches!(TagColumn::decode(&[2, 0xC3, 0x28], o, 1), Err(Error::InvalidUtf8 { index: 0, .. })));
        // A huge count on a tiny column is refused before anything is reserved.
        assert!(TagColumn::decode(&[0], o, usize::MAX).is_err());
        assert_eq!(TagColumn::decode(&[], o, 0).unwrap(), Vec::<&str>::new());
    }

    /// The reference compresses the whole numeric tag payload with zstd; cut each
    /// metric's column out of the decompressed payload by the v1 index deltas.
    #[test]
    #[cfg(feature = "zstd")]
    fn numeric_reference_tag_columns() {
        use crate::compress::decompress;
        use crate::format::Compression;
        use crate::test_support::{read_blob, read_input, v1_columns};

        let input = read_input("gauge1-tagged");
        let mut checked = 0;
        for entry in std::fs::read_dir(crate::test_support::vectors_dir().join("blobs")).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(case) = name.strip_suffix(".mebo") else { continue };
            if !case.starts_with("num-gauge1-tagged-") || !case.ends_with("-v1") || !case.contains("-none-") {
                continue;
            }
            let blob = read_blob(case);
            if blob[3] != 0x11 {
                continue; // v1_columns needs uncompressed timestamp and value payloads
            }
            let order = if blob[0] & 0x2 != 0 { ByteOrder::Big } else { ByteOrder::Little };
            let tag_start = order.u32(blob[28..32].try_into().unwrap()) as usize;
            let payload = decompress(Compression::Zstd, &blob[tag_start..], 1 << 24, "tags").unwrap();
            let (order2, cols) = v1_columns(&blob);
            assert_eq!(order, order2);
            let mut whole = Vec::new();
            for (col, metric) in cols.iter().zip(&input.metrics) {
                assert_eq!(col.id, metric.id);
                let want = metric.tags.as_ref().unwrap();
                let got = TagColumn::decode(&col.tags, order, col.count).unwrap();
                assert_eq!(&got, want, "{case}");
                TagColumn::encode(want, order, &mut whole).unwrap();
            }
            assert_eq!(whole, payload.as_ref(), "{case}: re-encoded tag payload is byte-identical");
            checked += 1;
        }
        assert!(checked >= 2, "found {checked} tagged v1 vectors");
    }
}
