//! The tests' data: a directory of a few hundred numeric blobs and one of
//! text blobs written with the core's encoders in many layouts, and every
//! point as the core reads it back, blob by blob, for the plain
//! computations the SQL answers are compared with.

#![allow(dead_code)] // each test binary uses part of it

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryPool, MemoryReservation};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, ColumnConfig, Compression, Layout, TimestampEncoding, ValueEncoding};

/// One numeric point as the core decodes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub id: u64,
    pub ts: i64,
    pub value: f64,
}

/// One text point.
#[derive(Debug, Clone, PartialEq)]
pub struct TextPoint {
    pub id: u64,
    pub ts: i64,
    pub value: String,
    pub tag: Option<String>,
}

pub const NAMES: [&str; 12] = [
    "host0.cpu.user",
    "host0.cpu.system",
    "host1.cpu.user",
    "host1.cpu.system",
    "host2.cpu.user",
    "host2.cpu.system",
    "host0.mem.used",
    "host1.mem.used",
    "host2.mem.used",
    "disk.io.read",
    "disk.io.write",
    "net.rx",
];

/// 2024-01-01T00:00:00Z in microseconds.
pub const BASE: i64 = 1_704_067_200_000_000;
pub const HOUR: i64 = 3_600_000_000;
pub const NUMERIC_BLOBS: usize = 300;
pub const TEXT_BLOBS: usize = 40;

pub struct Fixture {
    pub numeric_dir: PathBuf,
    pub text_dir: PathBuf,
    pub numeric: Vec<Point>,
    pub text: Vec<TextPoint>,
    /// For each numeric blob, its metric ids.
    pub blob_ids: Vec<Vec<u64>>,
    pub numeric_bytes: u64,
}

/// A small deterministic generator (xorshift64*): the same data every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn numeric_options(i: usize) -> NumericEncoderOptions {
    let ts = TimestampEncoding::ALL[i % 3];
    let value = [ValueEncoding::Gorilla, ValueEncoding::Raw, ValueEncoding::Chimp, ValueEncoding::Gorilla][i % 4];
    let codec = [Compression::None, Compression::Zstd, Compression::S2, Compression::Lz4];
    let config = ColumnConfig {
        timestamp_encoding: ts,
        timestamp_compression: codec[i % 4],
        value_encoding: value,
        value_compression: codec[(i / 4) % 4],
    };
    NumericEncoderOptions {
        config,
        tags: i.is_multiple_of(5),
        byte_order: if i % 7 == 3 { ByteOrder::Big } else { ByteOrder::Little },
        layout: [Layout::V1, Layout::V2, Layout::V2Shared][(i / 3) % 3],
    }
}

/// One numeric blob: window `w`, some of the names (stored by name in even
/// windows, by id alone in odd ones: a blob holds one or the other), points
/// every 10 s (one blob in 25 out of order). Values are multiples of 0.25, so every
/// sum is exact in any order and SQL and the plain loop agree to the bit.
pub fn numeric_blob(w: usize, rng: &mut Rng) -> Vec<u8> {
    let options = numeric_options(w);
    let start = BASE + w as i64 * HOUR;
    let mut encoder = NumericEncoder::new(start, options);
    let count = 3 + rng.below(7) as usize;
    let first = rng.below(NAMES.len() as u64) as usize;
    let points = 5 + rng.below(40) as usize;
    for k in 0..count {
        let name = NAMES[(first + k * 5) % NAMES.len()];
        if w.is_multiple_of(2) {
            encoder.start_metric_name(name, points).unwrap();
        } else {
            encoder.start_metric_id(mebo::metric_id(name), points).unwrap();
        }
        for i in 0..points {
            let offset = if w % 25 == 7 { (points - 1 - i) as i64 } else { i as i64 };
            let value = (rng.below(8000) as f64 - 4000.0) * 0.25;
            let tag = format!("dc{}", rng.below(3));
            encoder.add_point(start + offset * 10_000_000 + rng.below(1000) as i64, value, options.tags.then_some(tag.as_str())).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    encoder.finish().unwrap()
}

pub fn text_blob(w: usize, rng: &mut Rng) -> Vec<u8> {
    let options = TextEncoderOptions {
        timestamp_encoding: if w.is_multiple_of(2) { TimestampEncoding::Delta } else { TimestampEncoding::Raw },
        data_compression: [Compression::Zstd, Compression::None, Compression::S2, Compression::Lz4][w % 4],
        tags: w.is_multiple_of(3),
        byte_order: ByteOrder::Little,
    };
    let start = BASE + w as i64 * HOUR;
    let mut encoder = TextEncoder::new(start, options).unwrap();
    for (k, name) in ["log.app", "log.db", "log.web"].iter().enumerate().take(1 + w % 3) {
        let points = 2 + rng.below(10) as usize;
        encoder.start_metric_name(name, points).unwrap();
        for i in 0..points {
            let value = ["ok", "warn", "error", "ünïcode ✓"][rng.below(4) as usize];
            encoder.add_point(start + (i as i64) * 1_000_000 + k as i64, value, options.tags.then_some("node-a")).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    encoder.finish().unwrap()
}

/// An empty directory of this name for this test process.
pub fn write_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let numeric_dir = write_dir("numeric");
        let text_dir = write_dir("text");
        let mut rng = Rng::new(44);
        let (mut numeric, mut blob_ids, mut numeric_bytes) = (Vec::new(), Vec::new(), 0);
        for w in 0..NUMERIC_BLOBS {
            let bytes = numeric_blob(w, &mut rng);
            numeric_bytes += bytes.len() as u64;
            std::fs::write(numeric_dir.join(format!("w{w:04}.mebo")), &bytes).unwrap();
            let blob = NumericBlob::open(&bytes).unwrap();
            blob_ids.push(blob.metric_ids().to_vec());
            for metric in blob.metrics() {
                for (ts, value, _) in metric.points().unwrap() {
                    numeric.push(Point { id: metric.id(), ts, value });
                }
            }
        }
        let mut text = Vec::new();
        for w in 0..TEXT_BLOBS {
            let bytes = text_blob(w, &mut rng);
            std::fs::write(text_dir.join(format!("t{w:04}.mebo")), &bytes).unwrap();
            let blob = TextBlob::open(&bytes).unwrap();
            for metric in blob.metrics() {
                for (ts, value, tag) in metric.points().unwrap() {
                    text.push(TextPoint { id: metric.id(), ts, value: value.to_owned(), tag: tag.map(str::to_owned) });
                }
            }
        }
        Fixture { numeric_dir, text_dir, numeric, text, blob_ids, numeric_bytes }
    })
}

/// Per metric: (id, count, min, max, sum), ordered by id.
pub fn per_metric(points: &[Point]) -> Vec<(u64, i64, f64, f64, f64)> {
    let mut by: std::collections::BTreeMap<u64, (i64, f64, f64, f64)> = Default::default();
    for p in points {
        let e = by.entry(p.id).or_insert((0, f64::INFINITY, f64::NEG_INFINITY, 0.0));
        e.0 += 1;
        e.1 = e.1.min(p.value);
        e.2 = e.2.max(p.value);
        e.3 += p.value;
    }
    by.into_iter().map(|(id, (n, lo, hi, sum))| (id, n, lo, hi, sum)).collect()
}

/// The bytes of every file under `dir`, by path.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    found
}

/// (id, ts, value bits, tag) of every point of the numeric blobs, sorted.
pub fn numeric_points<'a>(blobs: impl IntoIterator<Item = &'a Vec<u8>>) -> Vec<(u64, i64, u64, String)> {
    let mut points = Vec::new();
    for bytes in blobs {
        let blob = NumericBlob::open(bytes).unwrap();
        for metric in blob.metrics() {
            for (ts, value, tag) in metric.points().unwrap() {
                points.push((metric.id(), ts, value.to_bits(), tag.unwrap_or_default().to_owned()));
            }
        }
    }
    points.sort();
    points
}

/// The same points, or the first that differs (not thousands printed).
pub fn same_points<P: PartialEq + std::fmt::Debug>(got: Vec<P>, expected: Vec<P>) {
    assert_eq!(got.len(), expected.len(), "point counts");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!("point {i}: {:?}, expected {:?}", got[i], expected[i]);
    }
}

/// `COPY` of a million points of one metric, `ts` = `value` = 1..=1,000,000
/// (the value's SQL given as `value`, of `v`), to `target` as a stream of
/// raw blobs of 100,000 points: 16 MB, past a multipart upload's first part.
pub fn copy_a_million_points(value: &str, target: &str) -> String {
    format!(
        "COPY (SELECT 'one' AS metric, to_timestamp_micros(v) AS ts, {value} AS value FROM generate_series(1, 1000000) AS t(v)) \
         TO '{target}' STORED AS MEBO OPTIONS ('max_points_per_blob' '100000', 'layout' 'v2', 'config' 'raw-none-raw-none')"
    )
}

/// A blob file per host, each of its own three metrics (`host{h}.m{k}`,
/// 1,000 raw points each: 48 KB, a head of a few hundred bytes), the value of
/// point `i` of metric `k` on host `h` being `h * 10_000 + k * 1000 + i`.
pub fn per_host_dir(name: &str, hosts: usize) -> PathBuf {
    let dir = write_dir(name);
    for h in 0..hosts {
        let options = NumericEncoderOptions::default().with_config("raw-none-raw-none".parse().unwrap());
        let mut encoder = NumericEncoder::new(BASE, options);
        for k in 0..3 {
            encoder.start_metric_name(&format!("host{h}.m{k}"), 1000).unwrap();
            for i in 0..1000 {
                encoder.add_point(BASE + i as i64, (h * 10_000 + k * 1000 + i) as f64, None).unwrap();
            }
            encoder.end_metric().unwrap();
        }
        std::fs::write(dir.join(format!("host{h}.mebo")), encoder.finish().unwrap()).unwrap();
    }
    dir
}

/// A blob of `metrics` metrics (`m0000`, `m0001`, …) of 1,000 points each,
/// written with `config` and `layout`: every metric's timestamps the same
/// (a second apart), point `i` of metric `k` worth `k * 1000 + i` quarters.
/// At 1,000 metrics, megabytes beside a metric's few kilobytes.
pub fn wide_blob(metrics: usize, config: &str, layout: mebo::Layout) -> Vec<u8> {
    let options = NumericEncoderOptions { layout, ..NumericEncoderOptions::default() }.with_config(config.parse().unwrap());
    let mut encoder = NumericEncoder::new(BASE, options);
    for k in 0..metrics {
        encoder.start_metric_name(&format!("m{k:04}"), 1000).unwrap();
        for i in 0..1000 {
            encoder.add_point(BASE + i as i64 * 1_000_000, (k * 1000 + i) as f64 * 0.25, None).unwrap();
        }
        encoder.end_metric().unwrap();
    }
    encoder.finish().unwrap()
}

/// A memory pool of `limit` bytes (DataFusion's greedy pool) that keeps the
/// most the scans' reservations (`MeboScan[…]`) ever held together.
#[derive(Debug)]
pub struct PeakPool {
    inner: GreedyMemoryPool,
    scans: AtomicUsize,
    peak: AtomicUsize,
}

impl PeakPool {
    pub fn new(limit: usize) -> Arc<PeakPool> {
        Arc::new(PeakPool { inner: GreedyMemoryPool::new(limit), scans: AtomicUsize::new(0), peak: AtomicUsize::new(0) })
    }

    /// The most the scans held at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// What is still reserved once the query's tasks are gone: a query that
    /// ends in an error returns before the tasks of its other partitions
    /// are dropped (and their reservations with them). Waits up to 5 s.
    pub async fn left_reserved(&self) -> usize {
        for _ in 0..500 {
            if self.reserved() == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        self.reserved()
    }

    /// A context of `partitions` partitions over this pool, mebo enabled.
    pub fn context(self: &Arc<PeakPool>, partitions: usize) -> SessionContext {
        let runtime = RuntimeEnvBuilder::new().with_memory_pool(self.clone()).build_arc().unwrap();
        let ctx = SessionContext::new_with_config_rt(SessionConfig::new().with_target_partitions(partitions), runtime);
        mebo_datafusion::MeboContextExt::enable_mebo(&ctx).unwrap();
        ctx
    }

    fn lent(&self, reservation: &MemoryReservation, bytes: usize) {
        if reservation.consumer().name().starts_with("MeboScan[") {
            let now = self.scans.fetch_add(bytes, Ordering::Relaxed) + bytes;
            self.peak.fetch_max(now, Ordering::Relaxed);
        }
    }
}

impl std::fmt::Display for PeakPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.inner, f)
    }
}

impl MemoryPool for PeakPool {
    fn name(&self) -> &str {
        "peak"
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.grow(reservation, additional);
        self.lent(reservation, additional);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.shrink(reservation, shrink);
        if reservation.consumer().name().starts_with("MeboScan[") {
            self.scans.fetch_sub(shrink, Ordering::Relaxed);
        }
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> datafusion::common::Result<()> {
        self.inner.try_grow(reservation, additional)?;
        self.lent(reservation, additional);
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }
}
