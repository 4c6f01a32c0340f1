//! Seeded mutation fuzzing of everything in batchsig that reads untrusted bytes: RSA and EC key
//! parsing (PEM/DER: PKCS#1, PKCS#8, SEC 1, SPKI), ECDSA signatures (DER and fixed-size), the
//! TLS simulation's wire parser, and the verify APIs fed whatever parsed.
//!
//! Stable Rust, no coverage instrumentation (`cargo-afl` and `cargo-fuzz` need tools or a
//! nightly compiler that this project's machines do not have): inputs are the committed corpus
//! (`fuzz/corpus/<target>/`) mutated by bit flips, byte writes with boundary values, insertions,
//! deletions, truncations, length-field nudges and splices, from a ChaCha stream seeded by the
//! caller, so every run can be replayed. Mutants that parse are added to the run's pool, a crude
//! stand-in for coverage feedback that keeps the search near valid encodings. A target fails on
//! a panic (caught per input; the input is returned for replay), never on an error result.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use batch_core::Curve;
use batch_tls::{wire, x509};
use batchsig::ecdsa::{EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature};
use batchsig::rsa::{RsaPrivateKey, RsaPublicKey, RsaScheme};
use batchsig::{test_keys, HashAlg};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// A fuzz target: feeds the bytes to a family of parsers; returns whether any accepted them.
#[derive(Debug)]
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]) -> bool,
}

pub const TARGETS: [Target; 6] = [
    Target {
        name: "rsa_private_key",
        run: rsa_private_key,
    },
    Target {
        name: "rsa_public_key",
        run: rsa_public_key,
    },
    Target {
        name: "ec_private_key",
        run: ec_private_key,
    },
    Target {
        name: "ec_public_key",
        run: ec_public_key,
    },
    Target {
        name: "ecdsa_signature",
        run: ecdsa_signature,
    },
    Target {
        name: "tls_wire",
        run: tls_wire,
    },
];

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn rsa_private_key(b: &[u8]) -> bool {
    let keys = [
        RsaPrivateKey::from_pem_or_der(b),
        RsaPrivateKey::from_pkcs1_der(b),
        RsaPrivateKey::from_pkcs8_der(b),
    ];
    let mut any = false;
    for k in keys.into_iter().flatten() {
        any = true;
        // a key that parsed must sign (its signature verified inside) or fail cleanly
        let _ = k.sign_batch(&backend(), RsaScheme::pkcs1v15(HashAlg::Sha256), &[b"m"]);
    }
    any
}

fn rsa_public_key(b: &[u8]) -> bool {
    let keys = [
        RsaPublicKey::from_pem_or_der(b),
        RsaPublicKey::from_pkcs1_der(b),
        RsaPublicKey::from_spki_der(b),
    ];
    let mut any = false;
    for k in keys.into_iter().flatten() {
        any = true;
        let sig = vec![0x5a; k.n_bytes().len()];
        let _ = k.verify_batch(
            &backend(),
            RsaScheme::pkcs1v15(HashAlg::Sha256),
            &[b"m"],
            &[&sig],
        );
    }
    // the verify API on arbitrary signature bytes, under a valid key (parsed once)
    static PK: std::sync::OnceLock<RsaPublicKey> = std::sync::OnceLock::new();
    let pk = PK.get_or_init(|| test_keys::rsa(2048).public_key().clone());
    let _ = pk.verify_batch(&backend(), RsaScheme::pss(HashAlg::Sha256), &[b"m"], &[b]);
    any
}

fn ec_private_key(b: &[u8]) -> bool {
    let mut keys = vec![
        EcdsaPrivateKey::from_pem_or_der(b),
        EcdsaPrivateKey::from_sec1_der(b, None),
        EcdsaPrivateKey::from_pkcs8_der(b),
    ];
    keys.extend(Curve::ALL.map(|c| EcdsaPrivateKey::from_scalar_bytes(c, b)));
    let mut any = false;
    for k in keys.into_iter().flatten() {
        any = true;
        let _ = k.sign_batch(&backend(), &[b"m"]);
    }
    any
}

fn ec_public_key(b: &[u8]) -> bool {
    let mut keys = vec![EcdsaPublicKey::from_pem_or_der(b)];
    keys.extend(Curve::ALL.map(|c| EcdsaPublicKey::from_sec1_bytes(c, b)));
    let mut any = false;
    for k in keys.into_iter().flatten() {
        any = true;
        let sig = test_keys::ecdsa(k.curve())
            .sign_batch(&backend(), &[b"m"])
            .ok()
            .and_then(|mut v| v.pop()?.ok());
        if let Some(sig) = sig {
            let _ = k.verify_batch(&backend(), &[b"m"], &[sig]);
        }
    }
    any
}

fn ecdsa_signature(b: &[u8]) -> bool {
    let mut any = false;
    for c in Curve::ALL {
        for sig in [
            EcdsaSignature::from_der(c, b),
            EcdsaSignature::from_bytes(c, b),
        ]
        .into_iter()
        .flatten()
        {
            any = true;
            let pk = *test_keys::ecdsa(c).public_key();
            let _ = pk.verify_batch(&backend(), &[b"m"], &[sig]);
        }
    }
    any
}

fn tls_wire(b: &[u8]) -> bool {
    let mut any = wire::parse_certificate(b).is_ok();
    any |= wire::parse_certificate_verify(b).is_ok();
    if let Ok(certs) = wire::parse_certificate(b) {
        for c in certs {
            any |= x509::parse(c).is_ok_and(|p| p.public_key().is_ok());
        }
    }
    any |= x509::parse(b).is_ok_and(|p| p.signature().is_ok() && p.public_key().is_ok());
    any |= wire::client_hello_schemes(b, true).is_ok();
    for group in [0x0017u16, 0x0018, 0x0019] {
        any |= wire::client_hello_share(b, group).is_ok();
        any |= wire::server_hello_share(b, group).is_ok();
    }
    any
}

/// The seed inputs of each target, made from the fixed test keys (what `--write-corpus`
/// writes under `fuzz/corpus/`).
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let rsa = test_keys::rsa(2048);
    let ec: Vec<EcdsaPrivateKey> = Curve::ALL.map(test_keys::ecdsa).into();
    match target {
        "rsa_private_key" => vec![
            test_keys::rsa_pem(2048)
                .expect("fixed key")
                .as_bytes()
                .to_vec(),
            rsa.to_pkcs1_der().expect("encodes").to_vec(),
            rsa.to_pkcs8_pem().expect("encodes").as_bytes().to_vec(),
        ],
        "rsa_public_key" => vec![
            rsa.public_key()
                .to_public_key_pem()
                .expect("encodes")
                .into_bytes(),
            rsa.public_key().to_pkcs1_der().expect("encodes"),
        ],
        "ec_private_key" => ec
            .iter()
            .flat_map(|k| {
                [
                    test_keys::ecdsa_pem(k.curve()).as_bytes().to_vec(),
                    k.to_pkcs8_pem().expect("encodes").as_bytes().to_vec(),
                ]
            })
            .collect(),
        "ec_public_key" => ec
            .iter()
            .flat_map(|k| {
                [
                    k.public_key()
                        .to_public_key_pem()
                        .expect("encodes")
                        .into_bytes(),
                    k.public_key().to_sec1_bytes(),
                ]
            })
            .collect(),
        "ecdsa_signature" => ec
            .iter()
            .flat_map(|k| {
                let s = k
                    .sign_batch(&backend(), &[b"m"])
                    .expect("batch")
                    .remove(0)
                    .expect("signature");
                [s.to_der(), s.to_bytes()]
            })
            .collect(),
        "tls_wire" => {
            let share = ec[0].public_key().to_sec1_bytes();
            // A real chain: the fixed P-256 key under the fixed P-384 key (a deterministic
            // RNG, so the corpus is reproducible).
            let leaf = batch_tls::ServerKey::Ecdsa(ec[0].clone());
            let issuer = batch_tls::ServerKey::Ecdsa(ec[1].clone());
            let mut rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(7);
            let options = x509::ChainOptions {
                server_name: "fuzz.test".into(),
                not_before: std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
                not_after: std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000),
            };
            let (chain, root) = x509::issue_chain(&backend(), &leaf, &[issuer], &options, &mut rng)
                .expect("issues");
            vec![
                wire::client_hello(
                    &[7; 32],
                    0x1301,
                    0x0017,
                    0x0804,
                    &x509::ACCEPTED_CERT_SCHEMES,
                    &share,
                ),
                wire::server_hello(&[9; 32], 0x1301, 0x0017, &share),
                wire::certificate_verify(0x0804, &[0xab; 256]),
                wire::certificate(&chain).0,
                root,
            ]
        }
        _ => panic!("no target {target}"),
    }
}

/// The committed corpus of `target` (files under `dir/<target>/`), sorted by name.
pub fn load_corpus(dir: &Path, target: &str) -> std::io::Result<Vec<Vec<u8>>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(target))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    files.iter().map(std::fs::read).collect()
}

const BOUNDARY: [u8; 8] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x30];

/// One to four random edits of `x` (with `pool` for splices).
pub fn mutate(rng: &mut ChaCha20Rng, x: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    let mut v = x.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = v.len();
        match rng.random_range(0..8) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] = BOUNDARY[rng.random_range(0..BOUNDARY.len())];
            }
            2 => {
                let i = rng.random_range(0..=len);
                let n = rng.random_range(1..=8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                v.splice(i..i, bytes);
            }
            3 if len > 0 => {
                let i = rng.random_range(0..len);
                let n = rng.random_range(1..=(len - i).min(16));
                v.drain(i..i + n);
            }
            4 if len > 0 => v.truncate(rng.random_range(0..len)),
            5 if len > 0 => {
                // nudge a byte by ±1..4: length fields and counts
                let i = rng.random_range(0..len);
                let d = rng.random_range(1..=4u8);
                v[i] = if rng.random() {
                    v[i].wrapping_add(d)
                } else {
                    v[i].wrapping_sub(d)
                };
            }
            6 if !pool.is_empty() => {
                // splice: our head, another input's tail
                let other = &pool[rng.random_range(0..pool.len())];
                let cut = rng.random_range(0..=len);
                let from = rng.random_range(0..=other.len());
                v.truncate(cut);
                v.extend_from_slice(&other[from..]);
            }
            _ if len > 1 => {
                // duplicate a chunk in place
                let i = rng.random_range(0..len - 1);
                let n = rng.random_range(1..=(len - i).min(32));
                let chunk = v[i..i + n].to_vec();
                v.splice(i..i, chunk);
            }
            _ => v.push(rng.random()),
        }
    }
    v
}

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    pub target: &'static str,
    pub execs: u64,
    /// Mutants some parser accepted (kept in the pool).
    pub accepted: u64,
    /// The first input that panicked, with the panic message.
    pub crash: Option<(Vec<u8>, String)>,
}

/// Runs `target` on mutants of `corpus` until `execs` inputs or `time` have passed.
pub fn run(
    target: &Target,
    corpus: &[Vec<u8>],
    seed: u64,
    execs: u64,
    time: Duration,
) -> RunReport {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut pool: Vec<Vec<u8>> = corpus.to_vec();
    let mut report = RunReport {
        target: target.name,
        execs: 0,
        accepted: 0,
        crash: None,
    };
    let deadline = Instant::now() + time;
    // the corpus itself first, then mutants
    let mut queue: Vec<Vec<u8>> = corpus.to_vec();
    while report.execs < execs && Instant::now() < deadline {
        let input = queue.pop().unwrap_or_else(|| {
            let base = &pool[rng.random_range(0..pool.len())];
            mutate(&mut rng, base, &pool)
        });
        report.execs += 1;
        match catch_unwind(AssertUnwindSafe(|| (target.run)(&input))) {
            Ok(true) => {
                report.accepted += 1;
                if pool.len() < 4096 {
                    pool.push(input);
                }
            }
            Ok(false) => {}
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".into());
                report.crash = Some((input, msg));
                break;
            }
        }
    }
    report
}
