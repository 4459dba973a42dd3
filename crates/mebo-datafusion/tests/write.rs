//! Writing blobs with SQL: `COPY … TO … STORED AS MEBO` and `INSERT INTO`
//! a table of blobs. Every file written is read back with the core's own
//! readers and compared point for point (floats by bits) with what was
//! written; every refused statement writes nothing.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Float32Array, Float64Array, RecordBatch, StringViewArray, TimestampNanosecondArray};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, TimeUnit, UInt64Type};
use common::{files, fixture, numeric_points, same_points, BASE, HOUR, NAMES};
use datafusion::datasource::MemTable;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{ByteOrder, Layout};
use mebo_datafusion::{query, query_all, scan_counter, FileError, MeboContextExt};

async fn context() -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    ctx.enable_mebo().unwrap();
    let f = fixture();
    ctx.register_mebo("m", f.numeric_dir.to_str().unwrap()).await.unwrap();
    let ddl = format!("CREATE EXTERNAL TABLE t STORED AS MEBO LOCATION '{}/' OPTIONS ('kind' 'text')", f.text_dir.display());
    query_all(&ctx, &ddl).await.unwrap();
    ctx
}

/// An empty directory of this test's own.
fn out_dir(name: &str) -> PathBuf {
    common::write_dir(&format!("write-{name}"))
}

fn copied(result: &[RecordBatch]) -> u64 {
    result[0].column(0).as_primitive::<UInt64Type>().value(0)
}

#[tokio::test]
async fn copy_writes_a_table_back_point_for_point() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("copy");
    let r = query(&ctx, &format!("COPY (SELECT * FROM m) TO '{}/' STORED AS MEBO", dir.display())).await.unwrap();
    assert_eq!(copied(&r.batches), f.numeric.len() as u64);

    let written = files(&dir);
    assert!(written.keys().all(|p| p.extension().is_some_and(|e| e == "mebo")), "{:?}", written.keys());
    for bytes in written.values() {
        let blob = NumericBlob::open(bytes).unwrap();
        // The default: the reference's columns in the v2 layout.
        assert_eq!(blob.options().config.to_string(), "delta-none-gorilla-none");
        assert_eq!(blob.options().layout, Layout::V2);
    }
    // The fixture's tags are on a fifth of its blobs; a written blob with a
    // tag stores the empty tag for the others' points, as the format does.
    same_points(numeric_points(written.values()), numeric_points(files(&f.numeric_dir).values()));

    // And the copy is a table with the same answers.
    ctx.register_mebo("copy", dir.to_str().unwrap()).await.unwrap();
    let per_metric = |table: &str| {
        format!("SELECT metric_id, count(*) AS n, sum(value) AS s, min(ts) AS lo, max(ts) AS hi FROM {table} GROUP BY 1 ORDER BY 1")
    };
    let a = query(&ctx, &per_metric("m")).await.unwrap();
    let b = query(&ctx, &per_metric("copy")).await.unwrap();
    assert_eq!(a.batches.iter().map(|b| b.num_rows()).sum::<usize>(), NAMES.len());
    assert_eq!(
        arrow::util::pretty::pretty_format_batches(&a.batches).unwrap().to_string(),
        arrow::util::pretty::pretty_format_batches(&b.batches).unwrap().to_string()
    );
}

#[tokio::test]
async fn copy_options_choose_the_columns_and_the_size_of_a_blob() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("options");
    let sql = format!(
        "COPY (SELECT metric_id, ts, value FROM m) TO '{}/' STORED AS MEBO \
         OPTIONS ('config' 'delta-zstd-chimp-lz4', 'layout' 'v1', 'big_endian' 'true', 'max_points_per_blob' '700')",
        dir.display()
    );
    query(&ctx, &sql).await.unwrap();
    let written = files(&dir);
    let mut total = 0;
    for bytes in written.values() {
        let blob = NumericBlob::open(bytes).unwrap();
        let options = blob.options();
        assert_eq!(options.config.to_string(), "delta-zstd-chimp-lz4");
        assert_eq!((options.layout, options.byte_order), (Layout::V1, ByteOrder::Big));
        assert!(blob.total_points() <= 700, "{}", blob.total_points());
        total += blob.total_points();
    }
    assert_eq!(total, f.numeric.len());
    // Every blob but the last of each file the engine opened is full.
    assert!(written.len() >= f.numeric.len().div_ceil(700), "{} files", written.len());
    let expected: Vec<_> = {
        let mut e: Vec<_> = f.numeric.iter().map(|p| (p.id, p.ts, p.value.to_bits(), String::new())).collect();
        e.sort();
        e
    };
    same_points(numeric_points(written.values()), expected);

    // Another format's COPY keeps its own options beside mebo.
    let csv = dir.join("points.csv");
    query(&ctx, &format!("COPY (SELECT 1 AS a) TO '{}' STORED AS CSV OPTIONS ('format.delimiter' ';')", csv.display())).await.unwrap();
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "a\n1\n");
}

#[test]
fn the_command_writes_blobs_and_says_how_many_points() {
    let f = fixture();
    let dir = out_dir("command");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
        .args(["--table", &format!("m={}", f.numeric_dir.display()), "--format", "csv"])
        .arg(format!("COPY (SELECT * FROM m WHERE metric_id = mebo_id('{}')) TO '{}/' STORED AS MEBO", NAMES[1], dir.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let n = f.numeric.iter().filter(|p| p.id == mebo::metric_id(NAMES[1])).count();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("count\n{n}\n"));
    assert_eq!(numeric_points(files(&dir).values()).len(), n);
}

#[tokio::test]
async fn a_metric_past_what_a_blob_holds_rolls_into_the_next() {
    let ctx = context().await;
    let dir = out_dir("roll");
    // v1 offsets are 16-bit: a delta + Gorilla metric holds at most 7,281 points.
    let cap = mebo::numeric::NumericEncoderOptions { layout: Layout::V1, ..Default::default() }.max_points_per_metric();
    let sql = format!(
        "COPY (SELECT 'one' AS metric, to_timestamp_micros(v) AS ts, CAST(v AS DOUBLE) AS value FROM generate_series(1, 20000) AS t(v)) \
         TO '{}/' STORED AS MEBO OPTIONS ('layout' 'v1')",
        dir.display()
    );
    query(&ctx, &sql).await.unwrap();
    let mut timestamps = Vec::new();
    let written = files(&dir);
    for bytes in written.values() {
        let blob = NumericBlob::open(bytes).unwrap();
        let one = blob.metric_by_name("one").unwrap();
        assert!(one.len() <= cap, "{} points, at most {cap}", one.len());
        let (ts, values) = (one.timestamps().unwrap(), one.values().unwrap());
        assert!(ts.iter().zip(&values).all(|(&t, &v)| v == t as f64));
        timestamps.extend(ts);
    }
    assert!(written.len() >= 20_000usize.div_ceil(cap), "{} files", written.len());
    timestamps.sort();
    assert_eq!(timestamps, (1..=20_000).collect::<Vec<i64>>());
}

#[tokio::test]
async fn text_rows_become_text_blobs_with_their_tags() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("text");
    let sql = format!("COPY (SELECT * FROM t) TO '{}/' STORED AS MEBO OPTIONS ('config' 'raw-s2')", dir.display());
    assert_eq!(copied(&query(&ctx, &sql).await.unwrap().batches), f.text.len() as u64);
    let mut points = Vec::new();
    for bytes in files(&dir).values() {
        let blob = TextBlob::open(bytes).unwrap();
        for metric in blob.metrics() {
            for (ts, value, tag) in metric.points().unwrap() {
                points.push((metric.id(), ts, value.to_owned(), tag.unwrap_or_default().to_owned()));
            }
        }
    }
    points.sort();
    let mut expected: Vec<_> = f.text.iter().map(|p| (p.id, p.ts, p.value.clone(), p.tag.clone().unwrap_or_default())).collect();
    expected.sort();
    same_points(points, expected);
}

/// Rows from outside mebo: names as string views, nanosecond timestamps,
/// Float32 values, the extremes of both.
fn foreign_rows() -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("metric", DataType::Utf8View, false),
        Field::new("ts", DataType::Timestamp(TimeUnit::Nanosecond, None), false),
        Field::new("value", DataType::Float32, false),
    ]));
    let names = StringViewArray::from(vec!["edge.a", "edge.a", "edge.a", "edge.b", "edge.b"]);
    let ts = TimestampNanosecondArray::from(vec![i64::MIN / 1000 * 1000, -1_000, 0, i64::MAX / 1000 * 1000, 1_704_067_200_000_000_000]);
    let values = Float32Array::from(vec![f32::NAN, -0.0, f32::MIN_POSITIVE, f32::INFINITY, 1.5]);
    let columns: Vec<ArrayRef> = vec![Arc::new(names), Arc::new(ts), Arc::new(values)];
    RecordBatch::try_new(schema, columns).unwrap()
}

#[tokio::test]
async fn rows_of_other_types_convert_without_loss_to_one_file() {
    let ctx = context().await;
    let rows = foreign_rows();
    ctx.register_table("foreign_rows", Arc::new(MemTable::try_new(rows.schema(), vec![vec![rows.clone()]]).unwrap())).unwrap();
    let file = out_dir("one-file").join("edge.mebo");
    query(&ctx, &format!("COPY foreign_rows TO '{}' STORED AS MEBO", file.display())).await.unwrap();

    let bytes = std::fs::read(&file).unwrap();
    let blob = NumericBlob::open(&bytes).unwrap();
    let a = blob.metric_by_name("edge.a").unwrap();
    assert_eq!(a.timestamps().unwrap(), vec![i64::MIN / 1000, -1, 0]);
    let bits: Vec<u64> = a.values().unwrap().iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, [f64::from(f32::NAN).to_bits(), (-0.0f64).to_bits(), f64::from(f32::MIN_POSITIVE).to_bits()]);
    let b = blob.metric_by_name("edge.b").unwrap();
    assert_eq!(b.timestamps().unwrap(), vec![i64::MAX / 1000, 1_704_067_200_000_000]);
    assert_eq!(b.values().unwrap(), vec![f64::INFINITY, 1.5]);
}

/// The points of `m`, one metric's rows with its name, the others' without.
fn some_named() -> String {
    let name = NAMES[0];
    format!("SELECT metric_id, CASE WHEN metric_id = mebo_id('{name}') THEN '{name}' END AS metric, ts, value, tag FROM m")
}

#[tokio::test]
async fn rows_with_and_without_names_go_to_blobs_of_their_own() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("named");
    query(&ctx, &format!("COPY ({}) TO '{}/' STORED AS MEBO", some_named(), dir.display())).await.unwrap();
    let written = files(&dir);
    // A blob is written by name or by id, never both: the named metric's
    // blobs hold it alone, the others never hold it.
    let cpu = mebo::metric_id(NAMES[0]);
    let (mut named, mut unnamed) = (0, 0);
    for bytes in written.values() {
        let blob = NumericBlob::open(bytes).unwrap();
        if blob.metric_ids() == [cpu] {
            named += 1;
        } else {
            assert!(!blob.metric_ids().contains(&cpu));
            unnamed += 1;
        }
    }
    assert!(named > 0 && unnamed > 0, "{named} named, {unnamed} not");
    same_points(numeric_points(written.values()), numeric_points(files(&f.numeric_dir).values()));
}

#[tokio::test]
async fn insert_into_a_table_of_blobs_adds_files() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("insert");
    query_all(&ctx, &format!("CREATE EXTERNAL TABLE w STORED AS MEBO LOCATION '{}/' OPTIONS ('kind' 'numeric')", dir.display()))
        .await
        .unwrap();
    let cpu = mebo::metric_id(NAMES[0]);
    let expected = f.numeric.iter().filter(|p| p.id == cpu).count() as i64;
    for round in 1..=2 {
        query(&ctx, &format!("INSERT INTO w SELECT * FROM m WHERE metric_id = mebo_id('{}')", NAMES[0])).await.unwrap();
        let r = query(&ctx, "SELECT count(*), count(DISTINCT metric_id) FROM w").await.unwrap();
        assert_eq!(r.batches[0].column(0).as_primitive::<arrow::datatypes::Int64Type>().value(0), expected * round);
    }
    // Values given in SQL, the id from the name.
    query(&ctx, "INSERT INTO w (metric_id, metric, ts, value) VALUES (mebo_id('x.y'), 'x.y', TIMESTAMP '2024-02-01T00:00:00Z', 2.5)")
        .await
        .unwrap();
    let r = query(&ctx, "SELECT value FROM w WHERE metric_id = mebo_id('x.y')").await.unwrap();
    assert_eq!(r.batches[0].column(0).as_primitive::<arrow::datatypes::Float64Type>().values().to_vec(), vec![2.5]);

    let overwrite = query(&ctx, "INSERT OVERWRITE w SELECT * FROM m").await.err().unwrap().to_string();
    assert!(overwrite.contains("takes new files"), "{overwrite}");
}

/// The day a point's partition names (`2024-01-DD`: the fixture spans
/// 13 days of January), computed without SQL.
fn day_of(ts: i64) -> String {
    format!("2024-01-{:02}", 1 + (ts - BASE).div_euclid(24 * HOUR))
}

/// The value of the `column=value` directory a file is in.
fn partition_of(path: &Path, column: &str) -> String {
    let dir = path.parent().and_then(Path::file_name).and_then(|d| d.to_str()).unwrap_or_default();
    dir.strip_prefix(&format!("{column}=")).unwrap_or_else(|| panic!("{} is not under {column}=", path.display())).to_owned()
}

/// Rows of each group, as SQL gives `SELECT <key>, count(*) … ORDER BY 1`.
fn counted(batches: &[RecordBatch]) -> Vec<(String, i64)> {
    let mut rows = Vec::new();
    for batch in batches {
        let keys = arrow::compute::cast(batch.column(0), &DataType::Utf8).unwrap();
        let counts = batch.column(1).as_primitive::<Int64Type>();
        for i in 0..batch.num_rows() {
            rows.push((keys.as_string::<i32>().value(i).to_owned(), counts.value(i)));
        }
    }
    rows
}

#[tokio::test]
async fn copy_partitioned_by_day_writes_a_directory_per_day_read_back_as_a_column() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("by-day");
    let sql = format!("COPY (SELECT *, to_char(ts, '%Y-%m-%d') AS day FROM m) TO '{}/' STORED AS MEBO PARTITIONED BY (day)", dir.display());
    let r = query(&ctx, &sql).await.unwrap();
    assert_eq!(copied(&r.batches), f.numeric.len() as u64);

    // Each blob holds its directory's day alone, and together every point.
    let written = files(&dir);
    let mut per_day: BTreeMap<String, i64> = BTreeMap::new();
    for p in &f.numeric {
        *per_day.entry(day_of(p.ts)).or_default() += 1;
    }
    let mut files_per_day: BTreeMap<String, usize> = BTreeMap::new();
    for (path, bytes) in &written {
        let day = partition_of(path, "day");
        assert!(numeric_points([bytes]).iter().all(|p| day_of(p.1) == day), "{} holds another day", path.display());
        *files_per_day.entry(day).or_default() += 1;
    }
    assert_eq!(files_per_day.keys().collect::<Vec<_>>(), per_day.keys().collect::<Vec<_>>());
    same_points(numeric_points(written.values()), numeric_points(files(&f.numeric_dir).values()));

    // Registered, the directories are a column, found without being named.
    ctx.register_mebo("by_day", dir.to_str().unwrap()).await.unwrap();
    let r = query(&ctx, "SELECT day, count(*) FROM by_day GROUP BY day ORDER BY day").await.unwrap();
    assert_eq!(counted(&r.batches), per_day.clone().into_iter().collect::<Vec<_>>());

    // A filter on the day opens that directory's blobs alone.
    let (day, n) = per_day.iter().nth(4).unwrap();
    let r = query(&ctx, &format!("SELECT count(value) FROM by_day WHERE day = '{day}'")).await.unwrap();
    assert_eq!(r.batches[0].column(0).as_primitive::<Int64Type>().value(0), *n);
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), files_per_day[day]);

    // The same with the columns named in SQL, and a day added by INSERT.
    let ddl = format!("CREATE EXTERNAL TABLE days STORED AS MEBO PARTITIONED BY (day) LOCATION '{}/'", dir.display());
    query_all(&ctx, &ddl).await.unwrap();
    query(&ctx, "INSERT INTO days VALUES (mebo_id('x.y'), 'x.y', TIMESTAMP '2024-02-01T00:00:00Z', 2.5, NULL, '2024-02-01')")
        .await
        .unwrap();
    assert_eq!(files(&dir.join("day=2024-02-01")).len(), 1);
    let r = query(&ctx, "SELECT day, count(*) FROM days WHERE day >= '2024-01-13' GROUP BY day ORDER BY day").await.unwrap();
    let last = per_day.iter().filter(|(d, _)| d.as_str() >= "2024-01-13").map(|(d, n)| (d.clone(), *n));
    assert_eq!(counted(&r.batches), last.chain([("2024-02-01".to_owned(), 1)]).collect::<Vec<_>>());
}

#[tokio::test]
async fn text_rows_partitioned_by_two_columns_keep_their_tags() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("text-by-metric");
    let sql = format!(
        "COPY (SELECT *, metric AS series, to_char(ts, '%Y-%m-%d') AS day FROM t) TO '{}/' STORED AS MEBO PARTITIONED BY (series, day)",
        dir.display()
    );
    query(&ctx, &sql).await.unwrap();
    let written = files(&dir);
    let mut got = Vec::new();
    for (path, bytes) in &written {
        let series = path.parent().and_then(Path::parent).map(|p| partition_of(&p.join("x"), "series")).unwrap();
        let blob = TextBlob::open(bytes).unwrap();
        for metric in blob.metrics() {
            assert_eq!(metric.id(), mebo::metric_id(&series), "{} holds another metric", path.display());
            for (ts, value, tag) in metric.points().unwrap() {
                assert_eq!(day_of(ts), partition_of(path, "day"));
                got.push((metric.id(), ts, value.to_owned(), tag.map(str::to_owned)));
            }
        }
    }
    got.sort();
    let mut expected: Vec<_> = f.text.iter().map(|p| (p.id, p.ts, p.value.clone(), p.tag.clone())).collect();
    expected.sort();
    // A blob with tags stores the empty tag for points without one.
    let has_tags = |p: &(u64, i64, String, Option<String>)| (p.0, p.1, p.2.clone(), p.3.clone().filter(|t| !t.is_empty()));
    same_points(got.iter().map(has_tags).collect(), expected.iter().map(has_tags).collect());

    ctx.register_mebo("text_parts", dir.to_str().unwrap()).await.unwrap();
    let r = query(&ctx, "SELECT series, count(*) FROM text_parts WHERE day = '2024-01-01' GROUP BY series ORDER BY series").await.unwrap();
    let mut per_series: BTreeMap<String, i64> = BTreeMap::new();
    for p in f.text.iter().filter(|p| day_of(p.ts) == "2024-01-01") {
        let name = ["log.app", "log.db", "log.web"].into_iter().find(|n| mebo::metric_id(n) == p.id).unwrap();
        *per_series.entry(name.to_owned()).or_default() += 1;
    }
    assert_eq!(counted(&r.batches), per_series.into_iter().collect::<Vec<_>>());
}

/// A refused statement's message, and the files it left (none).
async fn refused(sql: &str, dir: &Path) -> (String, usize) {
    let ctx = context().await;
    let rows = foreign_rows();
    ctx.register_table("foreign_rows", Arc::new(MemTable::try_new(rows.schema(), vec![vec![rows]]).unwrap())).unwrap();
    let error = query(&ctx, sql).await.err().unwrap_or_else(|| panic!("{sql} was not refused"));
    (error.to_string(), files(dir).len())
}

#[tokio::test]
async fn rows_a_blob_cannot_hold_are_refused_and_nothing_is_written() {
    let dir = out_dir("refused");
    let to = format!("TO '{}/' STORED AS MEBO", dir.display());
    let cases = [
        (format!("COPY (SELECT metric_id, ts, value, 1 AS host FROM m) {to}"), "also have host"),
        (format!("COPY (SELECT metric_id, value FROM m) {to}"), "no ts column"),
        (format!("COPY (SELECT ts, value FROM m) {to}"), "neither metric_id nor metric"),
        (format!("COPY (SELECT metric_id, ts, CAST(value AS BIGINT) AS value FROM m) {to}"), "CAST(value AS DOUBLE)"),
        (
            format!("COPY (SELECT metric_id, ts, CAST(value AS VARCHAR) AS value FROM m) {to} OPTIONS ('kind' 'numeric')"),
            "CAST(value AS DOUBLE)",
        ),
        (format!("COPY (SELECT metric_id, 5 AS ts, value FROM m) {to}"), "not a timestamp"),
        (format!("COPY (SELECT metric_id, ts, CASE WHEN value > 0 THEN value END AS value FROM m) {to}"), "null"),
        (format!("COPY (SELECT metric, ts + INTERVAL '1 nanosecond' AS ts, value FROM foreign_rows) {to}"), "not a whole microsecond"),
        (format!("COPY (SELECT * FROM m) {to} OPTIONS ('config' 'delta-none-gorilla')"), "config"),
        (format!("COPY (SELECT * FROM m) {to} OPTIONS ('max_points_per_blob' '0')"), "max_points_per_blob"),
        (format!("COPY (SELECT * FROM m) {to} PARTITIONED BY (metric)"), "metric is a column of the blob"),
        (
            format!(
                "COPY (SELECT *, 'a' AS part FROM m) {to} PARTITIONED BY (part) OPTIONS ('execution.keep_partition_by_columns' 'true')"
            ),
            "keeps no partition column",
        ),
        // One file named, more points than one blob holds.
        (
            format!("COPY (SELECT * FROM m) TO '{}/one.mebo' STORED AS MEBO OPTIONS ('max_points_per_blob' '100')", dir.display()),
            "more than one blob",
        ),
        // One file named, rows with and without names.
        (format!("COPY ({}) TO '{}/one.mebo' STORED AS MEBO", some_named(), dir.display()), "two blobs"),
    ];
    for (sql, expected) in cases {
        let (message, left) = refused(&sql, &dir).await;
        assert!(message.contains(expected), "{sql}: {message}");
        assert_eq!(left, 0, "{sql} left files");
    }
}

#[tokio::test]
async fn a_blob_the_encoder_refuses_is_an_error_naming_its_file() {
    let ctx = context().await;
    let dir = out_dir("too-long");
    // A text value is at most 255 bytes.
    let sql = format!(
        "COPY (SELECT 'log.app' AS metric, TIMESTAMP '2024-01-01T00:00:00Z' AS ts, repeat('x', 256) AS value) TO '{}/' STORED AS MEBO",
        dir.display()
    );
    let error = query(&ctx, &sql).await.err().unwrap();
    let file = FileError::find(&error).unwrap_or_else(|| panic!("no file in {error}"));
    assert_eq!(file.code, "LIMIT_EXCEEDED", "{error}");
    assert!(file.path.starts_with("file:///") && file.path.ends_with(".mebo"), "{}", file.path);
    assert!(files(&dir).is_empty());
}

#[tokio::test]
async fn a_copy_past_the_memory_pool_is_an_error_not_an_abort() {
    let runtime = RuntimeEnvBuilder::new().with_memory_limit(64 * 1024, 1.0).build_arc().unwrap();
    let ctx = SessionContext::new_with_config_rt(SessionConfig::new().with_target_partitions(1), runtime);
    ctx.enable_mebo().unwrap();
    let values: Vec<f64> = (0..200_000).map(f64::from).collect();
    let n = values.len();
    let schema = Arc::new(Schema::new(vec![
        Field::new("metric", DataType::Utf8, false),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), false),
        Field::new("value", DataType::Float64, false),
    ]));
    let rows = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(arrow::array::StringArray::from(vec!["big"; n])),
            Arc::new(arrow::array::TimestampMicrosecondArray::from((0..n as i64).collect::<Vec<_>>())),
            Arc::new(Float64Array::from(values)),
        ],
    )
    .unwrap();
    ctx.register_table("big", Arc::new(MemTable::try_new(schema, vec![vec![rows]]).unwrap())).unwrap();
    let dir = out_dir("memory");
    let error = query(&ctx, &format!("COPY big TO '{}/' STORED AS MEBO", dir.display())).await.err().unwrap();
    assert!(error.to_string().contains("Resources exhausted") && error.to_string().contains("MeboSink"), "{error}");
    assert!(files(&dir).is_empty());
}

#[tokio::test]
async fn a_statement_that_fails_late_removes_the_blobs_it_wrote() {
    let ctx = context().await;
    // A million points of one metric in blobs of 100,000: nine blobs are
    // written before row 900,000 fails, in the writer (a NULL value) or in
    // the query (a division by zero); partitioned, three writers at once.
    let rows = |value: &str| {
        format!(
            "SELECT 'one' AS metric, to_timestamp_micros(v) AS ts, {value} AS value, v % 3 AS part \
             FROM generate_series(1, 1000000) AS t(v)"
        )
    };
    let null = "CASE WHEN v = 900000 THEN NULL ELSE CAST(v AS DOUBLE) END";
    let zero = "CAST(CASE WHEN v = 900000 THEN v / (v - 900000) ELSE v END AS DOUBLE)";
    let options = "OPTIONS ('max_points_per_blob' '100000', 'config' 'raw-none-raw-none')";
    for (value, partitioned, expected) in
        [(null, false, "null"), (zero, false, "Divide by zero"), (null, true, "null"), (zero, true, "Divide by zero")]
    {
        let dir = out_dir("late");
        let (columns, by) = match partitioned {
            true => ("*", "PARTITIONED BY (part)"),
            false => ("metric, ts, value", ""),
        };
        let sql = format!("COPY (SELECT {columns} FROM ({})) TO '{}/' STORED AS MEBO {by} {options}", rows(value), dir.display());
        let error = query(&ctx, &sql).await.err().unwrap_or_else(|| panic!("{sql} did not fail")).to_string();
        assert!(error.contains(expected), "{sql}: {error}");
        assert!(files(&dir).is_empty(), "{sql} left {:?}", files(&dir).keys());
    }

    // INSERT INTO a table of blobs: its files before are its files after.
    let dir = out_dir("late-insert");
    query(&ctx, &format!("COPY (SELECT * FROM m) TO '{}/' STORED AS MEBO", dir.display())).await.unwrap();
    let before = files(&dir);
    query_all(&ctx, &format!("CREATE EXTERNAL TABLE late STORED AS MEBO LOCATION '{}/' {options}", dir.display())).await.unwrap();
    let sql = format!("INSERT INTO late (metric_id, metric, ts, value) SELECT mebo_id(metric), metric, ts, value FROM ({})", rows(null));
    let error = query(&ctx, &sql).await.err().expect("a NULL value fails the insert").to_string();
    assert!(error.contains("null"), "{error}");
    assert_eq!(files(&dir), before);
}
