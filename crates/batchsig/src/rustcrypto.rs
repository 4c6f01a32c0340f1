//! Conversions to and from RustCrypto's key and signature types (feature `rustcrypto`, on by
//! default).
//!
//! - ECDSA, generic over any RustCrypto curve whose OID batchsig knows (`p224`, `p256`, `p384`,
//!   `p521`, without depending on those crates): [`ecdsa::SigningKey`],
//!   [`ecdsa::VerifyingKey`], [`ecdsa::Signature`], [`elliptic_curve::SecretKey`] and
//!   [`elliptic_curve::PublicKey`], both ways. A key of the wrong curve is an
//!   [`Error::InvalidKey`], a signature of the wrong curve an [`Error::MalformedSignature`].
//! - RSA: [`rsa::PrivateKey`] and [`rsa::PublicKey`], both ways, through PKCS#1 DER (the same
//!   `pkcs1` crate on both sides). Converting to RustCrypto drops an RSASSA-PSS restriction
//!   (RFC 4055: RustCrypto's key has none). Public keys are built with the `rsa` crate's
//!   size limit raised to 16384 bits, so every size batchsig signs (up to RSA-15360) converts.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use batchsig::ecdsa::{EcdsaPrivateKey, EcdsaSignature};
//! use batchsig::backend::default_backend;
//! use signature::Verifier;
//!
//! // A RustCrypto key, as a service already holds it.
//! let theirs = p256::ecdsa::SigningKey::from_slice(&[0x42; 32])?;
//! // … signs a batch on batchsig's default backend …
//! let ours = EcdsaPrivateKey::try_from(&theirs)?;
//! let messages: [&[u8]; 3] = [b"first", b"second", b"third"];
//! let signatures = ours.sign_batch(&*default_backend(), &messages)?;
//! // … and RustCrypto verifies every signature.
//! let vk = p256::ecdsa::VerifyingKey::from(&theirs);
//! for (msg, sig) in messages.iter().zip(signatures) {
//!     let sig: p256::ecdsa::Signature = sig?.try_into()?;
//!     vk.verify(msg, &sig)?;
//! }
//! # Ok(())
//! # }
//! ```

use const_oid::AssociatedOid;
use ecdsa::EcdsaCurve;
use elliptic_curve::sec1::{FromSec1Point, ModulusSize, ToSec1Point};
use elliptic_curve::{AffinePoint, CurveArithmetic, FieldBytesSize};
use zeroize::Zeroizing;

use crate::ecdsa::{curve_from_oid, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature};
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use crate::{Curve, Error};

fn key_err(e: impl core::fmt::Display) -> Error {
    Error::InvalidKey(e.to_string())
}

/// batchsig's curve for RustCrypto's `C`, by its OID.
fn curve_of<C: AssociatedOid>() -> Result<Curve, Error> {
    curve_from_oid(&C::OID)
}

/// `Ok` when batchsig's `curve` is `C`.
fn same_curve<C: AssociatedOid>(curve: Curve) -> Result<(), Error> {
    if curve_of::<C>()? != curve {
        return Err(key_err(format!(
            "a {curve} key cannot become a key of the curve with OID {}",
            C::OID
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// ECDSA private keys

impl<C> TryFrom<&elliptic_curve::SecretKey<C>> for EcdsaPrivateKey
where
    C: elliptic_curve::Curve + AssociatedOid,
{
    type Error = Error;
    fn try_from(sk: &elliptic_curve::SecretKey<C>) -> Result<Self, Error> {
        let d = Zeroizing::new(sk.to_bytes());
        EcdsaPrivateKey::from_scalar_bytes(curve_of::<C>()?, &d)
    }
}

impl<C> TryFrom<&EcdsaPrivateKey> for elliptic_curve::SecretKey<C>
where
    C: elliptic_curve::Curve + AssociatedOid,
{
    type Error = Error;
    fn try_from(key: &EcdsaPrivateKey) -> Result<Self, Error> {
        same_curve::<C>(key.curve())?;
        elliptic_curve::SecretKey::from_slice(&key.to_scalar_bytes()).map_err(key_err)
    }
}

impl<C> TryFrom<&ecdsa::SigningKey<C>> for EcdsaPrivateKey
where
    C: EcdsaCurve + CurveArithmetic + AssociatedOid,
{
    type Error = Error;
    fn try_from(sk: &ecdsa::SigningKey<C>) -> Result<Self, Error> {
        let d = Zeroizing::new(sk.to_bytes());
        EcdsaPrivateKey::from_scalar_bytes(curve_of::<C>()?, &d)
    }
}

impl<C> TryFrom<&EcdsaPrivateKey> for ecdsa::SigningKey<C>
where
    C: EcdsaCurve + CurveArithmetic + AssociatedOid,
{
    type Error = Error;
    fn try_from(key: &EcdsaPrivateKey) -> Result<Self, Error> {
        same_curve::<C>(key.curve())?;
        ecdsa::SigningKey::from_slice(&key.to_scalar_bytes()).map_err(key_err)
    }
}

// ---------------------------------------------------------------------------------------
// ECDSA public keys (through uncompressed SEC 1 points; both sides check the curve equation)

impl<C> TryFrom<&elliptic_curve::PublicKey<C>> for EcdsaPublicKey
where
    C: CurveArithmetic + AssociatedOid,
    FieldBytesSize<C>: ModulusSize,
    AffinePoint<C>: FromSec1Point<C> + ToSec1Point<C>,
{
    type Error = Error;
    fn try_from(pk: &elliptic_curve::PublicKey<C>) -> Result<Self, Error> {
        let point = pk.to_sec1_point(false);
        EcdsaPublicKey::from_sec1_bytes(curve_of::<C>()?, point.as_bytes())
    }
}

impl<C> TryFrom<&EcdsaPublicKey> for elliptic_curve::PublicKey<C>
where
    C: CurveArithmetic + AssociatedOid,
    FieldBytesSize<C>: ModulusSize,
    AffinePoint<C>: FromSec1Point<C> + ToSec1Point<C>,
{
    type Error = Error;
    fn try_from(key: &EcdsaPublicKey) -> Result<Self, Error> {
        same_curve::<C>(key.curve())?;
        elliptic_curve::PublicKey::from_sec1_bytes(&key.to_sec1_bytes()).map_err(key_err)
    }
}

impl<C> TryFrom<&ecdsa::VerifyingKey<C>> for EcdsaPublicKey
where
    C: EcdsaCurve + CurveArithmetic + AssociatedOid,
    FieldBytesSize<C>: ModulusSize,
    AffinePoint<C>: FromSec1Point<C> + ToSec1Point<C>,
{
    type Error = Error;
    fn try_from(vk: &ecdsa::VerifyingKey<C>) -> Result<Self, Error> {
        let point = vk.to_sec1_point(false);
        EcdsaPublicKey::from_sec1_bytes(curve_of::<C>()?, point.as_bytes())
    }
}

impl<C> TryFrom<&EcdsaPublicKey> for ecdsa::VerifyingKey<C>
where
    C: EcdsaCurve + CurveArithmetic + AssociatedOid,
    FieldBytesSize<C>: ModulusSize,
    AffinePoint<C>: FromSec1Point<C> + ToSec1Point<C>,
{
    type Error = Error;
    fn try_from(key: &EcdsaPublicKey) -> Result<Self, Error> {
        same_curve::<C>(key.curve())?;
        ecdsa::VerifyingKey::from_sec1_bytes(&key.to_sec1_bytes()).map_err(key_err)
    }
}

// ---------------------------------------------------------------------------------------
// ECDSA signatures (fixed-size r ‖ s)

impl<C> TryFrom<&ecdsa::Signature<C>> for EcdsaSignature
where
    C: EcdsaCurve + AssociatedOid,
    ecdsa::SignatureSize<C>: elliptic_curve::array::ArraySize,
{
    type Error = Error;
    fn try_from(sig: &ecdsa::Signature<C>) -> Result<Self, Error> {
        EcdsaSignature::from_bytes(curve_of::<C>()?, &sig.to_bytes())
    }
}

impl<C> TryFrom<EcdsaSignature> for ecdsa::Signature<C>
where
    C: EcdsaCurve + AssociatedOid,
    ecdsa::SignatureSize<C>: elliptic_curve::array::ArraySize,
{
    type Error = Error;
    fn try_from(sig: EcdsaSignature) -> Result<Self, Error> {
        if curve_of::<C>()? != sig.curve() {
            return Err(Error::MalformedSignature(
                "signature of another curve than the target type's",
            ));
        }
        ecdsa::Signature::from_slice(&sig.to_bytes())
            .map_err(|_| Error::MalformedSignature("r or s out of range"))
    }
}

// ---------------------------------------------------------------------------------------
// RSA (through PKCS#1 DER)

impl TryFrom<&rsa::PrivateKey> for RsaPrivateKey {
    type Error = Error;
    fn try_from(k: &rsa::PrivateKey) -> Result<Self, Error> {
        use rsa::pkcs1::EncodeRsaPrivateKey;
        let der = k.to_pkcs1_der().map_err(key_err)?;
        RsaPrivateKey::from_pkcs1_der(der.as_bytes())
    }
}

impl TryFrom<&RsaPrivateKey> for rsa::PrivateKey {
    type Error = Error;
    fn try_from(k: &RsaPrivateKey) -> Result<Self, Error> {
        use rsa::pkcs1::DecodeRsaPrivateKey;
        rsa::PrivateKey::from_pkcs1_der(&k.to_pkcs1_der()?).map_err(key_err)
    }
}

impl TryFrom<&rsa::PublicKey> for RsaPublicKey {
    type Error = Error;
    fn try_from(k: &rsa::PublicKey) -> Result<Self, Error> {
        use rsa::traits::PublicKeyParts;
        RsaPublicKey::new(
            &k.n().to_be_bytes_trimmed_vartime(),
            &k.e().to_be_bytes_trimmed_vartime(),
        )
    }
}

impl TryFrom<&RsaPublicKey> for rsa::PublicKey {
    type Error = Error;
    fn try_from(k: &RsaPublicKey) -> Result<Self, Error> {
        rsa::PublicKey::new_with_size_limits(
            rsa::BoxedUint::from_be_slice_vartime(&k.n_bytes()),
            rsa::BoxedUint::from_be_slice_vartime(&k.e_bytes()),
            1024..=16384,
        )
        .map_err(key_err)
    }
}
