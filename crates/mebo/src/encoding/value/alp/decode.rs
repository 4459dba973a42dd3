//! ALP column decoding. Every header field is checked against the column
//! length and the point count before anything is read, so a malformed column
//! ends in an error, never a panic or an oversized allocation.

use super::bitpack::{low_mask, map_codes_main, map_codes_rd_left, map_codes_rd_right};
use super::{
    packed_len, INV_POW10, MAIN_EXCEPTION_LEN, MAIN_HEADER_LEN, MAX_EXPONENT, POW10, RD_EXCEPTION_LEN, RD_HEADER_LEN, RD_MAX_DICT,
    SCHEME_MAIN, SCHEME_RAW, SCHEME_RD,
};
use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};

fn corrupt(detail: impl Into<String>) -> Error {
    Error::corrupt("value", detail)
}

/// Byte length of `count` records of `record_len` bytes, if addressable.
fn records_len(count: u32, record_len: usize) -> Option<usize> {
    usize::try_from(count).ok()?.checked_mul(record_len)
}

/// The column `bytes[..len]`; the bit-packed streams' kernels may read on
/// into the bytes after it (bits they mask off), so that a column followed
/// by others needs no padded copy of its last codes.
pub(super) fn decode_column(bytes: &[u8], len: usize, order: ByteOrder, out: &mut [f64]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    let len = len.min(bytes.len());
    let Some((&scheme, body)) = bytes.split_first().filter(|_| len > 0) else {
        return Err(corrupt(format!("empty ALP column for {} points", out.len())));
    };
    let body = Body { bytes: body, len: len - 1 };
    match scheme {
        SCHEME_MAIN => decode_main(body, order, out),
        SCHEME_RD => decode_rd(body, order, out),
        SCHEME_RAW => decode_raw(body.column(), order, out),
        other => Err(corrupt(format!("unknown ALP scheme byte {other}"))),
    }
}

/// A column's body (after the scheme byte): its first `len` bytes, and the
/// bytes after them that a kernel may read past its codes.
#[derive(Clone, Copy)]
struct Body<'b> {
    bytes: &'b [u8],
    len: usize,
}

impl<'b> Body<'b> {
    fn column(self) -> &'b [u8] {
        &self.bytes[..self.len]
    }

    /// From `at` (within the column) to the end of what may be read.
    fn readable_from(self, at: usize) -> &'b [u8] {
        &self.bytes[at..]
    }
}

fn decode_raw(body: &[u8], order: ByteOrder, out: &mut [f64]) -> Result<()> {
    let raw = out
        .len()
        .checked_mul(8)
        .and_then(|len| body.get(..len))
        .ok_or_else(|| corrupt(format!("ALP raw column has {} bytes for {} points", body.len(), out.len())))?;
    for (slot, bytes) in out.iter_mut().zip(raw.chunks_exact(8)) {
        *slot = f64::from_bits(order.u64(bytes.try_into().expect("8-byte chunk")));
    }
    Ok(())
}

fn decode_main(within: Body<'_>, order: ByteOrder, out: &mut [f64]) -> Result<()> {
    let body = within.column();
    let n = out.len();
    let header: &[u8; MAIN_HEADER_LEN] = body
        .get(..MAIN_HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| corrupt(format!("ALP main header needs {MAIN_HEADER_LEN} bytes, has {}", body.len())))?;
    let (exponent, factor, width) = (header[0], header[1], u32::from(header[2]));
    let exception_count = order.u32([header[3], header[4], header[5], header[6]]);
    let min = order.u64(header[7..15].try_into().expect("8 bytes")) as i64;
    if exponent > MAX_EXPONENT || factor > MAX_EXPONENT {
        return Err(corrupt(format!("ALP main exponent {exponent} / factor {factor} above {MAX_EXPONENT}")));
    }
    if width > 64 {
        return Err(corrupt(format!("ALP main bit width {width} above 64")));
    }
    check_exception_count(exception_count, n)?;

    let rest = &body[MAIN_HEADER_LEN..];
    let ends = (|| {
        let codes_end = packed_len(n, width)?;
        let exceptions_end = codes_end.checked_add(records_len(exception_count, MAIN_EXCEPTION_LEN)?)?;
        (exceptions_end <= rest.len()).then_some((codes_end, exceptions_end))
    })();
    let Some((codes_end, exceptions_end)) = ends else {
        return Err(corrupt(format!(
            "ALP main column too short: {} bytes after the header for {n} codes of {width} bits \
             and {exception_count} exceptions",
            rest.len()
        )));
    };
    let exceptions = &rest[codes_end..exceptions_end];

    // The decode formula is part of the format: FOR-add, convert, then two
    // separate multiplies in this order.
    let factor_scale = POW10[usize::from(factor)];
    let exponent_scale = INV_POW10[usize::from(exponent)];
    // The kernels may read past the codes into the exceptions and the next
    // columns; those bits are masked off.
    map_codes_main(within.readable_from(MAIN_HEADER_LEN), width, out, move |code, _| {
        ((code as i64).wrapping_add(min) as f64) * factor_scale * exponent_scale
    });

    for record in exceptions.chunks_exact(MAIN_EXCEPTION_LEN) {
        let position = exception_position(record, order, n)?;
        out[position] = f64::from_bits(order.u64(record[4..12].try_into().expect("8 bytes")));
    }
    Ok(())
}

fn decode_rd(within: Body<'_>, order: ByteOrder, out: &mut [f64]) -> Result<()> {
    let body = within.column();
    let n = out.len();
    let header: &[u8; RD_HEADER_LEN] = body
        .get(..RD_HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| corrupt(format!("ALP-RD header needs {RD_HEADER_LEN} bytes, has {}", body.len())))?;
    let (right_width, code_width, dict_len) = (u32::from(header[0]), u32::from(header[1]), usize::from(header[2]));
    let exception_count = order.u32([header[3], header[4], header[5], header[6]]);
    // A right part of 64 bits would leave no left part (and overflow the shift).
    if right_width >= 64 {
        return Err(corrupt(format!("ALP-RD right width {right_width} not below 64")));
    }
    if dict_len > RD_MAX_DICT {
        return Err(corrupt(format!("ALP-RD dictionary of {dict_len} entries, at most {RD_MAX_DICT}")));
    }
    // Codes index an 8-slot dictionary; unused slots read as 0, like the reference.
    if code_width > 3 {
        return Err(corrupt(format!("ALP-RD code width {code_width} above 3")));
    }

    check_exception_count(exception_count, n)?;

    let rest = &body[RD_HEADER_LEN..];
    let dict_bytes = rest.get(..dict_len * 2).ok_or_else(|| corrupt(format!("ALP-RD dictionary of {dict_len} entries is truncated")))?;
    // Dictionary lefts pre-shifted into place; codes past the dictionary read 0.
    let mut shifted_lefts = [0u64; RD_MAX_DICT];
    for (entry, bytes) in shifted_lefts.iter_mut().zip(dict_bytes.chunks_exact(2)) {
        *entry = u64::from(order.u16([bytes[0], bytes[1]])) << right_width;
    }
    let rest = &rest[dict_len * 2..];
    // Left codes, right parts and exceptions follow one another.
    let ends = (|| {
        let codes_end = packed_len(n, code_width)?;
        let rights_end = codes_end.checked_add(packed_len(n, right_width)?)?;
        let exceptions_end = rights_end.checked_add(records_len(exception_count, RD_EXCEPTION_LEN)?)?;
        (exceptions_end <= rest.len()).then_some((codes_end, rights_end, exceptions_end))
    })();
    let Some((codes_end, rights_end, exceptions_end)) = ends else {
        return Err(corrupt(format!(
            "ALP-RD column too short: {} bytes after the dictionary for {n} points of {code_width}+{right_width} bits \
             and {exception_count} exceptions",
            rest.len()
        )));
    };
    let exceptions = &rest[rights_end..exceptions_end];
    // The packed streams as the kernels read them: on past their codes.
    let codes_from = RD_HEADER_LEN + dict_len * 2;
    let (codes, rights) = (within.readable_from(codes_from), within.readable_from(codes_from + codes_end));

    // Two passes over `out` (as bit patterns): right parts, then dictionary lefts.
    map_codes_rd_right(rights, right_width, out, move |right, _| f64::from_bits(right));
    map_codes_rd_left(codes, code_width, out, move |code, right| f64::from_bits(right.to_bits() | shifted_lefts[(code & 7) as usize]));

    let right_mask = low_mask(right_width);
    for record in exceptions.chunks_exact(RD_EXCEPTION_LEN) {
        let position = exception_position(record, order, n)?;
        let left = u64::from(order.u16([record[4], record[5]]));
        let right = out[position].to_bits() & right_mask;
        out[position] = f64::from_bits((left << right_width) | right);
    }
    Ok(())
}

/// At most one exception per point.
fn check_exception_count(count: u32, points: usize) -> Result<()> {
    if usize::try_from(count).is_ok_and(|c| c <= points) {
        Ok(())
    } else {
        Err(corrupt(format!("{count} ALP exceptions for {points} points")))
    }
}

/// The point index an exception record starts with, checked against the count.
fn exception_position(record: &[u8], order: ByteOrder, count: usize) -> Result<usize> {
    let position = order.u32([record[0], record[1], record[2], record[3]]);
    usize::try_from(position).ok().filter(|&p| p < count).ok_or_else(|| corrupt(format!("ALP exception at point {position} of {count}")))
}
