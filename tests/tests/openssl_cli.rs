//! Signatures exchanged with the `openssl` command line: ours verify with `openssl dgst
//! -verify`, and `openssl dgst -sign` signatures verify with ours — RSA PKCS#1 v1.5 and PSS,
//! ECDSA on every curve. Skips loudly without `openssl`; fails under CI.

use batch_tests::{openssl, openssl_run as run, write_file as write};
use batchsig::ecdsa::{curve_hash, EcdsaSignature};
use batchsig::rsa::RsaScheme;
use batchsig::{test_keys, Curve, HashAlg};

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn dgst_name(h: HashAlg) -> &'static str {
    batch_tests::openssl_dgst_flag(h)
}

const PSS_OPTS: [&str; 4] = [
    "-sigopt",
    "rsa_padding_mode:pss",
    "-sigopt",
    "rsa_pss_saltlen:digest",
];

#[test]
fn rsa_signatures_cross_verify_with_openssl() {
    if openssl("rsa_signatures_cross_verify_with_openssl").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let msg = b"interop message for openssl";
    let m = write(dir.path(), "msg", msg);
    for bits in [2048, 3072] {
        let key = test_keys::rsa(bits);
        let keyfile = write(
            dir.path(),
            "key.pem",
            test_keys::rsa_pem(bits).unwrap().as_bytes(),
        );
        let pubfile = write(
            dir.path(),
            "pub.pem",
            key.public_key().to_public_key_pem().unwrap().as_bytes(),
        );
        for hash in HashAlg::ALL {
            for pss in [false, true] {
                let scheme = if pss {
                    RsaScheme::pss(hash)
                } else {
                    RsaScheme::pkcs1v15(hash)
                };
                let label = format!("RSA-{bits} {scheme}");
                // ours → openssl
                let sig = key
                    .sign_batch(&backend(), scheme, &[msg])
                    .unwrap()
                    .remove(0)
                    .unwrap();
                let sigfile = write(dir.path(), "sig", &sig);
                let mut args = vec![
                    "dgst",
                    dgst_name(hash),
                    "-verify",
                    &pubfile,
                    "-signature",
                    &sigfile,
                ];
                if pss {
                    args.extend(PSS_OPTS);
                }
                args.push(&m);
                let (ok, out) = run(&args);
                assert!(ok, "{label}: openssl rejects our signature: {out}");
                // openssl → ours
                let theirs = dir.path().join("theirs");
                let t = theirs.to_str().unwrap();
                let mut args = vec!["dgst", dgst_name(hash), "-sign", &keyfile, "-out", t];
                if pss {
                    args.extend(PSS_OPTS);
                }
                args.push(&m);
                let (ok, out) = run(&args);
                assert!(ok, "{label}: openssl sign failed: {out}");
                let their_sig = std::fs::read(&theirs).unwrap();
                if !pss {
                    assert_eq!(their_sig, sig, "{label}: PKCS#1 v1.5 is deterministic");
                }
                let res = key
                    .public_key()
                    .verify_batch(&backend(), scheme, &[msg], &[&their_sig])
                    .unwrap();
                assert_eq!(res, vec![Ok(())], "{label}: we reject openssl's signature");
                let res = key
                    .public_key()
                    .verify_batch(&backend(), scheme, &[b"other"], &[&their_sig])
                    .unwrap();
                assert!(
                    res[0].is_err(),
                    "{label}: a signature over another message must fail"
                );
            }
        }
    }
}

#[test]
fn ecdsa_signatures_cross_verify_with_openssl() {
    if openssl("ecdsa_signatures_cross_verify_with_openssl").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let msg = b"interop message for openssl";
    let m = write(dir.path(), "msg", msg);
    for curve in Curve::ALL {
        let key = test_keys::ecdsa(curve);
        let hash = curve_hash(curve);
        let keyfile = write(
            dir.path(),
            "key.pem",
            test_keys::ecdsa_pem(curve).as_bytes(),
        );
        let pubfile = write(
            dir.path(),
            "pub.pem",
            key.public_key().to_public_key_pem().unwrap().as_bytes(),
        );
        // the public key we derive matches openssl's
        let (ok, out) = run(&["pkey", "-in", &keyfile, "-pubout"]);
        assert!(ok, "{out}");
        assert_eq!(
            out.trim(),
            key.public_key().to_public_key_pem().unwrap().trim(),
            "{curve} public key"
        );
        let sigs = key.sign_batch(&backend(), &[msg, msg]).unwrap();
        for sig in sigs {
            let sigfile = write(dir.path(), "sig", &sig.unwrap().to_der());
            let (ok, out) = run(&[
                "dgst",
                dgst_name(hash),
                "-verify",
                &pubfile,
                "-signature",
                &sigfile,
                &m,
            ]);
            assert!(ok, "{curve}: openssl rejects our signature: {out}");
        }
        for _ in 0..3 {
            let theirs = dir.path().join("theirs");
            let t = theirs.to_str().unwrap();
            let (ok, out) = run(&["dgst", dgst_name(hash), "-sign", &keyfile, "-out", t, &m]);
            assert!(ok, "{out}");
            let der = std::fs::read(&theirs).unwrap();
            let sig = EcdsaSignature::from_der(curve, &der).expect("openssl writes strict DER");
            let res = key
                .public_key()
                .verify_batch(&backend(), &[msg, b"other"], &[sig, sig])
                .unwrap();
            assert_eq!(res[0], Ok(()), "{curve}: we reject openssl's signature");
            assert!(res[1].is_err(), "{curve}: wrong message must fail");
        }
    }
}

/// ECDSA with every message hash batchsig signs with (SHA-2, SHA-512/t, SHA-3; digests longer
/// and shorter than the order, truncated by bits2int) on every curve, both ways.
#[test]
fn ecdsa_every_hash_cross_verifies_with_openssl() {
    if openssl("ecdsa_every_hash_cross_verifies_with_openssl").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let msg = b"every hash, every curve";
    let m = write(dir.path(), "msg", msg);
    for curve in Curve::ALL {
        let key = test_keys::ecdsa(curve);
        let keyfile = write(
            dir.path(),
            "key.pem",
            test_keys::ecdsa_pem(curve).as_bytes(),
        );
        let pubfile = write(
            dir.path(),
            "pub.pem",
            key.public_key().to_public_key_pem().unwrap().as_bytes(),
        );
        for hash in HashAlg::ALL {
            let label = format!("{curve} {hash}");
            let d = hash.digest(msg);
            let sig = key
                .sign_digests_batch(&backend(), hash, &[&d], batchsig::ecdsa::NonceMode::Hedged)
                .unwrap()
                .remove(0)
                .unwrap();
            let sigfile = write(dir.path(), "sig", &sig.to_der());
            let (ok, out) = run(&[
                "dgst",
                dgst_name(hash),
                "-verify",
                &pubfile,
                "-signature",
                &sigfile,
                &m,
            ]);
            assert!(ok, "{label}: openssl rejects our signature: {out}");
            let theirs = dir.path().join("theirs");
            let t = theirs.to_str().unwrap();
            let (ok, out) = run(&["dgst", dgst_name(hash), "-sign", &keyfile, "-out", t, &m]);
            assert!(ok, "{label}: {out}");
            let sig = EcdsaSignature::from_der(curve, &std::fs::read(&theirs).unwrap())
                .expect("openssl writes strict DER");
            let other = hash.digest(b"other");
            let res = key
                .public_key()
                .verify_digests_batch(&backend(), hash, &[&d, &other], &[sig, sig])
                .unwrap();
            assert_eq!(res[0], Ok(()), "{label}: we reject openssl's signature");
            assert!(res[1].is_err(), "{label}: wrong message must fail");
        }
    }
}
