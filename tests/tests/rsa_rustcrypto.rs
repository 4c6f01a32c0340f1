//! batchsig RSA against RustCrypto's `rsa` crate: identical PKCS#1 v1.5 signatures, PSS
//! signatures that verify both ways, keys that load in both.

use batchsig::rsa::{RsaPrivateKey, RsaScheme};
use batchsig::{test_keys, HashAlg};
use rsa::pkcs8::DecodePrivateKey;
use rsa::signature::{RandomizedSigner, SignatureEncoding, Signer, Verifier};

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn theirs(bits: usize) -> rsa::PrivateKey {
    rsa::PrivateKey::from_pkcs8_pem(test_keys::rsa_pem(bits).unwrap()).unwrap()
}

fn msgs(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("message number {i}").into_bytes())
        .collect()
}

fn refs(v: &[Vec<u8>]) -> Vec<&[u8]> {
    v.iter().map(Vec::as_slice).collect()
}

/// RustCrypto's PKCS#1 v1.5 signature of `msg` with hash `D`.
fn theirs_pkcs1v15<D>(key: &rsa::PrivateKey, msg: &[u8]) -> Vec<u8>
where
    D: sha2::Digest + sha2::digest::const_oid::AssociatedOid,
{
    rsa::pkcs1v15::SigningKey::<D>::new(key.clone())
        .sign(msg)
        .to_vec()
}

#[test]
fn pkcs1v15_is_byte_identical_to_rustcrypto() {
    for bits in [2048, 3072, 4096] {
        let ours = test_keys::rsa(bits);
        let theirs = theirs(bits);
        let m = msgs(5);
        for hash in HashAlg::ALL {
            let sigs = ours
                .sign_batch(&backend(), RsaScheme::pkcs1v15(hash), &refs(&m))
                .unwrap();
            for (msg, sig) in m.iter().zip(sigs) {
                let sig = sig.unwrap();
                let want = match hash {
                    HashAlg::Sha224 => theirs_pkcs1v15::<sha2::Sha224>(&theirs, msg),
                    HashAlg::Sha256 => theirs_pkcs1v15::<sha2::Sha256>(&theirs, msg),
                    HashAlg::Sha384 => theirs_pkcs1v15::<sha2::Sha384>(&theirs, msg),
                    HashAlg::Sha512 => theirs_pkcs1v15::<sha2::Sha512>(&theirs, msg),
                    HashAlg::Sha512_224 => theirs_pkcs1v15::<sha2::Sha512_224>(&theirs, msg),
                    HashAlg::Sha512_256 => theirs_pkcs1v15::<sha2::Sha512_256>(&theirs, msg),
                    HashAlg::Sha3_224 => theirs_pkcs1v15::<sha3::Sha3_224>(&theirs, msg),
                    HashAlg::Sha3_256 => theirs_pkcs1v15::<sha3::Sha3_256>(&theirs, msg),
                    HashAlg::Sha3_384 => theirs_pkcs1v15::<sha3::Sha3_384>(&theirs, msg),
                    HashAlg::Sha3_512 => theirs_pkcs1v15::<sha3::Sha3_512>(&theirs, msg),
                    HashAlg::Sha1 => unreachable!("HashAlg::ALL has no SHA-1"),
                };
                assert_eq!(sig, want, "RSA-{bits} {hash}");
            }
        }
    }
}

#[test]
fn pss_verifies_both_ways() {
    let ours = test_keys::rsa(2048);
    let theirs = theirs(2048);
    let m = msgs(4);
    let sigs = ours
        .sign_batch(&backend(), RsaScheme::pss(HashAlg::Sha256), &refs(&m))
        .unwrap();
    let vk = rsa::pss::VerifyingKey::<sha2::Sha256>::new(theirs.to_public_key());
    for (msg, sig) in m.iter().zip(&sigs) {
        let sig = rsa::pss::Signature::try_from(sig.as_ref().unwrap().as_slice()).unwrap();
        vk.verify(msg, &sig)
            .expect("RustCrypto verifies our PSS signature");
    }
    let sk = rsa::pss::SigningKey::<sha2::Sha256>::new(theirs);
    let mut rng = rand::rng();
    let their_sigs: Vec<Vec<u8>> = m
        .iter()
        .map(|msg| sk.sign_with_rng(&mut rng, msg).to_vec())
        .collect();
    let res = ours
        .public_key()
        .verify_batch(
            &backend(),
            RsaScheme::pss(HashAlg::Sha256),
            &refs(&m),
            &refs(&their_sigs),
        )
        .unwrap();
    assert!(res.iter().all(Result::is_ok), "{res:?}");
}

#[test]
fn generated_keys_load_in_rustcrypto_and_sign() {
    let mut rng = rand::rng();
    let key = RsaPrivateKey::generate(&mut rng, 2048).unwrap();
    assert_eq!(key.bits(), 2048);
    let pem = key.to_pkcs8_pem().unwrap();
    let theirs = rsa::PrivateKey::from_pkcs8_pem(&pem).expect("RustCrypto parses our PKCS#8");
    theirs.validate().expect("RustCrypto validates our key");
    let again = RsaPrivateKey::from_pem_or_der(pem.as_bytes()).unwrap();
    assert_eq!(again.public_key(), key.public_key());
    let sig = key
        .sign_batch(&backend(), RsaScheme::pkcs1v15(HashAlg::Sha256), &[b"x"])
        .unwrap()
        .remove(0)
        .unwrap();
    let vk = rsa::pkcs1v15::VerifyingKey::<sha2::Sha256>::new(theirs.to_public_key());
    vk.verify(
        b"x",
        &rsa::pkcs1v15::Signature::try_from(sig.as_slice()).unwrap(),
    )
    .unwrap();
}
