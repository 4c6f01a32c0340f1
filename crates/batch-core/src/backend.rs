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
use crate::num::digits::ModulusDigits;

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

    /// [`Backend::modexp_vartime`] with a cache per modulus (`caches[i]` belongs to
    /// `moduli[i]`), which a backend may fill with the forms it prepares from that modulus and
    /// reuse in later calls naming the same cache: what a key object keeps for its lifetime, as
    /// OpenSSL keeps a public key's Montgomery context. The default ignores the caches.
    /// `caches.len() != moduli.len()` fails the batch.
    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_caches(moduli, caches)?;
        self.modexp_vartime(moduli, jobs)
    }

    /// [`Backend::modexp`] with a cache per **secret** modulus (`caches[i]` belongs to
    /// `moduli[i]`, each made by [`ModulusCache::new_secret`]): a private key keeps one per CRT
    /// prime, so a signature skips the constant-time preparation of `R mod p` and `R² mod p`
    /// (the doublings that dominate a single signature's set-up), as OpenSSL keeps the
    /// primes' Montgomery contexts. Public caches are ignored here (their forms come from the
    /// variable-time set-up). The default ignores the caches; `caches.len() != moduli.len()`
    /// fails the batch.
    fn modexp_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_caches(moduli, caches)?;
        self.modexp(moduli, jobs)
    }

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

/// The forms backends prepare from one modulus (digit forms per kernel width, each with
/// `R mod m`, `R² mod m` and its scalar constants), kept between calls by whoever owns the
/// modulus and passed with it. Two kinds, never mixed:
/// - **public** ([`Self::new`]): an RSA public key's `n`, for
///   [`Backend::modexp_vartime_cached`]; forms from the variable-time set-up, looked up by a
///   variable-time comparison.
/// - **secret** ([`Self::new_secret`]): a private key's CRT primes, for
///   [`Backend::modexp_cached`]; forms from the constant-time set-up
///   ([`ModulusDigits::new`]), looked up by a constant-time comparison whose verdict (this
///   cache's modulus or not) is all it reveals, and wiped when dropped (`ModulusDigits`
///   zeroizes itself).
///
/// Each form records its modulus and a lookup compares it, so a cache passed with another
/// modulus never answers with a wrong form (it prepares and keeps one for that modulus too).
#[derive(Debug, Default)]
pub struct ModulusCache {
    forms: std::sync::Mutex<Vec<std::sync::Arc<ModulusDigits>>>,
    secret: bool,
}

impl ModulusCache {
    /// A cache for a public modulus.
    pub fn new() -> Self {
        Self::default()
    }

    /// A cache for a secret modulus (see the type's documentation).
    pub fn new_secret() -> Self {
        Self {
            forms: Default::default(),
            secret: true,
        }
    }

    /// Whether this is a cache for a secret modulus.
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// The form of `m` in `digit_bits`-bit digits for an `n`-digit kernel: from the cache, or
    /// prepared by `prepare` and kept. Two threads that miss together may both prepare it;
    /// one result is kept.
    pub fn get_or_prepare(
        &self,
        m: &[u64],
        n: usize,
        digit_bits: usize,
        prepare: impl FnOnce() -> Result<ModulusDigits, Error>,
    ) -> Result<std::sync::Arc<ModulusDigits>, Error> {
        let same = |d: &ModulusDigits| {
            d.n == n
                && d.digit_bits == digit_bits
                && if self.secret {
                    // limb counts are public (the bit length is); the values are not
                    d.limbs.len() == m.len() && declassify_mask(crate::ct::eq_mask(&d.limbs, m))
                } else {
                    crate::num::cmp_limbs_vartime(&d.limbs, m) == core::cmp::Ordering::Equal
                }
        };
        let lock = || self.forms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = lock().iter().find(|d| same(d)) {
            return Ok(d.clone());
        }
        let d = std::sync::Arc::new(prepare()?);
        if !same(&d) {
            return Err(Error::Backend(format!(
                "prepared a form of {} digits of {} bits for a cache lookup of {n} of {digit_bits}",
                d.n, d.digit_bits
            )));
        }
        let mut forms = lock();
        if let Some(old) = forms.iter().find(|d| same(d)) {
            return Ok(old.clone());
        }
        // A handful of forms at most (one per backend digit size and kernel width).
        if forms.len() >= 8 {
            forms.remove(0);
        }
        forms.push(d.clone());
        Ok(d)
    }

    /// Forms held (for tests and reports).
    pub fn len(&self) -> usize {
        self.forms.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `caches` pairs with `moduli` one to one.
pub fn check_caches(moduli: &[&[u64]], caches: &[&ModulusCache]) -> Result<(), Error> {
    if caches.len() == moduli.len() {
        Ok(())
    } else {
        Err(Error::Backend(format!(
            "{} modulus caches for {} moduli",
            caches.len(),
            moduli.len()
        )))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache keeps one form per (modulus, width, digit size), hands back the kept one, and
    /// never answers a lookup for another modulus or width with it.
    #[test]
    fn modulus_cache_keys_by_modulus_width_and_digits() {
        let c = ModulusCache::new();
        let (m1, m2) = ([0xffff_fff1u64, 0x8000_0000], [0xffff_fff3u64, 0x8000_0000]);
        let prep = |m: &[u64], n, b| ModulusDigits::new_vartime(m, n, b);
        let a = c.get_or_prepare(&m1, 3, 52, || prep(&m1, 3, 52)).unwrap();
        let again = c
            .get_or_prepare(&m1, 3, 52, || panic!("prepared twice"))
            .unwrap();
        assert!(std::sync::Arc::ptr_eq(&a, &again));
        let other_m = c.get_or_prepare(&m2, 3, 52, || prep(&m2, 3, 52)).unwrap();
        let other_n = c.get_or_prepare(&m1, 5, 52, || prep(&m1, 5, 52)).unwrap();
        let other_b = c.get_or_prepare(&m1, 6, 28, || prep(&m1, 6, 28)).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(other_m.limbs, m2);
        assert_eq!((other_n.n, other_n.digit_bits), (5, 52));
        assert_eq!((other_b.n, other_b.digit_bits), (6, 28));
        assert_eq!(a.limbs, m1);
        // a failed preparation is returned and nothing is kept
        let e = c.get_or_prepare(&[3], 1, 52, || Err(Error::Backend("no".into())));
        assert!(e.is_err());
        assert_eq!(c.len(), 4);
    }
}
