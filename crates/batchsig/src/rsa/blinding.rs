//! RSA blinding pairs `(A, Aᵢ) = (rᵉ, r⁻¹) mod n`, kept per key between batches, as OpenSSL's
//! `BN_BLINDING` does.
//!
//! A chain starts from a fresh random `r` (one `rᵉ`, and `r⁻¹` shared with the other fresh
//! chains of the key in the same batch through one inversion, Montgomery's trick); each next
//! job of the chain squares both (`((r²)ᵉ, (r²)⁻¹)`, two products: the pair is kept in
//! Montgomery form, `(A·R, Aᵢ·R)`, so a square is one Montgomery product and so is each use,
//! `m·A` and `s·Aᵢ`). A chain serves at most
//! [`BLINDING_CHAIN`] jobs, then a fresh `r` is drawn. The key keeps the **next unused** pair
//! of its last chain and how many uses it has left ([`BlindingCache`]); a batch takes it out
//! (so no other batch can use it), serves its first jobs from it and puts back the pair after
//! its own last one. A batch of one job therefore costs two products instead of an
//! exponentiation and an inversion, while no pair is ever used twice: a pair is squared after
//! every use, a taken pair is never in the cache, and a clone of a key starts with an empty
//! cache. The attacker sees neither `r` nor any pair; squaring keeps each pair consistent and
//! unpredictable.

use std::sync::Mutex;

use batch_core::num::limbs_from_be_bytes;
use batch_core::Error;
use rayon::prelude::*;
use zeroize::Zeroizing;

use super::RsaPrivateKey;
use crate::backend::cpu_mont_kernel as kernel;

/// Jobs of one key per blinding chain (a fresh `r` each chain); OpenSSL's `BN_BLINDING` also
/// refreshes after 32 uses.
pub const BLINDING_CHAIN: usize = 32;

/// Secret limbs, wiped on drop.
pub(crate) type Secret = Zeroizing<Vec<u64>>;

/// One blinding pair in Montgomery form (`DynMonty::to_monty_in` of `n`): `a = rᵉ·R`,
/// `ai = r⁻¹·R` (mod n), limbs of `n`; `DynMonty::mont_mul_in(x, a)` is `x·rᵉ mod n`.
pub(crate) struct Pair {
    pub(crate) a: Secret,
    pub(crate) ai: Secret,
}

/// The next unused pair of a key's last chain and how many jobs that chain may still serve.
struct Cached {
    pair: Pair,
    left: usize,
}

/// A key's blinding state between batches. Cloning gives an empty cache: two key objects
/// never share pairs.
#[derive(Default)]
pub(crate) struct BlindingCache(Mutex<Option<Cached>>);

impl Clone for BlindingCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl BlindingCache {
    fn take(&self) -> Option<Cached> {
        // A poisoned lock only means a panic elsewhere while it was held; the state inside is
        // either a whole unused pair or nothing, so it is still safe to use.
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Stores `c` unless another batch has stored one meanwhile (then `c` is dropped, and
    /// wiped: it was never used).
    fn put(&self, c: Cached) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(c);
        }
    }

    /// Uses left in the cached chain (0 when empty), for tests.
    #[cfg(test)]
    pub(crate) fn left(&self) -> usize {
        self.0.lock().unwrap().as_ref().map_or(0, |c| c.left)
    }
}

/// What one key needs for a batch, drawn before the parallel work: the cached chain (taken
/// out of the key) and random bytes for every fresh chain.
pub(crate) struct Plan {
    cached: Option<Cached>,
    fresh: Vec<Zeroizing<Vec<u8>>>,
    jobs: usize,
}

/// Takes `key`'s cached chain and draws the randomness for `jobs` jobs of it.
pub(crate) fn plan(key: &RsaPrivateKey, jobs: usize, rng: &mut impl rand_core::CryptoRng) -> Plan {
    let cached = if jobs > 0 { key.blinding.take() } else { None };
    let from_cache = cached.as_ref().map_or(0, |c| c.left.min(jobs));
    let fresh = (0..(jobs - from_cache).div_ceil(BLINDING_CHAIN))
        .map(|_| {
            let mut r = Zeroizing::new(vec![0u8; key.public.size() + 16]);
            rng.fill_bytes(&mut r);
            r
        })
        .collect();
    Plan {
        cached,
        fresh,
        jobs,
    }
}

/// The pairs for the `plan.jobs` jobs of `key`, in order; the pair after the last one goes
/// back into the key's cache.
pub(crate) fn pairs(key: &RsaPrivateKey, plan: Plan) -> Result<Vec<Pair>, Error> {
    let n = &key.public.n_monty;
    let Plan {
        cached,
        fresh,
        jobs,
    } = plan;
    // Fresh heads: r, rᵉ, and all r⁻¹ with one inversion.
    let heads: Vec<(Secret, Secret)> = fresh
        .par_iter()
        .map(|bytes| {
            let r = Zeroizing::new(n.reduce_in(kernel(), &limbs_from_be_bytes(bytes)));
            // NOTE: rᵉ runs square-and-multiply over the public e; the Montgomery kernel is
            // constant-time in r.
            let re = Zeroizing::new(n.pow_vartime(&r, &key.public.e));
            (r, re)
        })
        .collect();
    let rs: Vec<&[u64]> = heads.iter().map(|(r, _)| r.as_slice()).collect();
    let invs = super::batch_invert_rsa(key, &rs)?;
    // Chains: (first pair, uses allowed, jobs served here).
    let mut chains: Vec<(Pair, usize, usize)> = Vec::with_capacity(heads.len() + 1);
    let mut rest = jobs;
    if let Some(c) = cached {
        let here = c.left.min(rest);
        rest -= here;
        chains.push((c.pair, c.left, here));
    }
    for ((_, re), ai) in heads.into_iter().zip(invs) {
        let here = BLINDING_CHAIN.min(rest);
        rest -= here;
        let pair = Pair {
            a: Zeroizing::new(n.to_monty_in(kernel(), &re)),
            ai: Zeroizing::new(n.to_monty_in(kernel(), &ai)),
        };
        chains.push((pair, BLINDING_CHAIN, here));
    }
    debug_assert_eq!(rest, 0);
    let last = chains.len().saturating_sub(1);
    let square = |p: &Pair| Pair {
        a: Zeroizing::new(n.mont_mul_in(kernel(), &p.a, &p.a)),
        ai: Zeroizing::new(n.mont_mul_in(kernel(), &p.ai, &p.ai)),
    };
    let served: Vec<(Vec<Pair>, Option<Cached>)> = chains
        .into_par_iter()
        .enumerate()
        .map(|(c, (first, allowed, here))| {
            let mut out = Vec::with_capacity(here);
            let mut p = first;
            for _ in 0..here {
                let next = square(&p);
                out.push(core::mem::replace(&mut p, next));
            }
            // Only the key's last chain is kept, and only while it has uses left.
            let keep = (c == last && allowed > here).then(|| Cached {
                pair: p,
                left: allowed - here,
            });
            (out, keep)
        })
        .collect();
    let mut out = Vec::with_capacity(jobs);
    for (pairs, keep) in served {
        out.extend(pairs);
        if let Some(k) = keep {
            key.blinding.put(k);
        }
    }
    debug_assert_eq!(out.len(), jobs);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::nat;
    use super::*;
    use rand_core::SeedableRng;

    /// Every pair is consistent (`A·Aᵢᵉ ≡ 1`), no pair is handed out twice — across batches
    /// of any size, key clones and threads sharing one key — and chains are at most
    /// [`BLINDING_CHAIN`] long (each pair after the first of a chain is the square of the
    /// previous one).
    #[test]
    fn pairs_are_consistent_fresh_and_never_reused() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let key = RsaPrivateKey::generate(&mut rng, 1024).unwrap();
        let n = &key.public.n_monty;
        let one = nat::resize(vec![1], n.limbs());
        let mut seen: Vec<Vec<u64>> = Vec::new();
        let mut chain_len = 0usize;
        let mut prev: Option<Vec<u64>> = None;
        for &size in &[1usize, 1, 2, 3, 40, 1, 31, 32, 33, 1, 64, 5] {
            let ps = pairs(&key, plan(&key, size, &mut rng)).unwrap();
            assert_eq!(ps.len(), size);
            for p in &ps {
                // out of Montgomery form
                let (a, ai) = (
                    n.mont_mul_in(None, &p.a, &one),
                    n.mont_mul_in(None, &p.ai, &one),
                );
                let aie = n.pow_vartime(&ai, &key.public.e);
                assert_eq!(n.mul(&a, &aie), one, "A·Aᵢᵉ ≢ 1");
                let continues = prev.as_ref().is_some_and(|q| n.mul(q, q) == a);
                chain_len = if continues { chain_len + 1 } else { 1 };
                assert!(
                    chain_len <= BLINDING_CHAIN,
                    "chain longer than {BLINDING_CHAIN}"
                );
                prev = Some(a);
                seen.push(p.a.to_vec());
            }
            assert!(key.blinding.left() < BLINDING_CHAIN);
        }
        // A clone starts empty; both keep their own chains.
        let clone = key.clone();
        assert_eq!(clone.blinding.left(), 0);
        for k in [&key, &clone] {
            for p in pairs(k, plan(k, 3, &mut rng)).unwrap() {
                seen.push(p.a.to_vec());
            }
        }
        // Threads on one key.
        let per_thread: Vec<Vec<Vec<u64>>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4u64)
                .map(|t| {
                    let key = &key;
                    s.spawn(move || {
                        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(100 + t);
                        let mut got = Vec::new();
                        for size in [1usize, 2, 1, 7, 1] {
                            for p in pairs(key, plan(key, size, &mut rng)).unwrap() {
                                got.push(p.a.to_vec());
                            }
                        }
                        got
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        seen.extend(per_thread.into_iter().flatten());
        let total = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), total, "a blinding pair was handed out twice");
    }

    /// Signatures made through the cache (batches of every size one after another, and four
    /// threads on one key object) are byte for byte those of a freshly loaded key signing each
    /// message alone (PKCS#1 v1.5 is deterministic; blinding must not show).
    #[test]
    fn cached_pairs_give_the_uncached_signatures() {
        use crate::hash::HashAlg;
        use crate::rsa::RsaScheme;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let key = RsaPrivateKey::generate(&mut rng, 1024).unwrap();
        let der = key.to_pkcs1_der().unwrap();
        let be = batch_scalar::ScalarBackend::new();
        let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
        let msgs: Vec<Vec<u8>> = (0..80).map(|i| format!("m{i}").into_bytes()).collect();
        let want: Vec<Vec<u8>> = msgs
            .iter()
            .map(|m| {
                let fresh = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
                fresh
                    .sign_batch(&be, scheme, &[m])
                    .unwrap()
                    .remove(0)
                    .unwrap()
            })
            .collect();
        let mut at = 0;
        for size in [1usize, 1, 3, 40, 2, 33] {
            let refs: Vec<&[u8]> = msgs[at..at + size].iter().map(Vec::as_slice).collect();
            let got = key.sign_batch(&be, scheme, &refs).unwrap();
            for (g, w) in got.into_iter().zip(&want[at..]) {
                assert_eq!(&g.unwrap(), w);
            }
            at += size;
        }
        std::thread::scope(|s| {
            for t in 0..4 {
                let (key, msgs, want, be) = (&key, &msgs, &want, &be);
                s.spawn(move || {
                    for i in (t..msgs.len()).step_by(4) {
                        let got = key.sign_batch(be, scheme, &[&msgs[i]]).unwrap();
                        assert_eq!(got[0].as_ref().unwrap(), &want[i], "thread {t}, job {i}");
                    }
                });
            }
        });
    }
}
