//! Past one machine: a real Ballista cluster (a `mebo-scheduler` and two
//! `mebo-executor` processes on 127.0.0.1) answers every query as one
//! machine does, and an executor killed while queries run ends in the right
//! answer or a clear error (the client's deadline, when Ballista stalls the
//! job), never a wrong answer.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use arrow::array::RecordBatch;
use arrow::util::pretty::pretty_format_batches;
use common::{files, fixture, numeric_points, per_metric, same_points, NAMES};
use datafusion::prelude::SessionContext;
use mebo_datafusion::cluster::{remote_context, LocalCluster};
use mebo_datafusion::{query, query_all, MeboContextExt};

/// The questions, each ordered so that both engines print the same rows.
fn questions() -> Vec<String> {
    let (a, b) = (NAMES[0], NAMES[7]);
    vec![
        "SELECT count(*) AS n, sum(value) AS total, min(ts) AS first, max(ts) AS last FROM m".into(),
        "SELECT metric_id, count(*), min(value), max(value), sum(value), avg(value) FROM m GROUP BY metric_id ORDER BY metric_id".into(),
        format!("SELECT metric_id, ts, value FROM m WHERE metric_id IN (mebo_id('{a}'), mebo_id('{b}')) ORDER BY metric_id, ts, value"),
        "SELECT date_trunc('day', ts) AS day, count(*), sum(value) FROM m \
         WHERE ts >= TIMESTAMP '2024-01-03T00:00:00Z' AND ts < TIMESTAMP '2024-01-09T00:00:00Z' GROUP BY 1 ORDER BY 1"
            .into(),
        "SELECT metric, count(*) FROM m WHERE metric IS NOT NULL GROUP BY metric ORDER BY metric".into(),
        "SELECT value, count(*), count(tag) FROM t GROUP BY value ORDER BY value".into(),
        // A join of two scans on the metric: a shuffle between the executors.
        "SELECT a.metric_id, count(*) FROM m AS a JOIN (SELECT metric_id, max(value) AS top FROM m GROUP BY metric_id) AS b \
         ON a.metric_id = b.metric_id AND a.value = b.top GROUP BY a.metric_id ORDER BY a.metric_id"
            .into(),
    ]
}

async fn with_tables(ctx: SessionContext) -> SessionContext {
    let f = fixture();
    ctx.register_mebo("m", f.numeric_dir.to_str().unwrap()).await.unwrap();
    let ddl = format!("CREATE EXTERNAL TABLE t STORED AS MEBO LOCATION '{}/' OPTIONS ('kind' 'text')", f.text_dir.display());
    query_all(&ctx, &ddl).await.unwrap();
    ctx
}

async fn local() -> SessionContext {
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    with_tables(ctx).await
}

fn printed(batches: &[RecordBatch]) -> String {
    pretty_format_batches(batches).unwrap().to_string()
}

fn start(executors: usize) -> LocalCluster {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mebo-scheduler")).parent().unwrap();
    // A silent executor is given up after 3 s: its tasks run elsewhere.
    LocalCluster::start_from(bin_dir, executors, 3, &[]).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_executor_cluster_answers_as_one_machine() {
    let cluster = start(2);
    let remote = with_tables(remote_context(&cluster.url()).await.unwrap()).await;
    let local = local().await;
    for sql in questions() {
        let expected = printed(&query(&local, &sql).await.unwrap().batches);
        let got = printed(&query(&remote, &sql).await.unwrap_or_else(|e| panic!("{sql}: {e}")).batches);
        assert_eq!(got, expected, "{sql}");
    }
    // And against the plain loop, not only one machine.
    let r = query(&remote, "SELECT metric_id, count(*), sum(value) FROM m GROUP BY metric_id ORDER BY metric_id").await.unwrap();
    let expected: Vec<String> = per_metric(&fixture().numeric).iter().map(|(id, n, _, _, sum)| format!("{id} {n} {sum:?}")).collect();
    let got: Vec<String> = printed(&r.batches)
        .lines()
        .filter(|l| l.starts_with("| ") && !l.contains("metric_id"))
        .map(|l| l.split('|').map(str::trim).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(got, expected);

    // A corrupt file fails the query on the cluster too, naming the file.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cluster-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(fixture().numeric_dir.join("w0001.mebo")).unwrap();
    std::fs::write(dir.join("a.mebo"), &good).unwrap();
    std::fs::write(dir.join("cut.mebo"), &good[..40]).unwrap();
    remote.register_mebo("bad", dir.to_str().unwrap()).await.unwrap();
    let err = query(&remote, "SELECT sum(value) FROM bad").await.err().expect("a cut blob fails the query");
    let code = mebo::numeric::NumericBlob::open(&good[..40]).expect_err("40 bytes are not a blob").code();
    let text = err.to_string();
    assert!(text.contains("cut.mebo") && text.contains(code), "{code}: {text}");

    // Writing on the cluster: the executors write the blobs, with the
    // statement's options, into the shared directory.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cluster-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let copy = format!(
        "COPY (SELECT * FROM m) TO '{}/' STORED AS MEBO OPTIONS ('config' 'raw-lz4-chimp-none', 'max_points_per_blob' '5000')",
        out.display()
    );
    query(&remote, &copy).await.unwrap_or_else(|e| panic!("{copy}: {e}"));
    let written = files(&out);
    assert!(written.len() >= fixture().numeric.len().div_ceil(5000), "{} files", written.len());
    for bytes in written.values() {
        let blob = mebo::numeric::NumericBlob::open(bytes).unwrap();
        assert_eq!(blob.options().config.to_string(), "raw-lz4-chimp-none");
        assert!(blob.total_points() <= 5000);
    }
    same_points(numeric_points(written.values()), numeric_points(files(&fixture().numeric_dir).values()));
    // And appended to through a table on the cluster.
    let ddl = format!("CREATE EXTERNAL TABLE copied STORED AS MEBO LOCATION '{}/'", out.display());
    query_all(&remote, &ddl).await.unwrap();
    query(&remote, &format!("INSERT INTO copied SELECT * FROM m WHERE metric_id = mebo_id('{}')", NAMES[3])).await.unwrap();
    let extra = fixture().numeric.iter().filter(|p| p.id == mebo::metric_id(NAMES[3])).count();
    assert_eq!(numeric_points(files(&out).values()).len(), fixture().numeric.len() + extra);

    // Partitioned by day on the cluster, and read back there by its
    // directories: the same answers as one machine reading the fixture.
    let by_day = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cluster-by-day-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&by_day);
    let copy =
        format!("COPY (SELECT *, to_char(ts, '%Y-%m-%d') AS day FROM m) TO '{}/' STORED AS MEBO PARTITIONED BY (day)", by_day.display());
    query(&remote, &copy).await.unwrap_or_else(|e| panic!("{copy}: {e}"));
    same_points(numeric_points(files(&by_day).values()), numeric_points(files(&fixture().numeric_dir).values()));
    remote.register_mebo("by_day", by_day.to_str().unwrap()).await.unwrap();
    let got = query(
        &remote,
        "SELECT day, count(*) AS n, sum(value) AS total FROM by_day WHERE day BETWEEN '2024-01-03' AND '2024-01-08' GROUP BY 1 ORDER BY 1",
    );
    let expected = "SELECT to_char(ts, '%Y-%m-%d') AS day, count(*) AS n, sum(value) AS total FROM m \
                    WHERE ts >= TIMESTAMP '2024-01-03T00:00:00Z' AND ts < TIMESTAMP '2024-01-09T00:00:00Z' GROUP BY 1 ORDER BY 1";
    let expected = printed(&query(&local, expected).await.unwrap().batches);
    assert_eq!(printed(&got.await.unwrap().batches), expected);

    // A stream of blobs written by an executor into one file, and read on
    // the cluster: the answers one machine gives from the blob files.
    let stream = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cluster-stream-{}.mbs", std::process::id()));
    let copy = format!("COPY (SELECT * FROM m) TO '{}' STORED AS MEBO OPTIONS ('max_points_per_blob' '5000')", stream.display());
    query(&remote, &copy).await.unwrap_or_else(|e| panic!("{copy}: {e}"));
    let bytes = std::fs::read(&stream).unwrap();
    let blobs: Vec<Vec<u8>> = mebo::stream::Frames::new(&bytes).unwrap().map(|b| b.unwrap().to_vec()).collect();
    assert_eq!(blobs.len(), fixture().numeric.len().div_ceil(5000));
    same_points(numeric_points(&blobs), numeric_points(files(&fixture().numeric_dir).values()));
    remote.register_mebo("s", stream.to_str().unwrap()).await.unwrap();
    // Cut into byte ranges however small: each range's frames read once by
    // the executor given it.
    query(&remote, "SET datafusion.optimizer.repartition_file_min_size = 0").await.unwrap();
    let sql = "SELECT metric_id, count(*) AS n, sum(value) AS total FROM {} GROUP BY 1 ORDER BY 1";
    let expected = printed(&query(&local, &sql.replace("{}", "m")).await.unwrap().batches);
    assert_eq!(printed(&query(&remote, &sql.replace("{}", "s")).await.unwrap().batches), expected);
}

/// The deadline a client puts on a query to a cluster: Ballista 55 can stall
/// a job whose stage it rolls back after losing an executor.
const DEADLINE: Duration = Duration::from_secs(30);

async fn within_deadline(ctx: &SessionContext, sql: &str) -> Result<String, String> {
    match tokio::time::timeout(DEADLINE, query(ctx, sql)).await {
        Ok(Ok(r)) => Ok(printed(&r.batches)),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer in {} s", DEADLINE.as_secs())),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_executor_killed_mid_query_gives_the_answer_or_an_error() {
    let mut cluster = start(2);
    let remote = with_tables(remote_context(&cluster.url()).await.unwrap()).await;
    let local = local().await;
    let sql = questions()[1].clone();
    let expected = printed(&query(&local, &sql).await.unwrap().batches);
    assert_eq!(within_deadline(&remote, &sql).await, Ok(expected.clone()));

    // Queries one after another; one executor is killed while they run.
    let started = Instant::now();
    let runner = tokio::spawn(async move {
        let mut outcomes = Vec::new();
        while started.elapsed() < Duration::from_secs(4) {
            outcomes.push(within_deadline(&remote, &sql).await);
        }
        outcomes
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    cluster.kill_executor(0).unwrap();
    let outcomes = runner.await.unwrap();

    let logs = cluster.logs();
    let answered = outcomes.iter().filter(|o| o.is_ok()).count();
    eprintln!(
        "{} queries, {answered} answered, tasks reset after the loss: {}; errors: {:?}",
        outcomes.len(),
        logs.lines().filter(|l| l.contains("on lost Executor")).count(),
        outcomes.iter().filter_map(|o| o.as_ref().err()).collect::<Vec<_>>()
    );
    for outcome in &outcomes {
        match outcome {
            Ok(rows) => assert_eq!(rows, &expected, "a wrong answer"),
            // A failure says what failed (Ballista names the job or task), or
            // the client's deadline ended it.
            Err(e) => {
                let said = e.to_lowercase();
                assert!(["job", "task", "executor", "no answer in"].iter().any(|w| said.contains(w)), "unclear error: {e}")
            }
        }
    }
    // Whether the survivor still answers depends on Ballista: when the
    // rolled-back stage stalls, new jobs wait behind it (docs/SQL.md). What
    // it answers is right.
    let again = with_tables(remote_context(&cluster.url()).await.unwrap()).await;
    match within_deadline(&again, &questions()[1]).await {
        Ok(rows) => assert_eq!(rows, expected, "a wrong answer"),
        Err(e) => eprintln!("after the loss, a new client: {e}"),
    }
}

/// `mebo-sql` as users run it: on this machine, with `--cluster 2` (its own
/// processes, stopped after) and with `--scheduler` (a running cluster).
#[test]
fn the_command_runs_on_a_cluster_as_on_one_machine() {
    let f = fixture();
    let sql = questions()[..4].join("; ");
    let table = format!("m={}", f.numeric_dir.display());
    let run = |engine: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
            .args(["--table", &table, "--format", "csv"])
            .args(engine)
            .arg(&sql)
            .output()
            .unwrap();
        assert!(out.status.success(), "{engine:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let local = run(&[]);
    assert!(local.lines().count() > 100, "{local}");
    assert_eq!(run(&["--cluster", "2"]), local);
    assert_eq!(run(&["--cluster", "2", "--memory-limit", "256m"]), local);
    // Each executor's pool, split between its 4 tasks, smaller than a file.
    let tight = std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
        .args(["--table", &table, "--cluster", "1", "--memory-limit", "4k", "SELECT max(value) FROM m"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&tight.stderr);
    assert_eq!(tight.status.code(), Some(1), "{stderr}");
    // Ballista passes the executor's error on in its Debug form (`ResourcesExhausted(…)`).
    assert!(stderr.contains("ResourcesExhausted") && stderr.contains("for MeboScan[file:///"), "{stderr}");
    let cluster = start(1);
    assert_eq!(run(&["--scheduler", &cluster.url()]), local);

    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
        .args(["--cluster", "2", "--scheduler", "df://x:1", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let unreachable =
        std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql")).args(["--scheduler", "df://127.0.0.1:9", "SELECT 1"]).output().unwrap();
    assert_eq!(unreachable.status.code(), Some(1), "{}", String::from_utf8_lossy(&unreachable.stderr));
}
