//! batchsig's `rustcrypto` feature and `signature` traits against RustCrypto itself: keys and
//! signatures converted both ways on every curve and RSA, signatures made by one side verified
//! by the other, wrong curves refused, the digest/randomized/keypair/encoding traits.

use batchsig::ecdsa::{EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature};
use batchsig::rsa::{RsaPrivateKey, RsaPublicKey, RsaScheme};
use batchsig::signer::{RsaSignature, RsaSigner, RsaVerifier};
use batchsig::{test_keys, Curve, Error, HashAlg};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use signature::{
    DigestSigner, DigestVerifier, Keypair, RandomizedSigner, SignatureEncoding, Signer, Verifier,
};

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

macro_rules! curve_interop {
    ($modname:ident, $krate:ident, $curve:expr, $other:ident) => {
        mod $modname {
            use super::*;
            use $krate::ecdsa::{Signature, SigningKey, VerifyingKey};

            fn their_key() -> SigningKey {
                let ours = test_keys::ecdsa($curve);
                SigningKey::try_from(&ours).expect("our key converts")
            }

            #[test]
            fn keys_round_trip_both_ways() {
                let ours = test_keys::ecdsa($curve);
                let theirs = their_key();
                assert_eq!(theirs.to_bytes().to_vec(), ours.to_scalar_bytes().to_vec());
                let back = EcdsaPrivateKey::try_from(&theirs).unwrap();
                assert_eq!(back.to_scalar_bytes(), ours.to_scalar_bytes());
                assert_eq!(back.public_key(), ours.public_key());

                let sk = $krate::SecretKey::try_from(&ours).unwrap();
                assert_eq!(sk.to_bytes(), theirs.to_bytes());
                let back = EcdsaPrivateKey::try_from(&sk).unwrap();
                assert_eq!(back.public_key(), ours.public_key());

                let vk = VerifyingKey::try_from(ours.public_key()).unwrap();
                assert_eq!(&vk, theirs.verifying_key());
                assert_eq!(EcdsaPublicKey::try_from(&vk).unwrap(), *ours.public_key());
                let pk = $krate::PublicKey::try_from(ours.public_key()).unwrap();
                assert_eq!(pk, $krate::PublicKey::from(&vk));
                assert_eq!(EcdsaPublicKey::try_from(&pk).unwrap(), *ours.public_key());
            }

            #[test]
            fn a_rustcrypto_key_signs_a_batch_that_rustcrypto_verifies() {
                let theirs = their_key();
                let ours = EcdsaPrivateKey::try_from(&theirs).unwrap();
                let msgs: Vec<Vec<u8>> = (0..9).map(|i| format!("job {i}").into_bytes()).collect();
                let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
                let sigs = ours.sign_batch(&backend(), &refs).unwrap();
                for (m, s) in msgs.iter().zip(sigs) {
                    let s = s.unwrap();
                    let theirs_sig = Signature::try_from(s).unwrap();
                    theirs.verifying_key().verify(m, &theirs_sig).unwrap();
                    // … and back: their signature type converts to ours and verifies here.
                    let back = EcdsaSignature::try_from(&theirs_sig).unwrap();
                    ours.public_key().verify(m, &back).unwrap();
                }
                // RustCrypto's own signature verifies through our Verifier.
                let sig: Signature = theirs.sign(b"theirs");
                let sig = EcdsaSignature::try_from(&sig).unwrap();
                ours.public_key().verify(b"theirs", &sig).unwrap();
                assert!(ours.public_key().verify(b"other", &sig).is_err());
            }

            #[test]
            fn other_curves_are_refused() {
                let other = test_keys::ecdsa(Curve::$other);
                assert!(matches!(
                    SigningKey::try_from(&other),
                    Err(Error::InvalidKey(_))
                ));
                assert!(matches!(
                    VerifyingKey::try_from(other.public_key()),
                    Err(Error::InvalidKey(_))
                ));
                let sig = signature::Signer::<EcdsaSignature>::sign(&other, b"m");
                assert!(matches!(
                    Signature::try_from(sig),
                    Err(Error::MalformedSignature(_))
                ));
            }
        }
    };
}

curve_interop!(p224_interop, p224, Curve::P224, P256);
curve_interop!(p256_interop, p256, Curve::P256, P384);
curve_interop!(p384_interop, p384, Curve::P384, P521);
curve_interop!(p521_interop, p521, Curve::P521, P224);

#[test]
fn randomized_signer_is_seeded_by_the_callers_generator() {
    let key = test_keys::ecdsa(Curve::P256);
    let sign = |seed: u64| -> EcdsaSignature {
        key.sign_with_rng(&mut ChaCha20Rng::seed_from_u64(seed), b"m")
    };
    // The same generator state hedges the nonce the same way; another one differently.
    assert_eq!(sign(1), sign(1));
    assert_ne!(sign(1), sign(2));
    let vk = p256::ecdsa::VerifyingKey::try_from(key.public_key()).unwrap();
    let sig = p256::ecdsa::Signature::try_from(sign(3)).unwrap();
    vk.verify(b"m", &sig).unwrap();

    let rsa = RsaSigner::new(test_keys::rsa(2048), RsaScheme::pss(HashAlg::Sha256));
    let a = rsa.sign_with_rng(&mut ChaCha20Rng::seed_from_u64(1), b"m");
    let b = rsa.sign_with_rng(&mut ChaCha20Rng::seed_from_u64(1), b"m");
    let c = rsa.sign_with_rng(&mut ChaCha20Rng::seed_from_u64(2), b"m");
    assert_eq!(a, b, "same salt from the same generator");
    assert_ne!(a, c);
    rsa.verifying_key().verify(b"m", &c).unwrap();
}

/// A generator that always fails: signing reports it as an error, it does not panic.
struct BrokenRng;

impl rand::TryRng for BrokenRng {
    type Error = std::io::Error;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        Err(std::io::Error::other("no entropy"))
    }
}
impl rand::TryCryptoRng for BrokenRng {}

#[test]
fn a_failing_generator_is_an_error() {
    let key = test_keys::ecdsa(Curve::P384);
    assert!(key.try_sign_with_rng(&mut BrokenRng, b"m").is_err());
    let rsa = RsaSigner::new(test_keys::rsa(2048), RsaScheme::pkcs1v15(HashAlg::Sha256));
    assert!(rsa.try_sign_with_rng(&mut BrokenRng, b"m").is_err());
}

#[test]
fn digest_signers_use_the_digest_they_are_given() {
    use sha2::Digest;
    // P-256 with SHA-384 (not the curve's own hash): RustCrypto verifies the prehash.
    let key = test_keys::ecdsa(Curve::P256);
    let sig: EcdsaSignature = key.sign_digest(|d: &mut sha2::Sha384| d.update(b"m"));
    key.public_key()
        .verify_digest(
            |d: &mut sha2::Sha384| {
                d.update(b"m");
                Ok(())
            },
            &sig,
        )
        .unwrap();
    let vk = p256::ecdsa::VerifyingKey::try_from(key.public_key()).unwrap();
    let sig = p256::ecdsa::Signature::try_from(sig).unwrap();
    signature::hazmat::PrehashVerifier::verify_prehash(&vk, &sha2::Sha384::digest(b"m"), &sig)
        .unwrap();

    // RSA: the scheme's hash, or an error for any other.
    let rsa = RsaSigner::new(test_keys::rsa(2048), RsaScheme::pkcs1v15(HashAlg::Sha512));
    let sig: RsaSignature = rsa.sign_digest(|d: &mut sha2::Sha512| d.update(b"m"));
    assert_eq!(sig, rsa.sign(b"m"), "PKCS#1 v1.5 is deterministic");
    rsa.verifying_key()
        .verify_digest(
            |d: &mut sha2::Sha512| {
                d.update(b"m");
                Ok(())
            },
            &sig,
        )
        .unwrap();
    let wrong = DigestSigner::<sha2::Sha256, RsaSignature>::try_sign_digest(&rsa, |d| {
        d.update(b"m");
        Ok(())
    });
    assert!(wrong.is_err());
}

#[test]
fn signature_encoding_round_trips_and_names_the_curve_by_length() {
    for curve in Curve::ALL {
        let key = test_keys::ecdsa(curve);
        let sig: EcdsaSignature = key.sign(b"m");
        let bytes = SignatureEncoding::to_bytes(&sig);
        assert_eq!(bytes.len(), 2 * curve.field_bytes());
        let back = EcdsaSignature::try_from(bytes.as_slice()).unwrap();
        assert_eq!(back.curve(), curve);
        assert_eq!(back, sig);
    }
    assert!(EcdsaSignature::try_from(&[1u8; 65][..]).is_err());
    let rsa = RsaSignature::try_from(&[7u8; 256][..]).unwrap();
    assert_eq!(SignatureEncoding::to_bytes(&rsa), vec![7u8; 256]);
}

#[test]
fn keypairs_give_their_verifying_keys() {
    let key = test_keys::ecdsa(Curve::P521);
    assert_eq!(key.verifying_key(), *key.public_key());
    let signer = RsaSigner::new(test_keys::rsa(3072), RsaScheme::pss(HashAlg::Sha384));
    let verifier: RsaVerifier = signer.verifying_key();
    assert_eq!(verifier.key, *signer.key.public_key());
    assert_eq!(verifier.scheme, signer.scheme);
}

#[test]
fn rsa_keys_convert_both_ways() {
    use rsa::pkcs1v15::{Signature, SigningKey, VerifyingKey};
    use rsa::pkcs8::DecodePrivateKey;
    use rsa::traits::PublicKeyParts;
    for bits in [2048, 3072, 4096, 7680, 15360] {
        let theirs = rsa::PrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap()).unwrap();
        let ours = RsaPrivateKey::try_from(&theirs).unwrap();
        assert_eq!(
            ours.to_pkcs1_der().unwrap(),
            test_keys::rsa(bits).to_pkcs1_der().unwrap()
        );
        let back = rsa::PrivateKey::try_from(&ours).unwrap();
        assert_eq!(back, theirs);

        let pk = RsaPublicKey::try_from(&theirs.to_public_key()).unwrap();
        assert_eq!(pk, *ours.public_key());
        // RustCrypto's size limit is raised to 16384 bits for the large keys.
        let their_pk = rsa::PublicKey::try_from(&pk).unwrap();
        assert_eq!(their_pk.n(), theirs.n());

        // A RustCrypto key signs a batch here; RustCrypto verifies every signature.
        let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
        let msgs: &[&[u8]] = if bits <= 4096 {
            &[b"a", b"b", b"c"]
        } else {
            &[b"a"]
        };
        let vk = VerifyingKey::<sha2::Sha256>::new(their_pk);
        for (m, s) in msgs
            .iter()
            .zip(ours.sign_batch(&backend(), scheme, msgs).unwrap())
        {
            let s = Signature::from_bytes_with_max_len(&s.unwrap(), 15360 / 8).unwrap();
            vk.verify(m, &s).unwrap();
        }
        // … and RustCrypto's signature verifies here (its signing is slow past 4096 bits).
        if bits <= 4096 {
            let theirs_sig = SigningKey::<sha2::Sha256>::new(theirs).sign(b"a");
            RsaVerifier::new(pk, scheme)
                .verify(b"a", &RsaSignature(theirs_sig.to_vec()))
                .unwrap();
        }
    }
}
