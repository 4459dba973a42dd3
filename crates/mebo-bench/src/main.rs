//! `mebo-bench [--quick] [--json FILE] [--bench-dir DIR] [--stream] [--decode-only | --encode-only]`
//!
//! Times, on every configuration of `testdata/bench`, opening a blob and
//! decoding every metric into columns (`decode`, into reused column buffers), and encoding the bench input
//! with the configuration's options (`encode`; `identical`: the bytes equal
//! the recorded blob, the reference's). After the configurations, the
//! numeric bench input encoded with `auto` under each `prefer` (op
//! `encode-auto`, config `auto-<prefer>`, `chosen`: the configuration it
//! wrote). Prints a table
//! with the reference's decode + Materialize figure for the same blob measured
//! on this machine kind, and optionally writes JSON rows for `npm run bench`.
//!
//! `--stream` prints each row as one line of JSON on stdout as soon as it is
//! measured (the table goes to stderr): the web demo's local API relays them
//! to the page. `--decode-only` skips the encode rows, `--encode-only` the
//! decode rows. `--profile-encode CONFIG [--reps N]` only encodes the bench
//! input N times (default 20) with CONFIG (a configuration name or
//! `auto-<prefer>`), untimed: a steady workload for `valgrind --tool=callgrind`.
//!
//! Beside each numeric decode it prints the column kernels alone, in ns per
//! point: the configuration's timestamp decoder and value decoder over the
//! bench input's columns (encoded as the blob holds them), without opening,
//! index or copies, so the table shows which kernel bounds which configuration
//! (JSON fields `ts_kernel_ns_per_point`, `value_kernel_ns_per_point`).
//! `--kernels` prints only those, each new kernel beside its scalar twin
//! timed in alternation (`--kernels-rounds N`, default 5). `--kernels-json`
//! prints each encoding's kernel alone as one JSON object
//! (`{"timestamps": {"delta": ns, ..}, "values": {"gorilla": ns, ..}}`):
//! `npm run bench` runs it natively and, built for wasm32-wasip1, in Node.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use mebo::numeric::{AutoEncoder, NumericBlob, NumericColumns, NumericEncoder, NumericEncoderOptions, Prefer};
use mebo::text::{TextBlob, TextColumns, TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, TimestampEncoding, ValueEncoding};
use mebo_testdata::{read_json, CaseOptions};
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

/// A numeric blob opened alone (header, index, decompression).
fn time_open(bytes: &[u8], samples: usize) -> Timing {
    time(samples, || {
        black_box(NumericBlob::open(black_box(bytes)).unwrap());
    })
}

/// A numeric blob opened, then decoded whole into columns. The columns are
/// reused across runs, as a service decoding blob after blob would: fresh
/// multi-100-KB buffers each run would time the kernel's page faults, not
/// the decoder.
fn time_decode(bytes: &[u8], samples: usize) -> Timing {
    let mut columns = NumericColumns::default();
    time(samples, || {
        let blob = NumericBlob::open(black_box(bytes)).unwrap();
        blob.decode_all_into(&mut columns).unwrap();
        black_box(&columns);
    })
}

/// [`time_decode`] as the wasm bindings decode for JavaScript: a column the
/// blob stores as it decodes is left for the binding to copy out as it is.
fn time_decode_unstored(bytes: &[u8], samples: usize) -> Timing {
    let mut columns = NumericColumns::default();
    time(samples, || {
        let blob = NumericBlob::open(black_box(bytes)).unwrap();
        black_box(blob.decode_unstored_into(&mut columns, |_| true).unwrap());
    })
}

/// A timing of a whole pass turned into ns per point.
fn per_point(t: Timing, points: usize) -> Timing {
    let n = points.max(1) as f64;
    Timing { median_ns: t.median_ns / n, min_ns: t.min_ns / n, runs: t.runs }
}

/// `num-seed200x250-delta-none-gorilla-none-notags-le-v1` → `delta-none-gorilla-none`
/// (the v2-shared case keeps its layout so the name stays unique).
fn config_name(case: &Value) -> String {
    CaseOptions::of(case).config_name(case["kind"].as_str().unwrap_or("numeric"))
}

fn encoder_options(case: &Value) -> NumericEncoderOptions {
    let o = CaseOptions::of(case);
    let byte_order = if o.big_endian { ByteOrder::Big } else { ByteOrder::Little };
    NumericEncoderOptions { tags: o.tags, byte_order, layout: o.layout.parse().unwrap(), ..Default::default() }
        .with_config(o.column_config().parse().unwrap())
}

fn text_encoder_options(case: &Value) -> TextEncoderOptions {
    let o = &case["options"];
    let s = |k: &str| o[k].as_str().unwrap();
    TextEncoderOptions {
        timestamp_encoding: s("timestampEncoding").parse().unwrap(),
        data_compression: s("dataCompression").parse().unwrap(),
        tags: o["tags"].as_bool().unwrap(),
        byte_order: if o["bigEndian"].as_bool().unwrap() { ByteOrder::Big } else { ByteOrder::Little },
    }
}

/// A numeric input written by `NumericEncoder` (or by `AutoEncoder` under
/// `prefer`) as a service would: start, `add_points`, end, per metric; then `finish`.
fn encode_numeric(input: &mebo_testdata::Input, options: NumericEncoderOptions, prefer: Option<Prefer>) -> Vec<u8> {
    macro_rules! write_all {
        ($enc:expr) => {{
            let mut enc = $enc;
            for m in &input.metrics {
                if input.by_name {
                    enc.start_metric_name(m.name.as_deref().expect("a name"), m.timestamps.len()).unwrap();
                } else {
                    enc.start_metric_id(m.id, m.timestamps.len()).unwrap();
                }
                enc.add_points(&m.timestamps, &m.values, m.tags.as_deref()).unwrap();
                enc.end_metric().unwrap();
            }
            enc.finish().unwrap()
        }};
    }
    match prefer {
        Some(prefer) => write_all!(AutoEncoder::new(input.start_time, options, prefer)),
        None => write_all!(NumericEncoder::new(input.start_time, options)),
    }
}

/// A text input written by `TextEncoder`: start, `add_points`, end, per metric; then `finish`.
fn encode_text(input: &mebo_testdata::Input, options: TextEncoderOptions) -> Vec<u8> {
    let mut enc = TextEncoder::new(input.start_time, options).unwrap();
    for m in &input.metrics {
        if input.by_name {
            enc.start_metric_name(m.name.as_deref().expect("a name"), m.timestamps.len()).unwrap();
        } else {
            enc.start_metric_id(m.id, m.timestamps.len()).unwrap();
        }
        enc.add_points(&m.timestamps, &m.texts, m.tags.as_deref()).unwrap();
        enc.end_metric().unwrap();
    }
    enc.finish().unwrap()
}

/// The bench input's columns, each encoding's bytes made once, for timing the
/// column kernels alone: what `decode_all` runs per metric, without opening
/// the blob, the index or the copies (the columns are encoded as the blob
/// holds them: the codecs are deterministic and byte-identical to the
/// reference's).
struct Kernels {
    timestamps: Vec<Vec<i64>>,
    values: Vec<Vec<f64>>,
    points: usize,
    samples: usize,
    /// ns per point, by encoding name, measured once each.
    measured: HashMap<String, f64>,
}

impl Kernels {
    fn new(metrics: &[mebo_testdata::InputMetric], samples: usize) -> Kernels {
        let timestamps: Vec<Vec<i64>> = metrics.iter().map(|m| m.timestamps.clone()).collect();
        let values: Vec<Vec<f64>> = metrics.iter().map(|m| m.values.clone()).collect();
        let points = timestamps.iter().map(Vec::len).sum();
        Kernels { timestamps, values, points, samples, measured: HashMap::new() }
    }

    fn timestamp_columns(&self, enc: TimestampEncoding) -> Vec<Vec<u8>> {
        self.timestamps
            .iter()
            .map(|ts| {
                let mut col = Vec::new();
                mebo::internals::encode_timestamps(enc, ts, ByteOrder::Little, &mut col);
                col
            })
            .collect()
    }

    fn value_columns(&self, enc: ValueEncoding) -> Vec<Vec<u8>> {
        self.values
            .iter()
            .map(|vs| {
                let mut col = Vec::new();
                mebo::internals::encode_values(enc, vs, ByteOrder::Little, &mut col);
                col
            })
            .collect()
    }

    /// Every metric's timestamps decoded by `decode(bytes, len, out)` into one
    /// buffer, checked against the input once; ns per point. As in a blob, the
    /// columns lie one after the other: `bytes` runs from a column's start to
    /// the payload's end, of which the column is the first `len`.
    fn time_timestamps(&self, cols: &[Vec<u8>], decode: impl Fn(&[u8], usize, &mut [i64]) -> mebo::Result<()>) -> Timing {
        let mut out: Vec<Vec<i64>> = self.timestamps.iter().map(|ts| vec![0; ts.len()]).collect();
        let payload = cols.concat();
        let starts: Vec<usize> = cols.iter().scan(0, |start, col| Some(std::mem::replace(start, *start + col.len()))).collect();
        let run = |out: &mut Vec<Vec<i64>>| {
            for ((col, start), out) in cols.iter().zip(&starts).zip(out) {
                decode(black_box(&payload[*start..]), col.len(), out).unwrap();
            }
        };
        run(&mut out);
        assert!(out == self.timestamps, "timestamp kernel decodes the input");
        let t = time(self.samples, || {
            run(&mut out);
            black_box(&out);
        });
        per_point(t, self.points)
    }

    /// Every metric's values, four at a time as `decode_all` groups them, then
    /// two, then one; ns per point.
    fn time_values(&self, cols: &[Vec<u8>], enc: ValueEncoding) -> Timing {
        use mebo::internals::{decode_values, decode_values_four, decode_values_two};
        let le = ByteOrder::Little;
        self.time_values_by(cols, 4, |cols, outs| match (cols, outs) {
            ([ca, cb, cc, cd], [a, b, c, d]) => decode_values_four(enc, (black_box(ca), a), (cb, b), (cc, c), (cd, d), le),
            ([ca, cb, rest @ ..], [a, b, outs @ ..]) => {
                decode_values_two(enc, (black_box(ca), a), (cb, b), le)?;
                rest.iter().zip(outs).try_for_each(|(col, out)| decode_values(enc, col, le, out))
            }
            (cols, outs) => cols.iter().zip(outs).try_for_each(|(col, out)| decode_values(enc, black_box(col), le, out)),
        })
    }

    /// Every metric's values, `width` columns per call of `decode`; ns per point.
    fn time_values_by(&self, cols: &[Vec<u8>], width: usize, decode: impl Fn(&[Vec<u8>], &mut [Vec<f64>]) -> mebo::Result<()>) -> Timing {
        let mut out: Vec<Vec<f64>> = self.values.iter().map(|vs| vec![0.0; vs.len()]).collect();
        let run = |out: &mut Vec<Vec<f64>>| {
            for (cols, outs) in cols.chunks(width).zip(out.chunks_mut(width)) {
                decode(cols, outs).unwrap();
            }
        };
        run(&mut out);
        let bits = |v: &[Vec<f64>]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<u64>>();
        assert!(bits(&out) == bits(&self.values), "value kernel decodes the input");
        let t = time(self.samples, || {
            run(&mut out);
            black_box(&out);
        });
        per_point(t, self.points)
    }

    /// The timestamp kernel of `enc` alone, ns per point (measured once).
    fn timestamp_ns(&mut self, enc: TimestampEncoding) -> f64 {
        let key = format!("timestamps-{}", enc.name());
        if let Some(&ns) = self.measured.get(&key) {
            return ns;
        }
        let cols = self.timestamp_columns(enc);
        let ns = self
            .time_timestamps(&cols, |bytes, len, out| mebo::internals::decode_timestamps_within(enc, bytes, len, ByteOrder::Little, out))
            .median_ns;
        self.measured.insert(key, ns);
        ns
    }

    /// The value kernel of `enc` alone (pairs of columns), ns per point.
    fn value_ns(&mut self, enc: ValueEncoding) -> f64 {
        let key = format!("values-{}", enc.name());
        if let Some(&ns) = self.measured.get(&key) {
            return ns;
        }
        let cols = self.value_columns(enc);
        let ns = self.time_values(&cols, enc).median_ns;
        self.measured.insert(key, ns);
        ns
    }
}

/// `--kernels`: each kernel beside its baselines, timed in alternation over
/// `rounds` rounds; prints each one's median and minimum ns per point over the
/// rounds' medians.
fn compare_kernels(kernels: &Kernels, rounds: usize) {
    let delta_cols = kernels.timestamp_columns(TimestampEncoding::Delta);
    let mut timings: Vec<(String, Vec<f64>)> = Vec::new();
    let mut note = |name: String, t: Timing| match timings.iter_mut().find(|(n, _)| *n == name) {
        Some((_, v)) => v.push(t.median_ns),
        None => timings.push((name, vec![t.median_ns])),
    };
    // The same points as one long column: what the per-column start costs.
    let one_column = Kernels {
        timestamps: vec![kernels.timestamps.concat()],
        values: vec![kernels.values.concat()],
        points: kernels.points,
        samples: kernels.samples,
        measured: HashMap::new(),
    };
    let long_delta_cols = one_column.timestamp_columns(TimestampEncoding::Delta);
    let packed_cols = kernels.timestamp_columns(TimestampEncoding::DeltaPacked);
    let long_packed_cols = one_column.timestamp_columns(TimestampEncoding::DeltaPacked);
    for _ in 0..rounds {
        for kernel in mebo::internals::DeltaKernel::ALL {
            let t = kernels
                .time_timestamps(&delta_cols, |bytes, len, out| mebo::internals::DeltaTimestamps::decode_within(kernel, bytes, len, out));
            note(format!("timestamps delta {kernel:?}"), t);
            let t = one_column.time_timestamps(&long_delta_cols, |bytes, len, out| {
                mebo::internals::DeltaTimestamps::decode_within(kernel, bytes, len, out)
            });
            note(format!("timestamps delta {kernel:?}, one column"), t);
        }
        for kernel in mebo::internals::PackedKernel::ALL {
            let t = kernels.time_timestamps(&packed_cols, |bytes, len, out| {
                mebo::internals::DeltaPackedTimestamps::decode_within(kernel, bytes, len, out)
            });
            note(format!("timestamps deltapacked {kernel:?}"), t);
            let t = one_column.time_timestamps(&long_packed_cols, |bytes, len, out| {
                mebo::internals::DeltaPackedTimestamps::decode_within(kernel, bytes, len, out)
            });
            note(format!("timestamps deltapacked {kernel:?}, one column"), t);
        }
    }
    use mebo::internals::{ChimpValues, GorillaValues};
    type DecodeOne = fn(&[u8], ByteOrder, &mut [f64]) -> mebo::Result<()>;
    type DecodeTwo = fn((&[u8], &mut [f64]), (&[u8], &mut [f64])) -> mebo::Result<()>;
    type DecodeFour = fn((&[u8], &mut [f64]), (&[u8], &mut [f64]), (&[u8], &mut [f64]), (&[u8], &mut [f64])) -> mebo::Result<()>;
    let xor: [(ValueEncoding, DecodeOne, DecodeTwo, DecodeFour); 2] = [
        (ValueEncoding::Gorilla, GorillaValues::decode, GorillaValues::decode_two, GorillaValues::decode_four),
        (ValueEncoding::Chimp, ChimpValues::decode, ChimpValues::decode_two, ChimpValues::decode_four),
    ];
    let xor_cols: Vec<Vec<Vec<u8>>> = xor.iter().map(|(enc, ..)| kernels.value_columns(*enc)).collect();
    // The same series rounded to integers: XORs with many trailing zeros,
    // another case mix (Chimp's `01`, Gorilla's narrow windows).
    let integers = Kernels {
        timestamps: kernels.timestamps.clone(),
        values: kernels.values.iter().map(|vs| vs.iter().map(|v| v.round()).collect()).collect(),
        points: kernels.points,
        samples: kernels.samples,
        measured: HashMap::new(),
    };
    let integer_cols: Vec<Vec<Vec<u8>>> = xor.iter().map(|(enc, ..)| integers.value_columns(*enc)).collect();
    for _ in 0..rounds {
        for ((enc, one, two, four), cols) in xor.iter().zip(&xor_cols) {
            // The plain build of the decoders (no BMI2), as before.
            mebo::internals::allow_xor_bmi2(false);
            let t = kernels.time_values_by(cols, 2, |cols, outs| match (cols, outs) {
                ([ca, cb], [a, b]) => two((ca, a), (cb, b)),
                (cols, outs) => cols.iter().zip(outs).try_for_each(|(c, o)| one(c, ByteOrder::Little, o)),
            });
            note(format!("values {} two streams, no BMI2", enc.name()), t);
            mebo::internals::allow_xor_bmi2(true);
            let t = kernels.time_values_by(cols, 1, |cols, outs| one(&cols[0], ByteOrder::Little, &mut outs[0]));
            note(format!("values {} one stream", enc.name()), t);
            let t = kernels.time_values_by(cols, 2, |cols, outs| match (cols, outs) {
                ([ca, cb], [a, b]) => two((ca, a), (cb, b)),
                (cols, outs) => cols.iter().zip(outs).try_for_each(|(c, o)| one(c, ByteOrder::Little, o)),
            });
            note(format!("values {} two streams", enc.name()), t);
            let t = kernels.time_values_by(cols, 4, |cols, outs| match (cols, outs) {
                ([ca, cb, cc, cd], [a, b, c, d]) => four((ca, a), (cb, b), (cc, c), (cd, d)),
                (cols, outs) => cols.iter().zip(outs).try_for_each(|(c, o)| one(c, ByteOrder::Little, o)),
            });
            note(format!("values {} four streams", enc.name()), t);
        }
        for ((enc, .., four), cols) in xor.iter().zip(&integer_cols) {
            let t = integers.time_values_by(cols, 4, |cols, outs| match (cols, outs) {
                ([ca, cb, cc, cd], [a, b, c, d]) => four((ca, a), (cb, b), (cc, c), (cd, d)),
                (cols, outs) => cols.iter().zip(outs).try_for_each(|(c, o)| mebo::internals::decode_values(*enc, c, ByteOrder::Little, o)),
            });
            note(format!("values {} four streams, integers", enc.name()), t);
        }
    }
    println!("{:<40} {:>12} {:>12}", "kernel", "median ns/pt", "min ns/pt");
    for (name, mut v) in timings {
        v.sort_by(f64::total_cmp);
        println!("{name:<40} {:>12.3} {:>12.3}", v[v.len() / 2], v[0]);
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
    let encode_only = args.iter().any(|a| a == "--encode-only");
    // Without --stream the table is the output; with it, stdout is JSON lines.
    let table = |line: String| if stream { eprintln!("{line}") } else { println!("{line}") };

    let manifest = read_json(&bench_dir.join("manifest.json"));
    if args.iter().any(|a| a == "--kernels-json") {
        let first = manifest["cases"].as_array().unwrap().iter().find(|c| c["kind"] == "numeric").expect("a numeric case");
        let input = mebo_testdata::read_input_file(&bench_dir.join(first["options"]["input"].as_str().unwrap()));
        let mut kernels = Kernels::new(&input.metrics, samples);
        let timestamps: serde_json::Map<String, Value> =
            TimestampEncoding::ALL.iter().map(|&e| (e.name().to_string(), json!(kernels.timestamp_ns(e)))).collect();
        let values: serde_json::Map<String, Value> =
            ValueEncoding::ALL.iter().map(|&e| (e.name().to_string(), json!(kernels.value_ns(e)))).collect();
        // Each numeric configuration's blob opened alone and opened then
        // decoded whole: with the kernels, where a decode's time goes in this
        // runtime (natively, or in wasm without the bindings).
        let blobs: serde_json::Map<String, Value> = manifest["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == "numeric")
            .filter_map(|case| {
                let bytes = std::fs::read(bench_dir.join(case["file"].as_str().unwrap())).unwrap();
                // A build without a codec (wasm32-wasip1 leaves zstd out) skips its blobs.
                NumericBlob::open(&bytes).ok()?;
                let (open, decode, unstored) = (time_open(&bytes, samples), time_decode(&bytes, samples), time_decode_unstored(&bytes, samples));
                Some((
                    config_name(case),
                    json!({ "open_ns": open.median_ns.round(), "decode_ns": decode.median_ns.round(), "unstored_ns": unstored.median_ns.round() }),
                ))
            })
            .collect();
        println!("{}", json!({ "points": kernels.points, "timestamps": timestamps, "values": values, "blobs": blobs }));
        return;
    }
    if let Some(config) = flag("--profile-encode") {
        let reps: usize = flag("--reps").map_or(20, |n| n.parse().expect("--reps N"));
        let first = manifest["cases"].as_array().unwrap().iter().find(|c| c["kind"] == "numeric").expect("a numeric case");
        let input = mebo_testdata::read_input_file(&bench_dir.join(first["options"]["input"].as_str().unwrap()));
        let (options, prefer) = match config.strip_prefix("auto-") {
            Some(prefer) => (NumericEncoderOptions::default(), Some(prefer.parse::<Prefer>().unwrap())),
            None => (NumericEncoderOptions::default().with_config(config.parse().expect("a configuration name")), None),
        };
        let bytes: usize = (0..reps).map(|_| encode_numeric(&input, options, prefer).len()).sum();
        println!("{config}: {reps} encodes, {} bytes each", bytes / reps.max(1));
        return;
    }
    if args.iter().any(|a| a == "--kernels") {
        let rounds = flag("--kernels-rounds").map_or(5, |n| n.parse().expect("--kernels-rounds N"));
        let first = manifest["cases"].as_array().unwrap().iter().find(|c| c["kind"] == "numeric").expect("a numeric case");
        let input = mebo_testdata::read_input_file(&bench_dir.join(first["options"]["input"].as_str().unwrap()));
        compare_kernels(&Kernels::new(&input.metrics, samples), rounds);
        return;
    }
    let mut rows = Vec::new();
    let mut kernels_by_input: HashMap<PathBuf, Kernels> = HashMap::new();
    // The first numeric input: what the `encode-auto` rows encode.
    let mut auto_input: Option<mebo_testdata::Input> = None;
    table(format!("{:<38} {:>6} {:>8} {:>12} {:>12} {:>14} {:>9}", "config", "op", "points", "bytes", "median µs", "Mpoints/s", "vs Go"));
    for case in manifest["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let config = config_name(case);
        let bytes = std::fs::read(bench_dir.join(case["file"].as_str().unwrap())).unwrap();
        let mut record = |op: &str,
                          points: usize,
                          size: usize,
                          t: Timing,
                          reference: Option<f64>,
                          kernels: Option<(f64, f64)>,
                          extra: Value| {
            let ratio = reference.map(|r| r / t.median_ns);
            table(format!(
                "{config:<38} {op:>6} {points:>8} {size:>12} {:>12.1} {:>14.1} {:>9}",
                t.median_ns / 1e3,
                points as f64 / t.median_ns * 1e3,
                ratio.map_or("-".into(), |r| format!("{r:.2}x")),
            ));
            let mut row = json!({
                "config": config, "runtime": "rust-native", "op": op, "points": points, "bytes": size,
                "median_ns": t.median_ns.round(), "min_ns": t.min_ns.round(), "runs": t.runs,
            });
            if let Some((ts_ns, value_ns)) = kernels {
                table(format!(
                    "{:<38} {:>6} kernels alone, ns/point: timestamps {ts_ns:.2} + values {value_ns:.2} = {:.2} of {:.2} for the whole decode",
                    "",
                    "",
                    ts_ns + value_ns,
                    t.median_ns / points.max(1) as f64,
                ));
                row["ts_kernel_ns_per_point"] = json!((ts_ns * 1000.0).round() / 1000.0);
                row["value_kernel_ns_per_point"] = json!((value_ns * 1000.0).round() / 1000.0);
            }
            if let (Value::Object(row), Value::Object(extra)) = (&mut row, extra) {
                row.extend(extra);
            }
            if stream {
                println!("{row}");
            }
            rows.push(row);
        };
        let input_path = bench_dir.join(case["options"]["input"].as_str().unwrap());
        if case["kind"] == "text" {
            let points = TextBlob::open(&bytes).unwrap().total_points();
            if !encode_only {
                let mut columns = TextColumns::default();
                let t = time(samples, || {
                    let blob = TextBlob::open(black_box(&bytes)).unwrap();
                    blob.decode_all_into(&mut columns).unwrap();
                    black_box(&columns);
                });
                record("decode", points, bytes.len(), t, reference_ns(name), None, json!({}));
            }
            if !decode_only {
                let input = mebo_testdata::read_input_file(&input_path);
                let options = text_encoder_options(case);
                let ours = encode_text(&input, options);
                let t = time(samples, || {
                    black_box(encode_text(black_box(&input), options));
                });
                record("encode", points, ours.len(), t, None, None, json!({ "identical": ours == bytes }));
            }
            continue;
        }
        let points = NumericBlob::open(&bytes).unwrap().total_points();
        let options = encoder_options(case);
        if !encode_only {
            let t = time_decode(&bytes, samples);
            let kernels = kernels_by_input
                .entry(input_path.clone())
                .or_insert_with(|| Kernels::new(&mebo_testdata::read_input_file(&input_path).metrics, samples));
            let kernel_ns = (kernels.timestamp_ns(options.config.timestamp_encoding), kernels.value_ns(options.config.value_encoding));
            record("decode", points, bytes.len(), t, reference_ns(name), Some(kernel_ns), json!({}));
        }
        if decode_only {
            continue;
        }
        let input = mebo_testdata::read_input_file(&input_path);
        let ours = encode_numeric(&input, options, None);
        let t = time(samples, || {
            black_box(encode_numeric(black_box(&input), options, None));
        });
        record("encode", points, ours.len(), t, None, None, json!({ "identical": ours == bytes }));
        auto_input.get_or_insert(input);
    }
    // `auto` on the numeric bench input, under each prefer: the whole choice
    // (candidates, the default blob, the chosen one) as `finish` makes it.
    if let Some(input) = auto_input.filter(|_| !decode_only) {
        let points = input.metrics.iter().map(|m| m.timestamps.len()).sum::<usize>();
        for prefer in Prefer::ALL {
            let options = NumericEncoderOptions::default();
            let mut enc = AutoEncoder::new(input.start_time, options, prefer);
            for m in &input.metrics {
                enc.start_metric_name(m.name.as_deref().expect("bench metrics have names"), m.timestamps.len()).unwrap();
                enc.add_points::<&str>(&m.timestamps, &m.values, None).unwrap();
                enc.end_metric().unwrap();
            }
            let (blob, chosen) = enc.finish_with_config().unwrap();
            let t = time(samples, || {
                black_box(encode_numeric(black_box(&input), options, Some(prefer)));
            });
            let config = format!("auto-{}", prefer.name());
            table(format!(
                "{config:<38} {:>6} {points:>8} {:>12} {:>12.1} {:>14.1} {:>9}",
                "auto",
                blob.len(),
                t.median_ns / 1e3,
                points as f64 / t.median_ns * 1e3,
                "-"
            ));
            let row = json!({
                "config": config, "runtime": "rust-native", "op": "encode-auto", "points": points, "bytes": blob.len(),
                "median_ns": t.median_ns.round(), "min_ns": t.min_ns.round(), "runs": t.runs, "chosen": chosen.to_string(),
            });
            if stream {
                println!("{row}");
            }
            rows.push(row);
        }
    }
    if let Some(path) = flag("--json") {
        std::fs::write(&path, serde_json::to_string_pretty(&rows).unwrap()).unwrap();
        eprintln!("wrote {} rows to {path}", rows.len());
    }
}
