//! The text conformance vectors: every reference text blob decodes to its
//! input; our encoder reproduces every uncompressed one byte for byte and every
//! compressed one up to the codec's bytes (zstd ones whole); damaged blobs fail without panics.

mod common;

use common::{read_input_file, vectors_dir as vectors, Input};
use mebo::text::{Dictionary, StringColumn, TextBlob};
#[cfg(feature = "encode")]
use mebo::text::{TextEncoder, TextEncoderOptions};
use mebo::{ByteOrder, Compression, DecodeLimits, TimestampEncoding};
use serde_json::Value;

/// The case's options, as the manifest spells them.
#[derive(Clone, Copy)]
struct Options {
    timestamp_encoding: TimestampEncoding,
    data_compression: Compression,
    tags: bool,
    byte_order: ByteOrder,
}

struct Case {
    name: String,
    options: Options,
    input: Input,
    blob: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(vectors().join("manifest.json")).unwrap()).unwrap();
    let cases: Vec<Case> = manifest["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"].as_str() == Some("text"))
        .map(|c| {
            let o = &c["options"];
            let blob = std::fs::read(vectors().join(c["file"].as_str().unwrap())).unwrap();
            Case {
                name: c["name"].as_str().unwrap().to_string(),
                options: Options {
                    timestamp_encoding: o["timestampEncoding"].as_str().unwrap().parse().unwrap(),
                    data_compression: o["dataCompression"].as_str().unwrap().parse().unwrap(),
                    tags: o["tags"].as_bool().unwrap(),
                    byte_order: if o["bigEndian"].as_bool().unwrap() { ByteOrder::Big } else { ByteOrder::Little },
                },
                input: read_input_file(&vectors().join(o["input"].as_str().unwrap())),
                blob,
            }
        })
        .collect();
    assert_eq!(cases.len(), 40, "text cases in the manifest");
    cases
}

#[cfg(feature = "encode")]
fn encode(case: &Case) -> Vec<u8> {
    let o = case.options;
    let options = TextEncoderOptions {
        timestamp_encoding: o.timestamp_encoding,
        data_compression: o.data_compression,
        tags: o.tags,
        byte_order: o.byte_order,
    };
    let mut e = TextEncoder::new(case.input.start_time, options).unwrap();
    for m in &case.input.metrics {
        if case.input.by_name {
            e.start_metric_name(m.name.as_deref().unwrap(), m.timestamps.len()).unwrap();
        } else {
            e.start_metric_id(m.id, m.timestamps.len()).unwrap();
        }
        e.add_points(&m.timestamps, &m.texts, m.tags.as_deref()).unwrap();
        e.end_metric().unwrap();
    }
    e.finish().unwrap()
}

/// The blob holds exactly the input, looked up by id, by name and by position.
fn assert_decodes_to_input(name: &str, bytes: &[u8], case: &Case) {
    let blob = TextBlob::open(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_blob_holds_input(name, &blob, case);
    // Opened from bytes it holds (a data payload without a codec read in place).
    let owned = TextBlob::open_owned(bytes.to_vec(), &DecodeLimits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_blob_holds_input(name, &owned, case);
    // The same blob held amid other bytes (as the wasm module stages input).
    let amid = [&[0xa5; 37][..], bytes, &[0x5a; 11]].concat();
    let in_range =
        TextBlob::open_owned_range(amid, 37..37 + bytes.len(), &DecodeLimits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_blob_holds_input(name, &in_range, case);
}

fn assert_blob_holds_input(name: &str, blob: &TextBlob, case: &Case) {
    let input = &case.input;
    let o = blob.options();
    assert_eq!(blob.start_time(), input.start_time, "{name}");
    assert_eq!(o.timestamp_encoding, case.options.timestamp_encoding, "{name}");
    assert_eq!(o.data_compression, case.options.data_compression, "{name}");
    assert_eq!(o.tags, case.options.tags, "{name}");
    assert_eq!(o.byte_order, case.options.byte_order, "{name}");
    assert_eq!(o.metric_names, input.by_name, "{name}");
    assert_eq!(blob.len(), input.metrics.len(), "{name}");
    let ids: Vec<u64> = input.metrics.iter().map(|m| m.id).collect();
    assert_eq!(blob.metric_ids(), ids, "{name}");
    let columns = blob.decode_all().unwrap();
    assert_eq!(columns.ids, ids);
    let dictionary = blob.decode_dictionary().unwrap();
    assert_eq!(
        (&dictionary.ids, &dictionary.offsets, &dictionary.timestamps),
        (&columns.ids, &columns.offsets, &columns.timestamps),
        "{name}"
    );
    assert_same_strings(&dictionary.values, &columns.values, name);
    match (&dictionary.tags, &columns.tags) {
        (Some(d), Some(c)) => assert_same_strings(d, c, name),
        (d, c) => assert!(d.is_none() && c.is_none(), "{name}: tags in one decode only"),
    }
    for (i, want) in input.metrics.iter().enumerate() {
        let m = blob.metric(want.id).unwrap();
        assert_eq!(m.index(), i, "{name}");
        assert_eq!(m.timestamps().unwrap(), want.timestamps, "{name} metric #{i} timestamps");
        assert_eq!(m.values().unwrap(), want.texts, "{name} metric #{i} values");
        let want_tags = case.options.tags.then(|| want.tags.clone().unwrap_or_else(|| vec![String::new(); want.timestamps.len()]));
        assert_eq!(m.tags().unwrap().map(|t| t.iter().map(|s| s.to_string()).collect::<Vec<_>>()), want_tags, "{name} metric #{i} tags");
        if let Some(n) = &want.name {
            assert_eq!(m.name(), Some(n.as_str()));
            assert_eq!(blob.metric_by_name(n).unwrap().index(), i);
        }
        let last = want.timestamps.len() - 1;
        assert_eq!(m.timestamp_at(last).unwrap(), want.timestamps[last]);
        assert_eq!(m.value_at(last).unwrap(), want.texts[last]);
        let range = columns.points_of(i).unwrap();
        assert_eq!(&columns.timestamps[range.clone()], want.timestamps.as_slice());
        let values: Vec<&str> = range.clone().map(|k| columns.values.get(k).unwrap()).collect();
        assert_eq!(values, want.texts);
        if let (Some(tags), Some(want_tags)) = (&columns.tags, &want_tags) {
            let got: Vec<&str> = range.map(|k| tags.get(k).unwrap()).collect();
            assert_eq!(&got, want_tags);
        }
    }
}

/// A dictionary holds the column's strings, each distinct one once, in order
/// of first appearance.
fn assert_same_strings(d: &Dictionary, c: &StringColumn, name: &str) {
    let got: Vec<&str> = (0..d.len()).map(|i| d.get(i).unwrap()).collect();
    assert_eq!(got, c.iter().collect::<Vec<_>>(), "{name}");
    let mut distinct: Vec<&str> = Vec::new();
    for s in c.iter() {
        if !distinct.contains(&s) {
            distinct.push(s);
        }
    }
    assert_eq!(d.strings, distinct, "{name}");
}

#[test]
fn every_text_vector_decodes_to_its_input() {
    let cases = cases();
    for case in &cases {
        assert_decodes_to_input(&case.name, &case.blob, case);
    }
}

/// Datasets with a metric whose timestamps cross 0 (where the reference decoder
/// misreads delta blobs): the true timestamps come back.
#[test]
fn delta_timestamps_after_zero_are_read_correctly() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c.options.timestamp_encoding == TimestampEncoding::Delta) {
        let blob = TextBlob::open(&case.blob).unwrap();
        for m in &case.input.metrics {
            let zero_then_more = m.timestamps.iter().rev().skip(1).any(|&t| t == 0);
            if zero_then_more {
                assert_eq!(blob.metric(m.id).unwrap().timestamps().unwrap(), m.timestamps, "{}", case.name);
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "{checked} metrics with a timestamp of 0 before the last point");
}

#[cfg(feature = "encode")]
#[test]
fn uncompressed_vectors_are_reproduced_byte_for_byte() {
    let mut identical = 0;
    for case in cases().iter().filter(|c| c.options.data_compression == Compression::None) {
        let ours = encode(case);
        assert!(ours == case.blob, "{}: our blob differs from the reference's", case.name);
        identical += 1;
    }
    assert_eq!(identical, 10);
}

/// Compressed vectors: our blob matches the reference's up to the data
/// payload and decodes to the input; with zstd (the reference's own encoder,
/// which ours follows) the whole blob is identical, while s2 and lz4 come from
/// other libraries and may pick other matches.
#[cfg(feature = "encode")]
#[test]
fn compressed_vectors_round_trip() {
    let (mut round_tripped, mut zstd_identical) = (0, 0);
    for case in cases().iter().filter(|c| c.options.data_compression != Compression::None) {
        let ours = encode(case);
        let theirs = TextBlob::open(&case.blob).unwrap();
        let data_offset = theirs.header().data_offset as usize;
        assert_eq!(ours[..data_offset], case.blob[..data_offset], "{}: header, names and index", case.name);
        assert_decodes_to_input(&case.name, &ours, case);
        if case.options.data_compression == Compression::Zstd {
            assert!(ours == case.blob, "{}: zstd blob differs from the reference's", case.name);
            zstd_identical += 1;
        }
        round_tripped += 1;
    }
    assert_eq!((round_tripped, zstd_identical), (30, 14));
}

/// Every read path; only the absence of panics matters.
fn exercise(bytes: &[u8]) -> bool {
    let Ok(blob) = TextBlob::open(bytes) else { return false };
    // Both decodes of every metric fail together, and agree when they do not.
    match (blob.decode_all(), blob.decode_dictionary()) {
        (Ok(c), Ok(d)) => assert_same_strings(&d.values, &c.values, "damaged"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("decode_all {:?} but decode_dictionary {:?}", a.map(|_| ()), b.map(|_| ())),
    }
    for m in blob.metrics() {
        let _ = m.timestamps();
        let _ = m.values();
        let _ = m.tags();
        let _ = m.points().map(|p| p.count());
        let _ = m.timestamp_at(m.len().saturating_sub(1));
        let _ = m.value_at(0);
        let _ = m.tag_at(m.len() / 2);
        let mut buf = vec![0; m.len()];
        let _ = m.timestamps_into(&mut buf);
    }
    if let Some(names) = blob.names() {
        for n in names {
            let _ = blob.metric_by_name(n);
        }
    }
    true
}

#[test]
fn damaged_vectors_fail_cleanly() {
    let mut opened = 0;
    let mut refused = 0;
    for case in cases() {
        let blob = &case.blob;
        for k in 0..64 {
            let len = blob.len() * k / 64;
            if exercise(&blob[..len]) {
                opened += 1;
            } else {
                refused += 1;
            }
        }
        // A fixed pseudo-random sequence of single-bit flips.
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ blob.len() as u64;
        for _ in 0..64 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let bit = (state >> 33) as usize % (blob.len() * 8);
            let mut damaged = blob.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            if exercise(&damaged) {
                opened += 1;
            } else {
                refused += 1;
            }
        }
    }
    eprintln!("damaged text blobs: {opened} opened, {refused} refused");
    assert!(refused > 0 && opened > 0, "opened {opened}, refused {refused}");
}

#[test]
fn sections_are_where_the_header_offsets_say() {
    use mebo::text::TextSections;
    for case in cases() {
        let b = &case.blob;
        // Read straight from the bytes as docs/FORMAT.md lays them out.
        let u32_at = |at: usize| {
            let bytes: [u8; 4] = b[at..at + 4].try_into().unwrap();
            (if case.options.byte_order == ByteOrder::Big { u32::from_be_bytes(bytes) } else { u32::from_le_bytes(bytes) }) as usize
        };
        let (index, data) = (u32_at(16), u32_at(20));
        let want = TextSections { header: 0..32, names: 32..index, index: index..data, data: data..b.len() };
        let blob = TextBlob::open(b).unwrap();
        assert_eq!(blob.sections(), want, "{}", case.name);
        assert_eq!(TextBlob::open_owned(b.clone(), &DecodeLimits::default()).unwrap().sections(), want, "{}: open_owned", case.name);
        assert_eq!(want.index.len(), 16 * blob.len(), "{}", case.name);
        assert_eq!(want.names.is_empty(), !blob.options().metric_names, "{}", case.name);
    }
}
