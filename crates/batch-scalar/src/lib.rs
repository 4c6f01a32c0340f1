//! batch-scalar: the CPU reference backend.
//!
//! Numbers are 64-bit limbs in Montgomery form ([`batch_core::num`]); each operation of a batch
//! runs on one core, and rayon spreads the batch across the backend's thread pool.
//! - [`modexp`]: fixed-window constant-time exponentiation (full-table scans), sized by
//!   monomorphised limb counts so every size runs a fully unrolled kernel.
//! - [`ecc`]: complete Renes–Costello–Batina formulas, a comb table for `k·G`, fixed windows for
//!   `k·Q`, interleaved wNAF for `u₁·G + u₂·Q`, batch inversion for affine results.
#![forbid(unsafe_code)]

pub mod ecc;
pub mod modexp;

use batch_core::backend::check_batch;
use batch_core::pool::Pool;
use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob};

/// The CPU scalar backend. `Default` uses rayon's global pool (all cores).
#[derive(Clone, Default)]
pub struct ScalarBackend {
    pool: Pool,
}

impl core::fmt::Debug for ScalarBackend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScalarBackend")
            .field("threads", &self.threads())
            .finish()
    }
}

impl ScalarBackend {
    /// Uses rayon's global pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses a private pool of `threads` threads (`1` for single-core figures).
    pub fn with_threads(threads: usize) -> Result<Self, Error> {
        Ok(Self {
            pool: Pool::with_threads("batch-scalar", threads)?,
        })
    }

    /// Threads the batch is spread over.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Runs a batch of `jobs` jobs in the pool (a one-job batch on the calling thread).
    fn install<T: Send>(&self, jobs: usize, f: impl FnOnce() -> T + Send) -> T {
        self.pool.install_batch(jobs, f)
    }
}

impl Backend for ScalarBackend {
    fn name(&self) -> &'static str {
        "scalar"
    }

    fn description(&self) -> String {
        format!(
            "CPU scalar, 64-bit limbs, Montgomery CIOS, {} thread(s)",
            self.threads()
        )
    }

    fn availability(&self) -> Availability {
        Availability::Available
    }

    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_batch(jobs.len(), &[])?;
        Ok(self.install(jobs.len(), || modexp::modexp_batch(moduli, jobs, false)))
    }

    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_batch(jobs.len(), &[])?;
        Ok(self.install(jobs.len(), || modexp::modexp_batch(moduli, jobs, true)))
    }

    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        check_batch(scalars.len(), &[])?;
        Ok(self.install(scalars.len(), || ecc::mul_base(curve, scalars)))
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        check_batch(scalars.len(), &[("points", points.len())])?;
        Ok(self.install(scalars.len(), || ecc::mul_point(curve, points, scalars)))
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        check_batch(u1.len(), &[("u2", u2.len()), ("points", points.len())])?;
        Ok(self.install(u1.len(), || ecc::mul_double_vartime(curve, u1, u2, points)))
    }
}
