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
//!
//! The job checks below run on secret inputs (CRT halves, nonces, ECDH scalars and points):
//! each computes its verdict with constant-time masks and branches only on that verdict, which
//! is public (an invalid job gets an error). `scripts/ct-check.sh` checks this under Valgrind.

use crate::ct::{declassify_mask, lt_mask};
use crate::curve::{AffinePoint, Curve, EcUint};
use crate::error::{Error, JobResult};
use crate::num::bits_public;

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

    /// The curves its elliptic-curve operations implement (every curve unless it says
    /// otherwise). For a curve not listed, those operations fail the batch with
    /// [`Error::Unavailable`]; routing and benchmarks ask here first.
    fn curves(&self) -> &'static [Curve] {
        &Curve::ALL
    }

    /// `base^exponent mod m` for every job, constant-time in base and exponent.
    /// `moduli` are odd, `> 1`, at most [`MAX_MODULUS_BITS`] bits; results have the limb count
    /// of their modulus.
    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error>;

    /// As [`Backend::modexp`], variable-time: for public exponents and bases only.
    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error>;

    /// Fixed-base `k·G` for every scalar `k < n`, constant-time; affine results.
    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error>;

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
        return Err(Error::BatchTooLarge {
            len,
            max: MAX_BATCH,
        });
    }
    for &(what, got) in others {
        if got != len {
            return Err(Error::LengthMismatch {
                what,
                expected: len,
                got,
            });
        }
    }
    Ok(())
}

/// Validates a modulus for modexp: odd, `> 1`, at most `max_bits` bits. Moduli may be secret
/// (RSA-CRT primes): constant-time except for the bit length, which is public by design
/// ([`crate::num::bits_public`]).
pub fn check_modulus(m: &[u64], max_bits: usize) -> Result<(), Error> {
    let bits = bits_public(m);
    if bits > max_bits {
        return Err(Error::ModulusTooLarge { bits, max_bits });
    }
    if bits < 2 {
        return Err(Error::InvalidModulus("must be greater than 1"));
    }
    if !declassify_mask(crate::num::mask_from_bit(m[0] & 1)) {
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
    let m = moduli.get(job.modulus).ok_or(Error::NoSuchModulus {
        index: job.modulus,
        moduli: moduli.len(),
    })?;
    modulus_ok[job.modulus].clone()?;
    // The base is secret (`c mod p` in RSA-CRT): compare in constant time.
    if !declassify_mask(lt_mask(job.base, m)) {
        return Err(Error::BaseOutOfRange);
    }
    Ok(())
}

/// Validates a scalar: below the curve order. Constant-time in `k` (a nonce or secret key).
pub fn check_scalar(curve: Curve, k: &EcUint) -> Result<(), Error> {
    if !declassify_mask(k.ct_lt_mask(&curve.order())) {
        return Err(Error::ScalarOutOfRange { curve });
    }
    Ok(())
}

/// Validates a point: on the curve (the identity is allowed). Constant-time in `q`.
pub fn check_point(curve: Curve, q: &AffinePoint) -> Result<(), Error> {
    if !declassify_mask(curve.on_curve_mask(q)) {
        return Err(Error::PointNotOnCurve { curve });
    }
    Ok(())
}

/// Validates one `k·Q` job in the order every backend reports: the scalar, then the point.
/// Constant-time in `k` and `Q` (only the verdicts are public).
pub fn check_point_job(curve: Curve, k: &EcUint, q: &AffinePoint) -> Result<(), Error> {
    check_scalar(curve, k)?;
    check_point(curve, q)
}

/// Validates one `u₁·G + u₂·Q` job in the order every backend reports: `u₁`, `u₂`, then `Q`.
/// The inputs are public here; the same constant-time checks serve (they cost little).
pub fn check_double_job(
    curve: Curve,
    u1: &EcUint,
    u2: &EcUint,
    q: &AffinePoint,
) -> Result<(), Error> {
    check_scalar(curve, u1)?;
    check_point_job(curve, u2, q)
}
