//! Decoding two XOR value columns in one loop.
//!
//! Gorilla and Chimp streams are serial: where a value's bits end is known
//! only once the value before it is decoded, so one column's decoder waits on
//! a chain of load, shift and select of about 20 cycles per value and leaves
//! most of the core idle. Two columns have independent chains: stepping both
//! in one loop lets the CPU run them side by side.

use crate::encoding::bitstream::{u64_from_be, BitReader, Tail};
use crate::error::{Error, Result};

/// What a decoder reads its stream through.
pub(crate) trait StreamReader<'a>: Sized {
    /// Bytes the column's layout adds to the stream as stored (for errors).
    const ADDED: usize = 0;

    /// A reader over `stream`, the column's bytes after its first value,
    /// with the stream's [`Tail`].
    fn over(stream: &'a [u8]) -> (Self, Tail);

    /// Whether any bit past the end of the stream has been consumed.
    fn overran(&self) -> bool;
}

impl<'a> StreamReader<'a> for BitReader<'a> {
    #[inline(always)]
    fn over(stream: &'a [u8]) -> (Self, Tail) {
        (BitReader::new(stream), Tail::of(stream))
    }

    #[inline]
    fn overran(&self) -> bool {
        BitReader::overran(self)
    }
}

/// Over a column [`reversed::lay_out`](crate::encoding::bitstream::reversed::lay_out) made.
#[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
impl<'a> StreamReader<'a> for crate::encoding::bitstream::reversed::ReversedReader<'a> {
    const ADDED: usize = crate::encoding::bitstream::reversed::PAD;

    #[inline(always)]
    fn over(stream: &'a [u8]) -> (Self, Tail) {
        (Self::new(stream), Tail::of(&[]))
    }

    #[inline]
    fn overran(&self) -> bool {
        Self::overran(self)
    }
}

/// One column's decoder, advanced a step at a time.
pub(crate) trait XorStream<'a>: Sized {
    /// The codec's name, for errors.
    const CODEC: &'static str;

    /// What it reads its stream through.
    type Reader: StreamReader<'a>;

    /// The decoder after the column's first value, `first`, with `stream`
    /// holding the bits that follow it.
    fn new(stream: Self::Reader, first: u64) -> Self;

    /// Decode from `out[next]` on (`next < out.len()`): one value, or a run of
    /// unchanged ones. Returns the index after what it wrote. `tail` is the
    /// stream's [`Tail`].
    fn step(&mut self, tail: &Tail, out: &mut [f64], next: usize) -> Result<usize>;

    /// Where the decoder is in its stream.
    fn reader(&self) -> &Self::Reader;
}

/// Read the column's first value (8 bytes, big endian) into `out[0]` (`out`
/// is not empty) and return the decoder positioned after it, with its
/// stream's [`Tail`].
#[inline(always)]
fn start<'a, S: XorStream<'a>>(col: &'a [u8], out: &mut [f64]) -> Result<(S, Tail)> {
    let Some((first, stream)) = col.split_first_chunk::<8>() else {
        return Err(Error::corrupt("value", format!("{} column of {} bytes has no first value", S::CODEC, col.len())));
    };
    let first = u64_from_be(*first);
    out[0] = f64::from_bits(first);
    let (reader, tail) = S::Reader::over(stream);
    Ok((S::new(reader, first), tail))
}

/// After the last point: fail if the stream was shorter than the points.
fn finish<'a, S: XorStream<'a>>(stream: &S, col: &[u8], points: usize) -> Result<()> {
    if stream.reader().overran() {
        let stored = col.len().saturating_sub(S::Reader::ADDED);
        return Err(Error::corrupt("value", format!("{} column of {stored} bytes ends before {points} points", S::CODEC)));
    }
    Ok(())
}

/// Decode one column.
#[inline(always)]
pub(crate) fn decode_one<'a, S: XorStream<'a>>(col: &'a [u8], out: &mut [f64]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    let (mut stream, tail) = start::<S>(col, out)?;
    let mut next = 1;
    while next < out.len() {
        next = stream.step(&tail, out, next)?;
    }
    finish(&stream, col, out.len())
}

/// Decode two columns, stepping both in one loop while both have points
/// left. The result is that of [`decode_one`] on each; on an error the caller
/// does not learn which column failed (decode them one by one to know).
#[cfg_attr(feature = "compact-decoders", allow(dead_code))]
#[inline(always)]
pub(crate) fn decode_two<'a, S: XorStream<'a>>(
    (col_a, out_a): (&'a [u8], &mut [f64]),
    (col_b, out_b): (&'a [u8], &mut [f64]),
) -> Result<()> {
    if out_a.is_empty() || out_b.is_empty() {
        decode_one::<S>(col_a, out_a)?;
        return decode_one::<S>(col_b, out_b);
    }
    let ((mut a, tail_a), (mut b, tail_b)) = (start::<S>(col_a, out_a)?, start::<S>(col_b, out_b)?);
    let (mut next_a, mut next_b) = (1, 1);
    while next_a < out_a.len() && next_b < out_b.len() {
        next_a = a.step(&tail_a, out_a, next_a)?;
        next_b = b.step(&tail_b, out_b, next_b)?;
    }
    while next_a < out_a.len() {
        next_a = a.step(&tail_a, out_a, next_a)?;
    }
    while next_b < out_b.len() {
        next_b = b.step(&tail_b, out_b, next_b)?;
    }
    finish(&a, col_a, out_a.len())?;
    finish(&b, col_b, out_b.len())
}

/// Decode four columns, stepping all four in one loop while each has points
/// left, then the rest as [`decode_two`] does. The result is that of
/// [`decode_one`] on each; on an error the caller does not learn which
/// column failed.
#[cfg_attr(feature = "compact-decoders", allow(dead_code))]
#[inline(always)]
pub(crate) fn decode_four<'a, S: XorStream<'a>>(
    (col_a, out_a): (&'a [u8], &mut [f64]),
    (col_b, out_b): (&'a [u8], &mut [f64]),
    (col_c, out_c): (&'a [u8], &mut [f64]),
    (col_d, out_d): (&'a [u8], &mut [f64]),
) -> Result<()> {
    if out_a.is_empty() || out_b.is_empty() || out_c.is_empty() || out_d.is_empty() {
        decode_two::<S>((col_a, out_a), (col_b, out_b))?;
        return decode_two::<S>((col_c, out_c), (col_d, out_d));
    }
    let ((mut a, tail_a), (mut b, tail_b)) = (start::<S>(col_a, out_a)?, start::<S>(col_b, out_b)?);
    let ((mut c, tail_c), (mut d, tail_d)) = (start::<S>(col_c, out_c)?, start::<S>(col_d, out_d)?);
    let (mut next_a, mut next_b, mut next_c, mut next_d) = (1, 1, 1, 1);
    while next_a < out_a.len() && next_b < out_b.len() && next_c < out_c.len() && next_d < out_d.len() {
        next_a = a.step(&tail_a, out_a, next_a)?;
        next_b = b.step(&tail_b, out_b, next_b)?;
        next_c = c.step(&tail_c, out_c, next_c)?;
        next_d = d.step(&tail_d, out_d, next_d)?;
    }
    while next_a < out_a.len() && next_b < out_b.len() {
        next_a = a.step(&tail_a, out_a, next_a)?;
        next_b = b.step(&tail_b, out_b, next_b)?;
    }
    while next_c < out_c.len() && next_d < out_d.len() {
        next_c = c.step(&tail_c, out_c, next_c)?;
        next_d = d.step(&tail_d, out_d, next_d)?;
    }
    for (stream, tail, out, next) in [
        (&mut a, &tail_a, &mut *out_a, next_a),
        (&mut b, &tail_b, &mut *out_b, next_b),
        (&mut c, &tail_c, &mut *out_c, next_c),
        (&mut d, &tail_d, &mut *out_d, next_d),
    ] {
        let mut next = next;
        while next < out.len() {
            next = stream.step(tail, out, next)?;
        }
    }
    finish(&a, col_a, out_a.len())?;
    finish(&b, col_b, out_b.len())?;
    finish(&c, col_c, out_c.len())?;
    finish(&d, col_d, out_d.len())
}

/// Whether the decoders run as compiled for x86-64 with BMI2 and LZCNT (when
/// the CPU has them): their variable shifts, several a value, are then one
/// `shlx`/`shrx` each rather than the three micro-ops of a shift by `cl`, and
/// leading zeros one `lzcnt`. Same source, so the same results; the tests
/// compare the two builds ([`with_bmi2`]).
#[cfg(target_arch = "x86_64")]
#[inline]
fn bmi2() -> bool {
    BMI2_ALLOWED.load(core::sync::atomic::Ordering::Relaxed)
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
}

/// Off: the plain build runs even where the CPU has BMI2 (for the tests'
/// comparison and the bench's baseline).
static BMI2_ALLOWED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(true);

/// Allow the BMI2 build of the XOR decoders (the default) or not, process-wide;
/// returns the previous setting. Results are the same either way.
pub fn allow_bmi2(allow: bool) -> bool {
    BMI2_ALLOWED.swap(allow, core::sync::atomic::Ordering::Relaxed)
}

/// [`decode_one`], in its BMI2 build where the CPU has one.
#[inline(always)]
pub(crate) fn run_one<'a, S: XorStream<'a>>(col: &'a [u8], out: &mut [f64]) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if bmi2() {
        // SAFETY: a `target_feature` function needs only that the CPU has
        // the features, which `bmi2()` checked.
        #[allow(unsafe_code)]
        return unsafe { with_bmi2_features::decode_one::<S>(col, out) };
    }
    decode_one::<S>(col, out)
}

/// [`decode_two`], in its BMI2 build where the CPU has one.
#[inline(always)]
pub(crate) fn run_two<'a, S: XorStream<'a>>(a: (&'a [u8], &mut [f64]), b: (&'a [u8], &mut [f64])) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if bmi2() {
        // SAFETY: as in `run_one`.
        #[allow(unsafe_code)]
        return unsafe { with_bmi2_features::decode_two::<S>(a, b) };
    }
    #[cfg(feature = "compact-decoders")]
    return [a, b].into_iter().try_for_each(|(col, out)| decode_one::<S>(col, out));
    #[cfg(not(feature = "compact-decoders"))]
    decode_two::<S>(a, b)
}

/// [`decode_four`], in its BMI2 build where the CPU has one.
#[inline(always)]
pub(crate) fn run_four<'a, S: XorStream<'a>>(
    a: (&'a [u8], &mut [f64]),
    b: (&'a [u8], &mut [f64]),
    c: (&'a [u8], &mut [f64]),
    d: (&'a [u8], &mut [f64]),
) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if bmi2() {
        // SAFETY: as in `run_one`.
        #[allow(unsafe_code)]
        return unsafe { with_bmi2_features::decode_four::<S>(a, b, c, d) };
    }
    #[cfg(feature = "compact-decoders")]
    return [a, b, c, d].into_iter().try_for_each(|(col, out)| decode_one::<S>(col, out));
    #[cfg(not(feature = "compact-decoders"))]
    decode_four::<S>(a, b, c, d)
}

#[cfg(target_arch = "x86_64")]
mod with_bmi2_features {
    use super::XorStream;
    use crate::error::Result;

    #[target_feature(enable = "bmi2,lzcnt")]
    pub(super) fn decode_one<'a, S: XorStream<'a>>(col: &'a [u8], out: &mut [f64]) -> Result<()> {
        super::decode_one::<S>(col, out)
    }

    #[target_feature(enable = "bmi2,lzcnt")]
    pub(super) fn decode_two<'a, S: XorStream<'a>>(a: (&'a [u8], &mut [f64]), b: (&'a [u8], &mut [f64])) -> Result<()> {
        super::decode_two::<S>(a, b)
    }

    #[target_feature(enable = "bmi2,lzcnt")]
    pub(super) fn decode_four<'a, S: XorStream<'a>>(
        a: (&'a [u8], &mut [f64]),
        b: (&'a [u8], &mut [f64]),
        c: (&'a [u8], &mut [f64]),
        d: (&'a [u8], &mut [f64]),
    ) -> Result<()> {
        super::decode_four::<S>(a, b, c, d)
    }
}

#[cfg(all(test, feature = "encode"))]
mod tests {
    use super::super::raw::codec_tests::float_series;
    use super::super::{ChimpValues, GorillaValues};
    use crate::byte_order::ByteOrder;
    use crate::error::Result;
    use proptest::prelude::*;

    type Encode = fn(&[f64], ByteOrder, &mut Vec<u8>);
    type Decode = fn(&[u8], ByteOrder, &mut [f64]) -> Result<()>;
    type DecodeTwo = fn((&[u8], &mut [f64]), (&[u8], &mut [f64])) -> Result<()>;
    type DecodeFour = fn((&[u8], &mut [f64]), (&[u8], &mut [f64]), (&[u8], &mut [f64]), (&[u8], &mut [f64])) -> Result<()>;
    const CODECS: [(&str, Encode, Decode, DecodeTwo); 2] = [
        ("gorilla", GorillaValues::encode, GorillaValues::decode, GorillaValues::decode_two),
        ("chimp", ChimpValues::encode, ChimpValues::decode, ChimpValues::decode_two),
    ];
    const FOUR: [DecodeFour; 2] = [GorillaValues::decode_four, ChimpValues::decode_four];

    /// `decode_four` on four columns (each maybe cut short) gives what
    /// `decode` gives on each, and fails exactly when one of them fails.
    fn check_four(series: [&[f64]; 4], cuts: [Option<usize>; 4]) -> std::result::Result<(), TestCaseError> {
        for ((name, encode, decode, _), decode_four) in CODECS.into_iter().zip(FOUR) {
            let cols: Vec<Vec<u8>> = series
                .iter()
                .zip(cuts)
                .map(|(values, cut)| {
                    let mut col = Vec::new();
                    encode(values, ByteOrder::Little, &mut col);
                    col.truncate(cut.unwrap_or(usize::MAX).min(col.len()));
                    col
                })
                .collect();
            let mut singles_ok = true;
            let mut singles: Vec<Vec<f64>> = series.iter().map(|v| vec![0.0; v.len()]).collect();
            for (col, out) in cols.iter().zip(&mut singles) {
                singles_ok &= decode(col, ByteOrder::Little, out).is_ok();
            }
            let mut outs: Vec<Vec<f64>> = series.iter().map(|v| vec![0.0; v.len()]).collect();
            let [a, b, c, d] = &mut outs[..] else { unreachable!() };
            let four = decode_four((&cols[0], a), (&cols[1], b), (&cols[2], c), (&cols[3], d));
            prop_assert_eq!(four.is_ok(), singles_ok, "{}", name);
            if singles_ok {
                for (out, values) in outs.iter().zip(series) {
                    prop_assert_eq!(bits(out), bits(values), "{}", name);
                }
            }
        }
        Ok(())
    }

    #[test]
    fn fours_of_every_length_decode_as_singles() {
        let series: Vec<f64> = (0..40).map(|i| if i % 7 == 0 { 1.5 } else { f64::from(i).sqrt() }).collect();
        for lens in [[0, 40, 40, 40], [40, 40, 40, 0], [1, 2, 3, 40], [40, 17, 1, 39], [40, 40, 40, 40], [2, 2, 2, 2]] {
            let [a, b, c, d] = lens.map(|len| &series[40 - len..]);
            check_four([a, b, c, d], [None; 4]).unwrap();
        }
    }

    /// The BMI2 build (natively, where the CPU has it) and the plain one
    /// decode every column alike, cut or not.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn bmi2_and_plain_builds_decode_alike() {
        let mut runner = super::super::super::timestamp::test_vectors::deterministic_runner(300);
        let strategy = (proptest::collection::vec(float_series(), 4), proptest::option::of(0usize..600));
        runner
            .run(&strategy, |(series, cut)| {
                for (name, encode, _, _) in CODECS {
                    for (i, values) in series.iter().enumerate() {
                        let mut col = Vec::new();
                        encode(values, ByteOrder::Little, &mut col);
                        if i == 0 {
                            col.truncate(cut.unwrap_or(usize::MAX).min(col.len()));
                        }
                        let mut results = Vec::new();
                        for allow in [false, true] {
                            let before = super::allow_bmi2(allow);
                            let mut out = vec![0.0; values.len()];
                            let decode = if name == "gorilla" { GorillaValues::decode } else { ChimpValues::decode };
                            results.push(decode(&col, ByteOrder::Little, &mut out).map(|()| bits(&out)).map_err(|e| e.to_string()));
                            super::allow_bmi2(before);
                        }
                        prop_assert_eq!(&results[0], &results[1], "{}", name);
                    }
                }
                Ok(())
            })
            .unwrap();
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    /// `decode_two` on two columns gives what `decode` gives on each, and
    /// fails exactly when one of them fails.
    fn check_pair(a: &[f64], b: &[f64], cut_a: Option<usize>) -> std::result::Result<(), TestCaseError> {
        for (name, encode, decode, decode_two) in CODECS {
            let (mut col_a, mut col_b) = (Vec::new(), Vec::new());
            encode(a, ByteOrder::Little, &mut col_a);
            encode(b, ByteOrder::Little, &mut col_b);
            if let Some(cut) = cut_a {
                col_a.truncate(cut.min(col_a.len()));
            }
            let (mut one_a, mut one_b) = (vec![0.0; a.len()], vec![0.0; b.len()]);
            let singles_ok = decode(&col_a, ByteOrder::Little, &mut one_a).is_ok() & decode(&col_b, ByteOrder::Little, &mut one_b).is_ok();
            let (mut two_a, mut two_b) = (vec![0.0; a.len()], vec![0.0; b.len()]);
            let pair = decode_two((&col_a, &mut two_a), (&col_b, &mut two_b));
            prop_assert_eq!(pair.is_ok(), singles_ok, "{}", name);
            if singles_ok {
                prop_assert_eq!(bits(&two_a), bits(a), "{} a", name);
                prop_assert_eq!(bits(&two_b), bits(b), "{} b", name);
            }
            // The same with the columns swapped.
            let swapped = decode_two((&col_b, &mut two_b), (&col_a, &mut two_a));
            prop_assert_eq!(swapped.is_ok(), singles_ok, "{} swapped", name);
        }
        Ok(())
    }

    #[test]
    fn pairs_of_every_length_decode_as_singles() {
        let series: Vec<f64> = (0..40).map(|i| if i % 7 == 0 { 1.5 } else { f64::from(i).sqrt() }).collect();
        for len_a in [0, 1, 2, 3, 17, 40] {
            for len_b in [0, 1, 2, 39, 40] {
                check_pair(&series[..len_a], &series[40 - len_b..], None).unwrap();
            }
        }
    }

    proptest! {
        #[test]
        fn pairs_decode_as_singles(a in float_series(), b in float_series(), cut in proptest::option::of(0usize..600)) {
            check_pair(&a, &b, cut)?;
        }

        #[test]
        fn fours_decode_as_singles(
            series in proptest::collection::vec(float_series(), 4),
            cuts in proptest::array::uniform4(proptest::option::weighted(0.2, 0usize..600)),
        ) {
            check_four([&series[0], &series[1], &series[2], &series[3]], cuts)?;
        }
    }
}
