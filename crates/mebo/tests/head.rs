//! A blob's head read alone: every vector's kind, metrics and points from
//! the bytes before its first payload, as its input file has them; every
//! cut and flip of a head an error or the blob's own counts.
#![cfg(feature = "head")]

mod common;

use common::{manifest, noise, read_input, vectors_dir};
use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{BlobHead, BlobKind, HEADER_SIZE};

struct Case {
    name: String,
    kind: BlobKind,
    dataset: String,
    bytes: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let cases: Vec<Case> = manifest()
        .into_iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_owned(),
            kind: if c["kind"] == "text" { BlobKind::Text } else { BlobKind::Numeric },
            dataset: c["dataset"].as_str().unwrap().to_owned(),
            bytes: std::fs::read(vectors_dir().join(c["file"].as_str().unwrap())).unwrap(),
        })
        .collect();
    assert!(cases.len() > 600, "{} vectors", cases.len());
    cases
}

/// Each metric of the opened blob as its id and point count, or its error.
fn opened(bytes: &[u8]) -> mebo::Result<Vec<(u64, u32)>> {
    let each = |ids: &[u64], len: &dyn Fn(usize) -> mebo::Result<usize>| {
        ids.iter().enumerate().map(|(p, &id)| len(p).map(|n| (id, n as u32))).collect::<mebo::Result<Vec<_>>>()
    };
    match BlobKind::of(bytes) {
        Some(BlobKind::Text) => TextBlob::open(bytes).and_then(|b| each(b.metric_ids(), &|p| b.metric_at(p).map(|m| m.len()))),
        _ => NumericBlob::open(bytes).and_then(|b| each(b.metric_ids(), &|p| b.metric_at(p).map(|m| m.len()))),
    }
}

#[test]
fn every_vector_is_counted_from_its_head_alone() {
    for c in cases() {
        let input = read_input(&c.dataset);
        let points: usize = input.metrics.iter().map(|m| m.timestamps.len()).sum();
        let len = BlobHead::len(&c.bytes[..HEADER_SIZE]).unwrap();
        assert!(len <= c.bytes.len(), "{}", c.name);
        let head = BlobHead::parse(&c.bytes[..len], c.bytes.len()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(head, BlobHead { kind: c.kind, metric_count: input.metrics.len(), total_points: points as u64 }, "{}", c.name);
        // The ids and counts the input names (a v2 index sorts them).
        let mut ids = BlobHead::metrics(&c.bytes[..len], c.bytes.len()).unwrap();
        let mut expected: Vec<(u64, u32)> = input.metrics.iter().map(|m| (m.id, m.timestamps.len() as u32)).collect();
        ids.sort_unstable();
        expected.sort_unstable();
        assert_eq!(ids, expected, "{}", c.name);
        // The head's end is the first payload's start, which the blob reports
        // where it opens (a build without a codec reads the head alone).
        let first_payload = match c.kind {
            BlobKind::Numeric => NumericBlob::open(&c.bytes).map(|b| b.sections().timestamps.start),
            BlobKind::Text => TextBlob::open(&c.bytes).map(|b| b.sections().data.start),
        };
        if let Ok(start) = first_payload {
            assert_eq!(len, start, "{}", c.name);
        }
    }
}

#[test]
fn a_cut_or_flipped_head_is_an_error_or_the_blobs_own_counts() {
    let (mut cut, mut flipped, mut refused) = (0, 0, 0);
    for (i, c) in cases().iter().enumerate().step_by(7) {
        let len = BlobHead::len(&c.bytes).unwrap();
        // A head cut short is an error, never a count.
        for end in 0..len {
            assert!(BlobHead::parse(&c.bytes[..end], c.bytes.len()).is_err(), "{} cut at {end}", c.name);
            cut += 1;
        }
        // So is a whole blob claimed shorter than its payloads start.
        assert!(BlobHead::parse(&c.bytes[..len], len.saturating_sub(1).max(HEADER_SIZE)).is_err() || len <= HEADER_SIZE);
        // Flipped bytes: where the blob still opens, the head agrees with it;
        // the head is checked as open checks it, so a blob that opens has a
        // head that parses.
        let flips = noise(i as u64 + 1, 64);
        for pair in flips.chunks_exact(2) {
            let mut bytes = c.bytes.clone();
            let at = usize::from(pair[0]) % len.max(1);
            bytes[at] ^= pair[1] | 1;
            let head_bytes = &bytes[..BlobHead::len(&bytes).map_or(0, |l| l.min(bytes.len()))];
            let head = BlobHead::parse(head_bytes, bytes.len());
            match (opened(&bytes), head) {
                (Ok(metrics), Ok(head)) => {
                    let points = metrics.iter().map(|&(_, n)| u64::from(n)).sum();
                    assert_eq!((head.metric_count, head.total_points), (metrics.len(), points), "{} flipped at {at}", c.name);
                    assert_eq!(BlobHead::metrics(head_bytes, bytes.len()).unwrap(), metrics, "{} flipped at {at}", c.name);
                    // The first metric read from its ranges alone, the rest zeros: as from the whole blob.
                    if let Some(&(first, _)) = metrics.first() {
                        let mut sparse = vec![0; bytes.len()];
                        sparse[..head_bytes.len()].copy_from_slice(head_bytes);
                        for r in BlobHead::ranges(head_bytes, bytes.len(), |id| id == first).unwrap() {
                            sparse[r.clone()].copy_from_slice(&bytes[r]);
                        }
                        let (whole, alone) = (points_of(&bytes, first), points_of(&sparse, first));
                        assert_eq!(alone.map_err(|e| e.to_string()), whole.map_err(|e| e.to_string()), "{} flipped at {at}", c.name);
                    }
                }
                (Ok(_), Err(e)) => panic!("{} flipped at {at}: opens, but its head is refused: {e}", c.name),
                (Err(_), Ok(_)) => refused += 1,
                (Err(_), Err(_)) => {}
            }
            flipped += 1;
        }
    }
    // Heads that parse while the payloads do not open: counted, not judged.
    eprintln!("{cut} cuts, {flipped} flips, {refused} flips whose head parses and blob does not open");
    assert!(cut > 1_000 && flipped > 1_000);
}

/// A metric's points, comparable: timestamps, values (floats by their bits),
/// tags.
fn points_of(bytes: &[u8], id: u64) -> mebo::Result<String> {
    match BlobKind::of(bytes) {
        Some(BlobKind::Text) => {
            let blob = TextBlob::open(bytes)?;
            let m = blob.metric_at(blob.position(id).unwrap())?;
            Ok(format!("{:?} {:?} {:?}", m.timestamps()?, m.values()?, m.tags()?))
        }
        _ => {
            let blob = NumericBlob::open(bytes)?;
            let m = blob.metric_at(blob.position(id).unwrap())?;
            let bits: Vec<u64> = m.values()?.iter().map(|v| v.to_bits()).collect();
            Ok(format!("{:?} {bits:?} {:?}", m.timestamps()?, m.tags()?))
        }
    }
}

#[test]
fn the_ranges_of_a_metric_are_all_its_reading_takes() {
    let (mut read, mut whole, mut smaller, mut decoded, mut wanted_metrics) = (0usize, 0usize, 0, 0, 0);
    for (i, c) in cases().iter().enumerate() {
        let len = BlobHead::len(&c.bytes).unwrap();
        let ids: Vec<u64> = BlobHead::metrics(&c.bytes[..len], c.bytes.len()).unwrap().iter().map(|&(id, _)| id).collect();
        // Each metric alone, then the first and the last together.
        let mut wanted: Vec<Vec<u64>> = ids.iter().step_by(ids.len().div_ceil(4).max(1)).map(|&id| vec![id]).collect();
        wanted.push(vec![ids[0], ids[ids.len() - 1]]);
        for want in wanted {
            let ranges = BlobHead::ranges(&c.bytes[..len], c.bytes.len(), |id| want.contains(&id)).unwrap();
            assert!(ranges.windows(2).all(|w| w[0].end < w[1].start), "{}: {ranges:?}", c.name);
            assert!(ranges.iter().all(|r| r.start >= len && r.start < r.end && r.end <= c.bytes.len()), "{}: {ranges:?}", c.name);
            // Every other byte of the payloads is noise: the reading must not see it.
            let mut sparse = noise(i as u64 + 7, c.bytes.len());
            sparse[..len].copy_from_slice(&c.bytes[..len]);
            for r in &ranges {
                sparse[r.clone()].copy_from_slice(&c.bytes[r.clone()]);
            }
            // (A build without a codec refuses both alike.)
            for &id in &want {
                let (whole, alone) = (points_of(&c.bytes, id), points_of(&sparse, id));
                decoded += usize::from(whole.is_ok());
                wanted_metrics += 1;
                assert_eq!(alone.map_err(|e| e.to_string()), whole.map_err(|e| e.to_string()), "{} {id:016x}", c.name);
            }
            let taken: usize = ranges.iter().map(|r| r.len()).sum();
            read += taken;
            whole += c.bytes.len() - len;
            smaller += usize::from(taken < c.bytes.len() - len);
        }
    }
    eprintln!("{read} of {whole} payload bytes read; {smaller} selections read less than the payloads; {decoded} metrics decoded");
    assert!(smaller > 500 && decoded > 1000, "{smaller} smaller, {decoded} decoded");
    // With every codec built, every metric decodes.
    if cfg!(all(feature = "zstd", feature = "s2", feature = "lz4")) {
        assert_eq!(decoded, wanted_metrics);
    }
}
