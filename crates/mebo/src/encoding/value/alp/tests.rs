use std::path::Path;

use proptest::prelude::*;

use super::bitpack::{low_mask, map_codes_any, map_codes_main, map_codes_rd_left, map_codes_rd_right};
use super::*;
use crate::test_support::vectors_dir;
use crate::Error;

// ---------- helpers ----------

/// splitmix64: deterministic test data without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// One ALP v1 no-codec case: its blob and the values of each metric by id.
struct Case {
    name: String,
    blob: Vec<u8>,
    inputs: Vec<(u64, Vec<f64>)>,
}

/// Metric ids and values of an input file (vectors or bench schema).
fn read_values(path: &Path) -> Vec<(u64, Vec<f64>)> {
    mebo_testdata::read_input_file(path).metrics.into_iter().map(|m| (m.id, m.values)).collect()
}

/// The ALP cases with a v1 layout and no codec, from a manifest.
fn cases_in(dir: &Path) -> Vec<Case> {
    mebo_testdata::manifest(dir)
        .iter()
        .filter(|c| {
            let o = &c["options"];
            c["kind"] == "numeric"
                && o["valueEncoding"] == "alp"
                && o["layout"] == "v1"
                && o["valueCompression"] == "none"
                && o["timestampCompression"] == "none"
        })
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_string(),
            blob: std::fs::read(dir.join(c["file"].as_str().unwrap())).expect("blob"),
            inputs: read_values(&dir.join(c["options"]["input"].as_str().unwrap())),
        })
        .collect()
}

fn all_cases() -> Vec<Case> {
    let mut cases = cases_in(&vectors_dir());
    cases.extend(cases_in(&mebo_testdata::bench_dir()));
    assert!(cases.len() >= 33, "expected every ALP v1 none-none case, found {}", cases.len());
    cases
}

/// One metric's value column cut out of a v1 no-codec blob.
struct ValueColumn {
    id: u64,
    count: usize,
    bytes: Vec<u8>,
}

/// The value columns of a v1 numeric blob without codec or names (a values-only
/// variant of `test_support::v1_columns`, which also cuts tag columns).
fn value_columns(blob: &[u8]) -> (ByteOrder, Vec<ValueColumn>) {
    let flags = u16::from_le_bytes([blob[0], blob[1]]);
    assert_eq!(flags & 0xFFF0, 0xEA10, "v1 numeric blob");
    assert_eq!(flags & 0x4, 0, "no metric names");
    assert_eq!(blob[3], 0x11, "no codec");
    let order = if flags & 0x2 != 0 { ByteOrder::Big } else { ByteOrder::Little };
    let u32_at = |p: usize| order.u32(blob[p..p + 4].try_into().unwrap()) as usize;
    let u16_at = |p: usize| order.u16(blob[p..p + 2].try_into().unwrap()) as usize;
    let metrics = u32_at(12);
    let payload = &blob[u32_at(24)..u32_at(28)];
    // Index entries: id (8), count (2), then 16-bit deltas of the timestamp,
    // value and tag offsets.
    let mut entries = Vec::new();
    let mut offset = 0;
    for i in 0..metrics {
        let p = 32 + i * 16;
        offset += u16_at(p + 12);
        entries.push((order.u64(blob[p..p + 8].try_into().unwrap()), u16_at(p + 8), offset));
    }
    let columns = (0..metrics)
        .map(|i| {
            let (id, count, start) = entries[i];
            let end = entries.get(i + 1).map_or(payload.len(), |e| e.2);
            ValueColumn { id, count, bytes: payload[start..end].to_vec() }
        })
        .collect();
    (order, columns)
}

/// Every (order, reference column, input values) of every case.
fn all_columns() -> Vec<(String, ByteOrder, Vec<u8>, Vec<f64>)> {
    let mut out = Vec::new();
    for case in all_cases() {
        let (order, columns) = value_columns(&case.blob);
        assert_eq!(columns.len(), case.inputs.len(), "{}", case.name);
        for col in columns {
            let values = &case.inputs.iter().find(|(id, _)| *id == col.id).expect("metric in input").1;
            assert_eq!(values.len(), col.count, "{}", case.name);
            out.push((format!("{} #{:016x}", case.name, col.id), order, col.bytes, values.clone()));
        }
    }
    out
}

/// The column alone; followed by other bytes (as a payload's next columns
/// follow it), it must decode to the same bits or the same error.
fn decode_vec(col: &[u8], order: ByteOrder, n: usize) -> Result<Vec<f64>> {
    let decode = |bytes: &[u8]| {
        let mut out = vec![0.0; n];
        AlpValues::decode_within(bytes, col.len(), order, &mut out).map(|()| out)
    };
    let alone = decode(col);
    let as_bits = |r: &Result<Vec<f64>>| r.as_ref().map(|v| bits(v)).map_err(|e| e.to_string());
    for after in [0x00, 0x5a, 0xff] {
        let followed = decode(&[col, &[after; 80]].concat());
        assert_eq!(as_bits(&followed), as_bits(&alone), "followed by {after:#04x}");
    }
    alone
}

#[cfg(feature = "encode")]
fn encode_vec(values: &[f64], order: ByteOrder) -> Vec<u8> {
    let mut out = Vec::new();
    AlpValues::encode(values, order, &mut out);
    out
}

/// Independent bit-at-a-time packer, the oracle for the packer and the kernels.
fn pack_naive(codes: &[u64], width: u32) -> Vec<u8> {
    let mut out = vec![0u8; packed_len(codes.len(), width).unwrap()];
    for (i, &code) in codes.iter().enumerate() {
        for b in 0..width as usize {
            if code >> b & 1 == 1 {
                let bit = i * width as usize + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

// ---------- conformance with the reference ----------

#[test]
fn decodes_every_reference_column_by_bits() {
    let columns = all_columns();
    let mut schemes = [0usize; 3];
    for (name, order, col, values) in &columns {
        let decoded = decode_vec(col, *order, values.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(bits(&decoded), bits(values), "{name}");
        if let Some(&s) = col.first() {
            schemes[s as usize] += 1;
        }
    }
    eprintln!("decoded {} reference ALP columns; main/rd/raw = {schemes:?}", columns.len());
    assert!(schemes.iter().all(|&n| n > 0), "vectors cover every scheme: {schemes:?}");
}

#[cfg(feature = "encode")]
#[test]
fn encodes_every_reference_column_byte_for_byte() {
    let columns = all_columns();
    let mismatched: Vec<&String> =
        columns.iter().filter(|(_, order, col, values)| encode_vec(values, *order) != *col).map(|(name, ..)| name).collect();
    eprintln!("{} of {} reference ALP columns re-encoded byte for byte", columns.len() - mismatched.len(), columns.len());
    assert!(mismatched.is_empty(), "mismatched columns: {mismatched:#?}");
}

// ---------- bit packing ----------

#[test]
fn kernels_match_the_scalar_twin_at_every_width() {
    let mut rng = Rng(7);
    for width in 0..=64u32 {
        for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 130, 257] {
            let codes: Vec<u64> = (0..n).map(|_| rng.next() & low_mask(width)).collect();
            let mut packed = pack_naive(&codes, width);
            for slack in [0usize, 3, 80] {
                packed.extend((0..slack).map(|_| rng.next() as u8));
                let mut twin = vec![0.0; n];
                map_codes_any(&packed, width, &mut twin, |code, _| f64::from_bits(code));
                assert_eq!(bits(&twin), codes, "scalar twin, width {width}, n {n}");
                let as_bits = |code: u64, _| f64::from_bits(code);
                let mut got = vec![0.0; n];
                map_codes_main(&packed, width, &mut got, as_bits);
                assert_eq!(bits(&got), codes, "main kernel, width {width}, n {n}, slack {slack}");
                map_codes_rd_right(&packed, width, &mut got, as_bits);
                assert_eq!(bits(&got), codes, "rd right kernel, width {width}, n {n}, slack {slack}");
                map_codes_rd_left(&packed, width, &mut got, as_bits);
                assert_eq!(bits(&got), codes, "rd left kernel, width {width}, n {n}, slack {slack}");
                packed.truncate(packed_len(n, width).unwrap());
            }
            // Short input (the decoder never passes one): missing bytes read as
            // zero in both, through every tail copy, without panicking.
            for short in [0, packed.len() / 3] {
                let mut twin = vec![0.0; n];
                map_codes_any(&packed[..short], width, &mut twin, |code, _| f64::from_bits(code));
                let mut got = vec![0.0; n];
                map_codes_main(&packed[..short], width, &mut got, |code, _| f64::from_bits(code));
                assert_eq!(bits(&got), bits(&twin), "short main kernel, width {width}, n {n}");
                map_codes_rd_right(&packed[..short], width, &mut got, |code, _| f64::from_bits(code));
                assert_eq!(bits(&got), bits(&twin), "short rd kernel, width {width}, n {n}");
            }
        }
    }
}

#[cfg(feature = "encode")]
#[test]
fn packer_matches_the_naive_packer() {
    let mut rng = Rng(11);
    for width in 0..=64u32 {
        for n in [0usize, 1, 5, 8, 63, 64, 65, 200] {
            // Codes wider than `width` must be cut to their low bits.
            let codes: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            let masked: Vec<u64> = codes.iter().map(|c| c & low_mask(width)).collect();
            let mut got = vec![0xAA];
            bitpack::pack_codes(&mut got, codes.iter().copied(), width);
            assert_eq!(got[0], 0xAA);
            assert_eq!(&got[1..], pack_naive(&masked, width), "width {width}, n {n}");
        }
    }
}

#[test]
fn rd_code_bits_cover_the_dictionary() {
    let expected = [1, 1, 1, 2, 2, 3, 3, 3, 3];
    for (len, want) in expected.iter().enumerate() {
        assert_eq!(rd_code_bits(len), *want, "dictionary of {len}");
    }
}

// ---------- encoder behaviour ----------

#[cfg(feature = "encode")]
fn assert_round_trip(values: &[f64], order: ByteOrder) -> Vec<u8> {
    let col = encode_vec(values, order);
    let decoded = decode_vec(&col, order, values.len()).unwrap();
    assert_eq!(bits(&decoded), bits(values));
    // Trailing bytes (the next metric's column) are ignored.
    let mut padded = col.clone();
    padded.extend_from_slice(&[0xFF; 9]);
    assert_eq!(bits(&decode_vec(&padded, order, values.len()).unwrap()), bits(values));
    col
}

#[cfg(feature = "encode")]
#[test]
fn empty_column_is_empty() {
    assert!(encode_vec(&[], ByteOrder::Little).is_empty());
    assert_eq!(decode_vec(&[], ByteOrder::Little, 0).unwrap(), Vec::<f64>::new());
}

#[cfg(feature = "encode")]
#[test]
fn picks_the_scheme_the_data_calls_for() {
    let mut rng = Rng(3);
    let decimals: Vec<f64> = (0..500).map(|i| (1000 + i % 37) as f64 / 100.0).collect();
    let noise: Vec<f64> = (0..500).map(|_| 1.0 + (rng.next() >> 11) as f64 / (1u64 << 53) as f64).collect();
    let garbage: Vec<f64> = (0..500).map(|_| f64::from_bits(rng.next())).collect();
    for order in [ByteOrder::Little, ByteOrder::Big] {
        assert_eq!(assert_round_trip(&decimals, order)[0], SCHEME_MAIN);
        assert_eq!(assert_round_trip(&noise, order)[0], SCHEME_RD);
        assert_eq!(assert_round_trip(&garbage, order)[0], SCHEME_RAW);
    }
    // A constant column packs to zero-width codes: header only.
    let constant = vec![123.45; 100];
    assert_eq!(assert_round_trip(&constant, ByteOrder::Little).len(), 1 + MAIN_HEADER_LEN);
}

#[cfg(feature = "encode")]
#[test]
fn specials_survive_by_bits() {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::from_bits(0xFFF8_DEAD_BEEF_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        f64::MAX,
        f64::MIN,
        9.2e18,
        -9.3e18,
        2f64.powi(51),
        2f64.powi(53) + 2.0,
        1e300,
        0.1,
        1.5,
    ];
    for order in [ByteOrder::Little, ByteOrder::Big] {
        assert_round_trip(&specials, order);
        // Specials as exceptions among decimals.
        let mut mixed: Vec<f64> = (0..300).map(|i| i as f64 * 0.25).collect();
        for (k, &s) in specials.iter().enumerate() {
            mixed[k * 13 + 5] = s;
        }
        assert_round_trip(&mixed, order);
        for &s in &specials {
            assert_round_trip(&[s], order);
            assert_round_trip(&[s; 70], order);
        }
    }
}

#[cfg(feature = "encode")]
proptest! {
    #[test]
    fn round_trips_arbitrary_bits(raw in prop::collection::vec(any::<u64>(), 0..300), big in any::<bool>()) {
        let values: Vec<f64> = raw.iter().map(|&b| f64::from_bits(b)).collect();
        let order = if big { ByteOrder::Big } else { ByteOrder::Little };
        let col = encode_vec(&values, order);
        prop_assert_eq!(bits(&decode_vec(&col, order, values.len()).unwrap()), raw);
    }

    #[test]
    fn round_trips_decimal_like_data(
        digits in prop::collection::vec(-5_000_000i64..5_000_000, 1..400),
        decimals in 0i32..8,
        noise in prop::collection::vec((0usize..400, any::<u64>()), 0..4),
        big in any::<bool>(),
    ) {
        let mut values: Vec<f64> = digits.iter().map(|&d| d as f64 / 10f64.powi(decimals)).collect();
        for (at, b) in noise {
            let len = values.len();
            values[at % len] = f64::from_bits(b);
        }
        let order = if big { ByteOrder::Big } else { ByteOrder::Little };
        let col = encode_vec(&values, order);
        prop_assert_eq!(bits(&decode_vec(&col, order, values.len()).unwrap()), bits(&values));
    }

    #[test]
    fn round_trips_full_precision_walks(start in -1e6f64..1e6, steps in prop::collection::vec(-1.0f64..1.0, 1..300)) {
        let values: Vec<f64> = steps.iter().scan(start, |acc, s| { *acc += s; Some(*acc) }).collect();
        let col = encode_vec(&values, ByteOrder::Little);
        prop_assert_eq!(bits(&decode_vec(&col, ByteOrder::Little, values.len()).unwrap()), bits(&values));
    }
}

// ---------- malformed input ----------

fn expect_corrupt(col: &[u8], order: ByteOrder, n: usize) {
    match decode_vec(col, order, n) {
        Err(Error::CorruptColumn { what: "value", .. }) => {}
        other => panic!("expected a corrupt value column for {col:02x?} (n {n}), got {other:?}"),
    }
}

fn main_column(exponent: u8, factor: u8, width: u8, exceptions: u32, min: i64) -> Vec<u8> {
    let mut col = vec![SCHEME_MAIN, exponent, factor, width];
    col.extend_from_slice(&exceptions.to_le_bytes());
    col.extend_from_slice(&min.to_le_bytes());
    col
}

/// Main columns at every width, with minimums where `min + code` nears and
/// wraps the ends of i64 and crosses ±2^51 (past which a double no longer
/// holds every integer), decode to the plain formula's doubles by bits.
#[test]
fn main_digits_decode_like_the_plain_formula_at_every_width_and_edge() {
    let mut rng = Rng(51);
    let edge = 1i64 << 51;
    for width in 0..=64u32 {
        let span = low_mask(width) as i64;
        let mins = [
            0,
            -1,
            -edge,
            -edge - 1,
            edge.wrapping_sub(span),
            edge.wrapping_sub(span).wrapping_add(1),
            edge,
            i64::MIN,
            i64::MAX,
            rng.next() as i64,
        ];
        for min in mins {
            // The largest and smallest codes, then random ones.
            let mut codes = vec![0, low_mask(width)];
            codes.extend((0..70).map(|_| rng.next() & low_mask(width)));
            let (exponent, factor) = ((rng.next() % 19) as u8, (rng.next() % 19) as u8);
            let mut col = main_column(exponent, factor, width as u8, 0, min);
            col.extend(pack_naive(&codes, width));
            let plain: Vec<f64> = codes
                .iter()
                .map(|&code| ((code as i64).wrapping_add(min) as f64) * POW10[usize::from(factor)] * INV_POW10[usize::from(exponent)])
                .collect();
            let decoded = decode_vec(&col, ByteOrder::Little, codes.len()).unwrap();
            assert_eq!(bits(&decoded), bits(&plain), "width {width}, min {min}");
        }
    }
}

#[test]
fn rejects_impossible_headers() {
    let le = ByteOrder::Little;
    expect_corrupt(&[], le, 1);
    expect_corrupt(&[3, 0, 0, 0], le, 1);
    expect_corrupt(&[0xFF; 40], le, 1);
    // main: exponent/factor beyond the tables, width beyond 64, exception count beyond the column
    expect_corrupt(&main_column(19, 0, 0, 0, 0), le, 1);
    expect_corrupt(&main_column(0, 19, 0, 0, 0), le, 1);
    let mut wide = main_column(0, 0, 65, 0, 0);
    wide.extend_from_slice(&[0; 100]);
    expect_corrupt(&wide, le, 8);
    expect_corrupt(&main_column(0, 0, 0, u32::MAX, 0), le, 1);
    // More exceptions than points, even with the bytes for them present.
    let mut col = main_column(0, 0, 0, 2, 0);
    col.extend_from_slice(&[0; 24]);
    expect_corrupt(&col, le, 1);
    // main: exception position past the point count
    let mut col = main_column(0, 0, 0, 1, 5);
    col.extend_from_slice(&3u32.to_le_bytes());
    col.extend_from_slice(&1.5f64.to_bits().to_le_bytes());
    expect_corrupt(&col, le, 3);
    assert_eq!(decode_vec(&col, le, 4).unwrap(), vec![5.0, 5.0, 5.0, 1.5]);
    // rd: right width 64, code width 4, dictionary of 9
    let rd = |rbw: u8, cb: u8, nd: u8| {
        let mut c = vec![SCHEME_RD, rbw, cb, nd, 0, 0, 0, 0];
        c.extend_from_slice(&[0; 64]);
        c
    };
    expect_corrupt(&rd(64, 1, 1), le, 1);
    expect_corrupt(&rd(255, 1, 1), le, 1);
    expect_corrupt(&rd(52, 4, 1), le, 1);
    expect_corrupt(&rd(52, 1, 9), le, 1);
    assert!(decode_vec(&rd(52, 1, 1), le, 1).is_ok());
    // raw: one byte short
    expect_corrupt(&[SCHEME_RAW, 0, 0, 0, 0, 0, 0, 0], le, 1);
    // Nothing to decode: any column is fine.
    assert!(decode_vec(&[], le, 0).is_ok());
}

/// Reference columns of each scheme plus synthetic ones (wide codes, exceptions, RD).
fn sample_columns() -> Vec<(ByteOrder, Vec<u8>, usize)> {
    let mut cols: Vec<(ByteOrder, Vec<u8>, usize)> = Vec::new();
    let mut seen = [0usize; 3];
    for (_, order, col, values) in all_columns() {
        let scheme = usize::from(col[0]);
        if seen[scheme] < 6 && values.len() < 400 {
            seen[scheme] += 1;
            cols.push((order, col, values.len()));
        }
    }
    cols
}

#[test]
fn every_truncation_is_an_error() {
    for (order, col, n) in sample_columns() {
        for len in 0..col.len() {
            assert!(decode_vec(&col[..len], order, n).is_err(), "prefix of {len} of {} bytes", col.len());
        }
        assert!(decode_vec(&col, order, n).is_ok());
        // Asking for more points than were written never panics either.
        let _ = decode_vec(&col, order, n + 1);
        let _ = decode_vec(&col, order, n * 9 + 100);
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let mut rng = Rng(99);
    for (order, col, n) in sample_columns() {
        for _ in 0..300 {
            let mut bad = col.clone();
            for _ in 0..1 + rng.next() % 3 {
                let at = (rng.next() % bad.len() as u64) as usize;
                bad[at] = rng.next() as u8;
            }
            let _ = decode_vec(&bad, order, n);
        }
    }
}

proptest! {
    #[test]
    fn garbage_never_panics(
        scheme in 0u8..4,
        head in prop::collection::vec(0u8..80, 3),
        small_count in 0u32..6,
        body in prop::collection::vec(any::<u8>(), 0..700),
        n in 0usize..1500,
        big in any::<bool>(),
    ) {
        let order = if big { ByteOrder::Big } else { ByteOrder::Little };
        // Plausible small header fields reach the unpack and exception paths.
        let mut col = vec![scheme];
        col.extend_from_slice(&head);
        col.extend_from_slice(&order.u32_bytes(small_count));
        col.extend_from_slice(&body);
        let _ = decode_vec(&col, order, n);
        let _ = decode_vec(&body, order, n);
    }
}

// ---------- throughput (manual) ----------

/// `cargo test --release --lib encoding::value::alp -- --ignored --nocapture`
#[cfg(feature = "encode")]
#[test]
#[ignore]
fn throughput() {
    let columns: Vec<(ByteOrder, Vec<u8>, Vec<f64>)> = all_columns()
        .into_iter()
        .filter(|(name, ..)| name.contains("seed200x250-delta") || name.contains("medium-delta-"))
        .map(|(_, o, c, v)| (o, c, v))
        .collect();
    let points: usize = columns.iter().map(|c| c.2.len()).sum();
    let mut out = vec![0.0; 8000];
    let rounds = 200;
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        for (order, col, values) in &columns {
            AlpValues::decode_within(col, col.len(), *order, &mut out[..values.len()]).unwrap();
        }
    }
    let decode = start.elapsed();
    let start = std::time::Instant::now();
    let mut buf = Vec::new();
    for _ in 0..rounds / 10 {
        for (order, _, values) in &columns {
            buf.clear();
            AlpValues::encode(values, *order, &mut buf);
        }
    }
    let encode = start.elapsed();
    eprintln!(
        "decode {:.2} ns/point, encode {:.2} ns/point over {points} points",
        decode.as_nanos() as f64 / (points * rounds) as f64,
        encode.as_nanos() as f64 / (points * rounds / 10) as f64
    );
}
