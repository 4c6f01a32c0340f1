//! batch-avx2: the AVX2 backend, four independent operations per 256-bit register.
//!
//! Numbers are 28-bit digits in the 64-bit lanes of `__m256i`, transposed so register `i`
//! holds digit `i` of four operations (`field`); one Montgomery kernel, generic over the
//! digit count, serves RSA moduli of 1024 … 15360 bits and the three curve fields.
//! - `modexp`: fixed-window constant-time and square-and-multiply `_vartime`
//!   exponentiation, four jobs (possibly four different moduli) per group.
//! - `ecc`: complete Renes–Costello–Batina formulas on four lanes; comb `k·G`, fixed-window
//!   `k·Q`, and `u₁·G + u₂·Q`; batch inversion for affine results.
//!
//! Batches that are not a multiple of four: a last group of three is padded (its fourth lane
//! does throw-away work); a remainder of one or two jobs runs on the scalar code instead
//! (`batch-core`'s `DynMonty`, `batch-scalar`'s `ecc`), because one 4-lane group measured as
//! costly as two to four scalar jobs (see `modexp` and `ecc`).
//!
//! Measured (`examples/avx2bench.rs`, one worker thread each, `RAYON_NUM_THREADS=1`, CPU
//! time, best of 2×9 runs of batch 128, shared 2-vCPU Xeon with AVX-512, 2026-11-30; the
//! machine was busy, single runs vary ±30 %), AVX2 against scalar: modexp on 1024-bit CRT
//! halves 1.56×, 1536: 1.75×, 2048: 1.6×, 3840: 1.7×; `_vartime` e = 65537 on 2048/4096-bit
//! moduli 1.6×/1.85×; RSA-2048 sign through batchsig 1.48×. P-256 `k·G` 0.94×, `k·Q` 1.03×,
//! sign through batchsig 0.95×; P-384 `k·G` 1.36×, `k·Q` 2.2×, sign 1.11×; P-521 `k·G`
//! 1.0×, `k·Q` 1.1×. `u₁·G + u₂·Q` loses: 0.50× (P-256), 0.93× (P-384), 0.63× (P-521) —
//! four lanes in lockstep cannot skip additions as the scalar wNAF does.
//!
//! The scalar remainder of a modexp batch runs on a `mulx`/`adcx`/`adox` Montgomery kernel
//! where the CPU has BMI2 and ADX (`simd::Adx`, [`adx_kernel`]; batch-core's portable kernel
//! elsewhere): two carry chains in flight, which portable Rust cannot express. Measured on
//! Zen 3 (`examples/adxbench.rs`): 1.3× the portable product at 16 limbs, 2× at 32, the
//! squaring 1.25× and 1.75×; a single RSA-2048 verification (one job, the tail) about 1.5×.
//!
//! AVX2 is detected once at run time (`simd::detect`); on other CPUs and targets the
//! backend compiles, reports itself unavailable with the reason, and every call returns
//! [`Error::Unavailable`]. `unsafe` lives in `simd` only.
#![deny(unsafe_code)]

pub mod digits;
#[cfg(target_arch = "x86_64")]
mod ecc;
#[cfg(target_arch = "x86_64")]
mod field;
#[cfg(target_arch = "x86_64")]
mod modexp;
#[cfg(target_arch = "x86_64")]
mod simd;

use std::sync::OnceLock;

/// Jobs under one point from which a verification batch builds a comb table for that point
/// (`batch_core::shared`; the table is built by scalar code). Measured with `avx2bench` and
/// callgrind (AMD EPYC, P-256 and P-384, 256 jobs, threshold lowered to 2): even at 4 jobs a
/// point, 0.75× the instructions of one point per job at 8, 0.55× at 16 (docs/PERF.md,
/// "Shared-key verification on avx2").
pub const SHARED_POINT_MIN: usize = 8;

use batch_core::backend::{check_batch, check_caches};
use batch_core::pool::Pool;
use batch_core::{
    AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob, ModulusCache,
};

#[cfg(target_arch = "x86_64")]
use simd::Avx2;

/// Stand-in for the AVX2 proof on other targets: never constructed.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum Avx2 {}

/// The detection result, computed once per process.
fn detected() -> &'static Result<Avx2, String> {
    static D: OnceLock<Result<Avx2, String>> = OnceLock::new();
    D.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            simd::detect()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Err(format!(
                "AVX2 is an x86-64 extension; this is {}",
                std::env::consts::ARCH
            ))
        }
    })
}

/// The `mulx`/`adx` proof for the scalar tail's Montgomery kernel, detected once per process;
/// `None` where the CPU lacks BMI2 or ADX (the tail then runs batch-core's portable kernel).
#[cfg(target_arch = "x86_64")]
fn adx() -> &'static Option<simd::Adx> {
    static D: OnceLock<Option<simd::Adx>> = OnceLock::new();
    D.get_or_init(|| simd::detect_adx().ok())
}

/// The `mulx`/`adcx`/`adox` Montgomery kernel where this CPU has BMI2 and ADX (what the
/// backend's scalar tail runs on), for benches and for other backends' scalar paths.
pub fn adx_kernel() -> Option<&'static dyn batch_core::num::MontKernel> {
    #[cfg(target_arch = "x86_64")]
    {
        adx()
            .as_ref()
            .map(|k| k as &dyn batch_core::num::MontKernel)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// batch-scalar's point code on the fastest field this crate has for the curve on this CPU
/// (P-256 on `mulx`/`adcx`/`adox` where the CPU has BMI2 and ADX, the portable field
/// otherwise): what this backend runs P-256 and its one- or two-job remainders on, and what
/// the AVX-512 backend runs its remainders on. Same signatures and results as
/// `batch_scalar::ecc`.
pub mod scalar_ecc {
    #[cfg(target_arch = "x86_64")]
    pub use crate::ecc::scalar::{has_fast_field, mul_base, mul_double_vartime, mul_point};
    #[cfg(not(target_arch = "x86_64"))]
    pub use batch_scalar::ecc::{mul_base, mul_double_vartime, mul_point};

    /// Whether `curve` runs on a field of this crate here: never on this target.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn has_fast_field(_: batch_core::Curve) -> bool {
        false
    }
}

/// The AVX2 backend. `Default` uses rayon's global pool (all cores).
#[derive(Clone, Default)]
pub struct Avx2Backend {
    pool: Pool,
    /// Every curve on the 4-lane code, even where a `mulx`/`adx` field would take it.
    lanes_only: bool,
}

impl core::fmt::Debug for Avx2Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Avx2Backend")
            .field("threads", &self.threads())
            .field("lanes_only", &self.lanes_only)
            .field("available", &self.availability())
            .finish()
    }
}

impl Avx2Backend {
    /// Uses rayon's global pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses a private pool of `threads` threads (`1` for single-core figures).
    pub fn with_threads(threads: usize) -> Result<Self, Error> {
        Ok(Self {
            pool: Pool::with_threads("batch-avx2", threads)?,
            lanes_only: false,
        })
    }

    /// The same backend with P-256, P-384 and P-521 on the 4-lane code even where the CPU has
    /// BMI2 and ADX (which otherwise run them on the scalar point code's `mulx`/`adcx`/`adox`
    /// fields, measured faster): what a CPU with AVX2 but without ADX runs, so that its tests
    /// and measurements run on CPUs that have ADX. One- or two-job remainders stay on the
    /// scalar point code, as always.
    pub fn lanes_only(self) -> Self {
        Self {
            lanes_only: true,
            ..self
        }
    }

    /// Threads the batch is spread over.
    pub fn threads(&self) -> usize {
        self.pool.threads()
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
        Ok(self.install(jobs.len(), || imp::modexp(t, moduli, caches, jobs, vartime)))
    }

    /// The AVX2 proof, or the batch-level error.
    fn token(&self) -> Result<Avx2, Error> {
        detected()
            .as_ref()
            .copied()
            .map_err(|why| Error::Unavailable(format!("avx2: {why}")))
    }

    /// Runs a batch of `jobs` jobs in the pool (a one-job batch on the calling thread).
    fn install<T: Send>(&self, jobs: usize, f: impl FnOnce() -> T + Send) -> T {
        self.pool.install_batch(jobs, f)
    }
}

impl Backend for Avx2Backend {
    fn name(&self) -> &'static str {
        "avx2"
    }

    fn description(&self) -> String {
        // both fields need the same instructions (BMI2, ADX)
        let p256 = if !self.lanes_only && scalar_ecc::has_fast_field(Curve::P256) {
            "; P-256, P-384, P-521: scalar point code on mulx/adcx/adox fields"
        } else {
            ""
        };
        format!(
            "CPU AVX2, 4 lanes x 28-bit digits, vpmuludq Montgomery{p256}, {} thread(s)",
            self.threads()
        )
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
        let t = self.token()?;
        check_batch(scalars.len(), &[])?;
        Ok(self.install(scalars.len(), || {
            imp::mul_base(t, curve, scalars, self.lanes_only)
        }))
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let t = self.token()?;
        check_batch(scalars.len(), &[("points", points.len())])?;
        Ok(self.install(scalars.len(), || {
            imp::mul_point(t, curve, points, scalars, self.lanes_only)
        }))
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let t = self.token()?;
        check_batch(u1.len(), &[("u2", u2.len()), ("points", points.len())])?;
        Ok(self.install(u1.len(), || {
            imp::mul_double_vartime(t, curve, u1, u2, points, self.lanes_only)
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
        t: Avx2,
        _: &[&[u64]],
        _: Option<&[&ModulusCache]>,
        _: &[ModexpJob<'_>],
        _: bool,
    ) -> Vec<JobResult<Vec<u64>>> {
        match t {}
    }
    pub fn mul_base(t: Avx2, _: Curve, _: &[EcUint], _: bool) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }
    pub fn mul_point(
        t: Avx2,
        _: Curve,
        _: &[AffinePoint],
        _: &[EcUint],
        _: bool,
    ) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }
    pub fn mul_double_vartime(
        t: Avx2,
        _: Curve,
        _: &[EcUint],
        _: &[EcUint],
        _: &[AffinePoint],
        _: bool,
    ) -> Vec<JobResult<AffinePoint>> {
        match t {}
    }
}
