//! One or a few jobs, and P-256, P-384 and P-521 wherever the CPU has BMI2 and ADX:
//! batch-scalar's point code (one job at a time, the wNAF verification that skips additions)
//! on the fastest field this CPU has for it. P-256 runs on [`P256Adx`], P-384 on [`P384Adx`]
//! and P-521 on [`P521Adx`] (`mulx`/`adcx`/`adox`, `simd::p256`, `simd::p384`, `simd::p521`)
//! through their own [`CurveSpec`]s; P-224, and every curve without ADX, on batch-scalar's
//! portable field. Same representation, tables and results either way (tests hold the two to each
//! other). The AVX2 backend runs its one- or two-job remainders here, and the AVX-512 backend
//! its own remainders.

use std::sync::OnceLock;

use batch_core::{AffinePoint, Curve, EcUint, JobResult};
use batch_scalar::ecc::comb::{table_p256, table_p384, table_p521, CombTable};
use batch_scalar::ecc::point::ProjectivePoint;
use batch_scalar::ecc::straus::{
    self, g_odd_p256, g_odd_p384, g_odd_p521, DoubleJob, OddMultiples,
};
use batch_scalar::ecc::{self as scalar, CurveSpec};

use crate::simd::p256::P256Adx;
use crate::simd::p384::P384Adx;
use crate::simd::p521::P521Adx;

/// A curve's `mulx`/`adx` field as a [`CurveSpec`]: the spec `$spec` over `$field` (`L =
/// $l`), the accessor `$get` (the field where this CPU has BMI2 and ADX, built once by
/// `Adx::$make`), the comb table `$table`, `G`'s odd multiples `$odd`, and verification's
/// chunk loop `$chunk` (one job at a time or two, `CurveSpec::mul_double_chunk`).
macro_rules! adx_spec {
    ($spec:ident, $field:ty, $l:literal, $get:ident, $make:ident, $table:ident, $odd:ident,
     $chunk:ident) => {
        #[derive(Debug)]
        struct $spec;

        /// The field, where this CPU has BMI2 and ADX.
        pub fn $get() -> Option<&'static $field> {
            static F: OnceLock<Option<$field>> = OnceLock::new();
            F.get_or_init(|| crate::adx().map(|a| a.$make())).as_ref()
        }

        impl CurveSpec<$l> for $spec {
            type Arith = $field;
            #[inline(always)]
            fn arith() -> &'static $field {
                $get().expect(concat!(
                    stringify!($spec),
                    " is used only where ",
                    stringify!($get),
                    "() is Some"
                ))
            }
            fn table() -> &'static CombTable<$l> {
                $table()
            }
            fn g_odd() -> &'static OddMultiples<$l> {
                $odd()
            }
            #[inline(always)]
            fn mul_double_chunk(jobs: &[DoubleJob<$l>]) -> Vec<ProjectivePoint<$l>> {
                straus::$chunk(Self::arith(), $odd(), jobs)
            }
        }
    };
}

adx_spec!(
    SpecP256Adx,
    P256Adx,
    4,
    p256_adx,
    p256,
    table_p256,
    g_odd_p256,
    mul_double_chunk_paired_vartime
);
adx_spec!(
    SpecP384Adx,
    P384Adx,
    6,
    p384_adx,
    p384,
    table_p384,
    g_odd_p384,
    mul_double_chunk_paired_vartime
);
adx_spec!(
    SpecP521Adx,
    P521Adx,
    9,
    p521_adx,
    p521,
    table_p521,
    g_odd_p521,
    mul_double_chunk_vartime
);

/// Whether `curve` runs on a field of this crate here (P-256, P-384 and P-521 with BMI2 and
/// ADX).
pub fn has_fast_field(curve: Curve) -> bool {
    match curve {
        Curve::P256 => p256_adx().is_some(),
        Curve::P384 => p384_adx().is_some(),
        Curve::P521 => p521_adx().is_some(),
        Curve::P224 => false,
    }
}

/// `k·G` for each scalar; constant-time in the scalars.
pub fn mul_base(curve: Curve, scalars: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    if !has_fast_field(curve) {
        scalar::mul_base(curve, scalars)
    } else if curve == Curve::P384 {
        scalar::mul_base_with::<6, SpecP384Adx>(scalars)
    } else if curve == Curve::P521 {
        scalar::mul_base_with::<9, SpecP521Adx>(scalars)
    } else {
        scalar::mul_base_with::<4, SpecP256Adx>(scalars)
    }
}

/// `k·Q` for each pair; constant-time in the scalars and points.
pub fn mul_point(
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    if !has_fast_field(curve) {
        scalar::mul_point(curve, points, scalars)
    } else if curve == Curve::P384 {
        scalar::mul_point_with::<6, SpecP384Adx>(points, scalars)
    } else if curve == Curve::P521 {
        scalar::mul_point_with::<9, SpecP521Adx>(points, scalars)
    } else {
        scalar::mul_point_with::<4, SpecP256Adx>(points, scalars)
    }
}

/// `u₁·G + u₂·Q` for each triple; variable-time (public inputs only).
pub fn mul_double_vartime(
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    if !has_fast_field(curve) {
        scalar::mul_double_vartime(curve, u1, u2, points)
    } else if curve == Curve::P384 {
        scalar::mul_double_with_vartime::<6, SpecP384Adx>(u1, u2, points)
    } else if curve == Curve::P521 {
        scalar::mul_double_with_vartime::<9, SpecP521Adx>(u1, u2, points)
    } else {
        scalar::mul_double_with_vartime::<4, SpecP256Adx>(u1, u2, points)
    }
}
