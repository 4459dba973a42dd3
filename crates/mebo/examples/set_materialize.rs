//! Native timing of blob-set materialize on the shapes of `bench/sets.mjs`
//! (a benchmark, not a test: it prints its figures).
//!
//!   cargo run -p mebo --release --example set_materialize

use std::time::Instant;

use mebo::blob_set::NumericBlobSet;
use mebo::numeric::{NumericEncoder, NumericEncoderOptions};

fn make(blobs: usize, metrics: usize, points: usize, distinct: bool) -> Vec<Vec<u8>> {
    (0..blobs)
        .map(|b| {
            let t0 = 1_700_000_000_000_000i64 + b as i64 * 60_000_000;
            let mut enc = NumericEncoder::new(t0, NumericEncoderOptions::default());
            for m in 0..metrics {
                let name = if distinct { format!("b{b}.m{m}") } else { format!("m{m}") };
                enc.start_metric_name(&name, points).unwrap();
                let ts: Vec<i64> = (0..points as i64).map(|p| t0 + p * 1_000_000).collect();
                let vs: Vec<f64> = (0..points).map(|p| ((b * 31 + m * 7 + p) % 1000) as f64 / 10.0).collect();
                enc.add_points::<&str>(&ts, &vs, None).unwrap();
                enc.end_metric().unwrap();
            }
            enc.finish().unwrap()
        })
        .collect()
}

fn main() {
    for (name, blobs, metrics) in [("tiny", 20_000, 1), ("wide", 2_000, 100)] {
        for distinct in [true, false] {
            let data = make(blobs, metrics, 10, distinct);
            let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            let mut best = (f64::MAX, f64::MAX);
            for _ in 0..3 {
                let t0 = Instant::now();
                let set = NumericBlobSet::open(&refs).unwrap();
                let t1 = Instant::now();
                let c = set.materialize().unwrap();
                let t2 = Instant::now();
                assert_eq!(c.values.len(), blobs * metrics * 10);
                best = (best.0.min((t1 - t0).as_secs_f64() * 1e3), best.1.min((t2 - t1).as_secs_f64() * 1e3));
            }
            println!(
                "{name} {blobs}x{metrics} {} ids: open {:.1} ms, materialize {:.1} ms",
                if distinct { "distinct" } else { "shared" },
                best.0,
                best.1
            );
        }
    }
}
