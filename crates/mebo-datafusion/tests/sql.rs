//! SQL over a directory of blobs, on one machine: every answer against the
//! plain computation over the points the core decodes (tests/common), and
//! each pushdown shown by the scan's counters or the plan.

mod common;

use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::{Float64Type, Int64Type, TimestampMicrosecondType, UInt64Type};
use common::{fixture, per_metric, Point, BASE, HOUR, NAMES, NUMERIC_BLOBS};
use datafusion::execution::cache::cache_manager::CacheManagerConfig;
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::stream::BoxStream;
use futures::StreamExt;
use mebo_datafusion::{query, query_all, scan_counter, FileError, MeboContextExt, MeboOptions};
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta, PutMultipartOptions, PutOptions,
    PutPayload, PutResult,
};

async fn context(partitions: usize) -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions));
    ctx.enable_mebo().unwrap();
    let f = fixture();
    ctx.register_mebo("m", f.numeric_dir.to_str().unwrap()).await.unwrap();
    ctx.register_mebo("t", f.text_dir.to_str().unwrap()).await.unwrap();
    ctx
}

fn u64s(batches: &[RecordBatch], column: usize) -> Vec<u64> {
    batches.iter().flat_map(|b| b.column(column).as_primitive::<UInt64Type>().values().to_vec()).collect()
}
fn i64s(batches: &[RecordBatch], column: usize) -> Vec<i64> {
    batches.iter().flat_map(|b| b.column(column).as_primitive::<Int64Type>().values().to_vec()).collect()
}
fn f64s(batches: &[RecordBatch], column: usize) -> Vec<f64> {
    batches.iter().flat_map(|b| b.column(column).as_primitive::<Float64Type>().values().to_vec()).collect()
}

fn id(name: &str) -> u64 {
    mebo::metric_id(name)
}

/// The length of a blob's head: what the statistics keep of a file.
fn head_len(blob: &[u8]) -> u64 {
    mebo::BlobHead::len(blob).unwrap() as u64
}

#[tokio::test]
async fn count_comes_from_the_index() {
    let ctx = context(2).await;
    let f = fixture();
    let all = query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    assert_eq!(i64s(&all.batches, 0), vec![f.numeric.len() as i64]);
    // Exact statistics from each blob's index answer it: no blob is scanned.
    assert_eq!(scan_counter(&all.plan, "blobs_opened"), 0);

    // With a metric filter, the scan reads ids from the index, no column.
    let cpu = id(NAMES[0]);
    let one = query(&ctx, &format!("SELECT count(*) FROM m WHERE metric_id = {cpu}")).await.unwrap();
    let expected = f.numeric.iter().filter(|p| p.id == cpu).count();
    assert!(expected > 0);
    assert_eq!(i64s(&one.batches, 0), vec![expected as i64]);
    assert_eq!(scan_counter(&one.plan, "metrics_decoded"), 0);
    assert_eq!(scan_counter(&one.plan, "rows_from_index"), expected);
}

/// The local file system, counting the reads and the bytes they return:
/// what a query fetches from a store.
#[derive(Debug, Default)]
struct Counted {
    files: object_store::local::LocalFileSystem,
    /// The bytes readers took from the responses (a scan may stop early).
    read: Arc<std::sync::atomic::AtomicU64>,
    requests: std::sync::atomic::AtomicU64,
}

impl Counted {
    /// The bytes and reads so far.
    fn fetched(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.read.load(Relaxed), self.requests.load(Relaxed))
    }

    /// A session with this store for `file://`, the directory `dir` its table `m`.
    async fn session(self: &Arc<Self>, dir: &std::path::Path) -> SessionContext {
        self.session_with(dir, SessionConfig::new(), CacheManagerConfig::default()).await
    }

    /// [`session`](Self::session) with `config` and these caches.
    async fn session_with(self: &Arc<Self>, dir: &std::path::Path, config: SessionConfig, caches: CacheManagerConfig) -> SessionContext {
        let runtime = RuntimeEnvBuilder::new().with_cache_manager(caches).build_arc().unwrap();
        let ctx = SessionContext::new_with_config_rt(config, runtime);
        ctx.enable_mebo().unwrap();
        ctx.register_object_store(&url::Url::parse("file://").unwrap(), self.clone());
        ctx.register_mebo("m", dir.to_str().unwrap()).await.unwrap();
        ctx
    }
}

impl std::fmt::Display for Counted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Counted({})", self.files)
    }
}

#[async_trait::async_trait]
impl object_store::ObjectStore for Counted {
    async fn put_opts(&self, at: &Path, payload: PutPayload, opts: PutOptions) -> object_store::Result<PutResult> {
        self.files.put_opts(at, payload, opts).await
    }
    async fn put_multipart_opts(&self, at: &Path, opts: PutMultipartOptions) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.files.put_multipart_opts(at, opts).await
    }
    async fn get_opts(&self, at: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        // A `head` (a single file's listing) reads no bytes.
        let head = options.head;
        let result = self.files.get_opts(at, options).await?;
        if head {
            return Ok(result);
        }
        self.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (meta, range, attributes) = (result.meta.clone(), result.range.clone(), result.attributes.clone());
        let read = Arc::clone(&self.read);
        let counted = result.into_stream().inspect(move |chunk| {
            if let Ok(chunk) = chunk {
                read.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
            }
        });
        Ok(GetResult { payload: GetResultPayload::Stream(counted.boxed()), meta, range, attributes })
    }
    /// Each range as the scan asks for it (the local store's own
    /// `get_ranges`, which reads through no gap), a request a range.
    async fn get_ranges(&self, at: &Path, ranges: &[std::ops::Range<u64>]) -> object_store::Result<Vec<bytes::Bytes>> {
        use std::sync::atomic::Ordering::Relaxed;
        let parts = self.files.get_ranges(at, ranges).await?;
        self.requests.fetch_add(ranges.len() as u64, Relaxed);
        self.read.fetch_add(parts.iter().map(|p| p.len() as u64).sum(), Relaxed);
        Ok(parts)
    }
    fn delete_stream(&self, paths: BoxStream<'static, object_store::Result<Path>>) -> BoxStream<'static, object_store::Result<Path>> {
        self.files.delete_stream(paths)
    }
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.files.list(prefix)
    }
    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.files.list_with_delimiter(prefix).await
    }
    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> object_store::Result<()> {
        self.files.copy_opts(from, to, options).await
    }
}

#[tokio::test]
async fn statistics_take_one_read_of_each_files_start() {
    let f = fixture();
    let store = Arc::new(Counted::default());
    let ctx = store.session(&f.numeric_dir).await;
    let files = common::files(&f.numeric_dir);
    // The fixture's blobs are a few KB: each read whole, in one request.
    assert!(files.values().all(|b| b.len() < 16 * 1024));

    let (bytes, requests) = store.fetched();
    let r = query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![f.numeric.len() as i64]);
    assert_eq!(store.fetched(), (bytes + f.numeric_bytes, requests + NUMERIC_BLOBS as u64));
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), 0);

    // A scan fetches each file once more, past the head the statistics
    // kept (they and the heads are kept by the session).
    let (bytes, requests) = store.fetched();
    let r = query(&ctx, "SELECT sum(value) FROM m").await.unwrap();
    assert_eq!(f64s(&r.batches, 0), vec![f.numeric.iter().map(|p| p.value).sum::<f64>()]);
    let heads: u64 = files.values().map(|b| head_len(b)).sum();
    assert_eq!(store.fetched(), (bytes + f.numeric_bytes - heads, requests + NUMERIC_BLOBS as u64));
}

#[tokio::test]
async fn statistics_read_a_long_head_and_no_payload() {
    // 1,500 named metrics: a head past the first read, payloads far larger.
    let dir = common::write_dir("long-head");
    let options = mebo::numeric::NumericEncoderOptions::default().with_config("raw-none-raw-none".parse().unwrap());
    let mut encoder = mebo::numeric::NumericEncoder::new(BASE, options);
    let (metrics, points) = (1500usize, 40usize);
    for m in 0..metrics {
        encoder.start_metric_name(&format!("host{m:04}.cpu"), points).unwrap();
        for i in 0..points {
            encoder.add_point(BASE + i as i64 * HOUR, (m * points + i) as f64, None).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    let blob = encoder.finish().unwrap();
    let head = mebo::BlobHead::len(&blob).unwrap() as u64;
    assert!(head > 16 * 1024 && head * 8 < blob.len() as u64, "head {head} of {}", blob.len());
    std::fs::write(dir.join("long.mebo"), &blob).unwrap();

    let store = Arc::new(Counted::default());
    let ctx = store.session(&dir).await;
    // The table's schema from the file's first 40 bytes: a blob's header,
    // or a stream's first blob's after its 8 bytes of framing.
    let schema_read = 8 + mebo::HEADER_SIZE as u64;
    assert_eq!(store.fetched(), (schema_read, 1));
    let r = query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![(metrics * points) as i64]);
    // The first read, then the rest of the head.
    assert_eq!(store.fetched(), (schema_read + head, 3));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn statistics_leave_a_stream_file_unread() {
    let f = fixture();
    let dir = common::write_dir("stream-stats");
    let blobs: Vec<Vec<u8>> = common::files(&f.numeric_dir).into_values().take(3).collect();
    let stream = mebo::stream::write_stream(blobs.iter().map(Vec::as_slice)).unwrap();
    let path = dir.join("three.mbs");
    std::fs::write(&path, &stream).unwrap();
    let store = Arc::new(Counted::default());
    let ctx = store.session(&path).await;
    let schema_read = 8 + mebo::HEADER_SIZE as u64;
    assert_eq!(store.fetched(), (schema_read, 1));
    // No read for statistics: the scan's one read of the stream counts it.
    let r = query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    let points: usize = (0..3).map(|w| fixture_points_of_blob(w).len()).sum();
    assert_eq!(i64s(&r.batches, 0), vec![points as i64]);
    assert_eq!(store.fetched(), (schema_read + stream.len() as u64, 2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_metric_filter_reads_its_columns_not_the_blob() {
    use mebo::Layout::{V2Shared, V1, V2};
    // Each of these, a blob of megabytes: its timestamps and values stored
    // as they are, the same sharing one timestamp column, and values zstd-compressed.
    for (name, config, layout) in
        [("plain", "delta-none-gorilla-none", V1), ("shared", "delta-none-gorilla-none", V2Shared), ("zstd", "raw-none-gorilla-zstd", V2)]
    {
        let dir = common::write_dir(&format!("wide-{name}"));
        let bytes = common::wide_blob(1000, config, layout);
        std::fs::write(dir.join("wide.mebo"), &bytes).unwrap();
        let blob = mebo::numeric::NumericBlob::open(&bytes).unwrap();
        let (size, compressed) = (bytes.len() as u64, if name == "zstd" { blob.sections().values.len() as u64 } else { 0 });
        assert!(size > compressed + (1 << 20) + 64 * 1024, "{name}: {size} bytes");
        let store = Arc::new(Counted::default());
        let ctx = store.session(&dir).await;
        query(&ctx, "SELECT count(*) FROM m").await.unwrap();

        // One metric: its points exact, its columns read (a compressed payload whole), the rest not.
        let (before, _) = store.fetched();
        let r = query(&ctx, "SELECT ts, value FROM m WHERE metric_id = mebo_id('m0500') ORDER BY ts").await.unwrap();
        let metric = blob.metric_by_name("m0500").unwrap();
        let points: Vec<(i64, u64)> =
            metric.timestamps().unwrap().into_iter().zip(metric.values().unwrap().iter().map(|v| v.to_bits())).collect();
        let ts = r.batches.iter().flat_map(|b| b.column(0).as_primitive::<TimestampMicrosecondType>().values().to_vec());
        let got: Vec<(i64, u64)> = ts.zip(f64s(&r.batches, 1).iter().map(|v| v.to_bits())).collect();
        assert_eq!(got, points, "{name}");
        assert_eq!(got[999].1, f64::to_bits((500_000 + 999) as f64 * 0.25));
        let taken = store.fetched().0 - before;
        assert_eq!(scan_counter(&r.plan, "bytes_scanned") as u64, taken, "{name}");
        assert!(taken < compressed + 64 * 1024, "{name}: {taken} bytes of {size}");
        assert!(taken >= compressed, "{name}: {taken} bytes, the value payload {compressed}");
        assert!(scan_counter(&r.plan, "bytes_skipped") as u64 > size - compressed - 64 * 1024, "{name}");

        // Two metrics at either end of the payloads.
        let two =
            "SELECT metric_id, count(*), sum(value) FROM m WHERE metric_id IN (mebo_id('m0001'), mebo_id('m0998')) GROUP BY 1 ORDER BY 1";
        let r = query(&ctx, two).await.unwrap();
        let sum = |k: usize| (0..1000).map(|i| (k * 1000 + i) as f64 * 0.25).sum::<f64>();
        let mut expected = [(id("m0001"), sum(1)), (id("m0998"), sum(998))];
        expected.sort_unstable_by_key(|e| e.0);
        assert_eq!(u64s(&r.batches, 0), expected.iter().map(|e| e.0).collect::<Vec<_>>(), "{name}");
        assert_eq!((i64s(&r.batches, 1), f64s(&r.batches, 2)), (vec![1000; 2], expected.iter().map(|e| e.1).collect()), "{name}");
        assert!(scan_counter(&r.plan, "bytes_skipped") > 0, "{name}");

        // No metric named: the blob read whole, past its kept head.
        let (before, _) = store.fetched();
        let all = query(&ctx, "SELECT sum(value) FROM m").await.unwrap();
        assert_eq!(f64s(&all.batches, 0), vec![(0..1000).map(sum).sum::<f64>()], "{name}");
        assert_eq!((store.fetched().0 - before, scan_counter(&all.plan, "bytes_skipped")), (size - head_len(&bytes), 0), "{name}");
        assert_eq!(scan_counter(&all.plan, "bytes_scanned") as u64, size - head_len(&bytes), "{name}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[tokio::test]
async fn a_blob_cut_since_it_was_listed_fails_the_query_naming_it() {
    let dir = common::write_dir("wide-cut");
    let bytes = common::wide_blob(1000, "delta-none-gorilla-none", mebo::Layout::V2);
    let path = dir.join("wide.mebo");
    std::fs::write(&path, &bytes).unwrap();
    let store = Arc::new(Counted::default());
    let ctx = store.session(&dir).await;
    query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    // The session keeps its listing (and the head): the file is read as
    // listed, its metric's ranges past the end that is left.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    for sql in ["SELECT sum(value) FROM m WHERE metric_id = mebo_id('m0900')", "SELECT sum(value) FROM m"] {
        let error = query(&ctx, sql).await.err().unwrap_or_else(|| panic!("{sql}: an answer from a cut file")).to_string();
        assert!(error.contains("wide.mebo"), "{sql}: {error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_metric_filter_reads_its_rows_of_a_text_blob() {
    let dir = common::write_dir("wide-text");
    let options = mebo::text::TextEncoderOptions { data_compression: mebo::Compression::None, ..Default::default() };
    let mut encoder = mebo::text::TextEncoder::new(BASE, options).unwrap();
    let line = |k: usize, i: usize| format!("metric {k} line {i}: the service answered");
    for k in 0..500 {
        encoder.start_metric_name(&format!("log{k:03}"), 200).unwrap();
        for i in 0..200 {
            encoder.add_point(BASE + i as i64, &line(k, i), None).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    let bytes = encoder.finish().unwrap();
    assert!(bytes.len() > 3 << 20, "{} bytes", bytes.len());
    std::fs::write(dir.join("log.mebo"), &bytes).unwrap();
    let store = Arc::new(Counted::default());
    let ctx = store.session(&dir).await;
    query(&ctx, "SELECT count(*) FROM m").await.unwrap();

    let (before, _) = store.fetched();
    let r = query(&ctx, "SELECT value FROM m WHERE metric_id = mebo_id('log250') ORDER BY ts").await.unwrap();
    let values: Vec<String> = r.batches.iter().flat_map(|b| b.column(0).as_string::<i32>().iter().map(|v| v.unwrap().to_owned())).collect();
    assert_eq!(values, (0..200).map(|i| line(250, i)).collect::<Vec<_>>());
    let taken = store.fetched().0 - before;
    assert!(taken < 64 * 1024, "{taken} bytes of {}", bytes.len());
    assert!(scan_counter(&r.plan, "bytes_skipped") > bytes.len() - 64 * 1024);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_metric_filter_fetches_no_file_past_a_head_that_lists_none() {
    let dir = common::per_host_dir("per-host", 4);
    let files = common::files(&dir);
    // Each several of the counting store's 8 KiB chunks.
    assert!(files.values().all(|b| b.len() > 4 * 8 * 1024));
    let host2 = &files[&dir.join("host2.mebo")];
    let sql = "SELECT count(*), sum(value) FROM m WHERE metric_id = mebo_id('host2.m1')";
    let sum = (0..1000).map(|i| (20_000 + 1000 + i) as f64).sum::<f64>();

    // Without statistics (no head read at planning): one request a file; of
    // the three others, no more taken than their first chunk (the local
    // store's 8 KiB) once their heads are in.
    let store = Arc::new(Counted::default());
    let ctx = store.session_with(&dir, SessionConfig::new().with_collect_statistics(false), CacheManagerConfig::default()).await;
    let (bytes, requests) = store.fetched();
    let r = query(&ctx, sql).await.unwrap();
    assert_eq!((i64s(&r.batches, 0), f64s(&r.batches, 1)), (vec![1000], vec![sum]));
    let (taken, asked) = store.fetched();
    assert_eq!(asked, requests + 4);
    assert_eq!(scan_counter(&r.plan, "bytes_scanned") as u64, taken - bytes);
    assert!(taken - bytes >= host2.len() as u64 && taken - bytes <= host2.len() as u64 + 3 * 8 * 1024, "{} bytes", taken - bytes);
    assert_eq!((scan_counter(&r.plan, "files_pruned"), scan_counter(&r.plan, "blobs_opened")), (3, 1));
    // The heads read are kept: the same query again asks for host2's payloads alone.
    let r = query(&ctx, sql).await.unwrap();
    assert_eq!((i64s(&r.batches, 0), f64s(&r.batches, 1)), (vec![1000], vec![sum]));
    assert_eq!(store.fetched(), (taken + host2.len() as u64 - head_len(host2), asked + 1));
    assert_eq!(scan_counter(&r.plan, "files_pruned"), 3);

    // With statistics, the heads read at planning are kept, once a session.
    let store = Arc::new(Counted::default());
    let ctx = store.session(&dir).await;
    query(&ctx, "SELECT count(*) FROM m").await.unwrap();
    let (bytes, requests) = store.fetched();
    let r = query(&ctx, sql).await.unwrap();
    assert_eq!((i64s(&r.batches, 0), f64s(&r.batches, 1)), (vec![1000], vec![sum]));
    assert_eq!(store.fetched(), (bytes + host2.len() as u64 - head_len(host2), requests + 1));
    assert_eq!((scan_counter(&r.plan, "files_pruned"), scan_counter(&r.plan, "blobs_opened")), (3, 1));

    // A metric no file holds: every file pruned at its head, no rows.
    let none = query(&ctx, "SELECT count(*) FROM m WHERE metric_id = mebo_id('host9.m0')").await.unwrap();
    assert_eq!(i64s(&none.batches, 0), vec![0]);
    assert_eq!(scan_counter(&none.plan, "files_pruned"), 4);

    // Counted, not read: the index answers from the heads alone.
    let (bytes, requests) = store.fetched();
    let one = query(&ctx, "SELECT count(*) FROM m WHERE metric_id = mebo_id('host2.m1')").await.unwrap();
    assert_eq!(i64s(&one.batches, 0), vec![1000]);
    assert_eq!(store.fetched(), (bytes, requests));
    assert_eq!((scan_counter(&one.plan, "blobs_opened"), scan_counter(&one.plan, "rows_from_index")), (0, 1000));
    let (bytes, requests) = store.fetched();
    let each = query(&ctx, "SELECT metric_id, count(*) FROM m GROUP BY 1 ORDER BY 1").await.unwrap();
    let mut expected: Vec<u64> = (0..4).flat_map(|h| (0..3).map(move |k| id(&format!("host{h}.m{k}")))).collect();
    expected.sort_unstable();
    assert_eq!((u64s(&each.batches, 0), i64s(&each.batches, 1)), (expected, vec![1000; 12]));
    assert_eq!(store.fetched(), (bytes, requests));
    assert_eq!(scan_counter(&each.plan, "blobs_opened"), 0);

    // A file rewritten is not judged by the head kept of it: host3's blob,
    // now holding host2.m1 too, is read. (A session keeps its listing, and
    // the files' sizes with it, unless its list cache is off; statistics
    // would read the new head at planning.)
    let caches = CacheManagerConfig::default().with_list_files_cache_limit(0);
    let ctx = store.session_with(&dir, SessionConfig::new().with_collect_statistics(false), caches).await;
    query(&ctx, sql).await.unwrap();
    let options = mebo::numeric::NumericEncoderOptions::default().with_config("raw-none-raw-none".parse().unwrap());
    let mut encoder = mebo::numeric::NumericEncoder::new(BASE, options);
    encoder.start_metric_name("host2.m1", 10).unwrap();
    (0..10).for_each(|i| encoder.add_point(BASE + i, 1.0, None).unwrap());
    encoder.end_metric().unwrap();
    std::fs::write(dir.join("host3.mebo"), encoder.finish().unwrap()).unwrap();
    let r = query(&ctx, sql).await.unwrap();
    assert_eq!((i64s(&r.batches, 0), f64s(&r.batches, 1)), (vec![1010], vec![sum + 10.0]));
    assert_eq!((scan_counter(&r.plan, "files_pruned"), scan_counter(&r.plan, "blobs_opened")), (2, 2));

    // A text blob among them is not pruned for its ids: the scan refuses it.
    let options = mebo::text::TextEncoderOptions { data_compression: mebo::Compression::None, ..Default::default() };
    let mut encoder = mebo::text::TextEncoder::new(BASE, options).unwrap();
    encoder.start_metric_name("log", 4000).unwrap();
    for i in 0..4000 {
        encoder.add_point(BASE + i, &format!("line {i} of the log"), None).unwrap();
    }
    encoder.end_metric().unwrap();
    let text = encoder.finish().unwrap();
    std::fs::write(dir.join("text.mebo"), text).unwrap();
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    let numeric = MeboOptions { kind: Some(mebo::BlobKind::Numeric), ..MeboOptions::default() };
    ctx.register_mebo_with("m", dir.to_str().unwrap(), numeric).await.unwrap();
    let error = query(&ctx, "SELECT count(*) FROM m WHERE metric_id = mebo_id('host2.m1')").await.err().unwrap();
    let file = FileError::find(&error).unwrap_or_else(|| panic!("{error}"));
    assert_eq!((file.code, file.path.ends_with("text.mebo")), ("WRONG_KIND", true), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn aggregates_per_metric_match_the_plain_loop() {
    let f = fixture();
    let expected = per_metric(&f.numeric);
    for partitions in [1, 4] {
        let ctx = context(partitions).await;
        let r = query(
            &ctx,
            "SELECT metric_id, count(*), min(value), max(value), sum(value), avg(value) FROM m GROUP BY metric_id ORDER BY metric_id",
        )
        .await
        .unwrap();
        assert_eq!(u64s(&r.batches, 0), expected.iter().map(|e| e.0).collect::<Vec<_>>());
        assert_eq!(i64s(&r.batches, 1), expected.iter().map(|e| e.1).collect::<Vec<_>>());
        assert_eq!(f64s(&r.batches, 2), expected.iter().map(|e| e.2).collect::<Vec<_>>());
        assert_eq!(f64s(&r.batches, 3), expected.iter().map(|e| e.3).collect::<Vec<_>>());
        assert_eq!(f64s(&r.batches, 4), expected.iter().map(|e| e.4).collect::<Vec<_>>());
        assert_eq!(f64s(&r.batches, 5), expected.iter().map(|e| e.4 / e.1 as f64).collect::<Vec<_>>());
        // Every blob decoded once, its files spread whole over the partitions.
        assert_eq!(scan_counter(&r.plan, "blobs_opened"), NUMERIC_BLOBS);
        let plan = displayable(r.plan.as_ref()).indent(true).to_string();
        assert!(plan.contains(&format!("file_groups={{{partitions} group")), "{plan}");
    }
}

#[tokio::test]
async fn a_name_filter_decodes_only_that_metric() {
    let ctx = context(2).await;
    let f = fixture();
    let name = NAMES[3];
    let r = query(&ctx, &format!("SELECT sum(value), count(*) FROM m WHERE metric_id = mebo_id('{name}')")).await.unwrap();
    let points: Vec<&Point> = f.numeric.iter().filter(|p| p.id == id(name)).collect();
    assert_eq!(f64s(&r.batches, 0), vec![points.iter().map(|p| p.value).sum::<f64>()]);
    assert_eq!(i64s(&r.batches, 1), vec![points.len() as i64]);
    let holding = f.blob_ids.iter().filter(|ids| ids.contains(&id(name))).count();
    assert_eq!(scan_counter(&r.plan, "metrics_decoded"), holding);
    let plan = displayable(r.plan.as_ref()).indent(true).to_string();
    assert!(plan.contains(&format!("metric_ids=[{}]", id(name))), "{plan}");

    // IN (…): two metrics, the projection ts and value of those only.
    let (a, b) = (NAMES[6], NAMES[10]);
    let r = query(
        &ctx,
        &format!("SELECT metric_id, ts, value FROM m WHERE metric_id IN (mebo_id('{a}'), mebo_id('{b}')) ORDER BY metric_id, ts, value"),
    )
    .await
    .unwrap();
    let mut expected: Vec<Point> = f.numeric.iter().filter(|p| p.id == id(a) || p.id == id(b)).copied().collect();
    expected.sort_by(|x, y| (x.id, x.ts).cmp(&(y.id, y.ts)).then(x.value.total_cmp(&y.value)));
    let got: Vec<Point> = r
        .batches
        .iter()
        .flat_map(|batch| {
            (0..batch.num_rows()).map(move |i| Point {
                id: batch.column(0).as_primitive::<UInt64Type>().value(i),
                ts: batch.column(1).as_primitive::<TimestampMicrosecondType>().value(i),
                value: batch.column(2).as_primitive::<Float64Type>().value(i),
            })
        })
        .collect();
    assert_eq!(got, expected);
    let holding = f.blob_ids.iter().map(|ids| ids.iter().filter(|&&i| i == id(a) || i == id(b)).count()).sum::<usize>();
    assert_eq!(scan_counter(&r.plan, "metrics_decoded"), holding);
}

#[tokio::test]
async fn a_time_range_matches_and_skips_metrics_outside_it() {
    let ctx = context(2).await;
    let f = fixture();
    let (from, to) = (BASE + 100 * HOUR + 20 * 60_000_000, BASE + 140 * HOUR);
    let sql = "SELECT count(*), sum(value), min(ts), max(ts) FROM m \
               WHERE ts >= TIMESTAMP '2024-01-05T04:20:00Z' AND ts < TIMESTAMP '2024-01-06T20:00:00Z'";
    let r = query(&ctx, sql).await.unwrap();
    let inside: Vec<&Point> = f.numeric.iter().filter(|p| p.ts >= from && p.ts < to).collect();
    assert_eq!(i64s(&r.batches, 0), vec![inside.len() as i64]);
    assert_eq!(f64s(&r.batches, 1), vec![inside.iter().map(|p| p.value).sum::<f64>()]);
    let ts = |c: usize| r.batches[0].column(c).as_primitive::<TimestampMicrosecondType>().value(0);
    assert_eq!((ts(2), ts(3)), (inside.iter().map(|p| p.ts).min().unwrap(), inside.iter().map(|p| p.ts).max().unwrap()));
    // Metrics of the other 259 hours have no point in range: their values stay undecoded.
    assert!(scan_counter(&r.plan, "metrics_pruned") > f.blob_ids.len() * 3, "{}", scan_counter(&r.plan, "metrics_pruned"));
}

#[tokio::test]
async fn text_blobs_and_create_external_table() {
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    let f = fixture();
    let sql = format!(
        "CREATE EXTERNAL TABLE logs STORED AS MEBO LOCATION '{}/'; \
         SELECT value, count(*) AS n, count(tag) FROM logs GROUP BY value ORDER BY value",
        f.text_dir.display()
    );
    let results = query_all(&ctx, &sql).await.unwrap();
    let r = &results[1];
    let mut expected: std::collections::BTreeMap<&str, (i64, i64)> = Default::default();
    for p in &f.text {
        let e = expected.entry(p.value.as_str()).or_default();
        e.0 += 1;
        e.1 += i64::from(p.tag.is_some());
    }
    let values: Vec<String> =
        r.batches.iter().flat_map(|b| b.column(0).as_string::<i32>().iter().map(|v| v.unwrap().to_owned()).collect::<Vec<_>>()).collect();
    assert_eq!(values, expected.keys().map(|k| k.to_string()).collect::<Vec<_>>());
    assert_eq!(i64s(&r.batches, 1), expected.values().map(|e| e.0).collect::<Vec<_>>());
    assert_eq!(i64s(&r.batches, 2), expected.values().map(|e| e.1).collect::<Vec<_>>());

    // A numeric table by SQL too, with a glob of a tenth of the files.
    let sql = format!(
        "CREATE EXTERNAL TABLE some STORED AS MEBO LOCATION '{}/w000*.mebo'; SELECT count(*), sum(value) FROM some",
        f.numeric_dir.display()
    );
    let results = query_all(&ctx, &sql).await.unwrap();
    let first: Vec<Point> = (0..10).flat_map(fixture_points_of_blob).collect();
    assert_eq!(i64s(&results[1].batches, 0), vec![first.len() as i64]);
    assert_eq!(f64s(&results[1].batches, 1), vec![first.iter().map(|p| p.value).sum::<f64>()]);
}

/// The points of numeric blob `w`, read again from its file.
fn fixture_points_of_blob(w: usize) -> Vec<Point> {
    let bytes = std::fs::read(fixture().numeric_dir.join(format!("w{w:04}.mebo"))).unwrap();
    let blob = mebo::numeric::NumericBlob::open(&bytes).unwrap();
    blob.metrics()
        .flat_map(|m| m.points().unwrap().map(move |(ts, value, _)| Point { id: m.id(), ts, value }).collect::<Vec<_>>())
        .collect()
}

/// A new directory holding the fixture's first `blobs` numeric blobs, for
/// a test to spoil.
fn fresh_dir_of_blobs(name: &str, blobs: usize) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for w in 0..blobs {
        let file = format!("w{w:04}.mebo");
        std::fs::copy(fixture().numeric_dir.join(&file), dir.join(&file)).unwrap();
    }
    dir
}

#[tokio::test]
async fn a_spoiled_payload_is_counted_from_its_index_and_fails_a_scan() {
    // As Parquet's row counts come from its footer: count(*) trusts a head
    // that parses; a query that reads the columns opens the blob and fails.
    let dir = fresh_dir_of_blobs("spoiled", 8);
    let path = dir.join("w0004.mebo");
    let mut bytes = std::fs::read(&path).unwrap();
    let blob = mebo::numeric::NumericBlob::open(&bytes).unwrap();
    assert_eq!(blob.options().config.value_compression, mebo::Compression::Zstd);
    let values = blob.sections().values.start;
    bytes[values] ^= 0xFF; // the zstd frame's magic
    let code = mebo::numeric::NumericBlob::open(&bytes).expect_err("a spoiled frame does not open").code();
    std::fs::write(&path, &bytes).unwrap();

    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    ctx.register_mebo("spoiled", dir.to_str().unwrap()).await.unwrap();
    let all: usize = (0..8).map(|w| fixture_points_of_blob(w).len()).sum();
    let r = query(&ctx, "SELECT count(*) FROM spoiled").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![all as i64]);
    let err = query(&ctx, "SELECT sum(value) FROM spoiled").await.err().expect("the scan opens the blob");
    let file = FileError::find(&err).unwrap_or_else(|| panic!("no file error in {err}"));
    assert!(file.path.ends_with("w0004.mebo") && file.code == code, "{file}");
}

#[tokio::test]
async fn a_bad_file_fails_naming_it_or_is_skipped_and_counted() {
    let f = fixture();
    let dir = fresh_dir_of_blobs("bad", 20);
    let good = std::fs::read(dir.join("w0005.mebo")).unwrap();
    let truncated = &good[..good.len() - 9];
    std::fs::write(dir.join("w0005.mebo"), truncated).unwrap();
    // What the core says of those bytes, read point by point.
    let truncated_code = match mebo::numeric::NumericBlob::open(truncated) {
        Err(e) => e.code(),
        Ok(blob) => blob.metrics().find_map(|m| m.points().err()).map(|e| e.code()).expect("the cut reaches a column"),
    };
    std::fs::write(dir.join("foreign.mebo"), [&b"PAR1"[..], &[7u8; 60]].concat()).unwrap(); // a header's length, a foreign magic
    let expected: Vec<Point> = (0..20).filter(|&w| w != 5).flat_map(fixture_points_of_blob).collect();

    for sql in ["SELECT sum(value) FROM bad", "SELECT count(*) FROM bad"] {
        let ctx = SessionContext::new();
        ctx.enable_mebo().unwrap();
        let err = match ctx.register_mebo("bad", dir.to_str().unwrap()).await {
            Err(e) => e,
            Ok(()) => query(&ctx, sql).await.err().expect("a bad file fails the query"),
        };
        let file = FileError::find(&err).unwrap_or_else(|| panic!("no file error in {err}"));
        assert!(file.path.starts_with("file:///"), "{file}");
        if file.path.ends_with("w0005.mebo") {
            assert_eq!(file.code, truncated_code, "{file}");
        } else {
            assert!(file.path.ends_with("foreign.mebo"), "{file}");
            assert_eq!(file.code, "BAD_MAGIC", "{file}");
        }
        assert!(err.to_string().contains(&file.path), "{err}");
    }

    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    ctx.register_mebo_with("bad", dir.to_str().unwrap(), MeboOptions { skip_bad_files: true, ..MeboOptions::default() }).await.unwrap();
    let r = query(&ctx, "SELECT count(*), sum(value) FROM bad").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![expected.len() as i64]);
    assert_eq!(f64s(&r.batches, 1), vec![expected.iter().map(|p| p.value).sum::<f64>()]);
    assert_eq!(scan_counter(&r.plan, "files_skipped"), 2);

    // A text blob in a numeric table: its own code.
    std::fs::copy(f.text_dir.join("t0001.mebo"), dir.join("text.mebo")).unwrap();
    std::fs::remove_file(dir.join("foreign.mebo")).unwrap();
    std::fs::write(dir.join("w0005.mebo"), &good).unwrap();
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    ctx.register_mebo_with("bad", dir.to_str().unwrap(), MeboOptions { kind: Some(mebo::BlobKind::Numeric), ..MeboOptions::default() })
        .await
        .ok();
    let err = query(&ctx, "SELECT sum(value) FROM bad").await.err().expect("a text blob fails a numeric table");
    assert_eq!(FileError::find(&err).map(|e| e.code), Some("WRONG_KIND"), "{err}");
}

#[tokio::test]
async fn a_table_of_one_unreadable_file_says_why_from_its_header() {
    let dir = fresh_dir_of_blobs("unreadable", 0);
    for (bytes, code) in [([&b"PAR1"[..], &[7u8; 60]].concat(), "BAD_MAGIC"), (b"PA".to_vec(), "TRUNCATED"), (vec![0x10], "TRUNCATED")] {
        std::fs::write(dir.join("only.mebo"), &bytes).unwrap();
        let ctx = SessionContext::new();
        ctx.enable_mebo().unwrap();
        let err = match ctx.register_mebo("t", dir.to_str().unwrap()).await {
            Err(e) => e,
            Ok(()) => query(&ctx, "SELECT count(*) FROM t").await.err().expect("an unreadable file fails the query"),
        };
        let file = FileError::find(&err).unwrap_or_else(|| panic!("no file error in {err}"));
        assert!(file.path.ends_with("only.mebo"), "{file}");
        assert_eq!(file.code, code, "{} bytes: {file}", bytes.len());
    }
}

#[test]
fn the_command_names_each_file_it_skips() {
    let f = fixture();
    let dir = fresh_dir_of_blobs("skipped", 3);
    std::fs::write(dir.join("foreign.mebo"), [&b"PAR1"[..], &[7u8; 60]].concat()).unwrap();
    let cut = &std::fs::read(f.numeric_dir.join("w0003.mebo")).unwrap()[..40];
    std::fs::write(dir.join("cut.mebo"), cut).unwrap();
    let cut_code = match mebo::numeric::NumericBlob::open(cut) {
        Err(e) => e.code(),
        Ok(_) => panic!("40 bytes are not a whole blob"),
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mebo-sql"))
        .args(["--table", &format!("m={}", dir.display()), "--skip-bad-files", "--format", "csv", "SELECT count(*) AS n FROM m"])
        .env_remove("MEBO_LOG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let points: usize = (0..3).map(|w| fixture_points_of_blob(w).len()).sum();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("n\n{points}\n"));
    let named: Vec<&str> = stderr.lines().filter(|l| l.contains(" WARN ") && l.contains("skipped mebo file file:///")).collect();
    assert_eq!(named.len(), 2, "{stderr}");
    assert!(named.iter().any(|l| l.contains("foreign.mebo: BAD_MAGIC: ")), "{stderr}");
    assert!(named.iter().any(|l| l.contains(&format!("cut.mebo: {cut_code}: "))), "{stderr}");
    assert!(stderr.lines().any(|l| l == "mebo-sql: skipped 2 unreadable file(s)"), "{stderr}");
}

#[test]
fn the_command_prints_csv_with_decimal_ids() {
    let f = fixture();
    let exe = env!("CARGO_BIN_EXE_mebo-sql");
    let sql =
        "SELECT metric_id, count(*) AS n, sum(value) AS total FROM m GROUP BY metric_id ORDER BY metric_id; SELECT count(*) AS n FROM m";
    let out = std::process::Command::new(exe)
        .args(["--table", &format!("m={}", f.numeric_dir.display()), "--format", "csv", sql])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut expected = String::from("metric_id,n,total\n");
    for (id, n, _, _, sum) in per_metric(&f.numeric) {
        expected += &format!("{id},{n},{sum:?}\n");
    }
    expected += &format!("n\n{}\n", f.numeric.len());
    assert_eq!(text.replace(".0\n", "\n"), expected.replace(".0\n", "\n"));

    // The same statements from a file and from standard input.
    let script = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("script-{}.sql", std::process::id()));
    std::fs::write(&script, format!("-- per metric, then all\n{sql};\n")).unwrap();
    let table = format!("m={}", f.numeric_dir.display());
    let from_file =
        std::process::Command::new(exe).args(["--table", &table, "--format", "csv", "-f", script.to_str().unwrap()]).output().unwrap();
    assert_eq!(String::from_utf8(from_file.stdout).unwrap(), text, "{}", String::from_utf8_lossy(&from_file.stderr));
    let mut child = std::process::Command::new(exe)
        .args(["--table", &table, "--format", "csv", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), sql.as_bytes()).unwrap();
    assert_eq!(String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap(), text);
    // A file that is not there is an error (1); a file and statements both, a bad command line (2).
    let absent = std::process::Command::new(exe).args(["-f", "/no/such/script.sql"]).output().unwrap();
    assert_eq!(absent.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&absent.stderr).contains("reading /no/such/script.sql"));
    let both = std::process::Command::new(exe).args(["-f", script.to_str().unwrap(), "SELECT 1"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2));

    let bad = std::process::Command::new(exe).args(["--format", "xml", "SELECT 1"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let missing = std::process::Command::new(exe).args(["SELECT count(*) FROM no_such_table"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("mebo-sql:"));
}

#[tokio::test]
async fn a_scan_holds_its_files_in_the_session_memory_pool() {
    let f = fixture();
    let largest = common::files(&f.numeric_dir).values().map(Vec::len).max().unwrap();
    let sql = "SELECT min(value), max(value), min(ts) FROM m";
    let lowest = f.numeric.iter().map(|p| p.value).fold(f64::INFINITY, f64::min);
    let highest = f.numeric.iter().map(|p| p.value).fold(f64::NEG_INFINITY, f64::max);

    // Room enough: the answers, a file's bytes at least were held, and
    // every byte was given back.
    let pool = common::PeakPool::new(64 << 20);
    let ctx = pool.context(4);
    ctx.register_mebo("m", f.numeric_dir.to_str().unwrap()).await.unwrap();
    let r = query(&ctx, sql).await.unwrap();
    assert_eq!((f64s(&r.batches, 0), f64s(&r.batches, 1)), (vec![lowest], vec![highest]));
    assert!(pool.peak() >= largest, "peak {} against a file of {largest}", pool.peak());
    assert_eq!(pool.reserved(), 0);

    // Less room than a file: the query's error names the file, and nothing is kept.
    let pool = common::PeakPool::new(largest / 2);
    let ctx = pool.context(4);
    ctx.register_mebo("m", f.numeric_dir.to_str().unwrap()).await.unwrap();
    let error = query(&ctx, sql).await.err().unwrap().to_string();
    assert!(error.contains("Resources exhausted") && error.contains("MeboScan[file:///") && error.contains(".mebo]"), "{error}");
    assert_eq!(pool.left_reserved().await, 0);
}

#[test]
fn the_command_bounds_its_memory() {
    let f = fixture();
    let largest = common::files(&f.numeric_dir).values().map(Vec::len).max().unwrap();
    let exe = env!("CARGO_BIN_EXE_mebo-sql");
    let table = format!("m={}", f.numeric_dir.display());
    let run = |limit: &str| {
        std::process::Command::new(exe)
            .args(["--table", &table, "--format", "csv", "--memory-limit", limit, "SELECT max(value) AS top FROM m"])
            .output()
            .unwrap()
    };
    let top = f.numeric.iter().map(|p| p.value).fold(f64::NEG_INFINITY, f64::max);
    let roomy = run("64m");
    assert!(roomy.status.success(), "{}", String::from_utf8_lossy(&roomy.stderr));
    assert_eq!(String::from_utf8_lossy(&roomy.stdout).lines().nth(1).unwrap().parse::<f64>().unwrap(), top);
    // Less than a file: the statement fails, naming the file, and prints nothing.
    let tight = run(&(largest / 2).to_string());
    let stderr = String::from_utf8_lossy(&tight.stderr);
    assert_eq!(tight.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Resources exhausted") && stderr.contains("MeboScan[file:///"), "{stderr}");
    assert!(tight.stdout.is_empty());
    // A size it cannot read, or a bound for a running cluster's executors, is a bad command line.
    for args in [&["--memory-limit", "lots", "SELECT 1"][..], &["--memory-limit", "1g", "--scheduler", "df://127.0.0.1:9", "SELECT 1"]] {
        let bad = std::process::Command::new(exe).args(args).output().unwrap();
        assert_eq!(bad.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&bad.stderr));
    }
}
