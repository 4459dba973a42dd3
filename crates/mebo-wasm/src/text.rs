//! Text blobs: a reader handle and an encoder handle, shaped as the numeric ones.

use js_sys::{BigInt64Array, BigUint64Array, Uint32Array};
use mebo::text::{Dictionary, DictionaryColumns, TextBlob, TextColumns, TextMetric};
use wasm_bindgen::prelude::*;

use crate::js::{self, check, JoinedStrings, JsObject, JsResult, TextSeries};
use mebo_series::Selection;

#[wasm_bindgen(typescript_custom_section)]
const TS_TEXT: &str = r#"
/** Text blobs store raw or delta timestamps. */
export type TextTimestampEncoding = 'raw' | 'delta';

/** What a text blob's header says. Also valid as encoder options, to write the same kind of blob. */
export interface TextBlobOptions {
  timestampEncoding: TextTimestampEncoding;
  dataCompression: Compression;
  tags: boolean;
  bigEndian: boolean;
  byteOrder: ByteOrder;
  /** The blob carries metric names (it was written by name). */
  metricNames: boolean;
}

/** How a text blob's bytes are spent, section by section (from its header's offsets). */
export interface TextSections {
  /** The blob's length. */
  total: number;
  header: number;
  /** The metric-names payload (0 unless the blob carries names). */
  names: number;
  index: number;
  data: PayloadSize;
}

/** Every metric of a text blob at once, values (and tags) as dictionaries of joined strings: per point, `codes[i]` indexes `dictionary`. */
export interface RawTextColumns {
  ids: BigUint64Array;
  offsets: Uint32Array;
  timestamps: BigInt64Array;
  dictionary: JoinedStrings;
  codes: Uint32Array;
  tagDictionary?: JoinedStrings;
  tagCodes?: Uint32Array;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// See [`TextBlobHandle::options`].
    #[wasm_bindgen(typescript_type = "TextBlobOptions")]
    pub type TextBlobOptions;
    /// See [`TextBlobHandle::sections`].
    #[wasm_bindgen(typescript_type = "TextSections")]
    pub type TextSections;
    /// See [`columns`].
    #[wasm_bindgen(typescript_type = "RawTextColumns")]
    pub type RawTextColumns;
    /// See [`TextBlobHandle::decode_all_into`].
    #[wasm_bindgen(typescript_type = "Pick<RawTextColumns, 'dictionary' | 'tagDictionary'>")]
    pub type TextDictionaries;
}

/// An opened text blob. It holds its decompressed data payload or, when the
/// payload has no codec, the bytes it was opened from (read in place).
#[wasm_bindgen]
pub struct TextBlobHandle {
    blob: TextBlob<'static>,
}

crate::accessors::blob_handle_accessors!(TextBlobHandle);

impl TextBlobHandle {
    fn metric(&self, index: usize) -> JsResult<TextMetric<'_>> {
        check(self.blob.metric_at(index))
    }
}

#[wasm_bindgen]
impl TextBlobHandle {
    /// Open the blob the last `stageInput` holds (see `input.rs`); the handle
    /// keeps those bytes. Absent limits keep the core's defaults.
    #[wasm_bindgen(js_name = openStaged)]
    pub fn open_staged(max_decompressed_bytes: Option<usize>, max_points: Option<u64>) -> JsResult<TextBlobHandle> {
        let limits = js::decode_limits(max_decompressed_bytes, max_points);
        let (bytes, range) = crate::input::take_staged()?;
        Ok(TextBlobHandle { blob: check(TextBlob::open_owned_range(bytes, range, &limits))? })
    }

    /// Where the blob's bytes go (the core's `sections()`): `{ total,
    /// header, names, index, data }`, the data payload as `{ bytes,
    /// decompressedBytes }`.
    pub fn sections(&self) -> TextSections {
        let s = self.blob.sections();
        JsObject::new()
            .set("total", s.data.end as f64)
            .set("header", s.header.len() as f64)
            .set("names", s.names.len() as f64)
            .set("index", s.index.len() as f64)
            .set("data", js::payload(s.data.len(), self.blob.data_size()))
            .typed()
    }

    /// The header's options, with the manifest's field names.
    pub fn options(&self) -> TextBlobOptions {
        let o = self.blob.options();
        JsObject::new()
            .set("timestampEncoding", o.timestamp_encoding.name())
            .set("dataCompression", o.data_compression.name())
            .set("tags", o.tags)
            .set("bigEndian", o.byte_order == mebo::ByteOrder::Big)
            .set("byteOrder", js::byte_order_name(o.byte_order))
            .set("metricNames", o.metric_names)
            .typed()
    }

    /// The metric's values as joined strings.
    pub fn values(&self, index: usize) -> JsResult<JoinedStrings> {
        js::strings(check(self.metric(index)?.values())?)
    }

    /// The metric's points with `from <= t < to`: `{ timestamps, values, tags? }`, strings joined.
    pub fn range(&self, index: usize, from: i64, to: i64) -> JsResult<TextSeries> {
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

    /// Every metric at once: `{ ids, offsets, timestamps, dictionary, codes,
    /// tagDictionary?, tagCodes? }` (see [`columns`]).
    #[wasm_bindgen(js_name = decodeAll)]
    pub fn decode_all(&self) -> JsResult<RawTextColumns> {
        columns(&check(self.blob.decode_dictionary())?)
    }

    /// [`decode_all`](Self::decode_all) into the caller's arrays, which
    /// must have exactly `totalPoints` (`timestamps`, `codes` and, when the
    /// blob has tags, `tag_codes`), `metricCount` (`ids`) and `metricCount +
    /// 1` (`offsets`) elements. Returns `{ dictionary, tagDictionary? }`.
    #[wasm_bindgen(js_name = decodeAllInto)]
    pub fn decode_all_into(
        &self,
        timestamps: &BigInt64Array,
        codes: &Uint32Array,
        tag_codes: Option<Uint32Array>,
        ids: &BigUint64Array,
        offsets: &Uint32Array,
    ) -> JsResult<TextDictionaries> {
        let c = check(self.blob.decode_dictionary())?;
        let (n, m) = (c.timestamps.len(), c.ids.len());
        // A tagged blob's codes need `tag_codes`: a missing one counts as empty.
        let tags_length = c.tags.as_ref().map(|_| (tag_codes.as_ref().map_or(0, Uint32Array::length), n));
        let lengths = [(timestamps.length(), n), (codes.length(), n), (ids.length(), m), (offsets.length(), m + 1)];
        js::check_into_lengths(&lengths)?;
        js::check_into_lengths(tags_length.as_slice())?;
        timestamps.copy_from(&c.timestamps);
        codes.copy_from(&c.values.codes);
        ids.copy_from(&c.ids);
        offsets.copy_from(&c.offsets);
        let mut out = JsObject::new().set("dictionary", js::strings(c.values.strings.iter().copied())?);
        if let Some(tags) = &c.tags {
            if let Some(array) = &tag_codes {
                array.copy_from(&tags.codes);
            }
            out = out.set("tagDictionary", js::strings(tags.strings.iter().copied())?);
        }
        Ok(out.typed())
    }
}

/// Columns as `{ ids, offsets, timestamps, dictionary, codes, tagDictionary?,
/// tagCodes? }`: values and tags as dictionaries (strings joined).
pub(crate) fn columns(c: &DictionaryColumns) -> JsResult<RawTextColumns> {
    columns_of(&c.ids, &c.offsets, &c.timestamps, &c.values, c.tags.as_ref())
}

/// [`columns`] of a set's materialized columns (their ids, offsets and
/// timestamps copied out once, not cloned first).
pub(crate) fn string_columns(c: &TextColumns) -> JsResult<RawTextColumns> {
    let tags = c.tags.as_ref().map(Dictionary::of).transpose();
    columns_of(&c.ids, &c.offsets, &c.timestamps, &check(Dictionary::of(&c.values))?, check(tags)?.as_ref())
}

fn columns_of(
    ids: &[u64],
    offsets: &[u32],
    timestamps: &[i64],
    values: &Dictionary,
    tags: Option<&Dictionary>,
) -> JsResult<RawTextColumns> {
    let mut out = JsObject::new()
        .set("ids", BigUint64Array::from(ids))
        .set("offsets", Uint32Array::from(offsets))
        .set("timestamps", BigInt64Array::from(timestamps))
        .set("dictionary", js::strings(values.strings.iter().copied())?)
        .set("codes", Uint32Array::from(values.codes.as_slice()));
    if let Some(tags) = tags {
        out =
            out.set("tagDictionary", js::strings(tags.strings.iter().copied())?).set("tagCodes", Uint32Array::from(tags.codes.as_slice()));
    }
    Ok(out.typed())
}

#[cfg(feature = "encode")]
pub use encode::TextEncoderHandle;

#[cfg(feature = "encode")]
mod encode {
    use mebo::text::{TextEncoder, TextEncoderOptions};
    use wasm_bindgen::prelude::*;

    use std::borrow::Cow;

    use crate::batch::{self, Batch, Key, MetricSink};
    use crate::joined::{Coded, CodedStrings, Joined};
    use crate::js::{self, check, parse_or, Fields, JoinedStrings, JsResult};

    #[wasm_bindgen(typescript_custom_section)]
    const TS_TEXT_ENCODE: &str = r#"
/** How to write a text blob. Absent fields keep the defaults (delta timestamps, zstd, no tags, little endian). */
export interface TextEncodeOptions {
  timestampEncoding?: TextTimestampEncoding;
  dataCompression?: Compression;
  tags?: boolean;
  bigEndian?: boolean;
}
"#;

    #[wasm_bindgen]
    extern "C" {
        /// See [`TextEncoderHandle::new`].
        #[wasm_bindgen(typescript_type = "TextEncodeOptions")]
        pub type TextEncodeOptions;
    }

    /// Builds one text blob. The core's text encoder is not consumed by
    /// `finish`: more metrics may be added and the blob finished again.
    #[wasm_bindgen]
    pub struct TextEncoderHandle {
        encoder: TextEncoder,
        /// The timestamps `stageTimestamps` made room for, until `addMetrics` reads them.
        staged: Vec<i64>,
    }

    impl<'v> MetricSink<Cow<'v, str>> for TextEncoder {
        fn start(&mut self, key: Key<'_>, points: usize) -> mebo::Result<()> {
            match key {
                Key::Name(name) => self.start_metric_name(name, points),
                Key::Id(id) => self.start_metric_id(id, points),
            }
        }

        fn add_points(&mut self, timestamps: &[i64], values: &[Cow<'v, str>], tags: Option<&[Cow<'_, str>]>) -> mebo::Result<()> {
            TextEncoder::add_points(self, timestamps, values, tags)
        }

        fn end(&mut self) -> mebo::Result<()> {
            self.end_metric()
        }

        fn cancel(&mut self) {
            self.cancel_metric()
        }
    }

    #[wasm_bindgen]
    impl TextEncoderHandle {
        /// Absent options keep the core's defaults. Every field's type is
        /// checked before any is parsed.
        #[wasm_bindgen(constructor)]
        pub fn new(start_time: i64, options: Option<TextEncodeOptions>) -> JsResult<TextEncoderHandle> {
            let f = Fields::of(options);
            let timestamp_encoding = f.string("timestampEncoding")?;
            let data_compression = f.string("dataCompression")?;
            let tags = f.boolean("tags")?;
            let big_endian = f.boolean("bigEndian")?;
            let d = TextEncoderOptions::default();
            let options = TextEncoderOptions {
                timestamp_encoding: parse_or(timestamp_encoding, d.timestamp_encoding)?,
                data_compression: parse_or(data_compression, d.data_compression)?,
                tags: tags.unwrap_or(d.tags),
                byte_order: big_endian.map_or(d.byte_order, js::byte_order),
            };
            Ok(TextEncoderHandle { encoder: check(TextEncoder::new(start_time, options))?, staged: Vec::new() })
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

        /// Many points: `values` and `tags` joined as decode returns them
        /// (see `joined.rs`).
        #[wasm_bindgen(js_name = addPoints)]
        pub fn add_points(&mut self, timestamps: &[i64], values: &JoinedStrings, tags: Option<JoinedStrings>) -> JsResult<()> {
            let tags = tags.map(|t| Joined::read(&t, "tags")).transpose()?;
            let tags = tags.as_ref().map(Joined::split).transpose()?;
            check(self.encoder.add_points(timestamps, &Joined::read(values, "values")?.split()?, tags.as_deref()))
        }

        #[wasm_bindgen(js_name = endMetric)]
        pub fn end_metric(&mut self) -> JsResult<()> {
            check(self.encoder.end_metric())
        }

        /// Room for every metric's timestamps (`points`), which JavaScript
        /// copies there for `addMetrics`: their address in the module's memory.
        #[wasm_bindgen(js_name = stageTimestamps)]
        pub fn stage_timestamps(&mut self, points: usize) -> JsResult<u32> {
            self.staged = Vec::new();
            self.staged = check(batch::room(points, "timestamps"))?;
            Ok(self.staged.as_ptr() as u32)
        }

        /// Every metric of `encodeText` in one call, laid out back to back
        /// (see `batch.rs`), their timestamps in the room `stageTimestamps`
        /// made; names joined, values and tags coded (see `joined.rs`).
        #[wasm_bindgen(js_name = addMetrics)]
        pub fn add_metrics(
            &mut self,
            shapes: &[u32],
            names: &JoinedStrings,
            ids: &[u64],
            values: &CodedStrings,
            tags: Option<CodedStrings>,
        ) -> JsResult<()> {
            let timestamps = std::mem::take(&mut self.staged);
            let timestamps = &timestamps[..];
            let names = Joined::read(names, "names")?;
            let names = names.split()?;
            let values = Coded::read(values, "values")?;
            let distinct_values = values.distinct()?;
            let values = values.expand(&distinct_values)?;
            let tags = tags.map(|t| Coded::read(&t, "tags")).transpose()?;
            let distinct_tags = tags.as_ref().map(Coded::distinct).transpose()?;
            let tags = match (&tags, &distinct_tags) {
                (Some(t), Some(d)) => Some(t.expand(d)?),
                _ => None,
            };
            Batch { shapes, names: &names, ids, timestamps, values: &values, tags: tags.as_deref() }.add_to(&mut self.encoder)
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
