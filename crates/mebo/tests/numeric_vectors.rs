//! Every numeric conformance vector: decode bit-exactly; re-encode byte for
//! byte where no codec is involved, round-trip (and size-check) where one is.

mod common;

use std::collections::HashMap;

use common::{manifest, read_input, vectors_dir, Input};
use mebo::numeric::{NumericBlob, NumericEncoder, NumericEncoderOptions};
use mebo::{ByteOrder, Compression, DecodeLimits, Layout, TimestampEncoding, ValueEncoding};
use mebo_testdata::CaseOptions;

struct Case {
    name: String,
    dataset: String,
    blob: Vec<u8>,
    options: NumericEncoderOptions,
}

fn numeric_cases() -> Vec<Case> {
    manifest()
        .into_iter()
        .filter(|c| c["kind"] == "numeric")
        .map(|c| {
            let o = CaseOptions::of(&c);
            let byte_order = if o.big_endian { ByteOrder::Big } else { ByteOrder::Little };
            Case {
                name: c["name"].as_str().unwrap().to_string(),
                dataset: c["dataset"].as_str().unwrap().to_string(),
                blob: std::fs::read(vectors_dir().join(c["file"].as_str().unwrap())).unwrap(),
                options: NumericEncoderOptions { tags: o.tags, byte_order, layout: o.layout.parse().unwrap(), ..Default::default() }
                    .with_config(o.column_config().parse().unwrap()),
            }
        })
        .collect()
}

fn inputs() -> HashMap<String, Input> {
    let mut map = HashMap::new();
    for c in numeric_cases() {
        map.entry(c.dataset.clone()).or_insert_with(|| read_input(&c.dataset));
    }
    map
}

fn assert_decodes_to(blob: &NumericBlob, input: &Input, case: &str) {
    assert_eq!(blob.start_time(), input.start_time, "{case}");
    assert_eq!(blob.len(), input.metrics.len(), "{case}: metric count");
    let columns = blob.decode_all().unwrap_or_else(|e| panic!("{case}: decode_all: {e}"));
    for m in &input.metrics {
        let metric = blob.metric(m.id).unwrap_or_else(|e| panic!("{case}: {e}"));
        let ts = metric.timestamps().unwrap_or_else(|e| panic!("{case}: {:016x}: {e}", m.id));
        let vs = metric.values().unwrap_or_else(|e| panic!("{case}: {:016x}: {e}", m.id));
        assert_eq!(ts, m.timestamps, "{case}: timestamps of {:016x}", m.id);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&vs), bits(&m.values), "{case}: values of {:016x}", m.id);
        let i = metric.index();
        let range = columns.offsets[i] as usize..columns.offsets[i + 1] as usize;
        assert_eq!(columns.ids[i], m.id);
        assert_eq!(&columns.timestamps[range.clone()], m.timestamps.as_slice(), "{case}: column timestamps");
        assert_eq!(bits(&columns.values[range]), bits(&m.values), "{case}: column values");
        let tags = metric.tags().unwrap();
        match (&m.tags, tags) {
            (Some(want), Some(got)) => assert_eq!(&got, want, "{case}: tags"),
            (Some(want), None) => assert!(want.iter().all(|t| t.is_empty()), "{case}: tags missing"),
            (None, Some(got)) => assert!(got.iter().all(|t| t.is_empty()), "{case}: unexpected tags"),
            (None, None) => {}
        }
        if let Some(name) = &m.name {
            assert_eq!(blob.metric_by_name(name).unwrap().id(), m.id, "{case}: lookup by name");
        }
    }
}

fn encode(input: &Input, options: NumericEncoderOptions) -> Vec<u8> {
    let mut enc = NumericEncoder::new(input.start_time, options);
    for m in &input.metrics {
        match &m.name {
            Some(name) if input.by_name => enc.start_metric_name(name, m.timestamps.len()).unwrap(),
            _ => enc.start_metric_id(m.id, m.timestamps.len()).unwrap(),
        }
        enc.add_points(&m.timestamps, &m.values, m.tags.as_deref()).unwrap();
        enc.end_metric().unwrap();
    }
    enc.finish().unwrap()
}

#[test]
fn every_numeric_vector_decodes_bit_exactly() {
    let inputs = inputs();
    let cases = numeric_cases();
    assert_eq!(cases.len(), 638);
    for c in &cases {
        let blob = NumericBlob::open(&c.blob).unwrap_or_else(|e| panic!("{}: open: {e}", c.name));
        let o = blob.options();
        assert_eq!(o.config, c.options.config, "{}", c.name);
        assert_eq!(o.byte_order, c.options.byte_order, "{}", c.name);
        assert_decodes_to(&blob, &inputs[&c.dataset], &c.name);
        // Opened from bytes it holds (payloads without a codec read in place).
        let owned =
            NumericBlob::open_owned(c.blob.clone(), &DecodeLimits::default()).unwrap_or_else(|e| panic!("{}: open_owned: {e}", c.name));
        assert_decodes_to(&owned, &inputs[&c.dataset], &c.name);
        // The same blob held amid other bytes (as the wasm module stages input).
        let mut amid = vec![0xa5; 37];
        amid.extend_from_slice(&c.blob);
        amid.extend_from_slice(&[0x5a; 11]);
        let in_range = NumericBlob::open_owned_range(amid, 37..37 + c.blob.len(), &DecodeLimits::default())
            .unwrap_or_else(|e| panic!("{}: open_owned_range: {e}", c.name));
        assert_decodes_to(&in_range, &inputs[&c.dataset], &c.name);
        assert_eq!(in_range.sections(), blob.sections(), "{}", c.name);
        let cut = c.blob[..c.blob.len() / 2].to_vec();
        assert_eq!(
            NumericBlob::open_owned(cut.clone(), &DecodeLimits::default()).err().map(|e| e.code()),
            NumericBlob::open(&cut).err().map(|e| e.code()),
            "{}",
            c.name
        );
        let past_the_end = NumericBlob::open_owned_range(c.blob.clone(), 1..c.blob.len() + 1, &DecodeLimits::default());
        assert_eq!(past_the_end.err().map(|e| e.code()), Some("TRUNCATED"), "{}", c.name);
    }
}

/// `decode_unstored_into` hands back a raw little-endian column as its
/// stored bytes (the reference writes each metric's column after the
/// previous one's), and those bytes are the input's points.
#[test]
fn raw_little_endian_columns_are_handed_back_as_stored() {
    let inputs = inputs();
    let (mut stored_ts, mut stored_values) = (0, 0);
    for c in &numeric_cases() {
        let blob = NumericBlob::open(&c.blob).unwrap();
        let input = &inputs[&c.dataset];
        let mut partial = mebo::numeric::NumericColumns::default();
        let stored = blob.decode_unstored_into(&mut partial, |_| true).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let little = c.options.byte_order == ByteOrder::Little;
        // The shared layout stores identical timestamp columns once: those are not as they decode.
        let shares = c.options.layout == Layout::V2Shared
            && input.metrics.iter().enumerate().any(|(i, m)| input.metrics[..i].iter().any(|n| n.timestamps == m.timestamps));
        let raw_ts = c.options.config.timestamp_encoding == TimestampEncoding::Raw && little && !shares;
        let raw_values = c.options.config.value_encoding == ValueEncoding::Raw && little;
        assert_eq!((stored.timestamps.is_some(), stored.values.is_some()), (raw_ts, raw_values), "{}", c.name);
        assert_eq!(partial.timestamps.len(), if raw_ts { 0 } else { blob.total_points() }, "{}", c.name);
        assert_eq!(partial.values.len(), if raw_values { 0 } else { blob.total_points() }, "{}", c.name);
        // The input's points in the blob's index order, as little-endian bytes.
        let (mut want_ts, mut want_values) = (Vec::new(), Vec::new());
        for &id in blob.metric_ids() {
            let m = input.metrics.iter().find(|m| m.id == id).unwrap();
            want_ts.extend(m.timestamps.iter().flat_map(|t| t.to_le_bytes()));
            want_values.extend(m.values.iter().flat_map(|v| v.to_bits().to_le_bytes()));
        }
        if let Some(bytes) = stored.timestamps {
            assert_eq!(bytes, want_ts.as_slice(), "{}: stored timestamps", c.name);
            stored_ts += 1;
        }
        if let Some(bytes) = stored.values {
            assert_eq!(bytes, want_values.as_slice(), "{}: stored values", c.name);
            stored_values += 1;
        }
    }
    eprintln!("stored columns handed back: {stored_ts} timestamp, {stored_values} value");
    assert!(stored_ts > 20 && stored_values > 20, "{stored_ts} / {stored_values}");
}

#[test]
fn uncompressed_vectors_are_reproduced_byte_for_byte() {
    let inputs = inputs();
    let mut exact = 0;
    for c in numeric_cases() {
        let o = c.options;
        if o.config.timestamp_compression != Compression::None || o.config.value_compression != Compression::None {
            continue;
        }
        // Tagged blobs included: their tag payload is always zstd, and our
        // encoder writes the reference's frames.
        let ours = encode(&inputs[&c.dataset], o);
        assert!(ours == c.blob, "{}: encoded bytes differ (ours {} bytes, reference {})", c.name, ours.len(), c.blob.len());
        // The options the reference's blob reports write it again too.
        let read = NumericBlob::open(&c.blob).unwrap().options();
        assert!(encode(&inputs[&c.dataset], read) == c.blob, "{}: its own options ({read:?}) write other bytes", c.name);
        exact += 1;
    }
    assert!(exact >= 280, "only {exact} uncompressed cases");
}

#[test]
fn compressed_vectors_round_trip_at_the_reference_size() {
    let inputs = inputs();
    // Keyed by "every codec is none or zstd".
    let (mut totals, mut identical) = (HashMap::new(), HashMap::new());
    for c in numeric_cases() {
        let o = c.options;
        if o.config.timestamp_compression == Compression::None && o.config.value_compression == Compression::None {
            continue;
        }
        let ours = encode(&inputs[&c.dataset], o);
        let blob = NumericBlob::open(&ours).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_decodes_to(&blob, &inputs[&c.dataset], &c.name);
        let codecs = [o.config.timestamp_compression, o.config.value_compression];
        let only_zstd = codecs.iter().all(|&k| matches!(k, Compression::None | Compression::Zstd));
        *totals.entry(only_zstd).or_insert(0) += 1;
        if ours == c.blob {
            *identical.entry(only_zstd).or_insert(0) += 1;
        } else {
            // zstd is the reference's own encoder; s2 and lz4 come from other
            // libraries (minlz, lz4_flex) and may choose other matches.
            assert!(!only_zstd, "{}: zstd-only blob differs from the reference", c.name);
        }
        let ratio = ours.len() as f64 / c.blob.len() as f64;
        assert!(ratio <= 1.03, "{}: ours {} bytes vs reference {} ({ratio:.3})", c.name, ours.len(), c.blob.len());
    }
    println!(
        "compressed cases byte-identical: zstd/none only {} of {}, with s2 or lz4 {} of {}",
        identical.get(&true).unwrap_or(&0),
        totals.get(&true).unwrap_or(&0),
        identical.get(&false).unwrap_or(&0),
        totals.get(&false).unwrap_or(&0)
    );
}

#[test]
fn layouts_report_what_the_manifest_says() {
    for c in numeric_cases() {
        let blob = NumericBlob::open(&c.blob).unwrap();
        let layout = blob.options().layout;
        match c.options.layout {
            Layout::V1 => assert_eq!(layout, Layout::V1, "{}", c.name),
            // v2-shared without any identical timestamp columns is written as plain v2
            Layout::V2 | Layout::V2Shared => assert_ne!(layout, Layout::V1, "{}", c.name),
        }
    }
}

/// A u32 header field at `at`, in the byte order bit 1 of the flag word names.
fn header_u32(blob: &[u8], at: usize) -> usize {
    let bytes: [u8; 4] = blob[at..at + 4].try_into().unwrap();
    (if blob[0] & 2 != 0 { u32::from_be_bytes(bytes) } else { u32::from_le_bytes(bytes) }) as usize
}

#[test]
fn sections_are_where_the_header_offsets_say() {
    use mebo::numeric::NumericSections;
    for c in numeric_cases() {
        let blob = NumericBlob::open(&c.blob).unwrap();
        // Read straight from the bytes as docs/FORMAT.md lays them out: 32-byte
        // entries under magic 0xEA30, else 16.
        let (index, ts, val, tag) = (header_u32(&c.blob, 16), header_u32(&c.blob, 20), header_u32(&c.blob, 24), header_u32(&c.blob, 28));
        let entry = if u16::from_le_bytes([c.blob[0], c.blob[1]]) >> 4 == 0xEA3 { 32 } else { 16 };
        let index_end = index + entry * header_u32(&c.blob, 12);
        let want = NumericSections {
            header: 0..32,
            names: 32..index,
            index: index..index_end,
            shared_timestamps: index_end..ts,
            timestamps: ts..val,
            values: val..tag,
            tags: tag..c.blob.len(),
        };
        assert_eq!(blob.sections(), want, "{}", c.name);
        assert_eq!(blob.clone().into_owned().sections(), want, "{}: owned", c.name);
        assert_eq!(NumericBlob::open_owned(c.blob.clone(), &DecodeLimits::default()).unwrap().sections(), want, "{}: open_owned", c.name);
        assert_eq!(want.names.is_empty(), blob.names().is_none(), "{}", c.name);
        assert_eq!(want.shared_timestamps.is_empty(), blob.options().layout != Layout::V2Shared, "{}", c.name);
    }
}
