//! Timed cells: one backend × algorithm × operation, run over whole batches for a fixed time.
//!
//! Operations: `sign` (the fixed test key), `verify` (distinct keys, from a [`KeyPool`]: see
//! `keys.rs` for how many per algorithm) and `verify-one-key` (every job under the fixed key:
//! the shared-key path).
//!
//! A cell's figure only counts if its outputs check out: a sample of each signing batch is
//! verified on the scalar reference backend, every verification of a genuine signature must
//! pass, and a tampered signature must be rejected — so a broken backend cannot post a fast
//! number.

use std::time::{Duration, Instant};

use batch_core::Backend;
use batchsig::ecdsa::{self, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature, EcdsaVerifyJob};
use batchsig::rsa::{self, RsaPrivateKey, RsaPublicKey, RsaScheme, RsaVerifyJob};
use batchsig::{test_keys, Error, HashAlg};
use rayon::prelude::*;

use crate::alg::Alg;
use crate::keys::{KeyInfo, KeyPool};

/// What a cell times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Sign,
    /// Verification under distinct keys (the figure compared with OpenSSL).
    Verify,
    /// Verification with one key for the whole batch.
    VerifyOneKey,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Sign, Op::Verify, Op::VerifyOneKey];

    /// The JSON `operation`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Sign => "sign",
            Op::Verify => "verify",
            Op::VerifyOneKey => "verify-one-key",
        }
    }

    /// For chart captions.
    pub fn title(self) -> &'static str {
        match self {
            Op::Sign => "sign",
            Op::Verify => "verify (distinct keys)",
            Op::VerifyOneKey => "verify (one key)",
        }
    }
}

/// RSA padding used for the figures: PKCS#1 v1.5 with SHA-256, as `openssl speed rsa` does.
pub const RSA_SCHEME: RsaScheme = RsaScheme::pkcs1v15(HashAlg::Sha256);

enum Key {
    Rsa(RsaPrivateKey),
    Ecdsa(EcdsaPrivateKey),
}

/// Signatures of either kind, in batch order.
#[derive(Clone, Debug)]
pub enum Signatures {
    Rsa(Vec<Vec<u8>>),
    Ecdsa(Vec<EcdsaSignature>),
}

impl Signatures {
    pub fn len(&self) -> usize {
        match self {
            Signatures::Rsa(v) => v.len(),
            Signatures::Ecdsa(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `n` signatures, cycling when there are fewer.
    pub fn cycle_to(&self, n: usize) -> Signatures {
        match self {
            Signatures::Rsa(v) => Signatures::Rsa(v.iter().cycle().take(n).cloned().collect()),
            Signatures::Ecdsa(v) => Signatures::Ecdsa(v.iter().cycle().take(n).cloned().collect()),
        }
    }
}

/// The public keys of a verify batch: one for every job, or a single one for all.
#[derive(Clone, Debug)]
pub enum JobKeys {
    Rsa(Vec<RsaPublicKey>),
    Ecdsa(Vec<EcdsaPublicKey>),
}

impl JobKeys {
    fn len(&self) -> usize {
        match self {
            JobKeys::Rsa(v) => v.len(),
            JobKeys::Ecdsa(v) => v.len(),
        }
    }
}

/// A verify batch, built before timing: messages, keys and signatures.
#[derive(Clone, Debug)]
pub struct VerifyBatch {
    msgs: Vec<Vec<u8>>,
    keys: JobKeys,
    sigs: Signatures,
    info: KeyInfo,
}

impl VerifyBatch {
    /// `keys` holds one key per job, or one key for all of them.
    pub(crate) fn new(msgs: Vec<Vec<u8>>, keys: JobKeys, sigs: Signatures, info: KeyInfo) -> Self {
        assert_eq!(msgs.len(), sigs.len(), "one signature per message");
        assert!(
            keys.len() == 1 || keys.len() == msgs.len(),
            "one key per job, or one for all"
        );
        Self {
            msgs,
            keys,
            sigs,
            info,
        }
    }

    pub fn len(&self) -> usize {
        self.msgs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.msgs.is_empty()
    }

    /// Messages, keys (one per job, or one for all) and signatures, in job order.
    pub fn parts(&self) -> (&[Vec<u8>], &JobKeys, &Signatures) {
        (&self.msgs, &self.keys, &self.sigs)
    }

    /// The keys, as the report states them.
    pub fn keys(&self) -> &KeyInfo {
        &self.info
    }

    /// Verifies the batch on `backend`, hashing included: one verdict per job. One key goes
    /// through that key's `verify_batch`; per-job keys through the multi-key
    /// `rsa::verify_batch` / `ecdsa::verify_batch`.
    pub fn verify(&self, backend: &dyn Backend) -> Result<Vec<bool>, Error> {
        let m = refs(&self.msgs);
        let verdicts = match (&self.keys, &self.sigs) {
            (JobKeys::Rsa(k), Signatures::Rsa(s)) if k.len() == 1 => {
                k[0].verify_batch(backend, RSA_SCHEME, &m, &refs(s))?
            }
            (JobKeys::Rsa(k), Signatures::Rsa(s)) => {
                let digests: Vec<Vec<u8>> =
                    m.par_iter().map(|m| RSA_SCHEME.hash.digest(m)).collect();
                let jobs: Vec<RsaVerifyJob<'_>> = k
                    .iter()
                    .zip(&digests)
                    .zip(s)
                    .map(|((key, digest), signature)| RsaVerifyJob {
                        key,
                        digest,
                        signature,
                    })
                    .collect();
                rsa::verify_batch(backend, RSA_SCHEME, &jobs)?
            }
            (JobKeys::Ecdsa(k), Signatures::Ecdsa(s)) if k.len() == 1 => {
                k[0].verify_batch(backend, &m, s)?
            }
            (JobKeys::Ecdsa(k), Signatures::Ecdsa(s)) => {
                let hash = ecdsa::curve_hash(k[0].curve());
                let digests: Vec<Vec<u8>> = m.par_iter().map(|m| hash.digest(m)).collect();
                let jobs: Vec<EcdsaVerifyJob<'_>> = k
                    .iter()
                    .zip(&digests)
                    .zip(s)
                    .map(|((key, digest), signature)| EcdsaVerifyJob {
                        key,
                        digest,
                        signature,
                    })
                    .collect();
                ecdsa::verify_batch(backend, hash, &jobs)?
            }
            _ => {
                return Err(Error::Backend(
                    "signature kind does not match the key".into(),
                ))
            }
        };
        Ok(verdicts.iter().map(Result::is_ok).collect())
    }

    /// The first job alone, its signature's last byte flipped.
    pub fn tampered(&self) -> VerifyBatch {
        let sigs = match &self.sigs {
            Signatures::Rsa(v) => {
                let mut s = v[0].clone();
                let last = s.len() - 1;
                s[last] ^= 1;
                Signatures::Rsa(vec![s])
            }
            Signatures::Ecdsa(v) => {
                let mut b = v[0].to_bytes();
                let last = b.len() - 1;
                b[last] ^= 1;
                Signatures::Ecdsa(vec![EcdsaSignature::from_bytes(v[0].curve(), &b)
                    .expect("a flipped low bit of s keeps the encoding valid")])
            }
        };
        let keys = match &self.keys {
            JobKeys::Rsa(k) => JobKeys::Rsa(vec![k[0].clone()]),
            JobKeys::Ecdsa(k) => JobKeys::Ecdsa(vec![k[0]]),
        };
        VerifyBatch::new(
            vec![self.msgs[0].clone()],
            keys,
            sigs,
            KeyInfo {
                distinct: 1,
                ..self.info.clone()
            },
        )
    }

    /// Checks that every genuine signature verifies on `backend`.
    fn check_all_verify(&self, backend: &dyn Backend) -> Result<(), String> {
        let v = self
            .verify(backend)
            .map_err(|e| format!("verify failed: {e}"))?;
        match v.iter().position(|ok| !ok) {
            Some(i) => Err(format!("a genuine signature (job {i}) was rejected")),
            None => Ok(()),
        }
    }

    /// Checks that `backend` rejects a tampered signature (so its verdicts mean something).
    pub fn check_rejects_tampered(&self, backend: &dyn Backend) -> Result<(), String> {
        match self.tampered().verify(backend) {
            Ok(v) if v == [false] => Ok(()),
            Ok(_) => Err("a tampered signature verified".into()),
            Err(e) => Err(format!(
                "verify of a tampered signature failed as a batch: {e}"
            )),
        }
    }
}

/// The fixed private key of a [`Workload`], for libraries that load it themselves (peers).
#[derive(Clone, Copy, Debug)]
pub enum KeyRef<'a> {
    Rsa(&'a RsaPrivateKey),
    Ecdsa(&'a EcdsaPrivateKey),
}

/// The fixed key of one algorithm and the messages `i = 0, 1, …` it signs.
pub struct Workload {
    pub alg: Alg,
    key: Key,
}

impl core::fmt::Debug for Workload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Workload").field("alg", &self.alg).finish()
    }
}

/// The message of job `i` (distinct per job, so no cache can help).
pub fn message(i: usize) -> Vec<u8> {
    format!("batch-speed message {i}").into_bytes()
}

/// `n` messages.
pub fn messages(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(message).collect()
}

fn refs(v: &[Vec<u8>]) -> Vec<&[u8]> {
    v.iter().map(Vec::as_slice).collect()
}

/// All jobs of a batch must succeed; the first failure becomes the batch's error.
fn all_ok<T>(results: Vec<Result<T, Error>>) -> Result<Vec<T>, Error> {
    results.into_iter().collect()
}

impl Workload {
    /// Loads the fixed test key for `alg`.
    pub fn new(alg: Alg) -> Self {
        let key = match alg {
            Alg::Rsa(bits) => Key::Rsa(test_keys::rsa(bits)),
            Alg::Ecdsa(c) => Key::Ecdsa(test_keys::ecdsa(c)),
        };
        Self { alg, key }
    }

    /// The fixed private key.
    pub fn key(&self) -> KeyRef<'_> {
        match &self.key {
            Key::Rsa(k) => KeyRef::Rsa(k),
            Key::Ecdsa(k) => KeyRef::Ecdsa(k),
        }
    }

    /// Signs `msgs` on `backend`; every job must succeed.
    pub fn sign(&self, backend: &dyn Backend, msgs: &[Vec<u8>]) -> Result<Signatures, Error> {
        let m = refs(msgs);
        Ok(match &self.key {
            Key::Rsa(k) => Signatures::Rsa(all_ok(k.sign_batch(backend, RSA_SCHEME, &m)?)?),
            Key::Ecdsa(k) => Signatures::Ecdsa(all_ok(k.sign_batch(backend, &m)?)?),
        })
    }

    /// The one-key batch: `sigs` over `msgs`, every job under the fixed key.
    pub fn one_key_batch(&self, msgs: &[Vec<u8>], sigs: &Signatures) -> VerifyBatch {
        let keys = match &self.key {
            Key::Rsa(k) => JobKeys::Rsa(vec![k.public_key().clone()]),
            Key::Ecdsa(k) => JobKeys::Ecdsa(vec![*k.public_key()]),
        };
        VerifyBatch::new(msgs.to_vec(), keys, sigs.clone(), KeyInfo::one_fixed())
    }

    /// Verifies `sigs` over `msgs` on `backend` under the fixed key: one verdict per job.
    pub fn verify(
        &self,
        backend: &dyn Backend,
        msgs: &[Vec<u8>],
        sigs: &Signatures,
    ) -> Result<Vec<bool>, Error> {
        if msgs.len() != sigs.len() {
            return Err(Error::LengthMismatch {
                what: "signatures",
                expected: msgs.len(),
                got: sigs.len(),
            });
        }
        self.one_key_batch(msgs, sigs).verify(backend)
    }

    /// Checks a sample of `sigs` (signatures of `message(0..)`) on `reference`: the first
    /// few and the last must verify.
    pub fn check_signatures(
        &self,
        reference: &dyn Backend,
        sigs: &Signatures,
    ) -> Result<(), String> {
        let n = sigs.len();
        let mut idx: Vec<usize> = (0..n.min(4)).collect();
        if n > 4 {
            idx.push(n - 1);
        }
        let msgs: Vec<Vec<u8>> = idx.iter().map(|&i| message(i)).collect();
        let sample = match sigs {
            Signatures::Rsa(v) => Signatures::Rsa(idx.iter().map(|&i| v[i].clone()).collect()),
            Signatures::Ecdsa(v) => Signatures::Ecdsa(idx.iter().map(|&i| v[i]).collect()),
        };
        let verdicts = self
            .verify(reference, &msgs, &sample)
            .map_err(|e| format!("reference verify: {e}"))?;
        match verdicts.iter().position(|ok| !ok) {
            Some(j) => Err(format!(
                "signature {} does not verify on the reference backend",
                idx[j]
            )),
            None => Ok(()),
        }
    }

    /// Checks that `backend` rejects a tampered signature under the fixed key.
    pub fn check_rejects_tampered(
        &self,
        backend: &dyn Backend,
        sigs: &Signatures,
    ) -> Result<(), String> {
        self.one_key_batch(&[message(0)], &sigs.cycle_to(1))
            .check_rejects_tampered(backend)
    }
}

/// A finished cell.
#[derive(Clone, Debug)]
pub struct CellResult {
    /// Operations done while timing.
    pub ops: usize,
    pub seconds: f64,
    /// Batch size actually used (see [`plan_batch`]).
    pub batch: usize,
}

impl CellResult {
    pub fn ops_per_sec(&self) -> f64 {
        self.ops as f64 / self.seconds
    }
}

/// Runs `f` (which processes one batch of `batch` operations) after one warm-up call, until
/// `secs` have passed and at least one timed batch is done.
pub fn time_batches(
    batch: usize,
    secs: f64,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<CellResult, String> {
    f()?; // warm-up: tables, page faults, thread start
    let (start, mut ops) = (Instant::now(), 0usize);
    loop {
        f()?;
        ops += batch;
        if start.elapsed() >= Duration::from_secs_f64(secs) {
            break;
        }
    }
    Ok(CellResult {
        ops,
        seconds: start.elapsed().as_secs_f64(),
        batch,
    })
}

/// The batch a cell runs: `requested`, unless one batch at `probe_rate` (ops/s measured on a
/// small probe batch) would take longer than `secs` — then as many as fit in `secs`, but at
/// least `min` (so every thread has work). RSA-15360 signs a few per second per core; a
/// batch of thousands would run for an hour.
pub fn plan_batch(requested: usize, probe_rate: f64, secs: f64, min: usize) -> usize {
    let fit = (probe_rate * secs).floor();
    if fit >= requested as f64 {
        requested
    } else {
        (fit as usize).max(min).min(requested)
    }
}

/// The cells of one backend and algorithm.
#[derive(Clone, Debug)]
pub struct AlgCells {
    pub sign: Result<CellResult, String>,
    /// Distinct keys (the pool's).
    pub verify: Result<CellResult, String>,
    /// One key for the whole batch.
    pub verify_one_key: Result<CellResult, String>,
}

impl AlgCells {
    /// The cell of `op`.
    pub fn get(&self, op: Op) -> &Result<CellResult, String> {
        match op {
            Op::Sign => &self.sign,
            Op::Verify => &self.verify,
            Op::VerifyOneKey => &self.verify_one_key,
        }
    }
}

/// Times `batch` (built beforehand) until `secs` have passed; every genuine signature must
/// verify and a tampered one must be rejected.
pub fn time_verify(
    backend: &dyn Backend,
    batch: &VerifyBatch,
    secs: f64,
) -> Result<CellResult, String> {
    time_batches(batch.len(), secs, || batch.check_all_verify(backend))
        .and_then(|r| batch.check_rejects_tampered(backend).map(|()| r))
}

/// The sign, verify (distinct keys from `keys`) and verify-one-key cells of one backend and
/// algorithm, checked; each cell is its figure or the reason it cannot count. Each cell's
/// batch is `batch`, or fewer where a probe says one batch would not fit in `secs`.
#[allow(clippy::too_many_arguments)]
pub fn run_alg(
    backend: &dyn Backend,
    reference: &dyn Backend,
    work: &Workload,
    keys: Result<&KeyPool, &str>,
    batch: usize,
    secs: f64,
    threads: usize,
    mut progress: impl FnMut(Op),
) -> AlgCells {
    let all_failed = |e: String| AlgCells {
        sign: Err(e.clone()),
        verify: Err(e.clone()),
        verify_one_key: Err(e),
    };
    // Probe: a small batch tells how large a batch fits the time.
    // Whole 4-lane groups per thread, so SIMD backends are probed on their fast path.
    let probe_n = batch.min(8 * threads.max(1));
    let probe_msgs = messages(probe_n);
    // Once cold (tables, thread start-up), then timed.
    if let Err(e) = work.sign(backend, &probe_msgs) {
        return all_failed(format!("sign failed: {e}"));
    }
    let start = Instant::now();
    let probe = work
        .sign(backend, &probe_msgs)
        .map_err(|e| format!("sign failed: {e}"));
    let probe_rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
    let probe = match probe {
        Ok(p) => p,
        Err(e) => return all_failed(e),
    };
    let sign_batch = plan_batch(batch, probe_rate, secs, probe_n);
    let msgs = messages(sign_batch);
    let mut last = probe;
    let sign = time_batches(sign_batch, secs, || {
        last = work
            .sign(backend, &msgs)
            .map_err(|e| format!("sign failed: {e}"))?;
        Ok(())
    })
    .and_then(|r| work.check_signatures(reference, &last).map(|()| r));
    progress(Op::Sign);

    // Verify under the pool's distinct keys. Each key is set up on its own, which can make
    // a batch slow (RSA-15360), so it is probed and capped like signing.
    let verify = match keys {
        Ok(pool) => {
            let probe = pool.batch(probe_n);
            let _ = probe.verify(backend); // cold: tables, thread start-up
            let start = Instant::now();
            match probe.verify(backend) {
                Ok(_) => {
                    let rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
                    let n = plan_batch(batch, rate, secs, probe_n);
                    time_verify(backend, &pool.batch(n), secs)
                }
                Err(e) => Err(format!("verify failed: {e}")),
            }
        }
        Err(e) => Err(format!("no distinct keys: {e}")),
    };
    progress(Op::Verify);

    // One key: the signatures made above, cycled to the requested batch.
    if last.len() != sign_batch {
        // The sign cell failed before a full batch: sign the verify inputs on the reference.
        match work.sign(reference, &msgs) {
            Ok(s) => last = s,
            Err(e) => {
                progress(Op::VerifyOneKey);
                return AlgCells {
                    sign,
                    verify,
                    verify_one_key: Err(format!("reference sign failed: {e}")),
                };
            }
        }
    }
    // Probed and capped like the others (4096 RSA-15360 verifications take seconds).
    let one_key = |n: usize| {
        let m: Vec<Vec<u8>> = (0..n).map(|i| message(i % sign_batch)).collect();
        work.one_key_batch(&m, &last.cycle_to(n))
    };
    let probe = one_key(probe_n);
    let _ = probe.verify(backend); // cold
    let start = Instant::now();
    let verify_one_key = match probe.verify(backend) {
        Ok(_) => {
            let rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
            time_verify(
                backend,
                &one_key(plan_batch(batch, rate, secs, probe_n)),
                secs,
            )
        }
        Err(e) => Err(format!("verify failed: {e}")),
    };
    progress(Op::VerifyOneKey);
    AlgCells {
        sign,
        verify,
        verify_one_key,
    }
}

/// One `--sweep` point: `op` at batch `size`. `one_key` holds signatures of `message(0..)`
/// under the fixed key (made and checked once) that one-key batches cycle through; `keys`
/// is the distinct-key pool. Signing outputs are sample-checked on `reference` like the main
/// cells.
#[allow(clippy::too_many_arguments)]
pub fn sweep_point(
    backend: &dyn Backend,
    reference: &dyn Backend,
    work: &Workload,
    op: Op,
    size: usize,
    secs: f64,
    one_key: &Signatures,
    keys: Result<&KeyPool, &str>,
) -> Result<CellResult, String> {
    match op {
        Op::Sign => {
            let msgs = messages(size);
            let mut last = None;
            let r = time_batches(size, secs, || {
                last = Some(
                    work.sign(backend, &msgs)
                        .map_err(|e| format!("sign failed: {e}"))?,
                );
                Ok(())
            })?;
            work.check_signatures(reference, last.as_ref().expect("one batch ran"))?;
            Ok(r)
        }
        Op::Verify => {
            let pool = keys.map_err(|e| format!("no distinct keys: {e}"))?;
            time_verify(backend, &pool.batch(size), secs)
        }
        Op::VerifyOneKey => {
            let msgs: Vec<Vec<u8>> = (0..size).map(|i| message(i % one_key.len())).collect();
            time_verify(
                backend,
                &work.one_key_batch(&msgs, &one_key.cycle_to(size)),
                secs,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_batch_caps_only_slow_cells() {
        assert_eq!(plan_batch(4096, 1e6, 3.0, 4), 4096);
        assert_eq!(plan_batch(4096, 100.0, 3.0, 4), 300);
        assert_eq!(plan_batch(4096, 0.5, 3.0, 4), 4);
        assert_eq!(plan_batch(2, 0.5, 3.0, 4), 2);
    }

    #[test]
    fn cells_check_their_outputs() {
        let scalar = batch_scalar::ScalarBackend::new();
        for alg in [Alg::Rsa(2048), Alg::Ecdsa(batch_core::Curve::P256)] {
            let w = Workload::new(alg);
            let pool = KeyPool::new(alg, &scalar, 2, None, &|_| {}).unwrap();
            let mut order = Vec::new();
            let cells = run_alg(&scalar, &scalar, &w, Ok(&pool), 5, 0.01, 1, |op| {
                order.push(op)
            });
            assert_eq!(order, Op::ALL, "{alg}");
            let s = cells.sign.unwrap();
            // Every cell may be capped to what the probe says fits the time, never below
            // the probe's batch (here all 5 jobs: 8 per thread at most).
            for c in [s, cells.verify.unwrap(), cells.verify_one_key.unwrap()] {
                assert!(c.batch == 5 && c.ops >= c.batch, "{alg}: {c:?}");
            }
            // Without a pool the distinct-key cell fails and says why; the others still run.
            let cells = run_alg(&scalar, &scalar, &w, Err("none made"), 5, 0.01, 1, |_| {});
            assert!(cells.verify.unwrap_err().contains("none made"), "{alg}");
            assert!(cells.verify_one_key.is_ok(), "{alg}");
            // Signatures of other messages must fail the sample check.
            let sigs = w.sign(&scalar, &messages(3)[1..]).unwrap();
            assert!(w.check_signatures(&scalar, &sigs).is_err(), "{alg}");
            assert!(w.check_rejects_tampered(&scalar, &sigs).is_ok(), "{alg}");
        }
    }
}
