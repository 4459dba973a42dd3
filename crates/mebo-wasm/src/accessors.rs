//! What both blob handles answer the same way (header facts, metric lookup,
//! timestamps, tags): one macro, since wasm-bindgen exports inherent methods only.
//! Each handle has a `blob` field (the core blob) and a `metric(index)` method;
//! paths are absolute so the expansion needs no imports.

/// Add the shared accessors to a blob handle as a second `#[wasm_bindgen] impl`.
macro_rules! blob_handle_accessors {
    ($handle:ty) => {
        #[wasm_bindgen::prelude::wasm_bindgen]
        impl $handle {
            #[wasm_bindgen(js_name = startTime)]
            pub fn start_time(&self) -> i64 {
                self.blob.start_time()
            }

            #[wasm_bindgen(js_name = metricCount)]
            pub fn metric_count(&self) -> usize {
                self.blob.len()
            }

            #[wasm_bindgen(js_name = totalPoints)]
            pub fn total_points(&self) -> usize {
                self.blob.total_points()
            }

            /// Metric ids in index order.
            #[wasm_bindgen(js_name = metricIds)]
            pub fn metric_ids(&self) -> Vec<u64> {
                self.blob.metric_ids().to_vec()
            }

            /// Metric names in index order as joined strings, or `undefined`.
            pub fn names(&self) -> $crate::js::JsResult<Option<$crate::js::JoinedStrings>> {
                self.blob.names().map(|names| $crate::js::strings(names.iter().map(|n| n.as_ref()))).transpose()
            }

            #[wasm_bindgen(js_name = indexOfId)]
            pub fn index_of_id(&self, id: u64) -> $crate::js::JsResult<usize> {
                Ok($crate::js::check(self.blob.metric(id))?.index())
            }

            #[wasm_bindgen(js_name = indexOfName)]
            pub fn index_of_name(&self, name: &str) -> $crate::js::JsResult<usize> {
                Ok($crate::js::check(self.blob.metric_by_name(name))?.index())
            }

            pub fn id(&self, index: usize) -> $crate::js::JsResult<u64> {
                Ok(self.metric(index)?.id())
            }

            pub fn name(&self, index: usize) -> $crate::js::JsResult<Option<String>> {
                Ok(self.metric(index)?.name().map(str::to_string))
            }

            #[wasm_bindgen(js_name = pointCount)]
            pub fn point_count(&self, index: usize) -> $crate::js::JsResult<usize> {
                Ok(self.metric(index)?.len())
            }

            pub fn timestamps(&self, index: usize) -> $crate::js::JsResult<Vec<i64>> {
                $crate::js::check(self.metric(index)?.timestamps())
            }

            /// Timestamps as epoch milliseconds (for charting libraries).
            #[wasm_bindgen(js_name = timestampsMs)]
            pub fn timestamps_ms(&self, index: usize) -> $crate::js::JsResult<Vec<f64>> {
                Ok($crate::js::micros_to_millis(&$crate::js::check(self.metric(index)?.timestamps())?))
            }

            /// The metric's tags as joined strings, or `undefined` when the blob has none.
            pub fn tags(&self, index: usize) -> $crate::js::JsResult<Option<$crate::js::JoinedStrings>> {
                $crate::js::check(self.metric(index)?.tags())?.map($crate::js::strings).transpose()
            }

            #[wasm_bindgen(js_name = timestampAt)]
            pub fn timestamp_at(&self, index: usize, point: usize) -> $crate::js::JsResult<i64> {
                $crate::js::check(self.metric(index)?.timestamp_at(point))
            }

            #[wasm_bindgen(js_name = tagAt)]
            pub fn tag_at(&self, index: usize, point: usize) -> $crate::js::JsResult<Option<String>> {
                Ok($crate::js::check(self.metric(index)?.tag_at(point))?.map(str::to_string))
            }
        }
    };
}

pub(crate) use blob_handle_accessors;
