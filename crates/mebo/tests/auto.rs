//! The `auto` configuration on real inputs: the conformance vectors' numeric
//! inputs and the real series (`testdata/real`). Under `balanced` (the default) and `size` its blob
//! is never larger than the default configuration's, and it decodes to the
//! input bit for bit; its header names the configuration it reports.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use common::{read_input_file, vectors_dir, Input};
use mebo::numeric::{AutoEncoder, NumericBlob, NumericEncoder, NumericEncoderOptions, Prefer};
use mebo::{ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};

/// Every numeric input file: the vectors' and the real series'.
fn numeric_inputs() -> Vec<(String, Input)> {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [vectors_dir().join("inputs"), mebo_testdata::testdata_dir().join("real")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_owned();
            if path.extension().is_some_and(|x| x == "json") && !files.iter().any(|f| f.file_name().unwrap() == name) {
                files.push(path);
            }
        }
    }
    files.sort();
    let inputs: Vec<(String, Input)> = files
        .iter()
        .filter(|p| {
            std::fs::read_to_string(p).unwrap().contains("\"kind\": \"numeric\"")
                || std::fs::read_to_string(p).unwrap().contains("\"kind\":\"numeric\"")
        })
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), read_input_file(p)))
        .collect();
    assert!(inputs.iter().any(|(n, _)| n == "gauge1"), "the vectors' inputs were found");
    assert!(
        inputs
            .iter()
            .filter(
                |(n, _)| ["seattle-hourly-normals", "usgs-earthquakes-week", "stocks-monthly", "maunaloa-co2-weekly"].contains(&n.as_str())
            )
            .count()
            == 4,
        "the real series were found"
    );
    inputs
}

fn encode_plain(input: &Input, options: NumericEncoderOptions) -> mebo::Result<Vec<u8>> {
    let mut enc = NumericEncoder::new(input.start_time, options);
    for m in &input.metrics {
        match (&m.name, input.by_name) {
            (Some(name), true) => enc.start_metric_name(name, m.timestamps.len())?,
            _ => enc.start_metric_id(m.id, m.timestamps.len())?,
        }
        enc.add_points(&m.timestamps, &m.values, m.tags.as_deref())?;
        enc.end_metric()?;
    }
    enc.finish()
}

/// An auto encoder holding every metric of `input`, by name where the input says so.
fn auto_encoder(input: &Input, options: NumericEncoderOptions, prefer: Prefer) -> AutoEncoder {
    let mut enc = AutoEncoder::new(input.start_time, options, prefer);
    for m in &input.metrics {
        match (&m.name, input.by_name) {
            (Some(name), true) => enc.start_metric_name(name, m.timestamps.len()).unwrap(),
            _ => enc.start_metric_id(m.id, m.timestamps.len()).unwrap(),
        }
        enc.add_points(&m.timestamps, &m.values, m.tags.as_deref()).unwrap();
        enc.end_metric().unwrap();
    }
    enc
}

fn encode_auto(input: &Input, options: NumericEncoderOptions, prefer: Prefer) -> (Vec<u8>, ColumnConfig) {
    auto_encoder(input, options, prefer).finish_with_config().unwrap()
}

/// The blob holds exactly the input: every metric's timestamps and value bits, and its header the config.
fn assert_decodes_to(blob: &[u8], input: &Input, config: ColumnConfig, what: &str) {
    let b = NumericBlob::open(blob).unwrap_or_else(|e| panic!("{what}: {e}"));
    let h = b.header();
    assert_eq!(h.config, config, "{what}: header");
    let cols = b.decode_all().unwrap();
    let by_id: HashMap<u64, usize> = input.metrics.iter().enumerate().map(|(i, m)| (m.id, i)).collect();
    assert_eq!(cols.ids.len(), input.metrics.len(), "{what}: metrics");
    for (k, id) in cols.ids.iter().enumerate() {
        let m = &input.metrics[by_id[id]];
        let r = cols.points_of(k).unwrap();
        assert_eq!(&cols.timestamps[r.clone()], &m.timestamps[..], "{what}: timestamps of {id:x}");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&cols.values[r]), bits(&m.values), "{what}: values of {id:x}");
    }
}

#[test]
fn auto_is_never_larger_than_the_default_and_decodes_exactly() {
    let mut checked = 0;
    for (name, input) in numeric_inputs() {
        let tags = input.metrics.iter().any(|m| m.tags.is_some());
        for layout in [Layout::V1, Layout::V2, Layout::V2Shared] {
            let options = NumericEncoderOptions { layout, tags, ..Default::default() };
            // The default configuration refuses some inputs in v1 (a metric past its 16-bit offsets): so does auto.
            let Ok(default_blob) = encode_plain(&input, options) else { continue };
            for prefer in [Prefer::Balanced, Prefer::Size] {
                let what = format!("{name} {layout:?} {prefer:?}");
                let (blob, config) = encode_auto(&input, options, prefer);
                assert!(blob.len() <= default_blob.len(), "{what}: auto {} bytes ({config}) > default {}", blob.len(), default_blob.len());
                assert_decodes_to(&blob, &input, config, &what);
                // It is the plain encoder's blob of that configuration.
                assert_eq!(blob, encode_plain(&input, options.with_config(config)).unwrap(), "{what}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "{checked} encodes checked");
}

#[test]
fn speed_decodes_exactly_too() {
    for (name, input) in numeric_inputs() {
        let options =
            NumericEncoderOptions { layout: Layout::V2, tags: input.metrics.iter().any(|m| m.tags.is_some()), ..Default::default() };
        let (blob, config) = encode_auto(&input, options, Prefer::Speed);
        assert_decodes_to(&blob, &input, config, &format!("{name} speed"));
    }
}

#[test]
fn real_series_ids_are_their_names_hashes() {
    for (name, input) in numeric_inputs() {
        for m in input.metrics.iter().filter(|_| input.by_name) {
            assert_eq!(mebo::metric_id(m.name.as_deref().unwrap()), m.id, "{name}");
        }
    }
}

#[test]
fn decimal_real_series_gain_from_auto() {
    // Prices with two decimals and one-decimal gauges: ALP's data. `size` must beat the default clearly.
    for (name, input) in numeric_inputs().into_iter().filter(|(n, _)| n == "stocks-monthly" || n == "seattle-hourly-normals") {
        let options = NumericEncoderOptions { layout: Layout::V2, ..Default::default() };
        let default_blob = encode_plain(&input, options).unwrap();
        let (blob, config) = encode_auto(&input, options, Prefer::Size);
        assert_eq!(config.value_encoding, mebo::ValueEncoding::Alp, "{name}: {config}");
        assert!(blob.len() * 3 < default_blob.len() * 2, "{name}: {} vs {}", blob.len(), default_blob.len());
    }
}

#[test]
fn finish_each_is_one_encoder_per_prefer() {
    // One sampling pass for the three choices (what `mebo inspect` reports): the same bytes and
    // configurations as an encoder per `prefer`.
    for (name, input) in numeric_inputs() {
        let tags = input.metrics.iter().any(|m| m.tags.is_some());
        for layout in [Layout::V1, Layout::V2] {
            let options = NumericEncoderOptions { layout, tags, ..Default::default() };
            if encode_plain(&input, options).is_err() {
                continue;
            }
            let each = auto_encoder(&input, options, Prefer::Balanced).finish_each().unwrap();
            assert_eq!(each.iter().map(|(p, _, _)| *p).collect::<Vec<_>>(), Prefer::ALL);
            for (prefer, blob, config) in each {
                let (want_blob, want_config) = encode_auto(&input, options, prefer);
                assert_eq!((config, blob.len()), (want_config, want_blob.len()), "{name} {layout:?} {prefer:?}");
                assert_eq!(blob, want_blob, "{name} {layout:?} {prefer:?}");
            }
        }
    }
}

/// The real series and the bench input (200 metrics × 250 points, the one
/// input past the sample's budget), v2 layout.
fn sized_inputs() -> Vec<(String, Input)> {
    let mut inputs: Vec<(String, Input)> = numeric_inputs()
        .into_iter()
        .filter(|(n, _)| ["seattle-hourly-normals", "usgs-earthquakes-week", "stocks-monthly", "maunaloa-co2-weekly"].contains(&n.as_str()))
        .collect();
    inputs.push(("seed200x250".into(), read_input_file(&mebo_testdata::bench_dir().join("inputs/seed200x250.json"))));
    inputs
}

/// Bytes of `auto`'s blob under size, balanced and speed, recorded when
/// every input was sampled whole (before `auto` sampled large inputs by
/// whole metrics): a change of its sampling or estimates must keep each
/// within 1% of these.
const RECORDED_AUTO_BYTES: [(&str, [usize; 3]); 5] = [
    ("maunaloa-co2-weekly", [3057, 3057, 3653]),
    ("seattle-hourly-normals", [3790, 3790, 4121]),
    ("stocks-monthly", [1269, 1274, 5137]),
    ("usgs-earthquakes-week", [12831, 12954, 20216]),
    ("seed200x250", [468483, 470156, 487941]),
];

#[test]
fn auto_sizes_hold_on_the_real_series_and_the_bench_input() {
    let options = NumericEncoderOptions { layout: Layout::V2, ..Default::default() };
    // Every figure first (printed: the lines of the table above), then the checks.
    let measured: Vec<(String, Vec<usize>)> = sized_inputs()
        .into_iter()
        .map(|(name, input)| {
            let sizes: Vec<usize> = Prefer::ALL.iter().map(|&p| encode_auto(&input, options, p).0.len()).collect();
            println!("(\"{name}\", {sizes:?}),");
            (name, sizes)
        })
        .collect();
    for (name, sizes) in measured {
        let recorded = RECORDED_AUTO_BYTES.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name}: no recorded figure")).1;
        for ((prefer, size), want) in Prefer::ALL.iter().zip(&sizes).zip(recorded) {
            assert!(*size * 100 <= want * 101, "{name} {prefer:?}: {size} bytes, recorded {want}");
        }
    }
}

#[test]
fn size_is_within_1_percent_of_the_smallest_fixed_configuration_on_the_real_series() {
    let options = NumericEncoderOptions { layout: Layout::V2, ..Default::default() };
    for (name, input) in sized_inputs().into_iter().filter(|(n, _)| n != "seed200x250") {
        let mut all = Vec::new();
        for timestamp_encoding in TimestampEncoding::ALL {
            for value_encoding in ValueEncoding::ALL {
                for timestamp_compression in Compression::ALL {
                    for value_compression in Compression::ALL {
                        all.push(ColumnConfig { timestamp_encoding, timestamp_compression, value_encoding, value_compression });
                    }
                }
            }
        }
        assert_eq!(all.len(), 192);
        let smallest = all
            .iter()
            .filter_map(|&c| encode_plain(&input, options.with_config(c)).ok().map(|b| (b.len(), c)))
            .min_by_key(|(n, _)| *n)
            .unwrap();
        let (blob, config) = encode_auto(&input, options, Prefer::Size);
        assert!(
            blob.len() * 100 <= smallest.0 * 101,
            "{name}: auto {} bytes ({config}), smallest fixed {} ({})",
            blob.len(),
            smallest.0,
            smallest.1
        );
    }
}
