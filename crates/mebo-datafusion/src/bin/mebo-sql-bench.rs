//! `mebo-sql-bench [--windows N] [--rounds N] [--out DIR] [--cluster N]`
//!
//! The bench dataset (testdata/bench: 200 metrics × 250 points) written as
//! N windows, one file per window, as mebo blobs in two configurations and
//! as Parquet (zstd) with the same points; then the same scan + aggregate
//! queries over each through the same DataFusion session, in one run,
//! alternating formats round by round. Prints bytes on disk and, per query,
//! the best time and rows scanned per second for each. With `--cluster N`,
//! the same queries over the first mebo table on a local Ballista cluster of
//! N executors (`mebo-scheduler` / `mebo-executor` beside this binary), and
//! its speed-up over one process. Then the Parquet table copied by `COPY`
//! into blobs and into Parquet again: rows per second and bytes written.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{Float64Array, RecordBatch, TimestampMicrosecondArray, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::{ColumnConfig, Layout, TimestampEncoding, ValueEncoding};
use mebo_datafusion::cluster::{remote_context, LocalCluster};
use mebo_datafusion::{query, MeboContextExt};

const SOURCE: &str = "num-seed200x250-delta-none-raw-none-notags-le-v1.mebo";

struct Metric {
    id: u64,
    timestamps: Vec<i64>,
    values: Vec<f64>,
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum()
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let windows: usize = arg(&args, "--windows").map_or(400, |v| v.parse().expect("--windows N"));
    let rounds: usize = arg(&args, "--rounds").map_or(5, |v| v.parse().expect("--rounds N"));
    let cluster: usize = arg(&args, "--cluster").map_or(0, |v| v.parse().expect("--cluster N"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = arg(&args, "--out").map_or_else(|| root.join("engines/target/sql-bench"), PathBuf::from);

    let bytes = std::fs::read(root.join("testdata/bench/blobs").join(SOURCE)).expect("testdata/bench");
    let blob = NumericBlob::open(&bytes).unwrap();
    let metrics: Vec<Metric> =
        blob.metrics().map(|m| Metric { id: m.id(), timestamps: m.timestamps().unwrap(), values: m.values().unwrap() }).collect();
    let span = metrics.iter().flat_map(|m| m.timestamps.iter()).max().unwrap() - blob.start_time() + 1_000_000;
    let points_per_window: usize = metrics.iter().map(|m| m.timestamps.len()).sum();
    let rows = points_per_window * windows;

    let configs = [
        ("mebo delta+gorilla", NumericEncoderOptions { layout: Layout::V2, ..Default::default() }),
        (
            "mebo deltapacked+chimp",
            NumericEncoderOptions {
                layout: Layout::V2,
                config: ColumnConfig {
                    timestamp_encoding: TimestampEncoding::DeltaPacked,
                    value_encoding: ValueEncoding::Chimp,
                    ..Default::default()
                },
                ..Default::default()
            },
        ),
    ];
    let _ = std::fs::remove_dir_all(&out);
    let mut tables: Vec<(String, PathBuf)> = Vec::new();
    for (i, (name, options)) in configs.iter().enumerate() {
        let dir = out.join(format!("mebo{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for w in 0..windows {
            let shift = w as i64 * span;
            let mut encoder = NumericEncoder::new(blob.start_time() + shift, *options);
            for m in &metrics {
                let ts: Vec<i64> = m.timestamps.iter().map(|t| t + shift).collect();
                let vs: Vec<f64> = m.values.iter().map(|v| v + w as f64).collect();
                encoder.start_metric_id(m.id, ts.len()).unwrap();
                encoder.add_points::<&str>(&ts, &vs, None).unwrap();
                encoder.end_metric().unwrap();
            }
            std::fs::write(dir.join(format!("w{w:05}.mebo")), encoder.finish().unwrap()).unwrap();
        }
        tables.push((name.to_string(), dir));
    }
    let parquet_dir = out.join("parquet");
    std::fs::create_dir_all(&parquet_dir).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("metric_id", DataType::UInt64, false),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false),
        Field::new("value", DataType::Float64, false),
    ]));
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
    for w in 0..windows {
        let shift = w as i64 * span;
        let ids = UInt64Array::from(metrics.iter().flat_map(|m| std::iter::repeat_n(m.id, m.timestamps.len())).collect::<Vec<_>>());
        let ts =
            TimestampMicrosecondArray::from(metrics.iter().flat_map(|m| m.timestamps.iter().map(move |t| t + shift)).collect::<Vec<_>>());
        let vs = Float64Array::from(metrics.iter().flat_map(|m| m.values.iter().map(move |v| v + w as f64)).collect::<Vec<_>>());
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), Arc::new(ts.with_timezone("UTC")), Arc::new(vs)]).unwrap();
        let file = std::fs::File::create(parquet_dir.join(format!("w{w:05}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema.clone(), Some(props.clone())).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }
    tables.push(("parquet zstd".to_string(), parquet_dir));

    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    for (i, (_, dir)) in tables.iter().enumerate() {
        let name = format!("t{i}");
        if i + 1 == tables.len() {
            ctx.register_parquet(&name, dir.to_str().unwrap(), ParquetReadOptions::default()).await.unwrap();
        } else {
            ctx.register_mebo(&name, dir.to_str().unwrap()).await.unwrap();
        }
    }
    let one = metrics[17].id;
    let t0 = blob.start_time() + (windows as i64 / 4) * span;
    let t1 = blob.start_time() + (windows as i64 / 2) * span;
    let queries = [
        ("avg+max per metric", "SELECT metric_id, round(avg(value), 6) AS mean, max(value) AS top FROM {t} GROUP BY metric_id ORDER BY metric_id".to_string()),
        ("sum of one metric", format!("SELECT count(*) AS n, round(sum(value), 6) AS total FROM {{t}} WHERE metric_id = {one}")),
        (
            "count, a quarter of the time",
            format!("SELECT count(*) AS n, round(avg(value), 6) AS mean FROM {{t}} WHERE ts >= to_timestamp_micros({t0}) AND ts < to_timestamp_micros({t1})"),
        ),
    ];

    println!(
        "mebo-sql-bench: {windows} files × {points_per_window} points ({rows} rows), {} cores, best of {rounds}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("{:<24} {:>12} {:>10}", "format", "bytes", "B/point");
    for (name, dir) in &tables {
        let b = dir_bytes(dir);
        println!("{:<24} {:>12} {:>10.2}", name, b, b as f64 / rows as f64);
    }
    let mut one_process = Vec::new();
    for (label, sql) in &queries {
        let mut best = vec![f64::INFINITY; tables.len()];
        let mut answers = vec![String::new(); tables.len()];
        for _ in 0..rounds {
            for (i, _) in tables.iter().enumerate() {
                let sql = sql.replace("{t}", &format!("t{i}"));
                let start = Instant::now();
                let r = query(&ctx, &sql).await.unwrap();
                best[i] = best[i].min(start.elapsed().as_secs_f64());
                answers[i] = arrow::util::pretty::pretty_format_batches(&r.batches).unwrap().to_string();
            }
        }
        println!("\n{label}: {}", sql.replace("{t}", "t"));
        // The same points in every format: the same answer, printed alike
        // (float aggregates rounded: partitions sum in any order).
        for (i, answer) in answers.iter().enumerate().filter(|(_, a)| *a != &answers[0]) {
            println!("  {} answered differently:\n{answer}\n  from {}:\n{}", tables[i].0, tables[0].0, answers[0]);
        }
        println!("{:<24} {:>10} {:>14} {:>8}", "format", "ms", "rows/s", "vs parquet");
        let parquet = best[tables.len() - 1];
        for (i, (name, _)) in tables.iter().enumerate() {
            println!("{:<24} {:>10.1} {:>14.0} {:>8.2}x", name, best[i] * 1e3, rows as f64 / best[i], parquet / best[i]);
        }
        one_process.push((label, sql.replace("{t}", "t0"), best[0], answers[0].clone()));
    }

    // Writing: the Parquet table's points copied by the same session into
    // blobs (the default write options) and into Parquet zstd: the same
    // reader, so the difference is the writer.
    let parquet = format!("t{}", tables.len() - 1);
    let writes =
        [("parquet -> mebo", "STORED AS MEBO"), ("parquet -> parquet zstd", "STORED AS PARQUET OPTIONS ('format.compression' 'zstd(3)')")];
    let mut best = [f64::INFINITY; 2];
    let mut written = [0u64; 2];
    for round in 0..rounds {
        for (i, (_, stored)) in writes.iter().enumerate() {
            let dir = out.join(format!("copy{i}-{round}"));
            let sql = format!("COPY (SELECT metric_id, ts, value FROM {parquet}) TO '{}/' {stored}", dir.display());
            let start = Instant::now();
            let r = query(&ctx, &sql).await.unwrap();
            best[i] = best[i].min(start.elapsed().as_secs_f64());
            let count = r.batches[0].column(0).as_any().downcast_ref::<UInt64Array>().map(|c| c.value(0));
            assert_eq!(count, Some(rows as u64), "{sql}");
            written[i] = dir_bytes(&dir);
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    println!(
        "
COPY (SELECT metric_id, ts, value FROM parquet) TO 'dir/' ..."
    );
    println!("{:<24} {:>10} {:>14} {:>12} {:>8}", "written as", "ms", "rows/s", "bytes", "vs parquet");
    for (i, (name, _)) in writes.iter().enumerate() {
        println!("{:<24} {:>10.1} {:>14.0} {:>12} {:>8.2}x", name, best[i] * 1e3, rows as f64 / best[i], written[i], best[1] / best[i]);
    }

    if cluster > 0 {
        let local = LocalCluster::start(cluster).expect("a local cluster (build mebo-scheduler and mebo-executor)");
        let remote = remote_context(&local.url()).await.unwrap();
        remote.register_mebo("t0", tables[0].1.to_str().unwrap()).await.unwrap();
        println!("\n{} on a local Ballista cluster of {cluster} executors (same machine), best of {rounds}", tables[0].0);
        println!("{:<32} {:>10} {:>14} {:>10}", "query", "ms", "rows/s", "speed-up");
        for (label, sql, alone, answer) in &one_process {
            let mut best = f64::INFINITY;
            for _ in 0..rounds {
                let start = Instant::now();
                let r = query(&remote, sql).await.unwrap();
                best = best.min(start.elapsed().as_secs_f64());
                let printed = arrow::util::pretty::pretty_format_batches(&r.batches).unwrap().to_string();
                if &printed != answer {
                    println!("  the cluster answered {label} differently:\n{printed}\n  from one process:\n{answer}");
                }
            }
            println!("{:<32} {:>10.1} {:>14.0} {:>9.2}x", label, best * 1e3, rows as f64 / best, alone / best);
        }
    }
}
