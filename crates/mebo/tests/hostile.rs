//! Crafted hostile blobs, each with the error it must produce.
//!
//! Every blob starts as valid output of the crate's own encoders and is then
//! patched (header fields, index entries, payloads) into one specific kind of
//! damage: decompression bombs for every codec, point counts in the billions,
//! offsets that overlap or run past the end, broken shared-timestamp tables and
//! metric-names payloads, column streams that end early, invalid UTF-8. Each
//! test matches the exact `Error` variant (and its `what` where it has one).

mod craft;
mod exercise;

use craft::*;

use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextBlob, TextEncoder, TextEncoderOptions};
use mebo::{Compression, DecodeLimits, Error, Layout, TimestampEncoding, ValueEncoding};

fn default_blob() -> Vec<u8> {
    numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1), 3, 20)
}

/// The first error of opening and fully decoding a numeric blob.
fn numeric_err(b: &[u8]) -> Error {
    numeric_err_with(b, &DecodeLimits::default())
}
fn numeric_err_with(b: &[u8], limits: &DecodeLimits) -> Error {
    exercise::numeric(b, limits).expect_err("the crafted blob must be refused")
}
fn text_err(b: &[u8]) -> Error {
    exercise::text(b, &DecodeLimits::default()).expect_err("the crafted text blob must be refused")
}

fn assert_size_cap(err: Error, what: &str, min_size: u64) {
    match err {
        Error::SizeCap { what: w, size, cap } => {
            assert_eq!(w, what);
            assert!(size >= min_size && size > cap, "size {size}, cap {cap}");
        }
        other => panic!("expected SizeCap of {what}, got {other:?}"),
    }
}

// ---------------------------------------------------------------- decompression bombs

#[test]
fn zstd_bomb_declaring_its_size_is_refused_before_decoding() {
    let mut b = numeric(
        options_with_codecs(TimestampEncoding::Delta, Compression::None, ValueEncoding::Gorilla, Compression::Zstd, Layout::V2),
        2,
        50,
    );
    let bomb = bomb(Compression::Zstd);
    assert!(bomb.len() < 64 << 10, "100 MiB of zeros compress to {} bytes", bomb.len());
    replace_payload(&mut b, Payload::Values, bomb);
    assert_size_cap(numeric_err(&b), "value payload", 100 << 20);
}

#[test]
fn zstd_bomb_without_a_declared_size_stops_at_the_cap() {
    let mut b =
        numeric(options_with_codecs(TimestampEncoding::Delta, Compression::Zstd, ValueEncoding::Raw, Compression::None, Layout::V1), 1, 50);
    // 800 blocks of 128 KiB: 100 MiB from 3 KiB, with no size in the frame header.
    replace_payload(&mut b, Payload::Timestamps, &zstd_rle_frame(800));
    let cap = 50 * 24 + 64; // the cap 50 points justify
    assert_size_cap(numeric_err(&b), "timestamp payload", cap as u64 + 1);
}

#[test]
fn zstd_frame_asking_for_a_huge_window_is_refused() {
    // Fuzzing finding: no content size, a 128 MiB window, 10 bytes in all.
    // libzstd would allocate the window before decoding a byte.
    let mut b =
        numeric(options_with_codecs(TimestampEncoding::Delta, Compression::Zstd, ValueEncoding::Raw, Compression::None, Layout::V2), 1, 50);
    replace_payload(&mut b, Payload::Timestamps, &zstd_frame_with_window(27));
    assert!(matches!(numeric_err(&b), Error::Decompress { codec: "zstd", what: "timestamp payload", .. }), "{:?}", numeric_err(&b));
    let mut t = text_blob(TextEncoderOptions { data_compression: Compression::Zstd, ..Default::default() }, false);
    let data_off = get_u32(&t, 20);
    t.truncate(data_off);
    t.extend_from_slice(&zstd_frame_with_window(26));
    assert!(matches!(text_err(&t), Error::Decompress { codec: "zstd", what: "text data", .. }), "{:?}", text_err(&t));
}

#[test]
fn s2_bomb_is_refused_from_its_length_prefix() {
    let mut b =
        numeric(options_with_codecs(TimestampEncoding::Raw, Compression::None, ValueEncoding::Chimp, Compression::S2, Layout::V2), 2, 40);
    replace_payload(&mut b, Payload::Values, bomb(Compression::S2));
    assert_size_cap(numeric_err(&b), "value payload", 100 << 20);
    // Hand-made: a length prefix of 2^40 and nothing behind it.
    let mut claim = Vec::new();
    let mut v: u64 = u64::from(u32::MAX);
    while v >= 0x80 {
        claim.push(v as u8 | 0x80);
        v >>= 7;
    }
    claim.push(v as u8);
    claim.extend_from_slice(&[0x00, 0x00]);
    replace_payload(&mut b, Payload::Values, &claim);
    assert!(matches!(numeric_err(&b), Error::SizeCap { what: "value payload", size: 4_294_967_295, .. }), "{:?}", numeric_err(&b));
}

#[test]
fn lz4_bomb_is_refused_before_decoding() {
    let mut b = numeric(
        options_with_codecs(TimestampEncoding::DeltaPacked, Compression::Lz4, ValueEncoding::Alp, Compression::None, Layout::V1),
        2,
        40,
    );
    replace_payload(&mut b, Payload::Timestamps, bomb(Compression::Lz4));
    assert!(matches!(numeric_err(&b), Error::SizeCap { what: "timestamp payload", .. }), "{:?}", numeric_err(&b));
    // Hand-made: one literal, then one match whose length runs on for 4 KiB of
    // 0xFF extension bytes (about 1 MiB of output from 4 KiB).
    let mut block = vec![0x1F, b'x', 0x01, 0x00];
    block.extend(std::iter::repeat_n(0xFF, 4096));
    block.extend_from_slice(&[0x00, 0x00]); // end of the length, then a last empty literal run
    replace_payload(&mut b, Payload::Timestamps, &block);
    assert_size_cap(numeric_err(&b), "timestamp payload", 1_000_000);
}

#[test]
fn tag_payload_bomb_is_refused() {
    let mut b =
        numeric(NumericEncoderOptions { tags: true, ..options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2) }, 2, 30);
    replace_payload(&mut b, Payload::Tags, bomb(Compression::Zstd));
    assert_size_cap(numeric_err(&b), "tag payload", 100 << 20);
}

#[test]
fn text_data_bomb_is_refused() {
    let mut b = text_blob(TextEncoderOptions { data_compression: Compression::Zstd, ..Default::default() }, false);
    let data_off = get_u32(&b, 20);
    b.truncate(data_off);
    b.extend_from_slice(bomb(Compression::Zstd));
    assert!(matches!(text_err(&b), Error::SizeCap { what: "text data", .. }), "{:?}", text_err(&b));
    // The same without a declared size: decoding stops one byte past the cap.
    b.truncate(data_off);
    b.extend_from_slice(&zstd_rle_frame(800));
    assert!(matches!(text_err(&b), Error::SizeCap { what: "text data", .. }), "{:?}", text_err(&b));
}

// ---------------------------------------------------------------- counts

#[test]
fn extended_index_count_in_the_billions_is_size_cap_without_allocating() {
    // 70,000 points do not fit a 16-bit count: the encoder writes 32-byte entries.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
    assert!(extended(&b), "magic 0xEA30");
    set_entry(&mut b, 0, Field::Count, 4_000_000_000);
    assert_size_cap(numeric_err(&b), "total point count", 4_000_000_000);
    // Two counts that only overflow 32 bits together.
    set_entry(&mut b, 0, Field::Count, 3_000_000_000);
    set_entry(&mut b, 1, Field::Count, 3_000_000_000);
    assert_size_cap(numeric_err(&b), "total point count", 6_000_000_000);
}

#[test]
fn metric_count_beyond_the_blob_is_truncated_index() {
    let mut b = default_blob();
    set_u32(&mut b, COUNT, u32::MAX);
    assert!(matches!(numeric_err(&b), Error::Truncated { what: "metric index", .. }), "{:?}", numeric_err(&b));
    let mut t = text_blob(TextEncoderOptions::default(), false);
    set_u32(&mut t, COUNT, u32::MAX);
    assert!(matches!(text_err(&t), Error::Truncated { what: "text index", .. }), "{:?}", text_err(&t));
}

#[test]
fn count_larger_than_its_timestamp_column_is_refused_at_open() {
    // Every timestamp encoding takes at least one byte a point: a count above
    // the column's length is refused before anything is sized by it.
    for ts in TimestampEncoding::ALL {
        let mut b = numeric(options(ts, ValueEncoding::Alp, Layout::V1), 1, 10);
        set_entry(&mut b, 0, Field::Count, 60_000);
        let err = NumericBlob::open(&b).unwrap_err();
        assert!(matches!(err, Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{ts:?}: {err:?}");
    }
    // Raw timestamps take eight bytes a point: one point more than the column holds.
    let mut b = numeric(options(TimestampEncoding::Raw, ValueEncoding::Raw, Layout::V1), 1, 10);
    set_entry(&mut b, 0, Field::Count, 11);
    let err = NumericBlob::open(&b).unwrap_err();
    assert!(matches!(err, Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{err:?}");
    // 64 Mi - 1 points (just under the default cap) on a 70,000-point column.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Alp, Layout::V2), 1, 70_000);
    set_entry(&mut b, 0, Field::Count, (64 << 20) - 1);
    let err = NumericBlob::open(&b).unwrap_err();
    assert!(matches!(err, Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{err:?}");
}

#[test]
fn count_past_its_columns_is_corrupt_column() {
    for (ts, val) in [
        (TimestampEncoding::Delta, ValueEncoding::Raw),
        (TimestampEncoding::Delta, ValueEncoding::Gorilla),
        (TimestampEncoding::DeltaPacked, ValueEncoding::Chimp),
        (TimestampEncoding::Delta, ValueEncoding::Alp),
    ] {
        // XOR streams end in up to 7 padding bits that read as repeats, so go 8
        // points past 100 (still within the 1-byte-a-point timestamp check).
        let mut b = numeric(options(ts, val, Layout::V1), 1, 100);
        set_entry(&mut b, 0, Field::Count, 108);
        if val == ValueEncoding::Raw {
            // Raw values take 8 bytes a point: refused at open, before any output.
            let err = NumericBlob::open(&b).unwrap_err();
            assert!(matches!(err, Error::CorruptColumn { what: "value", metric: 0, .. }), "{err:?}");
            continue;
        }
        let blob = NumericBlob::open(&b).unwrap();
        let m = blob.metric_at(0).unwrap();
        let err = m.timestamps().unwrap_err();
        assert!(matches!(err, Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{ts:?}: {err:?}");
        let err = m.values().unwrap_err();
        assert!(matches!(err, Error::CorruptColumn { what: "value", metric: 0, .. }), "{val:?}: {err:?}");
        let err = blob.decode_all().unwrap_err();
        assert!(matches!(err, Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{err:?}");
        assert!(matches!(m.value_at(107), Err(Error::CorruptColumn { .. } | Error::Truncated { .. })), "{val:?}");
    }
}

// ---------------------------------------------------------------- offsets

#[test]
fn header_payload_offsets_out_of_order_are_refused() {
    let b = default_blob();
    let (ts, val) = (get_u32(&b, TS_OFF), get_u32(&b, VAL_OFF));
    let mut swapped = b.clone();
    set_u32(&mut swapped, TS_OFF, val as u32);
    set_u32(&mut swapped, VAL_OFF, ts as u32);
    assert!(matches!(numeric_err(&swapped), Error::OffsetOutOfRange { what: "payload", .. }), "{:?}", numeric_err(&swapped));
    let mut past_end = b.clone();
    set_u32(&mut past_end, TAG_OFF, b.len() as u32 + 1);
    assert!(matches!(numeric_err(&past_end), Error::OffsetOutOfRange { what: "payload", .. }));
    let mut huge = b.clone();
    for f in [TS_OFF, VAL_OFF, TAG_OFF] {
        set_u32(&mut huge, f, u32::MAX);
    }
    assert!(matches!(numeric_err(&huge), Error::OffsetOutOfRange { what: "payload", .. }));
    // The timestamp payload must start right after the index.
    let mut gap = b.clone();
    set_u32(&mut gap, TS_OFF, ts as u32 + 1);
    assert!(matches!(numeric_err(&gap), Error::OffsetOutOfRange { what: "timestamp payload", .. }), "{:?}", numeric_err(&gap));
    let mut index = b.clone();
    set_u32(&mut index, INDEX_OFF, 40);
    assert!(matches!(numeric_err(&index), Error::InvalidHeader { .. }), "{:?}", numeric_err(&index));
}

#[test]
fn column_offsets_past_their_payload_are_refused() {
    for (field, what) in [(Field::TimestampDelta, "timestamp"), (Field::ValueDelta, "value"), (Field::TagDelta, "tag")] {
        let mut b =
            numeric(NumericEncoderOptions { tags: true, ..options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1) }, 3, 20);
        set_entry(&mut b, 2, field, 60_000);
        match numeric_err(&b) {
            Error::OffsetOutOfRange { what: w, .. } => assert_eq!(w, what),
            other => panic!("{what}: {other:?}"),
        }
    }
    // Extended entries: deltas that sum past u32 on their own.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
    set_entry(&mut b, 1, Field::ValueDelta, u32::MAX);
    assert!(matches!(numeric_err(&b), Error::OffsetOutOfRange { what: "value", .. }), "{:?}", numeric_err(&b));
}

#[test]
fn overlapping_columns_are_corrupt() {
    // Metric 1 starts where metric 0 does: metric 0's column is empty and
    // metric 1's runs over both.
    let mut b = default_blob();
    set_entry(&mut b, 1, Field::TimestampDelta, 0);
    assert!(matches!(numeric_err(&b), Error::CorruptColumn { what: "timestamp", metric: 0, .. }), "{:?}", numeric_err(&b));
    let mut b = default_blob();
    set_entry(&mut b, 1, Field::ValueDelta, 0);
    assert!(matches!(numeric_err(&b), Error::CorruptColumn { what: "value", metric: 0, .. }), "{:?}", numeric_err(&b));
}

#[test]
fn text_offsets_that_run_backwards_or_past_the_end_are_refused() {
    let b = text_blob(TextEncoderOptions { data_compression: Compression::None, ..Default::default() }, false);
    let index = get_u32(&b, INDEX_OFF);
    let entry = |i: usize| index + 16 * i + 12;
    let mut backwards = b.clone();
    let second = get_u32(&b, entry(1));
    set_u32(&mut backwards, entry(2), second as u32 - 1);
    assert!(matches!(text_err(&backwards), Error::OffsetOutOfRange { .. }), "{:?}", text_err(&backwards));
    let mut first = b.clone();
    set_u32(&mut first, entry(0), 1);
    assert!(matches!(text_err(&first), Error::OffsetOutOfRange { what: "first text metric", .. }));
    let mut past = b.clone();
    set_u32(&mut past, entry(1), u32::MAX);
    assert!(matches!(text_err(&past), Error::OffsetOutOfRange { what: "text metric", .. }));
    let mut data = b.clone();
    set_u32(&mut data, 20, get_u32(&b, 20) as u32 + 1);
    assert!(matches!(text_err(&data), Error::InvalidHeader { .. }));
    // A data size the payload does not have.
    let mut size = b.clone();
    set_u32(&mut size, 24, get_u32(&b, 24) as u32 + 100);
    assert!(matches!(text_err(&size), Error::CountMismatch { what: "text data payload bytes", .. }), "{:?}", text_err(&size));
}

// ---------------------------------------------------------------- shared-timestamp tables

fn assert_table_err(b: &[u8]) {
    assert!(matches!(numeric_err(b), Error::SharedTimestampTable { .. }), "{:?}", numeric_err(b));
}

#[test]
fn shared_table_member_past_the_metrics_is_refused() {
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 6, 4); // member #0 -> metric 4 of 4
    assert_table_err(&b);
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 2, 9); // canonical metric 9 of 4
    assert_table_err(&b);
}

#[test]
fn shared_table_metric_referencing_itself_is_refused() {
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 2, 1); // canonical 1 with members 1, 2, 3
    assert_table_err(&b);
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 8, 1); // members 1, 1, 3
    assert_table_err(&b);
}

#[test]
fn shared_table_missing_empty_or_with_wrong_length_is_refused() {
    // Flag set on a blob without a table.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 3, 10);
    b[0] |= 0x8;
    assert_table_err(&b);
    // A table of no groups.
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table, 0);
    assert_table_err(&b);
    // More members than the table has bytes for, and fewer (trailing bytes).
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 4, 200);
    assert_table_err(&b);
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table + 4, 2);
    assert_table_err(&b);
    // Two groups claimed, one present.
    let (mut b, table) = shared_blob();
    set_u16(&mut b, table, 2);
    assert_table_err(&b);
}

// ---------------------------------------------------------------- metric names

/// A numeric v2 blob by name with a metric-names payload spliced in (the
/// encoder writes one only on a hash collision). Returns the blob and the
/// payload's offset (32).
fn named_numeric() -> Vec<u8> {
    let names = ["cpu.user", "cpu.system", "mem.free"];
    let mut enc = NumericEncoder::new(0, options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2));
    for (m, name) in names.iter().enumerate() {
        let (ts, vs) = series(8, m as u64);
        enc.start_metric_name(name, 8).unwrap();
        enc.add_points::<&str>(&ts, &vs, None).unwrap();
        enc.end_metric().unwrap();
    }
    let mut b = enc.finish().unwrap();
    let mut sorted = names.to_vec();
    sorted.sort_by_key(|n| mebo::metric_id(n)); // v2 index order
    let order = order_of(&b);
    let mut payload = order.u16_bytes(3).to_vec();
    for n in sorted {
        payload.extend_from_slice(&order.u16_bytes(n.len() as u16));
        payload.extend_from_slice(n.as_bytes());
    }
    insert_numeric(&mut b, 32, &payload);
    b[0] |= 0x4;
    let blob = NumericBlob::open(&b).expect("the spliced names payload is valid");
    assert_eq!(blob.names().unwrap().len(), 3);
    exercise::numeric(&b, &DecodeLimits::default()).unwrap();
    b
}

/// Byte offset of the first byte of name `i` in a names payload at 32.
fn name_at(b: &[u8], i: usize) -> usize {
    let mut pos = 34;
    for _ in 0..i {
        pos += 2 + get_u16(b, pos);
    }
    pos + 2
}

#[test]
fn metric_names_with_a_wrong_count_are_refused() {
    let mut b = named_numeric();
    set_u16(&mut b, 32, 2);
    assert!(matches!(numeric_err(&b), Error::CountMismatch { what: "metric names", expected: 3, actual: 2 }), "{:?}", numeric_err(&b));
    let mut b = named_numeric();
    set_u16(&mut b, 32, 60_000);
    assert!(matches!(numeric_err(&b), Error::MetricNames { .. }), "{:?}", numeric_err(&b));
    let mut t = text_blob(TextEncoderOptions::default(), true);
    set_u16(&mut t, 32, 2);
    assert!(matches!(text_err(&t), Error::CountMismatch { expected: 3, actual: 2, .. }), "{:?}", text_err(&t));
}

#[test]
fn metric_name_running_past_the_payload_is_refused() {
    let mut b = named_numeric();
    let len_at = name_at(&b, 2) - 2;
    set_u16(&mut b, len_at, 50_000);
    assert!(matches!(numeric_err(&b), Error::MetricNames { .. }), "{:?}", numeric_err(&b));
}

#[test]
fn metric_names_that_are_not_utf8_are_refused() {
    let mut b = named_numeric();
    let at = name_at(&b, 1);
    b[at] = 0xFF;
    assert!(matches!(numeric_err(&b), Error::InvalidUtf8 { what: "metric name", index: 1 }), "{:?}", numeric_err(&b));
    let mut t = text_blob(TextEncoderOptions::default(), true);
    let at = name_at(&t, 2);
    t[at + 1] = 0xC3; // a lead byte followed by an ASCII byte
    assert!(matches!(text_err(&t), Error::InvalidUtf8 { what: "metric name", index: 2 }), "{:?}", text_err(&t));
}

#[test]
fn metric_names_that_do_not_hash_to_their_ids_are_refused() {
    let mut b = named_numeric();
    let at = name_at(&b, 0);
    b[at] ^= 0x01; // still ASCII, another name
    assert!(matches!(numeric_err(&b), Error::NameHashMismatch { index: 0, .. }), "{:?}", numeric_err(&b));
    let mut t = text_blob(TextEncoderOptions::default(), true);
    let at = name_at(&t, 1);
    t[at] ^= 0x01;
    assert!(matches!(text_err(&t), Error::NameHashMismatch { index: 1, .. }), "{:?}", text_err(&t));
}

/// Set the id of index entry `i` (numeric or text: the id leads the entry).
fn set_id(b: &mut [u8], entry: usize, id: u64) {
    let bytes = order_of(b).u64_bytes(id);
    b[entry..entry + 8].copy_from_slice(&bytes);
}

#[test]
fn repeated_ids_and_names_find_the_last_metric_in_both_kinds() {
    // By id: metric 2 patched to metric 0's id.
    let mut n = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1), 3, 4);
    let at = entry_at(&n, 2);
    set_id(&mut n, at, 1);
    let blob = NumericBlob::open(&n).unwrap();
    assert_eq!(blob.metric_ids(), [1, 2, 1]);
    assert_eq!(blob.metric(1).unwrap().index(), 2);
    let mut t = text_blob(TextEncoderOptions::default(), false);
    let at = get_u32(&t, INDEX_OFF) + 2 * 16;
    set_id(&mut t, at, 10);
    let blob = TextBlob::open(&t).unwrap();
    assert_eq!(blob.metric_ids(), [10, 11, 10]);
    assert_eq!(blob.metric(10).unwrap().index(), 2);

    // By name: metric 2 renamed to metric 0's name (and given its id).
    let mut enc = NumericEncoder::new(0, options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1));
    for name in ["cpu.a", "cpu.b", "cpu.c"] {
        enc.start_metric_name(name, 2).unwrap();
        enc.add_points::<&str>(&[1, 2], &[1.0, 2.0], None).unwrap();
        enc.end_metric().unwrap();
    }
    let mut n = enc.finish().unwrap();
    let order = order_of(&n);
    let mut payload = order.u16_bytes(3).to_vec();
    for name in ["cpu.a", "cpu.b", "cpu.a"] {
        payload.extend_from_slice(&order.u16_bytes(name.len() as u16));
        payload.extend_from_slice(name.as_bytes());
    }
    insert_numeric(&mut n, 32, &payload);
    n[0] |= 0x4;
    let at = entry_at(&n, 2);
    set_id(&mut n, at, mebo::metric_id("cpu.a"));
    let blob = NumericBlob::open(&n).unwrap();
    assert_eq!(blob.metric_by_name("cpu.a").unwrap().index(), 2);
    assert_eq!(blob.metric(mebo::metric_id("cpu.a")).unwrap().index(), 2);
    assert_eq!(blob.metric_by_name("cpu.b").unwrap().index(), 1);
    assert!(blob.metric_by_name("cpu.c").is_err());
    let mut t = text_blob(TextEncoderOptions::default(), true);
    let at = name_at(&t, 2);
    t[at..at + 7].copy_from_slice(b"log.app");
    let at = get_u32(&t, INDEX_OFF) + 2 * 16;
    set_id(&mut t, at, mebo::metric_id("log.app"));
    let blob = TextBlob::open(&t).unwrap();
    assert_eq!(blob.names().unwrap(), ["log.app", "log.db", "log.app"]);
    assert_eq!(blob.metric_by_name("log.app").unwrap().index(), 2);
    assert_eq!(blob.metric(mebo::metric_id("log.app")).unwrap().index(), 2);
    assert!(blob.metric_by_name("log.web").is_err());
}

// ---------------------------------------------------------------- streams that end early

/// Cut `cut` bytes off the end of the only metric's column in `p`.
fn cut_column(b: &mut Vec<u8>, p: Payload, cut: usize) {
    let r = payload_range(b, p);
    let kept = b[r.start..r.end - cut].to_vec();
    replace_payload(b, p, &kept);
}

#[test]
fn timestamp_streams_that_end_early_are_corrupt() {
    for enc in TimestampEncoding::ALL {
        for cut in [1, 5, 20] {
            let mut b = numeric(options(enc, ValueEncoding::Raw, Layout::V1), 1, 40);
            cut_column(&mut b, Payload::Timestamps, cut);
            match numeric_err(&b) {
                Error::CorruptColumn { what: "timestamp", metric: 0, .. } => {}
                other => panic!("{enc:?} cut {cut}: {other:?}"),
            }
        }
        // Nothing at all.
        let mut b = numeric(options(enc, ValueEncoding::Raw, Layout::V1), 1, 40);
        replace_payload(&mut b, Payload::Timestamps, &[]);
        assert!(matches!(numeric_err(&b), Error::CorruptColumn { what: "timestamp", .. }), "{enc:?}: {:?}", numeric_err(&b));
    }
}

#[test]
fn value_streams_that_end_early_are_corrupt() {
    for enc in ValueEncoding::ALL {
        for cut in [2, 9, 30] {
            let mut b = numeric(options(TimestampEncoding::Raw, enc, Layout::V1), 1, 40);
            cut_column(&mut b, Payload::Values, cut);
            match numeric_err(&b) {
                Error::CorruptColumn { what: "value", metric: 0, .. } => {}
                other => panic!("{enc:?} cut {cut}: {other:?}"),
            }
        }
        let mut b = numeric(options(TimestampEncoding::Raw, enc, Layout::V1), 1, 40);
        replace_payload(&mut b, Payload::Values, &[]);
        assert!(matches!(numeric_err(&b), Error::CorruptColumn { what: "value", .. }), "{enc:?}: {:?}", numeric_err(&b));
    }
}

#[test]
fn tag_columns_that_end_early_or_are_not_utf8_are_refused() {
    let b = numeric(NumericEncoderOptions { tags: true, ..options(TimestampEncoding::Raw, ValueEncoding::Raw, Layout::V1) }, 1, 10);
    let r = payload_range(&b, Payload::Tags);
    let tags = mebo::internals::decompress(Compression::Zstd, &b[r], 1 << 20, "test").unwrap().into_owned();
    let mut short = b.clone();
    let packed = mebo::internals::compress(Compression::Zstd, &tags[..tags.len() - 3]).unwrap().into_owned();
    replace_payload(&mut short, Payload::Tags, &packed);
    assert!(matches!(numeric_err(&short), Error::CorruptColumn { what: "tag", metric: 0, .. }), "{:?}", numeric_err(&short));
    let mut bad = tags.clone();
    let first_text = bad.iter().position(|&c| c == b'h').unwrap();
    bad[first_text] = 0xFF;
    let mut utf = b.clone();
    let packed = mebo::internals::compress(Compression::Zstd, &bad).unwrap().into_owned();
    replace_payload(&mut utf, Payload::Tags, &packed);
    assert!(matches!(numeric_err(&utf), Error::InvalidUtf8 { what: "tag", index: 0 }), "{:?}", numeric_err(&utf));
}

#[test]
fn text_rows_that_end_early_are_corrupt() {
    for ts in [TimestampEncoding::Raw, TimestampEncoding::Delta] {
        let b = text_blob(
            TextEncoderOptions { timestamp_encoding: ts, data_compression: Compression::None, tags: true, ..Default::default() },
            false,
        );
        // Drop the last bytes of the data and shrink the data size to match.
        let mut cut = b.clone();
        cut.truncate(b.len() - 3);
        set_u32(&mut cut, 24, get_u32(&b, 24) as u32 - 3);
        assert!(matches!(text_err(&cut), Error::CorruptColumn { what: "text data", .. }), "{ts:?}: {:?}", text_err(&cut));
    }
}

// ---------------------------------------------------------------- text blobs

#[test]
fn text_values_and_tags_that_are_not_utf8_are_refused() {
    let o = TextEncoderOptions { data_compression: Compression::None, tags: true, ..Default::default() };
    let b = text_blob(o, false);
    let find = |needle: &[u8]| b.windows(needle.len()).position(|w| w == needle).unwrap();
    let mut value = b.clone();
    value[find(b"hello")] = 0xFF;
    assert!(matches!(text_err(&value), Error::InvalidUtf8 { what: "text value", .. }), "{:?}", text_err(&value));
    let mut tag = b.clone();
    tag[find(b"tag3")] = 0xC0; // an overlong-sequence lead byte
    assert!(matches!(text_err(&tag), Error::InvalidUtf8 { what: "text tag", index: 3 }), "{:?}", text_err(&tag));
    // The same inside a zstd payload.
    let data_off = get_u32(&b, 20);
    let mut packed = value[..data_off].to_vec();
    packed[3] = Compression::Zstd.code();
    packed.extend_from_slice(&mebo::internals::compress(Compression::Zstd, &value[data_off..]).unwrap());
    assert!(matches!(text_err(&packed), Error::InvalidUtf8 { what: "text value", .. }), "{:?}", text_err(&packed));
}

/// Options without a codec, with tags: the crafted text blobs below patch bytes in place.
fn plain_text() -> TextEncoderOptions {
    TextEncoderOptions {
        timestamp_encoding: TimestampEncoding::Delta,
        data_compression: Compression::None,
        tags: true,
        byte_order: mebo::ByteOrder::Little,
    }
}

/// Two metrics by name: "a" with points (5, "x", "t") and (0, "", ""), "b" with (-9, "é", "u").
fn small_text_blob(o: TextEncoderOptions) -> Vec<u8> {
    let mut e = TextEncoder::new(100, o).unwrap();
    e.start_metric_name("a", 2).unwrap();
    e.add_point(5, "x", Some("t")).unwrap();
    e.add_point(0, "", Some("")).unwrap();
    e.end_metric().unwrap();
    e.start_metric_name("b", 1).unwrap();
    e.add_point(-9, "é", Some("u")).unwrap();
    e.end_metric().unwrap();
    e.finish().unwrap()
}

#[test]
fn every_truncation_is_an_error() {
    for comp in Compression::ALL {
        let blob = small_text_blob(TextEncoderOptions { data_compression: comp, ..plain_text() });
        assert!(TextBlob::open(&blob).is_ok());
        for len in 0..blob.len() {
            assert!(TextBlob::open(&blob[..len]).is_err(), "{comp}: cut at {len}");
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert!(TextBlob::open(&longer).is_err(), "{comp}: trailing byte");
    }
}

#[test]
fn invalid_utf8_is_reported_where_it_is() {
    let blob = small_text_blob(plain_text());
    let b = TextBlob::open(&blob).unwrap();
    let e = b.decode_all().unwrap();
    assert_eq!(e.values.iter().collect::<Vec<_>>(), ["x", "", "é"]);
    // "é" is the last value: corrupt its first byte into a lone continuation byte.
    let mut bad = blob.clone();
    let pos = bad.len() - 3; // value "é" (2 bytes) then tag "u"
    assert_eq!(&bad[pos..pos + 2], "é".as_bytes());
    bad[pos] = 0x80;
    let b = TextBlob::open(&bad).unwrap();
    let m = b.metric_by_name("b").unwrap();
    assert!(matches!(m.values(), Err(Error::InvalidUtf8 { what: "text value", index: 0 })));
    assert_eq!(m.timestamps().unwrap(), [-9]);
    assert_eq!(m.tags().unwrap().unwrap(), ["u"]);
    assert!(matches!(b.decode_all(), Err(Error::InvalidUtf8 { .. })));
    assert!(b.metric_by_name("a").unwrap().values().is_ok());
    assert!(matches!(m.points(), Err(Error::InvalidUtf8 { .. })));
    assert!(matches!(m.value_at(0), Err(Error::InvalidUtf8 { .. })));
    assert_eq!(m.timestamp_at(0).unwrap(), -9);
}

#[test]
fn crafted_headers_and_indexes_are_refused() {
    let blob = small_text_blob(plain_text());
    let b = TextBlob::open(&blob).unwrap();
    let index_at = b.header().index_offset as usize;
    let le32 = |v: u32| v.to_le_bytes();
    let patch = |at: usize, bytes: &[u8]| {
        let mut c = blob.clone();
        c[at..at + bytes.len()].copy_from_slice(bytes);
        TextBlob::open(&c).map(|_| ())
    };
    // Metric count far beyond the bytes.
    assert!(matches!(patch(12, &le32(u32::MAX)), Err(Error::Truncated { .. })));
    assert!(patch(12, &le32(3)).is_err());
    assert!(matches!(patch(16, &le32(31)), Err(Error::InvalidHeader { .. })));
    assert!(matches!(patch(20, &le32(0)), Err(Error::InvalidHeader { .. })));
    // Data size says more than is there; claims a huge payload.
    assert!(patch(24, &le32(u32::MAX)).is_err());
    // First offset not zero, second offset backwards / past the end.
    assert!(matches!(patch(index_at + 12, &le32(1)), Err(Error::OffsetOutOfRange { .. })));
    assert!(matches!(patch(index_at + 16 + 12, &le32(1000)), Err(Error::OffsetOutOfRange { .. })));
    // Point count the bytes cannot hold.
    assert!(matches!(patch(index_at + 8, &60_000u16.to_le_bytes()), Err(Error::CorruptColumn { metric: 0, .. })));
    // Id that does not match its name.
    assert!(matches!(patch(index_at, &[0; 8]), Err(Error::NameHashMismatch { index: 0, .. })));
    // Limits.
    let tight = DecodeLimits { max_points: 2, ..DecodeLimits::default() };
    assert!(matches!(TextBlob::open_with_limits(&blob, &tight), Err(Error::SizeCap { .. })));
    let tight = DecodeLimits { max_decompressed_bytes: 4, ..DecodeLimits::default() };
    assert!(matches!(TextBlob::open_with_limits(&blob, &tight), Err(Error::SizeCap { .. })));
}

// ---------------------------------------------------------------- headers

#[test]
fn header_fields_the_format_does_not_have_are_refused() {
    let b = default_blob();
    assert!(matches!(numeric_err(&b[..31]), Error::Truncated { what: "header", .. }));
    let mut magic = b.clone();
    magic[1] = 0xEC;
    assert!(matches!(numeric_err(&magic), Error::BadMagic { found: 0xEC10 }));
    let mut enc = b.clone();
    enc[2] = 0x93;
    assert!(matches!(numeric_err(&enc), Error::UnknownEncoding { column: "timestamp", code: 3 }));
    let mut comp = b.clone();
    comp[3] = 0x71;
    assert!(matches!(numeric_err(&comp), Error::UnknownCompression { column: "value", code: 7 }));
    let t = text_blob(TextEncoderOptions::default(), false);
    let mut reserved = t.clone();
    reserved[0] |= 0x8;
    assert!(matches!(text_err(&reserved), Error::InvalidHeader { .. }));
    let mut packed = t.clone();
    packed[2] = TimestampEncoding::DeltaPacked.code();
    assert!(matches!(text_err(&packed), Error::UnknownEncoding { .. }));
}

#[test]
fn index_entries_the_format_does_not_have_are_refused() {
    // Extended entries end in 8 reserved zero bytes.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
    let at = entry_at(&b, 1) + 30;
    b[at] = 1;
    assert!(matches!(numeric_err(&b), Error::InvalidHeader { .. }), "{:?}", numeric_err(&b));
    // v2 entries are sorted by id.
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 3, 10);
    let at = entry_at(&b, 2);
    let zero = order_of(&b).u64_bytes(0);
    b[at..at + 8].copy_from_slice(&zero);
    assert!(matches!(numeric_err(&b), Error::InvalidHeader { .. }), "{:?}", numeric_err(&b));
}

// ---------------------------------------------------------------- caller limits

#[test]
fn caller_point_limit_is_enforced() {
    let b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 3, 100);
    let exact = DecodeLimits { max_points: 300, ..Default::default() };
    exercise::numeric(&b, &exact).expect("300 points within a cap of 300");
    let under = DecodeLimits { max_points: 299, ..Default::default() };
    assert!(matches!(numeric_err_with(&b, &under), Error::SizeCap { what: "total point count", size: 300, cap: 299 }));
    let t = text_blob(TextEncoderOptions::default(), false);
    exercise::text(&t, &DecodeLimits { max_points: 15, ..Default::default() }).expect("15 points within 15");
    let err = exercise::text(&t, &DecodeLimits { max_points: 14, ..Default::default() }).unwrap_err();
    assert!(matches!(err, Error::SizeCap { size: 15, cap: 14, .. }), "{err:?}");
}

#[test]
fn caller_limits_cannot_lift_the_u32_point_ceiling() {
    // decode_all's offsets are u32: even with every limit lifted, a blob of
    // more than u32::MAX points is refused (here two extended counts of 3e9).
    let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
    set_entry(&mut b, 0, Field::Count, 3_000_000_000);
    set_entry(&mut b, 1, Field::Count, 3_000_000_000);
    let unlimited = DecodeLimits { max_points: u64::MAX, max_decompressed_bytes: usize::MAX };
    let err = NumericBlob::open_with_limits(&b, &unlimited).unwrap_err();
    assert!(matches!(err, Error::SizeCap { what: "total point count", size: 6_000_000_000, cap: 4_294_967_295 }), "{err:?}");
}

#[test]
fn caller_decompressed_size_limit_is_enforced() {
    for codec in [Compression::Zstd, Compression::S2, Compression::Lz4] {
        let o = options_with_codecs(TimestampEncoding::Delta, Compression::None, ValueEncoding::Raw, codec, Layout::V1);
        let b = numeric(o, 2, 500);
        let size = NumericBlob::open(&b).unwrap().payload_sizes().1; // 8,000 bytes of raw values
        exercise::numeric(&b, &DecodeLimits { max_decompressed_bytes: size, ..Default::default() }).expect("at the limit");
        let small = DecodeLimits { max_decompressed_bytes: size - 1, ..Default::default() };
        match numeric_err_with(&b, &small) {
            Error::SizeCap { what: "value payload", cap, .. } => assert_eq!(cap as usize, size - 1),
            other => panic!("{codec:?}: {other:?}"),
        }
    }
    let t = text_blob(TextEncoderOptions { data_compression: Compression::Zstd, ..Default::default() }, false);
    let size = TextBlob::open(&t).unwrap().data_size();
    exercise::text(&t, &DecodeLimits { max_decompressed_bytes: size, ..Default::default() }).expect("at the limit");
    let err = exercise::text(&t, &DecodeLimits { max_decompressed_bytes: size - 1, ..Default::default() }).unwrap_err();
    assert!(matches!(err, Error::SizeCap { what: "text data payload", .. }), "{err:?}");
}

// ---------------------------------------------------------------- blob sets

#[test]
fn blob_set_duration_of_extreme_timestamps_does_not_overflow() {
    // First point at i64::MIN + 1 in one window, last at i64::MAX in the next:
    // the span overflows i64, and wraps as the reference's int64 subtraction does.
    let blob = |start: i64, ts: [i64; 2]| {
        let mut enc = NumericEncoder::new(start, options(TimestampEncoding::Raw, ValueEncoding::Raw, Layout::V1));
        enc.start_metric_id(7, 2).unwrap();
        enc.add_points::<&str>(&ts, &[1.0, 2.0], None).unwrap();
        enc.end_metric().unwrap();
        enc.finish().unwrap()
    };
    let (a, b) = (blob(0, [i64::MIN + 1, 0]), blob(1, [1, i64::MAX]));
    let set = mebo::blob_set::NumericBlobSet::open(&[&a, &b]).unwrap();
    assert_eq!(set.metric_duration(7).unwrap(), i64::MAX.wrapping_sub(i64::MIN + 1));
    assert_eq!(set.metric_len(7), 4);
    assert!(matches!(set.point_at(7, 4), Err(Error::IndexOutOfRange { index: 4, len: 4 })));
}
