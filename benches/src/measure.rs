//! Timed cells: one backend × algorithm × operation, run over whole batches for a fixed time.
//!
//! A cell's figure only counts if its outputs check out: a sample of each signing batch is
//! verified on the scalar reference backend, every verification of a genuine signature must
//! pass, and a tampered signature must be rejected — so a broken backend cannot post a fast
//! number.

use std::time::{Duration, Instant};

use batch_core::Backend;
use batchsig::ecdsa::{EcdsaPrivateKey, EcdsaSignature};
use batchsig::rsa::{RsaPrivateKey, RsaScheme};
use batchsig::{test_keys, Error, HashAlg};

use crate::alg::Alg;

/// What a cell times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Sign,
    Verify,
}

impl Op {
    pub const BOTH: [Op; 2] = [Op::Sign, Op::Verify];

    pub fn name(self) -> &'static str {
        match self {
            Op::Sign => "sign",
            Op::Verify => "verify",
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

    /// Signs `msgs` on `backend`; every job must succeed.
    pub fn sign(&self, backend: &dyn Backend, msgs: &[Vec<u8>]) -> Result<Signatures, Error> {
        let m = refs(msgs);
        Ok(match &self.key {
            Key::Rsa(k) => Signatures::Rsa(all_ok(k.sign_batch(backend, RSA_SCHEME, &m)?)?),
            Key::Ecdsa(k) => Signatures::Ecdsa(all_ok(k.sign_batch(backend, &m)?)?),
        })
    }

    /// Verifies `sigs` over `msgs` on `backend`: one verdict per job.
    pub fn verify(
        &self,
        backend: &dyn Backend,
        msgs: &[Vec<u8>],
        sigs: &Signatures,
    ) -> Result<Vec<bool>, Error> {
        let m = refs(msgs);
        let verdicts = match (&self.key, sigs) {
            (Key::Rsa(k), Signatures::Rsa(s)) => {
                k.public_key()
                    .verify_batch(backend, RSA_SCHEME, &m, &refs(s))?
            }
            (Key::Ecdsa(k), Signatures::Ecdsa(s)) => k.public_key().verify_batch(backend, &m, s)?,
            _ => {
                return Err(Error::Backend(
                    "signature kind does not match the key".into(),
                ))
            }
        };
        Ok(verdicts.iter().map(Result::is_ok).collect())
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
            Signatures::Ecdsa(v) => Signatures::Ecdsa(idx.iter().map(|&i| v[i].clone()).collect()),
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

    /// Checks that `backend` rejects a tampered signature (so its verdicts mean something).
    pub fn check_rejects_tampered(
        &self,
        backend: &dyn Backend,
        sigs: &Signatures,
    ) -> Result<(), String> {
        let tampered = match sigs {
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
                let s = EcdsaSignature::from_bytes(v[0].curve(), &b).map_err(|e| e.to_string())?;
                Signatures::Ecdsa(vec![s])
            }
        };
        match self.verify(backend, &[message(0)], &tampered) {
            Ok(v) if v == [false] => Ok(()),
            Ok(_) => Err("a tampered signature verified".into()),
            Err(e) => Err(format!(
                "verify of a tampered signature failed as a batch: {e}"
            )),
        }
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

/// The sign and verify cells of one backend and algorithm, checked. Returns the sign cell,
/// the verify cell, or the reason the cell cannot count.
pub fn run_alg(
    backend: &dyn Backend,
    reference: &dyn Backend,
    work: &Workload,
    batch: usize,
    secs: f64,
    threads: usize,
    mut progress: impl FnMut(Op),
) -> (Result<CellResult, String>, Result<CellResult, String>) {
    // Probe: a small batch tells how large a batch fits the time.
    // Whole 4-lane groups per thread, so SIMD backends are probed on their fast path.
    let probe_n = batch.min(8 * threads.max(1));
    let probe_msgs = messages(probe_n);
    // Once cold (tables, thread start-up), then timed.
    if let Err(e) = work.sign(backend, &probe_msgs) {
        let e = format!("sign failed: {e}");
        return (Err(e.clone()), Err(e));
    }
    let start = Instant::now();
    let probe = work
        .sign(backend, &probe_msgs)
        .map_err(|e| format!("sign failed: {e}"));
    let probe_rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
    let probe = match probe {
        Ok(p) => p,
        Err(e) => return (Err(e.clone()), Err(e)),
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
    if last.len() != sign_batch {
        // The sign cell failed before a full batch: sign the verify inputs on the reference.
        match work.sign(reference, &msgs) {
            Ok(s) => last = s,
            Err(e) => return (sign, Err(format!("reference sign failed: {e}"))),
        }
    }
    // Verify runs the requested batch, cycling the signatures made above.
    let vmsgs: Vec<Vec<u8>> = (0..batch).map(|i| message(i % sign_batch)).collect();
    let vsigs = last.cycle_to(batch);
    let verify = time_batches(batch, secs, || {
        let v = work
            .verify(backend, &vmsgs, &vsigs)
            .map_err(|e| format!("verify failed: {e}"))?;
        match v.iter().position(|ok| !ok) {
            Some(i) => Err(format!("a genuine signature (job {i}) was rejected")),
            None => Ok(()),
        }
    })
    .and_then(|r| work.check_rejects_tampered(backend, &vsigs).map(|()| r));
    progress(Op::Verify);
    (sign, verify)
}

/// One `--sweep` point: `op` at batch `size`. `pool` holds signatures of `message(0..)` (made
/// and checked once) that verify batches cycle through. Signing outputs are sample-checked on
/// `reference` like the main cells.
pub fn sweep_point(
    backend: &dyn Backend,
    reference: &dyn Backend,
    work: &Workload,
    op: Op,
    size: usize,
    secs: f64,
    pool: &Signatures,
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
            let msgs: Vec<Vec<u8>> = (0..size).map(|i| message(i % pool.len())).collect();
            let sigs = pool.cycle_to(size);
            time_batches(size, secs, || {
                let v = work
                    .verify(backend, &msgs, &sigs)
                    .map_err(|e| format!("verify failed: {e}"))?;
                match v.iter().position(|ok| !ok) {
                    Some(i) => Err(format!("a genuine signature (job {i}) was rejected")),
                    None => Ok(()),
                }
            })
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
            let (s, v) = run_alg(&scalar, &scalar, &w, 5, 0.01, 1, |_| {});
            let (s, v) = (s.unwrap(), v.unwrap());
            // Signing may be capped (the probe sees a cold, slow first batch); verify is not.
            assert!(
                (2..=5).contains(&s.batch) && s.ops >= s.batch,
                "{alg}: {s:?}"
            );
            assert!(v.batch == 5 && v.ops >= 5, "{alg}: {v:?}");
            // Signatures of other messages must fail the sample check.
            let sigs = w.sign(&scalar, &messages(3)[1..]).unwrap();
            assert!(w.check_signatures(&scalar, &sigs).is_err(), "{alg}");
            assert!(w.check_rejects_tampered(&scalar, &sigs).is_ok(), "{alg}");
        }
    }
}
