//! Timestamp column encodings (int64 microseconds).
//!
//! All three codecs share one shape: `encode(timestamps, order, out)` appends one
//! metric's column to `out`, `decode(col, order, out)` fills exactly `out.len()`
//! timestamps and ignores bytes after the last point. Only [`RawTimestamps`]
//! depends on the byte order; both delta encodings are byte-order free.

pub mod delta;
pub mod delta_packed;
mod delta_simd;
mod packed_layout;
pub mod raw;
mod stop_walk;

pub use delta::{DeltaKernel, DeltaTimestamps};
pub use delta_packed::{DeltaPackedTimestamps, PackedKernel};
pub use raw::RawTimestamps;

use crate::encoding::varint;
use crate::error::{Error, Result};

/// The error every timestamp codec raises for a malformed or short column.
fn corrupt(detail: impl Into<String>) -> Error {
    Error::corrupt("timestamp", detail)
}

/// Where a delta-of-delta stream continues after the points handled so far.
#[derive(Clone, Copy)]
struct DeltaState {
    /// Byte position in the column (decoding only).
    pos: usize,
    /// The last timestamp.
    ts: i64,
    /// The last delta between timestamps.
    delta: i64,
}

/// Both delta encodings open the same way: the first timestamp as an unsigned
/// varint of its two's-complement bits, then the first delta as a zigzag varint.
/// Returns the state after them and the timestamps left for delta-of-deltas
/// (empty when there were fewer than three).
#[cfg(feature = "encode")]
fn encode_delta_head<'a>(timestamps: &'a [i64], out: &mut Vec<u8>) -> (DeltaState, &'a [i64]) {
    let mut state = DeltaState { pos: 0, ts: 0, delta: 0 };
    let Some((&first, rest)) = timestamps.split_first() else {
        return (state, &[]);
    };
    varint::put_uvarint(out, first as u64);
    let Some((&second, rest)) = rest.split_first() else {
        return (state, &[]);
    };
    state.ts = second;
    state.delta = second.wrapping_sub(first);
    varint::put_uvarint(out, varint::zigzag(state.delta));
    (state, rest)
}

/// Decoding twin of [`encode_delta_head`]: fills the first one or two slots of
/// `out` and returns the state after them and the slots left to fill.
// Inlined: returned through memory, its state was read back as one 16-byte
// load over two 8-byte stores, which store forwarding cannot serve (natively
// 2-3 µs of a 200-metric blob's 53).
#[inline(always)]
fn decode_delta_head<'o>(col: &[u8], out: &'o mut [i64]) -> Result<(DeltaState, &'o mut [i64])> {
    let mut state = DeltaState { pos: 0, ts: 0, delta: 0 };
    let Some((first_slot, rest)) = out.split_first_mut() else {
        return Ok((state, &mut []));
    };
    let first = varint::read_uvarint(col, &mut state.pos).ok_or_else(|| corrupt("first timestamp varint is short or invalid"))? as i64;
    *first_slot = first;
    let Some((second_slot, rest)) = rest.split_first_mut() else {
        return Ok((state, &mut []));
    };
    state.delta =
        varint::unzigzag(varint::read_uvarint(col, &mut state.pos).ok_or_else(|| corrupt("first delta varint is short or invalid"))?);
    state.ts = first.wrapping_add(state.delta);
    *second_slot = state.ts;
    Ok((state, rest))
}

#[cfg(all(test, feature = "encode"))]
pub(crate) mod test_vectors {
    //! Every v1 numeric vector without a codec, grouped by timestamp encoding, so
    //! each codec can be checked column by column against the reference bytes.

    use crate::test_support::{manifest, read_blob, read_input, v1_columns, RawColumns};
    use crate::ByteOrder;

    pub struct VectorCase {
        pub name: String,
        pub order: ByteOrder,
        pub columns: Vec<RawColumns>,
        /// The input timestamps of each metric, in column order.
        pub timestamps: Vec<Vec<i64>>,
    }

    /// All v1 numeric cases with no timestamp or value codec whose timestamp
    /// encoding is `encoding` ("raw", "delta" or "deltapacked").
    pub fn cases(encoding: &str) -> Vec<VectorCase> {
        let mut cases = Vec::new();
        for case in &manifest() {
            let opts = &case["options"];
            if case["kind"] != "numeric"
                || opts["layout"] != "v1"
                || opts["timestampCompression"] != "none"
                || opts["valueCompression"] != "none"
                || opts["timestampEncoding"] != encoding
                // A tag payload is always zstd.
                || (opts["tags"] == true && !crate::Compression::Zstd.is_built())
            {
                continue;
            }
            let name = case["name"].as_str().unwrap().to_string();
            let blob = read_blob(&name);
            let (order, columns) = v1_columns(&blob);
            let input = read_input(case["dataset"].as_str().unwrap());
            assert_eq!(columns.len(), input.metrics.len(), "{name}: metric count");
            let timestamps = columns
                .iter()
                .zip(&input.metrics)
                .map(|(col, metric)| {
                    assert_eq!(col.id, metric.id, "{name}: v1 keeps insertion order");
                    assert_eq!(col.count, metric.timestamps.len(), "{name}: point count");
                    metric.timestamps.clone()
                })
                .collect();
            cases.push(VectorCase { name, order, columns, timestamps });
        }
        cases
    }

    /// One timestamp codec's column functions, for the checks every codec passes.
    pub struct Codec {
        pub name: &'static str,
        pub encode: fn(&[i64], ByteOrder, &mut Vec<u8>),
        pub decode: fn(&[u8], ByteOrder, &mut [i64]) -> crate::Result<()>,
    }

    impl Codec {
        pub fn encoded(&self, ts: &[i64]) -> Vec<u8> {
            let mut out = Vec::new();
            (self.encode)(ts, ByteOrder::Little, &mut out);
            out
        }

        pub fn decoded(&self, col: &[u8], n: usize) -> crate::Result<Vec<i64>> {
            let mut out = vec![0; n];
            (self.decode)(col, ByteOrder::Little, &mut out).map(|()| out)
        }

        /// The edge sequences round-trip, encoded after a byte already in the buffer.
        pub fn check_edge_sequences(&self) {
            for ts in edge_sequences() {
                let mut out = vec![0xAA];
                (self.encode)(&ts, ByteOrder::Little, &mut out);
                assert_eq!(self.decoded(&out[1..], ts.len()).unwrap(), ts, "{}: {ts:?}", self.name);
            }
        }

        /// Every cut of every vector column is a CORRUPT_COLUMN error: every
        /// point needs at least one byte, so a cut column is short.
        pub fn check_truncations(&self) {
            for case in cases(self.name).into_iter().filter(|c| c.order == ByteOrder::Little) {
                for (col, ts) in case.columns.iter().zip(&case.timestamps) {
                    let bytes = &col.timestamps;
                    for len in 0..bytes.len() {
                        let err = self.decoded(&bytes[..len], ts.len()).unwrap_err();
                        assert_eq!(err.code(), "CORRUPT_COLUMN", "{}", case.name);
                    }
                }
            }
        }

        /// Random bytes of up to `max_len` read as up to `max_points` points: no panic.
        pub fn check_hostile_bytes(&self, max_len: usize, max_points: usize) {
            use proptest::prelude::*;
            deterministic_runner(4000)
                .run(&(proptest::collection::vec(any::<u8>(), 0..max_len), 0..max_points), |(bytes, n)| {
                    let _ = self.decoded(&bytes, n);
                    Ok(())
                })
                .unwrap();
        }

        /// Any int64 sequence, and jittered series from any start, round-trip.
        pub fn check_round_trips(&self) {
            use proptest::prelude::*;
            let mut runner = deterministic_runner(512);
            runner
                .run(&proptest::collection::vec(any::<i64>(), 0..200), |ts| {
                    prop_assert_eq!(self.decoded(&self.encoded(&ts), ts.len()).unwrap(), ts);
                    Ok(())
                })
                .unwrap();
            let jittered = (any::<i64>(), proptest::collection::vec(-2_000_000i64..2_000_000, 0..200));
            runner
                .run(&jittered, |(start, steps)| {
                    let ts: Vec<i64> = steps
                        .iter()
                        .scan(start, |t, s| {
                            *t = t.wrapping_add(*s);
                            Some(*t)
                        })
                        .collect();
                    prop_assert_eq!(self.decoded(&self.encoded(&ts), ts.len()).unwrap(), ts);
                    Ok(())
                })
                .unwrap();
        }
    }

    /// A codec's `decode_within(kernel, bytes, len, out)`: the column
    /// `bytes[..len]`, the bytes after it read but never decoded.
    pub type DecodeWithin<K> = fn(K, &[u8], usize, &mut [i64]) -> crate::error::Result<()>;

    /// Each kernel's result on `col` for `n` points: the timestamps, or the
    /// error's message. Each kernel must give the same with the column
    /// followed by other bytes (zeros, stop bytes, continuation bytes, noise),
    /// as a payload's next columns follow it.
    pub fn by_kernels<K: Copy + std::fmt::Debug>(
        kernels: &[K],
        decode_within: DecodeWithin<K>,
        col: &[u8],
        n: usize,
    ) -> Vec<std::result::Result<Vec<i64>, String>> {
        let decode = |kernel, bytes: &[u8]| {
            let mut out = vec![0; n];
            decode_within(kernel, bytes, col.len(), &mut out).map(|()| out).map_err(|e| e.to_string())
        };
        let noise = crate::test_support::noise(col.len() as u64 | 1, 200);
        kernels
            .iter()
            .map(|&kernel| {
                let alone = decode(kernel, col);
                for after in [&[0x00; 200][..], &[0x7f; 200], &[0x80; 200], &[0xff; 200], &noise] {
                    let followed = decode(kernel, &[col, after].concat());
                    assert_eq!(followed, alone, "{kernel:?}: the column followed by {:02x?}.. vs alone", &after[..4]);
                }
                alone
            })
            .collect()
    }

    /// Every kernel decodes every vector column of `encoding` to its input.
    pub fn check_kernels_on_vectors<K: Copy + std::fmt::Debug>(encoding: &str, kernels: &[K], decode_within: DecodeWithin<K>) {
        for case in cases(encoding) {
            for (col, ts) in case.columns.iter().zip(&case.timestamps) {
                for result in by_kernels(kernels, decode_within, &col.timestamps, ts.len()) {
                    assert_eq!(result.as_ref(), Ok(ts), "{}", case.name);
                }
            }
        }
    }

    /// A quiet, reproducible proptest runner for tests that drive it by hand.
    pub fn deterministic_runner(cases: u32) -> proptest::test_runner::TestRunner {
        use proptest::test_runner::{Config, TestRng, TestRunner};
        let config = Config { cases, failure_persistence: None, ..Config::default() };
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        TestRunner::new_with_rng(config, rng)
    }

    /// Interesting hand-made sequences shared by the codecs' unit tests.
    pub fn edge_sequences() -> Vec<Vec<i64>> {
        const JUMP: i64 = 1 << 40;
        vec![
            vec![],
            vec![0],
            vec![i64::MIN],
            vec![i64::MAX],
            vec![-1],
            vec![i64::MIN, i64::MAX],
            vec![i64::MAX, i64::MIN],
            vec![i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN],
            vec![i64::MAX, i64::MAX, i64::MAX, i64::MAX, i64::MAX],
            vec![0, i64::MAX, 0, i64::MIN, 0, -1, 1],
            vec![1_700_000_000_000_000; 9],
            (0..37).map(|i| 1_700_000_000_000_000 - i * 1_000_000).collect(), // backwards
            (0..23).map(|i| i * JUMP).collect(),
            (0..23).map(|i| -JUMP * (i % 3) + i).collect(),
            (0..50).map(|i| (i * i * 7919) ^ (i << 33)).collect(),
            (0..10).map(|i| i64::MIN + i).collect(),
            (0..10).map(|i| i64::MAX - 3 * i).collect(),
            (0..129).map(|i| 1_700_000_000_000_000 + i * 1_000_000).collect(), // perfectly regular
            (0..6).map(|i| [-5, -1, 0, 1, 5, -(1 << 50)][i]).collect(),
        ]
    }
}
