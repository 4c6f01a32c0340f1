//! RSA signatures (RFC 8017) in batches over any [`Backend`].
//!
//! Signing, per job: encode (PKCS#1 v1.5 or PSS) → `m`; blind: `c = m·A mod n` with a
//! blinding pair `(A, Aᵢ) = (rᵉ, r⁻¹)`; the backend computes `c^dp mod p` and `c^dq mod q` for
//! the whole batch; recombine (Garner) → `s' = c^d`; unblind `s = s'·Aᵢ mod n`; **verify
//! `sᵉ ≡ m (mod n)`** before release (a faulty CRT signature reveals the key, and a backend bug
//! is a fault). The check runs as one `modexp_vartime` batch on [`checker`], the fastest
//! CPU backend here, not on the signing backend: a faulty GPU (a stale buffer, say) cannot
//! confirm its own fault. The CPU backends are stateless functions that never see `m`, so a
//! wrong `s` cannot pass even when the checker is the backend that signed.
//!
//! Blinding pairs, as OpenSSL's `BN_BLINDING`, kept per key between batches (`blinding.rs`):
//! a chain of at most [`BLINDING_CHAIN`] jobs starts from a fresh random `r` (`rᵉ`, and `r⁻¹`
//! by one CRT inversion for all fresh chains of the key in the batch, Montgomery's trick); the
//! next job squares both, `(A², Aᵢ²)` = `((r²)ᵉ, (r²)⁻¹)`, two products instead of an
//! exponentiation and an inversion; the key keeps its last chain's next unused pair for the
//! next batch, so a batch of one job pays two products, not an inversion. No pair is used
//! twice. The attacker sees neither `r` nor any `A`.
//!
//! Verification: the backend computes `sᵉ mod n` for the batch (variable-time, public data);
//! the encoding is checked here.

mod blinding;
mod key;
mod keygen;
pub(crate) mod nat;
pub mod padding;

use batch_core::num::{limbs_from_be_bytes, limbs_to_be_bytes, DynMonty};
use batch_core::{Backend, Error, JobResult, ModexpJob};
use rand_core::CryptoRng;
use rayon::prelude::*;
use zeroize::Zeroizing;

use blinding::Secret;
pub use blinding::BLINDING_CHAIN;
pub use key::{RsaKeyRestriction, RsaPrivateKey, RsaPublicKey, MAX_MODULUS_BITS, MIN_MODULUS_BITS};

use crate::backend::cpu_mont_kernel as kernel;
use crate::batch::{check_not_empty, os_seeded_rng};
use crate::hash::HashAlg;

/// The signature encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RsaPadding {
    /// RSASSA-PKCS1-v1_5 (deterministic).
    Pkcs1v15,
    /// RSASSA-PSS.
    Pss {
        /// Salt length in bytes; `None`: when signing, the key's RSASSA-PSS-params salt length,
        /// else the hash length; when verifying, any (at least the key's, for a key with
        /// RSASSA-PSS-params).
        salt_len: Option<usize>,
        /// MGF1's hash; [`RsaScheme::pss`] makes it the message hash.
        mgf1: HashAlg,
    },
}

/// A complete RSA signature scheme: padding and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RsaScheme {
    pub padding: RsaPadding,
    pub hash: HashAlg,
}

impl RsaScheme {
    /// RSASSA-PKCS1-v1_5 with `hash`.
    pub const fn pkcs1v15(hash: HashAlg) -> Self {
        Self {
            padding: RsaPadding::Pkcs1v15,
            hash,
        }
    }

    /// RSASSA-PSS with `hash`, MGF1(`hash`), salt as long as the hash (TLS 1.3's
    /// `rsa_pss_rsae_*`).
    pub const fn pss(hash: HashAlg) -> Self {
        Self::pss_with(hash, hash, None)
    }

    /// RSASSA-PSS with message hash `hash`, MGF1(`mgf1`) and a salt length (`None`: see
    /// [`RsaPadding::Pss`]).
    pub const fn pss_with(hash: HashAlg, mgf1: HashAlg, salt_len: Option<usize>) -> Self {
        Self {
            padding: RsaPadding::Pss { salt_len, mgf1 },
            hash,
        }
    }

    /// The scheme a key's RSASSA-PSS-params name (RFC 4055), `None` for a key without them.
    pub fn for_key(key: &RsaPublicKey) -> Option<Self> {
        match key.restriction() {
            RsaKeyRestriction::Pss {
                hash,
                mgf1,
                salt_len,
            } => Some(Self::pss_with(hash, mgf1, Some(salt_len))),
            _ => None,
        }
    }

    /// The scheme `key` allows in place of `self`, with a `None` salt length resolved to the
    /// key's (the salt a signature gets), or `Err(SchemeNotAllowed)` (RFC 4055 §3.1: an
    /// `id-RSASSA-PSS` key is for PSS only; with parameters, for their hash and MGF1 hash,
    /// and a salt at least as long).
    pub fn allowed_by(self, key: &RsaPublicKey) -> Result<Self, Error> {
        let refuse = |why: String| Err(Error::SchemeNotAllowed(why));
        match (key.restriction(), self.padding) {
            (RsaKeyRestriction::None, _) => Ok(self),
            (_, RsaPadding::Pkcs1v15) => refuse(format!(
                "an id-RSASSA-PSS key signs and verifies with RSASSA-PSS only, not {self}"
            )),
            (RsaKeyRestriction::PssAny, _) => Ok(self),
            (
                RsaKeyRestriction::Pss {
                    hash,
                    mgf1,
                    salt_len: min,
                },
                RsaPadding::Pss { salt_len, mgf1: m },
            ) => {
                let want = Self::pss_with(hash, mgf1, Some(min));
                if self.hash != hash || m != mgf1 || salt_len.is_some_and(|s| s < min) {
                    return refuse(format!(
                        "the key's RSASSA-PSS parameters require {want} (salt at least {min}), not {self}"
                    ));
                }
                Ok(Self::pss_with(hash, mgf1, Some(salt_len.unwrap_or(min))))
            }
        }
    }
}

impl core::fmt::Display for RsaScheme {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.padding {
            RsaPadding::Pkcs1v15 => write!(f, "RSASSA-PKCS1-v1_5/{}", self.hash),
            RsaPadding::Pss { salt_len, mgf1 } => {
                write!(f, "RSASSA-PSS/{}/MGF1-{mgf1}", self.hash)?;
                match salt_len {
                    Some(n) => write!(f, "/salt {n}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// One signing job of a multi-key batch: a key and a digest made with the scheme's hash.
#[derive(Clone, Copy, Debug)]
pub struct RsaSignJob<'a> {
    pub key: &'a RsaPrivateKey,
    pub digest: &'a [u8],
}

/// One verification job of a multi-key batch.
#[derive(Clone, Copy, Debug)]
pub struct RsaVerifyJob<'a> {
    pub key: &'a RsaPublicKey,
    pub digest: &'a [u8],
    pub signature: &'a [u8],
}

impl RsaPrivateKey {
    /// Signs every message (hashed with the scheme's hash) on `backend`; fresh randomness
    /// from the OS for blinding and PSS salts.
    pub fn sign_batch(
        &self,
        backend: &dyn Backend,
        scheme: RsaScheme,
        messages: &[&[u8]],
    ) -> Result<Vec<JobResult<Vec<u8>>>, Error> {
        let digests: Vec<Vec<u8>> = messages.par_iter().map(|m| scheme.hash.digest(m)).collect();
        self.sign_digests_batch(
            backend,
            scheme,
            &digests.iter().map(Vec::as_slice).collect::<Vec<_>>(),
        )
    }

    /// Signs pre-computed digests.
    pub fn sign_digests_batch(
        &self,
        backend: &dyn Backend,
        scheme: RsaScheme,
        digests: &[&[u8]],
    ) -> Result<Vec<JobResult<Vec<u8>>>, Error> {
        let jobs: Vec<RsaSignJob<'_>> = digests
            .iter()
            .map(|d| RsaSignJob {
                key: self,
                digest: d,
            })
            .collect();
        sign_batch(backend, scheme, &jobs, &mut os_seeded_rng()?)
    }
}

impl RsaPublicKey {
    /// Verifies every `(message, signature)` pair on `backend`.
    pub fn verify_batch(
        &self,
        backend: &dyn Backend,
        scheme: RsaScheme,
        messages: &[&[u8]],
        signatures: &[&[u8]],
    ) -> Result<Vec<JobResult<()>>, Error> {
        batch_core::backend::check_batch(messages.len(), &[("signatures", signatures.len())])?;
        let digests: Vec<Vec<u8>> = messages.par_iter().map(|m| scheme.hash.digest(m)).collect();
        let jobs: Vec<RsaVerifyJob<'_>> = digests
            .iter()
            .zip(signatures)
            .map(|(d, s)| RsaVerifyJob {
                key: self,
                digest: d,
                signature: s,
            })
            .collect();
        verify_batch(backend, scheme, &jobs)
    }
}

/// Distinct keys of a batch (by address) and each job's key index.
fn group_keys<'a, K>(keys: impl Iterator<Item = &'a K>) -> (Vec<&'a K>, Vec<usize>) {
    // By address, in one pass: a batch of a thousand distinct key objects must not cost a
    // million comparisons on the calling thread.
    let mut seen: std::collections::HashMap<*const K, usize> = std::collections::HashMap::new();
    let mut distinct: Vec<&'a K> = Vec::new();
    let mut index = Vec::new();
    for k in keys {
        let i = *seen.entry(k as *const K).or_insert_with(|| {
            distinct.push(k);
            distinct.len() - 1
        });
        index.push(i);
    }
    (distinct, index)
}

/// The backend that checks signatures before release: the fastest CPU modular
/// exponentiation available here ([`crate::backend::fastest_cpu_modexp`]), on the caller's
/// rayon pool.
pub fn checker() -> &'static dyn Backend {
    static C: std::sync::OnceLock<std::sync::Arc<dyn Backend>> = std::sync::OnceLock::new();
    C.get_or_init(crate::backend::fastest_cpu_modexp).as_ref()
}

/// Per-job state between the stages of signing.
struct Prepared {
    m: Vec<u64>,
    /// The unblinding factor `Aᵢ` of this job, in Montgomery form (`Aᵢ·R mod n`).
    r_inv: Zeroizing<Vec<u64>>,
    c: Zeroizing<Vec<u64>>,
}

/// Signs a multi-key batch. Each job's result is independent: a bad digest fails only its
/// own job.
pub fn sign_batch(
    backend: &dyn Backend,
    scheme: RsaScheme,
    jobs: &[RsaSignJob<'_>],
    rng: &mut impl CryptoRng,
) -> Result<Vec<JobResult<Vec<u8>>>, Error> {
    check_not_empty(jobs.len())?;
    scheme.hash.check_signing()?;
    let (keys, key_of) = group_keys(jobs.iter().map(|j| j.key));
    // Each job's scheme as its key allows it (a refused one fails only its job).
    let schemes: Vec<JobResult<RsaScheme>> = jobs
        .iter()
        .map(|j| scheme.allowed_by(&j.key.public))
        .collect();

    // Randomness, drawn in order: PSS salts, then (below) blinding values.
    let salts: Vec<Vec<u8>> = schemes
        .iter()
        .map(|s| {
            let salt_len = match s {
                Ok(RsaScheme {
                    padding: RsaPadding::Pss { salt_len, .. },
                    hash,
                }) => salt_len.unwrap_or(hash.output_len()),
                _ => 0,
            };
            let mut salt = vec![0u8; salt_len];
            rng.fill_bytes(&mut salt);
            salt
        })
        .collect();

    // Encode.
    let encoded: Vec<JobResult<Vec<u64>>> = jobs
        .par_iter()
        .zip(&salts)
        .zip(&schemes)
        .map(|((job, salt), scheme)| {
            let scheme = scheme.as_ref().map_err(Clone::clone)?;
            let pk = &job.key.public;
            let em = match scheme.padding {
                RsaPadding::Pkcs1v15 => {
                    padding::pkcs1v15_encode(scheme.hash, job.digest, pk.size())?
                }
                RsaPadding::Pss { mgf1, .. } => {
                    padding::pss_encode(scheme.hash, mgf1, job.digest, salt, pk.bits)?
                }
            };
            Ok(nat::resize(limbs_from_be_bytes(&em), pk.n_monty.limbs()))
        })
        .collect();

    // Blinding pairs (`blinding.rs`): per key, its encoded jobs in order, the first served
    // from the chain the key kept from its last batch. The key caches are taken and the
    // randomness drawn here, in order; the pairs are made per key in parallel.
    let mut by_key: Vec<Vec<usize>> = vec![Vec::new(); keys.len()];
    for (i, e) in encoded.iter().enumerate() {
        if e.is_ok() {
            by_key[key_of[i]].push(i);
        }
    }
    let plans: Vec<blinding::Plan> = keys
        .iter()
        .zip(&by_key)
        .map(|(k, idx)| blinding::plan(k, idx.len(), rng))
        .collect();
    let key_pairs: Vec<Vec<blinding::Pair>> = keys
        .par_iter()
        .zip(plans)
        .map(|(k, plan)| blinding::pairs(k, plan))
        .collect::<Result<_, _>>()?;
    // The blinded c = m·A, each job with its unblinding factor Aᵢ.
    let mut blinded: Vec<Option<(Secret, Secret)>> = vec![None; jobs.len()];
    let per_key: Vec<Vec<(usize, Secret, Secret)>> = by_key
        .par_iter()
        .zip(key_pairs)
        .map(|(idx, ps)| {
            idx.iter()
                .zip(ps)
                .map(|(&i, p)| {
                    let n = &jobs[i].key.public.n_monty;
                    // m·A: the pair is in Montgomery form (`blinding.rs`)
                    let c = Zeroizing::new(n.mont_mul_in(
                        kernel(),
                        encoded[i].as_ref().expect("encoded"),
                        &p.a,
                    ));
                    (i, p.ai, c)
                })
                .collect()
        })
        .collect();
    for (i, r_inv, c) in per_key.into_iter().flatten() {
        blinded[i] = Some((r_inv, c));
    }
    let prepared: Vec<JobResult<Prepared>> = encoded
        .into_iter()
        .zip(blinded)
        .map(|(m, b)| {
            let m = m?;
            let (r_inv, c) = b.expect("every encoded job is in a blinding run");
            Ok(Prepared { m, r_inv, c })
        })
        .collect();

    // The backend: c^dp mod p and c^dq mod q for every job.
    // each key's primes, with the caches of their prepared forms (`key.rs`, `CrtCaches`)
    let mut moduli: Vec<&[u64]> = Vec::with_capacity(2 * keys.len());
    let mut caches: Vec<&batch_core::ModulusCache> = Vec::with_capacity(2 * keys.len());
    for k in &keys {
        moduli.extend([k.p.as_slice(), k.q.as_slice()]);
        caches.extend([&k.crt_caches.p, &k.crt_caches.q]);
    }
    let halves: Vec<Option<(Secret, Secret)>> = jobs
        .par_iter()
        .zip(&prepared)
        .map(|(job, p)| {
            p.as_ref().ok().map(|p| {
                (
                    Zeroizing::new(job.key.p_monty.reduce_in(kernel(), &p.c)),
                    Zeroizing::new(job.key.q_monty.reduce_in(kernel(), &p.c)),
                )
            })
        })
        .collect();
    let mut mjobs = Vec::with_capacity(2 * jobs.len());
    let mut slot = vec![usize::MAX; jobs.len()];
    for (i, h) in halves.iter().enumerate() {
        if let Some((cp, cq)) = h {
            let k = key_of[i];
            slot[i] = mjobs.len();
            mjobs.push(ModexpJob {
                base: cp,
                exponent: &keys[k].dp,
                modulus: 2 * k,
            });
            mjobs.push(ModexpJob {
                base: cq,
                exponent: &keys[k].dq,
                modulus: 2 * k + 1,
            });
        }
    }
    let results = if mjobs.is_empty() {
        Vec::new()
    } else {
        backend.modexp_cached(&moduli, &caches, &mjobs)?
    };
    if results.len() != mjobs.len() {
        return Err(Error::Backend(format!(
            "modexp returned {} results for {} jobs",
            results.len(),
            mjobs.len()
        )));
    }

    // Recombine and unblind.
    let sigs: Vec<JobResult<Zeroizing<Vec<u64>>>> = (0..jobs.len())
        .into_par_iter()
        .map(|i| {
            let p = prepared[i].as_ref().map_err(Clone::clone)?;
            let key = jobs[i].key;
            let (mp, mq) = (&results[slot[i]], &results[slot[i] + 1]);
            let (mp, mq) = (
                mp.as_ref().map_err(Clone::clone)?,
                mq.as_ref().map_err(Clone::clone)?,
            );
            let s_blind = Zeroizing::new(crt_combine(key, mp, mq));
            // s·Aᵢ, Aᵢ in Montgomery form
            let mut s =
                Zeroizing::new(key.public.n_monty.mont_mul_in(kernel(), &s_blind, &p.r_inv));
            batch_core::ct::declassify(s.as_mut_slice()); // the signature: public from here
            Ok(s)
        })
        .collect();

    // Verify sᵉ ≡ m before release: one variable-time batch on the CPU checker (s, e and n
    // are public once s is released; a faulty s is never released).
    let n_moduli: Vec<&[u64]> = keys.iter().map(|k| k.public.n.as_slice()).collect();
    let mut vjobs = Vec::with_capacity(jobs.len());
    let mut vslot = vec![usize::MAX; jobs.len()];
    for (i, s) in sigs.iter().enumerate() {
        if let Ok(s) = s {
            vslot[i] = vjobs.len();
            vjobs.push(ModexpJob {
                base: s,
                exponent: &jobs[i].key.public.e,
                modulus: key_of[i],
            });
        }
    }
    let checks = if vjobs.is_empty() {
        Vec::new()
    } else {
        let caches: Vec<&batch_core::ModulusCache> =
            keys.iter().map(|k| &k.public.n_cache.0).collect();
        checker().modexp_vartime_cached(&n_moduli, &caches, &vjobs)?
    };
    if checks.len() != vjobs.len() {
        return Err(Error::Backend(format!(
            "modexp_vartime returned {} results for {} jobs",
            checks.len(),
            vjobs.len()
        )));
    }
    let out = (0..jobs.len())
        .into_par_iter()
        .map(|i| {
            let s = sigs[i].as_ref().map_err(Clone::clone)?;
            let m = &prepared[i].as_ref().expect("signed jobs were prepared").m;
            match &checks[vslot[i]] {
                // m holds the PSS salt (secret until s is released): constant-time compare,
                // public verdict.
                Ok(se) if batch_core::ct::declassify_mask(batch_core::ct::eq_mask(se, m)) => {}
                _ => {
                    return Err(Error::FaultDetected(
                        "RSA-CRT signature failed verification",
                    ))
                }
            }
            Ok(limbs_to_be_bytes(s, jobs[i].key.public.size()).expect("s < n"))
        })
        .collect();
    Ok(out)
}

/// Garner: `s = m_q + q·((m_p − m_q)·q⁻¹ mod p)`, limbs of `n`.
fn crt_combine(key: &RsaPrivateKey, mp: &[u64], mq: &[u64]) -> Vec<u64> {
    let pm = &key.p_monty;
    let mq_p = pm.reduce_in(kernel(), mq);
    let diff = Zeroizing::new(pm.sub(&nat::truncate(mp.to_vec(), pm.limbs()), &mq_p));
    let h = Zeroizing::new(pm.mul_in(kernel(), &diff, &nat::resize(key.qinv.to_vec(), pm.limbs())));
    let hq = Zeroizing::new(nat::mul(&h, &key.q));
    // h < p and mq < q, so s = mq + q·h < n fits: drop the top limbs without looking.
    nat::truncate(nat::add(&hq, mq), key.public.n_monty.limbs())
}

/// Inverts every `r` modulo `n`: prefix products, one inverse by CRT (safegcd mod `p` and
/// `q`), then back-substitution. Constant-time in the values.
fn batch_invert_rsa(key: &RsaPrivateKey, rs: &[&[u64]]) -> Result<Vec<Zeroizing<Vec<u64>>>, Error> {
    if rs.is_empty() {
        return Ok(Vec::new());
    }
    let n = &key.public.n_monty;
    let mut prefix: Vec<Zeroizing<Vec<u64>>> = Vec::with_capacity(rs.len());
    let mut acc = Zeroizing::new(rs[0].to_vec());
    prefix.push(acc.clone());
    for r in &rs[1..] {
        acc = Zeroizing::new(n.mul_in(kernel(), &acc, r));
        prefix.push(acc.clone());
    }
    // acc⁻¹ mod n from acc⁻¹ mod p and mod q (safegcd: 1024-bit halves invert in a few µs,
    // where Fermat costs a whole CRT exponentiation).
    let ip = Zeroizing::new(key.p_monty.inv(&key.p_monty.reduce_in(kernel(), &acc)));
    let iq = Zeroizing::new(key.q_monty.inv(&key.q_monty.reduce_in(kernel(), &acc)));
    let mut inv = Zeroizing::new(crt_combine(key, &ip, &iq));
    let one = nat::resize(vec![1], n.limbs());
    if !batch_core::ct::declassify_mask(batch_core::ct::eq_mask(
        &n.mul_in(kernel(), &inv, &acc),
        &one,
    )) {
        // Some r shares a factor with n: probability ~2⁻¹⁰²⁴ for a random r.
        return Err(Error::FaultDetected("blinding value not invertible"));
    }
    let mut out = vec![Zeroizing::new(Vec::new()); rs.len()];
    for i in (1..rs.len()).rev() {
        out[i] = Zeroizing::new(n.mul_in(kernel(), &inv, &prefix[i - 1]));
        inv = Zeroizing::new(n.mul_in(kernel(), &inv, rs[i]));
    }
    out[0] = inv;
    Ok(out)
}

/// Verifies a multi-key batch. `Ok(())` for a valid signature, `Err(InvalidSignature)` for
/// one that does not verify, another error for malformed input.
pub fn verify_batch(
    backend: &dyn Backend,
    scheme: RsaScheme,
    jobs: &[RsaVerifyJob<'_>],
) -> Result<Vec<JobResult<()>>, Error> {
    check_not_empty(jobs.len())?;
    let (keys, key_of) = group_keys(jobs.iter().map(|j| j.key));
    let moduli: Vec<&[u64]> = keys.iter().map(|k| k.n.as_slice()).collect();
    // Parse signatures: exactly k bytes, value below n (RFC 8017 §8.2.2 step 1, §5.2.2).
    let parsed: Vec<JobResult<Vec<u64>>> = jobs
        .par_iter()
        .map(|j| {
            scheme.hash.check_digest(j.digest)?;
            if j.signature.len() != j.key.size() {
                return Err(Error::MalformedSignature(
                    "length differs from the modulus size",
                ));
            }
            let s = limbs_from_be_bytes(j.signature);
            if batch_core::num::cmp_limbs_vartime(&s, &j.key.n) != core::cmp::Ordering::Less {
                return Err(Error::MalformedSignature(
                    "signature representative is not below n",
                ));
            }
            Ok(s)
        })
        .collect();
    let mut mjobs = Vec::with_capacity(jobs.len());
    let mut slot = vec![usize::MAX; jobs.len()];
    for (i, p) in parsed.iter().enumerate() {
        if let Ok(s) = p {
            slot[i] = mjobs.len();
            mjobs.push(ModexpJob {
                base: s,
                exponent: &jobs[i].key.e,
                modulus: key_of[i],
            });
        }
    }
    let results = if mjobs.is_empty() {
        Vec::new()
    } else {
        let caches: Vec<&batch_core::ModulusCache> = keys.iter().map(|k| &k.n_cache.0).collect();
        backend.modexp_vartime_cached(&moduli, &caches, &mjobs)?
    };
    if results.len() != mjobs.len() {
        return Err(Error::Backend(format!(
            "modexp returned {} results for {} jobs",
            results.len(),
            mjobs.len()
        )));
    }
    Ok(jobs
        .par_iter()
        .enumerate()
        .map(|(i, job)| {
            parsed[i].as_ref().map_err(Clone::clone)?;
            let m = results[slot[i]].as_ref().map_err(Clone::clone)?;
            let pk = job.key;
            let allowed = scheme.allowed_by(pk)?;
            match allowed.padding {
                RsaPadding::Pkcs1v15 => {
                    let em = limbs_to_be_bytes(m, pk.size()).ok_or(Error::InvalidSignature)?;
                    let want = padding::pkcs1v15_encode(scheme.hash, job.digest, pk.size())?;
                    if em != want {
                        return Err(Error::InvalidSignature);
                    }
                    Ok(())
                }
                RsaPadding::Pss { mgf1, .. } => {
                    // The caller's salt length (`None`: any); a key's RSASSA-PSS-params salt
                    // length is a minimum (RFC 4055 §3.1).
                    let salt_len = match scheme.padding {
                        RsaPadding::Pss { salt_len, .. } => salt_len,
                        RsaPadding::Pkcs1v15 => None,
                    };
                    let em_len = (pk.bits - 1).div_ceil(8);
                    let em = limbs_to_be_bytes(m, em_len).ok_or(Error::InvalidSignature)?;
                    let found = padding::pss_verify_vartime(
                        scheme.hash,
                        mgf1,
                        job.digest,
                        &em,
                        pk.bits,
                        salt_len,
                    )?;
                    match pk.restriction() {
                        RsaKeyRestriction::Pss { salt_len: min, .. } if found < min => {
                            Err(Error::InvalidSignature)
                        }
                        _ => Ok(()),
                    }
                }
            }
        })
        .collect())
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn f<T: Send + Sync>() {}
    f::<RsaPrivateKey>();
    f::<RsaPublicKey>();
    f::<DynMonty>();
}
