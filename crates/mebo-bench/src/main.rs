//! `mebo-bench [--quick] [--json FILE] [--bench-dir DIR] [--stream] [--decode-only]`
//!
//! Times, on every configuration of `testdata/bench`, opening a blob and
//! decoding every metric into columns (`decode`, into reused column buffers), and encoding the bench input
//! with the configuration's options (`encode`, numeric only). Prints a table
//! with the reference's decode + Materialize figure for the same blob measured
//! on this machine kind, and optionally writes JSON rows for `npm run bench`.
//!
//! `--stream` prints each row as one line of JSON on stdout as soon as it is
//! measured (the table goes to stderr): the web demo's local API relays them
//! to the page. `--decode-only` skips the encode rows.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use mebo::numeric::{NumericBlob, NumericColumns, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextColumns};
use mebo::ByteOrder;
use mebo_testdata::read_json;
use serde_json::{json, Value};

struct Timing {
    median_ns: f64,
    min_ns: f64,
    runs: usize,
}

/// Warm up, then time `samples` runs of `f` (each run repeated enough times to
/// last ~1 ms so timer resolution does not matter).
fn time<F: FnMut()>(samples: usize, mut f: F) -> Timing {
    let start = Instant::now();
    let mut warm = 0u32;
    while start.elapsed().as_millis() < 50 || warm < 3 {
        f();
        warm += 1;
    }
    let per_call = start.elapsed().as_nanos() as f64 / warm as f64;
    let reps = ((1e6 / per_call).ceil() as usize).max(1);
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_nanos() as f64 / reps as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Timing { median_ns: times[times.len() / 2], min_ns: times[0], runs: samples }
}

/// `num-seed200x250-delta-none-gorilla-none-notags-le-v1` → `delta-none-gorilla-none`
/// (the v2-shared case keeps its layout so the name stays unique).
fn config_name(case: &Value) -> String {
    let o = &case["options"];
    let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
    if case["kind"] == "text" {
        return format!("text-{}-{}", s("timestampEncoding"), s("dataCompression"));
    }
    let base = format!("{}-{}-{}-{}", s("timestampEncoding"), s("timestampCompression"), s("valueEncoding"), s("valueCompression"));
    match o["layout"].as_str() {
        Some("v1") | None => base,
        Some(layout) => format!("{base}-{layout}"),
    }
}

fn encoder_options(case: &Value) -> NumericEncoderOptions {
    let o = &case["options"];
    let s = |k: &str| o[k].as_str().unwrap();
    NumericEncoderOptions {
        timestamp_encoding: s("timestampEncoding").parse().unwrap(),
        value_encoding: s("valueEncoding").parse().unwrap(),
        timestamp_compression: s("timestampCompression").parse().unwrap(),
        value_compression: s("valueCompression").parse().unwrap(),
        tags: o["tags"].as_bool().unwrap(),
        byte_order: if o["bigEndian"].as_bool().unwrap() { ByteOrder::Big } else { ByteOrder::Little },
        layout: s("layout").parse().unwrap(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let bench_dir = flag("--bench-dir").map(PathBuf::from).unwrap_or_else(mebo_testdata::bench_dir);
    let reference = read_json(&mebo_testdata::reference_dir().join("go-v1.9-epyc.json"));
    let reference_ns = |name: &str| {
        reference["rows"].as_array().unwrap().iter().find(|r| r["name"] == name).and_then(|r| r["decode_materialize_ns"].as_f64())
    };
    // The quick plan still takes 30 samples: enough for a stable median and a
    // minimum (the web demo's live figures use it).
    let samples = if quick { 30 } else { 40 };
    let stream = args.iter().any(|a| a == "--stream");
    let decode_only = args.iter().any(|a| a == "--decode-only");
    // Without --stream the table is the output; with it, stdout is JSON lines.
    let table = |line: String| if stream { eprintln!("{line}") } else { println!("{line}") };

    let manifest = read_json(&bench_dir.join("manifest.json"));
    let mut rows = Vec::new();
    table(format!("{:<38} {:>6} {:>8} {:>12} {:>12} {:>14} {:>9}", "config", "op", "points", "bytes", "median µs", "Mpoints/s", "vs Go"));
    for case in manifest["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let config = config_name(case);
        let bytes = std::fs::read(bench_dir.join(case["file"].as_str().unwrap())).unwrap();
        let mut record = |op: &str, points: usize, size: usize, t: Timing, reference: Option<f64>| {
            let ratio = reference.map(|r| r / t.median_ns);
            table(format!(
                "{config:<38} {op:>6} {points:>8} {size:>12} {:>12.1} {:>14.1} {:>9}",
                t.median_ns / 1e3,
                points as f64 / t.median_ns * 1e3,
                ratio.map_or("-".into(), |r| format!("{r:.2}x")),
            ));
            let row = json!({
                "config": config, "runtime": "rust-native", "op": op, "points": points, "bytes": size,
                "median_ns": t.median_ns.round(), "min_ns": t.min_ns.round(), "runs": t.runs,
            });
            if stream {
                println!("{row}");
            }
            rows.push(row);
        };
        if case["kind"] == "text" {
            let points = TextBlob::open(&bytes).unwrap().total_points();
            let mut columns = TextColumns::default();
            let t = time(samples, || {
                let blob = TextBlob::open(black_box(&bytes)).unwrap();
                blob.decode_all_into(&mut columns).unwrap();
                black_box(&columns);
            });
            record("decode", points, bytes.len(), t, reference_ns(name));
            continue;
        }
        let points = NumericBlob::open(&bytes).unwrap().total_points();
        // Columns are reused across runs, as a service decoding blob after blob
        // would: fresh multi-100-KB buffers each run would time the kernel's
        // page faults, not the decoder.
        let mut columns = NumericColumns::default();
        let t = time(samples, || {
            let blob = NumericBlob::open(black_box(&bytes)).unwrap();
            blob.decode_all_into(&mut columns).unwrap();
            black_box(&columns);
        });
        record("decode", points, bytes.len(), t, reference_ns(name));
        if decode_only {
            continue;
        }

        let input = mebo_testdata::read_input_file(&bench_dir.join(case["options"]["input"].as_str().unwrap()));
        let (start, metrics) = (input.start_time, input.metrics);
        let options = encoder_options(case);
        let encode = || {
            let mut enc = NumericEncoder::new(start, options);
            for m in &metrics {
                enc.start_metric_name(m.name.as_deref().expect("bench metrics have names"), m.timestamps.len()).unwrap();
                enc.add_points::<&str>(&m.timestamps, &m.values, None).unwrap();
                enc.end_metric().unwrap();
            }
            enc.finish().unwrap()
        };
        let size = encode().len();
        let t = time(samples, || {
            black_box(encode());
        });
        record("encode", points, size, t, None);
    }
    if let Some(path) = flag("--json") {
        std::fs::write(&path, serde_json::to_string_pretty(&rows).unwrap()).unwrap();
        eprintln!("wrote {} rows to {path}", rows.len());
    }
}
