//! Peak heap use while opening and decoding blobs, measured by a counting
//! global allocator (its own test binary so nothing else shares the counter).
//!
//! The bound: decoding may allocate at most `K` times what the blob's own
//! counts justify,
//!
//! ```text
//! peak ≤ K × (16 B × total points + blob size + FIXED)
//! ```
//!
//! where total points are the points of a blob that opens (0 for a refused
//! one: it must fail before sizing anything by its claims), 16 B a point is the
//! decoded timestamp and value, and FIXED covers per-call constants (codec
//! contexts, index vectors of small blobs). Decompressed payloads are paid out
//! of the same budget: a payload cannot decompress to more than its points can
//! fill.
//!
//! Only allocations through Rust's allocator are counted: libzstd's own
//! mallocs (its decoding context and window) are not; the zstd window is
//! bounded separately (see `compress::zstd`) and by the hostile-blob tests.

mod common;
mod craft;
mod exercise;

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;

use craft::*;
use mebo::numeric::NumericBlob;
use mebo::text::{TextBlob, TextEncoderOptions};
use mebo::{Compression, DecodeLimits, Layout, TimestampEncoding, ValueEncoding};

/// The multiple of the budget decoding may reach (see the module docs).
const K: f64 = 2.0;
/// Per-call constant allowance, in bytes.
const FIXED: usize = 256 << 10;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, SeqCst) + by;
    PEAK.fetch_max(now, SeqCst);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Old and new blocks may coexist during the move: count both.
            grew(new_size);
            CURRENT.fetch_sub(layout.size(), SeqCst);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Measurements must not overlap (tests run on several threads).
static SERIAL: Mutex<()> = Mutex::new(());

/// Peak bytes allocated above the starting level while `f` runs.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    let out = f();
    (out, PEAK.load(SeqCst).saturating_sub(base))
}

struct Measure {
    label: String,
    blob_len: usize,
    points: usize,
    peak: usize,
}

impl Measure {
    fn budget(&self) -> usize {
        16 * self.points + self.blob_len + FIXED
    }
    fn ratio(&self) -> f64 {
        self.peak as f64 / self.budget() as f64
    }
}

/// Open and decode_all a numeric blob, then (separately) every accessor.
fn numeric_peaks(label: &str, b: &[u8], limits: &DecodeLimits) -> [Measure; 2] {
    let (points, peak) = peak_of(|| match NumericBlob::open_with_limits(b, limits) {
        Ok(blob) => {
            let _ = blob.decode_all();
            blob.total_points()
        }
        Err(_) => 0,
    });
    let (_, all) = peak_of(|| exercise::numeric(b, limits));
    [
        Measure { label: format!("{label} open+decode_all"), blob_len: b.len(), points, peak },
        Measure { label: format!("{label} every accessor"), blob_len: b.len(), points, peak: all },
    ]
}

fn text_peaks(label: &str, b: &[u8], limits: &DecodeLimits) -> [Measure; 2] {
    let (points, peak) = peak_of(|| match TextBlob::open_with_limits(b, limits) {
        Ok(blob) => {
            let _ = blob.decode_all();
            blob.total_points()
        }
        Err(_) => 0,
    });
    let (_, all) = peak_of(|| exercise::text(b, limits));
    [
        Measure { label: format!("{label} open+decode_all"), blob_len: b.len(), points, peak },
        Measure { label: format!("{label} every accessor"), blob_len: b.len(), points, peak: all },
    ]
}

/// The accessors keep up to three decoded copies of a metric beside
/// decode_all's columns (timestamps, values, points): allow for them.
const K_EVERY_ACCESSOR: f64 = 2.0 * K;

fn check(measures: &[Measure]) {
    let mut worst: Vec<&Measure> = measures.iter().collect();
    worst.sort_by(|a, b| b.ratio().total_cmp(&a.ratio()));
    let top = |suffix: &'static str| worst.iter().filter(move |m| m.label.ends_with(suffix)).take(4);
    for m in top("open+decode_all").chain(top("every accessor")) {
        println!(
            "{:<70} blob {:>9} B, points {:>8}, peak {:>10} B, budget {:>10} B, ratio {:.3}",
            m.label,
            m.blob_len,
            m.points,
            m.peak,
            m.budget(),
            m.ratio()
        );
    }
    for m in measures {
        let k = if m.label.ends_with("every accessor") { K_EVERY_ACCESSOR } else { K };
        assert!(m.ratio() <= k, "{}: peak {} B is {:.2} × the budget {} B (k = {k})", m.label, m.peak, m.ratio(), m.budget());
    }
}

#[test]
fn real_blobs_stay_within_the_bound() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let limits = DecodeLimits::default();
    let mut measures = Vec::new();
    for case in common::manifest() {
        let bytes = std::fs::read(common::vectors_dir().join(case["file"].as_str().unwrap())).unwrap();
        let name = case["name"].as_str().unwrap();
        let peaks = if case["kind"] == "text" { text_peaks(name, &bytes, &limits) } else { numeric_peaks(name, &bytes, &limits) };
        assert!(peaks[0].points > 0, "{name} decodes");
        measures.extend(peaks);
    }
    check(&measures);
}

/// Crafted blobs that claim far more than they hold.
fn crafted() -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    let o = |ts, val, layout| options(ts, val, layout);
    let mut add = |label: &str, b: Vec<u8>| out.push((label.to_string(), b, false));

    let mut b = numeric(
        options_with_codecs(TimestampEncoding::Delta, Compression::None, ValueEncoding::Gorilla, Compression::Zstd, Layout::V2),
        2,
        50,
    );
    replace_payload(&mut b, Payload::Values, bomb(Compression::Zstd));
    add("zstd bomb (100 MiB declared)", b);

    let mut b =
        numeric(options_with_codecs(TimestampEncoding::Delta, Compression::Zstd, ValueEncoding::Raw, Compression::None, Layout::V1), 1, 50);
    replace_payload(&mut b, Payload::Timestamps, &zstd_rle_frame(800));
    add("zstd bomb (100 MiB, no size)", b);

    for codec in [Compression::S2, Compression::Lz4] {
        let mut b = numeric(options_with_codecs(TimestampEncoding::Raw, Compression::None, ValueEncoding::Chimp, codec, Layout::V2), 2, 40);
        replace_payload(&mut b, Payload::Values, bomb(codec));
        add(&format!("{codec:?} bomb (100 MiB)"), b);
    }

    let mut b = numeric(
        mebo::numeric::NumericEncoderOptions { tags: true, ..o(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2) },
        2,
        30,
    );
    replace_payload(&mut b, Payload::Tags, bomb(Compression::Zstd));
    add("tag payload bomb", b);

    let mut b = numeric(o(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
    set_entry(&mut b, 0, Field::Count, 4_000_000_000);
    add("extended count 4e9", b);

    // Just under the default point cap, on columns of a few bytes, for every
    // value encoding (ALP can hold any count in 16 bytes).
    for val in ValueEncoding::ALL {
        let mut b = numeric(o(TimestampEncoding::Delta, val, Layout::V2), 1, 70_000);
        set_entry(&mut b, 0, Field::Count, (64 << 20) - 1);
        add(&format!("count 64Mi-1 on a 70k-point {val:?} column"), b);
    }

    // LZ4 blocks of raw columns decode straight into 8 bytes a point only
    // when that is at most twice the block: a count of 8 Mi (64 MiB of
    // timestamps, under the payload cap) over 70k points' blocks must not size
    // that buffer, and a bomb behind raw values takes the walk.
    let raw_lz4 = options_with_codecs(TimestampEncoding::Raw, Compression::Lz4, ValueEncoding::Raw, Compression::Lz4, Layout::V2);
    let mut b = numeric(raw_lz4, 1, 70_000);
    set_entry(&mut b, 0, Field::Count, 8 << 20);
    add("count 8 Mi over raw LZ4 columns of 70k points", b);
    let mut b = numeric(raw_lz4, 2, 40);
    replace_payload(&mut b, Payload::Values, bomb(Compression::Lz4));
    add("Lz4 bomb behind raw values", b);

    let mut b = numeric(o(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1), 3, 20);
    set_u32(&mut b, COUNT, u32::MAX);
    add("metric count u32::MAX", b);

    let mut b = text_blob(TextEncoderOptions { data_compression: Compression::Zstd, ..Default::default() }, false);
    let data_off = get_u32(&b, 20);
    b.truncate(data_off);
    b.extend_from_slice(bomb(Compression::Zstd));
    out.push(("text zstd bomb".into(), b, true));

    let mut b = text_blob(TextEncoderOptions::default(), false);
    set_u32(&mut b, COUNT, u32::MAX);
    out.push(("text metric count u32::MAX".into(), b, true));
    out
}

/// Every crafted blob is refused at open, so its budget is its size alone:
/// nothing may be sized by the counts or lengths it claims.
#[test]
fn crafted_blobs_stay_within_the_bound() {
    // Built under the lock: the 100 MiB of zeros behind the bombs must not
    // land in another test's measurement.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let crafted = crafted();
    let limits = DecodeLimits::default();
    let mut measures = Vec::new();
    for (label, b, is_text) in &crafted {
        let opened = if *is_text { TextBlob::open(b).err() } else { NumericBlob::open(b).err() };
        assert!(opened.is_some(), "{label}: must be refused at open");
        let mut peaks = if *is_text { text_peaks(label, b, &limits) } else { numeric_peaks(label, b, &limits) };
        for m in &mut peaks {
            assert_eq!(m.points, 0);
        }
        measures.extend(peaks);
    }
    check(&measures);
}
