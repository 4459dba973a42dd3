//! Arbitrary metric data, encoded with arbitrary options by the crate's own
//! encoders, must open and decode back bit for bit (numeric and text blobs).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};

#[derive(Arbitrary, Debug)]
struct Point {
    ts: i64,
    value: u64,
    text: String,
    tag: String,
}

#[derive(Arbitrary, Debug)]
struct Metric {
    id: u64,
    name: String,
    points: Vec<Point>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    text: bool,
    ts_enc: u8,
    val_enc: u8,
    ts_comp: u8,
    val_comp: u8,
    tags: bool,
    big_endian: bool,
    layout: u8,
    by_name: bool,
    start_time: i64,
    metrics: Vec<Metric>,
}

fn pick<T: Copy>(all: &[T], i: u8) -> T {
    all[usize::from(i) % all.len()]
}

fn order(big: bool) -> ByteOrder {
    if big {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    }
}

/// Truncate to at most `max` bytes on a char boundary.
fn clip(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn numeric(input: &Input) {
    let config = ColumnConfig {
        timestamp_encoding: pick(&TimestampEncoding::ALL, input.ts_enc),
        timestamp_compression: pick(&Compression::ALL, input.ts_comp),
        value_encoding: pick(&ValueEncoding::ALL, input.val_enc),
        value_compression: pick(&Compression::ALL, input.val_comp),
    };
    let options = NumericEncoderOptions {
        config,
        tags: input.tags,
        byte_order: order(input.big_endian),
        layout: pick(&[Layout::V1, Layout::V2, Layout::V2Shared], input.layout),
    };
    let mut enc = NumericEncoder::new(input.start_time, options);
    let mut kept: Vec<(u64, Option<&str>, &[Point])> = Vec::new();
    for m in &input.metrics {
        let started = if input.by_name {
            enc.start_metric_name(&m.name, m.points.len()).map(|()| (mebo::metric_id(&m.name), Some(m.name.as_str())))
        } else {
            enc.start_metric_id(m.id, m.points.len()).map(|()| (m.id, None))
        };
        let Ok((id, name)) = started else { continue };
        for p in &m.points {
            enc.add_point(p.ts, f64::from_bits(p.value), Some(clip(&p.tag, 255))).expect("add_point");
        }
        enc.end_metric().expect("end_metric");
        kept.push((id, name, &m.points));
    }
    let Ok(blob) = enc.finish() else {
        assert!(kept.is_empty(), "finish failed with {} metrics", kept.len());
        return;
    };
    let opened = NumericBlob::open(&blob).expect("own blob opens");
    assert_eq!(opened.len(), kept.len());
    assert_eq!(opened.start_time(), input.start_time);
    let any_tag = kept.iter().any(|(_, _, pts)| pts.iter().any(|p| !clip(&p.tag, 255).is_empty()));
    let columns = opened.decode_all().expect("own blob decodes");
    assert_eq!(columns.timestamps.len(), opened.total_points());
    for (id, name, points) in &kept {
        // Two names may hash alike; find the metric by name then.
        let metric = match name {
            Some(name) => opened.metric_by_name(name).expect("metric by name"),
            None => opened.metric(*id).expect("metric by id"),
        };
        assert_eq!(metric.id(), *id);
        let ts = metric.timestamps().expect("timestamps");
        let vs = metric.values().expect("values");
        assert_eq!(ts, points.iter().map(|p| p.ts).collect::<Vec<_>>(), "timestamps of {id:016x}");
        assert_eq!(
            vs.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            points.iter().map(|p| p.value).collect::<Vec<_>>(),
            "values of {id:016x}"
        );
        let tags = metric.tags().expect("tags");
        if input.tags && any_tag {
            let want: Vec<&str> = points.iter().map(|p| clip(&p.tag, 255)).collect();
            assert_eq!(tags, Some(want), "tags of {id:016x}");
        } else {
            assert_eq!(tags, None);
        }
        let r = columns.offsets[metric.index()] as usize..columns.offsets[metric.index() + 1] as usize;
        assert_eq!(&columns.timestamps[r.clone()], ts.as_slice());
        assert_eq!(columns.values[r].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vs.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }
}

fn text(input: &Input) {
    let options = TextEncoderOptions {
        timestamp_encoding: pick(&[TimestampEncoding::Raw, TimestampEncoding::Delta], input.ts_enc),
        data_compression: pick(&Compression::ALL, input.ts_comp),
        tags: input.tags,
        byte_order: order(input.big_endian),
    };
    let mut enc = TextEncoder::new(input.start_time, options).expect("text options");
    let mut kept: Vec<(u64, Option<&str>, &[Point])> = Vec::new();
    for m in &input.metrics {
        let started = if input.by_name {
            enc.start_metric_name(&m.name, m.points.len()).map(|()| (mebo::metric_id(&m.name), Some(m.name.as_str())))
        } else {
            enc.start_metric_id(m.id, m.points.len()).map(|()| (m.id, None))
        };
        let Ok((id, name)) = started else { continue };
        for p in &m.points {
            enc.add_point(p.ts, clip(&p.text, 255), Some(clip(&p.tag, 255))).expect("add_point");
        }
        enc.end_metric().expect("end_metric");
        kept.push((id, name, &m.points));
    }
    let Ok(blob) = enc.finish() else { return };
    let opened = TextBlob::open(&blob).expect("own text blob opens");
    assert_eq!(opened.len(), kept.len());
    let columns = opened.decode_all().expect("own text blob decodes");
    assert_eq!(columns.timestamps.len(), opened.total_points());
    for (id, name, points) in &kept {
        let metric = match name {
            Some(name) => opened.metric_by_name(name).expect("metric by name"),
            None => opened.metric(*id).expect("metric by id"),
        };
        assert_eq!(metric.id(), *id);
        assert_eq!(metric.timestamps().expect("timestamps"), points.iter().map(|p| p.ts).collect::<Vec<_>>());
        let want: Vec<&str> = points.iter().map(|p| clip(&p.text, 255)).collect();
        assert_eq!(metric.values().expect("values"), want);
        let tags = metric.tags().expect("tags");
        if input.tags {
            let want: Vec<&str> = points.iter().map(|p| clip(&p.tag, 255)).collect();
            assert_eq!(tags, Some(want));
        } else {
            assert_eq!(tags, None);
        }
    }
}

fuzz_target!(|input: Input| {
    if input.text {
        text(&input);
    } else {
        numeric(&input);
    }
});
