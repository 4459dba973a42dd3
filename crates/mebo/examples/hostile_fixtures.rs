//! Writes crafted hostile blobs, one file each, with the error code each must
//! produce, for the SDK's hostile-input tests (packages/mebo/test/hostile.test.ts)
//! and the CLI's. The blobs come from the same helpers as the crate's own
//! hostile-input tests (tests/craft), so the crafting lives in one place.
//!
//!     cargo run --release -p mebo --example hostile_fixtures -- <dir>
//!
//! `<dir>` receives `<name>.mebo` per blob and `manifest.json`:
//! `{ "fixtures": [{ "name", "file", "kind", "expect", "what" }] }`. Before a
//! blob is written, the crate itself must refuse it with the expected code
//! (opened and decoded through every accessor): the example panics otherwise.

#[path = "../tests/exercise/mod.rs"]
mod exercise;

#[path = "../tests/craft/mod.rs"]
mod craft;

use craft::*;
use mebo::text::TextEncoderOptions;
use mebo::{Compression, DecodeLimits, Layout, TimestampEncoding, ValueEncoding};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Numeric,
    Text,
}

struct Fixture {
    name: &'static str,
    kind: Kind,
    expect: &'static str,
    what: &'static str,
    bytes: Vec<u8>,
}

fn fixture(name: &'static str, kind: Kind, expect: &'static str, what: &'static str, bytes: Vec<u8>) -> Fixture {
    Fixture { name, kind, expect, what, bytes }
}

/// Cut `cut` bytes off the end of the only metric's column in payload `p`.
fn cut_column(mut b: Vec<u8>, p: Payload, cut: usize) -> Vec<u8> {
    let r = payload_range(&b, p);
    let kept = b[r.start..r.end - cut].to_vec();
    replace_payload(&mut b, p, &kept);
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

fn fixtures() -> Vec<Fixture> {
    use Kind::*;
    let mut out = Vec::new();
    let default_blob = || numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V1), 3, 20);

    // Decompression bombs: 100 MiB of zeros in a few KiB.
    for (name, codec, what) in [
        ("bomb-zstd", Compression::Zstd, "zstd value payload declaring 100 MiB"),
        ("bomb-s2", Compression::S2, "s2 value payload of 100 MiB"),
        ("bomb-lz4", Compression::Lz4, "lz4 value payload of 100 MiB"),
    ] {
        let o = options_with_codecs(TimestampEncoding::Delta, Compression::None, ValueEncoding::Gorilla, codec, Layout::V2);
        let mut b = numeric(o, 2, 50);
        replace_payload(&mut b, Payload::Values, bomb(codec));
        out.push(fixture(name, Numeric, "SIZE_CAP", what, b));
    }
    {
        let o = options_with_codecs(TimestampEncoding::Delta, Compression::Zstd, ValueEncoding::Raw, Compression::None, Layout::V1);
        let mut b = numeric(o, 1, 50);
        replace_payload(&mut b, Payload::Timestamps, &zstd_rle_frame(800));
        out.push(fixture("bomb-zstd-undeclared", Numeric, "SIZE_CAP", "zstd frame of 100 MiB that declares no size", b));
    }
    {
        // The 98-byte frame: a declared content size of 256 MiB, one
        // RLE block of 1000 bytes, padded with a skippable frame to 98 bytes.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        frame.extend_from_slice(&(256u32 << 20).to_le_bytes());
        frame.extend_from_slice(&(1u32 | (1 << 1) | (1000 << 3)).to_le_bytes()[..3]);
        frame.push(b'x');
        frame.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18]);
        frame.extend_from_slice(&(98u32 - 21).to_le_bytes());
        frame.resize(98, 0);
        let o = options_with_codecs(TimestampEncoding::Delta, Compression::None, ValueEncoding::Gorilla, Compression::Zstd, Layout::V2);
        let mut b = numeric(o, 2, 50);
        replace_payload(&mut b, Payload::Values, &frame);
        out.push(fixture("zstd-98-bytes-declaring-256mib", Numeric, "SIZE_CAP", "a 98-byte zstd value payload declaring 256 MiB", b));
    }
    {
        let mut b = text_blob(TextEncoderOptions { data_compression: Compression::Zstd, ..Default::default() }, false);
        let data_off = get_u32(&b, 20);
        b.truncate(data_off);
        b.extend_from_slice(bomb(Compression::Zstd));
        out.push(fixture("bomb-text-zstd", Text, "SIZE_CAP", "text data payload of 100 MiB", b));
    }

    // Point counts.
    {
        let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 2, 70_000);
        set_entry(&mut b, 0, Field::Count, 4_000_000_000);
        out.push(fixture("count-billions", Numeric, "SIZE_CAP", "a metric of 4 billion points (extended index)", b));
    }
    {
        let mut b = default_blob();
        set_u32(&mut b, COUNT, u32::MAX);
        out.push(fixture("metric-count-huge", Numeric, "TRUNCATED", "4 billion metrics in a small blob", b));
    }

    // Offsets.
    {
        let b = default_blob();
        let mut past = b.clone();
        set_u32(&mut past, TAG_OFF, b.len() as u32 + 1);
        out.push(fixture("offset-past-end", Numeric, "OFFSET_OUT_OF_RANGE", "tag payload offset past the end", past));
        let mut swapped = b.clone();
        let (ts, val) = (get_u32(&b, TS_OFF), get_u32(&b, VAL_OFF));
        set_u32(&mut swapped, TS_OFF, val as u32);
        set_u32(&mut swapped, VAL_OFF, ts as u32);
        out.push(fixture("offsets-backwards", Numeric, "OFFSET_OUT_OF_RANGE", "payload offsets out of order", swapped));
        let mut overlap = b.clone();
        set_entry(&mut overlap, 1, Field::TimestampDelta, 0);
        out.push(fixture("columns-overlap", Numeric, "CORRUPT_COLUMN", "two metrics' timestamp columns start together", overlap));
        let mut column = b.clone();
        set_entry(&mut column, 2, Field::ValueDelta, 60_000);
        out.push(fixture("column-past-payload", Numeric, "OFFSET_OUT_OF_RANGE", "a value column past its payload", column));
    }
    {
        let b = text_blob(TextEncoderOptions { data_compression: Compression::None, ..Default::default() }, false);
        let entry = |i: usize| get_u32(&b, INDEX_OFF) + 16 * i + 12;
        let mut backwards = b.clone();
        let second = get_u32(&b, entry(1));
        set_u32(&mut backwards, entry(2), second as u32 - 1);
        out.push(fixture("text-offsets-backwards", Text, "OFFSET_OUT_OF_RANGE", "text metric offsets that run backwards", backwards));
    }

    // Shared-timestamp tables.
    {
        let (mut b, table) = shared_blob();
        set_u16(&mut b, table + 6, 4);
        out.push(fixture("shared-member-past-end", Numeric, "SHARED_TIMESTAMP_TABLE", "a member past the metric count", b));
        let (mut b, table) = shared_blob();
        set_u16(&mut b, table + 2, 1);
        out.push(fixture("shared-self-reference", Numeric, "SHARED_TIMESTAMP_TABLE", "a canonical metric among its own members", b));
        let (mut b, table) = shared_blob();
        set_u16(&mut b, table + 4, 200);
        out.push(fixture("shared-too-many-members", Numeric, "SHARED_TIMESTAMP_TABLE", "more members than the table has bytes", b));
        let mut b = numeric(options(TimestampEncoding::Delta, ValueEncoding::Gorilla, Layout::V2), 3, 10);
        b[0] |= 0x8;
        out.push(fixture("shared-flag-without-table", Numeric, "SHARED_TIMESTAMP_TABLE", "shared flag set, no table", b));
    }

    // Metric-names payloads (text blobs written by name carry them).
    {
        let named = || text_blob(TextEncoderOptions::default(), true);
        let mut b = named();
        set_u16(&mut b, 32, 2);
        out.push(fixture("names-wrong-count", Text, "COUNT_MISMATCH", "2 names for 3 metrics", b));
        let mut b = named();
        let len_at = name_at(&b, 2) - 2;
        set_u16(&mut b, len_at, 50_000);
        out.push(fixture("names-past-payload", Text, "METRIC_NAMES", "a name running past the names payload", b));
        let mut b = named();
        let at = name_at(&b, 2);
        b[at + 1] = 0xC3;
        out.push(fixture("names-not-utf8", Text, "INVALID_UTF8", "a metric name that is not UTF-8", b));
        let mut b = named();
        let at = name_at(&b, 1);
        b[at] ^= 0x01;
        out.push(fixture("names-hash-mismatch", Text, "NAME_HASH_MISMATCH", "a name that does not hash to its id", b));
    }

    // Column streams that end early.
    for (name, ts, val, payload, what) in [
        ("short-gorilla", TimestampEncoding::Raw, ValueEncoding::Gorilla, Payload::Values, "gorilla value stream cut short"),
        ("short-chimp", TimestampEncoding::Raw, ValueEncoding::Chimp, Payload::Values, "chimp value stream cut short"),
        ("short-alp", TimestampEncoding::Raw, ValueEncoding::Alp, Payload::Values, "alp value stream cut short"),
        (
            "short-deltapacked",
            TimestampEncoding::DeltaPacked,
            ValueEncoding::Raw,
            Payload::Timestamps,
            "delta-packed timestamp stream cut short",
        ),
        ("short-delta", TimestampEncoding::Delta, ValueEncoding::Raw, Payload::Timestamps, "delta timestamp stream cut short"),
    ] {
        let b = numeric(options(ts, val, Layout::V1), 1, 40);
        out.push(fixture(name, Numeric, "CORRUPT_COLUMN", what, cut_column(b, payload, 9)));
    }

    // Invalid UTF-8 in text values and tags.
    {
        let o = TextEncoderOptions { data_compression: Compression::None, tags: true, ..Default::default() };
        let b = text_blob(o, false);
        let find = |needle: &[u8]| b.windows(needle.len()).position(|w| w == needle).unwrap();
        let mut value = b.clone();
        value[find(b"hello")] = 0xFF;
        out.push(fixture("text-value-not-utf8", Text, "INVALID_UTF8", "a text value that is not UTF-8", value));
        let mut tag = b.clone();
        tag[find(b"tag3")] = 0xC0;
        out.push(fixture("text-tag-not-utf8", Text, "INVALID_UTF8", "a text tag that is not UTF-8", tag));
    }

    // Headers.
    {
        let b = default_blob();
        let mut magic = b.clone();
        magic[1] = 0xEC;
        out.push(fixture("bad-magic", Numeric, "BAD_MAGIC", "an unknown magic", magic));
        out.push(fixture("header-truncated", Numeric, "TRUNCATED", "31 bytes of a header", b[..31].to_vec()));
    }
    out
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: hostile_fixtures <dir>"));
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let mut manifest = Vec::new();
    for f in fixtures() {
        let limits = DecodeLimits::default();
        let result = match f.kind {
            Kind::Numeric => exercise::numeric(&f.bytes, &limits),
            Kind::Text => exercise::text(&f.bytes, &limits),
        };
        match result {
            Err(e) if e.code() == f.expect => {}
            other => panic!("{}: expected {}, got {other:?}", f.name, f.expect),
        }
        let file = format!("{}.mebo", f.name);
        std::fs::write(dir.join(&file), &f.bytes).expect("write a fixture");
        let kind = if f.kind == Kind::Numeric { "numeric" } else { "text" };
        manifest.push(serde_json::json!({ "name": f.name, "file": file, "kind": kind, "expect": f.expect, "what": f.what }));
    }
    let text = serde_json::to_string_pretty(&serde_json::json!({ "fixtures": manifest })).unwrap();
    std::fs::write(dir.join("manifest.json"), text + "\n").expect("write the manifest");
    println!("{} hostile fixtures in {}", manifest.len(), dir.display());
}
