//! batch-avx512: the AVX-512 IFMA backend, eight independent operations per 512-bit register
//! (or four per 256-bit register).
//!
//! Numbers are 52-bit digits in the 64-bit lanes, transposed so register `i` holds digit `i`
//! of every lane's number (`field`); products are `vpmadd52luq`/`vpmadd52huq`, which multiply
//! 52-bit digits and add the low or high half of the 104-bit product to a 64-bit lane. One
//! almost-Montgomery kernel, generic over the digit count and the register form, serves RSA
//! moduli of 1024 … 15360 bits (the layout of Intel's crypto_mb and OpenSSL's rsaz-avx512).
//! - `modexp`: fixed-window constant-time and square-and-multiply `_vartime`
//!   exponentiation, a group of jobs (possibly each with its own modulus) per register.
//!
//! - `ecc`: `k·G`, `k·Q` and `u₁·G + u₂·Q` on P-224, P-256, P-384 and P-521, one
//!   job per lane, `batch_core::rcb`'s complete formulas over a lazily reduced 52-bit
//!   Montgomery field.
//!
//! AVX-512F, IFMA and VL are detected once at run time (`simd::detect`); on other CPUs and
//! targets the backend compiles, reports itself unavailable with the reason, and every call
//! returns [`Error::Unavailable`]. `unsafe` lives in `simd` only.
#![deny(unsafe_code)]
// Every `#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]` function here has the same
// one safety condition, the CPU features, which `simd::detect`'s proof token guarantees to
// each caller; it is stated once here rather than as a `# Safety` section on each of them.
#![allow(clippy::missing_safety_doc)]

pub mod digits;
#[cfg(target_arch = "x86_64")]
pub mod ecc;
pub mod field;
#[cfg(target_arch = "x86_64")]
pub mod horizontal;
#[cfg(target_arch = "x86_64")]
pub mod modexp;
#[cfg(target_arch = "x86_64")]
pub mod simd;

use std::sync::OnceLock;

use batch_core::backend::{check_batch, check_caches};
use batch_core::pool::Pool;
use batch_core::{
    AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob, ModulusCache,
};

#[cfg(target_arch = "x86_64")]
use ecc::Form as EcForm;
#[cfg(target_arch = "x86_64")]
use simd::Ifma;

/// Stand-in for the curve code's register form on other targets.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum EcForm {
    Z8,
    Y4,
}

/// Stand-in for the IFMA proof on other targets: never constructed.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum Ifma {}

/// The detection result, computed once per process.
fn detected() -> &'static Result<Ifma, String> {
    static D: OnceLock<Result<Ifma, String>> = OnceLock::new();
    D.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            simd::detect()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Err(format!(
                "AVX-512 IFMA is an x86-64 extension; this is {}",
                std::env::consts::ARCH
            ))
        }
    })
}

/// Whether this CPU has what the backend needs (`Err` says what is missing).
pub fn cpu_support() -> Result<(), String> {
    detected().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Register form of the exponentiation: eight lanes in `zmm` (squaring as a product, or by the
/// dedicated squaring kernel), four in `ymm`, or chosen per kernel width by measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Eight lanes (`zmm`); squarings run the product kernel.
    Eight,
    /// Eight lanes (`zmm`); squarings run the generated squaring kernel at the widths that
    /// have one (20, 30, 40 digits), the product elsewhere.
    EightSquare,
    /// Four lanes (`ymm`); squarings run the generated squaring kernel where there is one.
    Four,
    /// Per kernel width, whichever of the three measured fastest on this CPU the first time
    /// the width is used (cached for the process; `modexp::measured_shape`). On Zen 4 that
    /// was `ymm` up to 40 digits (two `ymm` IFMA per cycle, the `zmm` squaring spills); on
    /// Sapphire Rapids `zmm` with the squaring kernel, about 1.5× faster (docs/PERF.md).
    Measured,
}

impl Lanes {
    /// [`Lanes::Measured`], unless `BATCHSIG_AVX512_LANES` is `4`, `8` or `8s`
    /// ([`Lanes::EightSquare`]).
    pub fn from_env() -> Self {
        match std::env::var("BATCHSIG_AVX512_LANES").as_deref() {
            Ok("4") => Lanes::Four,
            Ok("8") => Lanes::Eight,
            Ok("8s") => Lanes::EightSquare,
            _ => Lanes::Measured,
        }
    }

    /// The register form of the curve code: eight lanes unless four are asked for (`zmm`
    /// measured 10–35 % faster on P-256 and P-384 and level on P-521, Zen 4, `examples/ecbench.rs`).
    fn ec_form(self) -> EcForm {
        match self {
            Lanes::Four => EcForm::Y4,
            Lanes::Eight | Lanes::EightSquare | Lanes::Measured => EcForm::Z8,
        }
    }
}

/// The AVX-512 IFMA backend. `Default` uses rayon's global pool (all cores) and
/// [`Lanes::from_env`].
#[derive(Clone)]
pub struct Avx512Backend {
    pool: Pool,
    lanes: Lanes,
}

impl Default for Avx512Backend {
    fn default() -> Self {
        Self {
            pool: Pool::global(),
            lanes: Lanes::from_env(),
        }
    }
}

impl core::fmt::Debug for Avx512Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Avx512Backend")
            .field("threads", &self.threads())
            .field("lanes", &self.lanes)
            .field("available", &self.availability())
            .finish()
    }
}

impl Avx512Backend {
    /// Uses rayon's global pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses a private pool of `threads` threads (`1` for single-core figures).
    pub fn with_threads(threads: usize) -> Result<Self, Error> {
        Ok(Self {
            pool: Pool::with_threads("batch-avx512", threads)?,
            lanes: Lanes::from_env(),
        })
    }

    /// The same backend with another register form.
    pub fn with_lanes(self, lanes: Lanes) -> Self {
        Self { lanes, ..self }
    }

    /// Threads the batch is spread over.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// The register form.
    pub fn lanes(&self) -> Lanes {
        self.lanes
    }

    /// The three modexp entry points: checks, then the batch on this backend's pool.
    fn run_modexp(
        &self,
        moduli: &[&[u64]],
        caches: Option<&[&ModulusCache]>,
        jobs: &[ModexpJob<'_>],
        vartime: bool,
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let t = self.token()?;
        check_batch(jobs.len(), &[])?;
        if let Some(c) = caches {
            check_caches(moduli, c)?;
        }
        Ok(self.pool.install_batch(jobs.len(), || {
            imp::modexp(t, self.lanes, moduli, caches, jobs, vartime)
        }))
    }

    /// The IFMA proof, or the batch-level error.
    fn token(&self) -> Result<Ifma, Error> {
        detected()
            .as_ref()
            .copied()
            .map_err(|why| Error::Unavailable(format!("avx512: {why}")))
    }

    /// The IFMA proof for an operation on `curve`, or the batch-level error for a curve this
    /// backend does not implement ([`ecc::CURVES`]).
    fn curve_token(&self, curve: Curve) -> Result<Ifma, Error> {
        let t = self.token()?;
        if !ecc::CURVES.contains(&curve) {
            return Err(Error::Unavailable(format!(
                "avx512: {curve} is not implemented on this backend yet"
            )));
        }
        Ok(t)
    }
}

/// The register forms [`Lanes::Measured`] chose on this CPU for RSA's CRT halves (measured
/// here on first use), for the backend's description; curves always run in `zmm`.
fn measured_forms() -> String {
    #[cfg(target_arch = "x86_64")]
    if let Ok(t) = detected() {
        let forms: Vec<String> = [(20, 1024), (30, 1536), (40, 2048)]
            .into_iter()
            .map(|(n, bits)| format!("{bits}: {}", modexp::measured_shape(*t, n).name()))
            .collect();
        return format!(
            "register form measured per width (CRT halves {}; curves zmm)",
            forms.join(", ")
        );
    }
    "register form measured per width".to_string()
}

impl Backend for Avx512Backend {
    fn name(&self) -> &'static str {
        "avx512"
    }

    fn description(&self) -> String {
        let lanes = match self.lanes {
            Lanes::Eight => "8 lanes (zmm)".to_string(),
            Lanes::EightSquare => "8 lanes (zmm), squaring kernel".to_string(),
            Lanes::Four => "4 lanes (ymm)".to_string(),
            Lanes::Measured => measured_forms(),
        };
        format!(
            "CPU AVX-512 IFMA, {lanes} x 52-bit digits, vpmadd52 Montgomery, {} thread(s)",
            self.threads()
        )
    }

    fn curves(&self) -> &'static [Curve] {
        &ecc::CURVES
    }

    fn availability(&self) -> Availability {
        match detected() {
            Ok(_) => Availability::Available,
            Err(why) => Availability::Unavailable(why.clone()),
        }
    }

    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.run_modexp(moduli, None, jobs, false)
    }

    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.run_modexp(moduli, None, jobs, true)
    }

    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.run_modexp(moduli, Some(caches), jobs, true)
    }

    fn modexp_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.run_modexp(moduli, Some(caches), jobs, false)
    }

    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let t = self.curve_token(curve)?;
        check_batch(scalars.len(), &[])?;
        let form = self.lanes.ec_form();
        Ok(self
            .pool
            .install_batch(scalars.len(), || imp::mul_base(t, form, curve, scalars)))
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let t = self.curve_token(curve)?;
        check_batch(scalars.len(), &[("points", points.len())])?;
        let form = self.lanes.ec_form();
        Ok(self.pool.install_batch(scalars.len(), || {
            imp::mul_point(t, form, curve, points, scalars)
        }))
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let t = self.curve_token(curve)?;
        check_batch(u1.len(), &[("u2", u2.len()), ("points", points.len())])?;
        let form = self.lanes.ec_form();
        Ok(self.pool.install_batch(u1.len(), || {
            imp::mul_double_vartime(t, form, curve, u1, u2, points)
        }))
    }
}

/// The operations on x86-64.
#[cfg(target_arch = "x86_64")]
mod imp {
    pub use crate::ecc::{mul_base, mul_double_vartime, mul_point};
    pub use crate::modexp::modexp_batch as modexp;
}

/// Elsewhere there is no proof to call them with: the token is uninhabited.
#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use super::*;

    pub fn modexp(
        t: Ifma,
        _: Lanes,
        _: &[&[u64]],
        _: Option<&[&ModulusCache]>,
        _: &[ModexpJob<'_>],
        _: bool,
    ) -> Vec<JobResult<Vec<u64>>> {
        match t {}
    }

    pub fn mul_base(t: Ifma, _: EcForm, _: Curve, _: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }

    pub fn mul_point(
        t: Ifma,
        _: EcForm,
        _: Curve,
        _: &[AffinePoint],
        _: &[EcUint],
    ) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }

    pub fn mul_double_vartime(
        t: Ifma,
        _: EcForm,
        _: Curve,
        _: &[EcUint],
        _: &[EcUint],
        _: &[AffinePoint],
    ) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }
}
