//! The extremes of one M4 bucket, the one SIMD kernel of the crate.
//!
//! Two passes: the extremes' values, then the first point equal to each.
//! The first pass is written twice: [`scalar`], four independent running
//! extremes, and [`pairs`], the same selects on two two-lane values, generic
//! over the lane type ([`F64x2`]). In wasm with simd128 the lane type is
//! `v128` (`f64x2.pmin`/`pmax`); natively it is [`Portable`], the same
//! selects lane by lane, so `cargo test` runs the code the simd128 build runs
//! and compares it with the scalar twin. The SDK's variant tests compare the
//! simd128 and scalar wasm builds themselves.

/// Which first pass finds the extremes of an M4 bucket. Both give the same
/// points; [`Kernel::default`] is the faster one of the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Four running extremes, one value at a time.
    Scalar,
    /// The same selects on two-lane values: simd128 in a wasm build with it,
    /// else a portable lane type (what native tests run the simd128 code with).
    Simd,
}

impl Default for Kernel {
    /// `Simd` where it is simd128, else `Scalar`.
    fn default() -> Kernel {
        if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
            Kernel::Simd
        } else {
            Kernel::Scalar
        }
    }
}

/// Values per step of either first pass: enough independent running
/// extremes for the CPU to overlap them, in two simd128 registers.
const LANES: usize = 4;

/// The first positions of the minimum and of the maximum of `vs` (no NaN;
/// -0.0 and +0.0 are equal, as to `<`). One pass that also tracked positions
/// kept too much state for wasm's registers (V8 spilled it to the stack).
pub(crate) fn extremes(vs: &[f64], kernel: Kernel) -> (usize, usize) {
    let (min, max) = match kernel {
        Kernel::Scalar => scalar(vs),
        Kernel::Simd => pairs::<Lanes>(vs),
    };
    let at = |x: f64| vs.iter().position(|&v| v == x).unwrap_or(0);
    (at(min), at(max))
}

/// Both first passes' last step: the least of the lanes' minima and the
/// points left over after the last whole chunk, and the greatest likewise.
fn lanes_and_rest(first: f64, lo: &[f64], hi: &[f64], rest: &[f64]) -> (f64, f64) {
    let min = lo.iter().chain(rest).fold(first, |m, &v| if v < m { v } else { m });
    let max = hi.iter().chain(rest).fold(first, |m, &v| if v > m { v } else { m });
    (min, max)
}

/// The minimum and maximum of `vs` (not NaN; of an empty slice, 0), lane by
/// lane without a data-dependent branch (V8 compiles a scalar float select
/// to a branch, which mispredicts at each new record; the native compilers
/// emit `minsd`/`maxsd`): the scalar twin of [`pairs`].
fn scalar(vs: &[f64]) -> (f64, f64) {
    let first = vs.first().copied().unwrap_or(0.0);
    let (mut lo, mut hi) = ([first; LANES], [first; LANES]);
    let mut chunks = vs.chunks_exact(LANES);
    for chunk in &mut chunks {
        for lane in 0..LANES {
            lo[lane] = if chunk[lane] < lo[lane] { chunk[lane] } else { lo[lane] };
            hi[lane] = if chunk[lane] > hi[lane] { chunk[lane] } else { hi[lane] };
        }
    }
    lanes_and_rest(first, &lo, &hi, chunks.remainder())
}

/// Two `f64` lanes and the selects [`pairs`] needs, with wasm simd128's
/// semantics.
pub(crate) trait F64x2: Copy {
    /// Both lanes `x`.
    fn splat(x: f64) -> Self;
    /// Lanes `a` and `b`.
    fn new(a: f64, b: f64) -> Self;
    /// Per lane `b < a ? b : a` (`f64x2.pmin`).
    fn pmin(a: Self, b: Self) -> Self;
    /// Per lane `a < b ? b : a` (`f64x2.pmax`).
    fn pmax(a: Self, b: Self) -> Self;
    /// The two lanes.
    fn lanes(self) -> [f64; 2];
}

/// The first pass of [`scalar`] on two lane pairs: `pmin`/`pmax` are
/// exactly its selects, one instruction each in simd128 (`minpd`/`maxpd` on
/// x86).
fn pairs<P: F64x2>(vs: &[f64]) -> (f64, f64) {
    let first = vs.first().copied().unwrap_or(0.0);
    let (mut lo, mut hi) = ([P::splat(first); 2], [P::splat(first); 2]);
    let mut chunks = vs.chunks_exact(LANES);
    for chunk in &mut chunks {
        let pairs = [P::new(chunk[0], chunk[1]), P::new(chunk[2], chunk[3])];
        for lane in 0..2 {
            lo[lane] = P::pmin(lo[lane], pairs[lane]);
            hi[lane] = P::pmax(hi[lane], pairs[lane]);
        }
    }
    let (lo, hi) = (P::pmin(lo[0], lo[1]), P::pmax(hi[0], hi[1]));
    lanes_and_rest(first, &lo.lanes(), &hi.lanes(), chunks.remainder())
}

/// The lane type of [`Kernel::Simd`] on this target.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Lanes = simd128::Simd128;
/// The lane type of [`Kernel::Simd`] on this target.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
type Lanes = Portable;

/// [`F64x2`] in plain Rust: what simd128 does, one lane at a time.
#[cfg(any(test, not(all(target_arch = "wasm32", target_feature = "simd128"))))]
#[derive(Clone, Copy)]
pub(crate) struct Portable([f64; 2]);

#[cfg(any(test, not(all(target_arch = "wasm32", target_feature = "simd128"))))]
impl F64x2 for Portable {
    #[inline(always)]
    fn splat(x: f64) -> Self {
        Portable([x; 2])
    }
    #[inline(always)]
    fn new(a: f64, b: f64) -> Self {
        Portable([a, b])
    }
    #[inline(always)]
    fn pmin(a: Self, b: Self) -> Self {
        Portable([0, 1].map(|i| if b.0[i] < a.0[i] { b.0[i] } else { a.0[i] }))
    }
    #[inline(always)]
    fn pmax(a: Self, b: Self) -> Self {
        Portable([0, 1].map(|i| if a.0[i] < b.0[i] { b.0[i] } else { a.0[i] }))
    }
    #[inline(always)]
    fn lanes(self) -> [f64; 2] {
        self.0
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::{f64x2, f64x2_extract_lane, f64x2_pmax, f64x2_pmin, f64x2_splat, v128};

    /// [`F64x2`](super::F64x2) in one simd128 register.
    #[derive(Clone, Copy)]
    pub struct Simd128(v128);

    impl super::F64x2 for Simd128 {
        #[inline(always)]
        fn splat(x: f64) -> Self {
            Simd128(f64x2_splat(x))
        }
        #[inline(always)]
        fn new(a: f64, b: f64) -> Self {
            Simd128(f64x2(a, b))
        }
        #[inline(always)]
        fn pmin(a: Self, b: Self) -> Self {
            Simd128(f64x2_pmin(a.0, b.0))
        }
        #[inline(always)]
        fn pmax(a: Self, b: Self) -> Self {
            Simd128(f64x2_pmax(a.0, b.0))
        }
        #[inline(always)]
        fn lanes(self) -> [f64; 2] {
            [f64x2_extract_lane::<0>(self.0), f64x2_extract_lane::<1>(self.0)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// The first positions of the minimum and maximum, point by point.
    fn plain_extremes(vs: &[f64]) -> (usize, usize) {
        let min = (0..vs.len()).fold(0, |m, k| if vs[k] < vs[m] { k } else { m });
        let max = (0..vs.len()).fold(0, |m, k| if vs[k] > vs[m] { k } else { m });
        (min, max)
    }

    #[test]
    fn both_kernels_find_the_first_extremes() {
        let mut next = xorshift(0x5851_F42D_4C95_7F2D);
        // Both zeros, infinities and ties among ordinary values; every
        // length up to a few chunks, so each remainder length occurs.
        let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 7.0, f64::MIN_POSITIVE, -f64::MAX];
        for case in 0..3000 {
            let n = case % 37 + 1;
            let vs: Vec<f64> = (0..n)
                .map(|_| if next().is_multiple_of(3) { special[(next() % 7) as usize] } else { (next() % 64) as f64 - 32.0 })
                .collect();
            let want = plain_extremes(&vs);
            assert_eq!(extremes(&vs, Kernel::Scalar), want, "scalar, case {case}: {vs:?}");
            assert_eq!(extremes(&vs, Kernel::Simd), want, "simd, case {case}: {vs:?}");
        }
    }

    #[test]
    fn the_lane_type_selects_as_simd128_does() {
        // pmin/pmax are not IEEE min/max: on equal operands (both zeros) they
        // keep the first, and a NaN in the second operand is never taken.
        let (a, b) = (Portable::new(0.0, 1.0), Portable::new(-0.0, f64::NAN));
        assert_eq!(Portable::pmin(a, b).lanes().map(f64::to_bits), [0.0f64.to_bits(), 1.0f64.to_bits()]);
        assert_eq!(Portable::pmax(a, b).lanes().map(f64::to_bits), [0.0f64.to_bits(), 1.0f64.to_bits()]);
        let (a, b) = (Portable::new(2.0, -3.0), Portable::new(1.0, 5.0));
        assert_eq!(Portable::pmin(a, b).lanes(), [1.0, -3.0]);
        assert_eq!(Portable::pmax(a, b).lanes(), [2.0, 5.0]);
        assert_eq!(pairs::<Portable>(&[]), (0.0, 0.0));
        assert_eq!(pairs::<Portable>(&[3.0, -1.0, 8.0, 2.0, -4.0]), (-4.0, 8.0));
    }
}
