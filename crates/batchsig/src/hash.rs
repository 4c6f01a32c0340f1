//! The hash functions the schemes use: SHA-224/256/384/512, SHA-512/224, SHA-512/256
//! (`sha2`), SHA3-224/256/384/512 (`sha3`), and SHA-1 (`sha1`) for verifying legacy
//! signatures and as the MGF1 hash of RSASSA-PSS only — batchsig never signs a SHA-1 digest.
//!
//! Object identifiers come from the hash crates (`AssociatedOid`); the PKCS#1 v1.5
//! `DigestInfo` is DER-encoded with `der`/`spki` types.

use const_oid::{AssociatedOid, ObjectIdentifier};
use der::Encode;
use hmac::Hmac;
use sha2::Digest;

/// A supported hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlg {
    /// SHA-1: verification and MGF1 only ([`HashAlg::signing_allowed`] is false).
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// SHA-512/224 (FIPS 180-4 §5.3.6).
    Sha512_224,
    /// SHA-512/256 (FIPS 180-4 §5.3.6).
    Sha512_256,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
}

/// Runs `$body` with `$d` bound to the hash crate's type for `$h`.
macro_rules! with_digest {
    ($h:expr, $d:ident => $body:expr) => {
        match $h {
            HashAlg::Sha1 => {
                type $d = sha1::Sha1;
                $body
            }
            HashAlg::Sha224 => {
                type $d = sha2::Sha224;
                $body
            }
            HashAlg::Sha256 => {
                type $d = sha2::Sha256;
                $body
            }
            HashAlg::Sha384 => {
                type $d = sha2::Sha384;
                $body
            }
            HashAlg::Sha512 => {
                type $d = sha2::Sha512;
                $body
            }
            HashAlg::Sha512_224 => {
                type $d = sha2::Sha512_224;
                $body
            }
            HashAlg::Sha512_256 => {
                type $d = sha2::Sha512_256;
                $body
            }
            HashAlg::Sha3_224 => {
                type $d = sha3::Sha3_224;
                $body
            }
            HashAlg::Sha3_256 => {
                type $d = sha3::Sha3_256;
                $body
            }
            HashAlg::Sha3_384 => {
                type $d = sha3::Sha3_384;
                $body
            }
            HashAlg::Sha3_512 => {
                type $d = sha3::Sha3_512;
                $body
            }
        }
    };
}

pub(crate) use with_digest;

/// The HMAC state per hash: [`hmac::Hmac`] where the hash exposes its block-level core (SHA-1,
/// SHA-2), which keeps both pads' compressed states, so that a MAC under a key already set
/// costs the message's blocks and one more; [`SpongeHmac`] for SHA-3 (a sponge). Both hold the
/// key only inside hash states, which the hash crates' `zeroize` feature wipes on drop.
pub(crate) trait HmacOf {
    type Mac: hmac::Mac + hmac::KeyInit + Clone;

    /// The state under an all-zero key no longer than a block, which HMAC pads to the same
    /// all-zero block as the empty key: RFC 6979's first `K` (`0x00…` of the hash's length),
    /// a public constant, keyed once a process and cloned (two compressions a nonce saved).
    fn zero_keyed() -> Self::Mac;
}

macro_rules! hmac_of {
    ($mac:ident: $($d:ty),*) => {
        $(impl HmacOf for $d {
            type Mac = $mac<$d>;

            fn zero_keyed() -> Self::Mac {
                static KEYED: std::sync::OnceLock<$mac<$d>> = std::sync::OnceLock::new();
                KEYED
                    .get_or_init(|| {
                        <$mac<$d> as hmac::KeyInit>::new_from_slice(&[]).expect("any key length")
                    })
                    .clone()
            }
        })*
    };
}
hmac_of!(Hmac: sha1::Sha1, sha2::Sha224, sha2::Sha256, sha2::Sha384, sha2::Sha512,
    sha2::Sha512_224, sha2::Sha512_256);
hmac_of!(SpongeHmac: sha3::Sha3_224, sha3::Sha3_256, sha3::Sha3_384, sha3::Sha3_512);

/// HMAC (RFC 2104) over a hash without a block-level API (SHA-3), with both padded keys
/// absorbed into hash states when the key is set. `hmac::SimpleHmac` keeps `key ⊕ opad` as
/// plain bytes, which nothing wipes: from it the key is one XOR away. Here the only copy of a
/// padded key outside a hash state is a `Zeroizing` block during [`KeyInit::new_from_slice`].
///
/// [`KeyInit::new_from_slice`]: hmac::KeyInit::new_from_slice
#[derive(Clone)]
pub(crate) struct SpongeHmac<D> {
    inner: D,
    outer: D,
}

mod sponge_hmac {
    use digest::common::{BlockSizeUser, InvalidLength, Key, KeySizeUser};
    use digest::{Digest, FixedOutput, KeyInit, MacMarker, Output, OutputSizeUser, Update};
    use zeroize::Zeroizing;

    use super::SpongeHmac;

    impl<D: Digest + BlockSizeUser> KeySizeUser for SpongeHmac<D> {
        type KeySize = D::BlockSize;
    }

    impl<D: Digest + BlockSizeUser> KeyInit for SpongeHmac<D> {
        fn new(key: &Key<Self>) -> Self {
            Self::new_from_slice(key.as_slice()).expect("any key length")
        }

        fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
            // The padded keys on the stack, not the heap: the DRBG keys a state three times
            // a nonce.
            const MAX_BLOCK: usize = 144; // SHA3-224's rate, the widest block here
            let bs = D::block_size();
            assert!(
                bs <= MAX_BLOCK,
                "SpongeHmac takes blocks of at most {MAX_BLOCK} bytes"
            );
            let mut block = Zeroizing::new([0u8; MAX_BLOCK]);
            if key.len() <= bs {
                block[..key.len()].copy_from_slice(key);
            } else {
                // A SHA-3 digest is shorter than its rate.
                let h = Zeroizing::new(D::digest(key).to_vec());
                block[..h.len()].copy_from_slice(&h);
            }
            let keyed = |pad: u8| {
                let mut padded = Zeroizing::new([0u8; MAX_BLOCK]);
                for (p, b) in padded.iter_mut().zip(&block[..bs]) {
                    *p = b ^ pad;
                }
                let mut d = D::new();
                Digest::update(&mut d, &padded[..bs]);
                d
            };
            Ok(Self {
                inner: keyed(0x36),
                outer: keyed(0x5c),
            })
        }
    }

    impl<D: Digest> Update for SpongeHmac<D> {
        fn update(&mut self, data: &[u8]) {
            Digest::update(&mut self.inner, data);
        }
    }

    impl<D: Digest> OutputSizeUser for SpongeHmac<D> {
        type OutputSize = <D as OutputSizeUser>::OutputSize;
    }

    impl<D: Digest> FixedOutput for SpongeHmac<D> {
        fn finalize_into(self, out: &mut Output<Self>) {
            let mut outer = self.outer;
            Digest::update(&mut outer, self.inner.finalize());
            Digest::finalize_into(outer, out);
        }
    }

    impl<D> MacMarker for SpongeHmac<D> {}

    // Its two states are its only fields, and each wipes itself.
    impl<D: zeroize::ZeroizeOnDrop> zeroize::ZeroizeOnDrop for SpongeHmac<D> {}

    /// Fails the build if a hash crate's `zeroize` feature goes (`hmac::Hmac` keeps its
    /// keyed states as these hashes' block cores, which wipe themselves under it).
    const _: () = {
        fn wiped<T: zeroize::ZeroizeOnDrop>() {}
        #[allow(dead_code)]
        fn every_state() {
            wiped::<sha1::Sha1>();
            wiped::<sha2::Sha256>();
            wiped::<sha2::Sha512>();
            wiped::<sha3::Sha3_256>();
            wiped::<SpongeHmac<sha3::Sha3_512>>();
        }
    };
}

impl HashAlg {
    /// Every hash batchsig signs with (SHA-1 is not among them).
    pub const ALL: [HashAlg; 10] = [
        HashAlg::Sha224,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
        HashAlg::Sha512_224,
        HashAlg::Sha512_256,
        HashAlg::Sha3_224,
        HashAlg::Sha3_256,
        HashAlg::Sha3_384,
        HashAlg::Sha3_512,
    ];

    /// Every hash batchsig verifies with or uses in MGF1: SHA-1, then [`HashAlg::ALL`].
    pub const VERIFY: [HashAlg; 11] = {
        let mut v = [HashAlg::Sha1; 11];
        let mut i = 0;
        while i < Self::ALL.len() {
            v[i + 1] = Self::ALL[i];
            i += 1;
        }
        v
    };

    /// Digest length in bytes.
    pub const fn output_len(self) -> usize {
        match self {
            HashAlg::Sha1 => 20,
            HashAlg::Sha224 | HashAlg::Sha512_224 | HashAlg::Sha3_224 => 28,
            HashAlg::Sha256 | HashAlg::Sha512_256 | HashAlg::Sha3_256 => 32,
            HashAlg::Sha384 | HashAlg::Sha3_384 => 48,
            HashAlg::Sha512 | HashAlg::Sha3_512 => 64,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            HashAlg::Sha1 => "SHA-1",
            HashAlg::Sha224 => "SHA-224",
            HashAlg::Sha256 => "SHA-256",
            HashAlg::Sha384 => "SHA-384",
            HashAlg::Sha512 => "SHA-512",
            HashAlg::Sha512_224 => "SHA-512/224",
            HashAlg::Sha512_256 => "SHA-512/256",
            HashAlg::Sha3_224 => "SHA3-224",
            HashAlg::Sha3_256 => "SHA3-256",
            HashAlg::Sha3_384 => "SHA3-384",
            HashAlg::Sha3_512 => "SHA3-512",
        }
    }

    /// Whether batchsig signs digests of this hash: all but SHA-1 (collisions are
    /// practical). SHA-1 still verifies, and serves as the MGF1 hash.
    pub const fn signing_allowed(self) -> bool {
        !matches!(self, HashAlg::Sha1)
    }

    /// `Err(SchemeNotAllowed)` for a hash batchsig does not sign with.
    pub fn check_signing(self) -> Result<(), crate::Error> {
        if self.signing_allowed() {
            Ok(())
        } else {
            Err(crate::Error::SchemeNotAllowed(format!(
                "{} is accepted for verification only, not for signing",
                self.name()
            )))
        }
    }

    /// The hash's object identifier (from the hash crate's `AssociatedOid`).
    pub fn oid(self) -> ObjectIdentifier {
        with_digest!(self, D => <D as AssociatedOid>::OID)
    }

    /// The hash named by `oid`, if it is one of ours.
    pub fn from_oid(oid: ObjectIdentifier) -> Option<HashAlg> {
        HashAlg::VERIFY.into_iter().find(|h| h.oid() == oid)
    }

    /// `H(msg)`.
    pub fn digest(self, msg: &[u8]) -> Vec<u8> {
        with_digest!(self, D => D::digest(msg).to_vec())
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
        with_digest!(self, D => run::<D>(parts))
    }

    /// `H(everything read from r)`, read in 64 KiB blocks.
    pub fn digest_reader(self, mut r: impl std::io::Read) -> std::io::Result<Vec<u8>> {
        fn run<D: Digest>(r: &mut dyn std::io::Read) -> std::io::Result<Vec<u8>> {
            let mut h = D::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => return Ok(h.finalize().to_vec()),
                    Ok(n) => h.update(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        with_digest!(self, D => run::<D>(&mut r))
    }

    /// HMAC over the concatenated parts.
    pub fn hmac(self, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        use hmac::{KeyInit, Mac};
        fn run<M: Mac + KeyInit>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
            let mut m = <M as KeyInit>::new_from_slice(key).expect("any key length");
            for p in parts {
                m.update(p);
            }
            m.finalize().into_bytes().to_vec()
        }
        with_digest!(self, D => run::<<D as HmacOf>::Mac>(key, parts))
    }

    /// The DER `DigestInfo` of PKCS#1 v1.5 (RFC 8017 §9.2 step 2):
    /// `SEQUENCE { AlgorithmIdentifier { oid, NULL }, OCTET STRING digest }`, NULL parameters
    /// as in RFC 8017 appendix B.1 (and as OpenSSL writes them for SHA-2 and SHA-3 too).
    pub fn digest_info(self, digest: &[u8]) -> Result<Vec<u8>, crate::Error> {
        self.check_digest(digest)?;
        #[derive(der::Sequence)]
        struct DigestInfo<'a> {
            digest_algorithm: spki::AlgorithmIdentifierRef<'a>,
            digest: &'a der::asn1::OctetStringRef,
        }
        let info = DigestInfo {
            digest_algorithm: spki::AlgorithmIdentifierRef {
                oid: self.oid(),
                parameters: Some(der::asn1::AnyRef::NULL),
            },
            digest: der::asn1::OctetStringRef::new(digest)
                .map_err(|e| crate::Error::InvalidKey(format!("DigestInfo: {e}")))?,
        };
        info.to_der()
            .map_err(|e| crate::Error::InvalidKey(format!("DigestInfo: {e}")))
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
    fn output_len_matches_digest() {
        for h in HashAlg::VERIFY {
            assert_eq!(h.digest(b"abc").len(), h.output_len(), "{h}");
            assert_eq!(h.digest_parts(&[b"a", b"bc"]), h.digest(b"abc"), "{h}");
            let long = vec![7u8; 200_000];
            assert_eq!(h.digest_reader(&long[..]).unwrap(), h.digest(&long), "{h}");
        }
    }

    #[test]
    fn digests_known_answers() {
        // FIPS 180-4 / FIPS 202 examples: the first 4 bytes of H("abc").
        let want: [(HashAlg, [u8; 4]); 11] = [
            (HashAlg::Sha1, [0xa9, 0x99, 0x3e, 0x36]),
            (HashAlg::Sha224, [0x23, 0x09, 0x7d, 0x22]),
            (HashAlg::Sha256, [0xba, 0x78, 0x16, 0xbf]),
            (HashAlg::Sha384, [0xcb, 0x00, 0x75, 0x3f]),
            (HashAlg::Sha512, [0xdd, 0xaf, 0x35, 0xa1]),
            (HashAlg::Sha512_224, [0x46, 0x34, 0x27, 0x0f]),
            (HashAlg::Sha512_256, [0x53, 0x04, 0x8e, 0x26]),
            (HashAlg::Sha3_224, [0xe6, 0x42, 0x82, 0x4c]),
            (HashAlg::Sha3_256, [0x3a, 0x98, 0x5d, 0xa7]),
            (HashAlg::Sha3_384, [0xec, 0x01, 0x49, 0x82]),
            (HashAlg::Sha3_512, [0xb7, 0x51, 0x85, 0x0b]),
        ];
        for (h, w) in want {
            assert_eq!(h.digest(b"abc")[..4], w, "{h}");
        }
    }

    #[test]
    fn digest_info_matches_rfc8017() {
        // RFC 8017 §9.2 note 1: the DER prefixes of SHA-256 and SHA-512/224.
        let sha256_prefix = [
            0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x01, 0x05, 0x00, 0x04, 0x20,
        ];
        let d = HashAlg::Sha256.digest(b"abc");
        let di = HashAlg::Sha256.digest_info(&d).unwrap();
        assert_eq!(di[..19], sha256_prefix);
        assert_eq!(di[19..], d[..]);
        let sha512_224_prefix = [
            0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x05, 0x05, 0x00, 0x04, 0x1c,
        ];
        let d = HashAlg::Sha512_224.digest(b"abc");
        assert_eq!(
            HashAlg::Sha512_224.digest_info(&d).unwrap()[..19],
            sha512_224_prefix
        );
        // SHA-1: 15-byte prefix.
        let d = HashAlg::Sha1.digest(b"abc");
        assert_eq!(HashAlg::Sha1.digest_info(&d).unwrap().len(), 15 + 20);
        assert!(HashAlg::Sha3_256.digest_info(&[0; 31]).is_err());
    }

    #[test]
    fn oids_round_trip() {
        for h in HashAlg::VERIFY {
            assert_eq!(HashAlg::from_oid(h.oid()), Some(h));
        }
        assert_eq!(
            HashAlg::Sha3_256.oid(),
            ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.8")
        );
        assert!(HashAlg::from_oid(ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1")).is_none());
        assert!(!HashAlg::Sha1.signing_allowed() && HashAlg::Sha1.check_signing().is_err());
        assert!(HashAlg::ALL.iter().all(|h| h.check_signing().is_ok()));
    }

    #[test]
    fn hmac_known_answer() {
        // RFC 4231 test case 2.
        let mac = HashAlg::Sha256.hmac(b"Jefe", &[b"what do ya want ", b"for nothing?"]);
        assert_eq!(mac[..4], [0x5b, 0xdc, 0xc1, 0x46]);
        // The same input, HMAC-SHA3-256 (as Python's hmac/hashlib computes it).
        let mac = HashAlg::Sha3_256.hmac(b"Jefe", &[b"what do ya ", b"want for nothing?"]);
        assert_eq!(mac[..8], [0xc7, 0xd4, 0x07, 0x2e, 0x78, 0x88, 0x77, 0xae]);
        // RFC 4231 test case 2, HMAC-SHA-224.
        let mac = HashAlg::Sha224.hmac(b"Jefe", &[b"what do ya want for nothing?"]);
        assert_eq!(mac[..4], [0xa3, 0x0e, 0x01, 0x09]);
    }

    /// Every hash's HMAC (the block-core form for SHA-1 and SHA-2, [`SpongeHmac`] for SHA-3)
    /// against the `hmac` crate's generic one, with keys shorter than, as long as and longer
    /// than a block; a state cloned after keying giving the same MAC as a fresh one; and the
    /// kept all-zero-key state (`HmacOf::zero_keyed`) the same as one keyed with `hlen` zeros.
    #[test]
    fn hmac_matches_the_generic_form() {
        use hmac::{KeyInit, Mac, SimpleHmac};
        fn generic<D: Digest + digest::block_api::BlockSizeUser + Clone>(
            key: &[u8],
            msg: &[u8],
        ) -> Vec<u8> {
            let mut m = <SimpleHmac<D> as KeyInit>::new_from_slice(key).unwrap();
            m.update(msg);
            m.finalize().into_bytes().to_vec()
        }
        fn zero_key<D: HmacOf>(hlen: usize, msg: &[u8]) -> (Vec<u8>, Vec<u8>) {
            let mac = |mut m: D::Mac| {
                m.update(msg);
                m.finalize().into_bytes().to_vec()
            };
            let fresh = <D::Mac as KeyInit>::new_from_slice(&vec![0u8; hlen]).unwrap();
            (mac(D::zero_keyed()), mac(fresh))
        }
        fn cloned<M: Mac + KeyInit + Clone>(key: &[u8], msg: &[u8]) -> Vec<u8> {
            let keyed = <M as KeyInit>::new_from_slice(key).unwrap();
            let mut first = keyed.clone();
            first.update(b"another message");
            let _ = first.finalize();
            let mut m = keyed.clone();
            m.update(msg);
            m.finalize().into_bytes().to_vec()
        }
        let msg: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        for h in HashAlg::VERIFY {
            for key_len in [0, 20, 64, 128, 200] {
                let key: Vec<u8> = (0..key_len as u8).collect();
                for len in [0, 55, 64, 129, 300] {
                    let want = with_digest!(h, D => generic::<D>(&key, &msg[..len]));
                    assert_eq!(
                        h.hmac(&key, &[&msg[..len]]),
                        want,
                        "{h:?}, key {key_len}, {len}"
                    );
                    let got = with_digest!(h, D => cloned::<<D as HmacOf>::Mac>(&key, &msg[..len]));
                    assert_eq!(got, want, "{h:?} cloned, key {key_len}, {len}");
                }
            }
            for len in [0, 55, 300] {
                let (kept, fresh) =
                    with_digest!(h, D => zero_key::<D>(h.output_len(), &msg[..len]));
                assert_eq!(kept, fresh, "{h:?} zero key, {len}");
            }
        }
    }
}
