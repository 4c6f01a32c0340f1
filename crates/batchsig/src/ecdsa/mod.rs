//! ECDSA (FIPS 186-5, SEC 1) on P-224, P-256, P-384 and P-521 in batches over any [`Backend`].
//!
//! Signing, per job: `e = bits2int(H(m)) mod n`; nonce `k` from RFC 6979, hedged with fresh
//! randomness by default; the backend computes `R = k·G` for the batch; **`R` is checked to
//! be on the curve** (a faulty `k·G` can leak the key) and not the identity; `r = R.x mod n`;
//! all `k⁻¹` of the batch with one inversion (Montgomery's trick, safegcd); `s = k⁻¹(e + r·d) mod n`.
//! Scalar arithmetic mod `n` is constant-time Montgomery from `batch-core`.
//!
//! Verification: `w = s⁻¹`, `u₁ = e·w`, `u₂ = r·w`; the backend computes `u₁·G + u₂·Q`
//! (variable-time, public data); valid iff the result is not the identity and `x mod n = r`.

mod key;
pub mod rfc6979;
mod signature;

use batch_core::curve::{CurveDef, P224, P256, P384, P521};
use batch_core::num::Uint;
use batch_core::{Backend, Curve, EcUint, Error, JobResult};
use rand_core::CryptoRng;
use rayon::prelude::*;
use zeroize::Zeroizing;

#[cfg(feature = "rustcrypto")]
pub(crate) use key::curve_from_oid;
pub use key::{curve_oid, EcdsaPrivateKey, EcdsaPublicKey};
pub use signature::EcdsaSignature;

use crate::batch::{check_not_empty, os_seeded_rng};
use crate::hash::HashAlg;

/// How nonces are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NonceMode {
    /// RFC 6979 with 32 fresh random bytes as additional data (§3.6). The default.
    #[default]
    Hedged,
    /// Pure RFC 6979: deterministic, for known-answer tests and byte-for-byte comparisons.
    Deterministic,
}

/// The hash a curve is normally paired with (and the one RFC 6979's HMAC uses here).
pub const fn curve_hash(curve: Curve) -> HashAlg {
    match curve {
        Curve::P224 => HashAlg::Sha224,
        Curve::P256 => HashAlg::Sha256,
        Curve::P384 => HashAlg::Sha384,
        Curve::P521 => HashAlg::Sha512,
    }
}

/// One signing job of a multi-key batch.
#[derive(Clone, Copy, Debug)]
pub struct EcdsaSignJob<'a> {
    pub key: &'a EcdsaPrivateKey,
    pub digest: &'a [u8],
}

/// One verification job of a multi-key batch.
#[derive(Clone, Copy, Debug)]
pub struct EcdsaVerifyJob<'a> {
    pub key: &'a EcdsaPublicKey,
    pub digest: &'a [u8],
    pub signature: &'a EcdsaSignature,
}

impl EcdsaPrivateKey {
    /// Signs every message, hashed with the curve's hash ([`curve_hash`]), hedged nonces.
    pub fn sign_batch(
        &self,
        backend: &dyn Backend,
        messages: &[&[u8]],
    ) -> Result<Vec<JobResult<EcdsaSignature>>, Error> {
        let hash = curve_hash(self.curve());
        let digests: Vec<Vec<u8>> = messages.par_iter().map(|m| hash.digest(m)).collect();
        let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        self.sign_digests_batch(backend, hash, &refs, NonceMode::Hedged)
    }

    /// Signs pre-computed digests made with `hash`.
    pub fn sign_digests_batch(
        &self,
        backend: &dyn Backend,
        hash: HashAlg,
        digests: &[&[u8]],
        nonce: NonceMode,
    ) -> Result<Vec<JobResult<EcdsaSignature>>, Error> {
        let jobs: Vec<EcdsaSignJob<'_>> = digests
            .iter()
            .map(|d| EcdsaSignJob {
                key: self,
                digest: d,
            })
            .collect();
        sign_batch(backend, hash, &jobs, nonce, &mut os_seeded_rng()?)
    }
}

impl EcdsaPublicKey {
    /// Verifies every `(message, signature)` pair, messages hashed with the curve's hash.
    pub fn verify_batch(
        &self,
        backend: &dyn Backend,
        messages: &[&[u8]],
        signatures: &[EcdsaSignature],
    ) -> Result<Vec<JobResult<()>>, Error> {
        batch_core::backend::check_batch(messages.len(), &[("signatures", signatures.len())])?;
        let hash = curve_hash(self.curve);
        let digests: Vec<Vec<u8>> = messages.par_iter().map(|m| hash.digest(m)).collect();
        let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        self.verify_digests_batch(backend, hash, &refs, signatures)
    }

    /// Verifies pre-computed digests made with `hash`.
    pub fn verify_digests_batch(
        &self,
        backend: &dyn Backend,
        hash: HashAlg,
        digests: &[&[u8]],
        signatures: &[EcdsaSignature],
    ) -> Result<Vec<JobResult<()>>, Error> {
        batch_core::backend::check_batch(digests.len(), &[("signatures", signatures.len())])?;
        let jobs: Vec<EcdsaVerifyJob<'_>> = digests
            .iter()
            .zip(signatures)
            .map(|(d, s)| EcdsaVerifyJob {
                key: self,
                digest: d,
                signature: s,
            })
            .collect();
        verify_batch(backend, hash, &jobs)
    }
}

/// Signs a multi-key batch (keys may be on different curves: one backend call per curve).
pub fn sign_batch(
    backend: &dyn Backend,
    hash: HashAlg,
    jobs: &[EcdsaSignJob<'_>],
    nonce: NonceMode,
    rng: &mut impl CryptoRng,
) -> Result<Vec<JobResult<EcdsaSignature>>, Error> {
    check_not_empty(jobs.len())?;
    hash.check_signing()?;
    let extra: Vec<[u8; 32]> = jobs
        .iter()
        .map(|_| {
            let mut b = [0u8; 32];
            if nonce == NonceMode::Hedged {
                rng.fill_bytes(&mut b);
            }
            b
        })
        .collect();
    let mut out: Vec<JobResult<EcdsaSignature>> = vec![Err(Error::EmptyBatch); jobs.len()];
    for curve in Curve::ALL {
        let idx: Vec<usize> = (0..jobs.len())
            .filter(|&i| jobs[i].key.curve() == curve)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let sub: Vec<(&EcdsaSignJob<'_>, &[u8])> = idx
            .iter()
            .map(|&i| {
                (
                    &jobs[i],
                    if nonce == NonceMode::Hedged {
                        &extra[i][..]
                    } else {
                        &[][..]
                    },
                )
            })
            .collect();
        let res = match curve {
            Curve::P224 => sign_curve(&P224, backend, hash, &sub)?,
            Curve::P256 => sign_curve(&P256, backend, hash, &sub)?,
            Curve::P384 => sign_curve(&P384, backend, hash, &sub)?,
            Curve::P521 => sign_curve(&P521, backend, hash, &sub)?,
        };
        for (i, r) in idx.into_iter().zip(res) {
            out[i] = r;
        }
    }
    Ok(out)
}

/// Seam value to `L` limbs; constant-time (the limbs above `L` are zero: values below `n`).
fn to_l<const L: usize>(v: &EcUint) -> Uint<L> {
    v.truncate()
}

fn to_seam<const L: usize>(v: &Uint<L>) -> EcUint {
    v.truncate()
}

/// `x mod n` for a coordinate `x < p` (`p < 2n` on these curves). Constant-time: when signing,
/// `x` is R's coordinate, secret until reduced.
fn coord_mod_n(curve: Curve, x: &EcUint) -> EcUint {
    let (d, borrow) = x.sbb(&curve.order());
    EcUint::select(&d, x, batch_core::num::mask_from_bit(borrow))
}

/// Inverts Montgomery-form values mod `n` with one inversion (Montgomery's trick; safegcd,
/// 2–3× faster than Fermat at these sizes: docs/PERF.md). Constant-time unless `vartime`
/// (public values: `s` in verification). Zeros must not be present (callers exclude them).
fn batch_invert<const L: usize>(def: &CurveDef<L>, xs: &[Uint<L>], vartime: bool) -> Vec<Uint<L>> {
    let f = &def.n;
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = *f.one();
    for x in xs {
        acc = f.mul(&acc, x);
        prefix.push(acc);
    }
    let mut inv = if vartime {
        f.inv_vartime(&acc)
    } else {
        f.inv(&acc)
    };
    let mut out = vec![Uint::ZERO; xs.len()];
    for i in (0..xs.len()).rev() {
        out[i] = if i == 0 {
            inv
        } else {
            f.mul(&inv, &prefix[i - 1])
        };
        inv = f.mul(&inv, &xs[i]);
    }
    out
}

/// Chunk size for the per-job scalar work (one inversion per chunk).
const CHUNK: usize = 256;

fn sign_curve<const L: usize>(
    def: &'static CurveDef<L>,
    backend: &dyn Backend,
    hash: HashAlg,
    jobs: &[(&EcdsaSignJob<'_>, &[u8])],
) -> Result<Vec<JobResult<EcdsaSignature>>, Error> {
    let curve = def.curve;
    // e and k per job; a bad digest fails only its job.
    let prepared: Vec<JobResult<(EcUint, Zeroizing<EcUint>)>> = jobs
        .par_iter()
        .map(|(job, extra)| {
            hash.check_digest(job.digest)?;
            let e = rfc6979::bits2int_mod_n(curve, job.digest);
            let k = rfc6979::generate_k(curve, curve_hash(curve), &job.key.d, job.digest, extra);
            Ok((e, k))
        })
        .collect();
    let ok: Vec<usize> = (0..jobs.len()).filter(|&i| prepared[i].is_ok()).collect();
    let ks: Vec<EcUint> = ok
        .iter()
        .map(|&i| *prepared[i].as_ref().expect("ok").1)
        .collect();
    let points = if ks.is_empty() {
        Vec::new()
    } else {
        backend.mul_base(curve, &ks)?
    };
    if points.len() != ks.len() {
        return Err(Error::Backend(format!(
            "mul_base returned {} results for {} jobs",
            points.len(),
            ks.len()
        )));
    }
    let mut out: Vec<JobResult<EcdsaSignature>> = prepared
        .iter()
        .map(|p| {
            p.as_ref()
                .map(|_| unreachable_sig(curve))
                .map_err(Clone::clone)
        })
        .collect();
    let results: Vec<(usize, JobResult<EcdsaSignature>)> = ok
        .par_chunks(CHUNK)
        .zip(points.par_chunks(CHUNK))
        .flat_map_iter(|(idx, pts)| {
            let f = &def.n;
            // r per job, with the fault checks on R.
            let rs: Vec<JobResult<EcUint>> = pts
                .iter()
                .map(|p| {
                    let p = p.as_ref().map_err(Clone::clone)?;
                    // R = k·G is secret (only r is published): constant-time check, public verdict.
                    let on_curve =
                        curve.on_curve_mask(p) & !batch_core::num::mask_from_bit(p.infinity as u64);
                    if !batch_core::ct::declassify_mask(on_curve) {
                        return Err(Error::FaultDetected(
                            "k·G result is not a point on the curve",
                        ));
                    }
                    let mut r = coord_mod_n(curve, &p.x);
                    batch_core::ct::declassify(&mut r); // r is part of the signature
                    if r.is_zero_vartime() {
                        return Err(Error::FaultDetected(
                            "r = 0 (probability 2^-256); sign again",
                        ));
                    }
                    Ok(r)
                })
                .collect();
            let good: Vec<usize> = (0..idx.len()).filter(|&j| rs[j].is_ok()).collect();
            let k_m: Vec<Uint<L>> = good
                .iter()
                .map(|&j| f.to_monty(&to_l(&prepared[idx[j]].as_ref().expect("ok").1)))
                .collect();
            let k_inv = batch_invert(def, &k_m, false);
            let mut res: Vec<(usize, JobResult<EcdsaSignature>)> = (0..idx.len())
                .filter_map(|j| rs[j].as_ref().err().map(|e| (idx[j], Err(e.clone()))))
                .collect();
            for (g, &j) in good.iter().enumerate() {
                let i = idx[j];
                let (e, _) = prepared[i].as_ref().expect("ok");
                let r = *rs[j].as_ref().expect("ok");
                let d_m = Zeroizing::new(f.to_monty(&to_l(&jobs[i].0.key.d)));
                let rd = f.mul(&f.to_monty(&to_l(&r)), &d_m);
                let sum = f.add(&f.to_monty(&to_l(e)), &rd);
                let mut s = to_seam(&f.from_monty(&f.mul(&k_inv[g], &sum)));
                batch_core::ct::declassify(&mut s); // s is the signature
                res.push((
                    i,
                    if s.is_zero_vartime() {
                        Err(Error::FaultDetected(
                            "s = 0 (probability 2^-256); sign again",
                        ))
                    } else {
                        Ok(EcdsaSignature { curve, r, s })
                    },
                ));
            }
            res
        })
        .collect();
    for (i, r) in results {
        out[i] = r;
    }
    Ok(out)
}

fn unreachable_sig(curve: Curve) -> EcdsaSignature {
    EcdsaSignature {
        curve,
        r: EcUint::ZERO,
        s: EcUint::ZERO,
    }
}

/// Verifies a multi-key batch (one backend call per curve). `Ok(())` for a valid signature.
pub fn verify_batch(
    backend: &dyn Backend,
    hash: HashAlg,
    jobs: &[EcdsaVerifyJob<'_>],
) -> Result<Vec<JobResult<()>>, Error> {
    check_not_empty(jobs.len())?;
    let mut out: Vec<JobResult<()>> = vec![Err(Error::EmptyBatch); jobs.len()];
    for curve in Curve::ALL {
        let idx: Vec<usize> = (0..jobs.len())
            .filter(|&i| jobs[i].key.curve == curve)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let sub: Vec<&EcdsaVerifyJob<'_>> = idx.iter().map(|&i| &jobs[i]).collect();
        let res = match curve {
            Curve::P224 => verify_curve(&P224, backend, hash, &sub)?,
            Curve::P256 => verify_curve(&P256, backend, hash, &sub)?,
            Curve::P384 => verify_curve(&P384, backend, hash, &sub)?,
            Curve::P521 => verify_curve(&P521, backend, hash, &sub)?,
        };
        for (i, r) in idx.into_iter().zip(res) {
            out[i] = r;
        }
    }
    Ok(out)
}

fn verify_curve<const L: usize>(
    def: &'static CurveDef<L>,
    backend: &dyn Backend,
    hash: HashAlg,
    jobs: &[&EcdsaVerifyJob<'_>],
) -> Result<Vec<JobResult<()>>, Error> {
    let curve = def.curve;
    let n = curve.order();
    let f = &def.n;
    // Range checks, then w = s⁻¹ for the valid ones.
    let checked: Vec<JobResult<()>> = jobs
        .iter()
        .map(|j| {
            hash.check_digest(j.digest)?;
            let sig = j.signature;
            if sig.curve != curve {
                return Err(Error::MalformedSignature("signature is for another curve"));
            }
            let in_range =
                |v: &EcUint| !v.is_zero_vartime() && v.cmp_vartime(&n) == core::cmp::Ordering::Less;
            if !in_range(&sig.r) || !in_range(&sig.s) {
                return Err(Error::MalformedSignature("r or s is not in [1, n)"));
            }
            Ok(())
        })
        .collect();
    let ok: Vec<usize> = (0..jobs.len()).filter(|&i| checked[i].is_ok()).collect();
    let s_m: Vec<Uint<L>> = ok
        .iter()
        .map(|&i| f.to_monty(&to_l(&jobs[i].signature.s)))
        .collect();
    let w: Vec<Uint<L>> = s_m
        .par_chunks(CHUNK)
        .flat_map_iter(|c| batch_invert(def, c, true))
        .collect();
    let (u1, u2): (Vec<EcUint>, Vec<EcUint>) = ok
        .par_iter()
        .zip(&w)
        .map(|(&i, w)| {
            let e = rfc6979::bits2int_mod_n(curve, jobs[i].digest);
            let u1 = f.from_monty(&f.mul(&f.to_monty(&to_l(&e)), w));
            let u2 = f.from_monty(&f.mul(&f.to_monty(&to_l(&jobs[i].signature.r)), w));
            (to_seam(&u1), to_seam(&u2))
        })
        .unzip();
    let qs: Vec<batch_core::AffinePoint> = ok.iter().map(|&i| jobs[i].key.point).collect();
    let pts = if ok.is_empty() {
        Vec::new()
    } else {
        backend.mul_double_vartime(curve, &u1, &u2, &qs)?
    };
    if pts.len() != ok.len() {
        return Err(Error::Backend(format!(
            "mul_double returned {} results for {} jobs",
            pts.len(),
            ok.len()
        )));
    }
    let mut out = checked;
    for (&i, p) in ok.iter().zip(pts) {
        out[i] = p.and_then(|p| {
            if p.infinity || coord_mod_n(curve, &p.x) != jobs[i].signature.r {
                Err(Error::InvalidSignature)
            } else {
                Ok(())
            }
        });
    }
    Ok(out)
}
