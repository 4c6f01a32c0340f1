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
use batch_scalar::ecc::{self as scalar, CurveSpec};

use crate::simd::p256::P256Adx;
use crate::simd::p384::P384Adx;
use crate::simd::p521::P521Adx;

/// P-256 on the `mulx`/`adx` field.
#[derive(Debug)]
struct SpecP256Adx;

/// The field, where this CPU has BMI2 and ADX.
pub fn p256_adx() -> Option<&'static P256Adx> {
    static F: OnceLock<Option<P256Adx>> = OnceLock::new();
    F.get_or_init(|| crate::adx().map(|a| a.p256())).as_ref()
}

impl CurveSpec<4> for SpecP256Adx {
    type Arith = P256Adx;
    #[inline(always)]
    fn arith() -> &'static P256Adx {
        p256_adx().expect("SpecP256Adx is used only where p256_adx() is Some")
    }
    fn table() -> &'static CombTable<4> {
        table_p256()
    }
}

/// P-384 on the `mulx`/`adx` field.
#[derive(Debug)]
struct SpecP384Adx;

/// The field, where this CPU has BMI2 and ADX.
pub fn p384_adx() -> Option<&'static P384Adx> {
    static F: OnceLock<Option<P384Adx>> = OnceLock::new();
    F.get_or_init(|| crate::adx().map(|a| a.p384())).as_ref()
}

impl CurveSpec<6> for SpecP384Adx {
    type Arith = P384Adx;
    #[inline(always)]
    fn arith() -> &'static P384Adx {
        p384_adx().expect("SpecP384Adx is used only where p384_adx() is Some")
    }
    fn table() -> &'static CombTable<6> {
        table_p384()
    }
}

/// P-521 on the field with its product on `mulx`/`adx`.
#[derive(Debug)]
struct SpecP521Adx;

/// The field, where this CPU has BMI2 and ADX.
pub fn p521_adx() -> Option<&'static P521Adx> {
    static F: OnceLock<Option<P521Adx>> = OnceLock::new();
    F.get_or_init(|| crate::adx().map(|a| a.p521())).as_ref()
}

impl CurveSpec<9> for SpecP521Adx {
    type Arith = P521Adx;
    #[inline(always)]
    fn arith() -> &'static P521Adx {
        p521_adx().expect("SpecP521Adx is used only where p521_adx() is Some")
    }
    fn table() -> &'static CombTable<9> {
        table_p521()
    }
}

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
