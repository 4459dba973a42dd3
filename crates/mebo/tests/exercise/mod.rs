#![allow(dead_code)]
//! Drive every decoding entry point of the crate over one (possibly hostile)
//! input. Shared by the mutation, hostile-blob and allocation tests and by the
//! fuzz targets (which include this file by path), so all of them exercise the
//! same surface.
//!
//! Each function returns the first error the decoder reported, or `Ok`. It
//! panics only when the decoder contradicts itself (an accessor that succeeds
//! but disagrees with `decode_all`, an out-of-range index that is not
//! `IndexOutOfRange`, a wrong length): those are bugs even though no single
//! call crashed.

use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{Compression, DecodeLimits, Error, Result, TimestampEncoding, ValueEncoding};

/// Remember the first error of a run of calls.
#[derive(Default)]
struct First(Option<Error>);

impl First {
    fn note<T>(&mut self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                if self.0.is_none() {
                    self.0 = Some(e);
                }
                None
            }
        }
    }
    fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// Point positions worth probing with the `*_at` accessors: both ends (each
/// probe of an encoded column decodes it whole).
fn probes(n: usize) -> impl Iterator<Item = usize> {
    let mut v = vec![0, n.saturating_sub(1)];
    v.dedup();
    v.into_iter().filter(move |&i| i < n)
}

fn assert_out_of_range<T: std::fmt::Debug>(r: Result<T>, what: &str) {
    assert!(matches!(r, Err(Error::IndexOutOfRange { .. })), "{what} past the end: {r:?}");
}

/// Open a numeric blob and decode everything it has through every accessor.
pub fn numeric(bytes: &[u8], limits: &DecodeLimits) -> Result<()> {
    let blob = NumericBlob::open_with_limits(bytes, limits)?;
    #[cfg(feature = "head")]
    same_head(bytes, mebo::BlobKind::Numeric, blob.metric_ids(), blob.total_points());
    let all = blob.decode_all();
    numeric_opened_with(&blob, &all)?;
    // The owned copy must decode the same way.
    let owned = blob.clone().into_owned();
    let fingerprint =
        |c: mebo::numeric::NumericColumns| (c.ids, c.offsets, c.timestamps, c.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert!(owned.decode_all().ok().map(fingerprint) == all.as_ref().ok().cloned().map(fingerprint), "into_owned decodes alike");
    // decode_unstored_into: the same columns and the same error, with a
    // column the blob stores as it decodes handed back as its bytes (taken
    // whenever stored, never, or as the wasm view takes it: 8-byte aligned).
    let expected = all.as_ref().map(|c| fingerprint(c.clone())).map_err(|e| e.to_string());
    let takes: [fn(&[u8]) -> bool; 3] = [|_| true, |_| false, |b| (b.as_ptr() as usize).is_multiple_of(8)];
    for take in takes {
        let mut partial = mebo::numeric::NumericColumns::default();
        let unstored = blob.decode_unstored_into(&mut partial, take).map(|stored| {
            let words =
                |bytes: &[u8]| bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))).collect::<Vec<u64>>();
            let timestamps = stored.timestamps.map_or(partial.timestamps.clone(), |b| words(b).into_iter().map(|w| w as i64).collect());
            let values = stored.values.map_or(partial.values.iter().map(|v| v.to_bits()).collect(), words);
            (partial.ids.clone(), partial.offsets.clone(), timestamps, values)
        });
        assert!(unstored.map_err(|e| e.to_string()) == expected, "decode_unstored_into decodes alike");
    }
    Ok(())
}

/// Everything after `open` for a numeric blob.
/// A blob that opens has a head that parses (it checks a part of what
/// `open` checks) and says what the blob says.
#[cfg(feature = "head")]
fn same_head(bytes: &[u8], kind: mebo::BlobKind, ids: &[u64], total_points: usize) {
    use mebo::BlobHead;
    let head_bytes = BlobHead::len(bytes).map(|len| bytes.get(..len).unwrap_or(bytes));
    let head_bytes = head_bytes.unwrap_or_else(|e| panic!("the blob opens, its header is refused: {e}"));
    let head = BlobHead::parse(head_bytes, bytes.len()).unwrap_or_else(|e| panic!("the blob opens, its head is refused: {e}"));
    assert_eq!(head, BlobHead { kind, metric_count: ids.len(), total_points: total_points as u64 }, "the head and the blob disagree");
    let metrics = BlobHead::metrics(head_bytes, bytes.len()).unwrap_or_else(|e| panic!("the head's metrics are refused: {e}"));
    assert_eq!(metrics.iter().map(|&(id, _)| id).collect::<Vec<_>>(), ids, "the head and the blob list other metrics");
    assert_eq!(metrics.iter().map(|&(_, n)| u64::from(n)).sum::<u64>(), total_points as u64, "the head's counts and the blob's differ");
    let ranges = BlobHead::ranges(head_bytes, bytes.len(), |id| ids.first() == Some(&id));
    let ranges = ranges.unwrap_or_else(|e| panic!("the blob opens, its ranges are refused: {e}"));
    let mut end = head_bytes.len();
    for r in ranges {
        assert!(end <= r.start && r.start < r.end && r.end <= bytes.len(), "a range {r:?} out of order or past the blob");
        end = r.end;
    }
}

pub fn numeric_opened(blob: &NumericBlob<'_>) -> Result<()> {
    numeric_opened_with(blob, &blob.decode_all())
}

/// [`numeric_opened`] given the blob's `decode_all` result.
fn numeric_opened_with(blob: &NumericBlob<'_>, all: &Result<mebo::numeric::NumericColumns>) -> Result<()> {
    let mut first = First::default();
    let _ = (blob.options(), blob.header(), blob.start_time(), blob.payload_sizes(), blob.is_empty());
    assert_eq!(blob.metric_ids().len(), blob.len());
    assert_eq!(blob.metrics().len(), blob.len());
    if let Some(names) = blob.names() {
        assert_eq!(names.len(), blob.len());
    }
    assert_out_of_range(blob.metric_at(blob.len()).map(|m| m.id()), "metric_at");
    let all = first.note(all.as_ref().map_err(Clone::clone));
    if let Some(c) = &all {
        assert!(c.ids == blob.metric_ids(), "decode_all ids");
        assert_eq!(c.offsets.len(), blob.len() + 1);
        assert_eq!(c.timestamps.len(), blob.total_points());
        assert_eq!(c.values.len(), blob.total_points());
    }
    let mut total = 0usize;
    // The first timestamp error and the first value error of the per-metric
    // decoders: decode_all (timestamps of every metric, then values) must
    // fail with the first of these, naming the same metric.
    let (mut first_ts_error, mut first_value_error) = (None, None);
    for (i, m) in blob.metrics().enumerate() {
        let n = m.len();
        total += n;
        assert_eq!(m.index(), i);
        let _ = m.name();
        // Lookups find a metric with this id (ids may repeat in a hostile v1 blob).
        let found = blob.metric(m.id()).expect("a metric's own id is found");
        assert_eq!(found.id(), m.id());
        if let Some(name) = m.name() {
            assert!(blob.metric_by_name(name).is_ok(), "a metric's own name is found");
        }
        let range = all.as_ref().map(|c| c.offsets[i] as usize..c.offsets[i + 1] as usize);
        let (ts, vs) = (m.timestamps(), m.values());
        first_ts_error = first_ts_error.or_else(|| ts.as_ref().err().cloned());
        first_value_error = first_value_error.or_else(|| vs.as_ref().err().cloned());
        let ts = first.note(ts);
        let vs = first.note(vs);
        let tags = first.note(m.tags());
        if let Some(ts) = &ts {
            assert_eq!(ts.len(), n);
        }
        if let Some(vs) = &vs {
            assert_eq!(vs.len(), n);
        }
        if let Some(Some(tags)) = &tags {
            assert_eq!(tags.len(), n);
        }
        if let (Some(c), Some(r)) = (&all, &range) {
            assert_eq!(r.len(), n, "decode_all offsets of metric {i}");
            // decode_all succeeded, so the per-metric decoders must agree with it.
            assert!(ts.as_deref() == Some(&c.timestamps[r.clone()]), "timestamps of metric {i}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert!(vs.as_deref().map(bits) == Some(bits(&c.values[r.clone()])), "values of metric {i}");
        }
        for p in probes(n) {
            let t = first.note(m.timestamp_at(p));
            let v = first.note(m.value_at(p));
            let g = first.note(m.tag_at(p));
            if let (Some(t), Some(ts)) = (t, &ts) {
                assert_eq!(t, ts[p], "timestamp_at({p}) of metric {i}");
            }
            if let (Some(v), Some(vs)) = (v, &vs) {
                assert_eq!(v.to_bits(), vs[p].to_bits(), "value_at({p}) of metric {i}");
            }
            if let (Some(g), Some(tags)) = (g, &tags) {
                assert_eq!(g, tags.as_ref().map(|t| t[p]), "tag_at({p}) of metric {i}");
            }
        }
        assert_out_of_range(m.timestamp_at(n), "timestamp_at");
        assert_out_of_range(m.value_at(n), "value_at");
        assert_out_of_range(m.tag_at(n), "tag_at");
        if let Some(points) = first.note(m.points()) {
            assert_eq!(points.len(), n);
            let mut count = 0;
            for (k, (t, v, g)) in points.enumerate() {
                if let Some(ts) = &ts {
                    assert_eq!(t, ts[k]);
                }
                if let Some(vs) = &vs {
                    assert_eq!(v.to_bits(), vs[k].to_bits());
                }
                if let Some(Some(tags)) = &tags {
                    assert_eq!(g, Some(tags[k]));
                }
                count += 1;
            }
            assert_eq!(count, n);
        }
    }
    assert_eq!(total, blob.total_points());
    let expected = first_ts_error.or(first_value_error).map(|e| e.to_string());
    assert_eq!(all.is_none().then(|| blob.decode_all().unwrap_err().to_string()), expected, "decode_all's error");
    first.finish()
}

/// Open a text blob and decode everything it has through every accessor.
pub fn text(bytes: &[u8], limits: &DecodeLimits) -> Result<()> {
    let blob = TextBlob::open_with_limits(bytes, limits)?;
    #[cfg(feature = "head")]
    same_head(bytes, mebo::BlobKind::Text, blob.metric_ids(), blob.total_points());
    text_opened(&blob)?;
    let owned = blob.clone().into_owned();
    assert!(owned.decode_all().ok() == blob.decode_all().ok(), "into_owned decodes alike");
    Ok(())
}

/// Everything after `open` for a text blob.
pub fn text_opened(blob: &TextBlob<'_>) -> Result<()> {
    let mut first = First::default();
    let _ = (blob.options(), blob.header(), blob.start_time(), blob.data_size(), blob.is_empty());
    assert_eq!(blob.metric_ids().len(), blob.len());
    assert_eq!(blob.metrics().len(), blob.len());
    assert_out_of_range(blob.metric_at(blob.len()).map(|m| m.id()), "metric_at");
    let all = first.note(blob.decode_all());
    if let Some(c) = &all {
        assert!(c.ids == blob.metric_ids(), "decode_all ids");
        assert_eq!(c.offsets.len(), blob.len() + 1);
        assert_eq!(c.timestamps.len(), blob.total_points());
        assert_eq!(c.values.len(), blob.total_points());
    }
    // The dictionary decode fails exactly when decode_all does, with the same
    // error, and holds the same strings.
    match (&all, blob.decode_dictionary()) {
        (Some(c), Ok(d)) => {
            assert!(d.ids == c.ids && d.offsets == c.offsets && d.timestamps == c.timestamps, "decode_dictionary columns");
            assert!((0..c.values.len()).all(|i| d.values.get(i) == c.values.get(i)), "decode_dictionary values");
            let tags = (c.tags.as_ref(), d.tags.as_ref());
            assert!(tags.0.is_some() == tags.1.is_some(), "decode_dictionary tags");
            if let (Some(ct), Some(dt)) = tags {
                assert!((0..ct.len()).all(|i| dt.get(i) == ct.get(i)), "decode_dictionary tag values");
            }
        }
        (None, Err(e)) => assert_eq!(Some(e.to_string()), blob.decode_all().err().map(|e| e.to_string()), "decode_dictionary error"),
        (c, d) => panic!("decode_all ok: {}, decode_dictionary ok: {}", c.is_some(), d.is_ok()),
    }
    let mut total = 0usize;
    for (i, m) in blob.metrics().enumerate() {
        let n = m.len();
        total += n;
        assert_eq!(m.index(), i);
        let _ = m.has_tags();
        assert!(blob.metric(m.id()).is_ok(), "a metric's own id is found");
        if let Some(name) = m.name() {
            assert!(blob.metric_by_name(name).is_ok(), "a metric's own name is found");
            assert!(blob.position_by_name(name).is_some());
        }
        let ts = first.note(m.timestamps());
        let vs = first.note(m.values());
        let tags = first.note(m.tags());
        if let Some(ts) = &ts {
            assert_eq!(ts.len(), n);
            let mut into = vec![0; n];
            assert!(m.timestamps_into(&mut into).is_ok());
            assert!(&into == ts, "timestamps_into agrees");
        }
        if let Some(vs) = &vs {
            assert_eq!(vs.len(), n);
        }
        if let Some(Some(tags)) = &tags {
            assert_eq!(tags.len(), n);
        }
        if let Some(c) = &all {
            let r = c.points_of(i).expect("offsets of every metric");
            assert_eq!(r.len(), n);
            assert!(ts.as_deref() == Some(&c.timestamps[r.clone()]), "timestamps of metric {i}");
            if let Some(vs) = &vs {
                for (k, v) in vs.iter().enumerate() {
                    assert_eq!(Some(*v), c.values.get(r.start + k), "value {k} of metric {i}");
                }
            }
        }
        for p in probes(n) {
            let t = first.note(m.timestamp_at(p));
            let v = first.note(m.value_at(p));
            let g = first.note(m.tag_at(p));
            if let (Some(t), Some(ts)) = (t, &ts) {
                assert_eq!(t, ts[p]);
            }
            if let (Some(v), Some(vs)) = (v, &vs) {
                assert_eq!(v, vs[p]);
            }
            if let (Some(g), Some(tags)) = (g, &tags) {
                assert_eq!(g, tags.as_ref().map(|t| t[p]));
            }
        }
        assert_out_of_range(m.timestamp_at(n), "timestamp_at");
        assert_out_of_range(m.value_at(n), "value_at");
        assert_out_of_range(m.tag_at(n), "tag_at");
        if let Some(points) = first.note(m.points()) {
            assert_eq!(points.len(), n);
            assert_eq!(points.count(), n);
        }
    }
    assert_eq!(total, blob.total_points());
    first.finish()
}

/// Whichever blob kind the magic says (numeric when unknown, to reach `BadMagic`).
pub fn any_blob(bytes: &[u8], limits: &DecodeLimits) -> Result<()> {
    if bytes.get(1) == Some(&0xEB) {
        text(bytes, limits)
    } else {
        numeric(bytes, limits)
    }
}

/// Every timestamp decoder over `col` for `count` points.
pub fn timestamp_decoders(col: &[u8], count: usize, order: mebo::ByteOrder) -> Vec<Result<Vec<i64>>> {
    TimestampEncoding::ALL
        .iter()
        .map(|&enc| {
            let mut out = vec![0i64; count];
            mebo::internals::decode_timestamps(enc, col, order, &mut out).map(|()| out)
        })
        .collect()
}

/// Every value decoder over `col` for `count` points.
pub fn value_decoders(col: &[u8], count: usize, order: mebo::ByteOrder) -> Vec<Result<Vec<f64>>> {
    ValueEncoding::ALL
        .iter()
        .map(|&enc| {
            let mut out = vec![0f64; count];
            mebo::internals::decode_values(enc, col, order, &mut out).map(|()| out)
        })
        .collect()
}

/// Every decompressor over `data` with output capped at `cap`; checks the cap holds.
pub fn decompressors(data: &[u8], cap: usize) -> Vec<Result<usize>> {
    Compression::ALL
        .iter()
        .map(|&codec| {
            let r = mebo::internals::decompress(codec, data, cap, "fuzz").map(|out| out.len());
            if let (Ok(len), false) = (&r, codec == Compression::None) {
                assert!(*len <= cap, "{codec:?} produced {len} bytes over the cap {cap}");
            }
            r
        })
        .collect()
}
