//! The `rustcrypto` peer: the `rsa` (0.10, crypto-bigint) and `p224`/`p256`/`p384`/`p521`
//! (0.14; p224 0.14.0-rc.15) crates, one signature per call. Built into every `batch-bench` (the crates are in the
//! workspace for the interoperability tests anyway).
//!
//! Signing is randomized as ours is: RSA with blinding (`RandomizedSigner`), ECDSA with hedged
//! RFC 6979 nonces (`sign_with_rng`). RSA public keys go through `new_with_size_limits` and
//! signatures through `from_bytes_with_max_len` so that RSA-15360 keys and signatures load (the
//! crate's defaults stop at 8192 bits).

use getrandom::SysRng;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::signature::{RandomizedSigner, SignatureEncoding, Verifier as _};
use rsa::BoxedUint;

use super::{SignKey, Signer, Verifier, VerifyKey};
use crate::alg::Alg;
use crate::measure::Op;
use batch_core::Curve;

pub const NAME: &str = "rustcrypto";

pub fn description() -> String {
    "RustCrypto rsa 0.10 (PKCS#1 v1.5, blinded) and p224/p256/p384/p521 0.14 (hedged RFC 6979), one \
     signature per call, rayon across the threads"
        .into()
}

/// How the verify cells hold their keys (for the legend).
pub const VERIFY_KEYS: &str = "a VerifyingKey object per job, built before timing (as our \
     backends get a public-key object per job)";

/// Every size and curve `batch-speed` measures.
pub fn lacks(_alg: Alg, _op: Op) -> Option<String> {
    None
}

struct RsaSigner(rsa::pkcs1v15::SigningKey<sha2::Sha256>);

impl Signer for RsaSigner {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        self.0
            .try_sign_with_rng(&mut SysRng, msg)
            .map(|s| s.to_vec())
            .map_err(|e| format!("rsa: {e}"))
    }
}

/// The largest RSA modulus the peer loads, in bits: RSA-15360 is `batch-speed`'s largest size.
/// The crate's own limit is 8192 bits for keys and, through `Signature::try_from`, 1024 bytes
/// for signatures; both are raised to this.
const RSA_MAX_BITS: usize = 16384;

struct RsaVerifier(rsa::pkcs1v15::VerifyingKey<sha2::Sha256>);

impl Verifier for RsaVerifier {
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        rsa::pkcs1v15::Signature::from_bytes_with_max_len(sig, RSA_MAX_BITS / 8)
            .is_ok_and(|s| self.0.verify(msg, &s).is_ok())
    }
}

/// One curve's signer and verifier, the same code over `p224`, `p256`, `p384` and `p521`.
macro_rules! curve_peer {
    ($signer:ident, $verifier:ident, $krate:ident) => {
        struct $signer($krate::ecdsa::SigningKey);

        impl Signer for $signer {
            fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
                let sig: $krate::ecdsa::Signature = self
                    .0
                    .try_sign_with_rng(&mut SysRng, msg)
                    .map_err(|e| format!("{}: {e}", stringify!($krate)))?;
                Ok(sig.to_bytes().to_vec())
            }
        }

        struct $verifier($krate::ecdsa::VerifyingKey);

        impl Verifier for $verifier {
            fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
                $krate::ecdsa::Signature::from_slice(sig)
                    .is_ok_and(|s| self.0.verify(msg, &s).is_ok())
            }
        }
    };
}

curve_peer!(P224Signer, P224Verifier, p224);
curve_peer!(P256Signer, P256Verifier, p256);
curve_peer!(P384Signer, P384Verifier, p384);
curve_peer!(P521Signer, P521Verifier, p521);

pub fn signer(key: &SignKey) -> Result<Box<dyn Signer>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{NAME} rejected the key: {e}");
    Ok(match key {
        SignKey::Rsa { pkcs1_der, .. } => {
            let k = rsa::PrivateKey::from_pkcs1_der(pkcs1_der).map_err(|e| bad(&e))?;
            Box::new(RsaSigner(rsa::pkcs1v15::SigningKey::new(k)))
        }
        SignKey::Ecdsa { curve, scalar, .. } => match curve {
            Curve::P224 => Box::new(P224Signer(
                p224::ecdsa::SigningKey::from_slice(scalar).map_err(|e| bad(&e))?,
            )),
            Curve::P256 => Box::new(P256Signer(
                p256::ecdsa::SigningKey::from_slice(scalar).map_err(|e| bad(&e))?,
            )),
            Curve::P384 => Box::new(P384Signer(
                p384::ecdsa::SigningKey::from_slice(scalar).map_err(|e| bad(&e))?,
            )),
            Curve::P521 => Box::new(P521Signer(
                p521::ecdsa::SigningKey::from_slice(scalar).map_err(|e| bad(&e))?,
            )),
        },
    })
}

pub fn verifier(key: &VerifyKey) -> Result<Box<dyn Verifier>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{NAME} rejected the public key: {e}");
    Ok(match key {
        VerifyKey::Rsa { n, e, .. } => {
            let k = rsa::PublicKey::new_with_size_limits(
                BoxedUint::from_be_slice_vartime(n),
                BoxedUint::from_be_slice_vartime(e),
                1024..=RSA_MAX_BITS,
            )
            .map_err(|e| bad(&e))?;
            Box::new(RsaVerifier(rsa::pkcs1v15::VerifyingKey::new(k)))
        }
        VerifyKey::Ecdsa { curve, point } => match curve {
            Curve::P224 => Box::new(P224Verifier(
                p224::ecdsa::VerifyingKey::from_sec1_bytes(point).map_err(|e| bad(&e))?,
            )),
            Curve::P256 => Box::new(P256Verifier(
                p256::ecdsa::VerifyingKey::from_sec1_bytes(point).map_err(|e| bad(&e))?,
            )),
            Curve::P384 => Box::new(P384Verifier(
                p384::ecdsa::VerifyingKey::from_sec1_bytes(point).map_err(|e| bad(&e))?,
            )),
            Curve::P521 => Box::new(P521Verifier(
                p521::ecdsa::VerifyingKey::from_sec1_bytes(point).map_err(|e| bad(&e))?,
            )),
        },
    })
}
