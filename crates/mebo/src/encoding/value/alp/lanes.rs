//! Two f64 lanes for the (e, f) search: SSE2 natively (part of every x86-64),
//! simd128 in the wasm simd build, two plain `f64`s elsewhere. Only the
//! operations the search needs, each lane computed exactly as the scalar
//! expression would be (IEEE multiply, add, compare), so the lane estimate
//! equals the scalar one; the tests in `encode.rs` compare them.

#[cfg(target_arch = "x86_64")]
// SAFETY (every `unsafe` here): each is one SSE2 intrinsic on values, no
// memory access, and SSE2 is part of the x86-64 baseline, present on every
// CPU this code can run on (the intrinsics are `unsafe` only because they are
// `#[target_feature]` functions).
#[allow(unsafe_code)]
mod imp {
    use std::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub struct F64x2(__m128d);

    impl F64x2 {
        #[inline(always)]
        pub fn new(lo: f64, hi: f64) -> F64x2 {
            unsafe { F64x2(_mm_set_pd(hi, lo)) }
        }
        #[inline(always)]
        pub fn splat(x: f64) -> F64x2 {
            unsafe { F64x2(_mm_set1_pd(x)) }
        }
        #[inline(always)]
        pub fn mul(self, o: F64x2) -> F64x2 {
            unsafe { F64x2(_mm_mul_pd(self.0, o.0)) }
        }
        #[inline(always)]
        pub fn add(self, o: F64x2) -> F64x2 {
            unsafe { F64x2(_mm_add_pd(self.0, o.0)) }
        }
        #[inline(always)]
        pub fn sub(self, o: F64x2) -> F64x2 {
            unsafe { F64x2(_mm_sub_pd(self.0, o.0)) }
        }
        /// Each lane: `self == o ? when_equal : when_not`.
        #[inline(always)]
        pub fn select_eq(self, o: F64x2, when_equal: F64x2, when_not: F64x2) -> F64x2 {
            unsafe {
                let mask = _mm_cmpeq_pd(self.0, o.0);
                F64x2(_mm_or_pd(_mm_and_pd(mask, when_equal.0), _mm_andnot_pd(mask, when_not.0)))
            }
        }
        /// Lane minimum (no NaN reaches it).
        #[inline(always)]
        pub fn min(self, o: F64x2) -> F64x2 {
            unsafe { F64x2(_mm_min_pd(self.0, o.0)) }
        }
        /// Lane maximum (no NaN reaches it).
        #[inline(always)]
        pub fn max(self, o: F64x2) -> F64x2 {
            unsafe { F64x2(_mm_max_pd(self.0, o.0)) }
        }
        #[inline(always)]
        pub fn lanes(self) -> [f64; 2] {
            unsafe { [_mm_cvtsd_f64(self.0), _mm_cvtsd_f64(_mm_unpackhi_pd(self.0, self.0))] }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use std::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub struct F64x2(v128);

    impl F64x2 {
        #[inline(always)]
        pub fn new(lo: f64, hi: f64) -> F64x2 {
            F64x2(f64x2(lo, hi))
        }
        #[inline(always)]
        pub fn splat(x: f64) -> F64x2 {
            F64x2(f64x2_splat(x))
        }
        #[inline(always)]
        pub fn mul(self, o: F64x2) -> F64x2 {
            F64x2(f64x2_mul(self.0, o.0))
        }
        #[inline(always)]
        pub fn add(self, o: F64x2) -> F64x2 {
            F64x2(f64x2_add(self.0, o.0))
        }
        #[inline(always)]
        pub fn sub(self, o: F64x2) -> F64x2 {
            F64x2(f64x2_sub(self.0, o.0))
        }
        /// Each lane: `self == o ? when_equal : when_not`.
        #[inline(always)]
        pub fn select_eq(self, o: F64x2, when_equal: F64x2, when_not: F64x2) -> F64x2 {
            F64x2(v128_bitselect(when_equal.0, when_not.0, f64x2_eq(self.0, o.0)))
        }
        /// Lane minimum (no NaN reaches it).
        #[inline(always)]
        pub fn min(self, o: F64x2) -> F64x2 {
            F64x2(f64x2_pmin(self.0, o.0))
        }
        /// Lane maximum (no NaN reaches it).
        #[inline(always)]
        pub fn max(self, o: F64x2) -> F64x2 {
            F64x2(f64x2_pmax(self.0, o.0))
        }
        #[inline(always)]
        pub fn lanes(self) -> [f64; 2] {
            [f64x2_extract_lane::<0>(self.0), f64x2_extract_lane::<1>(self.0)]
        }
    }
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
mod imp {
    #[derive(Clone, Copy)]
    pub struct F64x2([f64; 2]);

    impl F64x2 {
        #[inline(always)]
        pub fn new(lo: f64, hi: f64) -> F64x2 {
            F64x2([lo, hi])
        }
        #[inline(always)]
        pub fn splat(x: f64) -> F64x2 {
            F64x2([x; 2])
        }
        #[inline(always)]
        pub fn mul(self, o: F64x2) -> F64x2 {
            F64x2([self.0[0] * o.0[0], self.0[1] * o.0[1]])
        }
        #[inline(always)]
        pub fn add(self, o: F64x2) -> F64x2 {
            F64x2([self.0[0] + o.0[0], self.0[1] + o.0[1]])
        }
        #[inline(always)]
        pub fn sub(self, o: F64x2) -> F64x2 {
            F64x2([self.0[0] - o.0[0], self.0[1] - o.0[1]])
        }
        /// Each lane: `self == o ? when_equal : when_not`.
        #[inline(always)]
        pub fn select_eq(self, o: F64x2, when_equal: F64x2, when_not: F64x2) -> F64x2 {
            let pick = |l: usize| if self.0[l] == o.0[l] { when_equal.0[l] } else { when_not.0[l] };
            F64x2([pick(0), pick(1)])
        }
        /// Lane minimum (no NaN reaches it).
        #[inline(always)]
        pub fn min(self, o: F64x2) -> F64x2 {
            F64x2([self.0[0].min(o.0[0]), self.0[1].min(o.0[1])])
        }
        /// Lane maximum (no NaN reaches it).
        #[inline(always)]
        pub fn max(self, o: F64x2) -> F64x2 {
            F64x2([self.0[0].max(o.0[0]), self.0[1].max(o.0[1])])
        }
        #[inline(always)]
        pub fn lanes(self) -> [f64; 2] {
            self.0
        }
    }
}

pub(super) use imp::F64x2;
