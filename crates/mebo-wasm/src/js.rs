//! Conversions between core values and JavaScript values, shared by the
//! numeric and text bindings, and the TypeScript of the shapes they build
//! (each `typescript_custom_section` lands in the glue's `.d.ts`, which the
//! SDK imports its boundary types from).

use js_sys::{Object, Reflect, Uint32Array};
use mebo::{ByteOrder, DecodeLimits, Error};
use wasm_bindgen::prelude::*;

/// The option names (tested against the core's below), strings, payload
/// sizes and series.
#[allow(dead_code)] // the lint does not see the section's use of it
const TS_SHARED: &str = r#"
/** How timestamps are stored (the core's `TimestampEncoding` names). */
export type TimestampEncoding = 'raw' | 'delta' | 'deltapacked';
/** How values are stored (the core's `ValueEncoding` names). */
export type ValueEncoding = 'raw' | 'gorilla' | 'chimp' | 'alp';
/** The codec of a payload (the core's `Compression` names). */
export type Compression = 'none' | 'zstd' | 's2' | 'lz4';
/** `v1`: insertion-ordered index; `v2`: sorted index; `v2-shared`: v2 storing identical timestamp columns once. */
export type Layout = 'v1' | 'v2' | 'v2-shared';
export type ByteOrder = 'little' | 'big';

/** Strings as the bindings return them: all in one string, with the UTF-16 end of each. */
export interface JoinedStrings {
  text: string;
  ends: Uint32Array;
}

/** One payload's size: as stored in the blob, and after decompression. */
export interface PayloadSize {
  bytes: number;
  decompressedBytes: number;
}

/** One series as the bindings return it: `values` a typed array or joined strings; `tags` joined, when the blob has tags. */
export interface RawSeries<V> {
  timestamps: BigInt64Array;
  values: V;
  tags?: JoinedStrings;
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_SHARED_SECTION: &str = TS_SHARED;

#[wasm_bindgen]
extern "C" {
    /// `{ text, ends }`: see [`strings`].
    #[wasm_bindgen(typescript_type = "JoinedStrings")]
    pub type JoinedStrings;
    /// `{ bytes, decompressedBytes }`: see [`payload`].
    #[wasm_bindgen(typescript_type = "PayloadSize")]
    pub type PayloadSize;
    /// A numeric series: see [`series`].
    #[wasm_bindgen(typescript_type = "RawSeries<Float64Array>")]
    pub type NumericSeries;
    /// A text series, values joined: see [`series`].
    #[wasm_bindgen(typescript_type = "RawSeries<JoinedStrings>")]
    pub type TextSeries;
}

/// Result of a binding call: the error is the JS value [`error`] builds.
pub type JsResult<T> = Result<T, JsValue>;

/// Longest string a JS engine can hold, in UTF-16 units (V8's limit, the
/// smallest of the major engines). Checked before a string is built, because a
/// JS exception thrown inside a binding call would leave the handle borrowed.
const MAX_JS_STRING_UNITS: usize = (1 << 29) - 24;

/// A core error as a JS `Error` carrying the core's `code()`; the SDK turns
/// it into a `MeboError`.
pub fn error(err: Error) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&js, &"code".into(), &err.code().into());
    js.into()
}

/// `?`-friendly conversion of a core result.
pub fn check<T>(result: mebo::Result<T>) -> JsResult<T> {
    result.map_err(error)
}

/// A plain JS object built field by field.
pub struct JsObject(Object);

impl JsObject {
    pub fn new() -> Self {
        JsObject(Object::new())
    }

    pub fn set(self, key: &str, value: impl Into<JsValue>) -> Self {
        // Defining a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&self.0, &key.into(), &value.into());
        self
    }

    /// The object as the boundary type it was built as (see the
    /// `typescript_custom_section`s beside each builder).
    pub fn typed<T: JsCast>(self) -> T {
        self.0.unchecked_into()
    }
}

impl From<JsObject> for JsValue {
    fn from(object: JsObject) -> JsValue {
        object.0.into()
    }
}

/// One payload's size in the blob and after decompression, as `{ bytes, decompressedBytes }`.
pub fn payload(bytes: usize, decompressed: usize) -> PayloadSize {
    JsObject::new().set("bytes", bytes as f64).set("decompressedBytes", decompressed as f64).typed()
}

/// Decode limits from the SDK's optional fields; absent ones keep the core's defaults.
pub fn decode_limits(max_decompressed_bytes: Option<usize>, max_points: Option<u64>) -> DecodeLimits {
    let defaults = DecodeLimits::default();
    DecodeLimits {
        max_decompressed_bytes: max_decompressed_bytes.unwrap_or(defaults.max_decompressed_bytes),
        max_points: max_points.unwrap_or(defaults.max_points),
    }
}

pub fn byte_order_name(order: ByteOrder) -> &'static str {
    match order {
        ByteOrder::Little => "little",
        ByteOrder::Big => "big",
    }
}

#[cfg(feature = "encode")]
pub fn byte_order(big_endian: bool) -> ByteOrder {
    if big_endian {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    }
}

/// Parse an optional option name with the core's parser, or keep `default`.
#[cfg(feature = "encode")]
pub fn parse_or<T: std::str::FromStr<Err = Error>>(value: Option<String>, default: T) -> JsResult<T> {
    match value {
        Some(name) => check(name.parse()),
        None => Ok(default),
    }
}

/// The fields of an options object (the encoders'), read as JavaScript
/// reads them (inherited ones included). An absent (`undefined`) field is
/// `None`; one of another type is a `TypeError` (see [`type_error`]), which
/// the SDK reports as INVALID_ARGUMENT, as it does the glue's own conversions.
#[cfg(feature = "encode")]
pub struct Fields(Option<JsValue>);

#[cfg(feature = "encode")]
impl Fields {
    /// The fields of `options`; none when it is absent (`undefined` or `null`).
    pub fn of(options: Option<impl Into<JsValue>>) -> Fields {
        Fields(options.map(Into::into).filter(|o| !o.is_undefined() && !o.is_null()))
    }

    fn get(&self, key: &str) -> JsResult<JsValue> {
        match &self.0 {
            Some(object) => Reflect::get(object, &key.into()),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    pub fn string(&self, key: &str) -> JsResult<Option<String>> {
        self.field(key, "a string", JsValue::as_string)
    }

    pub fn boolean(&self, key: &str) -> JsResult<Option<bool>> {
        self.field(key, "a boolean", JsValue::as_bool)
    }

    fn field<T>(&self, key: &str, expected: &str, read: fn(&JsValue) -> Option<T>) -> JsResult<Option<T>> {
        let value = self.get(key)?;
        match read(&value) {
            Some(v) => Ok(Some(v)),
            None if value.is_undefined() => Ok(None),
            None => Err(type_error(key, expected, value)),
        }
    }
}

/// A field of the wrong type: a `TypeError` "{key} must be {expected}" that
/// carries the field's value as `value`, for the SDK to describe as it
/// describes the arguments it checks itself.
#[cfg(feature = "encode")]
fn type_error(key: &str, expected: &str, value: JsValue) -> JsValue {
    let error = js_sys::TypeError::new(&format!("{key} must be {expected}"));
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&error, &"value".into(), &value);
    error.into()
}

/// Strings for JavaScript: `{ text, ends }`, all strings in one JS string and
/// the UTF-16 end offset of each, so the SDK slices instead of crossing the
/// boundary once per string.
pub fn strings<'s>(items: impl IntoIterator<Item = &'s str>) -> JsResult<JoinedStrings> {
    let mut text = String::new();
    let mut ends = Vec::new();
    let mut units = 0usize;
    for s in items {
        text.push_str(s);
        units += utf16_len(s);
        ends.push(units);
    }
    strings_with_ends(&text, units, ends)
}

fn strings_with_ends(text: &str, units: usize, ends: Vec<usize>) -> JsResult<JoinedStrings> {
    if units > MAX_JS_STRING_UNITS {
        return Err(error(Error::SizeCap { what: "joined strings (UTF-16 units)", size: units as u64, cap: MAX_JS_STRING_UNITS as u64 }));
    }
    // Below MAX_JS_STRING_UNITS, so every end fits u32.
    let ends: Vec<u32> = ends.into_iter().map(|e| e as u32).collect();
    Ok(JsObject::new().set("text", text).set("ends", Uint32Array::from(ends.as_slice())).typed())
}

/// Microsecond timestamps as epoch milliseconds, the unit of JS `Date` and
/// charting libraries (exact up to 2^53 microseconds).
pub fn micros_to_millis(micros: &[i64]) -> Vec<f64> {
    micros.iter().map(|&t| t as f64 / 1000.0).collect()
}

fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// One series as `{ timestamps, values, tags }` (a `RawSeries`, as
/// [`NumericSeries`] or [`TextSeries`]): `values` already a JS value, tags
/// joined, or `undefined` without tags.
pub fn series<T: JsCast, S: AsRef<str>>(timestamps: &[i64], values: impl Into<JsValue>, tags: Option<&[S]>) -> JsResult<T> {
    let tags = match tags {
        Some(t) => strings(t.iter().map(AsRef::as_ref))?.into(),
        None => JsValue::UNDEFINED,
    };
    Ok(JsObject::new().set("timestamps", js_sys::BigInt64Array::from(timestamps)).set("values", values).set("tags", tags).typed())
}

/// A decimated series as `[timestampsMs…, values…, sourcePoints]`: one
/// array crosses the boundary instead of an object of two (the SDK splits it
/// into views).
pub fn packed(decimated: mebo_series::Decimated) -> Vec<f64> {
    let mut all = decimated.timestamps_ms;
    all.extend_from_slice(&decimated.values);
    all.push(decimated.source_points as f64);
    all
}

/// The decimation the SDK asked for (it validates the method's name).
pub fn decimation(lttb: bool) -> mebo_series::Method {
    if lttb {
        mebo_series::Method::Lttb
    } else {
        mebo_series::Method::MinMax
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::utf16_len;

    /// The names of `export type {name} = 'a' | 'b' | …;` in a custom section.
    pub(crate) fn union<'t>(ts: &'t str, name: &str) -> Vec<&'t str> {
        let start = format!("export type {name} = ");
        let line = ts.lines().find_map(|l| l.strip_prefix(start.as_str())).unwrap_or_else(|| panic!("no type {name}"));
        line.trim_end_matches(';').split('|').map(|n| n.trim().trim_matches('\'')).collect()
    }

    /// Each union names exactly what the core parses and prints (`name()`).
    #[test]
    fn option_unions_are_the_core_names() {
        use mebo::{Compression, Layout, TimestampEncoding, ValueEncoding};
        fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
            all.iter().map(|&v| name(v)).collect()
        }
        let ts = super::TS_SHARED;
        assert_eq!(union(ts, "TimestampEncoding"), names(&TimestampEncoding::ALL, TimestampEncoding::name));
        assert_eq!(union(ts, "ValueEncoding"), names(&ValueEncoding::ALL, ValueEncoding::name));
        assert_eq!(union(ts, "Compression"), names(&Compression::ALL, Compression::name));
        // Layout has no `ALL`: every variant, by a match without a wildcard.
        let layouts = [Layout::V1, Layout::V2, Layout::V2Shared];
        for l in layouts {
            match l {
                Layout::V1 | Layout::V2 | Layout::V2Shared => {}
            }
        }
        assert_eq!(union(ts, "Layout"), names(&layouts, Layout::name));
        assert_eq!(union(ts, "ByteOrder"), [mebo::ByteOrder::Little, mebo::ByteOrder::Big].map(super::byte_order_name));
    }

    #[test]
    fn a_decimated_series_packs_times_then_values_then_its_source_count() {
        let d = mebo_series::Decimated { timestamps_ms: vec![1.5, 2.0], values: vec![-0.0, f64::INFINITY], source_points: 9 };
        let packed = super::packed(d);
        assert_eq!(packed.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [1.5, 2.0, -0.0, f64::INFINITY, 9.0].map(f64::to_bits));
    }

    #[test]
    fn utf16_lengths() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("ok"), 2);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("温度"), 2);
        assert_eq!(utf16_len("😀"), 2);
    }
}

/// A typed array of 8-byte elements, seen as its bytes.
pub trait Words: Sized {
    /// Its first `len` bytes as a `Uint8Array` over the same memory.
    fn first_bytes(&self, len: u32) -> js_sys::Uint8Array;
}

macro_rules! words {
    ($($array:ty)*) => {$(
        impl Words for $array {
            fn first_bytes(&self, len: u32) -> js_sys::Uint8Array {
                js_sys::Uint8Array::new_with_byte_offset_and_length(&self.buffer(), self.byte_offset(), len)
            }
        }
    )*};
}
words!(js_sys::BigInt64Array js_sys::Float64Array);

/// `bytes` copied over the first elements of `array`: a column the blob
/// stores as it decodes (little-endian words, the order every typed-array
/// view of wasm memory here already reads), copied out without decoding it
/// first. `array` holds at least `bytes.len()` bytes; `bytes` lies in wasm
/// memory, so its length fits u32.
pub fn write_bytes<A: Words>(array: &A, bytes: &[u8]) {
    array.first_bytes(bytes.len() as u32).copy_from(bytes);
}

/// `decodeAllInto`'s check of the caller's arrays, `(length, wanted)` each:
/// the SDK hands each over at exactly the length the blob fills (so a
/// mismatch is the SDK's fault, and its message need not say more).
pub fn check_into_lengths(arrays: &[(u32, usize)]) -> JsResult<()> {
    if arrays.iter().all(|&(length, wanted)| length as usize == wanted) {
        return Ok(());
    }
    Err(js_sys::RangeError::new("decodeAllInto's arrays are not of the lengths the blob fills").into())
}
