//! Deterministic mutation tests: every conformance vector (numeric and text),
//! cut at 64 points over its length and with 64 single-bit flips, is opened and
//! decoded through every accessor (see `exercise`). Each must end in `Ok` or a
//! typed `Error`; a panic anywhere fails the test with the case and mutation.
//!
//! A second group mutates single codec columns (built with the crate's own
//! encoders from the vector inputs) and compressed payloads, and runs every
//! timestamp, value and decompression decoder over them: the deterministic
//! stand-in for the fuzz targets where `cargo fuzz` is not available.
//!
//! Run in release for speed: `cargo test --release --test mutations`.

mod common;
mod exercise;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{manifest, read_input, vectors_dir};
use mebo::{ByteOrder, ColumnConfig, Compression, DecodeLimits, TimestampEncoding, ValueEncoding};

/// Mutations per vector and kind.
const MUTATIONS: usize = 64;

/// Unoptimized builds decode some 20 times slower: there, vectors over
/// `DEBUG_LARGE` bytes (20 of 678, 60 % of the bytes) get every fourth of the
/// same mutations. Release builds (`cargo test --release`, fuzz-check.sh, CI)
/// run all of them on every vector.
const DEBUG_LARGE: usize = 64 << 10;

/// Keep mutation `k` of a vector of `len` bytes?
fn keep(k: usize, len: usize) -> bool {
    !cfg!(debug_assertions) || len <= DEBUG_LARGE || k.is_multiple_of(4)
}

/// SplitMix64: a tiny deterministic generator (positions must not change between runs).
struct Rng(u64);

impl Rng {
    fn seeded(name: &str, salt: u64) -> Rng {
        // FNV-1a of the case name, so each vector gets its own positions.
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ salt;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Rng(h)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `MUTATIONS` cut points spread evenly over `0..len` (0 included, `len` not).
fn cut_points(len: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..MUTATIONS).filter(|&k| keep(k, len)).map(|k| k * len / MUTATIONS).collect();
    cuts.dedup();
    cuts
}

/// `MUTATIONS` copies of `bytes`, each with one bit flipped at a seeded position.
fn bit_flips<'a>(name: &str, bytes: &'a [u8]) -> impl Iterator<Item = (usize, Vec<u8>)> + 'a {
    let mut rng = Rng::seeded(name, 0xf11b);
    // Every position is drawn (so the kept ones are the same in every build).
    (0..MUTATIONS).filter(move |_| !bytes.is_empty()).filter_map(move |k| {
        let bit = rng.below(bytes.len() * 8);
        keep(k, bytes.len()).then(|| {
            let mut m = bytes.to_vec();
            m[bit / 8] ^= 1 << (bit % 8);
            (bit, m)
        })
    })
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic".into())
}

/// Run `f`, turning a panic into a failure line.
fn guarded(failures: &mut Vec<String>, label: impl FnOnce() -> String, f: impl FnOnce()) {
    if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
        let mut message = panic_message(p);
        if message.len() > 400 {
            let mut end = 400;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
            message.push_str("...");
        }
        failures.push(format!("{}: {message}", label()));
    }
}

fn assert_no_failures(failures: &[String], runs: usize) {
    assert!(runs > 0, "no mutation ran");
    assert!(
        failures.is_empty(),
        "{} of {runs} mutated inputs panicked:\n{}",
        failures.len(),
        failures.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The vectors of one kind: (case name, blob bytes).
fn vectors(kind: &str) -> Vec<(String, Vec<u8>)> {
    let cases: Vec<_> = manifest()
        .into_iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| {
            let bytes = std::fs::read(vectors_dir().join(c["file"].as_str().unwrap())).unwrap();
            (c["name"].as_str().unwrap().to_string(), bytes)
        })
        .collect();
    assert!(!cases.is_empty(), "no {kind} vectors found");
    cases
}

type Exercise = fn(&[u8], &DecodeLimits) -> mebo::Result<()>;

/// Truncate every vector of `kind` at each cut point and decode it. Returns the
/// number of runs and how many ended in an error (a cut blob must fail unless
/// the cut only dropped nothing).
fn truncations(kind: &str, exercise: Exercise) {
    let limits = DecodeLimits::default();
    let mut failures = Vec::new();
    let (mut runs, mut errors) = (0, 0);
    for (name, bytes) in vectors(kind) {
        // The intact vector decodes without error.
        guarded(
            &mut failures,
            || format!("{name} intact"),
            || {
                if let Err(e) = exercise(&bytes, &limits) {
                    panic!("intact vector fails: {e}");
                }
            },
        );
        for cut in cut_points(bytes.len()) {
            runs += 1;
            guarded(
                &mut failures,
                || format!("{name} cut at {cut} of {}", bytes.len()),
                || {
                    if exercise(&bytes[..cut], &limits).is_err() {
                        errors += 1;
                    }
                },
            );
        }
    }
    assert_no_failures(&failures, runs);
    // Every blob ends in a payload the index describes: cutting it loses data,
    // and the decoder must notice (at least the header cuts fail).
    assert!(errors * 10 >= runs * 9, "only {errors} of {runs} truncated blobs were refused");
}

fn flips(kind: &str, exercise: Exercise) -> (usize, usize) {
    let limits = DecodeLimits::default();
    let mut failures = Vec::new();
    let (mut runs, mut errors) = (0, 0);
    for (name, bytes) in vectors(kind) {
        for (bit, mutated) in bit_flips(&name, &bytes) {
            runs += 1;
            guarded(
                &mut failures,
                || format!("{name} bit {bit} flipped"),
                || {
                    if exercise(&mutated, &limits).is_err() {
                        errors += 1;
                    }
                },
            );
        }
    }
    assert_no_failures(&failures, runs);
    (runs, errors)
}

#[test]
fn numeric_vectors_truncated() {
    truncations("numeric", exercise::numeric);
}

#[test]
fn numeric_vectors_bit_flipped() {
    let (runs, errors) = flips("numeric", exercise::numeric);
    // Many flips land in value bits and decode to other numbers; many do not.
    assert!(errors > runs / 10, "only {errors} of {runs} flipped blobs were refused");
}

#[test]
fn streams_of_vectors_truncated_and_bit_flipped() {
    // Numeric and text vectors side by side, eight blobs a stream.
    let mut blobs = vectors("numeric");
    blobs.extend(vectors("text"));
    let limits = DecodeLimits::default();
    let (mut failures, mut runs) = (Vec::new(), 0);
    for (k, group) in blobs.chunks(8).enumerate() {
        let stream = mebo::stream::write_stream(group.iter().map(|(_, b)| b.as_slice())).unwrap();
        let name = format!("stream {k} ({} …)", group[0].0);
        // The whole frames, those of them not as written, and whether it ended in an error.
        let read = |bytes: &[u8]| -> (usize, usize, bool) {
            let Ok(frames) = mebo::stream::Frames::new(bytes) else { return (0, 0, true) };
            let (mut whole, mut changed, mut failed) = (0, 0, false);
            for frame in frames {
                match frame {
                    Ok(blob) => {
                        // A frame as written is its vector (decoded by the
                        // tests above); any other (a flipped bit, a length
                        // that moved) is opened and read through.
                        if group.get(whole).map(|(_, b)| b.as_slice()) != Some(blob) {
                            let _ = exercise::any_blob(blob, &limits);
                            changed += 1;
                        }
                        whole += 1;
                    }
                    Err(_) => failed = true,
                }
            }
            (whole, changed, failed)
        };
        guarded(&mut failures, || format!("{name} intact"), || assert_eq!(read(&stream), (group.len(), 0, false)));
        for cut in cut_points(stream.len()) {
            runs += 1;
            guarded(
                &mut failures,
                || format!("{name} cut at {cut}"),
                || {
                    // The frames wholly before the cut are read, then a cut inside a frame is an error.
                    let ends: Vec<usize> = group
                        .iter()
                        .scan(4, |end, (_, b)| {
                            *end += 4 + b.len();
                            Some(*end)
                        })
                        .collect();
                    let whole = ends.iter().filter(|&&end| end <= cut).count();
                    let at_boundary = cut == 4 || ends.contains(&cut);
                    assert_eq!(read(&stream[..cut]), (whole, 0, cut < 4 || !at_boundary));
                },
            );
        }
        for (bit, mutated) in bit_flips(&name, &stream) {
            runs += 1;
            guarded(
                &mut failures,
                || format!("{name} bit {bit} flipped"),
                || {
                    let _ = read(&mutated);
                },
            );
        }
    }
    assert_no_failures(&failures, runs);
}

#[test]
fn text_vectors_truncated() {
    truncations("text", exercise::text);
}

#[test]
fn text_vectors_bit_flipped() {
    let (runs, errors) = flips("text", exercise::text);
    assert!(errors > runs / 10, "only {errors} of {runs} flipped blobs were refused");
}

/// Up to this many metrics of each input dataset feed the codec mutation tests.
const METRICS_PER_DATASET: usize = 3;

/// Columns of real data: (label, timestamps, values) from the vector inputs.
fn series() -> Vec<(String, Vec<i64>, Vec<f64>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(vectors_dir().join("inputs")).unwrap() {
        let path = entry.unwrap().path();
        let dataset = path.file_stem().unwrap().to_str().unwrap().to_string();
        let input = read_input(&dataset);
        for (i, m) in input.metrics.iter().filter(|m| !m.values.is_empty()).take(METRICS_PER_DATASET).enumerate() {
            out.push((format!("{dataset}#{i}"), m.timestamps.clone(), m.values.clone()));
        }
    }
    assert!(out.len() >= 20, "found {} series", out.len());
    out
}

/// Every timestamp and value column encoding of real series, cut and
/// bit-flipped, through every decoder (not only its own) with the true point
/// count, one less and one more.
#[test]
fn codec_columns_truncated_and_bit_flipped() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (label, ts, vs) in series() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut columns = Vec::new();
            for enc in TimestampEncoding::ALL {
                let mut col = Vec::new();
                mebo::internals::encode_timestamps(enc, &ts, order, &mut col);
                columns.push((format!("{label} {enc:?} timestamps {order:?}"), col, ts.len()));
            }
            for enc in ValueEncoding::ALL {
                let mut col = Vec::new();
                mebo::internals::encode_values(enc, &vs, order, &mut col);
                columns.push((format!("{label} {enc:?} values {order:?}"), col, vs.len()));
            }
            for (name, col, n) in &columns {
                let mut inputs: Vec<(String, Vec<u8>)> =
                    cut_points(col.len()).into_iter().map(|c| (format!("cut at {c}"), col[..c].to_vec())).collect();
                inputs.extend(bit_flips(name, col).map(|(bit, m)| (format!("bit {bit}"), m)));
                for (what, input) in &inputs {
                    for count in [*n, n.saturating_sub(1), n + 1] {
                        runs += 1;
                        guarded(
                            &mut failures,
                            || format!("{name} {what} count {count}"),
                            || {
                                exercise::timestamp_decoders(input, count, order);
                                exercise::value_decoders(input, count, order);
                            },
                        );
                    }
                }
            }
        }
    }
    assert_no_failures(&failures, runs);
}

/// Every codec's compressed payload of real columns, cut and bit-flipped,
/// through every decompressor with a tight and a loose cap.
#[test]
fn compressed_payloads_truncated_and_bit_flipped() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (label, ts, vs) in series().into_iter().step_by(4) {
        let mut raw = Vec::new();
        mebo::internals::encode_timestamps(TimestampEncoding::Delta, &ts, ByteOrder::Little, &mut raw);
        mebo::internals::encode_values(ValueEncoding::Gorilla, &vs, ByteOrder::Little, &mut raw);
        for codec in [Compression::Zstd, Compression::S2, Compression::Lz4] {
            let packed = mebo::internals::compress(codec, &raw).unwrap().into_owned();
            let name = format!("{label} {codec:?}");
            let mut inputs: Vec<(String, Vec<u8>)> =
                cut_points(packed.len()).into_iter().map(|c| (format!("cut at {c}"), packed[..c].to_vec())).collect();
            inputs.extend(bit_flips(&name, &packed).map(|(bit, m)| (format!("bit {bit}"), m)));
            for (what, input) in &inputs {
                for cap in [raw.len(), raw.len() / 2] {
                    runs += 1;
                    guarded(
                        &mut failures,
                        || format!("{name} {what} cap {cap}"),
                        || {
                            exercise::decompressors(input, cap);
                        },
                    );
                }
            }
        }
    }
    assert_no_failures(&failures, runs);
}

/// Seeded round trips (the deterministic stand-in for the `round_trip` fuzz
/// target): random series, including arbitrary bit patterns, encoded with
/// random options by the crate's encoders, decode back bit for bit.
#[test]
fn seeded_round_trips() {
    use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
    use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
    use mebo::Layout;

    let mut rng = Rng::seeded("round trips", 7);
    for case in 0..400 {
        let pick = |rng: &mut Rng, n: usize| rng.below(n);
        let metrics = 1 + pick(&mut rng, 4);
        let mut data = Vec::new();
        for m in 0..metrics {
            let n = 1 + pick(&mut rng, 300);
            let mut ts = Vec::with_capacity(n);
            let mut vs = Vec::with_capacity(n);
            let mut t = rng.next() as i64 >> pick(&mut rng, 64);
            for _ in 0..n {
                t = match pick(&mut rng, 8) {
                    0 => rng.next() as i64,
                    1 => t.wrapping_sub(pick(&mut rng, 1000) as i64),
                    _ => t.wrapping_add(1_000_000 + pick(&mut rng, 3) as i64),
                };
                ts.push(t);
                vs.push(match pick(&mut rng, 6) {
                    0 => f64::from_bits(rng.next()),
                    1 => vs.last().copied().unwrap_or(0.0),
                    2 => (pick(&mut rng, 100_000) as f64) / 100.0,
                    _ => (m as f64 + ts.len() as f64 * 0.1).sin(),
                });
            }
            let tags: Vec<String> = (0..n).map(|i| if pick(&mut rng, 3) == 0 { String::new() } else { format!("t{}", i % 5) }).collect();
            data.push((m as u64 + 1 + case * 10, ts, vs, tags));
        }
        let config = ColumnConfig {
            timestamp_encoding: TimestampEncoding::ALL[pick(&mut rng, 3)],
            value_encoding: ValueEncoding::ALL[pick(&mut rng, 4)],
            timestamp_compression: Compression::ALL[pick(&mut rng, 4)],
            value_compression: Compression::ALL[pick(&mut rng, 4)],
        };
        let o = NumericEncoderOptions {
            config,
            tags: pick(&mut rng, 2) == 0,
            byte_order: if pick(&mut rng, 2) == 0 { ByteOrder::Little } else { ByteOrder::Big },
            layout: [Layout::V1, Layout::V2, Layout::V2Shared][pick(&mut rng, 3)],
        };
        let mut enc = NumericEncoder::new(case as i64, o);
        for (id, ts, vs, tags) in &data {
            enc.start_metric_id(*id, ts.len()).unwrap();
            enc.add_points(ts, vs, Some(tags)).unwrap();
            enc.end_metric().unwrap();
        }
        let blob = enc.finish().unwrap();
        let opened = NumericBlob::open(&blob).unwrap_or_else(|e| panic!("case {case} {o:?}: {e}"));
        exercise::numeric_opened(&opened).unwrap_or_else(|e| panic!("case {case} {o:?}: {e}"));
        for (id, ts, vs, tags) in &data {
            let m = opened.metric(*id).unwrap();
            assert_eq!(&m.timestamps().unwrap(), ts, "case {case} {o:?}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&m.values().unwrap()), bits(vs), "case {case} {o:?}");
            let any = data.iter().any(|d| d.3.iter().any(|t| !t.is_empty()));
            let want = (o.tags && any).then(|| tags.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(m.tags().unwrap(), want, "case {case} {o:?}");
        }

        // The same series as a text blob (values as their decimal text).
        let to = TextEncoderOptions {
            timestamp_encoding: [TimestampEncoding::Raw, TimestampEncoding::Delta][pick(&mut rng, 2)],
            data_compression: Compression::ALL[pick(&mut rng, 4)],
            tags: o.tags,
            byte_order: o.byte_order,
        };
        let mut enc = TextEncoder::new(case as i64, to).unwrap();
        let texts: Vec<Vec<String>> = data.iter().map(|d| d.2.iter().map(|v| format!("{v:?}")).collect()).collect();
        for ((id, ts, _, tags), texts) in data.iter().zip(&texts) {
            enc.start_metric_id(*id, ts.len()).unwrap();
            for i in 0..ts.len() {
                enc.add_point(ts[i], &texts[i], Some(&tags[i])).unwrap();
            }
            enc.end_metric().unwrap();
        }
        let blob = enc.finish().unwrap();
        let opened = TextBlob::open(&blob).unwrap_or_else(|e| panic!("text case {case} {to:?}: {e}"));
        exercise::text_opened(&opened).unwrap_or_else(|e| panic!("text case {case} {to:?}: {e}"));
        for ((id, ts, _, tags), texts) in data.iter().zip(&texts) {
            let m = opened.metric(*id).unwrap();
            assert_eq!(&m.timestamps().unwrap(), ts, "text case {case} {to:?}");
            assert_eq!(m.values().unwrap(), texts.iter().map(String::as_str).collect::<Vec<_>>());
            let want = to.tags.then(|| tags.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(m.tags().unwrap(), want, "text case {case} {to:?}");
        }
    }
}
