//! Peers: other libraries' single-signature APIs, driven over the same messages and keys as
//! our backends and measured into the same table (`batch-speed --peers`).
//!
//! A peer cell is timed like a backend cell ([`crate::measure::time_batches`], batches
//! planned by a probe and capped to `--seconds`), the batch's jobs spread over the run's
//! rayon pool (`--threads`), one library call per signature. It is checked the same way:
//! a sample of every signing batch is verified on the scalar reference backend, every
//! genuine signature of a verify batch must pass and a tampered one must be rejected.
//!
//! Keys: signing uses the fixed test key of the algorithm; the distinct-key verify cell
//! takes the same [`KeyPool`] batch as our backends (one key object per job, built before
//! timing; how each library holds it is in its `VERIFY_KEYS`), the one-key cell one key for
//! all jobs. `rustcrypto` is always built; `ring` and `aws-lc-rs` need `--features peers`.

use std::time::Instant;

use rayon::prelude::*;

use crate::alg::Alg;
use crate::keys::KeyPool;
use crate::measure::{
    message, messages, plan_batch, time_batches, AlgCells, CellResult, JobKeys, KeyRef, Op,
    Signatures, VerifyBatch, Workload,
};
use batch_core::{Backend, Curve};
use batchsig::ecdsa::EcdsaSignature;

#[cfg(feature = "peers")]
mod aws_lc;
#[cfg(feature = "peers")]
mod ring;
mod rustcrypto;

/// A private key in the forms the peers load: PKCS#1 DER, or the scalar and the SEC 1
/// uncompressed point. (Only the fixed test keys go through here.)
#[derive(Clone, Debug)]
pub enum SignKey {
    Rsa {
        pkcs1_der: Vec<u8>,
    },
    Ecdsa {
        curve: Curve,
        scalar: Vec<u8>,
        point: Vec<u8>,
    },
}

/// A public key in the forms the peers load.
#[derive(Clone, Debug)]
pub enum VerifyKey {
    /// Big-endian modulus and exponent, and the PKCS#1 `RSAPublicKey` DER.
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
        pkcs1_der: Vec<u8>,
    },
    /// SEC 1 uncompressed point.
    Ecdsa { curve: Curve, point: Vec<u8> },
}

impl SignKey {
    pub fn of(work: &Workload) -> Result<Self, String> {
        Ok(match work.key() {
            KeyRef::Rsa(k) => SignKey::Rsa {
                pkcs1_der: k.to_pkcs1_der().map_err(|e| e.to_string())?.to_vec(),
            },
            KeyRef::Ecdsa(k) => SignKey::Ecdsa {
                curve: k.curve(),
                scalar: k.to_scalar_bytes().to_vec(),
                point: k.public_key().to_sec1_bytes(),
            },
        })
    }
}

fn verify_keys(keys: &JobKeys) -> Result<Vec<VerifyKey>, String> {
    match keys {
        JobKeys::Rsa(v) => v
            .iter()
            .map(|k| {
                Ok(VerifyKey::Rsa {
                    n: k.n_bytes(),
                    e: k.e_bytes(),
                    pkcs1_der: k.to_pkcs1_der().map_err(|e| e.to_string())?,
                })
            })
            .collect(),
        JobKeys::Ecdsa(v) => Ok(v
            .iter()
            .map(|k| VerifyKey::Ecdsa {
                curve: k.curve(),
                point: k.to_sec1_bytes(),
            })
            .collect()),
    }
}

/// Signature bytes as the peers take them: RSA as is, ECDSA fixed-size `r ‖ s`.
fn signature_bytes(sigs: &Signatures) -> Vec<Vec<u8>> {
    match sigs {
        Signatures::Rsa(v) => v.clone(),
        Signatures::Ecdsa(v) => v.iter().map(EcdsaSignature::to_bytes).collect(),
    }
}

/// One signature per call with a loaded private key. RSA: PKCS#1 v1.5 over SHA-256; ECDSA:
/// the curve's hash, fixed-size `r ‖ s`.
pub trait Signer: Send + Sync {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String>;
}

/// One verification per call with a loaded public key.
pub trait Verifier: Send + Sync {
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool;
}

/// A library measured beside our backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Peer {
    Ring,
    AwsLcRs,
    RustCrypto,
}

impl Peer {
    pub const ALL: [Peer; 3] = [Peer::Ring, Peer::AwsLcRs, Peer::RustCrypto];

    /// The `--peers` name and the JSON `backend`.
    pub fn name(self) -> &'static str {
        match self {
            Peer::Ring => "ring",
            Peer::AwsLcRs => "aws-lc-rs",
            Peer::RustCrypto => rustcrypto::NAME,
        }
    }

    /// Whether this build has the peer (ring and aws-lc-rs need `--features peers`).
    pub fn built(self) -> bool {
        match self {
            Peer::Ring | Peer::AwsLcRs => cfg!(feature = "peers"),
            Peer::RustCrypto => true,
        }
    }

    /// The library and how it is driven, or why this build lacks it.
    pub fn description(self) -> String {
        match self {
            #[cfg(feature = "peers")]
            Peer::Ring => ring::description(),
            #[cfg(feature = "peers")]
            Peer::AwsLcRs => aws_lc::description(),
            #[cfg(not(feature = "peers"))]
            Peer::Ring | Peer::AwsLcRs => {
                "not in this build (cargo build --release -p batch-bench --features peers)".into()
            }
            Peer::RustCrypto => rustcrypto::description(),
        }
    }

    /// How its verify cells hold their keys, for the table's legend.
    pub fn verify_keys(self) -> &'static str {
        match self {
            #[cfg(feature = "peers")]
            Peer::Ring => ring::VERIFY_KEYS,
            #[cfg(feature = "peers")]
            Peer::AwsLcRs => aws_lc::VERIFY_KEYS,
            #[cfg(not(feature = "peers"))]
            Peer::Ring | Peer::AwsLcRs => "",
            Peer::RustCrypto => rustcrypto::VERIFY_KEYS,
        }
    }

    /// Why the peer does not do `op` for `alg` (a size or curve it lacks); `None` if it does.
    pub fn lacks(self, alg: Alg, op: Op) -> Option<String> {
        match self {
            #[cfg(feature = "peers")]
            Peer::Ring => ring::lacks(alg, op),
            #[cfg(feature = "peers")]
            Peer::AwsLcRs => aws_lc::lacks(alg, op),
            #[cfg(not(feature = "peers"))]
            Peer::Ring | Peer::AwsLcRs => Some(self.description()),
            Peer::RustCrypto => rustcrypto::lacks(alg, op),
        }
    }

    fn signer(self, key: &SignKey) -> Result<Box<dyn Signer>, String> {
        match self {
            #[cfg(feature = "peers")]
            Peer::Ring => ring::signer(key),
            #[cfg(feature = "peers")]
            Peer::AwsLcRs => aws_lc::signer(key),
            #[cfg(not(feature = "peers"))]
            Peer::Ring | Peer::AwsLcRs => {
                let _ = key;
                Err(self.description())
            }
            Peer::RustCrypto => rustcrypto::signer(key),
        }
    }

    fn verifier(self, key: &VerifyKey) -> Result<Box<dyn Verifier>, String> {
        match self {
            #[cfg(feature = "peers")]
            Peer::Ring => ring::verifier(key),
            #[cfg(feature = "peers")]
            Peer::AwsLcRs => aws_lc::verifier(key),
            #[cfg(not(feature = "peers"))]
            Peer::Ring | Peer::AwsLcRs => {
                let _ = key;
                Err(self.description())
            }
            Peer::RustCrypto => rustcrypto::verifier(key),
        }
    }

    /// Parses `--peers`: comma-separated names, `all` (every peer; those this build lacks
    /// are listed as not built) or `none`. Naming a peer this build lacks is an error that
    /// says which feature adds it.
    pub fn parse_list(spec: &str) -> Result<Vec<Peer>, String> {
        let mut out = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "all" => out.extend(Peer::ALL),
                "none" => {}
                p => {
                    let peer = Peer::ALL.into_iter().find(|x| x.name() == p).ok_or_else(|| {
                        format!("unknown peer {p:?}; expected ring, aws-lc-rs, rustcrypto, all or none")
                    })?;
                    if !peer.built() {
                        return Err(format!(
                            "peer {p} is not in this build: build batch-speed with `--features peers`"
                        ));
                    }
                    out.push(peer);
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// A verify batch in a peer's terms, built before timing: a verifier per job, or one for all.
struct PeerBatch {
    msgs: Vec<Vec<u8>>,
    verifiers: Vec<Box<dyn Verifier>>,
    sigs: Vec<Vec<u8>>,
}

/// Loads a public key into a library's verifier.
type MakeVerifier<'a> = &'a dyn Fn(&VerifyKey) -> Result<Box<dyn Verifier>, String>;

impl PeerBatch {
    fn new(make: MakeVerifier<'_>, batch: &VerifyBatch) -> Result<Self, String> {
        let (msgs, keys, sigs) = batch.parts();
        let verifiers = verify_keys(keys)?
            .iter()
            .map(make)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            msgs: msgs.to_vec(),
            verifiers,
            sigs: signature_bytes(sigs),
        })
    }

    fn len(&self) -> usize {
        self.msgs.len()
    }

    /// Every job's verdict, spread over the current rayon pool.
    fn verify(&self) -> Vec<bool> {
        let one = self.verifiers.len() == 1;
        (0..self.len())
            .into_par_iter()
            .map(|i| {
                let v = &self.verifiers[if one { 0 } else { i }];
                v.verify(&self.msgs[i], &self.sigs[i])
            })
            .collect()
    }

    fn check_all_verify(&self) -> Result<(), String> {
        match self.verify().iter().position(|ok| !ok) {
            Some(i) => Err(format!("a genuine signature (job {i}) was rejected")),
            None => Ok(()),
        }
    }
}

/// Times `batch` with the verifiers `make` loads until `secs` have passed (keys loaded
/// before timing); every genuine signature must verify, and a tampered one
/// (`batch.tampered()`) must be rejected.
fn time_verify(
    make: MakeVerifier<'_>,
    batch: &VerifyBatch,
    secs: f64,
) -> Result<CellResult, String> {
    let b = PeerBatch::new(make, batch)?;
    let r = time_batches(b.len(), secs, || b.check_all_verify())?;
    match PeerBatch::new(make, &batch.tampered())?.verify()[..] {
        [false] => Ok(r),
        _ => Err("a tampered signature verified".into()),
    }
}

/// Signs `msgs` with `signer`, one call per message over the current rayon pool.
fn sign_all(signer: &dyn Signer, alg: Alg, msgs: &[Vec<u8>]) -> Result<Signatures, String> {
    let raw: Vec<Vec<u8>> = msgs
        .par_iter()
        .map(|m| signer.sign(m))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("sign failed: {e}"))?;
    Ok(match alg {
        Alg::Rsa(_) => Signatures::Rsa(raw),
        Alg::Ecdsa(c) => Signatures::Ecdsa(
            raw.iter()
                .map(|b| EcdsaSignature::from_bytes(c, b))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("sign gave a malformed signature: {e}"))?,
        ),
    })
}

/// The sign, verify (distinct keys from `keys`) and verify-one-key cells of `peer` for
/// `work`'s algorithm, checked like [`crate::measure::run_alg`]'s. Cells for what the peer
/// lacks (see [`Peer::lacks`]) come back as `Err` and are not timed; the caller reports them
/// as not measured.
#[allow(clippy::too_many_arguments)]
pub fn run_alg(
    peer: Peer,
    reference: &dyn Backend,
    work: &Workload,
    keys: Result<&KeyPool, &str>,
    batch: usize,
    secs: f64,
    threads: usize,
    mut progress: impl FnMut(Op),
) -> AlgCells {
    let alg = work.alg;
    let probe_n = batch.min(8 * threads.max(1));
    let lacks = |op: Op| peer.lacks(alg, op).map(|w| format!("n/a: {w}"));
    let make = |k: &VerifyKey| peer.verifier(k);

    // Sign: probe (once cold, once timed), plan the batch, time, check a sample.
    let mut signed: Option<(Vec<Vec<u8>>, Signatures)> = None;
    let sign = match lacks(Op::Sign) {
        Some(why) => Err(why),
        None => SignKey::of(work)
            .and_then(|k| peer.signer(&k))
            .and_then(|signer| {
                let probe_msgs = messages(probe_n);
                sign_all(signer.as_ref(), alg, &probe_msgs)?;
                let start = Instant::now();
                sign_all(signer.as_ref(), alg, &probe_msgs)?;
                let rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
                let n = plan_batch(batch, rate, secs, probe_n);
                let msgs = messages(n);
                let mut last = None;
                let r = time_batches(n, secs, || {
                    last = Some(sign_all(signer.as_ref(), alg, &msgs)?);
                    Ok(())
                })?;
                let last = last.expect("time_batches ran a batch");
                work.check_signatures(reference, &last)?;
                signed = Some((msgs, last));
                Ok(r)
            }),
    };
    progress(Op::Sign);

    let verify = match (lacks(Op::Verify), keys) {
        (Some(why), _) => Err(why),
        (None, Err(e)) => Err(format!("no distinct keys: {e}")),
        (None, Ok(pool)) => {
            // Probed and capped like signing (a key set up per job can make a batch slow).
            PeerBatch::new(&make, &pool.batch(probe_n)).and_then(|probe| {
                probe.verify();
                let start = Instant::now();
                probe.verify();
                let rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
                time_verify(
                    &make,
                    &pool.batch(plan_batch(batch, rate, secs, probe_n)),
                    secs,
                )
            })
        }
    };
    progress(Op::Verify);

    // One key: the peer's own checked signatures (or, where it does not sign this size, a
    // few made on the reference), cycled to the batch.
    let verify_one_key = match lacks(Op::VerifyOneKey) {
        Some(why) => Err(why),
        None => {
            let made = match signed {
                Some(s) => Ok(s),
                None => {
                    let msgs = messages(probe_n);
                    work.sign(reference, &msgs)
                        .map(|s| (msgs, s))
                        .map_err(|e| format!("reference sign failed: {e}"))
                }
            };
            made.and_then(|(msgs, sigs)| {
                let one_key = |n: usize| {
                    let m: Vec<Vec<u8>> = (0..n).map(|i| message(i % msgs.len())).collect();
                    work.one_key_batch(&m, &sigs.cycle_to(n))
                };
                // Probed and capped like the others.
                let probe = PeerBatch::new(&make, &one_key(probe_n))?;
                probe.verify();
                let start = Instant::now();
                probe.verify();
                let rate = probe_n as f64 / start.elapsed().as_secs_f64().max(1e-9);
                time_verify(
                    &make,
                    &one_key(plan_batch(batch, rate, secs, probe_n)),
                    secs,
                )
            })
        }
    };
    progress(Op::VerifyOneKey);
    AlgCells {
        sign,
        verify,
        verify_one_key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_list_knows_the_peers() {
        assert_eq!(Peer::parse_list("rustcrypto").unwrap(), [Peer::RustCrypto]);
        assert_eq!(Peer::parse_list("none").unwrap(), []);
        assert_eq!(Peer::parse_list("").unwrap(), []);
        assert!(Peer::parse_list("openssl")
            .unwrap_err()
            .contains("unknown peer"));
        assert_eq!(Peer::parse_list("all").unwrap(), Peer::ALL);
        let named = Peer::parse_list("ring,aws-lc-rs,rustcrypto,ring");
        if cfg!(feature = "peers") {
            assert_eq!(named.unwrap(), Peer::ALL);
        } else {
            assert!(named.unwrap_err().contains("--features peers"));
        }
    }

    #[test]
    fn support_tables() {
        use Alg::{Ecdsa, Rsa};
        for alg in Alg::all() {
            for op in Op::ALL {
                assert_eq!(Peer::RustCrypto.lacks(alg, op), None, "{alg} {op:?}");
            }
        }
        if cfg!(feature = "peers") {
            assert!(Peer::Ring.lacks(Rsa(4096), Op::Sign).is_none());
            assert!(Peer::Ring.lacks(Rsa(7680), Op::Sign).is_some());
            assert!(Peer::Ring.lacks(Rsa(7680), Op::Verify).is_none());
            assert!(Peer::Ring.lacks(Rsa(15360), Op::VerifyOneKey).is_some());
            assert!(Peer::Ring.lacks(Ecdsa(Curve::P384), Op::Sign).is_none());
            assert!(Peer::Ring.lacks(Ecdsa(Curve::P521), Op::Verify).is_some());
            assert!(Peer::AwsLcRs.lacks(Rsa(7680), Op::Sign).is_none());
            assert!(Peer::AwsLcRs.lacks(Rsa(15360), Op::Sign).is_some());
            assert!(Peer::AwsLcRs.lacks(Ecdsa(Curve::P521), Op::Sign).is_none());
            assert!(Peer::AwsLcRs.lacks(Ecdsa(Curve::P224), Op::Sign).is_some());
            assert!(Peer::Ring.lacks(Ecdsa(Curve::P224), Op::Verify).is_some());
        } else {
            assert!(Peer::Ring.lacks(Rsa(2048), Op::Sign).is_some());
        }
    }

    /// Every built peer's cells run and check out at tiny sizes, on every size and curve it
    /// claims; where it lacks one, the cell says so instead of a figure.
    #[test]
    fn peer_cells_check_their_outputs() {
        let scalar = batch_scalar::ScalarBackend::new();
        // RSA-15360 too: above 8192 bits a library's decoding limits (rsa 0.10's
        // `Signature::try_from` stops at 1024 bytes) reject genuine signatures.
        let algs = [
            Alg::Rsa(2048),
            Alg::Rsa(15360),
            Alg::Ecdsa(Curve::P224),
            Alg::Ecdsa(Curve::P256),
            Alg::Ecdsa(Curve::P384),
            Alg::Ecdsa(Curve::P521),
        ];
        for alg in algs {
            let w = Workload::new(alg);
            let pool = KeyPool::new(alg, &scalar, 3, None, &|_| {}).unwrap();
            for peer in Peer::ALL.into_iter().filter(|p| p.built()) {
                let mut order = Vec::new();
                let cells = run_alg(peer, &scalar, &w, Ok(&pool), 5, 0.01, 1, |op| {
                    order.push(op)
                });
                assert_eq!(order, Op::ALL, "{peer:?} {alg}");
                for op in Op::ALL {
                    match (peer.lacks(alg, op), cells.get(op)) {
                        (None, Ok(c)) => assert!(
                            c.ops >= c.batch && c.batch >= 1,
                            "{peer:?} {alg} {op:?}: {c:?}"
                        ),
                        (None, Err(e)) => panic!("{peer:?} {alg} {op:?}: {e}"),
                        (Some(_), r) => assert!(
                            r.as_ref().is_err_and(|e| e.starts_with("n/a")),
                            "{peer:?} {alg} {op:?}"
                        ),
                    }
                }
                assert_eq!(
                    cells.verify_one_key.as_ref().map(|c| c.batch).ok(),
                    peer.lacks(alg, Op::VerifyOneKey).is_none().then_some(5)
                );
            }
        }
    }

    /// A peer whose signatures do not verify, or whose verifier says yes to anything, gets
    /// no figure.
    #[test]
    fn wrong_peers_are_caught() {
        struct Liar;
        impl Verifier for Liar {
            fn verify(&self, _: &[u8], _: &[u8]) -> bool {
                true
            }
        }
        struct Stubborn;
        impl Verifier for Stubborn {
            fn verify(&self, _: &[u8], _: &[u8]) -> bool {
                false
            }
        }
        let scalar = batch_scalar::ScalarBackend::new();
        let alg = Alg::Ecdsa(Curve::P256);
        let w = Workload::new(alg);
        // Signatures of other messages fail the reference sample check.
        let key = SignKey::of(&w).unwrap();
        let signer = Peer::RustCrypto.signer(&key).unwrap();
        let wrong = sign_all(signer.as_ref(), alg, &messages(3)[1..]).unwrap();
        assert!(w.check_signatures(&scalar, &wrong).is_err());
        let right = sign_all(signer.as_ref(), alg, &messages(3)).unwrap();
        assert!(w.check_signatures(&scalar, &right).is_ok());
        // A verifier that accepts everything passes the genuine batch but not the tamper
        // check; one that rejects everything fails on the first job.
        let vb = w.one_key_batch(&messages(3), &right);
        let liar = time_verify(&|_| Ok(Box::new(Liar)), &vb, 0.01);
        assert_eq!(liar.unwrap_err(), "a tampered signature verified");
        let stubborn = time_verify(&|_| Ok(Box::new(Stubborn)), &vb, 0.01);
        assert!(stubborn.unwrap_err().contains("(job 0) was rejected"));
        let real = |k: &VerifyKey| Peer::RustCrypto.verifier(k);
        assert!(time_verify(&real, &vb, 0.01).is_ok());
        // Distinct keys: a signature checked against another job's key is rejected.
        let pool = KeyPool::new(alg, &scalar, 3, None, &|_| {}).unwrap();
        let mut shifted = PeerBatch::new(&real, &pool.batch(3)).unwrap();
        assert_eq!(shifted.verify(), [true; 3]);
        shifted.verifiers.rotate_left(1);
        assert_eq!(shifted.verify(), [false; 3]);
    }
}
