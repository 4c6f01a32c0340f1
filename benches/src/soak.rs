//! The soak and concurrency test (`batch-speed --soak SECONDS`, and a short run in
//! `benches/tests/soak.rs`): several threads share one backend and run mixed batches until a
//! deadline — RSA-2048 and ECDSA signing on every curve the backend implements
//! (deterministic, so every signature has one right answer, computed beforehand on
//! `scalar`) with a wrong-length digest among the jobs, and multi-key, multi-curve
//! verification with valid, wrong-message and out-of-range signatures. Every result is
//! compared with what it must be; resident memory after the last round is compared with that
//! after the first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use batch_core::{Backend, Curve, Error, JobResult};
use batchsig::ecdsa::{self, EcdsaPrivateKey, EcdsaSignature, EcdsaVerifyJob, NonceMode};
use batchsig::rsa::{RsaPrivateKey, RsaScheme};
use batchsig::{test_keys, HashAlg};

/// Messages per key and round.
const MESSAGES: usize = 6;

/// What one backend's soak did.
#[derive(Debug)]
pub struct SoakReport {
    pub backend: String,
    pub threads: usize,
    pub rounds: usize,
    pub jobs: usize,
    /// Every result that differed from what it must be (at most the first 20).
    pub failures: Vec<String>,
    /// Resident memory (KiB) after the first round of every thread, and at the end.
    pub rss_first_kib: u64,
    pub rss_last_kib: u64,
}

impl SoakReport {
    /// No wrong result, and resident memory within 25 % + 64 MiB of the first round's.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.rss_last_kib <= self.rss_first_kib * 5 / 4 + 64 * 1024
    }
}

/// One curve's key, hash, digests and their signatures.
type CurvePlan = (EcdsaPrivateKey, HashAlg, Vec<Vec<u8>>, Vec<EcdsaSignature>);

/// The fixed inputs and their right answers, made once on `scalar`.
struct Plan {
    rsa: RsaPrivateKey,
    rsa_sigs: Vec<Vec<u8>>,
    ec: Vec<CurvePlan>,
    digests: Vec<Vec<u8>>,
}

const RSA_SCHEME: RsaScheme = RsaScheme::pkcs1v15(HashAlg::Sha256);

impl Plan {
    fn new() -> Self {
        let reference = batch_scalar::ScalarBackend::new();
        let digests: Vec<Vec<u8>> = (0..MESSAGES)
            .map(|i| HashAlg::Sha256.digest(format!("soak message {i}").as_bytes()))
            .collect();
        let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        let rsa = test_keys::rsa(2048);
        let rsa_sigs = rsa
            .sign_digests_batch(&reference, RSA_SCHEME, &refs)
            .expect("reference batch")
            .into_iter()
            .map(|s| s.expect("reference signature"))
            .collect();
        let ec = Curve::ALL
            .into_iter()
            .map(|c| {
                let key = test_keys::ecdsa(c);
                let h = ecdsa::curve_hash(c);
                let d: Vec<Vec<u8>> = (0..MESSAGES)
                    .map(|i| h.digest(format!("soak message {i}").as_bytes()))
                    .collect();
                let dr: Vec<&[u8]> = d.iter().map(Vec::as_slice).collect();
                let sigs = key
                    .sign_digests_batch(&reference, h, &dr, NonceMode::Deterministic)
                    .expect("reference batch")
                    .into_iter()
                    .map(|s| s.expect("reference signature"))
                    .collect();
                (key, h, d, sigs)
            })
            .collect();
        Self {
            rsa,
            rsa_sigs,
            ec,
            digests,
        }
    }

    /// One round on `b`: returns the jobs run and pushes each wrong result to `bad`.
    fn round(&self, b: &dyn Backend, bad: &mut Vec<String>) -> usize {
        let name = b.name();
        let mut jobs = 0;
        let mut expect = |what: String, ok: bool| {
            if !ok {
                bad.push(format!("{name}: {what}"));
            }
        };
        // RSA signing: the reference signatures, and a short digest failing alone.
        let mut refs: Vec<&[u8]> = self.digests.iter().map(Vec::as_slice).collect();
        refs.insert(2, &self.digests[0][..31]);
        match self.rsa.sign_digests_batch(b, RSA_SCHEME, &refs) {
            Ok(res) => {
                jobs += res.len();
                let want_short = Err(Error::DigestLength {
                    expected: 32,
                    got: 31,
                });
                expect(
                    format!("RSA short digest gave {:?}", res[2]),
                    res[2] == want_short,
                );
                let sigs = res
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != 2)
                    .map(|(_, r)| r);
                for (i, (got, want)) in sigs.zip(&self.rsa_sigs).enumerate() {
                    expect(
                        format!("RSA signature {i} differs from scalar's"),
                        got.as_ref() == Ok(want),
                    );
                }
            }
            Err(e) => expect(format!("RSA sign batch failed: {e}"), false),
        }
        // RSA verification: valid, a wrong message, a truncated signature.
        let pk = self.rsa.public_key();
        let msgs: Vec<&[u8]> = vec![b"soak message 0", b"soak message 1", b"soak message 0"];
        let msgs: Vec<&[u8]> = msgs.into_iter().chain([b"x".as_slice()]).collect();
        let (s0, s1) = (&self.rsa_sigs[0], &self.rsa_sigs[1]);
        let sigs: Vec<&[u8]> = vec![s0, s1, s1, &s0[1..]];
        match pk.verify_batch(b, RsaScheme::pkcs1v15(HashAlg::Sha256), &msgs, &sigs) {
            Ok(res) => {
                jobs += res.len();
                expect(
                    format!("RSA verify {res:?}"),
                    res[0].is_ok()
                        && res[1].is_ok()
                        && res[2] == Err(Error::InvalidSignature)
                        && matches!(res[3], Err(Error::MalformedSignature(_))),
                );
            }
            Err(e) => expect(format!("RSA verify batch failed: {e}"), false),
        }
        // The curves `b` implements (the others are refused with Error::Unavailable).
        let ec: Vec<&CurvePlan> = self
            .ec
            .iter()
            .filter(|p| b.curves().contains(&p.0.curve()))
            .collect();
        // ECDSA signing per curve, with a short digest in the middle.
        for &(key, h, d, want) in &ec {
            let mut dr: Vec<&[u8]> = d.iter().map(Vec::as_slice).collect();
            dr.insert(1, &d[0][..20]);
            match key.sign_digests_batch(b, *h, &dr, NonceMode::Deterministic) {
                Ok(res) => {
                    jobs += res.len();
                    expect(
                        format!("{:?} short digest gave {:?}", key.curve(), res[1]),
                        matches!(res[1], Err(Error::DigestLength { .. })),
                    );
                    let sigs = res
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != 1)
                        .map(|(_, r)| r);
                    for (i, (got, want)) in sigs.zip(want).enumerate() {
                        expect(
                            format!("{:?} signature {i} differs from scalar's", key.curve()),
                            got.as_ref() == Ok(want),
                        );
                    }
                }
                Err(e) => expect(format!("ECDSA sign batch failed: {e}"), false),
            }
        }
        // ECDSA verification: every curve in one batch; valid, swapped digest, r = 0.
        let zero: Vec<EcdsaSignature> = ec
            .iter()
            .map(|(k, _, _, s)| {
                EcdsaSignature::from_scalars(k.curve(), &[0], &s[0].s_bytes())
                    .expect("r = 0 parses; verification rejects it")
            })
            .collect();
        let mut vjobs = Vec::new();
        let mut want: Vec<fn(&JobResult<()>) -> bool> = Vec::new();
        for (&(key, _, d, sigs), z) in ec.iter().zip(&zero) {
            for i in 0..MESSAGES {
                vjobs.push(EcdsaVerifyJob {
                    key: key.public_key(),
                    digest: &d[i],
                    signature: &sigs[i],
                });
                want.push(|r| r.is_ok());
            }
            vjobs.push(EcdsaVerifyJob {
                key: key.public_key(),
                digest: &d[1],
                signature: &sigs[0],
            });
            want.push(|r| *r == Err(Error::InvalidSignature));
            vjobs.push(EcdsaVerifyJob {
                key: key.public_key(),
                digest: &d[0],
                signature: z,
            });
            want.push(|r| matches!(r, Err(Error::MalformedSignature(_))));
        }
        // All verify digests are the curves' own hashes: one call per curve hash.
        for &(key, h, _, _) in &ec {
            let idx: Vec<usize> = (0..vjobs.len())
                .filter(|&i| vjobs[i].key.curve() == key.curve())
                .collect();
            let js: Vec<EcdsaVerifyJob<'_>> = idx.iter().map(|&i| vjobs[i]).collect();
            match ecdsa::verify_batch(b, *h, &js) {
                Ok(res) => {
                    jobs += res.len();
                    for (&i, r) in idx.iter().zip(&res) {
                        expect(
                            format!("{:?} verify job {i}: {r:?}", key.curve()),
                            want[i](r),
                        );
                    }
                }
                Err(e) => expect(format!("ECDSA verify batch failed: {e}"), false),
            }
        }
        jobs
    }
}

/// Resident memory of this process in KiB (0 where `/proc` is not there).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

/// Runs `threads` threads on `b` for about `duration` (a round in progress finishes).
pub fn soak(b: Arc<dyn Backend>, threads: usize, duration: Duration) -> SoakReport {
    let plan = Plan::new();
    let failures = Mutex::new(Vec::new());
    let rounds = AtomicUsize::new(0);
    let jobs = AtomicUsize::new(0);
    let run_rounds = |until: Option<Instant>| {
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| loop {
                    let mut bad = Vec::new();
                    let n = plan.round(b.as_ref(), &mut bad);
                    jobs.fetch_add(n, Ordering::Relaxed);
                    rounds.fetch_add(1, Ordering::Relaxed);
                    if !bad.is_empty() {
                        let mut f = failures.lock().expect("no panics while held");
                        let room = 20usize.saturating_sub(f.len());
                        f.extend(bad.into_iter().take(room));
                    }
                    if until.is_none_or(|t| Instant::now() >= t) {
                        break;
                    }
                });
            }
        });
    };
    run_rounds(None);
    let rss_first_kib = rss_kib();
    run_rounds(Some(Instant::now() + duration));
    SoakReport {
        backend: b.name().to_string(),
        threads: threads.max(1),
        rounds: rounds.into_inner(),
        jobs: jobs.into_inner(),
        failures: failures.into_inner().expect("threads joined"),
        rss_first_kib,
        rss_last_kib: rss_kib(),
    }
}
