//! batch_tls against independent implementations: the CertificateVerify signatures of the
//! simulated handshakes verify in RustCrypto (rsa, p256, p384, p521) over an RFC 8446 §4.4.3
//! content rebuilt here from the messages with `sha2`; the X.509 chains verify with `openssl
//! verify`; a chain made by the `openssl` command line runs end to end; both sides' shared
//! secrets equal a RustCrypto ECDH; corrupted handshakes, expired or wrongly issued chains
//! fail, exactly those, at the expected step. The `openssl` tests skip loudly without it and
//! fail under CI.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use batch_core::{AffinePoint, Availability, Backend, EcUint, Forward, JobResult};
use batch_tests::{openssl, openssl_run, write_file as write};
use batch_tls::x509::{self, ChainOptions};
use batch_tls::{
    compare, format_table, measure, simulate, summarize, wire, CertPublicKey, Corruption, KexGroup,
    ServerIdentity, ServerKey, Side, Step, Suite, TlsBatch, TlsSimConfig,
};
use batchsig::{test_keys, Curve, Error};
use rsa::pkcs8::DecodePrivateKey;
use rsa::traits::PublicKeyParts;
use sha2::{Digest, Sha256, Sha384};
use signature::Verifier;

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn config(kex: KexGroup, handshakes: usize) -> TlsSimConfig {
    let mut c = TlsSimConfig::new(handshakes);
    c.kex = kex;
    c.seed = Some(6);
    c
}

/// The fixed test key of `suite` as the server key.
fn server_key(suite: Suite) -> ServerKey {
    match suite {
        Suite::RsaPss(bits) => ServerKey::Rsa(test_keys::rsa(bits)),
        Suite::Ecdsa(curve) => ServerKey::Ecdsa(test_keys::ecdsa(curve)),
    }
}

/// The default issuers of each issuer suite, generated once per test binary (RSA key
/// generation is the slow part).
fn issuers(suite: Suite) -> &'static [ServerKey] {
    static CACHE: [OnceLock<Vec<ServerKey>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = match suite {
        Suite::RsaPss(_) => 0,
        Suite::Ecdsa(Curve::P521) => 2,
        Suite::Ecdsa(_) => 1,
    };
    CACHE[slot].get_or_init(|| {
        let mut rng = rand::rng();
        let issuer = server_key(suite).default_issuer_suite();
        (0..2)
            .map(|_| ServerKey::generate(issuer, &mut rng).unwrap())
            .collect()
    })
}

/// `suite`'s fixed key under its default issuers (an intermediate and a root).
fn identity(suite: Suite) -> ServerIdentity {
    identity_with(suite, &ChainOptions::default())
}

fn identity_with(suite: Suite, options: &ChainOptions) -> ServerIdentity {
    ServerIdentity::issue(
        &backend(),
        server_key(suite),
        issuers(suite),
        options,
        &mut rand::rng(),
    )
    .unwrap()
}

fn run<'a>(b: &'a batch_scalar::ScalarBackend, suite: Suite, c: &TlsSimConfig) -> TlsBatch<'a> {
    let mut batch = TlsBatch::new(b, &identity(suite), c).unwrap();
    batch.client_finish().unwrap();
    batch
}

/// The §4.4.3 content over the server's transcript, rebuilt from the messages it saw.
fn content_from_messages(h: &batch_tls::Handshake, suite: Suite) -> Vec<u8> {
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
fn signature_of(h: &batch_tls::Handshake, suite: Suite) -> Vec<u8> {
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
    for (bits, n) in [(2048, 8), (3072, 3), (4096, 2)] {
        let suite = Suite::RsaPss(bits);
        assert_eq!(suite.signature_scheme(), 0x0804, "rsa_pss_rsae_sha256");
        let theirs = rsa::PrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap())
            .unwrap()
            .to_public_key();
        let batch = run(&b, suite, &config(KexGroup::P256, n));
        let CertPublicKey::Rsa(ours) = batch.identity().key().public() else {
            panic!("RSA suite has an RSA key")
        };
        assert_eq!(
            ours.n_bytes(),
            theirs.n().to_be_bytes_trimmed_vartime().to_vec()
        );
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
    for bits in [7680, 15360] {
        let suite = Suite::RsaPss(bits);
        let theirs = rsa::PrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap())
            .unwrap()
            .to_public_key();
        let batch = run(&b, suite, &config(KexGroup::P384, 1));
        let h = &batch.handshakes()[0];
        assert!(h.succeeded(), "{suite}: {:?}", h.failure());
        let content = content_from_messages(h, suite);
        let sig = signature_of(h, suite);
        // rsa 0.10 decodes signatures up to 8192-bit keys by default; RSA-15360 needs the
        // explicit limit.
        let sig = rsa::pss::Signature::from_bytes_with_max_len(&sig, 15360 / 8).unwrap();
        match bits {
            7680 => rsa::pss::VerifyingKey::<Sha384>::new(theirs).verify(&content, &sig),
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
            let batch = run(&b, suite, &config($kex, 8));
            let CertPublicKey::Ecdsa(ours) = batch.identity().key().public() else {
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
    Suite::Ecdsa(Curve::P256),
    KexGroup::P256
);
ecdsa_cv_test!(
    ecdsa_p384_certificate_verify_verifies_in_rustcrypto,
    p384,
    Suite::Ecdsa(Curve::P384),
    KexGroup::P384
);
ecdsa_cv_test!(
    ecdsa_p521_certificate_verify_verifies_in_rustcrypto,
    p521,
    Suite::Ecdsa(Curve::P521),
    KexGroup::P256
);

#[test]
fn generated_chains_verify_with_openssl_and_have_the_default_issuers() {
    if openssl("generated_chains_verify_with_openssl").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (suite, issuer_oid) in [
        (Suite::RsaPss(2048), "1.2.840.113549.1.1.11"),
        (Suite::RsaPss(3072), "1.2.840.113549.1.1.11"),
        (Suite::Ecdsa(Curve::P256), "1.2.840.10045.4.3.3"),
        (Suite::Ecdsa(Curve::P521), "1.2.840.10045.4.3.4"),
    ] {
        let id = identity(suite);
        assert_eq!(id.chain().len(), 2, "leaf and intermediate are sent");
        // Every certificate is signed by the default issuer type, and says so.
        for der in id.chain().iter().chain([&id.trust_anchor().to_vec()]) {
            let c = x509::parse(der).unwrap();
            assert_eq!(c.cert.signature_algorithm().oid.to_string(), issuer_oid);
        }
        let issuer_key = x509::parse(&id.chain()[1]).unwrap().public_key().unwrap();
        assert_eq!(
            issuer_key.suite().unwrap(),
            server_key(suite).default_issuer_suite()
        );
        assert_ne!(
            issuer_key,
            id.key().public(),
            "issuers are not the leaf key"
        );
        let (chain, root) = id.to_pem().unwrap();
        let root = write(dir.path(), "root.pem", root.as_bytes());
        let leaf = write(
            dir.path(),
            "leaf.pem",
            x509::to_pem(&id.chain()[0]).unwrap().as_bytes(),
        );
        let inter = write(
            dir.path(),
            "inter.pem",
            x509::to_pem(&id.chain()[1]).unwrap().as_bytes(),
        );
        let (ok, out) = openssl_run(&[
            "verify",
            "-x509_strict",
            "-CAfile",
            &root,
            "-untrusted",
            &inter,
            "-verify_hostname",
            "server.batchsig.test",
            &leaf,
        ]);
        assert!(ok && out.contains("OK"), "{suite}: openssl verify: {out}");
        // openssl rejects the chain under another root with the same name.
        let other = ServerIdentity::generate(&backend(), server_key(suite), &mut rand::rng());
        if let (Suite::Ecdsa(_), Ok(other)) = (suite, other) {
            let other_root = write(
                dir.path(),
                "other.pem",
                other.to_pem().unwrap().1.as_bytes(),
            );
            let (ok, out) = openssl_run(&[
                "verify",
                "-CAfile",
                &other_root,
                "-untrusted",
                &inter,
                &leaf,
            ]);
            assert!(!ok, "{suite}: verified under the wrong root: {out}");
        }
        // The PEM round trip gives the same identity back.
        let key_pem = match id.key() {
            ServerKey::Rsa(k) => k.to_pkcs8_pem().unwrap(),
            ServerKey::Ecdsa(k) => k.to_pkcs8_pem().unwrap(),
        };
        let back = ServerIdentity::from_pem(
            chain.as_bytes(),
            key_pem.as_bytes(),
            std::fs::read(&root).unwrap().as_slice(),
        )
        .unwrap();
        assert_eq!(back.chain(), id.chain());
        assert_eq!(back.trust_anchor(), id.trust_anchor());
    }
}

#[test]
fn client_hello_offers_signature_algorithms_cert_covering_the_chain() {
    let b = backend();
    for suite in [Suite::RsaPss(2048), Suite::Ecdsa(Curve::P256)] {
        let batch = run(&b, suite, &config(KexGroup::P256, 2));
        let ch = batch.handshakes()[0].client_hello();
        assert_eq!(
            wire::client_hello_schemes(ch, false).unwrap(),
            vec![suite.signature_scheme()]
        );
        let cert_schemes = wire::client_hello_schemes(ch, true).unwrap();
        assert_eq!(cert_schemes, x509::ACCEPTED_CERT_SCHEMES.to_vec());
        for der in batch.identity().chain() {
            let alg = x509::parse(der).unwrap().alg;
            assert!(cert_schemes.contains(&alg.tls_scheme()), "{suite}: {alg:?}");
        }
    }
}

/// Runs `openssl` with `args` in `dir`, panicking with its output if it fails.
fn openssl_in(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_chain_made_by_openssl_runs_end_to_end_and_a_wrong_root_is_rejected() {
    if openssl("a_chain_made_by_openssl_runs_end_to_end").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "ca.cnf", b"[ca]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign\n[leaf]\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectAltName=DNS:example.test\n");
    let ec = [
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-out",
    ];
    for k in ["root.key", "other.key", "inter.key", "leaf.key"] {
        openssl_in(d, &[&ec[..], &[k]].concat());
    }
    openssl_in(
        d,
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            "rsa.key",
        ],
    );
    for (key, out) in [("root.key", "root.pem"), ("other.key", "other.pem")] {
        openssl_in(
            d,
            &[
                "req",
                "-x509",
                "-new",
                "-key",
                key,
                "-subj",
                "/CN=Test Root",
                "-days",
                "30",
                "-sha256",
                "-out",
                out,
            ],
        );
    }
    // intermediate under the root, then an EC and an RSA leaf under the intermediate
    let issue = |key: &str, cn: &str, ca: &str, ca_key: &str, section: &str, out: &str| {
        openssl_in(
            d,
            &["req", "-new", "-key", key, "-subj", cn, "-out", "req.csr"],
        );
        openssl_in(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "req.csr",
                "-CA",
                ca,
                "-CAkey",
                ca_key,
                "-set_serial",
                "7",
                "-days",
                "30",
                "-sha256",
                "-extfile",
                "ca.cnf",
                "-extensions",
                section,
                "-out",
                out,
            ],
        );
    };
    issue(
        "inter.key",
        "/CN=Test Intermediate",
        "root.pem",
        "root.key",
        "ca",
        "inter.pem",
    );
    issue(
        "leaf.key",
        "/CN=example.test",
        "inter.pem",
        "inter.key",
        "leaf",
        "leaf.pem",
    );
    issue(
        "rsa.key",
        "/CN=example.test",
        "inter.pem",
        "inter.key",
        "leaf",
        "rsaleaf.pem",
    );
    let read = |f: &str| std::fs::read(d.join(f)).unwrap();
    let b = backend();
    for (leaf, key, suite) in [
        ("leaf.pem", "leaf.key", Suite::Ecdsa(Curve::P256)),
        ("rsaleaf.pem", "rsa.key", Suite::RsaPss(2048)),
    ] {
        let chain = [read(leaf), read("inter.pem")].concat();
        let id = ServerIdentity::from_pem(&chain, &read(key), &read("root.pem")).unwrap();
        assert_eq!(id.suite(), suite);
        let mut c = config(KexGroup::P256, 8);
        c.corrupt = 4;
        let report = simulate(&b, &id, &c).unwrap();
        assert_eq!(report.suite, suite);
        assert_eq!(report.chain_depth, 2);
        assert_eq!(report.failed, 4, "{suite}: {:?}", report.failures);
        // Under another root of the same name, every chain fails its signature check.
        let wrong = ServerIdentity::from_pem(&chain, &read(key), &read("other.pem")).unwrap();
        let report = simulate(&b, &wrong, &config(KexGroup::P256, 3)).unwrap();
        assert_eq!(report.failed, 3);
        assert!(
            report.failures.iter().all(|f| (f.side, f.step, &f.error)
                == (Side::Client, Step::Chain, &Error::InvalidSignature)),
            "{:?}",
            report.failures
        );
        // Sent without its intermediate, the leaf's issuer is not the root: a name mismatch.
        let short = ServerIdentity::from_pem(&read(leaf), &read(key), &read("root.pem")).unwrap();
        let report = simulate(&b, &short, &config(KexGroup::P256, 2)).unwrap();
        assert_eq!(report.failed, 2);
        assert!(
            report
                .failures
                .iter()
                .all(|f| f.step == Step::Chain && f.error.to_string().contains("issuer")),
            "{:?}",
            report.failures
        );
    }
    // The leaf's key must be the server key.
    let err = ServerIdentity::from_pem(&read("leaf.pem"), &read("rsa.key"), &read("root.pem"))
        .unwrap_err();
    assert!(err.to_string().contains("not the server key"), "{err}");
}

#[test]
fn expired_and_not_yet_valid_chains_are_rejected_and_counted() {
    let b = backend();
    let id = identity(Suite::Ecdsa(Curve::P256));
    for now in [
        SystemTime::now() + Duration::from_secs(91 * 86400),
        SystemTime::now() - Duration::from_secs(2 * 3600),
    ] {
        let mut c = config(KexGroup::P256, 3);
        c.now = Some(now);
        let report = simulate(&b, &id, &c).unwrap();
        assert_eq!(report.failed, 3);
        assert!(
            report.failures.iter().all(|f| f.step == Step::Chain
                && f.error.to_string().contains("expired or not yet valid")),
            "{:?}",
            report.failures
        );
    }
    // A chain issued already expired.
    let past = SystemTime::now() - Duration::from_secs(30 * 86400);
    let expired = identity_with(
        Suite::Ecdsa(Curve::P256),
        &ChainOptions {
            not_before: past - Duration::from_secs(86400),
            not_after: past,
            ..ChainOptions::default()
        },
    );
    let report = simulate(&b, &expired, &config(KexGroup::P256, 2)).unwrap();
    assert_eq!(report.failed, 2);
}

#[test]
fn every_client_parses_its_own_chain_keys_every_handshake() {
    let b = backend();
    for suite in [Suite::RsaPss(2048), Suite::Ecdsa(Curve::P256)] {
        for n in [1, 8, 33] {
            let mut c = config(KexGroup::P256, n);
            c.corrupt = 1;
            c.corrupt_kind = Some(Corruption::ServerKeyShare);
            let batch = run(&b, suite, &c);
            // The corrupted handshake stops at ECDH; every other client parsed both keys of
            // the chain it received (leaf and intermediate) itself.
            assert_eq!(batch.client_key_parses(), 2 * (n - 1), "{suite} N = {n}");
            assert_eq!(batch.report().failed, 1);
        }
    }
}

macro_rules! ecdh_test {
    ($name:ident, $krate:ident, $kex:expr) => {
        #[test]
        fn $name() {
            use $krate::elliptic_curve::sec1::ToSec1Point;
            use $krate::{PublicKey, SecretKey};
            let b = backend();
            let batch = run(&b, Suite::Ecdsa(Curve::P256), &config($kex, 16));
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
                p.to_sec1_point(false).x().unwrap().to_vec()
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
fn expected(kind: Corruption) -> (Side, Step) {
    match kind {
        Corruption::CertificateVerify => (Side::Client, Step::CertificateVerify),
        Corruption::ServerKeyShare => (Side::Client, Step::Ecdh),
        Corruption::Certificate => (Side::Client, Step::Chain),
        Corruption::ClientKeyShare => (Side::Server, Step::Ecdh),
    }
}

#[test]
fn corrupted_handshakes_and_only_those_fail_at_the_expected_step() {
    let b = backend();
    for (suite, kex, n, corrupt) in [
        (Suite::Ecdsa(Curve::P256), KexGroup::P256, 16, 4),
        (Suite::Ecdsa(Curve::P384), KexGroup::P384, 9, 5),
        (Suite::RsaPss(2048), KexGroup::P256, 12, 8),
        (Suite::Ecdsa(Curve::P256), KexGroup::P256, 4, 4),
    ] {
        let mut c = config(kex, n);
        c.corrupt = corrupt;
        let plan = c.corruptions();
        assert_eq!(plan.len(), corrupt);
        let batch = run(&b, suite, &c);
        let report = batch.report();
        assert_eq!(report.corrupted, corrupt);
        assert_eq!(report.failed, corrupt, "{suite}: {:?}", report.failures);
        assert_eq!(report.succeeded(), n - corrupt);
        let failed: Vec<usize> = report.failures.iter().map(|f| f.index).collect();
        assert_eq!(failed, plan.iter().map(|p| p.0).collect::<Vec<_>>());
        for (i, kind) in plan {
            let h = &batch.handshakes()[i];
            assert_eq!(h.corruption(), Some(kind));
            let f = h.failure().unwrap();
            assert_eq!((f.side, f.step), expected(kind), "{suite} {kind:?}: {f}");
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
    let id = identity(Suite::Ecdsa(Curve::P256));
    for kind in Corruption::ALL {
        let mut c = config(KexGroup::P256, 3);
        c.corrupt = 1;
        c.corrupt_kind = Some(kind);
        let report = simulate(&b, &id, &c).unwrap();
        assert_eq!(report.failed, 1, "{kind:?}");
        let f = &report.failures[0];
        assert_eq!(
            (f.index, f.side, f.step),
            (0, expected(kind).0, expected(kind).1),
            "{kind:?}"
        );
    }
}

#[test]
fn simulate_measures_every_common_suite() {
    let b = backend();
    let mut reports = Vec::new();
    for &suite in Suite::all() {
        let n = if suite == Suite::RsaPss(4096) { 2 } else { 4 };
        let report = simulate(&b, &identity(suite), &config(KexGroup::P256, n)).unwrap();
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
            assert!(s.per_handshake.key_share > Duration::ZERO);
            assert!(s.per_handshake.ecdh > Duration::ZERO);
        }
        let (sv, cl) = (report.server.per_handshake, report.client.per_handshake);
        assert!(
            sv.sign > Duration::ZERO && cl.verify > Duration::ZERO && cl.chain > Duration::ZERO
        );
        assert_eq!(
            (sv.verify, sv.chain, cl.sign),
            (Default::default(), Default::default(), Default::default())
        );
        reports.push(report);
    }
    let summaries: Vec<_> = reports
        .iter()
        .map(|r| summarize(std::slice::from_ref(r)).unwrap())
        .collect();
    // Every pair across levels, both sides, at the same N: RSA-4096 ran at N = 2, so the
    // other five certificate types give 10 pairs × 2 sides.
    let pairs = compare(&summaries);
    assert_eq!(pairs.len(), 20);
    assert!(pairs
        .iter()
        .all(|c| c.faster != Suite::RsaPss(4096) && c.slower != Suite::RsaPss(4096)));
    assert!(pairs.iter().any(|c| {
        [c.faster, c.slower] == [Suite::RsaPss(2048), Suite::Ecdsa(Curve::P256)]
            || [c.slower, c.faster] == [Suite::RsaPss(2048), Suite::Ecdsa(Curve::P256)]
    }));
    // One run each: every range is a point, so only equal medians overlap.
    assert!(pairs.iter().all(|c| c.ratio >= 1.0));
    assert_eq!(
        format_table(&summaries).lines().count(),
        summaries.len() + 2
    );
    // measure: a warm-up, then the timed runs.
    let m = measure(
        &b,
        &identity(Suite::Ecdsa(Curve::P256)),
        &config(KexGroup::P256, 4),
        3,
    )
    .unwrap();
    assert_eq!((m.runs, m.failed), (3, 0));
    assert!(m.server.min_hps <= m.server.median_hps && m.server.median_hps <= m.server.max_hps);
    assert_eq!(m.server.per_batch.sign, m.server.per_handshake.sign * 4);
}

#[test]
fn seeded_runs_repeat_and_other_seeds_differ() {
    let b = backend();
    let transcript = |seed: u64, id: &ServerIdentity| -> Vec<Vec<u8>> {
        let mut c = config(KexGroup::P256, 3);
        c.seed = Some(seed);
        let mut batch = TlsBatch::new(&b, id, &c).unwrap();
        batch.client_finish().unwrap();
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
    for suite in [Suite::Ecdsa(Curve::P256), Suite::RsaPss(2048)] {
        let id = identity(suite);
        assert_eq!(transcript(1, &id), transcript(1, &id), "{suite}");
        assert_ne!(transcript(1, &id), transcript(2, &id), "{suite}");
    }
}

#[test]
fn bad_configurations_and_identities_are_errors() {
    let b = backend();
    let id = identity(Suite::Ecdsa(Curve::P256));
    let mut c = config(KexGroup::P256, 0);
    assert_eq!(simulate(&b, &id, &c).unwrap_err(), Error::EmptyBatch);
    c.handshakes = 2;
    c.corrupt = 3;
    assert!(matches!(
        simulate(&b, &id, &c).unwrap_err(),
        Error::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        }
    ));
    // Identities: empty chain, garbage certificates and keys, a key that is not the leaf's.
    let key = server_key(Suite::Ecdsa(Curve::P256));
    assert!(ServerIdentity::new(key.clone(), vec![], id.trust_anchor().to_vec()).is_err());
    assert!(
        ServerIdentity::new(key.clone(), vec![vec![0x30, 0]], id.trust_anchor().to_vec()).is_err()
    );
    let other = server_key(Suite::Ecdsa(Curve::P384));
    assert!(ServerIdentity::new(other, id.chain().to_vec(), id.trust_anchor().to_vec()).is_err());
    assert!(ServerKey::from_pem_or_der(b"not a key").is_err());
    assert!(ServerIdentity::from_pem(b"-----BEGIN CERTIFICATE-----\n", b"", b"").is_err());
    let (chain, root) = id.to_pem().unwrap();
    for cut in [0, 10, chain.len() / 2] {
        let _ = ServerIdentity::from_pem(&chain.as_bytes()[..cut], b"x", root.as_bytes());
    }
    assert!(
        x509::certificates_from_pem_or_der(root.as_bytes())
            .unwrap()
            .len()
            == 1
    );
}

/// A backend that misbehaves on purpose: a wrong ECDH point for one job, a lost device, or
/// no device at all.
#[derive(Debug)]
struct Faulty {
    inner: batch_scalar::ScalarBackend,
    fault: Fault,
    client_hit: std::sync::atomic::AtomicBool,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    /// `mul_point` returns an off-curve point for this job of every batch of more than one
    /// job (the server's), and for the first one-job batch (one client's).
    OffCurveEcdh(usize),
    /// `mul_base` fails for the whole batch.
    DeviceLost,
    Unavailable,
}

impl Forward for Faulty {
    fn inner(&self) -> &dyn Backend {
        &self.inner
    }
    fn name(&self) -> &'static str {
        "faulty"
    }
    fn description(&self) -> String {
        "scalar with injected faults".into()
    }
    fn availability(&self) -> Availability {
        match self.fault {
            Fault::Unavailable => Availability::Unavailable("no device in this test".into()),
            _ => self.inner.availability(),
        }
    }
    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        match self.fault {
            Fault::DeviceLost => Err(Error::Backend("device lost".into())),
            _ => self.inner.mul_base(curve, scalars),
        }
    }
    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let mut out = self.inner.mul_point(curve, points, scalars)?;
        if let Fault::OffCurveEcdh(i) = self.fault {
            let job = if points.len() > 1 {
                Some(i)
            } else {
                (!self
                    .client_hit
                    .swap(true, std::sync::atomic::Ordering::SeqCst))
                .then_some(0)
            };
            if let Some(Ok(p)) = job.and_then(|j| out.get_mut(j)) {
                p.y.0[0] ^= 1;
            }
        }
        Ok(out)
    }
}

#[test]
fn backend_faults_fail_the_job_or_the_run_never_panic() {
    let c = config(KexGroup::P256, 5);
    let id = identity(Suite::Ecdsa(Curve::P256));
    let faulty = |fault| Faulty {
        inner: backend(),
        fault,
        client_hit: Default::default(),
    };
    // A wrong ECDH point fails that job's handshake only, as a detected fault: job 2 of the
    // server's batch is handshake 2; of the clients, each on its own, exactly one is hit.
    let report = simulate(&faulty(Fault::OffCurveEcdh(2)), &id, &c).unwrap();
    assert_eq!(report.backend, "faulty");
    assert_eq!(report.failed, 2, "{:?}", report.failures);
    let mut at: Vec<(Side, Step)> = report.failures.iter().map(|f| (f.side, f.step)).collect();
    at.sort_by_key(|a| a.0 == Side::Client);
    assert_eq!(at, [(Side::Server, Step::Ecdh), (Side::Client, Step::Ecdh)]);
    assert!(report
        .failures
        .iter()
        .any(|f| (f.index, f.side) == (2, Side::Server)));
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
        simulate(&faulty(Fault::DeviceLost), &id, &c).unwrap_err(),
        Error::Backend("device lost".into())
    );
    // An unavailable backend is refused before any work.
    assert!(matches!(
        TlsBatch::new(&faulty(Fault::Unavailable), &id, &c).unwrap_err(),
        Error::Unavailable(_)
    ));
}
