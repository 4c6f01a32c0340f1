//! The `ring` peer (0.17, `--features peers`): `RsaKeyPair` / `EcdsaKeyPair`, one signature
//! per call. ring signs with 2048–4096-bit RSA keys, verifies RSA moduli of up to 8192 bits,
//! and has P-256 and P-384 but no P-521.
//!
//! ring has no reusable parsed public key: `UnparsedPublicKey::verify` parses the key (and,
//! for RSA, sets up its Montgomery constants) in every call, so both verify columns include
//! that work, as our distinct-key column includes each key's set-up.

use ring::rand::SystemRandom;
use ring::signature::{self as sig, EcdsaKeyPair, RsaKeyPair, UnparsedPublicKey};

use super::{SignKey, Signer, Verifier, VerifyKey};
use crate::alg::Alg;
use crate::measure::Op;
use batch_core::Curve;

pub const NAME: &str = "ring";

pub fn description() -> String {
    "ring 0.17 (RsaKeyPair PKCS#1 v1.5, EcdsaKeyPair), one signature per call, rayon across the \
     threads"
        .into()
}

/// How the verify cells hold their keys (for the legend).
pub const VERIFY_KEYS: &str = "the key's bytes per job, parsed by ring in every call \
     (UnparsedPublicKey: ring has no reusable parsed key), in both verify columns";

pub fn lacks(alg: Alg, op: Op) -> Option<String> {
    match (alg, op) {
        (Alg::Rsa(bits), Op::Sign) if !(2048..=4096).contains(&bits) => {
            Some("ring signs with 2048–4096-bit RSA keys only".into())
        }
        (Alg::Rsa(bits), _) if bits > 8192 => {
            Some("ring verifies RSA moduli of up to 8192 bits".into())
        }
        (Alg::Ecdsa(Curve::P224), _) => Some("ring has no P-224".into()),
        (Alg::Ecdsa(Curve::P521), _) => Some("ring has no P-521".into()),
        _ => None,
    }
}

struct RsaSigner(RsaKeyPair, SystemRandom);

impl Signer for RsaSigner {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.0.public().modulus_len()];
        self.0
            .sign(&sig::RSA_PKCS1_SHA256, &self.1, msg, &mut out)
            .map_err(|e| format!("ring: {e}"))?;
        Ok(out)
    }
}

struct EcdsaSigner(EcdsaKeyPair, SystemRandom);

impl Signer for EcdsaSigner {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        self.0
            .sign(&self.1, msg)
            .map(|s| s.as_ref().to_vec())
            .map_err(|e| format!("ring: {e}"))
    }
}

struct BytesVerifier(UnparsedPublicKey<Vec<u8>>);

impl Verifier for BytesVerifier {
    fn verify(&self, msg: &[u8], signature: &[u8]) -> bool {
        self.0.verify(msg, signature).is_ok()
    }
}

fn ecdsa_algs(
    curve: Curve,
) -> Result<
    (
        &'static sig::EcdsaSigningAlgorithm,
        &'static sig::EcdsaVerificationAlgorithm,
    ),
    String,
> {
    match curve {
        Curve::P256 => Ok((
            &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
            &sig::ECDSA_P256_SHA256_FIXED,
        )),
        Curve::P384 => Ok((
            &sig::ECDSA_P384_SHA384_FIXED_SIGNING,
            &sig::ECDSA_P384_SHA384_FIXED,
        )),
        Curve::P224 => Err("ring has no P-224".into()),
        Curve::P521 => Err("ring has no P-521".into()),
    }
}

pub fn signer(key: &SignKey) -> Result<Box<dyn Signer>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{NAME} rejected the key: {e}");
    Ok(match key {
        SignKey::Rsa { pkcs1_der, .. } => Box::new(RsaSigner(
            RsaKeyPair::from_der(pkcs1_der).map_err(|e| bad(&e))?,
            SystemRandom::new(),
        )),
        SignKey::Ecdsa {
            curve,
            scalar,
            point,
        } => {
            let rng = SystemRandom::new();
            let k = EcdsaKeyPair::from_private_key_and_public_key(
                ecdsa_algs(*curve)?.0,
                scalar,
                point,
                &rng,
            )
            .map_err(|e| bad(&e))?;
            Box::new(EcdsaSigner(k, rng))
        }
    })
}

pub fn verifier(key: &VerifyKey) -> Result<Box<dyn Verifier>, String> {
    Ok(match key {
        VerifyKey::Rsa { pkcs1_der, .. } => Box::new(BytesVerifier(UnparsedPublicKey::new(
            &sig::RSA_PKCS1_2048_8192_SHA256,
            pkcs1_der.clone(),
        ))),
        VerifyKey::Ecdsa { curve, point } => Box::new(BytesVerifier(UnparsedPublicKey::new(
            ecdsa_algs(*curve)?.1,
            point.clone(),
        ))),
    })
}
