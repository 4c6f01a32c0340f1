//! The batch-shaped seam between schemes and arithmetic.
//!
//! Every method takes a whole batch and returns one [`JobResult`] per job, in order; the outer
//! `Result` fails only for the whole batch. Inputs are canonical little-endian `u64` limbs
//! (numbers) or seam types from [`crate::curve`]. A backend does per-modulus and per-curve
//! precomputation once per call (or once per process), never per job.
//!
//! Timing contract: `modexp`, `mul_base` and `mul_point` are constant-time in the bases,
//! exponents, scalars and points (their sizes are public); `_vartime` methods may leak
//! everything and are for public data only (RSA verification, ECDSA verification).

use crate::curve::{AffinePoint, Curve, EcUint};
use crate::error::{Error, JobResult};
use crate::num::{bits_vartime, cmp_limbs_vartime};

/// Largest batch a single call accepts; split bigger work.
pub const MAX_BATCH: usize = 1 << 22;

/// Widest modulus any backend is asked to support (RSA-15360).
pub const MAX_MODULUS_BITS: usize = 15360;

/// One modular exponentiation `base^exponent mod moduli[modulus]`.
#[derive(Clone, Copy, Debug)]
pub struct ModexpJob<'a> {
    /// Little-endian limbs, value below the modulus.
    pub base: &'a [u64],
    /// Little-endian limbs; for constant-time calls, every limb is processed.
    pub exponent: &'a [u64],
    /// Index into the batch's moduli.
    pub modulus: usize,
}

/// Whether a backend can run here, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    Available,
    Unavailable(String),
}

impl Availability {
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available)
    }
}

/// Batched arithmetic. Implementations: `batch_scalar::ScalarBackend` (reference), AVX2, wgpu.
pub trait Backend: Send + Sync + core::fmt::Debug {
    /// Short name, as used on command lines (`scalar`, `avx2`, `wgpu`).
    fn name(&self) -> &'static str;

    /// One line describing how it computes (limb size, threads, device).
    fn description(&self) -> String;

    /// Whether it can run on this machine.
    fn availability(&self) -> Availability;

    /// Whether it runs here on an emulation of its hardware (a GPU backend on a software
    /// adapter such as llvmpipe): its results are as good as anywhere, its speed says nothing
    /// about the hardware. `batch-speed --backends all` leaves such backends out unless named.
    fn is_emulated(&self) -> bool {
        false
    }

    /// The curves its elliptic-curve operations implement (all three unless it says
    /// otherwise). For a curve not listed, those operations fail the batch with
    /// [`Error::Unavailable`]; routing and benchmarks ask here first.
    fn curves(&self) -> &'static [Curve] {
        &Curve::ALL
    }

    /// `base^exponent mod m` for every job, constant-time in base and exponent.
    /// `moduli` are odd, `> 1`, at most [`MAX_MODULUS_BITS`] bits; results have the limb count
    /// of their modulus.
    fn modexp(&self, moduli: &[&[u64]], jobs: &[ModexpJob<'_>]) -> Result<Vec<JobResult<Vec<u64>>>, Error>;

    /// As [`Backend::modexp`], variable-time: for public exponents and bases only.
    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error>;

    /// Fixed-base `k·G` for every scalar `k < n`, constant-time; affine results.
    fn mul_base(&self, curve: Curve, scalars: &[EcUint]) -> Result<Vec<JobResult<AffinePoint>>, Error>;

    /// Variable-base `k·Q` for every pair, constant-time in `k` and `Q`; affine results.
    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error>;

    /// `u₁·G + u₂·Q` for every triple, variable-time; affine results.
    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error>;
}

/// Checks batch-wide shape: batch size and parallel lengths.
pub fn check_batch(len: usize, others: &[(&'static str, usize)]) -> Result<(), Error> {
    if len > MAX_BATCH {
        return Err(Error::BatchTooLarge { len, max: MAX_BATCH });
    }
    for &(what, got) in others {
        if got != len {
            return Err(Error::LengthMismatch { what, expected: len, got });
        }
    }
    Ok(())
}

/// Validates a modulus for modexp: odd, `> 1`, at most `max_bits` bits.
pub fn check_modulus(m: &[u64], max_bits: usize) -> Result<(), Error> {
    let bits = bits_vartime(m);
    if bits > max_bits {
        return Err(Error::ModulusTooLarge { bits, max_bits });
    }
    if bits < 2 {
        return Err(Error::InvalidModulus("must be greater than 1"));
    }
    if m[0] & 1 == 0 {
        return Err(Error::InvalidModulus("must be odd (Montgomery arithmetic)"));
    }
    Ok(())
}

/// Validates one modexp job against the batch's moduli (already checked with
/// [`check_modulus`], results in `modulus_ok`).
pub fn check_modexp_job(
    moduli: &[&[u64]],
    modulus_ok: &[Result<(), Error>],
    job: &ModexpJob<'_>,
) -> Result<(), Error> {
    let m = moduli
        .get(job.modulus)
        .ok_or(Error::NoSuchModulus { index: job.modulus, moduli: moduli.len() })?;
    modulus_ok[job.modulus].clone()?;
    if cmp_limbs_vartime(job.base, m) != core::cmp::Ordering::Less {
        return Err(Error::BaseOutOfRange);
    }
    Ok(())
}

/// Validates a scalar: below the curve order.
pub fn check_scalar(curve: Curve, k: &EcUint) -> Result<(), Error> {
    if k.cmp_vartime(&curve.order()) != core::cmp::Ordering::Less {
        return Err(Error::ScalarOutOfRange { curve });
    }
    Ok(())
}

/// Validates a point: on the curve (the identity is allowed).
pub fn check_point(curve: Curve, q: &AffinePoint) -> Result<(), Error> {
    if !curve.is_on_curve_vartime(q) {
        return Err(Error::PointNotOnCurve { curve });
    }
    Ok(())
}

/// Validates one `k·Q` job in the order every backend reports: the scalar, then the point.
pub fn check_point_job(curve: Curve, k: &EcUint, q: &AffinePoint) -> Result<(), Error> {
    check_scalar(curve, k)?;
    check_point(curve, q)
}

/// Validates one `u₁·G + u₂·Q` job in the order every backend reports: `u₁`, `u₂`, then `Q`.
pub fn check_double_job(curve: Curve, u1: &EcUint, u2: &EcUint, q: &AffinePoint) -> Result<(), Error> {
    check_scalar(curve, u1)?;
    check_point_job(curve, u2, q)
}
