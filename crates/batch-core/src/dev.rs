//! Shared equivalence checks (feature `dev`): every backend is run through these against a
//! reference — `num-bigint` for modular exponentiation, another backend (normally
//! `batch-scalar`) for everything. Inputs are seeded, so a failure reproduces; they mix
//! random values with the edges that break arithmetic (0, 1, m−1, n−1, exponents 0/1/all-ones,
//! identity results) and invalid jobs that must fail alone.

use num_bigint::BigUint;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::curve::{AffinePoint, Curve, CurveArith, CurveDef, EcUint};
use crate::num::Uint;
use crate::{Backend, Error, JobResult, ModexpJob};

/// Batch sizes every backend is checked at: empty, one, around 4-lane SIMD groups, around
/// common workgroup sizes, and one larger batch.
pub const BATCH_SIZES: [usize; 10] = [0, 1, 3, 4, 5, 63, 64, 65, 257, 1023];

/// A curve's field with every operation out of line, for unit tests of the point code. The
/// point kernels are `#[inline(always)]`, so that production callers fold the curve's
/// constants into the field arithmetic; a test calling them a few dozen times on a
/// [`CurveDef`] directly got every call's field arithmetic copied into its body, and
/// batch-scalar's unit tests grew functions of ~750,000 lines of IR that LLVM took about 20
/// CPU minutes to optimise in CI's test build. Through `Outline` the kernels inline as calls.
/// The results are `CurveDef`'s: each method forwards to it. `Deref` to the `CurveDef` keeps
/// `c.gx`, `c.n` and `&CurveDef` arguments working on a shadowed `c`.
#[derive(Debug)]
pub struct Outline<const L: usize>(pub &'static CurveDef<L>);

impl<const L: usize> std::ops::Deref for Outline<L> {
    type Target = CurveDef<L>;
    fn deref(&self) -> &CurveDef<L> {
        self.0
    }
}

impl<const L: usize> CurveArith<L> for Outline<L> {
    fn def(&self) -> &CurveDef<L> {
        self.0
    }
    #[inline(never)]
    fn mul(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        CurveArith::mul(self.0, a, b)
    }
    #[inline(never)]
    fn square(&self, a: &Uint<L>) -> Uint<L> {
        CurveArith::square(self.0, a)
    }
    #[inline(never)]
    fn add(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        CurveArith::add(self.0, a, b)
    }
    #[inline(never)]
    fn sub(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        CurveArith::sub(self.0, a, b)
    }
    #[inline(never)]
    fn neg(&self, a: &Uint<L>) -> Uint<L> {
        CurveArith::neg(self.0, a)
    }
    #[inline(never)]
    fn half(&self, a: &Uint<L>) -> Uint<L> {
        CurveArith::half(self.0, a)
    }
    #[inline(never)]
    fn select_entry<const C: usize>(&self, table: &[[Uint<L>; C]], mag: u64) -> [Uint<L>; C] {
        CurveArith::select_entry(self.0, table, mag)
    }
}

/// A deterministic RNG for test inputs.
pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

pub fn to_big(limbs: &[u64]) -> BigUint {
    BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

pub fn from_big(x: &BigUint, limbs: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    assert!(v.len() <= limbs, "value wider than {limbs} limbs");
    v.resize(limbs, 0);
    v
}

/// A random odd modulus of exactly `bits` bits.
pub fn random_modulus(rng: &mut impl Rng, bits: usize) -> Vec<u64> {
    let limbs = bits.div_ceil(64);
    let mut m: Vec<u64> = (0..limbs).map(|_| rng.random()).collect();
    let top = bits - 64 * (limbs - 1);
    if top < 64 {
        m[limbs - 1] &= (1u64 << top) - 1;
    }
    m[limbs - 1] |= 1u64 << (top - 1);
    m[0] |= 1;
    m
}

/// Bases for a modulus: edges first, then random values below it.
pub fn modexp_bases(rng: &mut impl Rng, m: &[u64], count: usize) -> Vec<Vec<u64>> {
    let mb = to_big(m);
    let limbs = m.len();
    let mut out = vec![
        from_big(&BigUint::from(0u8), limbs),
        from_big(&BigUint::from(1u8), limbs),
        from_big(&(&mb - 1u8), limbs),
        from_big(&(&mb - 2u8), limbs),
    ];
    while out.len() < count {
        let v: Vec<u64> = (0..limbs).map(|_| rng.random()).collect();
        out.push(from_big(&(to_big(&v) % &mb), limbs));
    }
    out.truncate(count);
    out
}

/// Exponents: 0, 1, all-ones, then random, each `limbs` long.
pub fn modexp_exponents(rng: &mut impl Rng, limbs: usize, count: usize) -> Vec<Vec<u64>> {
    let mut out = vec![
        vec![0u64; limbs],
        from_big(&BigUint::from(1u8), limbs),
        vec![u64::MAX; limbs],
    ];
    while out.len() < count {
        out.push((0..limbs).map(|_| rng.random()).collect());
    }
    out.truncate(count);
    out
}

/// Checks `backend.modexp` and `modexp_vartime` against num-bigint for moduli of the given
/// bit sizes (two moduli per batch, jobs alternating), over `sizes` batch sizes, plus a
/// bad-job batch. Panics with the failing case.
pub fn check_modexp_vs_num_bigint(
    backend: &dyn Backend,
    bit_sizes: &[usize],
    sizes: &[usize],
    seed: u64,
) {
    let mut rng = rng(seed);
    for &bits in bit_sizes {
        let moduli = [
            random_modulus(&mut rng, bits),
            random_modulus(&mut rng, bits),
        ];
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let exp_limbs = bits.div_ceil(128).max(1);
        for &n in sizes {
            let bases: Vec<Vec<u64>> = (0..n)
                .map(|i| {
                    modexp_bases(&mut rng, &moduli[i % 2], 5 + i % 7)
                        .pop()
                        .unwrap()
                })
                .collect();
            let exps = modexp_exponents(&mut rng, exp_limbs, n.max(3));
            let jobs: Vec<ModexpJob<'_>> = (0..n)
                .map(|i| ModexpJob {
                    base: &bases[i],
                    exponent: &exps[i % exps.len()],
                    modulus: i % 2,
                })
                .collect();
            for vartime in [false, true] {
                let got = if vartime {
                    backend.modexp_vartime(&mrefs, &jobs)
                } else {
                    backend.modexp(&mrefs, &jobs)
                }
                .unwrap_or_else(|e| {
                    panic!(
                        "{}: batch of {n} at {bits} bits failed: {e}",
                        backend.name()
                    )
                });
                assert_eq!(got.len(), n);
                for (i, (job, r)) in jobs.iter().zip(&got).enumerate() {
                    let want = to_big(job.base)
                        .modpow(&to_big(job.exponent), &to_big(&moduli[job.modulus]));
                    let r = r
                        .as_ref()
                        .unwrap_or_else(|e| panic!("{}: job {i} failed: {e}", backend.name()));
                    assert_eq!(r.len(), moduli[job.modulus].len(), "result limb count");
                    assert_eq!(
                        to_big(r),
                        want,
                        "{}: {bits}-bit job {i} of {n} (vartime {vartime})",
                        backend.name()
                    );
                }
            }
        }
        // Bad jobs fail alone.
        let m0 = &moduli[0];
        let too_big = from_big(&(to_big(m0) + 1u8), m0.len() + 1);
        let even: Vec<u64> = moduli[1]
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w & !1 } else { *w })
            .collect();
        let bad_moduli: Vec<&[u64]> = vec![m0, &even];
        let one = [1u64];
        let good_base = [3u64];
        let jobs = [
            ModexpJob {
                base: &good_base,
                exponent: &one,
                modulus: 0,
            },
            ModexpJob {
                base: &too_big,
                exponent: &one,
                modulus: 0,
            },
            ModexpJob {
                base: &good_base,
                exponent: &one,
                modulus: 1,
            },
            ModexpJob {
                base: &good_base,
                exponent: &one,
                modulus: 7,
            },
            ModexpJob {
                base: m0,
                exponent: &one,
                modulus: 0,
            },
        ];
        let got = backend
            .modexp(&bad_moduli, &jobs)
            .expect("batch-level success");
        assert_eq!(
            to_big(got[0].as_ref().expect("good job")),
            BigUint::from(3u8)
        );
        assert_eq!(got[1], Err(Error::BaseOutOfRange));
        assert!(
            matches!(got[2], Err(Error::InvalidModulus(_))),
            "{:?}",
            got[2]
        );
        assert_eq!(
            got[3],
            Err(Error::NoSuchModulus {
                index: 7,
                moduli: 2
            })
        );
        assert_eq!(got[4], Err(Error::BaseOutOfRange));
    }
}

/// [`Backend::modexp_vartime_cached`] against [`Backend::modexp_vartime`] on the same backend
/// and against num-bigint: public moduli of 1024, 2048, 3072 and 4608 bits (two shared by
/// many jobs, two by a single job each), batch sizes that reach the lanes, the few-job forms and the
/// scalar tail, each run with cold caches and again with warm ones, and four threads sharing
/// the caches at once. A cache list of the wrong length fails the batch; a cache used once
/// holds a form afterwards where the backend caches (`expect_filled`); caches passed with
/// other moduli, or of the other kind (secret), change no result.
pub fn check_modexp_cached(b: &dyn Backend, seed: u64, expect_filled: bool) {
    check_cached_kind(b, seed, expect_filled, false);
}

/// [`check_modexp_cached`] for secret moduli: [`Backend::modexp_cached`] with
/// [`crate::ModulusCache::new_secret`] caches against [`Backend::modexp`] (what RSA signing
/// does with a key's CRT primes).
pub fn check_modexp_cached_secret(b: &dyn Backend, seed: u64, expect_filled: bool) {
    check_cached_kind(b, seed, expect_filled, true);
}

fn check_cached_kind(b: &dyn Backend, seed: u64, expect_filled: bool, secret: bool) {
    use crate::ModulusCache;
    type Out = Result<Vec<JobResult<Vec<u64>>>, Error>;
    let kind = if secret { "secret" } else { "public" };
    let new_cache = |secret: bool| {
        if secret {
            ModulusCache::new_secret()
        } else {
            ModulusCache::new()
        }
    };
    let uncached = |m: &[&[u64]], j: &[ModexpJob<'_>]| -> Out {
        if secret {
            b.modexp(m, j)
        } else {
            b.modexp_vartime(m, j)
        }
    };
    let cached = |m: &[&[u64]], c: &[&ModulusCache], j: &[ModexpJob<'_>]| -> Out {
        if secret {
            b.modexp_cached(m, c, j)
        } else {
            b.modexp_vartime_cached(m, c, j)
        }
    };
    let mut r = rng(seed);
    // the last one is wider than any few-job form (avx512's ends at 80 digits): a scalar tail
    let moduli: Vec<Vec<u64>> = [2048, 1024, 3072, 4608]
        .iter()
        .map(|&bits| random_modulus(&mut r, bits))
        .collect();
    let mref: Vec<&[u64]> = moduli.iter().map(Vec::as_slice).collect();
    let e65537 = [0x1_0001u64];
    let long = modexp_exponents(&mut r, 2, 1).pop().expect("one");
    // moduli of the same sizes, other values: their forms must never answer for these
    let decoys: Vec<Vec<u64>> = moduli
        .iter()
        .map(|m| random_modulus(&mut r, 64 * m.len()))
        .collect();
    let dref: Vec<&[u64]> = decoys.iter().map(Vec::as_slice).collect();
    for size in [1usize, 2, 3, 5, 9, 17] {
        // job i: modulus 0 or 1 alternately; in a batch of ≥ 3 the last job on modulus 2 and
        // the one before on modulus 3
        let spec: Vec<(usize, Vec<u64>)> = (0..size)
            .map(|i| {
                let m = match (size >= 3, size - 1 - i) {
                    (true, 0) => 2,
                    (true, 1) => 3,
                    _ => i % 2,
                };
                let base = modexp_bases(&mut r, &moduli[m], 4).pop().expect("base");
                (m, base)
            })
            .collect();
        let jobs: Vec<ModexpJob<'_>> = spec
            .iter()
            .enumerate()
            .map(|(i, (m, base))| ModexpJob {
                base,
                exponent: if i % 3 == 2 { &long } else { &e65537 },
                modulus: *m,
            })
            .collect();
        let want = uncached(&mref, &jobs).expect("uncached batch");
        for (j, w) in jobs.iter().zip(&want) {
            let expect = to_big(j.base).modpow(&to_big(j.exponent), &to_big(mref[j.modulus]));
            assert_eq!(
                to_big(w.as_ref().expect("job")),
                expect,
                "{}: uncached",
                b.name()
            );
        }
        let caches: Vec<ModulusCache> = (0..moduli.len()).map(|_| new_cache(secret)).collect();
        let cref: Vec<&ModulusCache> = caches.iter().collect();
        for round in ["cold", "warm"] {
            let got = cached(&mref, &cref, &jobs).expect("cached batch");
            assert_eq!(
                got,
                want,
                "{}: {size} jobs, {round} {kind} caches",
                b.name()
            );
        }
        if expect_filled {
            for m in 0..moduli.len() {
                if jobs.iter().any(|j| j.modulus == m) {
                    assert!(
                        !caches[m].is_empty(),
                        "{}: modulus {m} not in its {kind} cache",
                        b.name()
                    );
                }
            }
        }
        // caches warmed by moduli of the same sizes (same limb counts and kernel widths, other
        // values), then passed with these: each form is prepared anew (and kept beside)
        let warmed: Vec<ModulusCache> = (0..moduli.len()).map(|_| new_cache(secret)).collect();
        let wref: Vec<&ModulusCache> = warmed.iter().collect();
        let twos: Vec<ModexpJob<'_>> = jobs
            .iter()
            .map(|j| ModexpJob { base: &[2], ..*j })
            .collect();
        cached(&dref, &wref, &twos).expect("decoy batch");
        let got = cached(&mref, &wref, &jobs).expect("decoy caches");
        assert_eq!(
            got,
            want,
            "{}: {size} jobs, {kind} caches of other moduli",
            b.name()
        );
        // and passed with the wrong moduli (each with the next one's)
        let rotated: Vec<&ModulusCache> = (0..moduli.len()).map(|m| cref[(m + 1) % 4]).collect();
        let got = cached(&mref, &rotated, &jobs).expect("rotated caches");
        assert_eq!(
            got,
            want,
            "{}: {size} jobs, rotated {kind} caches",
            b.name()
        );
        // caches of the other kind are not used (their forms come from the other set-up)
        let other: Vec<ModulusCache> = (0..moduli.len()).map(|_| new_cache(!secret)).collect();
        let oref: Vec<&ModulusCache> = other.iter().collect();
        let got = cached(&mref, &oref, &jobs).expect("other kind");
        assert_eq!(
            got,
            want,
            "{}: {size} jobs, caches of the other kind",
            b.name()
        );
        assert!(
            other.iter().all(ModulusCache::is_empty),
            "{}: a {kind} batch filled caches of the other kind",
            b.name()
        );
        // several threads on the same caches at once (fresh ones: they fill concurrently)
        let shared: Vec<ModulusCache> = (0..moduli.len()).map(|_| new_cache(secret)).collect();
        let sref: Vec<&ModulusCache> = shared.iter().collect();
        std::thread::scope(|sc| {
            let hs: Vec<_> = (0..4)
                .map(|_| sc.spawn(|| cached(&mref, &sref, &jobs).expect("batch")))
                .collect();
            for h in hs {
                assert_eq!(
                    h.join().expect("thread"),
                    want,
                    "{}: {size} jobs, threads",
                    b.name()
                );
            }
        });
        if expect_filled {
            // one form per modulus and width, however many threads filled it
            assert!(
                shared.iter().all(|c| c.len() <= 1),
                "{}: duplicate forms",
                b.name()
            );
        }
    }
    let one = new_cache(secret);
    let job = [ModexpJob {
        base: &[2],
        exponent: &e65537,
        modulus: 0,
    }];
    let err = cached(&mref, &[&one], &job).unwrap_err();
    assert!(matches!(err, Error::Backend(_)), "{err:?}");
}

/// Edge and random scalars below `n` for a curve: 0, 1, 2, n−1, n−2, then random.
pub fn ec_scalars(rng: &mut impl Rng, curve: Curve, count: usize) -> Vec<EcUint> {
    let n = to_big(&curve.order().0);
    let mut out: Vec<BigUint> = vec![
        0u8.into(),
        1u8.into(),
        2u8.into(),
        &n - 1u8,
        &n - 2u8,
        (&n - 1u8) >> 1,
    ];
    while out.len() < count {
        let v: Vec<u64> = (0..curve.limbs()).map(|_| rng.random()).collect();
        out.push(to_big(&v) % &n);
    }
    out.truncate(count);
    out.iter()
        .map(|v| Uint::from_limbs(&v.to_u64_digits()).expect("fits"))
        .collect()
}

/// Identity results from non-trivial inputs on every curve: `(n−1)·G + 1·G`, `G + (n−1)·G`,
/// `k·O`, and `(n−1)·G` as `−G`, on every operation; the candidate must match the reference
/// and give the identity where it is due.
pub fn check_identity_results_vs_reference(reference: &dyn Backend, candidate: &dyn Backend) {
    for &c in candidate.curves() {
        let g = c.generator();
        let n1 = Uint::from_limbs(&from_big(&(to_big(&c.order().0) - 1u8), 9)).expect("fits");
        let one = EcUint::ONE;
        let q = [g, AffinePoint::IDENTITY, g, g, g];
        let u1 = [n1, one, EcUint::ZERO, n1, one];
        let u2 = [one, n1, one, n1, n1];
        let got = candidate
            .mul_double_vartime(c, &u1, &u2, &q)
            .expect("batch");
        assert_eq!(
            got,
            reference
                .mul_double_vartime(c, &u1, &u2, &q)
                .expect("batch"),
            "{c}"
        );
        assert_eq!(got[0], Ok(AffinePoint::IDENTITY), "{c}: (n−1)·G + G");
        assert_eq!(got[4], Ok(AffinePoint::IDENTITY), "{c}: G + (n−1)·G");
        assert_eq!(
            candidate.mul_point(c, &q, &u2).expect("batch"),
            reference.mul_point(c, &q, &u2).expect("batch"),
            "{c}"
        );
        assert_eq!(
            candidate.mul_base(c, &u1).expect("batch"),
            reference.mul_base(c, &u1).expect("batch"),
            "{c}"
        );
    }
}

/// Compares two backends on every operation, curve and batch size in `sizes`, and on
/// modexp at `rsa_bits` (half-size exponent limbs). Results (values and errors) must match
/// exactly. Invalid jobs (scalar = n, point off the curve) are mixed in.
pub fn check_backend_vs_reference(
    reference: &dyn Backend,
    candidate: &dyn Backend,
    curves: &[Curve],
    rsa_bits: &[usize],
    sizes: &[usize],
    seed: u64,
) {
    let mut rng = rng(seed);
    let label = format!("{} vs {}", candidate.name(), reference.name());
    for &curve in curves {
        let n = curve.order();
        let g = curve.generator();
        // Points: multiples of G from the reference, plus G and the identity.
        let seeds = ec_scalars(&mut rng, curve, 8);
        let mut points: Vec<AffinePoint> = reference
            .mul_base(curve, &seeds)
            .expect("reference")
            .into_iter()
            .map(|r| r.expect("ref"))
            .collect();
        points.push(g);
        for &len in sizes {
            let mut k = ec_scalars(&mut rng, curve, len.max(6));
            k.truncate(len);
            let mut k2 = ec_scalars(&mut rng, curve, len.max(6));
            k2.reverse();
            k2.truncate(len);
            let mut q: Vec<AffinePoint> = (0..len).map(|i| points[i % points.len()]).collect();
            // invalid jobs in the middle of bigger batches
            if len >= 5 {
                k[len / 2] = n;
                let mut off = g;
                off.y.0[0] ^= 2;
                q[len / 3] = off;
            }
            let cmp =
                |what: &str, a: Vec<JobResult<AffinePoint>>, b: Vec<JobResult<AffinePoint>>| {
                    assert_eq!(a.len(), len, "{label}: {what} {curve} batch {len}: length");
                    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                        assert_eq!(x, y, "{label}: {what} {curve} batch {len} job {i}");
                    }
                };
            cmp(
                "k·G",
                candidate.mul_base(curve, &k).expect("batch"),
                reference.mul_base(curve, &k).expect("batch"),
            );
            cmp(
                "k·Q",
                candidate.mul_point(curve, &q, &k).expect("batch"),
                reference.mul_point(curve, &q, &k).expect("batch"),
            );
            cmp(
                "u1·G+u2·Q",
                candidate
                    .mul_double_vartime(curve, &k, &k2, &q)
                    .expect("batch"),
                reference
                    .mul_double_vartime(curve, &k, &k2, &q)
                    .expect("batch"),
            );
        }
    }
    for &bits in rsa_bits {
        let moduli = [
            random_modulus(&mut rng, bits / 2),
            random_modulus(&mut rng, bits / 2),
        ];
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let exps = modexp_exponents(&mut rng, bits.div_ceil(128), 6);
        for &len in sizes {
            let bases: Vec<Vec<u64>> = (0..len)
                .map(|i| {
                    modexp_bases(&mut rng, &moduli[i % 2], 4 + i % 5)
                        .pop()
                        .unwrap()
                })
                .collect();
            let jobs: Vec<ModexpJob<'_>> = (0..len)
                .map(|i| ModexpJob {
                    base: &bases[i],
                    exponent: &exps[i % 6],
                    modulus: i % 2,
                })
                .collect();
            assert_eq!(
                candidate.modexp(&mrefs, &jobs).expect("batch"),
                reference.modexp(&mrefs, &jobs).expect("batch"),
                "{label}: modexp {bits}-bit batch {len}"
            );
            assert_eq!(
                candidate.modexp_vartime(&mrefs, &jobs).expect("batch"),
                reference.modexp_vartime(&mrefs, &jobs).expect("batch"),
                "{label}: modexp_vartime {bits}-bit batch {len}"
            );
        }
    }
}

/// Verification batches where points repeat (the shared-point path of `crate::shared`): per
/// curve, a batch of `per_key` jobs under each of three keys (one of them `G`), interleaved
/// with jobs under distinct keys, the identity and an off-curve point, edge scalars in every
/// group (0, 1, n−1, and `n` itself, which must fail alone), and the sum `O` (`u₂ = n − u₁`
/// under `Q = G`). The candidate's batch must match the reference run one job per call
/// (never grouped), result for result.
pub fn check_shared_points_vs_reference(
    reference: &dyn Backend,
    candidate: &dyn Backend,
    per_key: usize,
    seed: u64,
) {
    for &curve in candidate.curves() {
        let mut r = rng(seed ^ curve.bits() as u64);
        let g = curve.generator();
        let key_scalars = ec_scalars(&mut r, curve, 12);
        let keys: Vec<AffinePoint> = reference
            .mul_base(curve, &key_scalars[6..])
            .expect("batch")
            .into_iter()
            .map(|p| p.expect("key"))
            .collect();
        let shared = [g, keys[0], keys[1]];
        let n = curve.order();
        let mut off = keys[2];
        off.y = off.x; // not on the curve
        let (mut u1, mut u2, mut pts) = (Vec::new(), Vec::new(), Vec::new());
        let scalars = ec_scalars(&mut r, curve, 2 * per_key + 8);
        for i in 0..per_key {
            for (s, q) in shared.iter().enumerate() {
                u1.push(scalars[i]);
                u2.push(scalars[per_key + i + s]);
                pts.push(*q);
            }
            // something else between the group members
            let other = match i % 4 {
                0 => keys[2 + (i / 4) % 4],
                1 => AffinePoint::IDENTITY,
                2 => off,
                _ => g,
            };
            u1.push(scalars[(i + 3) % scalars.len()]);
            u2.push(scalars[(i + 5) % scalars.len()]);
            pts.push(other);
        }
        // an out-of-range scalar in a group, and u₁·G + u₂·G = O
        u1.push(n);
        u2.push(scalars[1]);
        pts.push(keys[0]);
        let k = scalars[7];
        let minus_k =
            Uint::from_limbs(&(to_big(&n.0) - to_big(&k.0)).to_u64_digits()).expect("fits");
        u1.push(k);
        u2.push(minus_k);
        pts.push(g);
        let got = candidate
            .mul_double_vartime(curve, &u1, &u2, &pts)
            .expect("batch");
        assert_eq!(got.len(), pts.len());
        for i in 0..pts.len() {
            let want = reference
                .mul_double_vartime(curve, &u1[i..=i], &u2[i..=i], &pts[i..=i])
                .expect("batch")
                .remove(0);
            assert_eq!(
                got[i],
                want,
                "{} {curve:?} job {i} of {}",
                candidate.name(),
                pts.len()
            );
        }
        assert!(
            got.last().expect("jobs").as_ref().expect("valid").infinity,
            "u₁·G + (n − u₁)·G = O"
        );
    }
}
