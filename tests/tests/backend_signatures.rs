//! Signatures made through batchsig on the AVX2, AVX-512 IFMA (RSA only so far) and wgpu
//! backends are byte-for-byte the
//! scalar backend's — RSA PKCS#1 v1.5 and PSS (same seeded RNG, so the same blinding and
//! salts), deterministic ECDSA on every curve — verify on both backends, and the ones they
//! make verify with the `openssl` command line. Without AVX2 or a GPU adapter the tests skip
//! loudly; under CI they fail. On the software adapter (lavapipe) wgpu signs RSA-3072 and
//! larger slowly, so its RSA sizes stop at 3072 bits.

use std::sync::Arc;

use batch_tests::{openssl, skip_or_fail};
use batchsig::ecdsa::{curve_hash, EcdsaSignJob, NonceMode};
use batchsig::rsa::{RsaScheme, RsaSignJob, RsaVerifyJob};
use batchsig::{backend, test_keys, Backend, HashAlg};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The backend `name`, or a loud skip (a failure under CI or with `require_var` set).
fn backend_or_skip(name: &str, what: &str, require_var: &str) -> Option<Arc<dyn Backend>> {
    let b =
        backend::by_name(name).unwrap_or_else(|| panic!("batchsig registers the {name} backend"));
    match b.availability() {
        batchsig::Availability::Available => Some(b),
        batchsig::Availability::Unavailable(why) => {
            skip_or_fail(
                what,
                &format!("{name} backend unavailable: {why}"),
                require_var,
            );
            None
        }
    }
}

fn avx2(what: &str) -> Option<Arc<dyn Backend>> {
    backend_or_skip("avx2", what, "BATCHSIG_REQUIRE_AVX2")
}

fn wgpu(what: &str) -> Option<Arc<dyn Backend>> {
    backend_or_skip("wgpu", what, "BATCHSIG_REQUIRE_GPU")
}

/// The IFMA backend, or one explicit `skipped: no AVX-512 IFMA on this CPU` line (a failure
/// with `BATCHSIG_REQUIRE_AVX512` set). Not a failure under plain `CI=true`: CI machines
/// without IFMA cannot run it; on one with IFMA it always runs.
fn avx512(what: &str) -> Option<Arc<dyn Backend>> {
    let b = backend::by_name("avx512").expect("batchsig registers the avx512 backend");
    match b.availability() {
        batchsig::Availability::Available => Some(b),
        batchsig::Availability::Unavailable(why) => {
            if std::env::var("BATCHSIG_REQUIRE_AVX512").is_ok() {
                panic!("{what}: avx512 backend unavailable ({why}); required because BATCHSIG_REQUIRE_AVX512 is set");
            }
            eprintln!("skipped: no AVX-512 IFMA on this CPU ({what}: {why})");
            None
        }
    }
}

fn scalar() -> Arc<dyn Backend> {
    backend::by_name("scalar").unwrap()
}

fn digests(hash: HashAlg, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| hash.digest(format!("batch message {i}").as_bytes()))
        .collect()
}

#[test]
fn avx2_rsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = avx2("avx2_rsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    rsa_signatures_match_scalar(&b, &[2048, 3072, 4096]);
}

#[test]
fn wgpu_rsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = wgpu("wgpu_rsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    rsa_signatures_match_scalar(&b, &[2048, 3072]);
}

#[test]
fn avx512_rsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = avx512("avx512_rsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    rsa_signatures_match_scalar(&b, &[2048, 3072, 4096]);
}

#[test]
fn avx512_ecdsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = avx512("avx512_ecdsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    ecdsa_signatures_match_scalar(&b);
}

#[test]
fn avx512_signatures_verify_with_openssl() {
    let Some(b) = avx512("avx512_signatures_verify_with_openssl") else {
        return;
    };
    signatures_verify_with_openssl(&b, "avx512_signatures_verify_with_openssl");
}

#[test]
fn avx2_ecdsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = avx2("avx2_ecdsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    ecdsa_signatures_match_scalar(&b);
}

#[test]
fn wgpu_ecdsa_signatures_match_scalar_byte_for_byte() {
    let Some(b) = wgpu("wgpu_ecdsa_signatures_match_scalar_byte_for_byte") else {
        return;
    };
    ecdsa_signatures_match_scalar(&b);
}

#[test]
fn avx2_signatures_verify_with_openssl() {
    let Some(b) = avx2("avx2_signatures_verify_with_openssl") else {
        return;
    };
    signatures_verify_with_openssl(&b, "avx2_signatures_verify_with_openssl");
}

#[test]
fn wgpu_signatures_verify_with_openssl() {
    let Some(b) = wgpu("wgpu_signatures_verify_with_openssl") else {
        return;
    };
    signatures_verify_with_openssl(&b, "wgpu_signatures_verify_with_openssl");
}

fn rsa_signatures_match_scalar(candidate: &Arc<dyn Backend>, sizes: &[usize]) {
    let scalar = scalar();
    for &bits in sizes {
        let key = test_keys::rsa(bits);
        for scheme in [
            RsaScheme::pkcs1v15(HashAlg::Sha256),
            RsaScheme::pss(HashAlg::Sha384),
        ] {
            // 9 jobs: two full groups of four and a padded one (18 CRT halves: two groups of
            // eight and a tail on 8 lanes)
            let d = digests(scheme.hash, 9);
            let jobs: Vec<RsaSignJob<'_>> = d
                .iter()
                .map(|d| RsaSignJob {
                    key: &key,
                    digest: d,
                })
                .collect();
            let sign = |b: &dyn Backend| {
                batchsig::rsa::sign_batch(
                    b,
                    scheme,
                    &jobs,
                    &mut ChaCha20Rng::seed_from_u64(bits as u64),
                )
                .unwrap()
            };
            let ours = sign(&**candidate);
            assert_eq!(
                ours,
                sign(&*scalar),
                "{}: RSA-{bits} {scheme}",
                candidate.name()
            );
            let sigs: Vec<Vec<u8>> = ours.into_iter().map(Result::unwrap).collect();
            let srefs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
            let drefs: Vec<&[u8]> = d.iter().map(Vec::as_slice).collect();
            let vjobs: Vec<RsaVerifyJob<'_>> = drefs
                .iter()
                .zip(&srefs)
                .map(|(d, s)| RsaVerifyJob {
                    key: key.public_key(),
                    digest: d,
                    signature: s,
                })
                .collect();
            for b in [candidate, &scalar] {
                let v = batchsig::rsa::verify_batch(&**b, scheme, &vjobs).unwrap();
                assert!(
                    v.iter().all(Result::is_ok),
                    "RSA-{bits} {scheme} on {}: {v:?}",
                    b.name()
                );
            }
        }
    }
}

fn ecdsa_signatures_match_scalar(candidate: &Arc<dyn Backend>) {
    let scalar = scalar();
    for &curve in candidate.curves() {
        let key = test_keys::ecdsa(curve);
        let hash = curve_hash(curve);
        let d = digests(hash, 9);
        let jobs: Vec<EcdsaSignJob<'_>> = d
            .iter()
            .map(|d| EcdsaSignJob {
                key: &key,
                digest: d,
            })
            .collect();
        let sign = |b: &dyn Backend| {
            batchsig::ecdsa::sign_batch(
                b,
                hash,
                &jobs,
                NonceMode::Deterministic,
                &mut ChaCha20Rng::seed_from_u64(1),
            )
            .unwrap()
        };
        let ours = sign(&**candidate);
        assert_eq!(ours, sign(&*scalar), "{}: {curve}", candidate.name());
        let sigs: Vec<_> = ours.into_iter().map(Result::unwrap).collect();
        let drefs: Vec<&[u8]> = d.iter().map(Vec::as_slice).collect();
        for b in [candidate, &scalar] {
            let v = key
                .public_key()
                .verify_digests_batch(&**b, hash, &drefs, &sigs)
                .unwrap();
            assert!(
                v.iter().all(Result::is_ok),
                "{curve} on {}: {v:?}",
                b.name()
            );
        }
        // a wrong digest fails on both
        let mut bad = drefs.clone();
        bad.swap(0, 1);
        for b in [candidate, &scalar] {
            let v = key
                .public_key()
                .verify_digests_batch(&**b, hash, &bad, &sigs)
                .unwrap();
            assert!(
                v[0].is_err() && v[1].is_err() && v[2].is_ok(),
                "{curve} on {}",
                b.name()
            );
        }
    }
}

fn signatures_verify_with_openssl(candidate: &Arc<dyn Backend>, what: &str) {
    if openssl(what).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let msg = b"batchsig interop message for openssl";
    let write = |name: &str, data: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, data).unwrap();
        p.to_str().unwrap().to_string()
    };
    let m = write("msg", msg);
    let verify = |pubfile: &str, sig: &[u8], dgst: &str, extra: &[&str], label: &str| {
        let sigfile = write("sig", sig);
        let mut args = vec!["dgst", dgst, "-verify", pubfile, "-signature", &sigfile];
        args.extend(extra);
        args.push(&m);
        let out = std::process::Command::new("openssl")
            .args(&args)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "{label}: openssl rejects the {} signature: {}",
            candidate.name(),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let key = test_keys::rsa(2048);
    let pubfile = write(
        "rsa.pem",
        key.public_key().to_public_key_pem().unwrap().as_bytes(),
    );
    let sig = key
        .sign_batch(&**candidate, RsaScheme::pkcs1v15(HashAlg::Sha256), &[msg])
        .unwrap()
        .remove(0)
        .unwrap();
    verify(&pubfile, &sig, "-sha256", &[], "RSA-2048 PKCS#1 v1.5");
    let sig = key
        .sign_batch(&**candidate, RsaScheme::pss(HashAlg::Sha256), &[msg])
        .unwrap()
        .remove(0)
        .unwrap();
    let pss = [
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:digest",
    ];
    verify(&pubfile, &sig, "-sha256", &pss, "RSA-2048 PSS");
    // A batch of PSS signatures under a 3072-bit key, each checked by OpenSSL.
    let key3 = test_keys::rsa(3072);
    let pub3 = write(
        "rsa3.pem",
        key3.public_key().to_public_key_pem().unwrap().as_bytes(),
    );
    let msgs: Vec<Vec<u8>> = (0..5)
        .map(|i| format!("batchsig interop message {i}").into_bytes())
        .collect();
    let mrefs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    for (i, sig) in key3
        .sign_batch(&**candidate, RsaScheme::pss(HashAlg::Sha256), &mrefs)
        .unwrap()
        .into_iter()
        .enumerate()
    {
        std::fs::write(&m, &msgs[i]).unwrap();
        verify(&pub3, &sig.unwrap(), "-sha256", &pss, "RSA-3072 PSS batch");
    }
    std::fs::write(&m, msg).unwrap();
    // Curves the backend implements (all four; avx512 has no P-224 yet).
    for &curve in candidate.curves() {
        let key = test_keys::ecdsa(curve);
        let pubfile = write(
            "ec.pem",
            key.public_key().to_public_key_pem().unwrap().as_bytes(),
        );
        let sig = key
            .sign_batch(&**candidate, &[msg])
            .unwrap()
            .remove(0)
            .unwrap();
        let dgst = batch_tests::openssl_dgst_flag(curve_hash(curve));
        verify(&pubfile, &sig.to_der(), dgst, &[], curve.name());
    }
}

#[test]
fn avx512_rsa_verdicts_through_warm_key_caches() {
    let Some(b) = avx512("avx512_rsa_verdicts_through_warm_key_caches") else {
        return;
    };
    rsa_verdicts_through_key_caches(&b);
}

#[test]
fn avx2_rsa_verdicts_through_warm_key_caches() {
    let Some(b) = avx2("avx2_rsa_verdicts_through_warm_key_caches") else {
        return;
    };
    rsa_verdicts_through_key_caches(&b);
}

/// A public key keeps the moduli forms backends prepared (`modexp_vartime_cached`): verdicts
/// on valid and corrupted signatures, batches of 1, 2 and 9, stay the scalar backend's through
/// one key object used again and again (its cache warm), through a clone (cold) and through a
/// key reloaded from DER, two keys mixed in one batch; and four threads verifying through one
/// key at once agree.
fn rsa_verdicts_through_key_caches(candidate: &Arc<dyn Backend>) {
    let scalar = scalar();
    let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
    let keys = [test_keys::rsa(2048), test_keys::rsa(3072)];
    let d = digests(scheme.hash, 9);
    let mut sigs: Vec<Vec<u8>> = Vec::new();
    for (i, dg) in d.iter().enumerate() {
        let key = &keys[i % 2];
        let job = [RsaSignJob { key, digest: dg }];
        let mut s = batchsig::rsa::sign_batch(
            &*scalar,
            scheme,
            &job,
            &mut ChaCha20Rng::seed_from_u64(i as u64),
        )
        .unwrap()
        .pop()
        .unwrap()
        .unwrap();
        if i % 3 == 1 {
            let last = s.len() - 1;
            s[last] ^= 1; // corrupted: must not verify
        }
        sigs.push(s);
    }
    let reloaded: Vec<batchsig::rsa::RsaPublicKey> = keys
        .iter()
        .map(|k| {
            let der = k.public_key().to_pkcs1_der().unwrap();
            batchsig::rsa::RsaPublicKey::from_pkcs1_der(&der).unwrap()
        })
        .collect();
    let clones: Vec<batchsig::rsa::RsaPublicKey> =
        keys.iter().map(|k| k.public_key().clone()).collect();
    let verdicts = |b: &dyn Backend, pubs: [&batchsig::rsa::RsaPublicKey; 2], n: usize| {
        let jobs: Vec<RsaVerifyJob<'_>> = (0..n)
            .map(|i| RsaVerifyJob {
                key: pubs[i % 2],
                digest: &d[i],
                signature: &sigs[i],
            })
            .collect();
        batchsig::rsa::verify_batch(b, scheme, &jobs).unwrap()
    };
    let originals = [keys[0].public_key(), keys[1].public_key()];
    for n in [1, 2, 9] {
        let want = verdicts(&*scalar, originals, n);
        assert!(want
            .iter()
            .enumerate()
            .all(|(i, v)| v.is_ok() == (i % 3 != 1)));
        for round in 0..3 {
            assert_eq!(
                verdicts(&**candidate, originals, n),
                want,
                "{n} jobs, round {round}"
            );
        }
        assert_eq!(
            verdicts(&**candidate, [&clones[0], &clones[1]], n),
            want,
            "{n} jobs, clones"
        );
        assert_eq!(
            verdicts(&**candidate, [&reloaded[0], &reloaded[1]], n),
            want,
            "{n} jobs, reloaded"
        );
        std::thread::scope(|sc| {
            let hs: Vec<_> = (0..4)
                .map(|_| sc.spawn(|| verdicts(&**candidate, originals, n)))
                .collect();
            for h in hs {
                assert_eq!(h.join().unwrap(), want, "{n} jobs, threads");
            }
        });
    }
}
