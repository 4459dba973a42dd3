//! Blobs to batches checked point by point against the core's own per-metric
//! reads, and batches back to blobs, by bits.

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Float64Type, TimestampMicrosecondType, UInt64Type};
use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};
use mebo_arrow::{batch_to_numeric, batch_to_text, index_batch, numeric_batch, numeric_schema, text_batch, Selection};

/// One point as the test compares it: id, name, ts, value bits or text, tag.
type Point = (u64, Option<String>, i64, String, Option<String>);

fn numeric_options() -> Vec<NumericEncoderOptions> {
    let mut all = Vec::new();
    for (i, layout) in [Layout::V1, Layout::V2, Layout::V2Shared].into_iter().enumerate() {
        for (j, (ts, value)) in [
            (TimestampEncoding::Raw, ValueEncoding::Raw),
            (TimestampEncoding::Delta, ValueEncoding::Gorilla),
            (TimestampEncoding::DeltaPacked, ValueEncoding::Chimp),
        ]
        .into_iter()
        .enumerate()
        {
            let config = ColumnConfig {
                timestamp_encoding: ts,
                timestamp_compression: [Compression::None, Compression::Zstd, Compression::S2][j],
                value_encoding: value,
                value_compression: [Compression::Lz4, Compression::None, Compression::Zstd][i],
            };
            all.push(NumericEncoderOptions {
                config,
                tags: (i + j) % 2 == 0,
                byte_order: if j == 1 { ByteOrder::Big } else { ByteOrder::Little },
                layout,
            });
        }
    }
    all
}

/// A blob of `metrics` metrics, metric `m` with `m + 3` points (metrics 0
/// and 1 on the same timestamps, for the shared layout).
fn numeric_blob(options: NumericEncoderOptions, metrics: usize) -> Vec<u8> {
    let mut encoder = NumericEncoder::new(1_000_000, options);
    for m in 0..metrics {
        let n = if m < 2 { 5 } else { m + 3 };
        encoder.start_metric_name(&format!("host{m}.cpu"), n).unwrap();
        for i in 0..n {
            let tag = format!("t{}", (i + m) % 3);
            let value = if i == 2 { f64::from_bits(0x7ff8_0000_dead_beef) } else { (m * 10 + i) as f64 * 0.25 - 3.0 };
            encoder.add_point(1_000_000 + (i as i64) * 15_000_000, value, options.tags.then_some(tag.as_str())).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    encoder.finish().unwrap()
}

/// The points as the core reads them, metric by metric.
fn expected_numeric(blob: &NumericBlob) -> Vec<Point> {
    let names = blob.names();
    let mut out = Vec::new();
    for metric in blob.metrics() {
        let name = names.map(|n| n[metric.index()].to_string());
        for (ts, value, tag) in metric.points().unwrap() {
            out.push((metric.id(), name.clone(), ts, format!("{:016x}", value.to_bits()), tag.map(str::to_owned)));
        }
    }
    out
}

fn batch_points(batch: &RecordBatch) -> Vec<Point> {
    let ids = batch.column_by_name("metric_id").unwrap().as_primitive::<UInt64Type>();
    let names = batch.column_by_name("metric").unwrap().as_string::<i32>();
    let ts = batch.column_by_name("ts").unwrap().as_primitive::<TimestampMicrosecondType>();
    let values = batch.column_by_name("value").unwrap();
    let tags = batch.column_by_name("tag").unwrap().as_string::<i32>();
    (0..batch.num_rows())
        .map(|i| {
            let value = match values.data_type() {
                DataType::Float64 => format!("{:016x}", values.as_primitive::<Float64Type>().value(i).to_bits()),
                _ => values.as_string::<i32>().value(i).to_owned(),
            };
            let opt = |a: &arrow::array::StringArray| a.is_valid(i).then(|| a.value(i).to_owned());
            (ids.value(i), opt(names), ts.value(i), value, opt(tags))
        })
        .collect()
}

#[test]
fn numeric_blobs_read_as_the_core_reads_them() {
    for options in numeric_options() {
        let bytes = numeric_blob(options, 6);
        let blob = NumericBlob::open(&bytes).unwrap();
        let batch = numeric_batch(&blob, &Selection::all()).unwrap();
        assert_eq!(batch.schema(), numeric_schema(), "{options:?}");
        let expected = expected_numeric(&blob);
        assert_eq!(expected.len(), 5 + 5 + 5 + 6 + 7 + 8);
        assert_eq!(batch_points(&batch), expected, "{options:?}");
        assert_eq!(batch.column(4).null_count() == batch.num_rows(), !options.tags);
    }
}

#[test]
fn a_selection_reads_those_metrics_and_columns() {
    for options in numeric_options() {
        let bytes = numeric_blob(options, 6);
        let blob = NumericBlob::open(&bytes).unwrap();
        let ids = blob.metric_ids().to_vec();
        let wanted = vec![ids[4], ids[1], ids[4], 12345];
        let batch = numeric_batch(&blob, &Selection { projection: Some(vec![3, 0]), metrics: Some(wanted.clone()) }).unwrap();
        assert_eq!(batch.schema().field(0).name(), "value");
        assert_eq!(batch.schema().field(1).name(), "metric_id");
        let got: Vec<(u64, u64)> = (0..batch.num_rows())
            .map(|i| {
                let id = batch.column(1).as_primitive::<UInt64Type>().value(i);
                (id, batch.column(0).as_primitive::<Float64Type>().value(i).to_bits())
            })
            .collect();
        let expected: Vec<(u64, u64)> = expected_numeric(&blob)
            .into_iter()
            .filter(|p| p.0 == ids[1] || p.0 == ids[4])
            .map(|p| (p.0, u64::from_str_radix(&p.3, 16).unwrap()))
            .collect();
        assert_eq!(got, expected, "{options:?}");

        // No column: the count from the index alone.
        let count = numeric_batch(&blob, &Selection { projection: Some(vec![]), metrics: Some(vec![ids[5]]) }).unwrap();
        assert_eq!((count.num_columns(), count.num_rows()), (0, blob.metric_at(5).unwrap().len()));
        // From the head alone, the batches the blob gives for `metric_id` or no column.
        let head = &bytes[..mebo::BlobHead::len(&bytes).unwrap()];
        let metrics = mebo::BlobHead::metrics(head, bytes.len()).unwrap();
        for projection in [vec![], vec![0], vec![0, 0]] {
            for selected in [None, Some(wanted.clone()), Some(vec![12345])] {
                let selection = Selection { projection: Some(projection.clone()), metrics: selected };
                let from_index = index_batch(mebo::BlobKind::Numeric, &metrics, &selection).unwrap();
                assert_eq!(from_index, numeric_batch(&blob, &selection).unwrap(), "{options:?} {selection:?}");
            }
        }
        let refused = index_batch(mebo::BlobKind::Numeric, &metrics, &Selection { projection: Some(vec![0, 3]), metrics: None });
        assert_eq!(refused.unwrap_err().code(), "SCHEMA");
        let ts_only = numeric_batch(&blob, &Selection { projection: Some(vec![2]), metrics: None }).unwrap();
        let ts: Vec<i64> = ts_only.column(0).as_primitive::<TimestampMicrosecondType>().values().to_vec();
        assert_eq!(ts, expected_numeric(&blob).into_iter().map(|p| p.2).collect::<Vec<_>>());
    }
}

#[test]
fn text_blobs_read_as_the_core_reads_them() {
    for (k, (ts, codec, tags)) in [
        (TimestampEncoding::Raw, Compression::None, true),
        (TimestampEncoding::Delta, Compression::Zstd, false),
        (TimestampEncoding::Delta, Compression::Lz4, true),
    ]
    .into_iter()
    .enumerate()
    {
        let options = TextEncoderOptions { timestamp_encoding: ts, data_compression: codec, tags, byte_order: ByteOrder::Little };
        let mut encoder = TextEncoder::new(-5, options).unwrap();
        for m in 0..4 {
            encoder.start_metric_name(&format!("log.{m}"), m + 1).unwrap();
            for i in 0..=m {
                let value = format!("é{k}-{m}-{i}{}", "x".repeat(i * 7));
                encoder.add_point(i64::from(m as i32) * 100 - 5 + i as i64, &value, tags.then_some("tag")).unwrap();
            }
            encoder.end_metric().unwrap();
        }
        let bytes = encoder.finish().unwrap();
        let blob = TextBlob::open(&bytes).unwrap();
        let mut expected = Vec::new();
        for metric in blob.metrics() {
            let name = blob.names().map(|n| n[metric.index()].to_string());
            for (ts, value, tag) in metric.points().unwrap() {
                expected.push((metric.id(), name.clone(), ts, value.to_owned(), tag.map(str::to_owned)));
            }
        }
        let batch = text_batch(&blob, &Selection::all()).unwrap();
        assert_eq!(batch_points(&batch), expected);
        let id = blob.metric_ids()[2];
        let metrics = mebo::BlobHead::metrics(&bytes[..mebo::BlobHead::len(&bytes).unwrap()], bytes.len()).unwrap();
        for selection in
            [Selection { projection: Some(vec![0]), metrics: Some(vec![id]) }, Selection { projection: Some(vec![]), metrics: None }]
        {
            assert_eq!(index_batch(mebo::BlobKind::Text, &metrics, &selection).unwrap(), text_batch(&blob, &selection).unwrap());
        }
        let one = text_batch(&blob, &Selection { projection: None, metrics: Some(vec![id]) }).unwrap();
        assert_eq!(batch_points(&one), expected.iter().filter(|p| p.0 == id).cloned().collect::<Vec<_>>());

        // Back into a blob: the same points.
        let again = batch_to_text(&[batch], options, None).unwrap();
        let reread = text_batch(&TextBlob::open(&again).unwrap(), &Selection::all()).unwrap();
        assert_eq!(batch_points(&reread), expected);
    }
}

#[test]
fn batches_round_trip_by_bits_over_the_whole_timestamp_range() {
    let options = NumericEncoderOptions {
        config: ColumnConfig { timestamp_encoding: TimestampEncoding::Raw, value_encoding: ValueEncoding::Raw, ..Default::default() },
        layout: Layout::V2,
        tags: true,
        ..Default::default()
    };
    let mut encoder = NumericEncoder::new(i64::MIN, options);
    let specials = [f64::NAN, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE / 2.0, f64::from_bits(0xfff0_0000_0000_0001)];
    encoder.start_metric_name("edge", specials.len()).unwrap();
    let ts = [i64::MIN, -1, 0, 1, i64::MAX - 1, i64::MAX];
    encoder.add_points(&ts, &specials, Some(&["a", "", "c", "d", "e", "f"])).unwrap();
    encoder.end_metric().unwrap();
    let bytes = encoder.finish().unwrap();
    let batch = numeric_batch(&NumericBlob::open(&bytes).unwrap(), &Selection::all()).unwrap();
    let points = batch_points(&batch);
    assert_eq!(points.iter().map(|p| p.2).collect::<Vec<_>>(), ts);
    assert_eq!(
        points.iter().map(|p| p.3.clone()).collect::<Vec<_>>(),
        specials.iter().map(|v| format!("{:016x}", v.to_bits())).collect::<Vec<_>>()
    );

    let again = batch_to_numeric(std::slice::from_ref(&batch), options, Some(i64::MIN)).unwrap();
    let reread = numeric_batch(&NumericBlob::open(&again).unwrap(), &Selection::all()).unwrap();
    assert_eq!(batch_points(&reread), points);

    // Every layout: a batch of several metrics back into a blob and out again.
    for options in numeric_options() {
        let bytes = numeric_blob(options, 5);
        let blob = NumericBlob::open(&bytes).unwrap();
        let batch = numeric_batch(&blob, &Selection::all()).unwrap();
        let (head, tail) = (batch.slice(0, 7), batch.slice(7, batch.num_rows() - 7));
        let again = batch_to_numeric(&[head, tail], options, Some(blob.start_time())).unwrap();
        assert_eq!(batch_points(&numeric_batch(&NumericBlob::open(&again).unwrap(), &Selection::all()).unwrap()), expected_numeric(&blob));
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let bytes = numeric_blob(NumericEncoderOptions::default(), 3);
    let blob = NumericBlob::open(&bytes).unwrap();
    let batch = numeric_batch(&blob, &Selection::all()).unwrap();
    // A name that does not hash to its id.
    let wrong = batch.project(&[0, 2, 3]).unwrap();
    let renamed = RecordBatch::try_new(
        std::sync::Arc::new(arrow::datatypes::Schema::new(vec![
            wrong.schema().field(0).clone(),
            arrow::datatypes::Field::new("metric", DataType::Utf8, true),
            wrong.schema().field(1).clone(),
            wrong.schema().field(2).clone(),
        ])),
        vec![
            wrong.column(0).clone(),
            std::sync::Arc::new(arrow::array::StringArray::from(vec!["nope"; wrong.num_rows()])),
            wrong.column(1).clone(),
            wrong.column(2).clone(),
        ],
    )
    .unwrap();
    assert_eq!(batch_to_numeric(&[renamed], NumericEncoderOptions::default(), None).unwrap_err().code(), "SCHEMA");
    // No value column; a text value column in a numeric blob.
    assert_eq!(batch_to_numeric(&[batch.project(&[0, 2]).unwrap()], NumericEncoderOptions::default(), None).unwrap_err().code(), "SCHEMA");
    assert_eq!(batch_to_text(std::slice::from_ref(&batch), TextEncoderOptions::default(), None).unwrap_err().code(), "SCHEMA");
    // A projection past the schema.
    let bad = Selection { projection: Some(vec![5]), metrics: None };
    assert_eq!(numeric_batch(&blob, &bad).unwrap_err().code(), "SCHEMA");
    // A truncated blob never opens: the core's code comes through.
    let err = NumericBlob::open(&bytes[..bytes.len() / 2]).map(|_| ()).unwrap_err();
    let code = err.code();
    assert!(["TRUNCATED", "OFFSET_OUT_OF_RANGE"].contains(&code), "{code}");
    assert_eq!(mebo_arrow::Error::from(err).code(), code);
}
