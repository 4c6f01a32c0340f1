//! The hash functions the schemes use: SHA-256, SHA-384, SHA-512.

use sha2::{Digest, Sha256, Sha384, Sha512};

/// A supported hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlg {
    Sha256,
    Sha384,
    Sha512,
}

impl HashAlg {
    pub const ALL: [HashAlg; 3] = [HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512];

    /// Digest length in bytes.
    pub const fn output_len(self) -> usize {
        match self {
            HashAlg::Sha256 => 32,
            HashAlg::Sha384 => 48,
            HashAlg::Sha512 => 64,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            HashAlg::Sha256 => "SHA-256",
            HashAlg::Sha384 => "SHA-384",
            HashAlg::Sha512 => "SHA-512",
        }
    }

    /// `H(msg)`.
    pub fn digest(self, msg: &[u8]) -> Vec<u8> {
        match self {
            HashAlg::Sha256 => Sha256::digest(msg).to_vec(),
            HashAlg::Sha384 => Sha384::digest(msg).to_vec(),
            HashAlg::Sha512 => Sha512::digest(msg).to_vec(),
        }
    }

    /// `H(part₀ ‖ part₁ ‖ …)`.
    pub fn digest_parts(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut h = D::new();
            for p in parts {
                h.update(p);
            }
            h.finalize().to_vec()
        }
        match self {
            HashAlg::Sha256 => run::<Sha256>(parts),
            HashAlg::Sha384 => run::<Sha384>(parts),
            HashAlg::Sha512 => run::<Sha512>(parts),
        }
    }

    /// HMAC over the concatenated parts.
    pub fn hmac(self, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        use hmac::{Mac, SimpleHmac};
        fn run<D: Digest + digest::core_api::BlockSizeUser>(
            key: &[u8],
            parts: &[&[u8]],
        ) -> Vec<u8> {
            let mut m = <SimpleHmac<D> as hmac::digest::KeyInit>::new_from_slice(key)
                .expect("any key length");
            for p in parts {
                m.update(p);
            }
            m.finalize().into_bytes().to_vec()
        }
        match self {
            HashAlg::Sha256 => run::<Sha256>(key, parts),
            HashAlg::Sha384 => run::<Sha384>(key, parts),
            HashAlg::Sha512 => run::<Sha512>(key, parts),
        }
    }

    /// The DER `DigestInfo` prefix for PKCS#1 v1.5 (RFC 8017 §9.2, note 1): the encoding
    /// of `AlgorithmIdentifier` and the digest's OCTET STRING header, before the digest.
    pub const fn digest_info_prefix(self) -> &'static [u8] {
        match self {
            HashAlg::Sha256 => &[
                0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x01, 0x05, 0x00, 0x04, 0x20,
            ],
            HashAlg::Sha384 => &[
                0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x02, 0x05, 0x00, 0x04, 0x30,
            ],
            HashAlg::Sha512 => &[
                0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
                0x03, 0x05, 0x00, 0x04, 0x40,
            ],
        }
    }

    /// Checks a digest's length.
    pub fn check_digest(self, digest: &[u8]) -> Result<(), crate::Error> {
        if digest.len() != self.output_len() {
            return Err(crate::Error::DigestLength {
                expected: self.output_len(),
                got: digest.len(),
            });
        }
        Ok(())
    }
}

impl core::fmt::Display for HashAlg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_info_prefixes_decode_as_der() {
        // The prefix plus a digest must parse as SEQUENCE { AlgorithmIdentifier, OCTET STRING }.
        use der::Decode;
        for h in HashAlg::ALL {
            let mut di = h.digest_info_prefix().to_vec();
            di.extend(h.digest(b"abc"));
            let seq = der::asn1::Any::from_der(&di).expect("valid DER");
            assert_eq!(der::Tagged::tag(&seq), der::Tag::Sequence);
            assert_eq!(di.len(), h.digest_info_prefix().len() + h.output_len());
        }
    }

    #[test]
    fn hmac_known_answer() {
        // RFC 4231 test case 2.
        let mac = HashAlg::Sha256.hmac(b"Jefe", &[b"what do ya want ", b"for nothing?"]);
        assert_eq!(mac[..4], [0x5b, 0xdc, 0xc1, 0x46]);
    }
}
