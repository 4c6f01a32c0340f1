//! ECDSA keys: SEC 1 and PKCS#8 private keys, SubjectPublicKeyInfo and SEC 1 points, PEM or
//! DER; generation; export. Scalars and coordinates are [`EcUint`] (canonical limbs).

use batch_core::{AffinePoint, Backend, Curve, EcUint};
use der::asn1::ObjectIdentifier;
use der::{Decode, Encode};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::encoding::pem_or_der;
use crate::Error;

/// `id-ecPublicKey` (RFC 5480).
const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");

fn key_err(e: impl core::fmt::Display) -> Error {
    Error::InvalidKey(e.to_string())
}

/// The named-curve OID of a curve (RFC 5480).
pub fn curve_oid(curve: Curve) -> ObjectIdentifier {
    match curve {
        Curve::P224 => ObjectIdentifier::new_unwrap("1.3.132.0.33"),
        Curve::P256 => ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7"),
        Curve::P384 => ObjectIdentifier::new_unwrap("1.3.132.0.34"),
        Curve::P521 => ObjectIdentifier::new_unwrap("1.3.132.0.35"),
    }
}

pub(crate) fn curve_from_oid(oid: &ObjectIdentifier) -> Result<Curve, Error> {
    Curve::ALL
        .into_iter()
        .find(|&c| curve_oid(c) == *oid)
        .ok_or_else(|| key_err(format!("unsupported curve {oid}")))
}

/// An ECDSA public key: a point on the curve, not the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcdsaPublicKey {
    pub(crate) curve: Curve,
    pub(crate) point: AffinePoint,
}

/// An ECDSA private key `d ∈ [1, n)` with its public point.
#[derive(Clone)]
pub struct EcdsaPrivateKey {
    pub(crate) d: Zeroizing<EcUint>,
    pub(crate) public: EcdsaPublicKey,
}

impl core::fmt::Debug for EcdsaPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EcdsaPrivateKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl EcdsaPublicKey {
    /// From an affine point; checks it is on the curve and not the identity.
    pub fn from_affine(curve: Curve, point: AffinePoint) -> Result<Self, Error> {
        if point.infinity || !curve.is_on_curve_vartime(&point) {
            return Err(key_err(format!(
                "public point is not a valid {curve} point"
            )));
        }
        Ok(Self { curve, point })
    }

    pub fn curve(&self) -> Curve {
        self.curve
    }

    pub fn point(&self) -> &AffinePoint {
        &self.point
    }

    /// SEC 1 §2.3.4 point decoding: `04 ‖ x ‖ y` or compressed `02/03 ‖ x`.
    pub fn from_sec1_bytes(curve: Curve, bytes: &[u8]) -> Result<Self, Error> {
        let fb = curve.field_bytes();
        let coord =
            |b: &[u8]| EcUint::from_be_bytes(b).ok_or_else(|| key_err("coordinate too wide"));
        let point = match bytes.first() {
            Some(4) if bytes.len() == 1 + 2 * fb => AffinePoint {
                x: coord(&bytes[1..1 + fb])?,
                y: coord(&bytes[1 + fb..])?,
                infinity: false,
            },
            Some(2 | 3) if bytes.len() == 1 + fb => {
                let x = coord(&bytes[1..])?;
                let y = decompress_y_vartime(curve, &x, bytes[0] & 1)
                    .ok_or_else(|| key_err("x is not on the curve"))?;
                AffinePoint {
                    x,
                    y,
                    infinity: false,
                }
            }
            _ => return Err(key_err(format!("not a SEC 1 encoded {curve} point"))),
        };
        Self::from_affine(curve, point)
    }

    /// SEC 1 uncompressed encoding `04 ‖ x ‖ y`.
    pub fn to_sec1_bytes(&self) -> Vec<u8> {
        let fb = self.curve.field_bytes();
        let mut out = vec![4u8; 1 + 2 * fb];
        self.point.x.write_be_bytes(&mut out[1..1 + fb]);
        self.point.y.write_be_bytes(&mut out[1 + fb..]);
        out
    }

    /// `PUBLIC KEY` (SubjectPublicKeyInfo), PEM or DER.
    pub fn from_pem_or_der(input: &[u8]) -> Result<Self, Error> {
        let (label, der) = pem_or_der(input)?;
        if let Some(l) = label.as_deref() {
            if l != "PUBLIC KEY" {
                return Err(key_err(format!("unexpected PEM label {l:?}")));
            }
        }
        let spki = spki::SubjectPublicKeyInfoRef::from_der(&der).map_err(key_err)?;
        if spki.algorithm.oid != EC_PUBLIC_KEY {
            return Err(key_err(format!(
                "not an EC key (algorithm {})",
                spki.algorithm.oid
            )));
        }
        let curve = curve_from_oid(&spki.algorithm.parameters_oid().map_err(key_err)?)?;
        let bits = spki
            .subject_public_key
            .as_bytes()
            .ok_or_else(|| key_err("unaligned BIT STRING"))?;
        Self::from_sec1_bytes(curve, bits)
    }

    /// `PUBLIC KEY` PEM, as `openssl pkey -pubout` writes.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        let point = self.to_sec1_bytes();
        let oid = curve_oid(self.curve);
        let spki = spki::SubjectPublicKeyInfoRef {
            algorithm: spki::AlgorithmIdentifierRef {
                oid: EC_PUBLIC_KEY,
                parameters: Some((&oid).into()),
            },
            subject_public_key: der::asn1::BitStringRef::from_bytes(&point).map_err(key_err)?,
        };
        let der = spki.to_der().map_err(key_err)?;
        der::pem::encode_string("PUBLIC KEY", der::pem::LineEnding::LF, &der).map_err(key_err)
    }
}

/// `y` with the given parity from `x`: `√(x³ − 3x + b)` (batch-core's
/// `sqrt_prime_vartime`: one power where `p ≡ 3 (mod 4)`, Tonelli–Shanks on P-224).
/// Variable-time (public keys only).
fn decompress_y_vartime(curve: Curve, x: &EcUint, parity: u8) -> Option<EcUint> {
    fn go<const L: usize>(
        def: &batch_core::curve::CurveDef<L>,
        x: &EcUint,
        parity: u8,
    ) -> Option<EcUint> {
        let f = &def.p;
        let xm = def.fe_from_seam(x)?;
        let x3 = f.mul(&f.square(&xm), &xm);
        let rhs = f.add(&f.sub(&x3, &f.add(&f.double(&xm), &xm)), &def.b);
        let y = f.sqrt_prime_vartime(&rhs)?;
        let y = if (f.from_monty(&y).0[0] & 1) as u8 == parity & 1 {
            y
        } else {
            f.neg(&y)
        };
        Some(def.fe_to_seam(&y))
    }
    match curve {
        Curve::P224 => go(&batch_core::curve::P224, x, parity),
        Curve::P256 => go(&batch_core::curve::P256, x, parity),
        Curve::P384 => go(&batch_core::curve::P384, x, parity),
        Curve::P521 => go(&batch_core::curve::P521, x, parity),
    }
}

impl EcdsaPrivateKey {
    /// From the secret scalar `d` (big-endian, up to the field size); computes `d·G` with
    /// the scalar backend.
    pub fn from_scalar_bytes(curve: Curve, d: &[u8]) -> Result<Self, Error> {
        if d.len() > curve.field_bytes() {
            return Err(key_err("private scalar longer than the field size"));
        }
        let d = Zeroizing::new(EcUint::from_be_bytes(d).ok_or_else(|| key_err("scalar too wide"))?);
        // Constant-time range check (d is secret): only the verdict is public.
        if !batch_core::ct::declassify_mask(!d.is_zero_mask() & d.ct_lt_mask(&curve.order())) {
            return Err(key_err(format!("private scalar not in [1, n) for {curve}")));
        }
        let mut point = batch_scalar::ScalarBackend::with_threads(1)?
            .mul_base(curve, core::slice::from_ref(&*d))?
            .remove(0)?;
        batch_core::ct::declassify(&mut point); // the public key
        Ok(Self {
            d,
            public: EcdsaPublicKey::from_affine(curve, point)?,
        })
    }

    /// A fresh key from `rng` (rejection sampling in `[1, n)`, constant-time in the candidate:
    /// only whether it was rejected is public).
    pub fn generate(curve: Curve, rng: &mut impl CryptoRng) -> Result<Self, Error> {
        let mut buf = Zeroizing::new(vec![0u8; curve.field_bytes()]);
        loop {
            rng.fill_bytes(&mut buf);
            // Mask to the bit length of n so rejection is rare.
            let extra = 8 * curve.field_bytes() - curve.bits();
            buf[0] &= 0xff >> extra;
            if let Ok(k) = Self::from_scalar_bytes(curve, &buf) {
                return Ok(k);
            }
        }
    }

    pub fn curve(&self) -> Curve {
        self.public.curve
    }

    pub fn public_key(&self) -> &EcdsaPublicKey {
        &self.public
    }

    /// The secret scalar, big-endian, field-size bytes.
    pub fn to_scalar_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(vec![0u8; self.curve().field_bytes()]);
        self.d.write_be_bytes(&mut out);
        out
    }

    /// `EC PRIVATE KEY` (SEC 1) or `PRIVATE KEY` (PKCS#8), PEM or DER.
    pub fn from_pem_or_der(input: &[u8]) -> Result<Self, Error> {
        let (label, der) = pem_or_der(input)?;
        let der = Zeroizing::new(der);
        match label.as_deref() {
            Some("EC PRIVATE KEY") => Self::from_sec1_der(&der, None),
            Some("PRIVATE KEY") => Self::from_pkcs8_der(&der),
            Some(other) => Err(key_err(format!("unexpected PEM label {other:?}"))),
            None => Self::from_pkcs8_der(&der).or_else(|_| Self::from_sec1_der(&der, None)),
        }
    }

    /// SEC 1 `ECPrivateKey` DER; `curve` from the enclosing PKCS#8 if its parameters are
    /// absent. A public key inside must match.
    pub fn from_sec1_der(der: &[u8], curve: Option<Curve>) -> Result<Self, Error> {
        let k = sec1::EcPrivateKey::from_der(der).map_err(key_err)?;
        let named = match k.parameters {
            Some(p) => Some(curve_from_oid(
                &p.named_curve()
                    .ok_or_else(|| key_err("explicit curve parameters"))?,
            )?),
            None => None,
        };
        let curve = match (named, curve) {
            (Some(a), Some(b)) if a != b => {
                return Err(key_err("curve in SEC 1 and PKCS#8 differ"))
            }
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => return Err(key_err("no curve named")),
        };
        let key = Self::from_scalar_bytes(curve, k.private_key)?;
        if let Some(pubkey) = k.public_key {
            if EcdsaPublicKey::from_sec1_bytes(curve, pubkey)? != key.public {
                return Err(key_err("public key does not match the private scalar"));
            }
        }
        Ok(key)
    }

    /// PKCS#8 `PrivateKeyInfo` DER with `id-ecPublicKey`.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        let info = pkcs8::PrivateKeyInfoRef::from_der(der).map_err(key_err)?;
        if info.algorithm.oid != EC_PUBLIC_KEY {
            return Err(key_err(format!(
                "not an EC key (algorithm {})",
                info.algorithm.oid
            )));
        }
        let curve = curve_from_oid(&info.algorithm.parameters_oid().map_err(key_err)?)?;
        Self::from_sec1_der(info.private_key.as_bytes(), Some(curve))
    }

    /// `PRIVATE KEY` (PKCS#8) PEM, as `openssl genpkey` writes.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        let d = self.to_scalar_bytes();
        let point = self.public.to_sec1_bytes();
        let sec1 = Zeroizing::new(
            sec1::EcPrivateKey {
                private_key: &d,
                parameters: None,
                public_key: Some(&point),
            }
            .to_der()
            .map_err(key_err)?,
        );
        let oid = curve_oid(self.curve());
        let info = pkcs8::PrivateKeyInfoRef::new(
            spki::AlgorithmIdentifierRef {
                oid: EC_PUBLIC_KEY,
                parameters: Some((&oid).into()),
            },
            der::asn1::OctetStringRef::new(&sec1).map_err(key_err)?,
        );
        let der = Zeroizing::new(info.to_der().map_err(key_err)?);
        Ok(Zeroizing::new(
            der::pem::encode_string("PRIVATE KEY", der::pem::LineEnding::LF, &der)
                .map_err(key_err)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_points_decode_to_the_same_key() {
        for curve in Curve::ALL {
            let mut rng = rand::rng();
            let k = EcdsaPrivateKey::generate(curve, &mut rng).unwrap();
            let full = k.public_key().to_sec1_bytes();
            let fb = curve.field_bytes();
            let mut comp = vec![2 + (full[2 * fb] & 1)];
            comp.extend_from_slice(&full[1..1 + fb]);
            assert_eq!(
                EcdsaPublicKey::from_sec1_bytes(curve, &comp).unwrap(),
                *k.public_key()
            );
            let pem = k.to_pkcs8_pem().unwrap();
            let again = EcdsaPrivateKey::from_pem_or_der(pem.as_bytes()).unwrap();
            assert_eq!(again.public_key(), k.public_key());
            let pubpem = k.public_key().to_public_key_pem().unwrap();
            assert_eq!(
                EcdsaPublicKey::from_pem_or_der(pubpem.as_bytes()).unwrap(),
                *k.public_key()
            );
        }
    }
}
