//! A blob set over up to four arbitrary blobs (numeric and text mixed), read
//! through every set accessor.
//!
//! Input: chunks of `u16 little-endian length, bytes`; the last chunk takes
//! whatever is left.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::blob_set::{BlobSet, WindowBlob, Windows};
use mebo::Error;

fn split(mut data: &[u8]) -> Vec<&[u8]> {
    let mut blobs = Vec::new();
    while blobs.len() < 3 && data.len() >= 2 {
        let len = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
        blobs.push(&data[2..2 + len]);
        data = &data[2 + len..];
    }
    if !data.is_empty() {
        blobs.push(data);
    }
    blobs
}

/// Accessors common to both kinds; `point_at` and `materialize_metric` are
/// checked against each other by the caller.
fn common<B: WindowBlob>(set: &Windows<B>) -> Vec<(u64, usize)> {
    let _ = set.time_range();
    let ids = set.metric_ids();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids ascending and distinct");
    ids.iter()
        .take(16)
        .map(|&id| {
            let _ = set.metric_duration(id);
            (id, set.metric_len(id))
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let blobs = split(data);
    let Ok(set) = BlobSet::open(&blobs) else { return };
    if let Some(n) = &set.numeric {
        for (id, len) in common(n) {
            assert!(matches!(n.point_at(id, len), Err(Error::IndexOutOfRange { .. })));
            let Ok(m) = n.materialize_metric(id) else { continue };
            assert_eq!(m.timestamps.len(), len);
            assert_eq!(m.values.len(), len);
            // A range is the plain filter of the whole series.
            let (from, to) = (m.timestamps.first().copied().unwrap_or(0), m.timestamps.last().copied().unwrap_or(0));
            if let Ok(r) = n.range_metric(id, from, to) {
                let keep: Vec<usize> = (0..len).filter(|&i| (from..to).contains(&m.timestamps[i])).collect();
                assert_eq!(r.timestamps, keep.iter().map(|&i| m.timestamps[i]).collect::<Vec<_>>());
                assert_eq!(r.values.len(), keep.len());
            }
            for i in [0, len.saturating_sub(1)] {
                if let (Ok((t, v)), true) = (n.point_at(id, i), i < len) {
                    assert_eq!(t, m.timestamps[i]);
                    assert_eq!(v.to_bits(), m.values[i].to_bits());
                }
            }
        }
        if let Ok(c) = n.materialize() {
            assert_eq!(c.offsets.len(), c.ids.len() + 1);
            // Every metric's columns are its materialize_metric.
            for (i, &id) in c.ids.iter().enumerate().take(16) {
                if let Ok(m) = n.materialize_metric(id) {
                    assert_eq!(&c.timestamps[c.offsets[i] as usize..c.offsets[i + 1] as usize], m.timestamps.as_slice());
                }
            }
        }
    }
    if let Some(t) = &set.text {
        for (id, len) in common(t) {
            assert!(matches!(t.point_at(id, len), Err(Error::IndexOutOfRange { .. })));
            let Ok(m) = t.materialize_metric(id) else { continue };
            assert_eq!(m.timestamps.len(), len);
            assert_eq!(m.values.len(), len);
            for i in [0, len.saturating_sub(1)] {
                if let (Ok((ts, v)), true) = (t.point_at(id, i), i < len) {
                    assert_eq!(ts, m.timestamps[i]);
                    assert_eq!(v, m.values[i]);
                }
            }
        }
        if let Ok(c) = t.materialize() {
            assert_eq!(c.offsets.len(), c.ids.len() + 1);
        }
    }
});
