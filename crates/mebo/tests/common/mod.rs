#![allow(dead_code)]
//! Test-only helpers: read the conformance vectors without the blob API, so each
//! codec can be checked against real reference bytes on its own.

use mebo::ByteOrder;

pub fn read_blob(case: &str) -> Vec<u8> {
    std::fs::read(vectors_dir().join("blobs").join(format!("{case}.mebo"))).expect("vector blob")
}

pub use mebo_testdata::{read_input_file, vectors_dir, Input};

pub fn read_input(dataset: &str) -> Input {
    read_input_file(&vectors_dir().join("inputs").join(format!("{dataset}.json")))
}

/// `len` bytes of deterministic noise (xorshift64 from `seed`, which must not be 0).
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// One metric's raw column bytes, cut out of a numeric v1 blob with no codec and
/// no metric-names payload (enough to test a codec against reference bytes).
pub struct RawColumns {
    pub id: u64,
    pub count: usize,
    pub timestamps: Vec<u8>,
    pub values: Vec<u8>,
    pub tags: Vec<u8>,
}

pub fn v1_columns(blob: &[u8]) -> (ByteOrder, Vec<RawColumns>) {
    let flags = u16::from_le_bytes([blob[0], blob[1]]);
    assert_eq!(flags & 0xFFF0, 0xEA10, "v1 numeric blob");
    assert_eq!(flags & 0x4, 0, "no metric names");
    assert_eq!(blob[3], 0x11, "no codec");
    let order = if flags & 0x2 != 0 { ByteOrder::Big } else { ByteOrder::Little };
    let u32_at = |p: usize| order.u32(blob[p..p + 4].try_into().unwrap()) as usize;
    let u16_at = |p: usize| order.u16(blob[p..p + 2].try_into().unwrap()) as usize;
    let count = u32_at(12);
    let (ts_start, val_start, tag_start) = (u32_at(20), u32_at(24), u32_at(28));
    let mut entries = Vec::new();
    let (mut t, mut v, mut g) = (0, 0, 0);
    for i in 0..count {
        let p = 32 + i * 16;
        t += u16_at(p + 10);
        v += u16_at(p + 12);
        g += u16_at(p + 14);
        entries.push((order.u64(blob[p..p + 8].try_into().unwrap()), u16_at(p + 8), t, v, g));
    }
    let ts_payload = &blob[ts_start..val_start];
    let val_payload = &blob[val_start..tag_start];
    // The tag payload is always zstd: cut the tag columns out of its decompressed bytes.
    let tag_payload = if flags & 0x1 != 0 {
        mebo::internals::decompress(mebo::Compression::Zstd, &blob[tag_start..], 1 << 24, "tags").unwrap().into_owned()
    } else {
        blob[tag_start..].to_vec()
    };
    let cols = (0..count)
        .map(|i| {
            let (id, n, t, v, g) = entries[i];
            let next = entries.get(i + 1);
            let te = next.map_or(ts_payload.len(), |e| e.2);
            let ve = next.map_or(val_payload.len(), |e| e.3);
            let ge = next.map_or(tag_payload.len(), |e| e.4);
            RawColumns {
                id,
                count: n,
                timestamps: ts_payload[t..te].to_vec(),
                values: val_payload[v..ve].to_vec(),
                tags: tag_payload[g..ge].to_vec(),
            }
        })
        .collect();
    (order, cols)
}

#[allow(dead_code)]
pub fn manifest() -> Vec<serde_json::Value> {
    mebo_testdata::manifest(&vectors_dir())
}

#[test]
fn v1_columns_cut_a_real_blob() {
    let (order, cols) = v1_columns(&read_blob("num-gauge1-raw-none-raw-none-notags-le-v1"));
    let input = read_input("gauge1");
    assert_eq!(order, ByteOrder::Little);
    assert_eq!(cols.len(), input.metrics.len());
    assert_eq!(cols[0].id, input.metrics[0].id);
    assert_eq!(cols[0].timestamps.len(), 8 * input.metrics[0].timestamps.len());
    assert_eq!(&cols[0].timestamps[..8], &input.metrics[0].timestamps[0].to_le_bytes());
}
