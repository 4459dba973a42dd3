//! Tables in a bucket: a real S3 server (s3s-fs over a directory, the
//! `mebo-test-s3` process) on 127.0.0.1, reached through object_store's
//! AmazonS3 client and by `mebo-sql` from the AWS variables (on one machine
//! and on a Ballista cluster), answers as the plain loop over the same blobs.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use arrow::array::AsArray;
use arrow::datatypes::{Float64Type, Int64Type, UInt64Type};
use common::{copy_a_million_points, files, fixture, numeric_points, per_host_dir, per_metric, same_points, wide_blob, BASE, HOUR};
use datafusion::prelude::SessionContext;
use mebo_datafusion::{query, scan_counter, MeboContextExt};
use object_store::aws::AmazonS3Builder;

const KEY: &str = "MEBOTESTKEY";
const SECRET: &str = "mebo-test-secret";

/// The S3 server, a process of its own, killed when the test ends.
struct Server {
    child: Child,
    endpoint: String,
    /// The directory it serves, one subdirectory a bucket.
    root: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Serve a directory (one subdirectory a bucket) over S3 on 127.0.0.1 with
/// `mebo-test-s3`, built beside this test (`cargo build -p mebo-test-s3`).
fn serve(root: &std::path::Path) -> Server {
    let exe = std::env::current_exe().unwrap();
    let server = exe.parent().and_then(|deps| deps.parent()).unwrap().join("mebo-test-s3");
    assert!(server.exists(), "{} is missing: build it first (cargo build --profile engine -p mebo-test-s3)", server.display());
    let mut child = Command::new(server).args([root.to_str().unwrap(), KEY, SECRET]).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    Server { child, endpoint: line.trim().to_owned(), root: root.to_owned() }
}

/// `mebo-sql` over the bucket's `data/` as table `m`, configured by the AWS
/// variables, with `engine`'s flags: its CSV output.
fn mebo_sql(server: &Server, engine: &[&str], sql: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
        .env("AWS_ENDPOINT", server.endpoint.clone())
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .args(["--table", "m=s3://blobs/data/", "--format", "csv"])
        .args(engine)
        .arg(sql)
        .output()
        .unwrap();
    assert!(out.status.success(), "{engine:?} {sql}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of the per-metric query's CSV: a header and a row a metric.
fn expected_lines(points: &[common::Point]) -> usize {
    per_metric(points).len() + 1
}

fn bucket_with_fixture() -> Server {
    let f = fixture();
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("s3-{}", std::process::id()));
    let prefix = root.join("blobs").join("data");
    std::fs::create_dir_all(&prefix).unwrap();
    for entry in std::fs::read_dir(&f.numeric_dir).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, prefix.join(path.file_name().unwrap())).unwrap();
    }
    serve(&root)
}

#[tokio::test]
async fn a_bucket_answers_as_the_directory() {
    let f = fixture();
    let server = bucket_with_fixture();
    let store = AmazonS3Builder::new()
        .with_bucket_name("blobs")
        .with_endpoint(server.endpoint.clone())
        .with_allow_http(true)
        .with_region("us-east-1")
        .with_access_key_id(KEY)
        .with_secret_access_key(SECRET)
        .build()
        .unwrap();
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    ctx.register_object_store(&url::Url::parse("s3://blobs").unwrap(), Arc::new(store));
    ctx.register_mebo("m", "s3://blobs/data/").await.unwrap();

    let r = query(&ctx, "SELECT metric_id, count(*), min(value), max(value), sum(value) FROM m GROUP BY metric_id ORDER BY metric_id")
        .await
        .unwrap();
    let expected = per_metric(&f.numeric);
    let col_u = |c: usize| r.batches.iter().flat_map(|b| b.column(c).as_primitive::<UInt64Type>().values().to_vec()).collect::<Vec<_>>();
    let col_i = |c: usize| r.batches.iter().flat_map(|b| b.column(c).as_primitive::<Int64Type>().values().to_vec()).collect::<Vec<_>>();
    let col_f = |c: usize| r.batches.iter().flat_map(|b| b.column(c).as_primitive::<Float64Type>().values().to_vec()).collect::<Vec<_>>();
    assert_eq!(col_u(0), expected.iter().map(|e| e.0).collect::<Vec<_>>());
    assert_eq!(col_i(1), expected.iter().map(|e| e.1).collect::<Vec<_>>());
    assert_eq!(col_f(2), expected.iter().map(|e| e.2).collect::<Vec<_>>());
    assert_eq!(col_f(3), expected.iter().map(|e| e.3).collect::<Vec<_>>());
    assert_eq!(col_f(4), expected.iter().map(|e| e.4).collect::<Vec<_>>());

    // The command, configured by the usual AWS variables.
    let n = f.numeric.iter().filter(|p| p.id == mebo::metric_id("net.rx")).count();
    assert_eq!(mebo_sql(&server, &[], "SELECT count(*) AS n FROM m WHERE metric_id = mebo_id('net.rx')"), format!("n\n{n}\n"));

    // On a Ballista cluster (a scheduler and two executors, processes of
    // their own, given the same variables): the same answers, and a `COPY`
    // into the bucket written by the executors.
    let sql = "SELECT metric_id, count(*), min(value), max(value), sum(value) FROM m GROUP BY 1 ORDER BY 1; \
               SELECT count(*), max(ts) FROM m WHERE metric_id = mebo_id('net.rx')";
    let local = mebo_sql(&server, &[], sql);
    assert_eq!(local.lines().count(), expected_lines(&f.numeric) + 2, "{local}");
    assert_eq!(mebo_sql(&server, &["--cluster", "2"], sql), local);
    let copy = "COPY (SELECT * FROM m WHERE metric_id = mebo_id('net.rx')) TO 's3://blobs/cluster-copy/' STORED AS MEBO";
    mebo_sql(&server, &["--cluster", "2"], copy);
    let written = files(&server.root.join("blobs").join("cluster-copy"));
    let rx: Vec<_> = numeric_points(files(&f.numeric_dir).values()).into_iter().filter(|p| p.0 == mebo::metric_id("net.rx")).collect();
    same_points(numeric_points(written.values()), rx);

    // Written back into the bucket: the server's files are the blobs.
    query(&ctx, "COPY (SELECT * FROM m WHERE metric_id = mebo_id('net.rx')) TO 's3://blobs/copy/' STORED AS MEBO").await.unwrap();
    let written = files(&server.root.join("blobs").join("copy"));
    assert!(!written.is_empty());
    let expected: Vec<_> =
        numeric_points(files(&f.numeric_dir).values()).into_iter().filter(|p| p.0 == mebo::metric_id("net.rx")).collect();
    same_points(numeric_points(written.values()), expected);

    // Partitioned in the bucket, the prefixes read back as a column, and a
    // filter on it lists and opens that prefix's blobs alone.
    query(&ctx, "COPY (SELECT *, to_char(ts, '%Y-%m-%d') AS day FROM m) TO 's3://blobs/by-day/' STORED AS MEBO PARTITIONED BY (day)")
        .await
        .unwrap();
    let day = files(&server.root.join("blobs").join("by-day").join("day=2024-01-02"));
    ctx.register_mebo("by_day", "s3://blobs/by-day/").await.unwrap();
    let r = query(&ctx, "SELECT count(*), sum(value) FROM by_day WHERE day = '2024-01-02'").await.unwrap();
    let expected: Vec<_> = f.numeric.iter().filter(|p| (p.ts - BASE).div_euclid(24 * HOUR) == 1).collect();
    assert_eq!(r.batches[0].column(0).as_primitive::<Int64Type>().value(0), expected.len() as i64);
    assert_eq!(r.batches[0].column(1).as_primitive::<Float64Type>().value(0), expected.iter().map(|p| p.value).sum::<f64>());
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), day.len());
    let sorted = |mut ts: Vec<i64>| {
        ts.sort();
        ts
    };
    same_points(sorted(numeric_points(day.values()).iter().map(|p| p.1).collect()), sorted(expected.iter().map(|p| p.ts).collect()));

    // A stream of blobs in the bucket, 16 MB: uploaded in parts as it is
    // written, one object, read back by its name.
    let sql = copy_a_million_points("CAST(v AS DOUBLE)", "s3://blobs/streams/big.mbs");
    query(&ctx, &sql).await.unwrap();
    let stream = std::fs::read(server.root.join("blobs").join("streams").join("big.mbs")).unwrap();
    assert!(stream.len() > 16_000_000, "{} bytes", stream.len());
    let frames: Vec<&[u8]> = mebo::stream::Frames::new(&stream).unwrap().collect::<mebo::Result<_>>().unwrap();
    assert_eq!(frames.len(), 10);
    ctx.register_mebo("big", "s3://blobs/streams/big.mbs").await.unwrap();
    let r = query(&ctx, "SELECT count(*), sum(value), min(ts), max(ts) FROM big").await.unwrap();
    let b = &r.batches[0];
    assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 1_000_000);
    assert_eq!(b.column(1).as_primitive::<Float64Type>().value(0), 500_000_500_000.0);
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), 10);
    // Counted under a metric filter: each frame's head read by a range
    // request, no blob opened, a small part of the object taken.
    let r = query(&ctx, "SELECT count(*) FROM big WHERE metric_id = mebo_id('one')").await.unwrap();
    assert_eq!(r.batches[0].column(0).as_primitive::<Int64Type>().value(0), 1_000_000);
    assert_eq!((scan_counter(&r.plan, "blobs_opened"), scan_counter(&r.plan, "rows_from_index")), (0, 1_000_000));
    assert!(scan_counter(&r.plan, "bytes_scanned") < stream.len() / 8, "{} of {}", scan_counter(&r.plan, "bytes_scanned"), stream.len());

    // A blob a host: a metric's query fetches the other hosts' heads alone.
    let hosts = per_host_dir("s3-hosts", 4);
    std::fs::create_dir_all(server.root.join("blobs").join("hosts")).unwrap();
    for (path, bytes) in files(&hosts) {
        std::fs::write(server.root.join("blobs").join("hosts").join(path.file_name().unwrap()), bytes).unwrap();
    }
    ctx.register_mebo("hosts", "s3://blobs/hosts/").await.unwrap();
    let r = query(&ctx, "SELECT count(*), max(value) FROM hosts WHERE metric_id = mebo_id('host2.m1')").await.unwrap();
    assert_eq!(r.batches[0].column(0).as_primitive::<Int64Type>().value(0), 1000);
    assert_eq!(r.batches[0].column(1).as_primitive::<Float64Type>().value(0), 21_999.0);
    assert_eq!((scan_counter(&r.plan, "files_pruned"), scan_counter(&r.plan, "blobs_opened")), (3, 1));
    let r = query(&ctx, "SELECT metric_id, count(*) FROM hosts GROUP BY 1").await.unwrap();
    assert_eq!(r.batches.iter().map(|b| b.num_rows()).sum::<usize>(), 12);
    assert!(r.batches.iter().all(|b| b.column(1).as_primitive::<Int64Type>().values().iter().all(|&n| n == 1000)));
    assert_eq!((scan_counter(&r.plan, "blobs_opened"), scan_counter(&r.plan, "rows_from_index")), (0, 12_000));

    // A blob of a thousand metrics: one metric's query fetches its head,
    // then that metric's columns by range requests.
    let wide = wide_blob(1000, "delta-none-gorilla-none", mebo::Layout::V2);
    std::fs::create_dir_all(server.root.join("blobs").join("wide")).unwrap();
    std::fs::write(server.root.join("blobs").join("wide").join("wide.mebo"), &wide).unwrap();
    ctx.register_mebo("wide", "s3://blobs/wide/").await.unwrap();
    let r = query(&ctx, "SELECT count(*), min(value), max(value) FROM wide WHERE metric_id = mebo_id('m0700')").await.unwrap();
    let b = &r.batches[0];
    assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 1000);
    let (min, max) = (b.column(1).as_primitive::<Float64Type>().value(0), b.column(2).as_primitive::<Float64Type>().value(0));
    assert_eq!((min, max), (700_000.0 * 0.25, 700_999.0 * 0.25));
    let skipped = scan_counter(&r.plan, "bytes_skipped");
    assert!(skipped > wide.len() - 64 * 1024, "{skipped} of {}", wide.len());

    // A stream of the fixture's 300 small blobs cut into seven byte ranges:
    // each range finds its first frame reading the lengths through, and
    // every frame is opened once.
    let blobs: Vec<Vec<u8>> = files(&f.numeric_dir).into_values().collect();
    let small = mebo::stream::write_stream(blobs.iter().map(Vec::as_slice)).unwrap();
    std::fs::write(server.root.join("blobs").join("streams").join("small.mbs"), &small).unwrap();
    query(&ctx, "SET datafusion.optimizer.repartition_file_min_size = 0").await.unwrap();
    query(&ctx, "SET datafusion.execution.target_partitions = 7").await.unwrap();
    ctx.register_mebo("small", "s3://blobs/streams/small.mbs").await.unwrap();
    let r = query(&ctx, "SELECT metric_id, count(*), min(value), max(value), sum(value) FROM small GROUP BY 1 ORDER BY 1").await.unwrap();
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), blobs.len());
    let plan = datafusion::physical_plan::displayable(r.plan.as_ref()).indent(true).to_string();
    assert!(plan.contains("file_groups={7 groups"), "{plan}");
    let sums = r.batches.iter().flat_map(|b| b.column(4).as_primitive::<Float64Type>().values().to_vec()).collect::<Vec<_>>();
    assert_eq!(sums, per_metric(&f.numeric).iter().map(|e| e.4).collect::<Vec<_>>());

    // A COPY into the bucket failing at its 900,000th row: the blobs it put
    // before are deleted.
    let late = copy_a_million_points("CASE WHEN v = 900000 THEN NULL ELSE CAST(v AS DOUBLE) END", "s3://blobs/late/");
    let e = query(&ctx, &late).await.err().expect("a NULL value fails the copy");
    assert!(e.to_string().contains("null"), "{e}");
    let late = server.root.join("blobs").join("late");
    assert!(!late.exists() || files(&late).is_empty(), "{:?}", files(&late).keys());
}
