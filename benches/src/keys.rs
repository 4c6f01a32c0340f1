//! The keys of the distinct-key verify cells: a pool of public keys, each with signatures made
//! (on the reference backend, before any timing) over `message(p)`, and the batches built
//! from it. Pool entry `p` is signed by key `p mod K`; job `i` of a batch takes entry
//! `i mod entries`, so consecutive jobs have different keys and a batch of `n` jobs holds
//! `min(n, K)` distinct keys.
//!
//! - **ECDSA**: a generated key per job — `K = min(jobs, ECDSA_MAX_KEYS)`, and never fewer than
//!   one key per [`MAX_JOBS_PER_KEY`] jobs; seeded, so every run verifies the same keys.
//! - **RSA-2048 … 4096**: [`RSA_MODULI`] distinct moduli (the crate's fixed test key and
//!   keys generated from fixed seeds, cached as PEM next to the executable), cycled over the
//!   jobs. Generating an RSA key takes 0.1–5 s here, so thousands are out of reach.
//! - **RSA-7680 and 15360**: the one fixed key (`RsaPrivateKey::generate` stops at 8192 bits
//!   and 7680-bit keys take minutes).
//!
//! Every RSA job nevertheless carries its own public-key object, and batchsig groups RSA keys
//! by object (`rsa::verify_batch`), so each job's modulus is prepared on its own — Montgomery
//! constants, `R² mod n` — exactly as in a batch of unrelated keys. For 2048–4096 bits the
//! eight moduli in rotation also keep equal moduli out of one (up to 8-lane) SIMD group. The test
//! `distinct_batches_reach_the_backend_as_distinct_keys` fails if that grouping changes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use batch_core::{Backend, Curve};
use batchsig::ecdsa::{self, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignJob, NonceMode};
use batchsig::rsa::{self, RsaPrivateKey, RsaPublicKey, RsaSignJob};
use batchsig::test_keys;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde::Serialize;

use crate::alg::Alg;
use crate::measure::{message, JobKeys, Signatures, VerifyBatch, RSA_SCHEME};

/// ECDSA keys of a pool at most (a batch larger than this cycles them).
pub const ECDSA_MAX_KEYS: usize = 4096;
/// A pool never leaves more jobs than this per key.
pub const MAX_JOBS_PER_KEY: usize = 8;
/// Distinct RSA moduli for the sizes key generation handles in seconds (2048–4096 bits).
pub const RSA_MODULI: usize = 8;
/// Largest RSA size with generated keys; larger sizes use the one fixed key.
pub const RSA_GENERATED_MAX_BITS: usize = 4096;
/// Messages (and signatures) per RSA key in a pool.
const RSA_MESSAGES_PER_KEY: usize = 2;

/// The keys of a timed batch, as the report states them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyInfo {
    /// Distinct public keys in each batch.
    pub distinct: usize,
    /// Whether every job carries its own public-key object (prepared on its own, as for
    /// unrelated keys); `false`: one key object serves the whole batch.
    pub per_job: bool,
    /// Where the keys come from.
    pub source: String,
}

impl KeyInfo {
    /// One fixed key for the whole batch (signing, and the one-key verify path).
    pub fn one_fixed() -> Self {
        Self {
            distinct: 1,
            per_job: false,
            source: "the fixed test key".into(),
        }
    }

    /// Short form for the table's legend: `8 keys cycled, one key object per job`.
    pub fn describe(&self, jobs: usize) -> String {
        if !self.per_job {
            return "one key for the whole batch".into();
        }
        if self.distinct >= jobs {
            format!("a key per job ({} keys)", self.distinct)
        } else {
            format!(
                "{} keys cycled over {jobs} jobs, a key object per job",
                self.distinct
            )
        }
    }
}

enum Pool {
    Rsa {
        keys: Vec<RsaPublicKey>,
        sigs: Vec<Vec<u8>>,
    },
    Ecdsa {
        keys: Vec<EcdsaPublicKey>,
        sigs: Vec<ecdsa::EcdsaSignature>,
    },
}

/// Distinct verification keys of one algorithm and their signatures.
pub struct KeyPool {
    pub alg: Alg,
    pool: Pool,
    source: String,
}

impl core::fmt::Debug for KeyPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyPool")
            .field("alg", &self.alg)
            .field("keys", &self.keys())
            .field("entries", &self.entries())
            .finish_non_exhaustive()
    }
}

/// Distinct keys of the pool for batches of up to `jobs` jobs.
pub fn pool_keys(alg: Alg, jobs: usize) -> usize {
    let jobs = jobs.max(1);
    match alg {
        Alg::Ecdsa(_) => jobs
            .min(ECDSA_MAX_KEYS)
            .max(jobs.div_ceil(MAX_JOBS_PER_KEY)),
        Alg::Rsa(bits) if bits <= RSA_GENERATED_MAX_BITS => jobs.min(RSA_MODULI),
        Alg::Rsa(_) => 1,
    }
}

/// Units of work [`KeyPool::new`] reports to its progress callback (keys, then signatures).
pub fn pool_work(alg: Alg, jobs: usize) -> u64 {
    let k = pool_keys(alg, jobs);
    let entries = match alg {
        Alg::Rsa(_) => k * RSA_MESSAGES_PER_KEY,
        Alg::Ecdsa(_) => k,
    };
    (k + entries) as u64
}

/// Where generated RSA keys are cached: `batch-speed-keys/` beside the executable (for a
/// criterion bench in `target/release/deps/`, beside `target/release/`).
pub fn default_cache_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let mut dir = exe.parent()?.to_path_buf();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    Some(dir.join("batch-speed-keys"))
}

fn ecdsa_seed(curve: Curve, i: usize) -> u64 {
    0xEC00_0000_0000_0000 | (curve.bits() as u64) << 32 | i as u64
}

fn rsa_seed(bits: usize, i: usize) -> u64 {
    0x5A00_0000_0000_0000 | (bits as u64) << 32 | i as u64
}

/// The generated RSA key `i` of `bits` bits: from the cache if it holds a valid one, else
/// generated from its seed and written there (atomically: concurrent runs may share the
/// cache). Returns the key and whether it came from the cache.
fn rsa_generated(
    bits: usize,
    i: usize,
    cache: Option<&Path>,
) -> Result<(RsaPrivateKey, bool), String> {
    let file = cache.map(|d| d.join(format!("rsa{bits}-seed{i}.pem")));
    if let Some(f) = &file {
        if let Ok(pem) = std::fs::read(f) {
            if let Ok(k) = RsaPrivateKey::from_pem_or_der(&pem) {
                if k.bits() == bits {
                    return Ok((k, true));
                }
            }
        }
    }
    let mut rng = ChaCha20Rng::seed_from_u64(rsa_seed(bits, i));
    let key = RsaPrivateKey::generate(&mut rng, bits)
        .map_err(|e| format!("generating RSA-{bits} key {i}: {e}"))?;
    if let (Some(f), Some(dir)) = (&file, cache) {
        // Best effort: without a cache the key is generated again next run.
        let tmp = dir.join(format!("rsa{bits}-seed{i}.pem.{}.tmp", std::process::id()));
        let written = std::fs::create_dir_all(dir).is_ok()
            && key
                .to_pkcs8_pem()
                .is_ok_and(|pem| std::fs::write(&tmp, pem.as_bytes()).is_ok())
            && std::fs::rename(&tmp, f).is_ok();
        if !written {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    Ok((key, false))
}

/// `f(0), …, f(n − 1)` in order, on plain scoped threads, as many as the current rayon pool
/// has. Not on rayon itself: `EcdsaPrivateKey::generate` runs on a private one-thread rayon
/// pool, and a rayon worker waiting for another pool steals the next job meanwhile, so
/// thousands of keys would nest that deep and overflow the stack.
fn spread<T: Send>(
    n: usize,
    f: impl Fn(usize) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let threads = rayon::current_num_threads().clamp(1, n.max(1));
    let f = &f;
    let parts: Vec<Vec<(usize, Result<T, String>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || (t..n).step_by(threads).map(|i| (i, f(i))).collect()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a key generation thread panicked"))
            .collect()
    });
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        out[i] = Some(r?);
    }
    Ok(out
        .into_iter()
        .map(|x| x.expect("every index ran"))
        .collect())
}

impl KeyPool {
    /// Makes the pool for batches of up to `jobs` jobs: keys (RSA keys beyond the fixed one
    /// from `cache` when there), then their signatures on `reference`. Runs on the current
    /// rayon pool; `progress` is told of each unit of [`pool_work`] done.
    pub fn new(
        alg: Alg,
        reference: &dyn Backend,
        jobs: usize,
        cache: Option<&Path>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Self, String> {
        let k = pool_keys(alg, jobs);
        match alg {
            Alg::Rsa(bits) => {
                let cached = AtomicU64::new(0);
                let private: Vec<RsaPrivateKey> = spread(k, |i| {
                    let key = if i == 0 {
                        test_keys::rsa(bits)
                    } else {
                        let (key, hit) = rsa_generated(bits, i, cache)?;
                        cached.fetch_add(u64::from(hit), Ordering::Relaxed);
                        key
                    };
                    progress(1);
                    Ok(key)
                })?;
                let entries = k * RSA_MESSAGES_PER_KEY;
                let msgs: Vec<Vec<u8>> = (0..entries).map(message).collect();
                let digests: Vec<Vec<u8>> =
                    msgs.iter().map(|m| RSA_SCHEME.hash.digest(m)).collect();
                let jobs: Vec<RsaSignJob<'_>> = digests
                    .iter()
                    .enumerate()
                    .map(|(p, d)| RsaSignJob {
                        key: &private[p % k],
                        digest: d,
                    })
                    .collect();
                let mut rng = ChaCha20Rng::seed_from_u64(rsa_seed(bits, usize::MAX >> 32));
                let sigs = rsa::sign_batch(reference, RSA_SCHEME, &jobs, &mut rng)
                    .map_err(|e| format!("signing with the RSA key pool: {e}"))?
                    .into_iter()
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("signing with the RSA key pool: {e}"))?;
                progress(entries as u64);
                let source = if k == 1 {
                    format!("the fixed RSA-{bits} test key (no generated keys above {RSA_GENERATED_MAX_BITS} bits)")
                } else {
                    let dir = cache.map_or("not cached".to_string(), |d| {
                        format!("cached in {}", d.display())
                    });
                    format!(
                        "the fixed RSA-{bits} test key and {} generated from fixed seeds ({} from the cache, {dir})",
                        k - 1,
                        cached.into_inner()
                    )
                };
                Ok(Self {
                    alg,
                    pool: Pool::Rsa {
                        keys: private.iter().map(|p| p.public_key().clone()).collect(),
                        sigs,
                    },
                    source,
                })
            }
            Alg::Ecdsa(curve) => {
                let private: Vec<EcdsaPrivateKey> = spread(k, |i| {
                    let mut rng = ChaCha20Rng::seed_from_u64(ecdsa_seed(curve, i));
                    let key = EcdsaPrivateKey::generate(curve, &mut rng)
                        .map_err(|e| format!("generating {curve} key {i}: {e}"));
                    progress(1);
                    key
                })?;
                let hash = ecdsa::curve_hash(curve);
                let digests: Vec<Vec<u8>> = (0..k).map(|p| hash.digest(&message(p))).collect();
                let jobs: Vec<EcdsaSignJob<'_>> = private
                    .iter()
                    .zip(&digests)
                    .map(|(key, d)| EcdsaSignJob { key, digest: d })
                    .collect();
                let mut rng = ChaCha20Rng::seed_from_u64(ecdsa_seed(curve, usize::MAX >> 32));
                let sigs = ecdsa::sign_batch(reference, hash, &jobs, NonceMode::Hedged, &mut rng)
                    .map_err(|e| format!("signing with the {curve} key pool: {e}"))?
                    .into_iter()
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("signing with the {curve} key pool: {e}"))?;
                progress(k as u64);
                Ok(Self {
                    alg,
                    pool: Pool::Ecdsa {
                        keys: private.iter().map(|p| *p.public_key()).collect(),
                        sigs,
                    },
                    source: format!("{k} {curve} keys generated from fixed seeds"),
                })
            }
        }
    }

    /// Distinct keys in the pool.
    pub fn keys(&self) -> usize {
        match &self.pool {
            Pool::Rsa { keys, .. } => keys.len(),
            Pool::Ecdsa { keys, .. } => keys.len(),
        }
    }

    /// Whether no two keys of the pool are equal (by value).
    pub fn keys_are_distinct(&self) -> bool {
        fn distinct<T: PartialEq>(v: &[T]) -> bool {
            v.iter().enumerate().all(|(i, a)| !v[..i].contains(a))
        }
        match &self.pool {
            Pool::Rsa { keys, .. } => distinct(keys),
            Pool::Ecdsa { keys, .. } => distinct(keys),
        }
    }

    /// Signed messages in the pool (a batch cycles them).
    pub fn entries(&self) -> usize {
        match &self.pool {
            Pool::Rsa { sigs, .. } => sigs.len(),
            Pool::Ecdsa { sigs, .. } => sigs.len(),
        }
    }

    /// What a batch of `n` jobs from this pool holds.
    pub fn info(&self, n: usize) -> KeyInfo {
        KeyInfo {
            distinct: n.min(self.keys()),
            per_job: true,
            source: self.source.clone(),
        }
    }

    /// A batch of `n` jobs, each with its own key object: job `i` takes pool entry
    /// `i mod entries`, signed by key `i mod keys`.
    pub fn batch(&self, n: usize) -> VerifyBatch {
        let e = self.entries();
        let msgs: Vec<Vec<u8>> = (0..n).map(|i| message(i % e)).collect();
        let (keys, sigs) = match &self.pool {
            Pool::Rsa { keys, sigs } => (
                JobKeys::Rsa((0..n).map(|i| keys[i % keys.len()].clone()).collect()),
                Signatures::Rsa((0..n).map(|i| sigs[i % e].clone()).collect()),
            ),
            Pool::Ecdsa { keys, sigs } => (
                JobKeys::Ecdsa((0..n).map(|i| keys[i % keys.len()]).collect()),
                Signatures::Ecdsa((0..n).map(|i| sigs[i % e]).collect()),
            ),
        };
        VerifyBatch::new(msgs, keys, sigs, self.info(n))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use batch_core::{AffinePoint, EcUint, Error, Forward, JobResult, ModexpJob};

    use super::*;

    /// The scalar backend, recording how many moduli and distinct points each call gets.
    #[derive(Debug, Default)]
    struct Counting {
        inner: batch_scalar::ScalarBackend,
        moduli: Mutex<Vec<usize>>,
        points: Mutex<Vec<usize>>,
    }

    impl Forward for Counting {
        fn inner(&self) -> &dyn Backend {
            &self.inner
        }
        fn name(&self) -> &'static str {
            "counting"
        }
        fn description(&self) -> String {
            "scalar, counting keys".into()
        }
        fn modexp_vartime(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.moduli.lock().unwrap().push(moduli.len());
            self.inner.modexp_vartime(moduli, jobs)
        }
        fn mul_double_vartime(
            &self,
            c: Curve,
            u1: &[EcUint],
            u2: &[EcUint],
            q: &[AffinePoint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            let mut distinct: Vec<&AffinePoint> = Vec::new();
            for p in q {
                if !distinct.contains(&p) {
                    distinct.push(p);
                }
            }
            self.points.lock().unwrap().push(distinct.len());
            self.inner.mul_double_vartime(c, u1, u2, q)
        }
    }

    #[test]
    fn spread_keeps_order_and_reports_errors() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let v = pool.install(|| spread(10, |i| Ok(i * i))).unwrap();
        assert_eq!(v, (0..10).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(spread(0, Ok).unwrap(), Vec::<usize>::new());
        let e = spread(5, |i| {
            if i == 3 {
                Err(format!("bad {i}"))
            } else {
                Ok(i)
            }
        });
        assert_eq!(e.unwrap_err(), "bad 3");
    }

    #[test]
    fn pool_sizes_follow_the_rules() {
        let p256 = Alg::Ecdsa(Curve::P256);
        assert_eq!(pool_keys(p256, 1), 1);
        assert_eq!(pool_keys(p256, 4096), 4096);
        assert_eq!(pool_keys(p256, 16384), 4096);
        assert_eq!(
            pool_keys(p256, 65536),
            8192,
            "never more than 8 jobs per key"
        );
        assert_eq!(pool_keys(Alg::Rsa(2048), 3), 3);
        assert_eq!(pool_keys(Alg::Rsa(4096), 4096), RSA_MODULI);
        assert_eq!(pool_keys(Alg::Rsa(7680), 4096), 1);
        assert_eq!(pool_work(Alg::Rsa(3072), 4096), 8 + 16);
    }

    /// The distinct-key path must reach the backend as distinct keys: one modulus per RSA
    /// job, one point per ECDSA job; the one-key path as one key.
    #[test]
    fn distinct_batches_reach_the_backend_as_distinct_keys() {
        let scalar = batch_scalar::ScalarBackend::new();
        let dir = tempfile::tempdir().unwrap();
        let done = AtomicU64::new(0);
        for (alg, n) in [(Alg::Rsa(2048), 7), (Alg::Ecdsa(Curve::P256), 5)] {
            done.store(0, Ordering::Relaxed);
            let pool = KeyPool::new(alg, &scalar, 3, Some(dir.path()), &|d| {
                done.fetch_add(d, Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(pool.keys(), 3, "{alg}");
            assert!(pool.keys_are_distinct(), "{alg}");
            assert_eq!(done.load(Ordering::Relaxed), pool_work(alg, 3), "{alg}");
            let b = pool.batch(n);
            assert_eq!(b.len(), n);
            assert_eq!(b.keys().distinct, 3);
            assert!(b.keys().per_job);
            let counting = Counting::default();
            assert!(b.verify(&counting).unwrap().iter().all(|&ok| ok), "{alg}");
            let work = crate::measure::Workload::new(alg);
            let sigs = work.sign(&scalar, &crate::measure::messages(n)).unwrap();
            let one = work.one_key_batch(&crate::measure::messages(n), &sigs);
            assert_eq!(one.keys(), &KeyInfo::one_fixed());
            assert!(one.verify(&counting).unwrap().iter().all(|&ok| ok), "{alg}");
            match alg {
                Alg::Rsa(_) => assert_eq!(*counting.moduli.lock().unwrap(), [n, 1]),
                Alg::Ecdsa(_) => assert_eq!(*counting.points.lock().unwrap(), [3, 1]),
            }
            // A tampered job is rejected.
            assert_eq!(b.tampered().verify(&scalar).unwrap(), [false], "{alg}");
        }
        // The generated RSA keys were cached and are read back, distinct from each other.
        let again = KeyPool::new(Alg::Rsa(2048), &scalar, 3, Some(dir.path()), &|_| {}).unwrap();
        assert!(
            again.source.contains("2 from the cache"),
            "{}",
            again.source
        );
        assert!(again.keys_are_distinct());
    }
}
