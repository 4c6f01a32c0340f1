//! One-at-a-time `signature` traits for RustCrypto users: `Signer`, `Verifier`,
//! `RandomizedSigner`, `DigestSigner`, `DigestVerifier`, `Keypair` and `SignatureEncoding`.
//! Each call is a batch of one on a backend (the default one unless given); batch APIs are
//! faster for many messages.

use std::sync::Arc;

use batch_core::Backend;
use digest::{Digest, Update};
use rand_core::{SeedableRng, TryCryptoRng};

use crate::ecdsa::{curve_hash, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature, NonceMode};
use crate::rsa::{RsaPrivateKey, RsaPublicKey, RsaScheme};
use crate::HashAlg;

fn sig_err(e: crate::Error) -> signature::Error {
    signature::Error::from_source(e)
}

fn one<T>(r: Result<Vec<crate::JobResult<T>>, crate::Error>) -> Result<T, signature::Error> {
    r.map_err(sig_err)?
        .pop()
        .expect("one job, one result")
        .map_err(sig_err)
}

/// A ChaCha20 generator seeded from the caller's (fallible) one: the batch functions take an
/// infallible generator, and a failing source becomes an error here instead of a panic.
fn seeded_from<R: TryCryptoRng + ?Sized>(
    rng: &mut R,
) -> Result<rand_chacha::ChaCha20Rng, signature::Error> {
    rand_chacha::ChaCha20Rng::try_from_rng(rng)
        .map_err(|e| sig_err(crate::Error::Rng(e.to_string())))
}

/// The hash a `D` computes, by its OID (`sha2`/`sha3`/`sha1` types with their `oid` feature).
fn hash_of<D: const_oid::AssociatedOid>() -> Result<HashAlg, signature::Error> {
    HashAlg::from_oid(D::OID).ok_or_else(|| {
        sig_err(crate::Error::SchemeNotAllowed(format!(
            "digest with OID {} is not a hash batchsig knows",
            D::OID
        )))
    })
}

/// `f` applied to a fresh `D`, finished.
fn run_digest<D: Digest + Update>(
    f: impl Fn(&mut D) -> Result<(), signature::Error>,
) -> Result<Vec<u8>, signature::Error> {
    let mut d = <D as Digest>::new();
    f(&mut d)?;
    Ok(Digest::finalize(d).to_vec())
}

impl signature::Signer<EcdsaSignature> for EcdsaPrivateKey {
    /// Signs with the curve's hash and a hedged nonce on the default backend.
    fn try_sign(&self, msg: &[u8]) -> Result<EcdsaSignature, signature::Error> {
        one(self.sign_batch(&*crate::backend::default_backend(), &[msg]))
    }
}

impl signature::RandomizedSigner<EcdsaSignature> for EcdsaPrivateKey {
    /// Signs with the curve's hash; the nonce is hedged with randomness drawn from `rng`
    /// (RFC 6979 §3.6 with 32 bytes of it as the extra input).
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<EcdsaSignature, signature::Error> {
        let hash = curve_hash(self.curve());
        let digest = hash.digest(msg);
        let job = crate::ecdsa::EcdsaSignJob {
            key: self,
            digest: &digest,
        };
        one(crate::ecdsa::sign_batch(
            &*crate::backend::default_backend(),
            hash,
            &[job],
            NonceMode::Hedged,
            &mut seeded_from(rng)?,
        ))
    }
}

impl<D> signature::DigestSigner<D, EcdsaSignature> for EcdsaPrivateKey
where
    D: Digest + Update + const_oid::AssociatedOid,
{
    /// Signs the digest `f` builds, with a hedged nonce; `D` is any hash batchsig signs with
    /// (its OID says which), not only the curve's own.
    fn try_sign_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
    ) -> Result<EcdsaSignature, signature::Error> {
        let hash = hash_of::<D>()?;
        let digest = run_digest(f)?;
        one(self.sign_digests_batch(
            &*crate::backend::default_backend(),
            hash,
            &[&digest],
            NonceMode::Hedged,
        ))
    }
}

impl signature::Keypair for EcdsaPrivateKey {
    type VerifyingKey = EcdsaPublicKey;
    fn verifying_key(&self) -> EcdsaPublicKey {
        *self.public_key()
    }
}

impl signature::Verifier<EcdsaSignature> for EcdsaPublicKey {
    fn verify(&self, msg: &[u8], sig: &EcdsaSignature) -> Result<(), signature::Error> {
        one(self.verify_batch(
            &*crate::backend::default_backend(),
            &[msg],
            core::slice::from_ref(sig),
        ))
    }
}

impl<D> signature::DigestVerifier<D, EcdsaSignature> for EcdsaPublicKey
where
    D: Digest + Update + const_oid::AssociatedOid,
{
    fn verify_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
        sig: &EcdsaSignature,
    ) -> Result<(), signature::Error> {
        let hash = hash_of::<D>()?;
        let digest = run_digest(f)?;
        one(self.verify_digests_batch(
            &*crate::backend::default_backend(),
            hash,
            &[&digest],
            core::slice::from_ref(sig),
        ))
    }
}

/// The fixed-size `r ‖ s` form; the curve follows from the length (56, 64, 96 or 132 bytes
/// for P-224, P-256, P-384, P-521).
impl TryFrom<&[u8]> for EcdsaSignature {
    type Error = signature::Error;
    fn try_from(bytes: &[u8]) -> Result<Self, signature::Error> {
        let curve = crate::Curve::ALL
            .into_iter()
            .find(|c| 2 * c.field_bytes() == bytes.len())
            .ok_or_else(|| {
                sig_err(crate::Error::MalformedSignature(
                    "not the r ‖ s length of any curve (56, 64, 96 or 132 bytes)",
                ))
            })?;
        EcdsaSignature::from_bytes(curve, bytes).map_err(sig_err)
    }
}

impl From<EcdsaSignature> for Vec<u8> {
    fn from(sig: EcdsaSignature) -> Vec<u8> {
        sig.to_bytes()
    }
}

impl signature::SignatureEncoding for EcdsaSignature {
    type Repr = Vec<u8>;
}

/// An RSA signature: `k` big-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RsaSignature(pub Vec<u8>);

impl AsRef<[u8]> for RsaSignature {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// An RSA private key bound to a scheme and a backend.
#[derive(Clone, Debug)]
pub struct RsaSigner {
    pub key: RsaPrivateKey,
    pub scheme: RsaScheme,
    pub backend: Arc<dyn Backend>,
}

impl RsaSigner {
    /// On the default backend.
    pub fn new(key: RsaPrivateKey, scheme: RsaScheme) -> Self {
        Self {
            key,
            scheme,
            backend: crate::backend::default_backend(),
        }
    }
}

impl signature::Signer<RsaSignature> for RsaSigner {
    fn try_sign(&self, msg: &[u8]) -> Result<RsaSignature, signature::Error> {
        one(self.key.sign_batch(&*self.backend, self.scheme, &[msg])).map(RsaSignature)
    }
}

impl signature::RandomizedSigner<RsaSignature> for RsaSigner {
    /// Blinding factors (and PSS salts) drawn from `rng`.
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<RsaSignature, signature::Error> {
        let digest = self.scheme.hash.digest(msg);
        let job = crate::rsa::RsaSignJob {
            key: &self.key,
            digest: &digest,
        };
        one(crate::rsa::sign_batch(
            &*self.backend,
            self.scheme,
            &[job],
            &mut seeded_from(rng)?,
        ))
        .map(RsaSignature)
    }
}

impl<D> signature::DigestSigner<D, RsaSignature> for RsaSigner
where
    D: Digest + Update + const_oid::AssociatedOid,
{
    /// `D` must be the scheme's hash (an RSA scheme names its hash).
    fn try_sign_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
    ) -> Result<RsaSignature, signature::Error> {
        check_scheme_hash::<D>(self.scheme)?;
        let digest = run_digest(f)?;
        one(self
            .key
            .sign_digests_batch(&*self.backend, self.scheme, &[&digest]))
        .map(RsaSignature)
    }
}

impl signature::Keypair for RsaSigner {
    type VerifyingKey = RsaVerifier;
    fn verifying_key(&self) -> RsaVerifier {
        RsaVerifier {
            key: self.key.public_key().clone(),
            scheme: self.scheme,
            backend: self.backend.clone(),
        }
    }
}

/// An RSA digest trait call with a `D` other than the scheme's hash is an error.
fn check_scheme_hash<D: const_oid::AssociatedOid>(
    scheme: RsaScheme,
) -> Result<(), signature::Error> {
    let hash = hash_of::<D>()?;
    if hash != scheme.hash {
        return Err(sig_err(crate::Error::SchemeNotAllowed(format!(
            "digest {hash} given to a {} signer or verifier",
            scheme.hash
        ))));
    }
    Ok(())
}

impl TryFrom<&[u8]> for RsaSignature {
    type Error = signature::Error;
    fn try_from(bytes: &[u8]) -> Result<Self, signature::Error> {
        Ok(RsaSignature(bytes.to_vec()))
    }
}

impl From<RsaSignature> for Vec<u8> {
    fn from(sig: RsaSignature) -> Vec<u8> {
        sig.0
    }
}

impl signature::SignatureEncoding for RsaSignature {
    type Repr = Vec<u8>;
}

/// An RSA public key bound to a scheme and a backend.
#[derive(Clone, Debug)]
pub struct RsaVerifier {
    pub key: RsaPublicKey,
    pub scheme: RsaScheme,
    pub backend: Arc<dyn Backend>,
}

impl RsaVerifier {
    /// On the default backend.
    pub fn new(key: RsaPublicKey, scheme: RsaScheme) -> Self {
        Self {
            key,
            scheme,
            backend: crate::backend::default_backend(),
        }
    }
}

impl signature::Verifier<RsaSignature> for RsaVerifier {
    fn verify(&self, msg: &[u8], sig: &RsaSignature) -> Result<(), signature::Error> {
        one(self
            .key
            .verify_batch(&*self.backend, self.scheme, &[msg], &[&sig.0]))
    }
}

impl<D> signature::DigestVerifier<D, RsaSignature> for RsaVerifier
where
    D: Digest + Update + const_oid::AssociatedOid,
{
    fn verify_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
        sig: &RsaSignature,
    ) -> Result<(), signature::Error> {
        check_scheme_hash::<D>(self.scheme)?;
        let digest = run_digest(f)?;
        let job = crate::rsa::RsaVerifyJob {
            key: &self.key,
            digest: &digest,
            signature: &sig.0,
        };
        one(crate::rsa::verify_batch(
            &*self.backend,
            self.scheme,
            &[job],
        ))
    }
}

#[cfg(all(test, feature = "test-keys"))]
mod tests {
    use super::*;
    use crate::{test_keys, Curve, HashAlg};
    use signature::{Signer, Verifier};

    #[test]
    fn single_operations_round_trip() {
        let ec = test_keys::ecdsa(Curve::P256);
        let sig: EcdsaSignature = ec.sign(b"hi");
        ec.public_key().verify(b"hi", &sig).unwrap();
        assert!(ec.public_key().verify(b"ho", &sig).is_err());

        let scheme = RsaScheme::pss(HashAlg::Sha256);
        let key = test_keys::rsa(2048);
        let signer = RsaSigner::new(key.clone(), scheme);
        let verifier = RsaVerifier::new(key.public_key().clone(), scheme);
        let sig = signer.sign(b"hi");
        verifier.verify(b"hi", &sig).unwrap();
        assert!(verifier.verify(b"ho", &sig).is_err());
    }
}
