//! batchsig::tls against independent implementations: the CertificateVerify signatures of
//! the simulated handshakes verify in RustCrypto (rsa, p256, p384, p521) over an RFC 8446
//! §4.4.3 content rebuilt here from the messages with `sha2`; the chain signatures verify
//! there too; both sides' shared secrets equal a RustCrypto ECDH; corrupted handshakes fail,
//! exactly those, at the expected step.

use batchsig::tls::{
    compare_security_levels, format_table, simulate, wire, CertPublicKey, Corruption, KexGroup,
    Side, Step, Suite, TlsBatch, TlsSimConfig,
};
use batchsig::{test_keys, Error};
use rsa::pkcs8::DecodePrivateKey;
use rsa::traits::PublicKeyParts;
use sha2::{Digest, Sha256, Sha384};
use signature::Verifier;

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn config(suite: Suite, kex: KexGroup, handshakes: usize, chain_depth: usize) -> TlsSimConfig {
    let mut c = TlsSimConfig::new(suite, handshakes);
    c.kex = kex;
    c.chain_depth = chain_depth;
    c.seed = Some(6);
    c
}

fn run<'a>(b: &'a batch_scalar::ScalarBackend, c: &TlsSimConfig) -> TlsBatch<'a> {
    let mut batch = TlsBatch::new(b, c).unwrap();
    batch.client_finish().unwrap();
    batch
}

/// The §4.4.3 content over the server's transcript, rebuilt from the messages it saw.
fn content_from_messages(h: &batchsig::tls::Handshake, suite: Suite) -> Vec<u8> {
    let parts = [
        h.client_hello_received(),
        h.server_hello(),
        &h.encrypted_extensions()[..],
        h.certificate(),
    ]
    .concat();
    let th = match suite.cipher_suite() {
        0x1301 => Sha256::digest(&parts).to_vec(),
        0x1302 => Sha384::digest(&parts).to_vec(),
        other => panic!("unexpected cipher suite {other:#06x}"),
    };
    assert_eq!(th, h.server_transcript_hash());
    let mut content = vec![0x20u8; 64];
    content.extend_from_slice(b"TLS 1.3, server CertificateVerify");
    content.push(0);
    content.extend_from_slice(&th);
    assert_eq!(Some(&content), h.certificate_verify_content().as_ref());
    content
}

/// The CertificateVerify message as sent: type 15, u24 length, the scheme, the signature.
fn signature_of(h: &batchsig::tls::Handshake, suite: Suite) -> Vec<u8> {
    let cv = h.certificate_verify();
    assert_eq!(cv[0], 15);
    assert_eq!(
        usize::from(cv[1]) << 16 | usize::from(cv[2]) << 8 | usize::from(cv[3]),
        cv.len() - 4
    );
    assert_eq!(u16::from_be_bytes([cv[4], cv[5]]), suite.signature_scheme());
    assert_eq!(
        usize::from(u16::from_be_bytes([cv[6], cv[7]])),
        cv.len() - 8
    );
    assert_eq!(h.certificate_verify_signature(), Some(&cv[8..]));
    cv[8..].to_vec()
}

#[test]
fn rsa_pss_certificate_verify_verifies_in_rustcrypto() {
    let b = backend();
    for (suite, n) in [
        (Suite::RsaPss2048, 8),
        (Suite::RsaPss3072, 3),
        (Suite::RsaPss4096, 2),
    ] {
        let bits = suite.rsa_bits().unwrap();
        assert_eq!(suite.signature_scheme(), 0x0804, "rsa_pss_rsae_sha256");
        let theirs = rsa::RsaPrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap())
            .unwrap()
            .to_public_key();
        let batch = run(&b, &config(suite, KexGroup::P256, n, 1));
        let CertPublicKey::Rsa(ours) = batch.server_public_key() else {
            panic!("RSA suite has an RSA key")
        };
        assert_eq!(ours.n_bytes(), theirs.n().to_bytes_be());
        let vk = rsa::pss::VerifyingKey::<Sha256>::new(theirs.clone());
        let mut distinct = std::collections::HashSet::new();
        for h in batch.handshakes() {
            assert!(h.succeeded(), "{suite}: {:?}", h.failure());
            let content = content_from_messages(h, suite);
            let sig = signature_of(h, suite);
            assert_eq!(sig.len(), bits / 8);
            let sig = rsa::pss::Signature::try_from(sig.as_slice()).unwrap();
            vk.verify(&content, &sig)
                .unwrap_or_else(|e| panic!("{suite} handshake {}: {e}", h.index()));
            // A different transcript must not verify under the same signature.
            let mut other = content.clone();
            *other.last_mut().unwrap() ^= 1;
            assert!(vk.verify(&other, &sig).is_err());
            distinct.insert(content);
        }
        assert_eq!(distinct.len(), n, "every handshake has its own transcript");
    }
}

#[test]
fn large_rsa_suites_sign_with_their_hash_and_verify_in_rustcrypto() {
    let b = backend();
    for suite in [Suite::RsaPss7680, Suite::RsaPss15360] {
        let bits = suite.rsa_bits().unwrap();
        let theirs = rsa::RsaPrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap())
            .unwrap()
            .to_public_key();
        let batch = run(&b, &config(suite, KexGroup::P384, 1, 0));
        let h = &batch.handshakes()[0];
        assert!(h.succeeded(), "{suite}: {:?}", h.failure());
        let content = content_from_messages(h, suite);
        let sig = signature_of(h, suite);
        let sig = rsa::pss::Signature::try_from(sig.as_slice()).unwrap();
        match suite {
            Suite::RsaPss7680 => {
                rsa::pss::VerifyingKey::<Sha384>::new(theirs).verify(&content, &sig)
            }
            _ => rsa::pss::VerifyingKey::<sha2::Sha512>::new(theirs).verify(&content, &sig),
        }
        .unwrap_or_else(|e| panic!("{suite}: {e}"));
    }
}

macro_rules! ecdsa_cv_test {
    ($name:ident, $krate:ident, $suite:expr, $kex:expr) => {
        #[test]
        fn $name() {
            use $krate::ecdsa::{Signature, VerifyingKey};
            let b = backend();
            let suite = $suite;
            let batch = run(&b, &config(suite, $kex, 8, 1));
            let CertPublicKey::Ecdsa(ours) = batch.server_public_key() else {
                panic!("ECDSA suite has an EC key")
            };
            assert_eq!(
                &ours,
                test_keys::ecdsa(suite.ecdsa_curve().unwrap()).public_key()
            );
            let vk = VerifyingKey::from_sec1_bytes(&ours.to_sec1_bytes()).unwrap();
            for h in batch.handshakes() {
                assert!(h.succeeded(), "{suite}: {:?}", h.failure());
                let content = content_from_messages(h, suite);
                let sig =
                    Signature::from_der(&signature_of(h, suite)).expect("DER ECDSA-Sig-Value");
                vk.verify(&content, &sig)
                    .unwrap_or_else(|e| panic!("{suite} handshake {}: {e}", h.index()));
                let mut other = content.clone();
                other[0] ^= 1;
                assert!(vk.verify(&other, &sig).is_err());
            }
        }
    };
}

ecdsa_cv_test!(
    ecdsa_p256_certificate_verify_verifies_in_rustcrypto,
    p256,
    Suite::EcdsaP256,
    KexGroup::P256
);
ecdsa_cv_test!(
    ecdsa_p384_certificate_verify_verifies_in_rustcrypto,
    p384,
    Suite::EcdsaP384,
    KexGroup::P384
);
ecdsa_cv_test!(
    ecdsa_p521_certificate_verify_verifies_in_rustcrypto,
    p521,
    Suite::EcdsaP521,
    KexGroup::P256
);

#[test]
fn chain_signatures_verify_in_rustcrypto() {
    let b = backend();
    // RSA: PKCS#1 v1.5 SHA-256 by the fixed key at every level.
    let batch = run(&b, &config(Suite::RsaPss2048, KexGroup::P256, 2, 3));
    let theirs = rsa::RsaPrivateKey::from_pkcs8_pem(test_keys::rsa_pem(2048).unwrap())
        .unwrap()
        .to_public_key();
    let vk = rsa::pkcs1v15::VerifyingKey::<Sha256>::new(theirs);
    assert_eq!(batch.chain().len(), 3);
    for cert in batch.chain() {
        assert_eq!(cert.sig_scheme, 0x0401);
        let sig = rsa::pkcs1v15::Signature::try_from(cert.signature.as_slice()).unwrap();
        vk.verify(&cert.tbs, &sig)
            .expect("RustCrypto verifies the certificate");
    }
    // ECDSA: each certificate by the key in the next one, the last by the trust anchor.
    let batch = run(&b, &config(Suite::EcdsaP256, KexGroup::P256, 2, 3));
    let chain = batch.chain();
    assert_eq!(chain.len(), 3);
    let CertPublicKey::Ecdsa(anchor) = batch.trust_anchor() else {
        panic!("EC anchor")
    };
    for (i, cert) in chain.iter().enumerate() {
        let issuer = match chain.get(i + 1) {
            Some(next) => wire::parse_tbs(&next.tbs).unwrap().key.to_vec(),
            None => anchor.to_sec1_bytes(),
        };
        let vk = p256::ecdsa::VerifyingKey::from_sec1_bytes(&issuer).unwrap();
        let sig = p256::ecdsa::Signature::from_der(&cert.signature).unwrap();
        vk.verify(&cert.tbs, &sig)
            .expect("RustCrypto verifies the certificate");
    }
    // The leaf carries the server key.
    let leaf = wire::parse_tbs(&chain[0].tbs).unwrap();
    assert_eq!(leaf.key, batch.server_public_key().to_bytes().unwrap());
    // And the handshakes' Certificate message carries this chain.
    let parsed = wire::parse_certificate(batch.handshakes()[0].certificate()).unwrap();
    assert_eq!(parsed.len(), 3);
    assert!(parsed
        .iter()
        .zip(chain)
        .all(|(p, c)| p.0 == c.tbs && p.2 == c.signature));
}

macro_rules! ecdh_test {
    ($name:ident, $krate:ident, $kex:expr) => {
        #[test]
        fn $name() {
            use $krate::elliptic_curve::sec1::ToEncodedPoint;
            use $krate::{PublicKey, SecretKey};
            let b = backend();
            let batch = run(&b, &config(Suite::EcdsaP256, $kex, 16, 0));
            let share = |msg: &[u8], client: bool| -> PublicKey {
                let s = if client {
                    wire::client_hello_share(msg, $kex.code()).unwrap()
                } else {
                    wire::server_hello_share(msg, $kex.code()).unwrap()
                };
                PublicKey::from_sec1_bytes(s).unwrap()
            };
            let dh = |secret: &[u8], peer: &PublicKey| -> Vec<u8> {
                let sk = SecretKey::from_slice(secret).unwrap();
                let p = (peer.to_projective() * *sk.to_nonzero_scalar()).to_affine();
                p.to_encoded_point(false).x().unwrap().to_vec()
            };
            let mut secrets = std::collections::HashSet::new();
            for h in batch.handshakes() {
                assert!(h.succeeded(), "{:?}", h.failure());
                let client_pub = share(h.client_hello(), true);
                let server_pub = share(h.server_hello(), false);
                let client_secret = h.client_ephemeral_secret().unwrap();
                let server_secret = h.server_ephemeral_secret().unwrap();
                // The shares are the secrets' public points.
                assert_eq!(
                    SecretKey::from_slice(&client_secret).unwrap().public_key(),
                    client_pub
                );
                assert_eq!(
                    SecretKey::from_slice(&server_secret).unwrap().public_key(),
                    server_pub
                );
                let want = dh(&client_secret, &server_pub);
                assert_eq!(want, dh(&server_secret, &client_pub));
                assert_eq!(want.len(), $kex.curve().field_bytes());
                assert_eq!(h.client_shared_secret(), Some(&want[..]));
                assert_eq!(h.server_shared_secret(), Some(&want[..]));
                secrets.insert(want);
            }
            assert_eq!(secrets.len(), 16, "fresh ephemeral keys per handshake");
        }
    };
}

ecdh_test!(
    p256_shared_secrets_match_rustcrypto_ecdh,
    p256,
    KexGroup::P256
);
ecdh_test!(
    p384_shared_secrets_match_rustcrypto_ecdh,
    p384,
    KexGroup::P384
);

/// Expected detection point of each corruption kind.
fn expected(kind: Corruption, chain_depth: usize) -> (Side, Step) {
    match kind {
        Corruption::CertificateVerify => (Side::Client, Step::CertificateVerify),
        Corruption::ServerKeyShare => (Side::Client, Step::Ecdh),
        Corruption::Certificate if chain_depth == 0 => (Side::Client, Step::CertificateVerify),
        Corruption::Certificate => (Side::Client, Step::Chain),
        Corruption::ClientKeyShare => (Side::Server, Step::Ecdh),
    }
}

#[test]
fn corrupted_handshakes_and_only_those_fail_at_the_expected_step() {
    let b = backend();
    for (suite, kex, n, depth, corrupt) in [
        (Suite::EcdsaP256, KexGroup::P256, 16, 2, 4),
        (Suite::EcdsaP384, KexGroup::P384, 9, 0, 5),
        (Suite::RsaPss2048, KexGroup::P256, 12, 1, 8),
        (Suite::EcdsaP256, KexGroup::P256, 4, 1, 4),
    ] {
        let mut c = config(suite, kex, n, depth);
        c.corrupt = corrupt;
        let plan = c.corruptions();
        assert_eq!(plan.len(), corrupt);
        let batch = run(&b, &c);
        let report = batch.report();
        assert_eq!(report.corrupted, corrupt);
        assert_eq!(
            report.failed, corrupt,
            "{suite} depth {depth}: {:?}",
            report.failures
        );
        assert_eq!(report.succeeded(), n - corrupt);
        let failed: Vec<usize> = report.failures.iter().map(|f| f.index).collect();
        assert_eq!(failed, plan.iter().map(|p| p.0).collect::<Vec<_>>());
        for (i, kind) in plan {
            let h = &batch.handshakes()[i];
            assert_eq!(h.corruption(), Some(kind));
            let f = h.failure().unwrap();
            assert_eq!(
                (f.side, f.step),
                expected(kind, depth),
                "{suite} depth {depth} {kind:?}: {f}"
            );
            match kind {
                Corruption::ServerKeyShare | Corruption::ClientKeyShare => {
                    assert_eq!(f.error, Error::PointNotOnCurve { curve: kex.curve() })
                }
                _ => assert!(
                    matches!(
                        f.error,
                        Error::InvalidSignature | Error::MalformedSignature(_)
                    ),
                    "{suite} {kind:?}: {}",
                    f.error
                ),
            }
        }
        for h in batch
            .handshakes()
            .iter()
            .filter(|h| h.corruption().is_none())
        {
            assert!(h.succeeded(), "{suite}: {:?}", h.failure());
            assert_eq!(h.client_shared_secret(), h.server_shared_secret());
            assert_eq!(h.client_transcript_hash(), h.server_transcript_hash());
        }
    }
}

#[test]
fn every_kind_of_corruption_alone_is_detected() {
    let b = backend();
    for kind in Corruption::ALL {
        let mut c = config(Suite::EcdsaP256, KexGroup::P256, 3, 1);
        c.corrupt = 1;
        c.corrupt_kind = Some(kind);
        let report = simulate(&b, &c).unwrap();
        assert_eq!(report.failed, 1, "{kind:?}");
        let f = &report.failures[0];
        assert_eq!(
            (f.index, f.side, f.step),
            (0, expected(kind, 1).0, expected(kind, 1).1),
            "{kind:?}"
        );
    }
}

#[test]
fn simulate_measures_every_common_suite() {
    let b = backend();
    let mut reports = Vec::new();
    for &suite in Suite::all() {
        let n = if suite == Suite::RsaPss4096 { 2 } else { 4 };
        let report = simulate(&b, &config(suite, KexGroup::P256, n, 1)).unwrap();
        assert_eq!(
            (report.suite, report.handshakes, report.failed),
            (suite, n, 0),
            "{:?}",
            report.failures
        );
        assert_eq!(report.backend, "scalar");
        for side in [Side::Server, Side::Client] {
            let s = report.side(side);
            assert_eq!(s.side, side);
            assert!(s.handshakes_per_sec > 0.0 && s.handshakes_per_sec.is_finite());
            assert!(
                (s.handshakes_per_sec * s.per_handshake.total().as_secs_f64() - 1.0).abs() < 1e-9
            );
            assert!(s.per_handshake.key_share > std::time::Duration::ZERO);
            assert!(s.per_handshake.ecdh > std::time::Duration::ZERO);
        }
        let (sv, cl) = (report.server.per_handshake, report.client.per_handshake);
        assert!(
            sv.sign > std::time::Duration::ZERO
                && cl.verify > std::time::Duration::ZERO
                && cl.chain > std::time::Duration::ZERO
        );
        assert_eq!(
            (sv.verify, sv.chain, cl.sign),
            (Default::default(), Default::default(), Default::default())
        );
        reports.push(report);
    }
    let levels = compare_security_levels(&reports);
    assert_eq!(
        levels.iter().map(|l| l.security_bits).collect::<Vec<_>>(),
        vec![112, 128, 192, 256]
    );
    let l128 = &levels[1];
    let mut at128: Vec<Suite> = l128.suites.iter().map(|s| s.0).collect();
    at128.sort();
    assert_eq!(
        at128,
        vec![Suite::RsaPss3072, Suite::RsaPss4096, Suite::EcdsaP256]
    );
    assert!(at128.contains(&l128.cheaper_for_server) && at128.contains(&l128.cheaper_for_client));
    assert!(l128.server_advantage >= 1.0 && l128.client_advantage >= 1.0);
    assert_eq!(format_table(&reports).lines().count(), reports.len() + 2);
}

#[test]
fn seeded_runs_repeat_and_other_seeds_differ() {
    let b = backend();
    let transcript = |seed: u64, suite: Suite| -> Vec<Vec<u8>> {
        let mut c = config(suite, KexGroup::P256, 3, 1);
        c.seed = Some(seed);
        let batch = run(&b, &c);
        batch
            .handshakes()
            .iter()
            .flat_map(|h| {
                [
                    h.client_hello().to_vec(),
                    h.server_hello().to_vec(),
                    h.certificate_verify().to_vec(),
                ]
            })
            .collect()
    };
    for suite in [Suite::EcdsaP256, Suite::RsaPss2048] {
        assert_eq!(transcript(1, suite), transcript(1, suite), "{suite}");
        assert_ne!(transcript(1, suite), transcript(2, suite), "{suite}");
    }
}

#[test]
fn bad_configurations_are_errors() {
    let b = backend();
    let mut c = config(Suite::EcdsaP256, KexGroup::P256, 0, 1);
    assert_eq!(simulate(&b, &c).unwrap_err(), Error::EmptyBatch);
    c.handshakes = 2;
    c.corrupt = 3;
    assert!(matches!(
        simulate(&b, &c).unwrap_err(),
        Error::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        }
    ));
}

/// A backend that misbehaves on purpose: a wrong ECDH point for one job, a lost device, or
/// no device at all.
#[derive(Debug)]
struct Faulty {
    inner: batch_scalar::ScalarBackend,
    fault: Fault,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    /// `mul_point` returns an off-curve point for this job of every batch.
    OffCurveEcdh(usize),
    /// `mul_base` fails for the whole batch.
    DeviceLost,
    Unavailable,
}

impl batch_core::Backend for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
    }
    fn description(&self) -> String {
        "scalar with injected faults".into()
    }
    fn availability(&self) -> batch_core::Availability {
        match self.fault {
            Fault::Unavailable => {
                batch_core::Availability::Unavailable("no device in this test".into())
            }
            _ => self.inner.availability(),
        }
    }
    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[batch_core::ModexpJob<'_>],
    ) -> Result<Vec<batch_core::JobResult<Vec<u64>>>, Error> {
        self.inner.modexp(moduli, jobs)
    }
    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[batch_core::ModexpJob<'_>],
    ) -> Result<Vec<batch_core::JobResult<Vec<u64>>>, Error> {
        self.inner.modexp_vartime(moduli, jobs)
    }
    fn mul_base(
        &self,
        curve: batchsig::Curve,
        scalars: &[batch_core::EcUint],
    ) -> Result<Vec<batch_core::JobResult<batch_core::AffinePoint>>, Error> {
        match self.fault {
            Fault::DeviceLost => Err(Error::Backend("device lost".into())),
            _ => self.inner.mul_base(curve, scalars),
        }
    }
    fn mul_point(
        &self,
        curve: batchsig::Curve,
        points: &[batch_core::AffinePoint],
        scalars: &[batch_core::EcUint],
    ) -> Result<Vec<batch_core::JobResult<batch_core::AffinePoint>>, Error> {
        let mut out = self.inner.mul_point(curve, points, scalars)?;
        if let Fault::OffCurveEcdh(i) = self.fault {
            if let Some(Ok(p)) = out.get_mut(i) {
                p.y.0[0] ^= 1;
            }
        }
        Ok(out)
    }
    fn mul_double_vartime(
        &self,
        curve: batchsig::Curve,
        u1: &[batch_core::EcUint],
        u2: &[batch_core::EcUint],
        points: &[batch_core::AffinePoint],
    ) -> Result<Vec<batch_core::JobResult<batch_core::AffinePoint>>, Error> {
        self.inner.mul_double_vartime(curve, u1, u2, points)
    }
}

#[test]
fn backend_faults_fail_the_job_or_the_run_never_panic() {
    let c = config(Suite::EcdsaP256, KexGroup::P256, 5, 1);
    let faulty = |fault| Faulty {
        inner: backend(),
        fault,
    };
    // A wrong ECDH point fails that job's handshake only, as a detected fault: job 2 of the
    // server's batch is handshake 2; the client's batch leaves that one out, so its job 2 is
    // handshake 3.
    let report = simulate(&faulty(Fault::OffCurveEcdh(2)), &c).unwrap();
    assert_eq!(report.backend, "faulty");
    assert_eq!(report.failed, 2, "{:?}", report.failures);
    let at: Vec<(usize, Side, Step)> = report
        .failures
        .iter()
        .map(|f| (f.index, f.side, f.step))
        .collect();
    assert_eq!(
        at,
        vec![(2, Side::Server, Step::Ecdh), (3, Side::Client, Step::Ecdh)]
    );
    assert!(
        report
            .failures
            .iter()
            .all(|f| matches!(f.error, Error::FaultDetected(_))),
        "{:?}",
        report.failures
    );
    // A lost device fails the run with the backend's error.
    assert_eq!(
        simulate(&faulty(Fault::DeviceLost), &c).unwrap_err(),
        Error::Backend("device lost".into())
    );
    // An unavailable backend is refused before any work.
    assert!(matches!(
        TlsBatch::new(&faulty(Fault::Unavailable), &c).unwrap_err(),
        Error::Unavailable(_)
    ));
}
