#![allow(dead_code)]
//! Building hostile blobs: valid output of the crate's own encoders, then
//! patched field by field. Shared by the hostile-blob and allocation tests.

use std::sync::OnceLock;

use mebo::numeric::{NumericEncoder, NumericEncoderOptions};
use mebo::text::{TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, ColumnConfig, Compression, DecodeLimits, Layout, TimestampEncoding, ValueEncoding};

use crate::exercise;

pub const COUNT: usize = 12;
pub const INDEX_OFF: usize = 16;
pub const TS_OFF: usize = 20;
pub const VAL_OFF: usize = 24;
pub const TAG_OFF: usize = 28;

pub fn order_of(b: &[u8]) -> ByteOrder {
    if b[0] & 0x2 != 0 {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    }
}

pub fn get_u16(b: &[u8], pos: usize) -> usize {
    order_of(b).u16(b[pos..pos + 2].try_into().unwrap()) as usize
}
pub fn get_u32(b: &[u8], pos: usize) -> usize {
    order_of(b).u32(b[pos..pos + 4].try_into().unwrap()) as usize
}
pub fn set_u16(b: &mut [u8], pos: usize, v: u16) {
    let bytes = order_of(b).u16_bytes(v);
    b[pos..pos + 2].copy_from_slice(&bytes);
}
pub fn set_u32(b: &mut [u8], pos: usize, v: u32) {
    let bytes = order_of(b).u32_bytes(v);
    b[pos..pos + 4].copy_from_slice(&bytes);
}

/// Numeric index entries: 32 bytes behind magic 0xEA3x, else 16.
pub fn extended(b: &[u8]) -> bool {
    b[1] == 0xEA && b[0] & 0xF0 == 0x30
}
pub fn entry_at(b: &[u8], i: usize) -> usize {
    get_u32(b, INDEX_OFF) + i * if extended(b) { 32 } else { 16 }
}

/// Index entry fields, in field order after the id: count, ts, value, tag delta.
#[derive(Clone, Copy)]
pub enum Field {
    Count = 0,
    TimestampDelta = 1,
    ValueDelta = 2,
    TagDelta = 3,
}

pub fn set_entry(b: &mut [u8], i: usize, field: Field, v: u32) {
    let at = entry_at(b, i) + 8;
    if extended(b) {
        set_u32(b, at + 4 * field as usize, v);
    } else {
        set_u16(b, at + 2 * field as usize, u16::try_from(v).expect("compact field"));
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Payload {
    Timestamps,
    Values,
    Tags,
}

pub fn payload_range(b: &[u8], p: Payload) -> std::ops::Range<usize> {
    match p {
        Payload::Timestamps => get_u32(b, TS_OFF)..get_u32(b, VAL_OFF),
        Payload::Values => get_u32(b, VAL_OFF)..get_u32(b, TAG_OFF),
        Payload::Tags => get_u32(b, TAG_OFF)..b.len(),
    }
}

/// Replace one payload of a numeric blob, moving the header offsets after it.
pub fn replace_payload(b: &mut Vec<u8>, p: Payload, new: &[u8]) {
    let r = payload_range(b, p);
    let shift = |v: usize| (v + new.len() - r.len()) as u32;
    let (val, tag) = (get_u32(b, VAL_OFF), get_u32(b, TAG_OFF));
    b.splice(r.clone(), new.iter().copied());
    if p == Payload::Timestamps {
        set_u32(b, VAL_OFF, shift(val));
    }
    if p != Payload::Tags {
        set_u32(b, TAG_OFF, shift(tag));
    }
}

/// Insert bytes at `at` in a numeric blob (before the payloads), moving every
/// header offset at or after it.
pub fn insert_numeric(b: &mut Vec<u8>, at: usize, new: &[u8]) {
    for field in [INDEX_OFF, TS_OFF, VAL_OFF, TAG_OFF] {
        let v = get_u32(b, field);
        if v >= at {
            set_u32(b, field, (v + new.len()) as u32);
        }
    }
    b.splice(at..at, new.iter().copied());
}

pub fn series(n: usize, seed: u64) -> (Vec<i64>, Vec<f64>) {
    let ts = (0..n as i64).map(|i| 1_700_000_000_000_000 + i * 1_000_000 + (i * seed as i64) % 7).collect();
    let vs = (0..n).map(|i| ((i as f64) * 0.25 + seed as f64).sin() * 100.0).collect();
    (ts, vs)
}

pub fn options(ts: TimestampEncoding, val: ValueEncoding, layout: Layout) -> NumericEncoderOptions {
    options_with_codecs(ts, Compression::None, val, Compression::None, layout)
}

pub fn options_with_codecs(
    ts: TimestampEncoding,
    ts_codec: Compression,
    val: ValueEncoding,
    val_codec: Compression,
    layout: Layout,
) -> NumericEncoderOptions {
    let config =
        ColumnConfig { timestamp_encoding: ts, timestamp_compression: ts_codec, value_encoding: val, value_compression: val_codec };
    NumericEncoderOptions { config, layout, ..Default::default() }
}

/// A numeric blob of `metrics` metrics (ids 1..) of `points` points each.
pub fn numeric(o: NumericEncoderOptions, metrics: usize, points: usize) -> Vec<u8> {
    let mut enc = NumericEncoder::new(1_700_000_000_000_000, o);
    for m in 0..metrics {
        let (ts, vs) = series(points, m as u64);
        enc.start_metric_id(m as u64 + 1, points).unwrap();
        if o.tags {
            let tags: Vec<String> = (0..points).map(|i| format!("host=h{}", (i + m) % 3)).collect();
            enc.add_points(&ts, &vs, Some(&tags)).unwrap();
        } else {
            enc.add_points::<&str>(&ts, &vs, None).unwrap();
        }
        enc.end_metric().unwrap();
    }
    let blob = enc.finish().unwrap();
    exercise::numeric(&blob, &DecodeLimits::default()).expect("the unpatched blob decodes");
    blob
}

/// 100 MiB of zeros, the payload of every decompression bomb.
pub fn zeros() -> &'static [u8] {
    static ZEROS: OnceLock<Vec<u8>> = OnceLock::new();
    ZEROS.get_or_init(|| vec![0u8; 100 << 20])
}

pub fn bomb(codec: Compression) -> &'static [u8] {
    static BOMBS: OnceLock<Vec<(Compression, Vec<u8>)>> = OnceLock::new();
    let all = BOMBS.get_or_init(|| {
        [Compression::Zstd, Compression::S2, Compression::Lz4]
            .into_iter()
            .map(|c| (c, mebo::internals::compress(c, zeros()).unwrap().into_owned()))
            .collect()
    });
    &all.iter().find(|(c, _)| *c == codec).unwrap().1
}

/// A zstd frame without a declared content size: `blocks` RLE blocks of 128 KiB
/// zeros each (4 bytes per block), so only decoding shows how big it is.
pub fn zstd_rle_frame(blocks: usize) -> Vec<u8> {
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD]; // magic
    f.push(0x00); // descriptor: no content size, no checksum, not single-segment
    f.push(0x38); // window descriptor: 2^(10+7) = 128 KiB
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | ((128 << 10) << 3); // RLE block of 128 KiB
        f.extend_from_slice(&header.to_le_bytes()[..3]);
        f.push(0);
    }
    f
}

pub const TEXT_VALUES: [&str; 3] = ["hello", "wörld", "ok"];

/// A text blob of 3 metrics of 5 points (by name or by id).
pub fn text_blob(o: TextEncoderOptions, by_name: bool) -> Vec<u8> {
    let mut enc = TextEncoder::new(1_700_000_000_000_000, o).unwrap();
    for m in 0..3u64 {
        if by_name {
            enc.start_metric_name(["log.app", "log.db", "log.web"][m as usize], 5).unwrap();
        } else {
            enc.start_metric_id(m + 10, 5).unwrap();
        }
        for i in 0..5 {
            let tag = format!("tag{i}");
            enc.add_point(1_700_000_000_000_000 + i * 1000, TEXT_VALUES[(i as usize + m as usize) % 3], Some(&tag)).unwrap();
        }
        enc.end_metric().unwrap();
    }
    let b = enc.finish().unwrap();
    exercise::text(&b, &DecodeLimits::default()).expect("the unpatched text blob decodes");
    b
}

/// A zstd frame without a declared content size whose header asks for a
/// 2^`log` byte window, holding one RLE block of a single zero byte: tiny, but
/// a decoder that trusts the window allocates it up front.
pub fn zstd_frame_with_window(log: u32) -> Vec<u8> {
    let descriptor = ((log - 10) << 3) as u8; // exponent, mantissa 0
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, descriptor];
    let header = 1u32 | (1 << 1) | (1 << 3); // last block, RLE, 1 byte
    f.extend_from_slice(&header.to_le_bytes()[..3]);
    f.push(0);
    f
}

/// A v2-shared blob of 4 metrics with identical timestamps: one group,
/// canonical 0 with members 1, 2, 3, which the crate decodes. Returns the
/// blob and the table's offset.
pub fn shared_blob() -> (Vec<u8>, usize) {
    let o = options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2Shared);
    let mut enc = NumericEncoder::new(0, o);
    let (ts, _) = series(16, 0);
    for m in 0..4u64 {
        let (_, vs) = series(16, m);
        enc.start_metric_id(m + 1, 16).unwrap();
        enc.add_points::<&str>(&ts, &vs, None).unwrap();
        enc.end_metric().unwrap();
    }
    let b = enc.finish().unwrap();
    assert_eq!(b[0] & 0x8, 0x8, "shared flag");
    let table = entry_at(&b, 4);
    assert_eq!(get_u16(&b, table), 1, "one group");
    assert_eq!(get_u16(&b, table + 4), 3, "three members");
    exercise::numeric(&b, &DecodeLimits::default()).unwrap();
    (b, table)
}
