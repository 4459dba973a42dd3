//! The numeric encoder's contract: every misuse and limit gives its own error
//! and leaves the encoder usable; any data under any options round-trips by bits.

use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::{ByteOrder, ColumnConfig, Compression, Error, Layout, TimestampEncoding, ValueEncoding};
use proptest::prelude::*;

fn one_metric(enc: &mut NumericEncoder, name: &str, n: usize) {
    enc.start_metric_name(name, n).unwrap();
    for i in 0..n {
        enc.add_point(i as i64, i as f64, None).unwrap();
    }
    enc.end_metric().unwrap();
}

#[test]
fn defaults_are_the_documented_ones() {
    let o = NumericEncoderOptions::default();
    assert_eq!(o.config.timestamp_encoding, TimestampEncoding::Delta);
    assert_eq!(o.config.value_encoding, ValueEncoding::Gorilla);
    assert_eq!((o.config.timestamp_compression, o.config.value_compression), (Compression::None, Compression::None));
    assert_eq!((o.tags, o.byte_order, o.layout), (false, ByteOrder::Little, Layout::V1));
    let c: ColumnConfig = "deltapacked-zstd-alp-lz4".parse().unwrap();
    let o = NumericEncoderOptions::default().with_config(c);
    assert_eq!(o.config.to_string(), "deltapacked-zstd-alp-lz4");
    assert_eq!((o.tags, o.byte_order, o.layout), (false, ByteOrder::Little, Layout::V1));
}

#[test]
fn misuse_is_refused_and_the_encoder_stays_usable() {
    let mut enc = NumericEncoder::new(0, NumericEncoderOptions::default());
    // Points before any metric, ending without starting.
    assert!(matches!(enc.add_point(1, 1.0, None), Err(Error::EncoderState { .. })));
    assert!(matches!(enc.end_metric(), Err(Error::EncoderState { .. })));
    // Zero points and an empty name.
    assert!(matches!(enc.start_metric_name("a", 0), Err(Error::LimitExceeded { .. })));
    assert!(matches!(enc.start_metric_name("", 1), Err(Error::EncoderState { .. })));
    one_metric(&mut enc, "a", 3);
    // The same name twice.
    assert!(matches!(enc.start_metric_name("a", 1), Err(Error::DuplicateMetric { .. })));
    // Mixed identifier modes.
    assert!(matches!(enc.start_metric_id(7, 1), Err(Error::EncoderState { .. })));
    // Starting while a metric is open; too many points; slices of unequal length.
    enc.start_metric_name("b", 2).unwrap();
    assert!(matches!(enc.start_metric_name("c", 1), Err(Error::EncoderState { .. })));
    assert!(matches!(enc.add_points::<&str>(&[1, 2, 3], &[1.0, 2.0, 3.0], None), Err(Error::LimitExceeded { .. })));
    assert!(matches!(enc.add_points::<&str>(&[1, 2], &[1.0], None), Err(Error::CountMismatch { .. })));
    enc.add_point(1, 1.0, None).unwrap();
    // Finishing with an open metric.
    // (finish consumes the encoder, so check the count mismatch first)
    assert!(matches!(enc.end_metric(), Err(Error::CountMismatch { expected: 2, actual: 1, .. })));
    // Numeric and text disagreed here; one registry now, as the reference: the
    // refused metric stays open until it is completed or cancelled.
    enc.cancel_metric();
    one_metric(&mut enc, "b", 2);
    let blob = enc.finish().unwrap();
    let b = NumericBlob::open(&blob).unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(b.metric_by_name("b").unwrap().values().unwrap(), vec![0.0, 1.0]);

    let mut open = NumericEncoder::new(0, NumericEncoderOptions::default());
    open.start_metric_name("x", 1).unwrap();
    assert!(matches!(open.finish(), Err(Error::EncoderState { .. })));
    assert!(matches!(NumericEncoder::new(0, NumericEncoderOptions::default()).finish(), Err(Error::EncoderState { .. })));
}

#[test]
fn ids_must_be_non_zero_and_unique() {
    let mut enc = NumericEncoder::new(0, NumericEncoderOptions::default());
    assert!(matches!(enc.start_metric_id(0, 1), Err(Error::EncoderState { .. })));
    enc.start_metric_id(u64::MAX, 1).unwrap();
    enc.add_point(0, 0.0, None).unwrap();
    enc.end_metric().unwrap();
    assert!(matches!(enc.start_metric_id(u64::MAX, 1), Err(Error::DuplicateMetric { id: u64::MAX })));
    assert!(matches!(enc.start_metric_name("n", 1), Err(Error::EncoderState { .. })));
}

#[test]
fn limits_are_refused_before_anything_is_written() {
    let opts = NumericEncoderOptions::default();
    let mut enc = NumericEncoder::new(0, opts);
    // v1: delta timestamps and Gorilla values take up to 9 bytes a point.
    let max = opts.max_points_per_metric();
    assert_eq!(max, 65_535 / 9);
    assert!(matches!(enc.start_metric_name("m", max + 1), Err(Error::LimitExceeded { .. })));
    enc.start_metric_name("m", 1).unwrap();
    let long_tag = "x".repeat(256);
    let mut tagged = NumericEncoder::new(0, NumericEncoderOptions { tags: true, ..opts });
    tagged.start_metric_name("t", 2).unwrap();
    assert!(matches!(tagged.add_point(1, 1.0, Some(&long_tag)), Err(Error::LimitExceeded { what: "tag bytes", .. })));
    tagged.add_point(1, 1.0, Some(&long_tag[..255])).unwrap();
    tagged.add_point(2, 2.0, Some("")).unwrap();
    tagged.end_metric().unwrap();
    let blob = tagged.finish().unwrap();
    let b = NumericBlob::open(&blob).unwrap();
    assert_eq!(b.metric_by_name("t").unwrap().tags().unwrap().unwrap(), vec![&long_tag[..255], ""]);

    // 65,536 metrics per blob (v2 so each can be tiny): the next one is refused.
    let mut many = NumericEncoder::new(0, NumericEncoderOptions { layout: Layout::V2, ..opts });
    for id in 1..=65_536u64 {
        many.start_metric_id(id, 1).unwrap();
        many.add_point(0, 0.0, None).unwrap();
        many.end_metric().unwrap();
    }
    assert!(matches!(many.start_metric_id(70_000, 1), Err(Error::LimitExceeded { what: "metric count", .. })));
    assert_eq!(NumericBlob::open(&many.finish().unwrap()).unwrap().len(), 65_536);
}

#[test]
fn v1_refuses_a_column_over_16_bit_offsets() {
    // Delta timestamps allow 65,535 / 9 points; random timestamps make
    // delta-of-deltas that need 10-byte varints, so the timestamp column
    // outgrows a 16-bit delta. The reference refuses it when the next metric ends.
    let opts = NumericEncoderOptions::default();
    let n = opts.max_points_per_metric();
    let mut enc = NumericEncoder::new(0, opts);
    enc.start_metric_name("noise", n).unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        enc.add_point(x as i64, i as f64, None).unwrap();
    }
    enc.end_metric().unwrap();
    enc.start_metric_name("next", 1).unwrap();
    enc.add_point(0, 0.0, None).unwrap();
    assert!(matches!(enc.end_metric(), Err(Error::LimitExceeded { what: "v1 column bytes", .. })));
    // The refused metric stays open (one registry for both kinds, as the
    // reference); dropped, the blob with the first one is still valid.
    assert!(matches!(enc.finish(), Err(Error::EncoderState { .. })));
    enc.cancel_metric();
    let blob = enc.finish().unwrap();
    assert_eq!(NumericBlob::open(&blob).unwrap().len(), 1);
}

/// A metric's points added in one call are encoded then; in pieces, when it
/// ends. The bytes are the same, and a whole metric cancelled after a refused
/// end leaves nothing behind.
#[test]
fn whole_and_piecewise_metrics_write_the_same_bytes_and_cancel_cleanly() {
    let ts: Vec<i64> = (0..300).map(|i| 1_700_000_000_000_000 + i * 1_000_000 + (i * i) % 997).collect();
    let vs: Vec<f64> = ts.iter().map(|&t| (t % 1000) as f64 / 7.0).collect();
    for layout in [Layout::V1, Layout::V2] {
        let opts = NumericEncoderOptions { layout, ..Default::default() };
        let write = |pieces: &[usize]| {
            let mut enc = NumericEncoder::new(0, opts);
            for id in 1..=3u64 {
                enc.start_metric_id(id, ts.len()).unwrap();
                let mut at = 0;
                for &n in pieces {
                    enc.add_points::<&str>(&ts[at..at + n], &vs[at..at + n], None).unwrap();
                    at += n;
                }
                enc.end_metric().unwrap();
            }
            enc.finish().unwrap()
        };
        let whole = write(&[300]);
        assert_eq!(whole, write(&[100, 200]));
        assert_eq!(whole, write(&[0, 300]));
        let b = NumericBlob::open(&whole).unwrap();
        assert_eq!(b.metric(2).unwrap().timestamps().unwrap(), ts);
        assert_eq!(b.metric(2).unwrap().values().unwrap(), vs);
    }

    // v1: the metric after one whose column outgrew 16-bit offsets is refused
    // at its end; cancelled, its columns are gone.
    let opts = NumericEncoderOptions::default();
    let n = opts.max_points_per_metric();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<i64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        })
        .collect();
    let zeros = vec![0.0; n];
    let first_only = |cancelled: bool| {
        let mut enc = NumericEncoder::new(0, opts);
        enc.start_metric_id(1, n).unwrap();
        enc.add_points::<&str>(&noise, &zeros, None).unwrap();
        enc.end_metric().unwrap();
        if cancelled {
            enc.start_metric_id(2, 3).unwrap();
            enc.add_points::<&str>(&[1, 2, 3], &[1.0, 2.0, 3.0], None).unwrap();
            assert!(matches!(enc.end_metric(), Err(Error::LimitExceeded { what: "v1 column bytes", .. })));
            enc.cancel_metric();
        }
        enc.finish().unwrap()
    };
    assert_eq!(first_only(true), first_only(false));
}

#[test]
fn v2_switches_to_extended_entries_past_u16_counts() {
    let config = ColumnConfig { timestamp_encoding: TimestampEncoding::Raw, ..Default::default() };
    let opts = NumericEncoderOptions { layout: Layout::V2, config, ..Default::default() };
    let mut enc = NumericEncoder::new(0, opts);
    enc.start_metric_id(1, 70_000).unwrap();
    let ts: Vec<i64> = (0..70_000).collect();
    let vs: Vec<f64> = ts.iter().map(|&t| t as f64 * 0.5).collect();
    enc.add_points::<&str>(&ts, &vs, None).unwrap();
    enc.end_metric().unwrap();
    let blob = enc.finish().unwrap();
    assert_eq!(u16::from_le_bytes([blob[0], blob[1]]) & 0xFFF0, 0xEA30);
    let b = NumericBlob::open(&blob).unwrap();
    assert!(b.extended_index());
    assert_eq!(b.options(), opts);
    assert_eq!(b.metric(1).unwrap().values().unwrap(), vs);
}

#[test]
fn finishing_leaves_the_encoder_as_it_was() {
    let mut enc = NumericEncoder::new(0, NumericEncoderOptions::default());
    one_metric(&mut enc, "a", 2);
    let first = enc.finish().unwrap();
    assert_eq!(enc.finish().unwrap(), first);
    one_metric(&mut enc, "b", 2);
    let second = NumericBlob::open(&enc.finish().unwrap()).unwrap().metric_ids().to_vec();
    assert_eq!(second.len(), 2);
}

#[test]
fn finish_into_appends_after_existing_bytes() {
    let mut enc = NumericEncoder::new(5, NumericEncoderOptions::default());
    one_metric(&mut enc, "m", 4);
    let mut buf = b"prefix".to_vec();
    enc.finish_into(&mut buf).unwrap();
    assert_eq!(&buf[..6], b"prefix");
    assert_eq!(NumericBlob::open(&buf[6..]).unwrap().start_time(), 5);
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        Just(f64::NAN),
        Just(f64::from_bits(0x7FF0_0000_0000_0001)), // signalling NaN payload
        Just(f64::from_bits(0xFFF8_DEAD_BEEF_0001)),
        Just(-0.0),
        Just(f64::MIN_POSITIVE / 3.0), // subnormal
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        (-1000i64..1000).prop_map(|v| v as f64 / 100.0),
        Just(1.0),
    ]
}

fn timestamps(n: usize) -> impl Strategy<Value = Vec<i64>> {
    prop_oneof![
        proptest::collection::vec(any::<i64>(), n),
        // increasing with jitter
        (any::<i64>(), proptest::collection::vec(0i64..2_000_000, n)).prop_map(|(start, steps)| {
            steps
                .iter()
                .scan(start, |t, s| {
                    *t = t.wrapping_add(*s);
                    Some(*t)
                })
                .collect()
        }),
        // repeating and going backwards
        proptest::collection::vec(prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0i64), -5i64..5], n),
    ]
}

#[derive(Debug, Clone)]
struct Metric {
    timestamps: Vec<i64>,
    values: Vec<f64>,
    tags: Vec<String>,
}

fn metric(max_points: usize) -> impl Strategy<Value = Metric> {
    (1..=max_points).prop_flat_map(|n| {
        (
            timestamps(n),
            prop_oneof![
                proptest::collection::vec(float(), n),
                // runs of equal values
                (float(), proptest::collection::vec(any::<bool>(), n))
                    .prop_map(|(v, flips)| { flips.iter().map(|&f| if f { v } else { -v }).collect() }),
            ],
            proptest::collection::vec(prop_oneof![Just(String::new()), "[a-z=]{0,12}", "\\PC{0,4}"], n),
        )
            .prop_map(|(timestamps, values, tags)| Metric { timestamps, values, tags })
    })
}

fn options() -> impl Strategy<Value = NumericEncoderOptions> {
    (
        prop::sample::select(TimestampEncoding::ALL.to_vec()),
        prop::sample::select(ValueEncoding::ALL.to_vec()),
        prop::sample::select(Compression::ALL.to_vec()),
        prop::sample::select(Compression::ALL.to_vec()),
        any::<bool>(),
        prop::sample::select(vec![ByteOrder::Little, ByteOrder::Big]),
        prop::sample::select(vec![Layout::V1, Layout::V2, Layout::V2Shared]),
    )
        .prop_map(|(te, ve, tc, vc, tags, byte_order, layout)| NumericEncoderOptions {
            config: ColumnConfig { timestamp_encoding: te, timestamp_compression: tc, value_encoding: ve, value_compression: vc },
            tags,
            byte_order,
            layout,
        })
}

fn encode(opts: NumericEncoderOptions, metrics: &[Metric]) -> Vec<u8> {
    let mut enc = NumericEncoder::new(-1, opts);
    for (i, m) in metrics.iter().enumerate() {
        enc.start_metric_id(i as u64 + 1, m.timestamps.len()).unwrap();
        enc.add_points(&m.timestamps, &m.values, Some(&m.tags)).unwrap();
        enc.end_metric().unwrap();
    }
    enc.finish().unwrap()
}

fn round_trip(opts: NumericEncoderOptions, metrics: &[Metric]) {
    let blob = encode(opts, metrics);
    let b = NumericBlob::open(&blob).unwrap();
    let cols = b.decode_all().unwrap();
    let any_tag = opts.tags && metrics.iter().any(|m| m.tags.iter().any(|t| !t.is_empty()));
    // The options the blob reports: the columns and byte order as written,
    // tags only when one was not empty, and options that write it again.
    let read = b.options();
    assert_eq!((read.config, read.byte_order, read.tags), (opts.config, opts.byte_order, any_tag));
    assert_eq!(read.layout == Layout::V1, opts.layout == Layout::V1);
    assert!(encode(read, metrics) == blob, "the blob's options do not write it again");
    for (i, m) in metrics.iter().enumerate() {
        let got = b.metric(i as u64 + 1).unwrap();
        assert_eq!(got.timestamps().unwrap(), m.timestamps);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got.values().unwrap()), bits(&m.values));
        let p = got.index();
        let range = cols.offsets[p] as usize..cols.offsets[p + 1] as usize;
        assert_eq!(&cols.timestamps[range.clone()], m.timestamps.as_slice());
        assert_eq!(bits(&cols.values[range]), bits(&m.values));
        match got.tags().unwrap() {
            Some(tags) => {
                assert!(any_tag);
                assert_eq!(tags, m.tags.iter().map(String::as_str).collect::<Vec<_>>());
            }
            None => assert!(!any_tag),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_data_round_trips_under_any_options(opts in options(), metrics in proptest::collection::vec(metric(300), 1..12)) {
        round_trip(opts, &metrics);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// The upper shapes: up to 300 metrics, up to 5,000 points (v2, so
    /// no 16-bit offset limit applies).
    #[test]
    fn large_blobs_round_trip(opts in options(), metrics in proptest::collection::vec(metric(5_000), 1..40), wide in 1usize..300) {
        let opts = NumericEncoderOptions { layout: if opts.layout == Layout::V1 { Layout::V2 } else { opts.layout }, ..opts };
        let mut all = metrics.clone();
        while all.len() < wide {
            all.push(metrics[all.len() % metrics.len()].clone());
        }
        round_trip(opts, &all);
    }
}
