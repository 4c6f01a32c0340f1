//! Bad input gets a clear error for its own job — never a panic, never a wrong signature —
//! and faults injected into a backend are caught before a signature leaves the library.

use batch_core::{AffinePoint, Backend, Curve, EcUint, Error, Forward, JobResult, ModexpJob};
use batch_scalar::ScalarBackend;
use batchsig::ecdsa::{self, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature, NonceMode};
use batchsig::rsa::{RsaPrivateKey, RsaPublicKey, RsaScheme};
use batchsig::{test_keys, HashAlg};

fn backend() -> ScalarBackend {
    ScalarBackend::new()
}

#[test]
fn rsa_bad_jobs_fail_alone() {
    let key = test_keys::rsa(2048);
    let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
    let good = HashAlg::Sha256.digest(b"a");
    let short = vec![0u8; 31];
    let res = key
        .sign_digests_batch(&backend(), scheme, &[&good, &short, &good])
        .unwrap();
    assert_eq!(
        res[1],
        Err(Error::DigestLength {
            expected: 32,
            got: 31
        })
    );
    let (s0, s2) = (res[0].clone().unwrap(), res[2].clone().unwrap());
    assert_eq!(s0, s2, "PKCS#1 v1.5 is deterministic");

    let pk = key.public_key();
    let msgs: [&[u8]; 4] = [b"a", b"a", b"a", b"a"];
    let n_bytes = pk.n_bytes();
    let too_short = &s0[1..];
    let res = pk
        .verify_batch(&backend(), scheme, &msgs, &[&s0, too_short, &n_bytes, &s2])
        .unwrap();
    assert_eq!(res[0], Ok(()));
    assert!(
        matches!(res[1], Err(Error::MalformedSignature(_))),
        "{:?}",
        res[1]
    );
    assert!(
        matches!(res[2], Err(Error::MalformedSignature(_))),
        "{:?}",
        res[2]
    );
    assert_eq!(res[3], Ok(()));
    let mut flipped = s0.clone();
    flipped[100] ^= 1;
    assert_eq!(
        pk.verify_batch(&backend(), scheme, &[b"a"], &[&flipped])
            .unwrap(),
        vec![Err(Error::InvalidSignature)]
    );

    assert_eq!(
        key.sign_batch(&backend(), scheme, &[]),
        Err(Error::EmptyBatch)
    );
    assert!(matches!(
        pk.verify_batch(&backend(), scheme, &msgs, &[&s0]),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn rsa_bad_keys_are_rejected() {
    for bad in [
        &b"garbage"[..],
        b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        b"",
    ] {
        assert!(matches!(
            RsaPrivateKey::from_pem_or_der(bad),
            Err(Error::InvalidKey(_))
        ));
        assert!(matches!(
            RsaPublicKey::from_pem_or_der(bad),
            Err(Error::InvalidKey(_))
        ));
    }
    // An EC key is not an RSA key, and vice versa.
    assert!(matches!(
        RsaPrivateKey::from_pem_or_der(test_keys::ecdsa_pem(Curve::P256).as_bytes()),
        Err(Error::InvalidKey(_))
    ));
    assert!(matches!(
        EcdsaPrivateKey::from_pem_or_der(test_keys::rsa_pem(2048).unwrap().as_bytes()),
        Err(Error::InvalidKey(_))
    ));
    // Even modulus, e = 1, tiny modulus.
    assert!(RsaPublicKey::new(&[0x80; 256], &[1, 0, 1]).is_err());
    assert!(RsaPublicKey::new(&[0x81; 256], &[1]).is_err());
    assert!(RsaPublicKey::new(&[0x81; 32], &[1, 0, 1]).is_err());
    assert!(RsaPrivateKey::generate(&mut rand::rng(), 1000).is_err());
}

#[test]
fn ecdsa_bad_jobs_fail_alone() {
    let key = test_keys::ecdsa(Curve::P256);
    let pk = *key.public_key();
    let h = HashAlg::Sha256;
    let d = h.digest(b"m");
    let res = key
        .sign_digests_batch(&backend(), h, &[&d, &d[..20], &d], NonceMode::Deterministic)
        .unwrap();
    assert_eq!(
        res[1],
        Err(Error::DigestLength {
            expected: 32,
            got: 20
        })
    );
    let sig = res[0].clone().unwrap();
    assert_eq!(res[2], Ok(sig));

    let n = Curve::P256.order();
    let mut n_be = [0u8; 32];
    n.write_be_bytes(&mut n_be);
    let zero = EcdsaSignature::from_scalars(Curve::P256, &[0], &sig.s_bytes()).unwrap();
    let r_is_n = EcdsaSignature::from_scalars(Curve::P256, &n_be, &sig.s_bytes()).unwrap();
    let s_is_n = EcdsaSignature::from_scalars(Curve::P256, &sig.r_bytes(), &n_be).unwrap();
    let other_curve = test_keys::ecdsa(Curve::P384)
        .sign_batch(&backend(), &[b"m"])
        .unwrap()
        .remove(0)
        .unwrap();
    let res = pk
        .verify_digests_batch(
            &backend(),
            h,
            &[&d, &d, &d, &d, &d],
            &[sig, zero, r_is_n, s_is_n, other_curve],
        )
        .unwrap();
    assert_eq!(res[0], Ok(()));
    for r in &res[1..] {
        assert!(matches!(r, Err(Error::MalformedSignature(_))), "{r:?}");
    }
    assert!(EcdsaSignature::from_der(Curve::P256, b"\x30\x00").is_err());
    assert!(EcdsaSignature::from_bytes(Curve::P256, &[1; 65]).is_err());
    assert_eq!(key.sign_batch(&backend(), &[]), Err(Error::EmptyBatch));
}

#[test]
fn ecdsa_bad_keys_are_rejected() {
    for curve in Curve::ALL {
        assert!(EcdsaPrivateKey::from_scalar_bytes(curve, &[0]).is_err());
        let mut n = vec![0u8; curve.field_bytes()];
        curve.order().write_be_bytes(&mut n);
        assert!(EcdsaPrivateKey::from_scalar_bytes(curve, &n).is_err());
        let mut pt = test_keys::ecdsa(curve).public_key().to_sec1_bytes();
        let last = pt.len() - 1;
        pt[last] ^= 1;
        assert!(
            matches!(
                EcdsaPublicKey::from_sec1_bytes(curve, &pt),
                Err(Error::InvalidKey(_))
            ),
            "{curve}"
        );
        assert!(EcdsaPublicKey::from_sec1_bytes(curve, &[0]).is_err());
    }
}

/// A backend that corrupts chosen results: the faults a broken GPU kernel would make.
#[derive(Debug)]
struct Faulty {
    inner: ScalarBackend,
    corrupt: usize,
    /// Also corrupt this `modexp_vartime` result.
    corrupt_check: Option<usize>,
}

impl Forward for Faulty {
    fn inner(&self) -> &dyn Backend {
        &self.inner
    }
    fn name(&self) -> &'static str {
        "faulty"
    }
    fn description(&self) -> String {
        "corrupts one result".into()
    }
    fn modexp(
        &self,
        m: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let mut r = self.inner.modexp(m, jobs)?;
        if let Some(Ok(v)) = r.get_mut(self.corrupt) {
            v[0] ^= 4; // one wrong CRT half: the Bellcore attack's precondition
        }
        Ok(r)
    }
    fn modexp_vartime(
        &self,
        m: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let mut r = self.inner.modexp_vartime(m, jobs)?;
        if let Some(Ok(v)) = self.corrupt_check.and_then(|i| r.get_mut(i)) {
            v[0] ^= 1;
        }
        Ok(r)
    }
    fn mul_base(&self, c: Curve, k: &[EcUint]) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let mut r = self.inner.mul_base(c, k)?;
        if let Some(Ok(p)) = r.get_mut(self.corrupt) {
            p.y.0[0] ^= 1;
        }
        Ok(r)
    }
}

#[test]
fn injected_faults_are_caught_not_returned() {
    let faulty = Faulty {
        inner: ScalarBackend::new(),
        corrupt: 2,
        corrupt_check: None,
    };
    // modexp job 2 is the p-half of signature 1.
    let key = test_keys::rsa(2048);
    let res = key
        .sign_batch(
            &faulty,
            RsaScheme::pkcs1v15(HashAlg::Sha256),
            &[b"a", b"b", b"c"],
        )
        .unwrap();
    assert!(res[0].is_ok() && res[2].is_ok());
    assert!(
        matches!(res[1], Err(Error::FaultDetected(_))),
        "{:?}",
        res[1]
    );

    let ec = test_keys::ecdsa(Curve::P384);
    let res = ec.sign_batch(&faulty, &[b"a", b"b", b"c", b"d"]).unwrap();
    assert!(
        matches!(res[2], Err(Error::FaultDetected(_))),
        "{:?}",
        res[2]
    );
    let ok: Vec<EcdsaSignature> = [0, 1, 3].iter().map(|&i| res[i].clone().unwrap()).collect();
    let v = ec
        .public_key()
        .verify_batch(&backend(), &[b"a", b"b", b"d"], &ok)
        .unwrap();
    assert!(v.iter().all(Result::is_ok));
}

/// The check `sᵉ ≡ m` does not run on the signing backend: one whose `modexp_vartime`
/// lies cannot confirm (or spoil) its own signatures; a wrong CRT half is still caught.
#[test]
fn the_pre_release_check_does_not_trust_the_signing_backend() {
    let key = test_keys::rsa(2048);
    let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
    let msgs: [&[u8]; 4] = [b"a", b"b", b"c", b"d"];
    let good = key.sign_batch(&backend(), scheme, &msgs).unwrap();
    let lying_check = Faulty {
        inner: ScalarBackend::new(),
        corrupt: usize::MAX,
        corrupt_check: Some(2),
    };
    assert_eq!(key.sign_batch(&lying_check, scheme, &msgs).unwrap(), good);
    let both = Faulty {
        inner: ScalarBackend::new(),
        corrupt: 4,
        corrupt_check: Some(2),
    };
    let res = key.sign_batch(&both, scheme, &msgs).unwrap();
    for i in [0, 1, 3] {
        assert_eq!(res[i], good[i], "job {i}");
    }
    assert!(
        matches!(res[2], Err(Error::FaultDetected(_))),
        "{:?}",
        res[2]
    );
}

#[test]
fn multi_key_batches_mix_keys_and_curves() {
    let keys = [
        test_keys::ecdsa(Curve::P256),
        test_keys::ecdsa(Curve::P521),
        test_keys::ecdsa(Curve::P256),
    ];
    let digests: Vec<Vec<u8>> = (0..6).map(|i| HashAlg::Sha512.digest(&[i as u8])).collect();
    let jobs: Vec<ecdsa::EcdsaSignJob<'_>> = digests
        .iter()
        .enumerate()
        .map(|(i, d)| ecdsa::EcdsaSignJob {
            key: &keys[i % 3],
            digest: d,
        })
        .collect();
    let sigs = ecdsa::sign_batch(
        &backend(),
        HashAlg::Sha512,
        &jobs,
        NonceMode::Hedged,
        &mut rand::rng(),
    )
    .unwrap();
    let sigs: Vec<EcdsaSignature> = sigs.into_iter().map(Result::unwrap).collect();
    let vjobs: Vec<ecdsa::EcdsaVerifyJob<'_>> = (0..6)
        .map(|i| ecdsa::EcdsaVerifyJob {
            key: keys[i % 3].public_key(),
            digest: &digests[i],
            signature: &sigs[i],
        })
        .collect();
    let res = ecdsa::verify_batch(&backend(), HashAlg::Sha512, &vjobs).unwrap();
    assert!(res.iter().all(Result::is_ok), "{res:?}");

    let rkeys = [test_keys::rsa(2048), test_keys::rsa(3072)];
    let d = HashAlg::Sha384.digest(b"x");
    let rjobs: Vec<batchsig::rsa::RsaSignJob<'_>> = (0..4)
        .map(|i| batchsig::rsa::RsaSignJob {
            key: &rkeys[i % 2],
            digest: &d,
        })
        .collect();
    let scheme = RsaScheme::pss(HashAlg::Sha384);
    let rs = batchsig::rsa::sign_batch(&backend(), scheme, &rjobs, &mut rand::rng()).unwrap();
    for (i, s) in rs.iter().enumerate() {
        let s = s.as_ref().unwrap();
        assert_eq!(s.len(), rkeys[i % 2].public_key().size());
        let v = rkeys[i % 2]
            .public_key()
            .verify_batch(&backend(), scheme, &[b"x"], &[s])
            .unwrap();
        assert_eq!(v, vec![Ok(())]);
    }
}

/// A key restricted to RSASSA-PSS (id-RSASSA-PSS with parameters, RFC 4055) fails only its
/// own jobs under another scheme; SHA-1 never signs.
#[test]
fn pss_restricted_key_fails_only_its_jobs() {
    use batchsig::rsa::{self, RsaKeyRestriction, RsaSignJob};
    let free = test_keys::rsa(2048);
    let pss = test_keys::rsa(2048).with_restriction(RsaKeyRestriction::Pss {
        hash: HashAlg::Sha256,
        mgf1: HashAlg::Sha256,
        salt_len: 32,
    });
    let d = HashAlg::Sha256.digest(b"m");
    let jobs = [
        RsaSignJob {
            key: &free,
            digest: &d,
        },
        RsaSignJob {
            key: &pss,
            digest: &d,
        },
    ];
    let mut rng = rand::rng();
    let res = rsa::sign_batch(
        &backend(),
        RsaScheme::pkcs1v15(HashAlg::Sha256),
        &jobs,
        &mut rng,
    )
    .unwrap();
    assert!(res[0].is_ok());
    assert!(
        matches!(res[1], Err(Error::SchemeNotAllowed(_))),
        "{:?}",
        res[1]
    );
    // PSS with the key's parameters: both sign, and the key's salt length (32) is used.
    let scheme = RsaScheme::pss_with(HashAlg::Sha256, HashAlg::Sha256, None);
    let res = rsa::sign_batch(&backend(), scheme, &jobs, &mut rng).unwrap();
    let sig = res[1].as_ref().unwrap();
    let ok = pss
        .public_key()
        .verify_batch(
            &backend(),
            RsaScheme::pss_with(HashAlg::Sha256, HashAlg::Sha256, Some(32)),
            &[b"m"],
            &[sig],
        )
        .unwrap();
    assert!(ok[0].is_ok());
    // A different MGF1 hash is refused for the restricted key only.
    let scheme = RsaScheme::pss_with(HashAlg::Sha256, HashAlg::Sha1, None);
    let res = rsa::sign_batch(&backend(), scheme, &jobs, &mut rng).unwrap();
    assert!(res[0].is_ok());
    assert!(matches!(res[1], Err(Error::SchemeNotAllowed(_))));
    // SHA-1 as the message hash: verification only.
    let d1 = HashAlg::Sha1.digest(b"m");
    let job = [RsaSignJob {
        key: &free,
        digest: &d1,
    }];
    assert!(matches!(
        rsa::sign_batch(
            &backend(),
            RsaScheme::pkcs1v15(HashAlg::Sha1),
            &job,
            &mut rng
        ),
        Err(Error::SchemeNotAllowed(_))
    ));
}

/// Restricted keys round-trip through PKCS#8 and SPKI with their parameters.
#[test]
fn pss_restriction_survives_pem() {
    use batchsig::rsa::RsaKeyRestriction;
    for r in [
        RsaKeyRestriction::PssAny,
        RsaKeyRestriction::Pss {
            hash: HashAlg::Sha512,
            mgf1: HashAlg::Sha256,
            salt_len: 20,
        },
    ] {
        let k = test_keys::rsa(2048).with_restriction(r);
        let again = RsaPrivateKey::from_pem_or_der(k.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
        assert_eq!(again.restriction(), r);
        let pem = k.public_key().to_public_key_pem().unwrap();
        assert_eq!(
            RsaPublicKey::from_pem_or_der(pem.as_bytes())
                .unwrap()
                .restriction(),
            r
        );
    }
    assert_eq!(
        RsaPrivateKey::from_pem_or_der(test_keys::rsa_pem(2048).unwrap().as_bytes())
            .unwrap()
            .restriction(),
        RsaKeyRestriction::None
    );
}
