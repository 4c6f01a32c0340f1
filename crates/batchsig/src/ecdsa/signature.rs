//! ECDSA signature values and their encodings: fixed-size `r ‖ s` (IEEE P1363, as in
//! JOSE/WebCrypto) and DER `SEQUENCE { r INTEGER, s INTEGER }` (X.509, TLS), via the `der`
//! crate's strict decoder.

use batch_core::{Curve, EcUint};
use der::{Decode, Encode};

use crate::Error;

/// A signature `(r, s)` on a curve. Construction checks only widths; verification checks
/// that `r, s ∈ [1, n)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcdsaSignature {
    pub(crate) curve: Curve,
    pub(crate) r: EcUint,
    pub(crate) s: EcUint,
}

#[derive(der::Sequence)]
struct SigDer<'a> {
    r: der::asn1::UintRef<'a>,
    s: der::asn1::UintRef<'a>,
}

impl EcdsaSignature {
    /// From big-endian `r` and `s` of at most the field size.
    pub fn from_scalars(curve: Curve, r: &[u8], s: &[u8]) -> Result<Self, Error> {
        let parse = |b: &[u8]| {
            if b.len() > curve.field_bytes() + 1 {
                return Err(Error::MalformedSignature(
                    "component longer than the field size",
                ));
            }
            let v =
                EcUint::from_be_bytes(b).ok_or(Error::MalformedSignature("component too wide"))?;
            if v.bits_vartime() > curve.bits() {
                return Err(Error::MalformedSignature(
                    "component wider than the curve order",
                ));
            }
            Ok(v)
        };
        Ok(Self {
            curve,
            r: parse(r)?,
            s: parse(s)?,
        })
    }

    /// Fixed-size `r ‖ s`, each the field size.
    pub fn from_bytes(curve: Curve, bytes: &[u8]) -> Result<Self, Error> {
        let fb = curve.field_bytes();
        if bytes.len() != 2 * fb {
            return Err(Error::MalformedSignature(
                "fixed-size signature has the wrong length",
            ));
        }
        Self::from_scalars(curve, &bytes[..fb], &bytes[fb..])
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }`, strictly encoded.
    pub fn from_der(curve: Curve, der: &[u8]) -> Result<Self, Error> {
        let sig = SigDer::from_der(der)
            .map_err(|_| Error::MalformedSignature("not a DER ECDSA signature"))?;
        Self::from_scalars(curve, sig.r.as_bytes(), sig.s.as_bytes())
    }

    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// `r`, big-endian, field size.
    pub fn r_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.curve.field_bytes()];
        self.r.write_be_bytes(&mut out);
        out
    }

    /// `s`, big-endian, field size.
    pub fn s_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.curve.field_bytes()];
        self.s.write_be_bytes(&mut out);
        out
    }

    /// Fixed-size `r ‖ s`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.r_bytes();
        out.extend(self.s_bytes());
        out
    }

    /// DER encoding.
    pub fn to_der(&self) -> Vec<u8> {
        let (r, s) = (self.r_bytes(), self.s_bytes());
        let strip = |b: &[u8]| b.iter().position(|&x| x != 0).map_or(b.len() - 1, |i| i);
        let (r, s) = (&r[strip(&r)..], &s[strip(&s)..]);
        SigDer {
            r: der::asn1::UintRef::new(r).expect("valid"),
            s: der::asn1::UintRef::new(s).expect("valid"),
        }
        .to_der()
        .expect("encodes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_and_fixed_round_trip() {
        let sig = EcdsaSignature {
            curve: Curve::P256,
            r: EcUint::from_be_hex("80ff"),
            s: EcUint::from_be_hex("01"),
        };
        let der = sig.to_der();
        assert_eq!(
            der,
            [0x30, 0x08, 0x02, 0x03, 0x00, 0x80, 0xff, 0x02, 0x01, 0x01]
        );
        assert_eq!(EcdsaSignature::from_der(Curve::P256, &der).unwrap(), sig);
        assert_eq!(
            EcdsaSignature::from_bytes(Curve::P256, &sig.to_bytes()).unwrap(),
            sig
        );
        // BER (non-minimal length) is rejected.
        let ber = [
            0x30, 0x81, 0x08, 0x02, 0x03, 0x00, 0x80, 0xff, 0x02, 0x01, 0x01,
        ];
        assert!(EcdsaSignature::from_der(Curve::P256, &ber).is_err());
        assert!(EcdsaSignature::from_bytes(Curve::P256, &[0; 63]).is_err());
    }
}
