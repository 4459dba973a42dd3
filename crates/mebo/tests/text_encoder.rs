//! The text encoder's contract: every misuse and limit gives its own error
//! and leaves the encoder usable; any data under any options round-trips by
//! bytes. Laid out as `numeric_encoder.rs`; the reference vectors are checked
//! in `text_vectors.rs`, crafted text blobs in `hostile.rs`.

mod exercise;

use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{metric_id, ByteOrder, Compression, DecodeLimits, Error, TimestampEncoding};
use proptest::prelude::*;

fn opts(enc: TimestampEncoding, comp: Compression, tags: bool, order: ByteOrder) -> TextEncoderOptions {
    TextEncoderOptions { timestamp_encoding: enc, data_compression: comp, tags, byte_order: order }
}

fn plain() -> TextEncoderOptions {
    TextEncoderOptions {
        timestamp_encoding: TimestampEncoding::Delta,
        data_compression: Compression::None,
        tags: true,
        byte_order: ByteOrder::Little,
    }
}

fn small_blob(opts: TextEncoderOptions) -> Vec<u8> {
    let ms = vec![
        Metric { name: "a".into(), points: vec![(5, "x".into(), "t".into()), (0, "".into(), "".into())] },
        Metric { name: "b".into(), points: vec![(-9, "é".into(), "u".into())] },
    ];
    encode(100, opts, &ms, true, false)
}

#[test]
fn defaults_are_the_documented_ones() {
    let o = TextEncoderOptions::default();
    assert_eq!((o.timestamp_encoding, o.data_compression), (TimestampEncoding::Delta, Compression::Zstd));
    assert_eq!((o.tags, o.byte_order), (false, ByteOrder::Little));
}

#[test]
fn deltapacked_is_refused() {
    let o = opts(TimestampEncoding::DeltaPacked, Compression::None, false, ByteOrder::Little);
    assert!(matches!(TextEncoder::new(0, o), Err(Error::InvalidOptions { .. })));
}

#[test]
fn misuse_is_reported_and_recoverable() {
    let mut e = TextEncoder::new(10, TextEncoderOptions::default()).unwrap();
    assert!(matches!(e.add_point(1, "x", None), Err(Error::EncoderState { .. })));
    assert!(matches!(e.end_metric(), Err(Error::EncoderState { .. })));
    assert!(matches!(e.finish(), Err(Error::EncoderState { .. })));
    assert!(matches!(e.start_metric_name("", 1), Err(Error::EncoderState { .. })));
    // Numeric and text disagreed here; one registry now: zero points is LimitExceeded.
    assert!(matches!(e.start_metric_name("a", 0), Err(Error::LimitExceeded { .. })));
    assert!(matches!(e.start_metric_name("a", 65_536), Err(Error::LimitExceeded { .. })));
    e.start_metric_name("a", 2).unwrap();
    assert!(matches!(e.start_metric_name("b", 1), Err(Error::EncoderState { .. })));
    assert!(matches!(e.add_point(1, &"v".repeat(256), None), Err(Error::LimitExceeded { .. })));
    e.add_point(1, &"v".repeat(255), Some("tag ignored: no tags")).unwrap();
    assert!(matches!(e.end_metric(), Err(Error::CountMismatch { expected: 2, actual: 1, .. })));
    assert!(matches!(e.finish(), Err(Error::EncoderState { .. })));
    // Numeric and text disagreed here; one registry now: points past the count are LimitExceeded.
    assert!(matches!(e.add_points(&[2, 3], &["p", "q"], None), Err(Error::LimitExceeded { .. })));
    assert!(matches!(e.add_points(&[2], &["p", "q"], None), Err(Error::CountMismatch { .. })));
    e.add_points(&[2], &["p"], None).unwrap();
    assert!(matches!(e.add_point(3, "x", None), Err(Error::LimitExceeded { .. })));
    e.end_metric().unwrap();
    assert!(matches!(e.start_metric_name("a", 1), Err(Error::DuplicateMetric { .. })));
    assert!(matches!(e.start_metric_id(7, 1), Err(Error::EncoderState { .. })));
    e.start_metric_name("b", 1).unwrap();
    e.cancel_metric();
    let blob = e.finish().unwrap();
    let b = TextBlob::open(&blob).unwrap();
    assert_eq!(b.names().unwrap(), ["a"]);
    let m = b.metric_by_name("a").unwrap();
    assert_eq!(m.timestamps().unwrap(), [1, 2]);
    assert_eq!(m.values().unwrap(), ["v".repeat(255).as_str(), "p"]);
    assert_eq!(m.tags().unwrap(), None);
    assert!(b.metric_by_name("b").is_err());

    let mut ids = TextEncoder::new(0, TextEncoderOptions::default()).unwrap();
    assert!(matches!(ids.start_metric_id(0, 1), Err(Error::EncoderState { .. })));
    ids.start_metric_id(5, 1).unwrap();
    ids.add_point(0, "", None).unwrap();
    ids.end_metric().unwrap();
    assert!(matches!(ids.start_metric_id(5, 1), Err(Error::DuplicateMetric { id: 5 })));
    assert!(matches!(ids.start_metric_name("n", 1), Err(Error::EncoderState { .. })));
    let mut out = vec![0xEE];
    ids.finish_into(&mut out).unwrap();
    assert_eq!(out[0], 0xEE);
    let b = TextBlob::open(&out[1..]).unwrap();
    assert_eq!(b.metric_ids(), [5]);
    assert!(b.names().is_none());
}

#[test]
fn tags_over_the_limit_are_refused_only_when_stored() {
    let mut e = TextEncoder::new(0, opts(TimestampEncoding::Delta, Compression::None, true, ByteOrder::Big)).unwrap();
    e.start_metric_id(1, 3).unwrap();
    let long = "t".repeat(256);
    assert!(matches!(e.add_point(0, "v", Some(&long)), Err(Error::LimitExceeded { .. })));
    assert!(matches!(e.add_points(&[0, 1], &["a", "b"], Some(&["x", long.as_str()])), Err(Error::LimitExceeded { .. })));
    e.add_points(&[5, 0], &["a", "b"], Some(&["x", &long[..255]])).unwrap();
    e.add_point(-1, "c", None).unwrap();
    e.end_metric().unwrap();
    let blob = e.finish().unwrap();
    let b = TextBlob::open(&blob).unwrap();
    let m = b.metric(1).unwrap();
    assert_eq!(m.timestamps().unwrap(), [5, 0, -1]);
    assert_eq!(m.tags().unwrap().unwrap(), ["x", &long[..255], ""]);
    assert_eq!(m.tag_at(2).unwrap(), Some(""));
    assert_eq!(m.value_at(1).unwrap(), "b");
    assert_eq!(m.timestamp_at(1).unwrap(), 0);
    assert!(matches!(m.value_at(3), Err(Error::IndexOutOfRange { index: 3, len: 3 })));
}

#[test]
fn finish_is_repeatable() {
    let mut e = TextEncoder::new(0, TextEncoderOptions::default()).unwrap();
    e.start_metric_name("a", 1).unwrap();
    e.add_point(1, "x", None).unwrap();
    e.end_metric().unwrap();
    let first = e.finish().unwrap();
    assert_eq!(first, e.finish().unwrap());
    e.start_metric_name("b", 1).unwrap();
    e.add_point(2, "y", None).unwrap();
    e.end_metric().unwrap();
    let second = TextBlob::open(&e.finish().unwrap()).unwrap().decode_all().unwrap();
    assert_eq!(second.ids, [metric_id("a"), metric_id("b")]);
    assert_eq!(second.values.iter().collect::<Vec<_>>(), ["x", "y"]);
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

// ---------------------------------------------------------------- round trips

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
        let _ = exercise::text(&blob, &DecodeLimits::default());
    }
}
