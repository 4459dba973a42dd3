//! Text blobs: a reader handle and an encoder handle, shaped as the numeric ones.

use js_sys::{BigInt64Array, BigUint64Array, Uint32Array};
use std::collections::HashMap;

use mebo::text::{StringColumn, TextBlob, TextColumns, TextMetric};
use wasm_bindgen::prelude::*;

use crate::js::{self, check, JsObject, JsResult};
use crate::series::Selection;

/// An opened text blob. It holds its decompressed data payload or, when the
/// payload has no codec, the bytes it was opened from (read in place).
#[wasm_bindgen]
pub struct TextBlobHandle {
    blob: TextBlob<'static>,
    /// Length of the bytes it was opened from (for `sections`).
    byte_length: usize,
}

crate::accessors::blob_handle_accessors!(TextBlobHandle);

impl TextBlobHandle {
    fn metric(&self, index: usize) -> JsResult<TextMetric<'_>> {
        check(self.blob.metric_at(index))
    }
}

#[wasm_bindgen]
impl TextBlobHandle {
    /// Open a blob. Absent limits keep the core's defaults.
    /// The bytes arrive as one copy in wasm memory that the handle keeps.
    pub fn open(bytes: Vec<u8>, max_decompressed_bytes: Option<usize>, max_points: Option<u64>) -> JsResult<TextBlobHandle> {
        let limits = js::decode_limits(max_decompressed_bytes, max_points);
        let byte_length = bytes.len();
        Ok(TextBlobHandle { blob: check(TextBlob::open_owned(bytes, &limits))?, byte_length })
    }

    /// Where the blob's bytes go, from the header's offsets: `{ total,
    /// header, names, index, data }`, the data payload as `{ bytes,
    /// decompressedBytes }` (the open blob checked the offsets).
    pub fn sections(&self) -> JsValue {
        let h = self.blob.header();
        let (index, data) = (h.index_offset as usize, h.data_offset as usize);
        JsObject::new()
            .set("total", self.byte_length as f64)
            .set("header", mebo::text::header::HEADER_SIZE as f64)
            .set("names", (index - mebo::text::header::HEADER_SIZE) as f64)
            .set("index", (data - index) as f64)
            .set("data", js::payload(self.byte_length - data, self.blob.data_size()))
            .into()
    }

    /// The header's options, with the manifest's field names.
    pub fn options(&self) -> JsValue {
        let o = self.blob.options();
        JsObject::new()
            .set("timestampEncoding", o.timestamp_encoding.name())
            .set("dataCompression", o.data_compression.name())
            .set("tags", o.tags)
            .set("bigEndian", o.byte_order == mebo::ByteOrder::Big)
            .set("byteOrder", js::byte_order_name(o.byte_order))
            .set("metricNames", o.metric_names)
            .into()
    }

    /// The metric's values as joined strings.
    pub fn values(&self, index: usize) -> JsResult<JsValue> {
        js::strings(check(self.metric(index)?.values())?)
    }

    /// The metric's tags as joined strings, or `undefined` when the blob has none.
    pub fn tags(&self, index: usize) -> JsResult<JsValue> {
        match check(self.metric(index)?.tags())? {
            Some(tags) => js::strings(tags),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    #[wasm_bindgen(js_name = timestampAt)]
    pub fn timestamp_at(&self, index: usize, point: usize) -> JsResult<i64> {
        check(self.metric(index)?.timestamp_at(point))
    }

    /// The metric's points with `from <= t < to`: `{ timestamps, values, tags? }`, strings joined.
    pub fn range(&self, index: usize, from: i64, to: i64) -> JsResult<JsValue> {
        let m = self.metric(index)?;
        let timestamps = check(m.timestamps())?;
        let picked = Selection::of(&timestamps, from, to);
        let tags = check(m.tags())?.map(|t| picked.pick(&t));
        let values = js::strings(picked.pick(&check(m.values())?))?;
        js::series(&picked.pick(&timestamps), values, tags.as_deref())
    }

    #[wasm_bindgen(js_name = valueAt)]
    pub fn value_at(&self, index: usize, point: usize) -> JsResult<String> {
        Ok(check(self.metric(index)?.value_at(point))?.to_string())
    }

    #[wasm_bindgen(js_name = tagAt)]
    pub fn tag_at(&self, index: usize, point: usize) -> JsResult<Option<String>> {
        Ok(check(self.metric(index)?.tag_at(point))?.map(str::to_string))
    }

    /// Every metric at once: `{ ids, offsets, timestamps, dictionary, codes,
    /// tagDictionary?, tagCodes? }` (see [`columns`]).
    #[wasm_bindgen(js_name = decodeAll)]
    pub fn decode_all(&self) -> JsResult<JsValue> {
        columns(&check(self.blob.decode_all())?)
    }

    /// [`decode_all`](Self::decode_all) into the caller's `timestamps`, `codes`
    /// and, when the blob has tags, `tag_codes` (their first `totalPoints`
    /// elements; they must hold that many). Returns `{ ids, offsets,
    /// dictionary, tagDictionary? }`.
    #[wasm_bindgen(js_name = decodeAllInto)]
    pub fn decode_all_into(&self, timestamps: &BigInt64Array, codes: &Uint32Array, tag_codes: Option<Uint32Array>) -> JsResult<JsValue> {
        let c = check(self.blob.decode_all())?;
        let n = c.timestamps.len();
        let short = |len: u32| (len as usize) < n;
        if short(timestamps.length()) || short(codes.length()) || (c.tags.is_some() && tag_codes.as_ref().is_none_or(|t| short(t.length())))
        {
            return Err(js_sys::RangeError::new(&format!("decodeAllInto needs arrays of at least {n} elements")).into());
        }
        let values = Dictionary::of(&c.values)?;
        timestamps.subarray(0, n as u32).copy_from(&c.timestamps);
        codes.subarray(0, n as u32).copy_from(&values.codes);
        let mut out = JsObject::new()
            .set("ids", BigUint64Array::from(c.ids.as_slice()))
            .set("offsets", Uint32Array::from(c.offsets.as_slice()))
            .set("dictionary", js::strings(values.strings)?);
        if let (Some(tags), Some(tag_codes)) = (&c.tags, tag_codes) {
            let tags = Dictionary::of(tags)?;
            tag_codes.subarray(0, n as u32).copy_from(&tags.codes);
            out = out.set("tagDictionary", js::strings(tags.strings)?);
        }
        Ok(out.into())
    }
}

/// A string column as Arrow's dictionary vectors hold one: each distinct
/// string once, in order of first appearance, and per point the index of its
/// string. JavaScript then makes one string per distinct value, not per
/// point (text columns are mostly statuses that repeat).
pub(crate) struct Dictionary<'a> {
    pub strings: Vec<&'a str>,
    pub codes: Vec<u32>,
}

/// Distinct strings looked up by a linear scan before a hash map is built:
/// most text columns hold a handful of statuses, and comparing a few short
/// strings is cheaper than hashing one.
const LINEAR_LOOKUP: usize = 16;

/// A cheap fingerprint of a string, compared before its bytes: in wasm every
/// string comparison is a call to a byte-by-byte `memcmp`. Only a filter; the
/// bytes still decide, and the hash map behind the scan uses std's keyed hash.
fn fingerprint(s: &str) -> u64 {
    let mut h = s.len() as u64;
    let mut chunks = s.as_bytes().chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}

/// Byte equality, word by word and inlined: slice `==` calls `memcmp`,
/// which in wasm is a byte loop behind a call.
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut wa).zip(&mut wb) {
        let (mut p, mut q) = ([0u8; 8], [0u8; 8]);
        p.copy_from_slice(x);
        q.copy_from_slice(y);
        if p != q {
            return false;
        }
    }
    wa.remainder().iter().zip(wb.remainder()).all(|(x, y)| x == y)
}

impl<'a> Dictionary<'a> {
    pub fn of(column: &'a StringColumn) -> JsResult<Dictionary<'a>> {
        let mut strings: Vec<&'a str> = Vec::new();
        // The scanned entries' fingerprints, while there are at most LINEAR_LOOKUP.
        let mut fingerprints: Vec<u64> = Vec::new();
        // Filled once there are more than LINEAR_LOOKUP distinct strings.
        // std's SipHash, not a faster unkeyed hash: a blob is hostile input,
        // and colliding strings must not make this quadratic.
        let mut index: HashMap<&'a str, u32> = HashMap::new();
        let mut codes = Vec::with_capacity(column.offsets.len().saturating_sub(1));
        let mut last: Option<(u64, &str, u32)> = None;
        for w in column.offsets.windows(2) {
            // The core built the offsets at string boundaries; a miss is a bug, reported, not a panic.
            let s = column.bytes.get(w[0] as usize..w[1] as usize).ok_or_else(|| {
                js::error(mebo::Error::OffsetOutOfRange { what: "text column string", offset: w[1] as usize, limit: column.bytes.len() })
            })?;
            let print = fingerprint(s);
            let code = match last {
                // Runs of one value (a status that holds) look nothing up.
                Some((p, previous, code)) if p == print && same(previous, s) => code,
                _ if index.is_empty() => match (0..strings.len()).find(|&k| fingerprints[k] == print && same(strings[k], s)) {
                    Some(k) => k as u32,
                    None => {
                        strings.push(s);
                        fingerprints.push(print);
                        if strings.len() > LINEAR_LOOKUP {
                            index.extend(strings.iter().enumerate().map(|(k, &d)| (d, k as u32)));
                        }
                        (strings.len() - 1) as u32
                    }
                },
                _ => *index.entry(s).or_insert_with(|| {
                    strings.push(s);
                    (strings.len() - 1) as u32
                }),
            };
            last = Some((print, s, code));
            codes.push(code);
        }
        Ok(Dictionary { strings, codes })
    }
}

/// Columns as `{ ids, offsets, timestamps, dictionary, codes, tagDictionary?,
/// tagCodes? }`: values and tags as dictionaries (strings joined).
pub(crate) fn columns(c: &TextColumns) -> JsResult<JsValue> {
    let values = Dictionary::of(&c.values)?;
    let mut out = JsObject::new()
        .set("ids", BigUint64Array::from(c.ids.as_slice()))
        .set("offsets", Uint32Array::from(c.offsets.as_slice()))
        .set("timestamps", BigInt64Array::from(c.timestamps.as_slice()))
        .set("dictionary", js::strings(values.strings)?)
        .set("codes", Uint32Array::from(values.codes.as_slice()));
    if let Some(tags) = &c.tags {
        let tags = Dictionary::of(tags)?;
        out = out.set("tagDictionary", js::strings(tags.strings)?).set("tagCodes", Uint32Array::from(tags.codes.as_slice()));
    }
    Ok(out.into())
}

#[cfg(feature = "encode")]
pub use encode::TextEncoderHandle;

#[cfg(feature = "encode")]
mod encode {
    use mebo::text::{TextEncoder, TextEncoderOptions};
    use wasm_bindgen::prelude::*;

    use crate::js::{self, check, parse_or, JsResult};

    /// Builds one text blob. The core's text encoder is not consumed by
    /// `finish`: more metrics may be added and the blob finished again.
    #[wasm_bindgen]
    pub struct TextEncoderHandle {
        encoder: TextEncoder,
    }

    #[wasm_bindgen]
    impl TextEncoderHandle {
        /// Absent options keep the core's defaults.
        #[wasm_bindgen(constructor)]
        pub fn new(
            start_time: i64,
            timestamp_encoding: Option<String>,
            data_compression: Option<String>,
            tags: Option<bool>,
            big_endian: Option<bool>,
        ) -> JsResult<TextEncoderHandle> {
            let d = TextEncoderOptions::default();
            let options = TextEncoderOptions {
                timestamp_encoding: parse_or(timestamp_encoding, d.timestamp_encoding)?,
                data_compression: parse_or(data_compression, d.data_compression)?,
                tags: tags.unwrap_or(d.tags),
                byte_order: big_endian.map_or(d.byte_order, js::byte_order),
            };
            Ok(TextEncoderHandle { encoder: check(TextEncoder::new(start_time, options))? })
        }

        #[wasm_bindgen(js_name = startMetricName)]
        pub fn start_metric_name(&mut self, name: &str, count: usize) -> JsResult<()> {
            check(self.encoder.start_metric_name(name, count))
        }

        #[wasm_bindgen(js_name = startMetricId)]
        pub fn start_metric_id(&mut self, id: u64, count: usize) -> JsResult<()> {
            check(self.encoder.start_metric_id(id, count))
        }

        #[wasm_bindgen(js_name = addPoint)]
        pub fn add_point(&mut self, timestamp: i64, value: &str, tag: Option<String>) -> JsResult<()> {
            check(self.encoder.add_point(timestamp, value, tag.as_deref()))
        }

        #[wasm_bindgen(js_name = addPoints)]
        pub fn add_points(&mut self, timestamps: &[i64], values: Vec<String>, tags: Option<Vec<String>>) -> JsResult<()> {
            check(self.encoder.add_points(timestamps, &values, tags.as_deref()))
        }

        #[wasm_bindgen(js_name = endMetric)]
        pub fn end_metric(&mut self) -> JsResult<()> {
            check(self.encoder.end_metric())
        }

        /// Drop the started metric and its points.
        #[wasm_bindgen(js_name = cancelMetric)]
        pub fn cancel_metric(&mut self) {
            self.encoder.cancel_metric()
        }

        #[wasm_bindgen(js_name = metricCount)]
        pub fn metric_count(&self) -> usize {
            self.encoder.metric_count()
        }

        /// The finished blob.
        pub fn finish(&self) -> JsResult<Vec<u8>> {
            check(self.encoder.finish())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `same` and `fingerprint` agree with plain equality on strings of every
    /// length around the 8-byte words, equal and differing at every position.
    #[test]
    fn same_and_fingerprint_agree_with_equality() {
        let base: String = "ok-dégradé-€-status-0123456789".into();
        for len in 0..base.len() {
            let Some(a) = base.get(..len) else { continue };
            let copy: String = a.chars().collect(); // the same bytes elsewhere in memory
            assert!(same(a, &copy) && fingerprint(a) == fingerprint(&copy));
            for other in [&base[..], "", "x", "ok-dégradé", "ok-dégradé-€-status-0123456788"] {
                assert_eq!(same(a, other), a == other, "{a:?} vs {other:?}");
            }
            for at in 0..len {
                let mut changed = a.as_bytes().to_vec();
                changed[at] ^= 1;
                if let Ok(b) = std::str::from_utf8(&changed) {
                    assert!(!same(a, b), "{a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn dictionary_of_a_column() {
        let words = ["up", "down", "up", "up", "", "down", "ünïcode"];
        let mut column = StringColumn::default();
        for w in words {
            column.push(w);
        }
        let d = Dictionary::of(&column).expect("a well-formed column");
        assert_eq!(d.strings, vec!["up", "down", "", "ünïcode"]);
        assert_eq!(d.codes, vec![0, 1, 0, 0, 2, 1, 3]);
        // Past the linear scan: the hash map takes over with the same codes.
        let mut many = StringColumn::default();
        let names: Vec<String> = (0..40).map(|i| format!("s{}", i % 20)).collect();
        for n in &names {
            many.push(n);
        }
        let d = Dictionary::of(&many).expect("a well-formed column");
        assert_eq!(d.strings.len(), 20);
        assert!(names.iter().zip(&d.codes).all(|(n, &c)| d.strings[c as usize] == n));
    }
}
