//! Blob sets: consecutive windows of the same metrics, opened together and
//! read as one series per metric (the core's `blob_set`).
//!
//! The blobs cross as one buffer and their lengths, so one call opens the set.

use js_sys::{BigInt64Array, BigUint64Array, Float64Array};
use mebo::blob_set::{NumericBlobSet, TextBlobSet, Windows};
use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{DecodeLimits, Error};
use wasm_bindgen::prelude::*;

use crate::js::{self, check, JsResult, NumericSeries, TextSeries};
use mebo_series as series;

/// Split `bytes` into blobs of `lengths` and open each one.
fn open_each<B>(
    bytes: &[u8],
    lengths: &[u32],
    limits: &DecodeLimits,
    open: impl Fn(&[u8], &DecodeLimits) -> mebo::Result<B>,
) -> JsResult<Vec<B>> {
    let mut rest = bytes;
    let blobs = lengths
        .iter()
        .map(|&len| {
            let (blob, tail) = rest
                .split_at_checked(len as usize)
                .ok_or_else(|| js::error(Error::BlobSet { detail: format!("blob lengths add up past the {} bytes given", bytes.len()) }))?;
            rest = tail;
            check(open(blob, limits))
        })
        .collect::<JsResult<Vec<B>>>()?;
    if !rest.is_empty() {
        return Err(js::error(Error::BlobSet { detail: format!("{} bytes after the last blob", rest.len()) }));
    }
    Ok(blobs)
}

/// The accessors both set handles share.
macro_rules! set_handle {
    ($handle:ident, $blob:ident) => {
        #[wasm_bindgen]
        impl $handle {
            /// Open the blobs the last `stageInput` holds back to back,
            /// `lengths[i]` bytes each (see `input.rs`).
            #[wasm_bindgen(js_name = openStaged)]
            pub fn open_staged(lengths: &[u32], max_decompressed_bytes: Option<usize>, max_points: Option<u64>) -> JsResult<$handle> {
                let limits = js::decode_limits(max_decompressed_bytes, max_points);
                let (staged, range) = crate::input::take_staged()?;
                let blobs = open_each(&staged[range], lengths, &limits, |b, l| $blob::open_with_limits(b, l).map($blob::into_owned))?;
                Ok($handle { set: check(Windows::new(blobs))? })
            }

            /// Number of blobs.
            #[wasm_bindgen(js_name = blobCount)]
            pub fn blob_count(&self) -> usize {
                self.set.blobs().len()
            }

            /// Start times of the first and the last blob.
            #[wasm_bindgen(js_name = timeRange)]
            pub fn time_range(&self) -> BigInt64Array {
                let (first, last) = self.set.time_range();
                BigInt64Array::from([first, last].as_slice())
            }

            /// Every metric id in the set, ascending.
            #[wasm_bindgen(js_name = metricIds)]
            pub fn metric_ids(&self) -> BigUint64Array {
                BigUint64Array::from(self.set.metric_ids().as_slice())
            }

            /// Points of a metric over all blobs (0 when absent).
            #[wasm_bindgen(js_name = metricLength)]
            pub fn metric_length(&self, id: u64) -> usize {
                self.set.metric_len(id)
            }

            /// Last minus first timestamp of a metric over the set.
            #[wasm_bindgen(js_name = metricDuration)]
            pub fn metric_duration(&self, id: u64) -> JsResult<i64> {
                check(self.set.metric_duration(id))
            }
        }
    };
}

/// Numeric blobs of consecutive windows.
#[wasm_bindgen]
pub struct NumericBlobSetHandle {
    set: NumericBlobSet<'static>,
}

set_handle!(NumericBlobSetHandle, NumericBlob);

#[wasm_bindgen]
impl NumericBlobSetHandle {
    /// One metric over every blob: `{ timestamps, values, tags? }`.
    #[wasm_bindgen(js_name = materializeMetric)]
    pub fn materialize_metric(&self, id: u64) -> JsResult<NumericSeries> {
        let m = check(self.set.materialize_metric(id))?;
        js::series(&m.timestamps, Float64Array::from(m.values.as_slice()), m.tags.as_deref())
    }

    /// One metric's points with `from <= t < to` over every blob: `{ timestamps, values, tags? }`.
    pub fn range(&self, id: u64, from: i64, to: i64) -> JsResult<NumericSeries> {
        let m = check(self.set.range_metric(id, from, to))?;
        js::series(&m.timestamps, Float64Array::from(m.values.as_slice()), m.tags.as_deref())
    }

    /// One metric over every blob, decimated (see `mebo_series::decimate`), packed: `[timestampsMs…, values…, sourcePoints]`.
    pub fn decimate(&self, id: u64, buckets: usize, lttb: bool, from: Option<i64>, to: Option<i64>) -> JsResult<Vec<f64>> {
        let m = check(self.set.materialize_metric(id))?;
        Ok(js::packed(series::decimate(&m.timestamps, &m.values, from, to, buckets, js::decimation(lttb))))
    }

    /// Every metric over every blob, as `decodeAll` columns (ids ascending).
    pub fn materialize(&self) -> JsResult<crate::numeric::NumericColumnsJs> {
        Ok(crate::numeric::columns(&check(self.set.materialize())?, Default::default()))
    }
}

/// Text blobs of consecutive windows.
#[wasm_bindgen]
pub struct TextBlobSetHandle {
    set: TextBlobSet<'static>,
}

set_handle!(TextBlobSetHandle, TextBlob);

#[wasm_bindgen]
impl TextBlobSetHandle {
    /// One metric over every blob: `{ timestamps, values, tags? }`, strings joined.
    #[wasm_bindgen(js_name = materializeMetric)]
    pub fn materialize_metric(&self, id: u64) -> JsResult<TextSeries> {
        let m = check(self.set.materialize_metric(id))?;
        js::series(&m.timestamps, js::strings(m.values.iter().map(String::as_str))?, m.tags.as_deref())
    }

    /// One metric's points with `from <= t < to` over every blob: `{ timestamps, values, tags? }`, strings joined.
    pub fn range(&self, id: u64, from: i64, to: i64) -> JsResult<TextSeries> {
        let m = check(self.set.range_metric(id, from, to))?;
        js::series(&m.timestamps, js::strings(m.values.iter().map(String::as_str))?, m.tags.as_deref())
    }

    /// Every metric over every blob, as `decodeAll` columns (ids ascending).
    pub fn materialize(&self) -> JsResult<crate::text::RawTextColumns> {
        crate::text::string_columns(&check(self.set.materialize())?)
    }
}
