//! Numeric blobs: a reader handle and an encoder handle.
//!
//! Metrics are addressed by index position: the SDK resolves an id or a name
//! once (`indexOfId` / `indexOfName`) and then calls the per-index accessors.

use js_sys::{BigInt64Array, BigUint64Array, Float64Array, Uint32Array};
use mebo::numeric::{NumericBlob, NumericColumns, NumericMetric, StoredColumns};
use wasm_bindgen::prelude::*;

use crate::js::{self, check, JsObject, JsResult, NumericSeries};
use mebo_series::{self as series, Selection};

#[wasm_bindgen(typescript_custom_section)]
const TS_NUMERIC: &str = r#"
/** What a numeric blob's header says. Also valid as encoder options, to write the same kind of blob. */
export interface NumericBlobOptions {
  timestampEncoding: TimestampEncoding;
  valueEncoding: ValueEncoding;
  timestampCompression: Compression;
  valueCompression: Compression;
  tags: boolean;
  bigEndian: boolean;
  byteOrder: ByteOrder;
  layout: Layout;
  /** v2 index with 32-byte entries (counts or offsets beyond 16 bits). */
  extendedIndex: boolean;
  /** The blob carries metric names (written only after a name-hash collision). */
  metricNames: boolean;
}

/** How a numeric blob's bytes are spent, section by section (from its header's offsets). */
export interface NumericSections {
  /** The blob's length. */
  total: number;
  header: number;
  /** The metric-names payload (0 unless the blob carries names). */
  names: number;
  index: number;
  /** The shared-timestamp table (0 unless the layout is v2-shared). */
  sharedTable: number;
  timestamps: PayloadSize;
  values: PayloadSize;
  tags: PayloadSize;
}

/** Every metric of a blob at once: metric `i` owns points `offsets[i]` to `offsets[i + 1]`. */
export interface NumericColumns {
  ids: BigUint64Array;
  offsets: Uint32Array;
  timestamps: BigInt64Array;
  values: Float64Array;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// See [`NumericBlobHandle::options`].
    #[wasm_bindgen(typescript_type = "NumericBlobOptions")]
    pub type NumericBlobOptions;
    /// See [`NumericBlobHandle::sections`].
    #[wasm_bindgen(typescript_type = "NumericSections")]
    pub type NumericSections;
    /// See [`columns`].
    #[wasm_bindgen(typescript_type = "NumericColumns")]
    pub type NumericColumnsJs;
}

/// An opened numeric blob. It holds its decompressed payloads and, when a
/// payload has no codec, the bytes it was opened from (read in place).
#[wasm_bindgen]
pub struct NumericBlobHandle {
    blob: NumericBlob<'static>,
    /// Every metric decoded once by `decodeAllView`, kept until the handle is
    /// freed: JavaScript reads it through views of the module's memory.
    view: Option<ColumnsView>,
}

/// What `decodeAllView` made: the decoded columns, and the addresses of the
/// columns read in place from the blob's payloads instead (stored as they
/// decode and 8-byte aligned), which are left empty in `columns`.
struct ColumnsView {
    columns: NumericColumns,
    timestamps_at: Option<u32>,
    values_at: Option<u32>,
}

crate::accessors::blob_handle_accessors!(NumericBlobHandle);

impl NumericBlobHandle {
    fn metric(&self, index: usize) -> JsResult<NumericMetric<'_, 'static>> {
        check(self.blob.metric_at(index))
    }
}

#[wasm_bindgen]
impl NumericBlobHandle {
    /// Open the blob the last `stageInput` holds (see `input.rs`); the handle
    /// keeps those bytes. Absent limits keep the core's defaults.
    #[wasm_bindgen(js_name = openStaged)]
    pub fn open_staged(max_decompressed_bytes: Option<usize>, max_points: Option<u64>) -> JsResult<NumericBlobHandle> {
        let limits = js::decode_limits(max_decompressed_bytes, max_points);
        let (bytes, range) = crate::input::take_staged()?;
        Ok(NumericBlobHandle { blob: check(NumericBlob::open_owned_range(bytes, range, &limits))?, view: None })
    }

    /// Where the blob's bytes go (the core's `sections()`): `{ total,
    /// header, names, index, sharedTable, timestamps, values, tags }`, each
    /// payload as `{ bytes, decompressedBytes }`.
    pub fn sections(&self) -> NumericSections {
        let s = self.blob.sections();
        let (ts_size, val_size, tag_size) = self.blob.payload_sizes();
        JsObject::new()
            .set("total", s.tags.end as f64)
            .set("header", s.header.len() as f64)
            .set("names", s.names.len() as f64)
            .set("index", s.index.len() as f64)
            .set("sharedTable", s.shared_timestamps.len() as f64)
            .set("timestamps", js::payload(s.timestamps.len(), ts_size))
            .set("values", js::payload(s.values.len(), val_size))
            .set("tags", js::payload(s.tags.len(), tag_size))
            .typed()
    }

    /// The header's options, with the manifest's field names.
    pub fn options(&self) -> NumericBlobOptions {
        let o = self.blob.options();
        let c = o.config;
        JsObject::new()
            .set("timestampEncoding", c.timestamp_encoding.name())
            .set("valueEncoding", c.value_encoding.name())
            .set("timestampCompression", c.timestamp_compression.name())
            .set("valueCompression", c.value_compression.name())
            .set("tags", o.tags)
            .set("bigEndian", o.byte_order == mebo::ByteOrder::Big)
            .set("byteOrder", js::byte_order_name(o.byte_order))
            .set("layout", o.layout.name())
            .set("extendedIndex", self.blob.extended_index())
            .set("metricNames", self.blob.names().is_some())
            .typed()
    }

    pub fn values(&self, index: usize) -> JsResult<Vec<f64>> {
        check(self.metric(index)?.values())
    }

    /// The metric's points with `from <= t < to`: `{ timestamps, values, tags? }`.
    pub fn range(&self, index: usize, from: i64, to: i64) -> JsResult<NumericSeries> {
        let m = self.metric(index)?;
        let timestamps = check(m.timestamps())?;
        let picked = Selection::of(&timestamps, from, to);
        let tags = check(m.tags())?.map(|t| picked.pick(&t));
        let values = Float64Array::from(picked.pick(&check(m.values())?).as_slice());
        js::series(&picked.pick(&timestamps), values, tags.as_deref())
    }

    /// The metric decimated for a chart (see `mebo_series::decimate`), packed:
    /// `[timestampsMs…, values…, sourcePoints]`. Read in place when
    /// `decodeAllView` has decoded the blob (a chart zooming over a blob it
    /// keeps open decodes nothing again), else decoded into reused buffers.
    pub fn decimate(&self, index: usize, buckets: usize, lttb: bool, from: Option<i64>, to: Option<i64>) -> JsResult<Vec<f64>> {
        let method = js::decimation(lttb);
        // Read in place only when `decodeAllView` decoded both columns (not
        // when it views a payload as stored).
        if let Some(ColumnsView { columns: c, timestamps_at: None, values_at: None }) = &self.view {
            self.metric(index)?; // the index error, as when not decoded
                                 // In bounds by construction (the decoder wrote these offsets); `get` all the same, so a slip is empty, not a trap.
            let points = c.offsets.get(index).zip(c.offsets.get(index + 1)).map_or(0..0, |(&a, &b)| a as usize..b as usize);
            let (ts, vs) = (c.timestamps.get(points.clone()).unwrap_or_default(), c.values.get(points).unwrap_or_default());
            return Ok(js::packed(series::decimate(ts, vs, from, to, buckets, method)));
        }
        let m = self.metric(index)?;
        METRIC_SCRATCH.with_borrow_mut(|(timestamps, values)| {
            // `resize` keeps the capacity and zero-fills only growth: no allocation, no memset per call.
            // Growth is sized by the blob: reserved fallibly.
            for (reserved, what) in [
                (timestamps.try_reserve_exact(m.len().saturating_sub(timestamps.len())), "timestamp column"),
                (values.try_reserve_exact(m.len().saturating_sub(values.len())), "value column"),
            ] {
                check(reserved.map_err(|_| mebo::Error::OutOfMemory { what, bytes: m.len().saturating_mul(8) }))?;
            }
            timestamps.resize(m.len(), 0);
            values.resize(m.len(), 0.0);
            check(m.timestamps_into(timestamps))?;
            check(m.values_into(values))?;
            let out = js::packed(series::decimate(timestamps, values, from, to, buckets, method));
            if values.capacity() > SCRATCH_KEEP_POINTS {
                *timestamps = Vec::new();
                *values = Vec::new();
            }
            Ok(out)
        })
    }

    #[wasm_bindgen(js_name = valueAt)]
    pub fn value_at(&self, index: usize, point: usize) -> JsResult<f64> {
        check(self.metric(index)?.value_at(point))
    }

    /// Every metric at once: `{ ids, offsets, timestamps, values }` as typed
    /// arrays, each copied once out of wasm memory.
    #[wasm_bindgen(js_name = decodeAll)]
    pub fn decode_all(&self) -> JsResult<NumericColumnsJs> {
        self.with_columns(|c, stored| Ok(columns(c, stored)))
    }

    /// Every metric at once into columns the handle owns (decoded on the first
    /// call, kept until `free`), for JavaScript to read as views of the
    /// module's memory without a copy: `[ids, offsets, timestamps, values]`
    /// as byte addresses, then the metric and point counts.
    #[wasm_bindgen(js_name = decodeAllView)]
    pub fn decode_all_view(&mut self) -> JsResult<Vec<u32>> {
        // wasm32 addresses and lengths fit u32.
        let address = |p: *const u8| p as usize as u32;
        let view = match &mut self.view {
            Some(view) => view,
            none => {
                // Into the buffers `decodeAll` or the last freed view left
                // (fresh columns are zero-filled first, 16 bytes a point); a
                // failed decode gives them back as the view drops.
                let mut view = ColumnsView { columns: DECODE_SCRATCH.take(), timestamps_at: None, values_at: None };
                // A typed array views 8-byte aligned memory only: a stored
                // column elsewhere is decoded.
                let stored = check(self.blob.decode_unstored_into(&mut view.columns, |b| (b.as_ptr() as usize).is_multiple_of(8)))?;
                let at = |bytes: Option<&[u8]>| bytes.map(|b| address(b.as_ptr()));
                (view.timestamps_at, view.values_at) = (at(stored.timestamps), at(stored.values));
                none.insert(view)
            }
        };
        let c = &view.columns;
        Ok(vec![
            address(c.ids.as_ptr().cast()),
            address(c.offsets.as_ptr().cast()),
            view.timestamps_at.unwrap_or_else(|| address(c.timestamps.as_ptr().cast())),
            view.values_at.unwrap_or_else(|| address(c.values.as_ptr().cast())),
            c.ids.len() as u32,
            self.blob.total_points() as u32,
        ])
    }

    /// Every metric at once into the caller's arrays, which must have
    /// exactly `totalPoints` (`timestamps`, `values`), `metricCount` (`ids`)
    /// and `metricCount + 1` (`offsets`) elements.
    #[wasm_bindgen(js_name = decodeAllInto)]
    pub fn decode_all_into(
        &self,
        timestamps: &BigInt64Array,
        values: &Float64Array,
        ids: &BigUint64Array,
        offsets: &Uint32Array,
    ) -> JsResult<()> {
        let (n, m) = (self.blob.total_points(), self.blob.len());
        js::check_into_lengths(&[(timestamps.length(), n), (values.length(), n), (ids.length(), m), (offsets.length(), m + 1)])?;
        self.with_columns(|c, stored| {
            match stored.timestamps {
                Some(bytes) => js::write_bytes(timestamps, bytes),
                None => timestamps.copy_from(&c.timestamps),
            }
            match stored.values {
                Some(bytes) => js::write_bytes(values, bytes),
                None => values.copy_from(&c.values),
            }
            ids.copy_from(&c.ids);
            offsets.copy_from(&c.offsets);
            Ok(())
        })
    }
}

impl NumericBlobHandle {
    /// Decode every metric into the module's reused columns and hand them to
    /// `f`, with the columns the blob stores as they decode left undecoded
    /// and handed over as their bytes (one copy of each point saved).
    fn with_columns<T>(&self, f: impl FnOnce(&NumericColumns, StoredColumns<'_>) -> JsResult<T>) -> JsResult<T> {
        DECODE_SCRATCH.with_borrow_mut(|scratch| {
            let out = check(self.blob.decode_unstored_into(scratch, |_| true)).and_then(|stored| f(scratch, stored));
            // Keep ordinary sizes for the next call (wasm memory never shrinks,
            // so this holds nothing the module would give back); let an
            // outsized decode's buffers return to the allocator, a failed
            // one's too (the memory budget counts them).
            if scratch.values.capacity().max(scratch.timestamps.capacity()) > SCRATCH_KEEP_POINTS {
                *scratch = NumericColumns::default();
            }
            out
        })
    }
}

/// A freed view's columns back to `decodeAll`'s scratch, for the next
/// decode or view: kept when larger than the scratch's and of ordinary size.
#[inline(never)]
fn keep_for_reuse(mut columns: NumericColumns) {
    let points = |c: &NumericColumns| c.values.capacity().max(c.timestamps.capacity());
    let _ = DECODE_SCRATCH.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            if points(&columns) > points(&s) && points(&columns) <= SCRATCH_KEEP_POINTS {
                std::mem::swap(&mut *s, &mut columns);
            }
        }
    });
}

impl Drop for ColumnsView {
    fn drop(&mut self) {
        keep_for_reuse(std::mem::take(&mut self.columns));
    }
}

/// Points whose decode buffers are kept between calls (4 MiB), for
/// `decodeAll` and for the next view: what is kept counts against the
/// module's memory budget, so a decode far past the usual blob's size gives
/// its buffers back.
const SCRATCH_KEEP_POINTS: usize = 1 << 18;

thread_local! {
    /// Columns `decodeAll` decodes into before copying them out to JS, and the
    /// next view's: reused, so a call neither allocates nor zero-fills 16
    /// bytes a point in wasm.
    static DECODE_SCRATCH: std::cell::RefCell<NumericColumns> = const {
        std::cell::RefCell::new(NumericColumns { ids: Vec::new(), offsets: Vec::new(), timestamps: Vec::new(), values: Vec::new() })
    };
    /// One metric's columns for `decimate`, reused the same way.
    static METRIC_SCRATCH: std::cell::RefCell<(Vec<i64>, Vec<f64>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Columns as `{ ids, offsets, timestamps, values }` typed arrays, a stored
/// column (see `with_columns`) copied from its bytes.
pub(crate) fn columns(c: &NumericColumns, stored: StoredColumns<'_>) -> NumericColumnsJs {
    // Stored bytes are 8 a point, and lie in wasm memory: the count fits u32.
    let timestamps = match stored.timestamps {
        Some(bytes) => {
            let array = BigInt64Array::new_with_length((bytes.len() / 8) as u32);
            js::write_bytes(&array, bytes);
            array
        }
        None => BigInt64Array::from(c.timestamps.as_slice()),
    };
    let values = match stored.values {
        Some(bytes) => {
            let array = Float64Array::new_with_length((bytes.len() / 8) as u32);
            js::write_bytes(&array, bytes);
            array
        }
        None => Float64Array::from(c.values.as_slice()),
    };
    JsObject::new()
        .set("ids", BigUint64Array::from(c.ids.as_slice()))
        .set("offsets", Uint32Array::from(c.offsets.as_slice()))
        .set("timestamps", timestamps)
        .set("values", values)
        .typed()
}

#[cfg(feature = "encode")]
pub use encode::NumericEncoderHandle;

#[cfg(feature = "encode")]
mod encode {
    use mebo::numeric::{AutoEncoder, NumericEncoder, NumericEncoderOptions, Prefer};
    use mebo::ColumnConfig;
    use wasm_bindgen::prelude::*;

    use std::borrow::Cow;

    use crate::batch::{self, Batch, Key, MetricSink};
    use crate::joined::{Coded, CodedStrings, Joined};
    use crate::js::{self, check, parse_or, Fields, JoinedStrings, JsResult};

    #[wasm_bindgen(typescript_custom_section)]
    const TS_NUMERIC_ENCODE: &str = r#"
/** How to write a numeric blob. Absent fields keep the defaults (delta, gorilla, no codecs, no tags, little endian, v1). */
export interface NumericEncodeOptions {
  /**
   * The four column choices at once, e.g. `delta-none-gorilla-zstd`; the fields below override it.
   * `auto` picks them for the data at `finish`: the smallest configuration within `prefer`'s decode bound.
   */
  config?: string;
  /** With `config: 'auto'`: `balanced` (default: no slower to decode than the default configuration, never larger), `size`, or `speed` (at most half its decode cost). */
  prefer?: 'size' | 'speed' | 'balanced';
  timestampEncoding?: TimestampEncoding;
  valueEncoding?: ValueEncoding;
  timestampCompression?: Compression;
  valueCompression?: Compression;
  tags?: boolean;
  bigEndian?: boolean;
  layout?: Layout;
}
"#;

    #[wasm_bindgen]
    extern "C" {
        /// See [`NumericEncoderHandle::new`].
        #[wasm_bindgen(typescript_type = "NumericEncodeOptions")]
        pub type NumericEncodeOptions;
    }

    /// Builds one numeric blob. `finish` leaves it as it was: more metrics
    /// may be added and the blob finished again.
    #[wasm_bindgen]
    pub struct NumericEncoderHandle {
        encoder: Encoder,
        /// The columns `stageColumns` made room for, until `addMetrics` reads them.
        staged: (Vec<i64>, Vec<f64>),
    }

    /// A fixed configuration, or `auto`'s choice at `finish`.
    enum Encoder {
        Fixed(NumericEncoder),
        Auto(AutoEncoder),
    }

    /// The same call on either encoder.
    macro_rules! each {
        ($self:ident, $e:ident => $call:expr) => {
            match &mut $self.encoder {
                Encoder::Fixed($e) => $call,
                Encoder::Auto($e) => $call,
            }
        };
    }

    impl MetricSink<f64> for Encoder {
        fn start(&mut self, key: Key<'_>, points: usize) -> mebo::Result<()> {
            match (self, key) {
                (Encoder::Fixed(e), Key::Name(name)) => e.start_metric_name(name, points),
                (Encoder::Fixed(e), Key::Id(id)) => e.start_metric_id(id, points),
                (Encoder::Auto(e), Key::Name(name)) => e.start_metric_name(name, points),
                (Encoder::Auto(e), Key::Id(id)) => e.start_metric_id(id, points),
            }
        }

        fn add_points(&mut self, timestamps: &[i64], values: &[f64], tags: Option<&[Cow<'_, str>]>) -> mebo::Result<()> {
            match self {
                Encoder::Fixed(e) => e.add_points(timestamps, values, tags),
                Encoder::Auto(e) => e.add_points(timestamps, values, tags),
            }
        }

        fn end(&mut self) -> mebo::Result<()> {
            match self {
                Encoder::Fixed(e) => e.end_metric(),
                Encoder::Auto(e) => e.end_metric(),
            }
        }

        fn cancel(&mut self) {
            match self {
                Encoder::Fixed(e) => e.cancel_metric(),
                Encoder::Auto(e) => e.cancel_metric(),
            }
        }
    }

    #[wasm_bindgen]
    impl NumericEncoderHandle {
        /// `options.config` (e.g. `delta-none-gorilla-zstd`) sets the four
        /// column choices; the named fields override it; absent ones keep the
        /// core's defaults. Every field's type is checked before any is parsed.
        #[wasm_bindgen(constructor)]
        pub fn new(start_time: i64, options: Option<NumericEncodeOptions>) -> JsResult<NumericEncoderHandle> {
            let f = Fields::of(options);
            let config = f.string("config")?;
            let timestamp_encoding = f.string("timestampEncoding")?;
            let value_encoding = f.string("valueEncoding")?;
            let timestamp_compression = f.string("timestampCompression")?;
            let value_compression = f.string("valueCompression")?;
            let tags = f.boolean("tags")?;
            let big_endian = f.boolean("bigEndian")?;
            let layout = f.string("layout")?;
            let prefer = f.string("prefer")?;
            let auto = config.as_deref().is_some_and(|c| c.eq_ignore_ascii_case("auto"));
            let invalid = |detail: &str| check::<()>(Err(mebo::Error::InvalidOptions { detail: detail.into() }));
            if auto && [&timestamp_encoding, &value_encoding, &timestamp_compression, &value_compression].iter().any(|f| f.is_some()) {
                invalid("config 'auto' chooses the column encodings and codecs: give none of timestampEncoding, valueEncoding, timestampCompression, valueCompression")?;
            }
            if !auto && prefer.is_some() {
                invalid("prefer applies only to config 'auto'")?;
            }
            let prefer = match prefer {
                Some(p) => check(p.parse::<Prefer>())?,
                None => Prefer::default(),
            };
            let mut o = NumericEncoderOptions::default();
            if let Some(config) = config.filter(|_| !auto) {
                o.config = check(config.parse::<ColumnConfig>())?;
            }
            let c = &mut o.config;
            c.timestamp_encoding = parse_or(timestamp_encoding, c.timestamp_encoding)?;
            c.value_encoding = parse_or(value_encoding, c.value_encoding)?;
            c.timestamp_compression = parse_or(timestamp_compression, c.timestamp_compression)?;
            c.value_compression = parse_or(value_compression, c.value_compression)?;
            o.layout = parse_or(layout, o.layout)?;
            o.tags = tags.unwrap_or(o.tags);
            o.byte_order = big_endian.map_or(o.byte_order, js::byte_order);
            let encoder = if auto {
                Encoder::Auto(AutoEncoder::new(start_time, o, prefer))
            } else {
                Encoder::Fixed(NumericEncoder::new(start_time, o))
            };
            Ok(NumericEncoderHandle { encoder, staged: Default::default() })
        }

        #[wasm_bindgen(js_name = startMetricName)]
        pub fn start_metric_name(&mut self, name: &str, count: usize) -> JsResult<()> {
            each!(self, e => check(e.start_metric_name(name, count)))
        }

        #[wasm_bindgen(js_name = startMetricId)]
        pub fn start_metric_id(&mut self, id: u64, count: usize) -> JsResult<()> {
            each!(self, e => check(e.start_metric_id(id, count)))
        }

        #[wasm_bindgen(js_name = addPoint)]
        pub fn add_point(&mut self, timestamp: i64, value: f64, tag: Option<String>) -> JsResult<()> {
            each!(self, e => check(e.add_point(timestamp, value, tag.as_deref())))
        }

        /// Many points: `tags` joined as decode returns them (see `joined.rs`).
        #[wasm_bindgen(js_name = addPoints)]
        pub fn add_points(&mut self, timestamps: &[i64], values: &[f64], tags: Option<JoinedStrings>) -> JsResult<()> {
            let tags = tags.map(|t| Joined::read(&t, "tags")).transpose()?;
            let tags = tags.as_ref().map(Joined::split).transpose()?;
            each!(self, e => check(e.add_points(timestamps, values, tags.as_deref())))
        }

        #[wasm_bindgen(js_name = endMetric)]
        pub fn end_metric(&mut self) -> JsResult<()> {
            each!(self, e => check(e.end_metric()))
        }

        /// Room for every metric's timestamps (`points`) and values, which
        /// JavaScript copies there for `addMetrics`: their addresses in the
        /// module's memory.
        #[wasm_bindgen(js_name = stageColumns)]
        pub fn stage_columns(&mut self, points: usize, values: usize) -> JsResult<Vec<u32>> {
            self.staged = Default::default();
            self.staged = (check(batch::room(points, "timestamps"))?, check(batch::room(values, "values"))?);
            Ok(vec![self.staged.0.as_ptr() as u32, self.staged.1.as_ptr() as u32])
        }

        /// Every metric of `encodeNumeric` in one call, laid out back to back
        /// (see `batch.rs`), their columns in the room `stageColumns` made;
        /// names joined, tags coded (see `joined.rs`).
        #[wasm_bindgen(js_name = addMetrics)]
        pub fn add_metrics(&mut self, shapes: &[u32], names: &JoinedStrings, ids: &[u64], tags: Option<CodedStrings>) -> JsResult<()> {
            let (timestamps, values) = std::mem::take(&mut self.staged);
            let (timestamps, values) = (&timestamps[..], &values[..]);
            let names = Joined::read(names, "names")?;
            let names = names.split()?;
            let tags = tags.map(|t| Coded::read(&t, "tags")).transpose()?;
            let distinct_tags = tags.as_ref().map(Coded::distinct).transpose()?;
            let tags = match (&tags, &distinct_tags) {
                (Some(t), Some(d)) => Some(t.expand(d)?),
                _ => None,
            };
            Batch { shapes, names: &names, ids, timestamps, values, tags: tags.as_deref() }.add_to(&mut self.encoder)
        }

        /// Drop the open metric and its points.
        #[wasm_bindgen(js_name = cancelMetric)]
        pub fn cancel_metric(&mut self) {
            each!(self, e => e.cancel_metric())
        }

        #[wasm_bindgen(js_name = metricCount)]
        pub fn metric_count(&self) -> JsResult<usize> {
            Ok(match &self.encoder {
                Encoder::Fixed(e) => e.metric_count(),
                Encoder::Auto(e) => e.metric_count(),
            })
        }

        /// The finished blob.
        pub fn finish(&self) -> JsResult<Vec<u8>> {
            match &self.encoder {
                Encoder::Fixed(e) => check(e.finish()),
                Encoder::Auto(e) => check(e.finish()),
            }
        }

        /// With `config: 'auto'`: the blob each `prefer` gives, from one
        /// sampling pass (what `mebo inspect` reports), as
        /// `[{ prefer, bytes }]` in `size`, `balanced`, `speed` order.
        #[wasm_bindgen(js_name = finishEachPrefer)]
        pub fn finish_each_prefer(&self) -> JsResult<js_sys::Array> {
            let Encoder::Auto(e) = &self.encoder else {
                return check(Err(mebo::Error::InvalidOptions { detail: "finishEachPrefer needs config 'auto'".into() }));
            };
            let out = js_sys::Array::new();
            for (prefer, blob, _) in check(e.finish_each())? {
                out.push(
                    &js::JsObject::new()
                        .set("prefer", prefer.name())
                        .set("bytes", js_sys::Uint8Array::from(blob.as_slice()))
                        .typed::<JsValue>(),
                );
            }
            Ok(out)
        }
    }
}
