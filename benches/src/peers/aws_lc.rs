//! The `aws-lc-rs` peer (1.x, `--features peers`): AWS-LC through `RsaKeyPair` /
//! `EcdsaKeyPair`, one signature per call. RSA keys of 2048–8192 bits (so no RSA-15360),
//! P-256, P-384 and P-521.
//!
//! Verification keys are `ParsedPublicKey`s, parsed before timing: one per job in the
//! distinct-key column (AWS-LC then sets up each RSA key's Montgomery constants on its first
//! use, in the timed call, as our backends do per key object), one for the whole batch in the
//! one-key column.

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{self as sig, EcdsaKeyPair, ParsedPublicKey, RsaKeyPair};

use super::{SignKey, Signer, Verifier, VerifyKey};
use crate::alg::Alg;
use crate::measure::Op;
use batch_core::Curve;

pub const NAME: &str = "aws-lc-rs";

pub fn description() -> String {
    "aws-lc-rs 1.x over AWS-LC (RsaKeyPair PKCS#1 v1.5, EcdsaKeyPair), one signature per call, \
     rayon across the threads"
        .into()
}

/// How the verify cells hold their keys (for the legend).
pub const VERIFY_KEYS: &str =
    "a ParsedPublicKey per job, parsed before timing (as our backends get a key object per job)";

pub fn lacks(alg: Alg, _op: Op) -> Option<String> {
    match alg {
        Alg::Rsa(bits) if bits > 8192 => Some("aws-lc-rs takes RSA keys of 2048–8192 bits".into()),
        Alg::Ecdsa(Curve::P224) => ecdsa_algs(Curve::P224).err(),
        _ => None,
    }
}

struct RsaSigner(RsaKeyPair, SystemRandom);

impl Signer for RsaSigner {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.0.public_modulus_len()];
        self.0
            .sign(&sig::RSA_PKCS1_SHA256, &self.1, msg, &mut out)
            .map_err(|e| format!("aws-lc-rs: {e}"))?;
        Ok(out)
    }
}

struct EcdsaSigner(EcdsaKeyPair, SystemRandom);

impl Signer for EcdsaSigner {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        self.0
            .sign(&self.1, msg)
            .map(|s| s.as_ref().to_vec())
            .map_err(|e| format!("aws-lc-rs: {e}"))
    }
}

struct ParsedVerifier(ParsedPublicKey);

impl Verifier for ParsedVerifier {
    fn verify(&self, msg: &[u8], signature: &[u8]) -> bool {
        self.0.verify_sig(msg, signature).is_ok()
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
        Curve::P224 => Err("aws-lc-rs's signature API has no P-224".into()),
        Curve::P256 => Ok((
            &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
            &sig::ECDSA_P256_SHA256_FIXED,
        )),
        Curve::P384 => Ok((
            &sig::ECDSA_P384_SHA384_FIXED_SIGNING,
            &sig::ECDSA_P384_SHA384_FIXED,
        )),
        Curve::P521 => Ok((
            &sig::ECDSA_P521_SHA512_FIXED_SIGNING,
            &sig::ECDSA_P521_SHA512_FIXED,
        )),
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
        } => Box::new(EcdsaSigner(
            EcdsaKeyPair::from_private_key_and_public_key(ecdsa_algs(*curve)?.0, scalar, point)
                .map_err(|e| bad(&e))?,
            SystemRandom::new(),
        )),
    })
}

pub fn verifier(key: &VerifyKey) -> Result<Box<dyn Verifier>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{NAME} rejected the public key: {e}");
    let parsed = match key {
        VerifyKey::Rsa { pkcs1_der, .. } => {
            ParsedPublicKey::new(&sig::RSA_PKCS1_2048_8192_SHA256, pkcs1_der)
        }
        VerifyKey::Ecdsa { curve, point } => ParsedPublicKey::new(ecdsa_algs(*curve)?.1, point),
    };
    Ok(Box::new(ParsedVerifier(parsed.map_err(|e| bad(&e))?)))
}
