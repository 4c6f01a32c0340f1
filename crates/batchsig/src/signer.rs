//! One-at-a-time `signature::Signer` / `Verifier` for RustCrypto users. Each call is a batch of
//! one on a backend (the default one unless given); batch APIs are faster for many messages.

use std::sync::Arc;

use batch_core::Backend;

use crate::ecdsa::{EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature};
use crate::rsa::{RsaPrivateKey, RsaPublicKey, RsaScheme};

fn sig_err(e: crate::Error) -> signature::Error {
    signature::Error::from_source(e)
}

fn one<T>(r: Result<Vec<crate::JobResult<T>>, crate::Error>) -> Result<T, signature::Error> {
    r.map_err(sig_err)?
        .pop()
        .expect("one job, one result")
        .map_err(sig_err)
}

impl signature::Signer<EcdsaSignature> for EcdsaPrivateKey {
    /// Signs with the curve's hash and a hedged nonce on the default backend.
    fn try_sign(&self, msg: &[u8]) -> Result<EcdsaSignature, signature::Error> {
        one(self.sign_batch(&*crate::backend::default_backend(), &[msg]))
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
