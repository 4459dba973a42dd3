//! Column encodings: how one metric's timestamps, values or tags become bytes.
//!
//! Every codec works on one metric's column at a time: `encode` appends the
//! column to a buffer, `decode` fills a caller's slice of exactly the metric's
//! point count and fails (never panics) on a malformed or short stream.

pub mod bitstream;
pub mod timestamp;
pub mod value;
pub mod varint;

use crate::byte_order::ByteOrder;
use crate::error::Result;
use crate::format::{TimestampEncoding, ValueEncoding};

use timestamp::{DeltaPackedTimestamps, DeltaTimestamps, RawTimestamps};
use value::{AlpValues, ChimpValues, GorillaValues, RawValues};

/// Decode one metric's timestamp column into `out` (its point count).
pub fn decode_timestamps(enc: TimestampEncoding, col: &[u8], order: ByteOrder, out: &mut [i64]) -> Result<()> {
    decode_timestamps_within(enc, col, col.len(), order, out)
}

/// [`decode_timestamps`] of the column `bytes[..len]`, where the bytes after
/// it may be read (never decoded) by a kernel that gains from it: the same
/// result as the column alone.
pub fn decode_timestamps_within(enc: TimestampEncoding, bytes: &[u8], len: usize, order: ByteOrder, out: &mut [i64]) -> Result<()> {
    match enc {
        TimestampEncoding::Delta => DeltaTimestamps::decode_within(timestamp::DeltaKernel::Shuffle, bytes, len, out),
        TimestampEncoding::DeltaPacked => DeltaPackedTimestamps::decode_within(timestamp::PackedKernel::Shuffle, bytes, len, out),
        TimestampEncoding::Raw => RawTimestamps::decode(&bytes[..len.min(bytes.len())], order, out),
    }
}

/// Decode one metric's value column into `out` (its point count).
pub fn decode_values(enc: ValueEncoding, col: &[u8], order: ByteOrder, out: &mut [f64]) -> Result<()> {
    decode_values_within(enc, col, col.len(), order, out)
}

/// [`decode_values`] of the column `bytes[..len]`, where the bytes after it
/// may be read (never decoded) by a kernel that gains from it: the same
/// result as the column alone.
pub fn decode_values_within(enc: ValueEncoding, bytes: &[u8], len: usize, order: ByteOrder, out: &mut [f64]) -> Result<()> {
    let col = &bytes[..len.min(bytes.len())];
    match enc {
        ValueEncoding::Raw => RawValues::decode(col, order, out),
        ValueEncoding::Gorilla => GorillaValues::decode(col, order, out),
        ValueEncoding::Chimp => ChimpValues::decode(col, order, out),
        ValueEncoding::Alp => AlpValues::decode_within(bytes, len, order, out),
    }
}

/// Decode two metrics' value columns, `(column, out)` each. The XOR codecs
/// decode both side by side (see `value::xor_stream`); the others one after
/// the other. On an error, which column failed is not known.
pub fn decode_values_two(enc: ValueEncoding, a: (&[u8], &mut [f64]), b: (&[u8], &mut [f64]), order: ByteOrder) -> Result<()> {
    match enc {
        ValueEncoding::Gorilla => GorillaValues::decode_two(a, b),
        ValueEncoding::Chimp => ChimpValues::decode_two(a, b),
        ValueEncoding::Raw | ValueEncoding::Alp => {
            decode_values(enc, a.0, order, a.1)?;
            decode_values(enc, b.0, order, b.1)
        }
    }
}

/// Decode four metrics' value columns, `(column, out)` each: the XOR codecs
/// decode all four side by side; the others one after the other. On an
/// error, which column failed is not known.
pub fn decode_values_four(
    enc: ValueEncoding,
    a: (&[u8], &mut [f64]),
    b: (&[u8], &mut [f64]),
    c: (&[u8], &mut [f64]),
    d: (&[u8], &mut [f64]),
    order: ByteOrder,
) -> Result<()> {
    match enc {
        ValueEncoding::Gorilla => GorillaValues::decode_four(a, b, c, d),
        ValueEncoding::Chimp => ChimpValues::decode_four(a, b, c, d),
        ValueEncoding::Raw | ValueEncoding::Alp => {
            decode_values_two(enc, a, b, order)?;
            decode_values_two(enc, c, d, order)
        }
    }
}

/// Append one metric's timestamp column.
#[cfg(feature = "encode")]
pub fn encode_timestamps(enc: TimestampEncoding, timestamps: &[i64], order: ByteOrder, out: &mut Vec<u8>) {
    match enc {
        TimestampEncoding::Raw => RawTimestamps::encode(timestamps, order, out),
        TimestampEncoding::Delta => DeltaTimestamps::encode(timestamps, order, out),
        TimestampEncoding::DeltaPacked => DeltaPackedTimestamps::encode(timestamps, order, out),
    }
}

/// Append one metric's value column.
#[cfg(feature = "encode")]
pub fn encode_values(enc: ValueEncoding, values: &[f64], order: ByteOrder, out: &mut Vec<u8>) {
    match enc {
        ValueEncoding::Raw => RawValues::encode(values, order, out),
        ValueEncoding::Gorilla => GorillaValues::encode(values, order, out),
        ValueEncoding::Chimp => ChimpValues::encode(values, order, out),
        ValueEncoding::Alp => AlpValues::encode(values, order, out),
    }
}

/// The most bytes one point can take in any column encoding (a 10-byte varint,
/// 77 Gorilla bits, an ALP exception, ...), used to cap decompressed payloads.
pub const MAX_COLUMN_BYTES_PER_POINT: usize = 24;
/// Fixed per-metric overhead a column may carry (ALP headers and the like).
pub const MAX_COLUMN_BYTES_PER_METRIC: usize = 64;
