//! Round trips through the encoder and decoder, and the decoder on crafted
//! malformed blobs. The reference vectors are checked in `tests/text_vectors.rs`.

use proptest::prelude::*;

use super::*;
use crate::byte_order::ByteOrder;
use crate::error::Error;
use crate::format::{Compression, TimestampEncoding};
use crate::hash::metric_id;
use crate::limits::DecodeLimits;

#[derive(Debug, Clone)]
struct Metric {
    name: String,
    points: Vec<(i64, String, String)>,
}

/// Cut `s` to at most `max` bytes on a character boundary.
fn cut(mut s: String, max: usize) -> String {
    while s.len() > max {
        s.pop();
    }
    s
}

/// Strings that matter: empty, short mixed-width UTF-8, and exactly 255 bytes.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        any::<String>().prop_map(|s| cut(s, 255)),
        "[a-z=]{0,12}",
        any::<String>().prop_map(|s| {
            let s = cut(s, 255);
            let pad = 255 - s.len();
            s + &"x".repeat(pad)
        }),
    ]
}

fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![any::<i64>(), Just(0i64), Just(i64::MIN), Just(i64::MAX), -1_000i64..1_000]
}

fn metrics() -> impl Strategy<Value = Vec<Metric>> {
    prop::collection::vec(("[a-z.]{1,8}", prop::collection::vec((timestamp(), text(), text()), 1..12)), 1..5).prop_map(|ms| {
        ms.into_iter()
            .enumerate()
            // Suffix with the position so names are unique.
            .map(|(i, (name, points))| Metric { name: format!("{name}#{i}"), points })
            .collect()
    })
}

fn options() -> impl Strategy<Value = TextEncoderOptions> {
    (
        prop_oneof![Just(TimestampEncoding::Raw), Just(TimestampEncoding::Delta)],
        prop_oneof![Just(Compression::None), Just(Compression::Zstd), Just(Compression::S2), Just(Compression::Lz4)],
        any::<bool>(),
        prop_oneof![Just(ByteOrder::Little), Just(ByteOrder::Big)],
    )
        .prop_map(|(timestamp_encoding, data_compression, tags, byte_order)| TextEncoderOptions {
            timestamp_encoding,
            data_compression,
            tags,
            byte_order,
        })
}

fn encode(start: i64, opts: TextEncoderOptions, metrics: &[Metric], by_name: bool, bulk: bool) -> Vec<u8> {
    let mut e = TextEncoder::new(start, opts).unwrap();
    for m in metrics {
        if by_name {
            e.start_metric_name(&m.name, m.points.len()).unwrap();
        } else {
            e.start_metric_id(metric_id(&m.name), m.points.len()).unwrap();
        }
        if bulk {
            let ts: Vec<i64> = m.points.iter().map(|p| p.0).collect();
            let vs: Vec<&str> = m.points.iter().map(|p| p.1.as_str()).collect();
            let tags: Vec<&str> = m.points.iter().map(|p| p.2.as_str()).collect();
            e.add_points(&ts, &vs, Some(&tags)).unwrap();
        } else {
            for (ts, v, t) in &m.points {
                e.add_point(*ts, v, Some(t)).unwrap();
            }
        }
        e.end_metric().unwrap();
    }
    e.finish().unwrap()
}

fn check(blob: &[u8], start: i64, opts: TextEncoderOptions, metrics: &[Metric], by_name: bool) {
    let b = TextBlob::open(blob).unwrap();
    assert_eq!(b.start_time(), start);
    assert_eq!(b.len(), metrics.len());
    let o = b.options();
    assert_eq!(
        (o.timestamp_encoding, o.data_compression, o.tags, o.byte_order, o.metric_names),
        (opts.timestamp_encoding, opts.data_compression, opts.tags, opts.byte_order, by_name)
    );
    let all = b.decode_all().unwrap();
    for (i, m) in metrics.iter().enumerate() {
        let id = metric_id(&m.name);
        assert_eq!(b.metric_ids()[i], id);
        let got = if by_name { b.metric_by_name(&m.name).unwrap() } else { b.metric(id).unwrap() };
        assert_eq!(got.name(), by_name.then_some(m.name.as_str()));
        let ts: Vec<i64> = m.points.iter().map(|p| p.0).collect();
        let vs: Vec<&str> = m.points.iter().map(|p| p.1.as_str()).collect();
        let tags: Vec<&str> = m.points.iter().map(|p| p.2.as_str()).collect();
        assert_eq!(got.timestamps().unwrap(), ts);
        assert_eq!(got.values().unwrap(), vs);
        assert_eq!(got.tags().unwrap(), opts.tags.then(|| tags.clone()));
        let mut buf = vec![0; ts.len()];
        got.timestamps_into(&mut buf).unwrap();
        assert_eq!(buf, ts);
        let points: Vec<_> = got.points().unwrap().collect();
        for (j, (p, want)) in points.iter().zip(&m.points).enumerate() {
            assert_eq!(p.0, want.0);
            assert_eq!(p.1, want.1);
            assert_eq!(p.2, opts.tags.then_some(want.2.as_str()));
            assert_eq!(got.timestamp_at(j).unwrap(), want.0);
            assert_eq!(got.value_at(j).unwrap(), want.1);
        }
        let range = all.points_of(i).unwrap();
        assert_eq!(&all.timestamps[range.clone()], ts.as_slice());
        for (k, p) in range.zip(&m.points) {
            assert_eq!(all.values.get(k).unwrap(), p.1);
            if let Some(t) = &all.tags {
                assert_eq!(t.get(k).unwrap(), p.2);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn round_trip(start in timestamp(), opts in options(), ms in metrics(), by_name: bool, bulk: bool) {
        let blob = encode(start, opts, &ms, by_name, bulk);
        check(&blob, start, opts, &ms, by_name);
        // Point by point and in bulk write the same bytes.
        prop_assert_eq!(&blob, &encode(start, opts, &ms, by_name, !bulk));
    }

    #[test]
    fn corrupted_blobs_never_panic(opts in options(), ms in metrics(), flips in prop::collection::vec(any::<(usize, u8)>(), 1..4)) {
        let mut blob = encode(0, opts, &ms, true, false);
        for (pos, bit) in flips {
            let i = pos % blob.len();
            blob[i] ^= 1 << (bit % 8);
        }
        exercise(&blob);
    }
}

/// Every read path, results ignored: only the absence of panics matters.
pub(crate) fn exercise(bytes: &[u8]) {
    let Ok(b) = TextBlob::open(bytes) else { return };
    let _ = b.decode_all();
    for m in b.metrics() {
        let _ = m.timestamps();
        let _ = m.values();
        let _ = m.tags();
        let _ = m.points().map(|p| p.count());
        let _ = m.value_at(m.len().saturating_sub(1));
        let _ = m.tag_at(0);
    }
}

fn small_blob(opts: TextEncoderOptions) -> Vec<u8> {
    let ms = vec![
        Metric { name: "a".into(), points: vec![(5, "x".into(), "t".into()), (0, "".into(), "".into())] },
        Metric { name: "b".into(), points: vec![(-9, "é".into(), "u".into())] },
    ];
    encode(100, opts, &ms, true, false)
}

fn plain() -> TextEncoderOptions {
    TextEncoderOptions {
        timestamp_encoding: TimestampEncoding::Delta,
        data_compression: Compression::None,
        tags: true,
        byte_order: ByteOrder::Little,
    }
}

#[test]
fn every_truncation_is_an_error() {
    for comp in Compression::ALL {
        let blob = small_blob(TextEncoderOptions { data_compression: comp, ..plain() });
        assert!(TextBlob::open(&blob).is_ok());
        for len in 0..blob.len() {
            assert!(TextBlob::open(&blob[..len]).is_err(), "{comp}: cut at {len}");
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert!(TextBlob::open(&longer).is_err(), "{comp}: trailing byte");
    }
}

#[test]
fn invalid_utf8_is_reported_where_it_is() {
    let blob = small_blob(plain());
    let b = TextBlob::open(&blob).unwrap();
    let e = b.decode_all().unwrap();
    assert_eq!(e.values.iter().collect::<Vec<_>>(), ["x", "", "é"]);
    // "é" is the last value: corrupt its first byte into a lone continuation byte.
    let mut bad = blob.clone();
    let pos = bad.len() - 3; // value "é" (2 bytes) then tag "u"
    assert_eq!(&bad[pos..pos + 2], "é".as_bytes());
    bad[pos] = 0x80;
    let b = TextBlob::open(&bad).unwrap();
    let m = b.metric_by_name("b").unwrap();
    assert!(matches!(m.values(), Err(Error::InvalidUtf8 { what: "text value", index: 0 })));
    assert_eq!(m.timestamps().unwrap(), [-9]);
    assert_eq!(m.tags().unwrap().unwrap(), ["u"]);
    assert!(matches!(b.decode_all(), Err(Error::InvalidUtf8 { .. })));
    assert!(b.metric_by_name("a").unwrap().values().is_ok());
    assert!(matches!(m.points(), Err(Error::InvalidUtf8 { .. })));
    assert!(matches!(m.value_at(0), Err(Error::InvalidUtf8 { .. })));
    assert_eq!(m.timestamp_at(0).unwrap(), -9);
}

#[test]
fn crafted_headers_and_indexes_are_refused() {
    let blob = small_blob(plain());
    let b = TextBlob::open(&blob).unwrap();
    let index_at = b.header().index_offset as usize;
    let le32 = |v: u32| v.to_le_bytes();
    let patch = |at: usize, bytes: &[u8]| {
        let mut c = blob.clone();
        c[at..at + bytes.len()].copy_from_slice(bytes);
        TextBlob::open(&c).map(|_| ())
    };
    // Metric count far beyond the bytes.
    assert!(matches!(patch(12, &le32(u32::MAX)), Err(Error::Truncated { .. })));
    assert!(patch(12, &le32(3)).is_err());
    assert!(matches!(patch(16, &le32(31)), Err(Error::InvalidHeader { .. })));
    assert!(matches!(patch(20, &le32(0)), Err(Error::InvalidHeader { .. })));
    // Data size says more than is there; claims a huge payload.
    assert!(patch(24, &le32(u32::MAX)).is_err());
    // First offset not zero, second offset backwards / past the end.
    assert!(matches!(patch(index_at + 12, &le32(1)), Err(Error::OffsetOutOfRange { .. })));
    assert!(matches!(patch(index_at + 16 + 12, &le32(1000)), Err(Error::OffsetOutOfRange { .. })));
    // Point count the bytes cannot hold.
    assert!(matches!(patch(index_at + 8, &60_000u16.to_le_bytes()), Err(Error::CorruptColumn { metric: 0, .. })));
    // Id that does not match its name.
    assert!(matches!(patch(index_at, &[0; 8]), Err(Error::NameHashMismatch { index: 0, .. })));
    // Limits.
    let tight = DecodeLimits { max_points: 2, ..DecodeLimits::default() };
    assert!(matches!(TextBlob::open_with_limits(&blob, &tight), Err(Error::SizeCap { .. })));
    let tight = DecodeLimits { max_decompressed_bytes: 4, ..DecodeLimits::default() };
    assert!(matches!(TextBlob::open_with_limits(&blob, &tight), Err(Error::SizeCap { .. })));
}

#[test]
fn lookups() {
    let blob = small_blob(plain());
    let b = TextBlob::open(&blob).unwrap();
    assert!(matches!(b.metric(42), Err(Error::MetricNotFound { .. })));
    assert!(matches!(b.metric_by_name("zz"), Err(Error::MetricNotFound { .. })));
    assert!(matches!(b.metric_at(2), Err(Error::IndexOutOfRange { index: 2, len: 2 })));
    assert_eq!(b.metric(metric_id("b")).unwrap().name(), Some("b"));
    let m = b.metric_at(0).unwrap();
    assert!(matches!(m.timestamps_into(&mut [0; 3]), Err(Error::BufferSize { expected: 2, actual: 3, .. })));
    // Without a names payload a name is looked up by its hash.
    let mut e = TextEncoder::new(0, plain()).unwrap();
    e.start_metric_id(metric_id("cpu"), 1).unwrap();
    e.add_point(1, "v", None).unwrap();
    e.end_metric().unwrap();
    let blob = e.finish().unwrap();
    let b = TextBlob::open(&blob).unwrap();
    assert_eq!(b.metric_by_name("cpu").unwrap().values().unwrap(), ["v"]);
    assert_eq!(b.metric_by_name("cpu").unwrap().name(), None);
}

#[test]
fn delta_timestamps_chain_through_zero_and_wrap() {
    let ms = vec![Metric {
        name: "m".into(),
        points: [0, 0, 7, i64::MIN, i64::MAX, 0, -1].iter().map(|&t| (t, "v".to_string(), String::new())).collect(),
    }];
    for start in [0, 1_700_000_000_000_000, i64::MIN, i64::MAX] {
        let o = TextEncoderOptions { tags: false, ..plain() };
        let blob = encode(start, o, &ms, false, false);
        check(&blob, start, o, &ms, false);
    }
}
