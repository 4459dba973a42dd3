//! Blob sets over the four-window vectors: each metric's series is the
//! concatenation of its windows, in time order, whatever order the blobs come in.

mod common;

use std::collections::BTreeMap;

use common::{read_blob, read_input};
use mebo::blob_set::NumericBlobSet;

#[test]
fn numeric_windows_materialize_to_the_concatenated_inputs() {
    let blobs: Vec<Vec<u8>> = (0..4).map(|w| read_blob(&format!("num-set1-w{w}-delta-none-gorilla-none-notags-le-v1"))).collect();
    // Expected series: every window's input, in window order.
    let mut expected: BTreeMap<u64, (Vec<i64>, Vec<u64>)> = BTreeMap::new();
    for w in 0..4 {
        for m in read_input(&format!("set1-w{w}")).metrics {
            let e = expected.entry(m.id).or_default();
            e.0.extend(&m.timestamps);
            e.1.extend(m.values.iter().map(|v| v.to_bits()));
        }
    }
    // Hand the blobs over newest first: the set orders them by start time.
    let refs: Vec<&[u8]> = blobs.iter().rev().map(|b| b.as_slice()).collect();
    let set = NumericBlobSet::open(&refs).unwrap();
    assert!(set.time_range().0 < set.time_range().1);
    assert_eq!(set.metric_ids(), expected.keys().copied().collect::<Vec<_>>());
    let columns = set.materialize().unwrap();
    for (i, (id, (ts, vs))) in expected.iter().enumerate() {
        let m = set.materialize_metric(*id).unwrap();
        assert_eq!(&m.timestamps, ts);
        assert_eq!(&m.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vs);
        assert_eq!(set.metric_len(*id), ts.len());
        assert_eq!(set.metric_duration(*id).unwrap(), ts.last().unwrap() - ts[0]);
        let last = ts.len() - 1;
        assert_eq!(set.point_at(*id, last).unwrap(), (ts[last], f64::from_bits(vs[last])));
        assert!(set.point_at(*id, ts.len()).is_err());
        let range = columns.offsets[i] as usize..columns.offsets[i + 1] as usize;
        assert_eq!(columns.ids[i], *id);
        assert_eq!(&columns.timestamps[range], ts.as_slice());
    }
    // One metric is missing from window 2: its series is shorter than the others.
    let lens: Vec<usize> = expected.values().map(|(ts, _)| ts.len()).collect();
    assert!(lens.iter().min() < lens.iter().max());
    assert!(set.materialize_metric(12345).is_err());
}

#[test]
fn text_windows_materialize_and_mix_with_numeric_ones() {
    let text: Vec<Vec<u8>> = (0..4).map(|w| read_blob(&format!("txt-tset1-w{w}-delta-zstd-notags-le"))).collect();
    let numeric: Vec<Vec<u8>> = (0..4).map(|w| read_blob(&format!("num-set1-w{w}-delta-none-gorilla-none-notags-le-v1"))).collect();
    let mut expected: BTreeMap<u64, (Vec<i64>, Vec<String>)> = BTreeMap::new();
    for w in 0..4 {
        for m in read_input(&format!("tset1-w{w}")).metrics {
            let e = expected.entry(m.id).or_default();
            e.0.extend(&m.timestamps);
            e.1.extend(m.texts.iter().cloned());
        }
    }
    // Interleave kinds and reverse the windows: BlobSet sorts both out.
    let all: Vec<&[u8]> = text.iter().rev().zip(numeric.iter()).flat_map(|(t, n)| [t.as_slice(), n.as_slice()]).collect();
    let set = mebo::blob_set::BlobSet::open(&all).unwrap();
    assert_eq!(set.numeric.as_ref().unwrap().blobs().len(), 4);
    let text_set = set.text.unwrap();
    assert_eq!(text_set.metric_ids(), expected.keys().copied().collect::<Vec<_>>());
    let columns = text_set.materialize().unwrap();
    for (i, (id, (ts, texts))) in expected.iter().enumerate() {
        let m = text_set.materialize_metric(*id).unwrap();
        assert_eq!(&m.timestamps, ts);
        assert_eq!(&m.values, texts);
        let last = ts.len() - 1;
        assert_eq!(text_set.point_at(*id, last).unwrap(), (ts[last], texts[last].as_str()));
        let range = columns.offsets[i] as usize..columns.offsets[i + 1] as usize;
        assert_eq!(&columns.timestamps[range.clone()], ts.as_slice());
        assert_eq!(columns.values.get(range.start), Some(texts[0].as_str()));
    }
}

/// Windows with tags on some blobs only, metrics missing from some, equal
/// start times and unsorted ids: `materialize` and `range_metric` against a
/// plain loop over the blobs, each blob read on its own.
#[cfg(feature = "encode")]
#[test]
fn materialize_and_range_match_a_per_blob_reading() {
    use mebo::blob_set::TextBlobSet;
    use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
    use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};

    let (mut numeric, mut text) = (Vec::new(), Vec::new());
    for b in 0..9i64 {
        let start = (b / 2) * 1_000; // pairs share a start time
        let tags = b % 3 == 0;
        let mut n = NumericEncoder::new(start, NumericEncoderOptions { tags, ..Default::default() });
        let mut t = TextEncoder::new(start, TextEncoderOptions { tags, ..Default::default() }).unwrap();
        for m in [5u64, 1, 9, 3] {
            if (b + m as i64) % 4 == 0 {
                continue; // this window lacks the metric
            }
            let count = 1 + ((b as usize * 7 + m as usize) % 5);
            let ts: Vec<i64> = (0..count as i64).map(|p| start + p * 10 - 20).collect();
            let vs: Vec<f64> = (0..count).map(|p| (b as f64) * 100.0 + m as f64 + p as f64 / 8.0).collect();
            let tag_strings: Vec<String> = (0..count).map(|p| format!("b{b}m{m}p{p}")).collect();
            let tag_refs: Vec<&str> = tag_strings.iter().map(String::as_str).collect();
            n.start_metric_id(m, count).unwrap();
            n.add_points(&ts, &vs, tags.then_some(tag_refs.as_slice())).unwrap();
            n.end_metric().unwrap();
            let texts: Vec<String> = vs.iter().map(|v| format!("v{v}")).collect();
            let text_refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            t.start_metric_id(m, count).unwrap();
            t.add_points(&ts, &text_refs, tags.then_some(tag_refs.as_slice())).unwrap();
            t.end_metric().unwrap();
        }
        numeric.push(n.finish().unwrap());
        text.push(t.finish().unwrap());
    }
    // Reversed: the set orders by start time, equal starts in the order given.
    let given: Vec<usize> = (0..9).rev().collect();
    let mut in_time: Vec<usize> = given.clone();
    in_time.sort_by_key(|&b| (b as i64 / 2) * 1_000);

    let refs: Vec<&[u8]> = given.iter().map(|&b| numeric[b].as_slice()).collect();
    let set = NumericBlobSet::open(&refs).unwrap();
    let columns = set.materialize().unwrap();
    assert_eq!(columns.ids, [1, 3, 5, 9]);
    let text_refs: Vec<&[u8]> = given.iter().map(|&b| text[b].as_slice()).collect();
    let text_set = TextBlobSet::open(&text_refs).unwrap();
    let text_columns = text_set.materialize().unwrap();
    assert_eq!(text_columns.ids, columns.ids);
    let text_tags = text_columns.tags.as_ref().unwrap();
    for (i, &id) in columns.ids.iter().enumerate() {
        let (mut ts, mut vs, mut tags, mut texts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &b in &in_time {
            let blob = NumericBlob::open(&numeric[b]).unwrap();
            let Ok(m) = blob.metric(id) else { continue };
            ts.extend(m.timestamps().unwrap());
            vs.extend(m.values().unwrap().iter().map(|v| v.to_bits()));
            tags.extend(m.tags().unwrap().map_or_else(|| vec![String::new(); m.len()], |t| t.iter().map(|s| s.to_string()).collect()));
            let tb = TextBlob::open(&text[b]).unwrap();
            texts.extend(tb.metric(id).unwrap().values().unwrap().iter().map(|s| s.to_string()));
        }
        let points = columns.offsets[i] as usize..columns.offsets[i + 1] as usize;
        assert_eq!(columns.timestamps[points.clone()], ts[..], "id {id}");
        assert_eq!(columns.values[points.clone()].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vs, "id {id}");
        assert_eq!(text_columns.timestamps[points.clone()], ts[..]);
        assert_eq!(points.clone().map(|p| text_columns.values.get(p).unwrap().to_string()).collect::<Vec<_>>(), texts);
        assert_eq!(points.clone().map(|p| text_tags.get(p).unwrap().to_string()).collect::<Vec<_>>(), tags);
        let m = set.materialize_metric(id).unwrap();
        assert_eq!(m.timestamps, ts);
        assert_eq!(m.tags.as_ref().unwrap(), &tags);
        // Ranges: a plain filter of the whole series, ends excluded.
        for (from, to) in [(i64::MIN, i64::MAX), (-15, 1_005), (0, 0), (2_000, 3_990), (4_000, i64::MAX)] {
            let r = set.range_metric(id, from, to).unwrap();
            let keep: Vec<usize> = (0..ts.len()).filter(|&p| (from..to).contains(&ts[p])).collect();
            assert_eq!(r.timestamps, keep.iter().map(|&p| ts[p]).collect::<Vec<_>>(), "{id} {from}..{to}");
            assert_eq!(r.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), keep.iter().map(|&p| vs[p]).collect::<Vec<_>>());
            assert_eq!(r.tags.unwrap(), keep.iter().map(|&p| tags[p].clone()).collect::<Vec<_>>());
            let tr = text_set.range_metric(id, from, to).unwrap();
            assert_eq!(tr.values, keep.iter().map(|&p| texts[p].clone()).collect::<Vec<_>>());
        }
    }
    assert!(matches!(set.range_metric(77, 0, 1), Err(mebo::Error::MetricNotFound { .. })));
}

/// A crafted blob repeating an id: the set places the last of the repeats,
/// the metric the blob's own lookup finds, in `materialize` as in
/// `materialize_metric`.
#[cfg(feature = "encode")]
#[test]
fn a_repeated_id_is_materialized_as_the_blob_reads_it() {
    use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};

    let blob = |start: i64, ids: [u64; 3]| {
        let mut enc = NumericEncoder::new(start, NumericEncoderOptions::default());
        for (m, id) in ids.into_iter().enumerate() {
            let ts: Vec<i64> = (0..=m as i64).map(|p| start + p).collect();
            let vs: Vec<f64> = (0..=m).map(|p| (start + id as i64 * 10 + p as i64) as f64).collect();
            enc.start_metric_id(id, ts.len()).unwrap();
            enc.add_points(&ts, &vs, None::<&[&str]>).unwrap();
            enc.end_metric().unwrap();
        }
        enc.finish().unwrap()
    };
    let mut crafted = blob(0, [0x1111, 0x2222, 0x3333]);
    // The index stores each id as 8 little-endian bytes: 0x3333 becomes 0x1111.
    let at = crafted.windows(8).position(|w| w == 0x3333u64.to_le_bytes()).unwrap();
    crafted[at..at + 8].copy_from_slice(&0x1111u64.to_le_bytes());
    let reread = NumericBlob::open(&crafted).unwrap();
    assert_eq!(reread.metric_ids(), [0x1111, 0x2222, 0x1111]);
    let later = blob(100, [0x1111, 0x2222, 0x4444]);

    let set = NumericBlobSet::open(&[&later, &crafted]).unwrap();
    let columns = set.materialize().unwrap();
    assert_eq!(columns.ids, [0x1111, 0x2222, 0x4444]);
    // 0x1111: the crafted blob's third metric (3 points, its values made
    // for 0x3333), then the later blob's first (1 point).
    assert_eq!(&columns.timestamps[..4], [0, 1, 2, 100]);
    assert_eq!(&columns.values[..4], [131_070.0, 131_071.0, 131_072.0, 43_790.0]);
    for (i, &id) in columns.ids.iter().enumerate() {
        let m = set.materialize_metric(id).unwrap();
        let points = columns.offsets[i] as usize..columns.offsets[i + 1] as usize;
        assert_eq!(columns.timestamps[points.clone()], m.timestamps);
        assert_eq!(columns.values[points], m.values);
    }
}
