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
