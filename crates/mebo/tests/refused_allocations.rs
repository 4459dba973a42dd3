//! Every buffer sized by a blob is reserved fallibly. This test binary's
//! allocator refuses, on the armed thread, the k-th allocation of at least
//! `LARGE` bytes; each decode call is run with k = 0, 1, 2, … until it makes
//! no refusal, and must return `OutOfMemory` while one is refused and exactly
//! its unarmed result after. An infallible allocation that is refused aborts
//! the binary, so a large buffer that bypasses `limits` fails this test.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{Compression, Error, Layout};

/// Allocations from this size up are the ones refused (smaller ones are the
/// per-call constants: error messages, small tables).
const LARGE: usize = 2 << 10;

thread_local! {
    /// While armed: the position, among this thread's large allocations, of the one to refuse.
    static REFUSE: Cell<Option<usize>> = const { Cell::new(None) };
    /// Large allocations seen on this thread since it was armed.
    static SEEN: Cell<usize> = const { Cell::new(0) };
}

/// Whether to refuse an allocation of `size` bytes (counting it when large).
fn refused(size: usize) -> bool {
    if size < LARGE {
        return false;
    }
    let Ok(Some(k)) = REFUSE.try_with(Cell::get) else { return false };
    SEEN.try_with(|seen| {
        let n = seen.get();
        seen.set(n + 1);
        n == k
    })
    .unwrap_or(false)
}

struct Refusing;

// SAFETY: every call is forwarded unchanged to the system allocator, or
// answered with null (a refusal, which `GlobalAlloc` allows).
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && refused(new_size) {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Refusing = Refusing;

/// `f` run with this thread's `k`-th large allocation refused; whether it was.
fn armed<T>(k: usize, f: impl FnOnce() -> T) -> (T, bool) {
    SEEN.with(|s| s.set(0));
    REFUSE.with(|r| r.set(Some(k)));
    let out = f();
    REFUSE.with(|r| r.set(None));
    (out, SEEN.with(Cell::get) > k)
}

/// `call` refused at each of its large allocations in turn: `OutOfMemory`
/// each time, then (none left to refuse) exactly `want`. Returns how many
/// large allocations it makes.
fn each_refusal<T: PartialEq + std::fmt::Debug>(what: &str, want: &T, call: impl Fn() -> Result<T, Error>) -> usize {
    for k in 0.. {
        match armed(k, &call) {
            (Err(Error::OutOfMemory { .. }), true) => {}
            (Ok(_), true) => panic!("{what}: large allocation #{k} was refused, yet the call succeeded"),
            (Err(e), true) => panic!("{what}, large allocation #{k} refused: {e} ({}), not OUT_OF_MEMORY", e.code()),
            (got, false) => {
                assert!(got.as_ref().ok() == Some(want), "{what}: {got:?} with nothing refused");
                return k;
            }
        }
    }
    unreachable!()
}

/// A text blob of 300 metrics × 200 points with tags; values mostly
/// distinct, so the dictionaries grow past their linear lookup.
fn text_blob(compression: Compression) -> Vec<u8> {
    let o = TextEncoderOptions { tags: true, data_compression: compression, ..Default::default() };
    let mut enc = TextEncoder::new(1_700_000_000_000_000, o).unwrap();
    for m in 0..300u64 {
        enc.start_metric_id(m + 1, 200).unwrap();
        for i in 0..200i64 {
            let value = if i % 3 == 0 { "ok".to_string() } else { format!("status {m}-{i}") };
            enc.add_point(1_700_000_000_000_000 + i * 1_000_000, &value, Some(&format!("host=h{}", i % 7))).unwrap();
        }
        enc.end_metric().unwrap();
    }
    enc.finish().unwrap()
}

#[test]
fn text_decoding_under_refusals_is_exact_or_out_of_memory() {
    for compression in [Compression::None, Compression::Zstd] {
        let bytes = text_blob(compression);
        let blob = TextBlob::open(&bytes).unwrap();
        let all = blob.decode_all().unwrap();
        let dictionary = blob.decode_dictionary().unwrap();
        // The unarmed results are right: a plain first-appearance dictionary.
        let mut first: Vec<&str> = Vec::new();
        for i in 0..all.values.len() {
            let v = all.values.get(i).unwrap();
            if !first.contains(&v) {
                first.push(v);
            }
        }
        assert_eq!(dictionary.values.strings, first);
        assert_eq!(dictionary.values.strings.len(), 1 + 300 * 133);
        assert_eq!(dictionary.tags.as_ref().unwrap().strings.len(), 7);
        assert!((0..all.values.len()).all(|i| dictionary.values.get(i) == all.values.get(i)));
        let per_metric: Vec<_> = blob.metrics().map(|m| (m.timestamps().unwrap(), m.values().unwrap(), m.tags().unwrap())).collect();

        let large = [
            each_refusal("open", &60_000, || TextBlob::open(&bytes).map(|b| b.total_points())),
            each_refusal("decode_dictionary", &dictionary, || blob.decode_dictionary()),
            each_refusal("decode_all", &all, || blob.decode_all()),
        ];
        // Codes, timestamps and the value lookup at least: the refusals reached them.
        assert!(large[1] >= 3, "{large:?}");
        // A few metrics: each makes the same allocations.
        for (m, want) in blob.metrics().zip(&per_metric).take(12) {
            each_refusal("metric", want, || Ok((m.timestamps()?, m.values()?, m.tags()?)));
        }
    }
}

/// A numeric blob of 600 metrics × 100 points, tags on: enough metrics that
/// the open's metric ids (8 bytes a metric) and timestamp sources (4) are
/// large allocations too.
fn numeric_blob(layout: Layout) -> Vec<u8> {
    let o = NumericEncoderOptions { tags: true, layout, ..Default::default() };
    let mut enc = NumericEncoder::new(1_700_000_000_000_000, o);
    for m in 0..600u64 {
        let ts: Vec<i64> = (0..100).map(|i| 1_700_000_000_000_000 + i * 1_000_000 + (i * m as i64) % 7).collect();
        let vs: Vec<f64> = (0..100).map(|i| (i as f64 * 0.25 + m as f64).sin()).collect();
        let tags: Vec<String> = (0..100).map(|i| format!("host=h{}", (i + m) % 3)).collect();
        enc.start_metric_id(m + 1, 100).unwrap();
        enc.add_points(&ts, &vs, Some(&tags)).unwrap();
        enc.end_metric().unwrap();
    }
    enc.finish().unwrap()
}

#[test]
fn numeric_decoding_under_refusals_is_exact_or_out_of_memory() {
    for layout in [Layout::V1, Layout::V2] {
        let bytes = numeric_blob(layout);
        let blob = NumericBlob::open(&bytes).unwrap();
        let all = blob.decode_all().unwrap();
        assert_eq!(all.values.len(), 60_000);
        assert_eq!(all.values[101], (1.0f64 * 0.25 + 1.0).sin());
        each_refusal("open", &60_000, || NumericBlob::open(&bytes).map(|b| b.total_points()));
        let large = each_refusal("decode_all", &all, || blob.decode_all());
        assert!(large >= 2, "{large}");
        let first = blob.metrics().next().unwrap();
        let want = (first.timestamps().unwrap(), first.values().unwrap(), first.tags().unwrap());
        each_refusal("metric", &want, || Ok((first.timestamps()?, first.values()?, first.tags()?)));
    }
}
