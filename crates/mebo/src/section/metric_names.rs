//! The metric-names payload: the metrics' names, in index order, written right
//! after the header when flag bit 0x4 is set (text blobs started by name always,
//! numeric blobs when two names collide on one hash).
//!
//! Layout, every integer in the blob's byte order:
//! `count: u16`, then `count` times `len: u16` followed by `len` UTF-8 bytes.

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::hash::metric_id;
use crate::limits;

/// Most names the payload can hold: it counts them in a u16.
pub const MAX_NAMES: usize = u16::MAX as usize;
/// Longest name the payload can hold, in bytes: its length is a u16.
pub const MAX_NAME_LEN: usize = u16::MAX as usize;

/// Encoder, decoder and checker of the metric-names payload.
pub struct MetricNames;

impl MetricNames {
    /// Append the payload for `names` to `out`.
    ///
    /// More than 65,535 names, or a name over 65,535 bytes, is `LimitExceeded`;
    /// `out` is unchanged on error.
    pub fn encode<S: AsRef<str>>(names: &[S], order: ByteOrder, out: &mut Vec<u8>) -> Result<()> {
        if names.len() > MAX_NAMES {
            return Err(Error::LimitExceeded { what: "metric names count", value: names.len() as u64, limit: MAX_NAMES as u64 });
        }
        let mut size = 2usize;
        for name in names {
            let len = name.as_ref().len();
            if len > MAX_NAME_LEN {
                return Err(Error::LimitExceeded { what: "metric name length", value: len as u64, limit: MAX_NAME_LEN as u64 });
            }
            size += 2 + len;
        }
        out.reserve(size);
        // Both casts are in range: checked above.
        out.extend_from_slice(&order.u16_bytes(names.len() as u16));
        for name in names {
            let name = name.as_ref().as_bytes();
            out.extend_from_slice(&order.u16_bytes(name.len() as u16));
            out.extend_from_slice(name);
        }
        Ok(())
    }

    /// Decode the payload at the start of `data` (which may run on past it).
    /// Returns the names, borrowed from `data`, and the payload's length in bytes.
    pub fn decode(data: &[u8], order: ByteOrder) -> Result<(Vec<&str>, usize)> {
        let count = order
            .read_u16(data, 0, "metric names count")
            .map_err(|_| Error::MetricNames { detail: format!("no room for the count in {} bytes", data.len()) })?;
        let count = usize::from(count);
        // Each name takes at least its two-byte length: check before reserving.
        let room = data.len() - 2;
        if count > room / 2 {
            return Err(Error::MetricNames { detail: format!("{count} names cannot fit in the {room} bytes after the count") });
        }
        let mut names = limits::with_capacity(count, "metric names")?;
        let mut pos = 2usize;
        for index in 0..count {
            let len = order.read_u16(data, pos, "metric name length").map_err(|_| Error::MetricNames {
                detail: format!("name #{index}: length at offset {pos} is cut (payload ends at {})", data.len()),
            })?;
            pos += 2;
            let end = pos + usize::from(len);
            let bytes = data.get(pos..end).ok_or_else(|| Error::MetricNames {
                detail: format!("name #{index}: {len} bytes at offset {pos} run past the end {}", data.len()),
            })?;
            let name = std::str::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 { what: "metric name", index })?;
            names.push(name);
            pos = end;
        }
        Ok((names, pos))
    }

    /// Check that `names[i]` hashes to `ids[i]` for every metric, and that there
    /// is one name per id.
    pub fn verify(names: &[&str], ids: &[u64]) -> Result<()> {
        if names.len() != ids.len() {
            return Err(Error::CountMismatch { what: "metric names vs index entries", expected: ids.len(), actual: names.len() });
        }
        for (index, (name, &expected)) in names.iter().zip(ids).enumerate() {
            let actual = metric_id(name);
            if actual != expected {
                return Err(Error::NameHashMismatch { index, name: (*name).to_string(), expected, actual });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{read_blob, read_input, vectors_dir};

    #[test]
    fn round_trips_both_orders() {
        let long = "n".repeat(300);
        let names = ["cpu.user", "", "métrique.ü", long.as_str()];
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = vec![9];
            MetricNames::encode(&names, order, &mut out).unwrap();
            out.extend_from_slice(b"index follows");
            let (back, used) = MetricNames::decode(&out[1..], order).unwrap();
            assert_eq!(back, names);
            assert_eq!(used, out.len() - 1 - b"index follows".len());
        }
        let mut out = Vec::new();
        MetricNames::encode(&["ab"], ByteOrder::Big, &mut out).unwrap();
        assert_eq!(out, [0, 1, 0, 2, b'a', b'b']);
        out.clear();
        MetricNames::encode::<&str>(&[], ByteOrder::Little, &mut out).unwrap();
        assert_eq!(out, [0, 0]);
        assert_eq!(MetricNames::decode(&out, ByteOrder::Little).unwrap(), (vec![], 2));
    }

    #[test]
    fn limits() {
        let huge = "h".repeat(65_536);
        let mut out = vec![7];
        let err = MetricNames::encode(&["a", &huge], ByteOrder::Little, &mut out).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded { .. }), "{err}");
        assert_eq!(out, [7]);
        let many = vec![""; 65_536];
        assert!(matches!(MetricNames::encode(&many, ByteOrder::Little, &mut out), Err(Error::LimitExceeded { .. })));
        assert!(MetricNames::encode(&many[1..], ByteOrder::Little, &mut out).is_ok());
    }

    #[test]
    fn malformed_payloads_are_errors() {
        let o = ByteOrder::Little;
        for bad in [&[][..], &[1], &[1, 0], &[1, 0, 5], &[1, 0, 5, 0, b'a'], &[0xff, 0xff, 0, 0, 0, 0]] {
            let err = MetricNames::decode(bad, o).unwrap_err();
            assert!(matches!(err, Error::MetricNames { .. }), "{bad:?}: {err}");
        }
        let err = MetricNames::decode(&[1, 0, 1, 0, 0xff], o).unwrap_err();
        assert!(matches!(err, Error::InvalidUtf8 { index: 0, .. }), "{err}");
        // Every truncation of a good payload fails cleanly.
        let mut good = Vec::new();
        MetricNames::encode(&["alpha", "β", ""], o, &mut good).unwrap();
        for cut in 0..good.len() - 1 {
            assert!(MetricNames::decode(&good[..cut], o).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn verify_checks_hashes_and_counts() {
        let names = ["a", "b"];
        let ids = [metric_id("a"), metric_id("b")];
        MetricNames::verify(&names, &ids).unwrap();
        let err = MetricNames::verify(&names, &[ids[0], ids[0]]).unwrap_err();
        assert!(matches!(err, Error::NameHashMismatch { index: 1, .. }), "{err}");
        assert!(matches!(MetricNames::verify(&names, &ids[..1]), Err(Error::CountMismatch { .. })));
    }

    /// Every vector whose header has bit 0x4 set: the payload decodes to the
    /// input's names, re-encodes byte for byte and hashes to the input's ids.
    #[test]
    fn reference_payloads() {
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(vectors_dir().join("manifest.json")).unwrap()).unwrap();
        let cases = manifest["cases"].as_array().expect("cases");
        let mut checked = 0;
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let blob = read_blob(name);
            let flags = u16::from_le_bytes([blob[0], blob[1]]);
            if flags & 0x4 == 0 {
                continue;
            }
            let order = if flags & 0x2 != 0 { ByteOrder::Big } else { ByteOrder::Little };
            let input = read_input(case["dataset"].as_str().unwrap());
            let (names, used) = MetricNames::decode(&blob[32..], order).unwrap();
            let want: Vec<&str> = input.metrics.iter().map(|m| m.name.as_deref().unwrap()).collect();
            let ids: Vec<u64> = input.metrics.iter().map(|m| m.id).collect();
            // Numeric v2 sorts the index by id, and the names follow the index.
            let mut sorted = names.clone();
            sorted.sort_unstable();
            let mut want_sorted = want.clone();
            want_sorted.sort_unstable();
            assert_eq!(sorted, want_sorted, "{name}");
            if names == want {
                MetricNames::verify(&names, &ids).unwrap();
            }
            let mut again = Vec::new();
            MetricNames::encode(&names, order, &mut again).unwrap();
            assert_eq!(again, &blob[32..32 + used], "{name}");
            checked += 1;
        }
        assert!(checked > 0, "no vector has the metric-names bit");
    }
}
