//! RSA keys: parsing (PKCS#1, PKCS#8, SPKI; PEM or DER), validation, generation, export.
//!
//! Numbers are little-endian `u64` limbs. Each key prepares its Montgomery constants
//! ([`DynMonty`] for `n`, `p`, `q`) once, when it is built: constant-time for the secret
//! primes, [`DynMonty::new_vartime`] for the public modulus `n`.
//!
//! Secret components keep the limb count their encoding gives (`p`, `q`) or that of the
//! modulus they belong to (`dp`, `qinv` as `p`; `dq` as `q`; `d` as `n`), never trimmed to
//! their value: a trimmed `dp` would make the exponentiation's length (windows, AVX2 group,
//! GPU words) depend on its top bits. Checks on them are constant-time and branch only on the
//! verdict. The `DynMonty` constants of `p` and `q` are zeroized on drop, like the limbs.

use batch_core::num::{bits_vartime, limbs_from_be_bytes, limbs_to_be_bytes, DynMonty};
use der::{Decode, Encode};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::nat;
use crate::encoding::pem_or_der;
use crate::Error;

/// `rsaEncryption` (RFC 8017 appendix C).
const RSA_ENCRYPTION: der::asn1::ObjectIdentifier = const_oid::db::rfc5912::RSA_ENCRYPTION;
/// `id-RSASSA-PSS` (RFC 4055 §3.1): a key for RSASSA-PSS only.
const ID_RSASSA_PSS: der::asn1::ObjectIdentifier = const_oid::db::rfc5912::ID_RSASSA_PSS;
/// `id-mgf1` (RFC 8017 appendix B.2.1).
const ID_MGF1: der::asn1::ObjectIdentifier = const_oid::db::rfc5912::ID_MGF_1;

/// The schemes a key may be used with, from its algorithm identifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RsaKeyRestriction {
    /// `rsaEncryption` (or bare `n`, `e`): any scheme.
    #[default]
    None,
    /// `id-RSASSA-PSS` without parameters: RSASSA-PSS with any parameters.
    PssAny,
    /// `id-RSASSA-PSS` with RSASSA-PSS-params: PSS with this hash and MGF1 hash, and a salt
    /// of at least `salt_len` bytes (RFC 4055 §3.1; the key's salt length when none is asked).
    Pss {
        hash: crate::HashAlg,
        mgf1: crate::HashAlg,
        salt_len: usize,
    },
}

/// The restriction an SPKI or PKCS#8 algorithm identifier puts on an RSA key, or an error
/// for one that is not RSA or carries parameters batchsig does not implement.
fn restriction_of(alg: &spki::AlgorithmIdentifierRef<'_>) -> Result<RsaKeyRestriction, Error> {
    if alg.oid == RSA_ENCRYPTION {
        // RFC 8017 appendix A.1: parameters NULL (absent tolerated, as OpenSSL does).
        return match alg.parameters {
            None => Ok(RsaKeyRestriction::None),
            Some(p) if p.is_null() => Ok(RsaKeyRestriction::None),
            Some(_) => Err(key_err("rsaEncryption parameters must be NULL")),
        };
    }
    if alg.oid != ID_RSASSA_PSS {
        return Err(key_err(format!("not an RSA key (algorithm {})", alg.oid)));
    }
    let Some(params) = alg.parameters else {
        return Ok(RsaKeyRestriction::PssAny);
    };
    // Decoded owned: pkcs1 0.8 decodes the borrowed form only from `'static` input.
    let params: pkcs1::RsaPssParamsOwned = params
        .decode_as()
        .map_err(|e| key_err(format!("RSASSA-PSS-params: {e}")))?;
    let hash_of = |a: &spki::AlgorithmIdentifierOwned, what: &str| {
        // Hash AlgorithmIdentifiers: parameters NULL or absent (RFC 4055 §2.1).
        if a.parameters.as_ref().is_some_and(|p| !p.is_null()) {
            return Err(key_err(format!("RSASSA-PSS-params: {what} has parameters")));
        }
        crate::HashAlg::from_oid(a.oid)
            .ok_or_else(|| key_err(format!("RSASSA-PSS-params: unsupported {what} {}", a.oid)))
    };
    let hash = hash_of(&params.hash, "hash")?;
    if params.mask_gen.oid != ID_MGF1 {
        return Err(key_err(format!(
            "RSASSA-PSS-params: unsupported mask generation {}",
            params.mask_gen.oid
        )));
    }
    let mgf1 = params
        .mask_gen
        .parameters
        .as_ref()
        .ok_or_else(|| key_err("RSASSA-PSS-params: MGF1 without its hash"))
        .and_then(|a| hash_of(a, "MGF1 hash"))?;
    // The trailer field decodes only as trailerFieldBC (1).
    Ok(RsaKeyRestriction::Pss {
        hash,
        mgf1,
        salt_len: params.salt_len.into(),
    })
}

/// The algorithm identifier of a key with `r` (parameters DER in `buf`).
fn algorithm_of<'a>(
    r: RsaKeyRestriction,
    buf: &'a mut Vec<u8>,
) -> Result<spki::AlgorithmIdentifierRef<'a>, Error> {
    match r {
        RsaKeyRestriction::None => Ok(spki::AlgorithmIdentifierRef {
            oid: RSA_ENCRYPTION,
            parameters: Some(der::asn1::AnyRef::NULL),
        }),
        RsaKeyRestriction::PssAny => Ok(spki::AlgorithmIdentifierRef {
            oid: ID_RSASSA_PSS,
            parameters: None,
        }),
        RsaKeyRestriction::Pss {
            hash,
            mgf1,
            salt_len,
        } => {
            let ai = |h: crate::HashAlg| spki::AlgorithmIdentifierRef {
                oid: h.oid(),
                parameters: Some(der::asn1::AnyRef::NULL),
            };
            let params = pkcs1::RsaPssParams {
                hash: ai(hash),
                mask_gen: spki::AlgorithmIdentifier {
                    oid: ID_MGF1,
                    parameters: Some(ai(mgf1)),
                },
                salt_len: u8::try_from(salt_len)
                    .map_err(|_| key_err("RSASSA-PSS-params salt length over 255"))?,
                trailer_field: pkcs1::TrailerField::BC,
            };
            *buf = params.to_der().map_err(key_err)?;
            Ok(spki::AlgorithmIdentifierRef {
                oid: ID_RSASSA_PSS,
                parameters: Some(der::asn1::AnyRef::from_der(buf).map_err(key_err)?),
            })
        }
    }
}

/// Smallest modulus accepted (bits). Below this a key is a toy.
pub const MIN_MODULUS_BITS: usize = 512;
/// Largest modulus accepted (bits).
pub const MAX_MODULUS_BITS: usize = batch_core::MAX_MODULUS_BITS;

/// An RSA public key `(n, e)`.
#[derive(Clone)]
pub struct RsaPublicKey {
    pub(crate) n: Vec<u64>,
    pub(crate) e: Vec<u64>,
    pub(crate) bits: usize,
    pub(crate) n_monty: DynMonty,
    /// The forms backends prepared from `n` for earlier batches ([`NCache`]).
    pub(crate) n_cache: NCache,
    /// What the key's algorithm identifier allows (`id-RSASSA-PSS`, RFC 4055).
    pub(crate) restriction: RsaKeyRestriction,
}

/// The forms backends prepare from a public key's `n` (digit forms with `R mod n`, `R² mod n`),
/// kept for the key object's lifetime and passed with `n` to
/// [`batch_core::Backend::modexp_vartime_cached`], as OpenSSL keeps a key's Montgomery
/// context: a verification under a key seen before skips the long divisions. A clone starts
/// empty (a new key object, as with the blinding cache).
#[derive(Debug, Default)]
pub(crate) struct NCache(pub(crate) batch_core::ModulusCache);

impl Clone for NCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The forms backends prepare from a private key's CRT primes, kept for the key object's
/// lifetime and passed with `p` and `q` to [`batch_core::Backend::modexp_cached`]: secret
/// caches (constant-time set-up and lookup, wiped when dropped), so a signature skips the
/// constant-time preparation of `R mod p`, `R² mod p` (about 8 µs a 1024-bit prime on Zen 4).
/// A clone starts empty (a new key object).
#[derive(Debug)]
pub(crate) struct CrtCaches {
    pub(crate) p: batch_core::ModulusCache,
    pub(crate) q: batch_core::ModulusCache,
}

impl Default for CrtCaches {
    fn default() -> Self {
        Self {
            p: batch_core::ModulusCache::new_secret(),
            q: batch_core::ModulusCache::new_secret(),
        }
    }
}

impl Clone for CrtCaches {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl core::fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("bits", &self.bits)
            .field("e", &self.e)
            .field("restriction", &self.restriction)
            .finish_non_exhaustive()
    }
}

impl PartialEq for RsaPublicKey {
    fn eq(&self, other: &Self) -> bool {
        nat::eq_vartime(&self.n, &other.n) && nat::eq_vartime(&self.e, &other.e)
    }
}
impl Eq for RsaPublicKey {}

/// An RSA private key with its CRT parameters. Two-prime keys only.
#[derive(Clone)]
pub struct RsaPrivateKey {
    pub(crate) public: RsaPublicKey,
    pub(crate) d: Zeroizing<Vec<u64>>,
    pub(crate) p: Zeroizing<Vec<u64>>,
    pub(crate) q: Zeroizing<Vec<u64>>,
    pub(crate) dp: Zeroizing<Vec<u64>>,
    pub(crate) dq: Zeroizing<Vec<u64>>,
    pub(crate) qinv: Zeroizing<Vec<u64>>,
    pub(crate) p_monty: DynMonty,
    pub(crate) q_monty: DynMonty,
    /// Blinding pairs kept between batches (`blinding.rs`); empty in a clone.
    pub(crate) blinding: super::blinding::BlindingCache,
    /// The primes' prepared forms ([`CrtCaches`]); empty in a clone. Boxed: the two caches
    /// would otherwise make every enum holding a key (the CLI's, the TLS server's) lopsided.
    pub(crate) crt_caches: Box<CrtCaches>,
}

impl core::fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

fn key_err(e: impl core::fmt::Display) -> Error {
    Error::InvalidKey(e.to_string())
}

impl RsaPublicKey {
    /// From big-endian `n` and `e`. Checks: `n` odd, 512…15360 bits; `e` odd, `3 ≤ e < n`.
    pub fn new(n_be: &[u8], e_be: &[u8]) -> Result<Self, Error> {
        let n = nat::trim(limbs_from_be_bytes(n_be));
        let e = nat::trim(limbs_from_be_bytes(e_be));
        let bits = bits_vartime(&n);
        if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits) {
            return Err(key_err(format!(
                "modulus of {bits} bits; supported {MIN_MODULUS_BITS}..={MAX_MODULUS_BITS}"
            )));
        }
        if n[0] & 1 == 0 {
            return Err(key_err("modulus is even"));
        }
        if e[0] & 1 == 0 || bits_vartime(&e) < 2 || bits_vartime(&e) >= bits {
            return Err(key_err(
                "public exponent must be odd, at least 3 and below n",
            ));
        }
        // n is public: the variable-time setup (long division instead of 128·L doublings).
        let n_monty = DynMonty::new_vartime(&n)?;
        Ok(Self {
            n,
            e,
            bits,
            n_monty,
            n_cache: NCache::default(),
            restriction: RsaKeyRestriction::None,
        })
    }

    /// What the key may be used with: [`RsaKeyRestriction::None`] unless it came as an
    /// `id-RSASSA-PSS` key.
    pub fn restriction(&self) -> RsaKeyRestriction {
        self.restriction
    }

    /// The same key restricted to `r` (written out with `id-RSASSA-PSS` unless `None`).
    pub fn with_restriction(mut self, r: RsaKeyRestriction) -> Self {
        self.restriction = r;
        self
    }

    /// Modulus size in bits.
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Modulus size in bytes (`k` in RFC 8017): the signature length.
    pub fn size(&self) -> usize {
        self.bits.div_ceil(8)
    }

    /// `n`, big-endian.
    pub fn n_bytes(&self) -> Vec<u8> {
        limbs_to_be_bytes(&self.n, self.size()).expect("n fits its size")
    }

    /// `e`, big-endian, no leading zeros.
    pub fn e_bytes(&self) -> Vec<u8> {
        let v = limbs_to_be_bytes(&self.e, 8 * self.e.len()).expect("fits");
        let start = v.iter().position(|&b| b != 0).unwrap_or(v.len() - 1);
        v[start..].to_vec()
    }

    /// Parses `RSA PUBLIC KEY` (PKCS#1) or `PUBLIC KEY` (SubjectPublicKeyInfo), PEM or DER.
    pub fn from_pem_or_der(input: &[u8]) -> Result<Self, Error> {
        let (label, der) = pem_or_der(input)?;
        match label.as_deref() {
            Some("RSA PUBLIC KEY") => Self::from_pkcs1_der(&der),
            Some("PUBLIC KEY") => Self::from_spki_der(&der),
            Some(other) => Err(key_err(format!("unexpected PEM label {other:?}"))),
            None => Self::from_spki_der(&der).or_else(|_| Self::from_pkcs1_der(&der)),
        }
    }

    /// PKCS#1 `RSAPublicKey` DER.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = pkcs1::RsaPublicKeyRef::from_der(der).map_err(key_err)?;
        Self::new(k.modulus.as_bytes(), k.public_exponent.as_bytes())
    }

    /// X.509 `SubjectPublicKeyInfo` DER with `rsaEncryption` or `id-RSASSA-PSS` (RFC 4055;
    /// its parameters become the key's [`RsaKeyRestriction`]).
    pub fn from_spki_der(der: &[u8]) -> Result<Self, Error> {
        let spki = spki::SubjectPublicKeyInfoRef::from_der(der).map_err(key_err)?;
        let restriction = restriction_of(&spki.algorithm)?;
        let bits = spki
            .subject_public_key
            .as_bytes()
            .ok_or_else(|| key_err("unaligned BIT STRING"))?;
        Ok(Self::from_pkcs1_der(bits)?.with_restriction(restriction))
    }

    /// PKCS#1 `RSAPublicKey` DER.
    pub fn to_pkcs1_der(&self) -> Result<Vec<u8>, Error> {
        let (n, e) = (self.n_bytes(), self.e_bytes());
        pkcs1::RsaPublicKey {
            modulus: der::asn1::UintRef::new(&n).map_err(key_err)?,
            public_exponent: der::asn1::UintRef::new(&e).map_err(key_err)?,
        }
        .to_der()
        .map_err(key_err)
    }

    /// `SubjectPublicKeyInfo` PEM (`PUBLIC KEY`), as `openssl pkey -pubout` writes; under
    /// `id-RSASSA-PSS` with the key's parameters for a restricted key.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        let pkcs1 = self.to_pkcs1_der()?;
        let mut params = Vec::new();
        let spki = spki::SubjectPublicKeyInfoRef {
            algorithm: algorithm_of(self.restriction, &mut params)?,
            subject_public_key: der::asn1::BitStringRef::from_bytes(&pkcs1).map_err(key_err)?,
        };
        let der = spki.to_der().map_err(key_err)?;
        der::pem::encode_string("PUBLIC KEY", der::pem::LineEnding::LF, &der).map_err(key_err)
    }
}

impl RsaPrivateKey {
    /// Builds and checks a key from big-endian components (as in PKCS#1 `RSAPrivateKey`).
    /// Checks `n = p·q`, `q⁻¹·q ≡ 1 (mod p)`, and `(x^e)^dp ≡ x (mod p)`, same for `q`.
    #[allow(clippy::too_many_arguments)]
    pub fn from_components(
        n: &[u8],
        e: &[u8],
        d: &[u8],
        p: &[u8],
        q: &[u8],
        dp: &[u8],
        dq: &[u8],
        qinv: &[u8],
    ) -> Result<Self, Error> {
        use batch_core::ct::{declassify_mask, eq_mask, lt_mask};
        let public = RsaPublicKey::new(n, e)?;
        // p and q: the limb count of their encoding (public); the rest padded to their modulus.
        let (mut p, mut q) = (
            Zeroizing::new(limbs_from_be_bytes(p)),
            Zeroizing::new(limbs_from_be_bytes(q)),
        );
        let p_monty = DynMonty::new(&p).map_err(|_| key_err("p is not a usable odd prime"))?;
        let q_monty = DynMonty::new(&q).map_err(|_| key_err("q is not a usable odd prime"))?;
        // DynMonty's limb count is that of the value (public, like the bit length): drop
        // zero limbs of a padded encoding.
        p.truncate(p_monty.limbs());
        q.truncate(q_monty.limbs());
        let fit = |b: &[u8], limbs: usize| -> Result<Zeroizing<Vec<u64>>, Error> {
            let mut x = Zeroizing::new(limbs_from_be_bytes(b));
            if x.len() > limbs {
                if !declassify_mask(batch_core::ct::is_zero_mask(&x[limbs..])) {
                    return Err(key_err("a CRT component is out of range"));
                }
                x.truncate(limbs);
            }
            x.resize(limbs, 0);
            Ok(x)
        };
        let (dp, dq, qinv, d) = (
            fit(dp, p.len())?,
            fit(dq, q.len())?,
            fit(qinv, p.len())?,
            fit(d, public.n.len())?,
        );
        if !declassify_mask(eq_mask(&nat::mul(&p, &q), &public.n)) {
            return Err(key_err("n is not p·q"));
        }
        let in_range =
            lt_mask(&dp, &p) & lt_mask(&dq, &q) & lt_mask(&qinv, &p) & lt_mask(&d, &public.n);
        if !declassify_mask(in_range) {
            return Err(key_err("a CRT component is out of range"));
        }
        let pad = |x: &[u64], m: &DynMonty| nat::resize(x.to_vec(), m.limbs());
        let one = pad(&[1], &p_monty);
        if !declassify_mask(eq_mask(&p_monty.mul(&qinv, &p_monty.reduce(&q)), &one)) {
            return Err(key_err("qInv is not q⁻¹ mod p"));
        }
        for (m, dx) in [(&p_monty, &dp), (&q_monty, &dq)] {
            let x = pad(&[0x1234_5678_9abc_def1], m);
            let y = m.pow_vartime(&x, &public.e);
            if !declassify_mask(eq_mask(&m.pow(&y, dx), &x)) {
                return Err(key_err("CRT exponent does not invert e"));
            }
        }
        Ok(Self {
            public,
            d,
            p,
            q,
            dp,
            dq,
            qinv,
            p_monty,
            q_monty,
            blinding: Default::default(),
            crt_caches: Default::default(),
        })
    }

    /// The public half.
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// Modulus size in bits.
    pub fn bits(&self) -> usize {
        self.public.bits
    }

    /// Parses `RSA PRIVATE KEY` (PKCS#1) or `PRIVATE KEY` (PKCS#8), PEM or DER.
    pub fn from_pem_or_der(input: &[u8]) -> Result<Self, Error> {
        let (label, der) = pem_or_der(input)?;
        let der = Zeroizing::new(der);
        match label.as_deref() {
            Some("RSA PRIVATE KEY") => Self::from_pkcs1_der(&der),
            Some("PRIVATE KEY") => Self::from_pkcs8_der(&der),
            Some(other) => Err(key_err(format!("unexpected PEM label {other:?}"))),
            None => Self::from_pkcs8_der(&der).or_else(|_| Self::from_pkcs1_der(&der)),
        }
    }

    /// PKCS#1 `RSAPrivateKey` DER.
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = pkcs1::RsaPrivateKeyRef::from_der(der).map_err(key_err)?;
        if k.other_prime_infos.is_some() {
            return Err(key_err("multi-prime RSA keys are not supported"));
        }
        Self::from_components(
            k.modulus.as_bytes(),
            k.public_exponent.as_bytes(),
            k.private_exponent.as_bytes(),
            k.prime1.as_bytes(),
            k.prime2.as_bytes(),
            k.exponent1.as_bytes(),
            k.exponent2.as_bytes(),
            k.coefficient.as_bytes(),
        )
    }

    /// PKCS#8 `PrivateKeyInfo` DER with `rsaEncryption` or `id-RSASSA-PSS` (RFC 4055; its
    /// parameters become the key's [`RsaKeyRestriction`]).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        let info = pkcs8::PrivateKeyInfoRef::from_der(der).map_err(key_err)?;
        let restriction = restriction_of(&info.algorithm)?;
        let mut key = Self::from_pkcs1_der(info.private_key.as_bytes())?;
        key.public.restriction = restriction;
        Ok(key)
    }

    /// What the key may be used with (see [`RsaPublicKey::restriction`]).
    pub fn restriction(&self) -> RsaKeyRestriction {
        self.public.restriction
    }

    /// The same key restricted to `r`.
    pub fn with_restriction(mut self, r: RsaKeyRestriction) -> Self {
        self.public.restriction = r;
        self
    }

    /// PKCS#1 `RSAPrivateKey` DER.
    pub fn to_pkcs1_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let be = |x: &[u64]| Zeroizing::new(limbs_to_be_bytes(x, 8 * x.len()).expect("fits"));
        let (n, e) = (self.public.n_bytes(), self.public.e_bytes());
        let (d, p, q, dp, dq, qinv) = (
            be(&self.d),
            be(&self.p),
            be(&self.q),
            be(&self.dp),
            be(&self.dq),
            be(&self.qinv),
        );
        fn u(b: &[u8]) -> Result<der::asn1::UintRef<'_>, Error> {
            let start = b
                .iter()
                .position(|&x| x != 0)
                .unwrap_or(b.len().saturating_sub(1));
            der::asn1::UintRef::new(&b[start..]).map_err(key_err)
        }
        let k = pkcs1::RsaPrivateKey {
            modulus: u(&n)?,
            public_exponent: u(&e)?,
            private_exponent: u(&d)?,
            prime1: u(&p)?,
            prime2: u(&q)?,
            exponent1: u(&dp)?,
            exponent2: u(&dq)?,
            coefficient: u(&qinv)?,
            other_prime_infos: None,
        };
        Ok(Zeroizing::new(k.to_der().map_err(key_err)?))
    }

    /// PKCS#8 `PRIVATE KEY` PEM, as `openssl genpkey` writes (`id-RSASSA-PSS` with the
    /// key's parameters for a restricted key).
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        let pkcs1 = self.to_pkcs1_der()?;
        let mut params = Vec::new();
        let info = pkcs8::PrivateKeyInfoRef::new(
            algorithm_of(self.public.restriction, &mut params)?,
            der::asn1::OctetStringRef::new(&pkcs1).map_err(key_err)?,
        );
        let der = Zeroizing::new(info.to_der().map_err(key_err)?);
        Ok(Zeroizing::new(
            der::pem::encode_string("PRIVATE KEY", der::pem::LineEnding::LF, &der)
                .map_err(key_err)?,
        ))
    }

    /// Generates a two-prime key with `e = 65537` and a modulus of exactly `bits` bits
    /// (2048, 3072 or 4096 recommended; any multiple of 2 in 1024..=8192 accepted).
    pub fn generate(rng: &mut impl CryptoRng, bits: usize) -> Result<Self, Error> {
        if !(1024..=8192).contains(&bits) || !bits.is_multiple_of(2) {
            return Err(key_err(format!(
                "key generation supports even sizes 1024..=8192 bits, not {bits}"
            )));
        }
        const E: u64 = 65537;
        loop {
            let p = super::keygen::random_prime(rng, bits / 2, E);
            let q = super::keygen::random_prime(rng, bits / 2, E);
            // Only the verdict is public (a rejected pair is discarded).
            if batch_core::ct::declassify_mask(batch_core::ct::eq_mask(&p, &q)) {
                continue;
            }
            // n is the public key.
            let mut n = nat::mul(&p, &q);
            batch_core::ct::declassify(n.as_mut_slice());
            let n = nat::trim(n);
            if bits_vartime(&n) != bits {
                continue;
            }
            let pm1 = nat::sub(&p, &[1]);
            let qm1 = nat::sub(&q, &[1]);
            // Not trimmed: φ's length would follow its value.
            let phi = nat::mul(&pm1, &qm1);
            let (d, dp, dq) = (
                super::keygen::inv_small_e(&phi, E),
                super::keygen::inv_small_e(&pm1, E),
                super::keygen::inv_small_e(&qm1, E),
            );
            let p_monty = DynMonty::new(&p)?;
            let qinv = p_monty.inv(&p_monty.reduce(&q));
            let be = |x: &[u64]| Zeroizing::new(limbs_to_be_bytes(x, 8 * x.len()).expect("fits"));
            return Self::from_components(
                &be(&n),
                &E.to_be_bytes(),
                &be(&d),
                &be(&p),
                &be(&q),
                &be(&dp),
                &be(&dq),
                &be(&qinv),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HashAlg;

    /// An SPKI of a (public, not factored) 1024-bit modulus under `alg`.
    fn spki_with(alg: spki::AlgorithmIdentifierRef<'_>) -> Vec<u8> {
        let mut n = vec![0xc5u8; 128];
        n[127] = 0x01;
        let k = RsaPublicKey::new(&n, &[1, 0, 1]).unwrap();
        let pkcs1 = k.to_pkcs1_der().unwrap();
        spki::SubjectPublicKeyInfoRef {
            algorithm: alg,
            subject_public_key: der::asn1::BitStringRef::from_bytes(&pkcs1).unwrap(),
        }
        .to_der()
        .unwrap()
    }

    fn with_params(p: &pkcs1::RsaPssParamsRef<'static>) -> Result<RsaPublicKey, Error> {
        let der = p.to_der().unwrap();
        RsaPublicKey::from_spki_der(&spki_with(spki::AlgorithmIdentifierRef {
            oid: ID_RSASSA_PSS,
            parameters: Some(der::asn1::AnyRef::from_der(&der).unwrap()),
        }))
    }

    fn ai(oid: der::asn1::ObjectIdentifier) -> spki::AlgorithmIdentifierRef<'static> {
        spki::AlgorithmIdentifierRef {
            oid,
            parameters: None,
        }
    }

    /// The CRT primes' forms are kept in the key object (secret caches) by a backend that
    /// caches them, and signatures through warm caches are those of a fresh key; a clone starts
    /// empty; the scalar backend (no caches) signs the same bytes.
    #[test]
    fn crt_caches_fill_and_sign_the_same() {
        use crate::hash::HashAlg;
        use crate::rsa::RsaScheme;
        use batch_core::{Availability, Backend};
        use rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(12);
        let key = RsaPrivateKey::generate(&mut rng, 1024).unwrap();
        let der = key.to_pkcs1_der().unwrap();
        let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
        let msgs: Vec<&[u8]> = vec![b"one", b"two", b"three"];
        let want = RsaPrivateKey::from_pkcs1_der(&der)
            .unwrap()
            .sign_batch(&batch_scalar::ScalarBackend::new(), scheme, &msgs)
            .unwrap();
        let avx2 = batch_avx2::Avx2Backend::with_threads(1).unwrap();
        if let Availability::Unavailable(why) = avx2.availability() {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(
                !ci,
                "crt_caches_fill_and_sign_the_same: AVX2 unavailable ({why}) under CI"
            );
            eprintln!("SKIPPED crt_caches_fill_and_sign_the_same: AVX2 unavailable ({why})");
            return;
        }
        assert!(key.crt_caches.p.is_empty() && key.crt_caches.q.is_empty());
        for round in ["cold", "warm", "warm again"] {
            let got = key.sign_batch(&avx2, scheme, &msgs).unwrap();
            assert_eq!(got, want, "{round} caches");
            assert!(!key.crt_caches.p.is_empty() && !key.crt_caches.q.is_empty());
            assert!(key.crt_caches.p.is_secret() && key.crt_caches.q.is_secret());
        }
        let clone = key.clone();
        assert!(clone.crt_caches.p.is_empty() && clone.crt_caches.q.is_empty());
        assert_eq!(clone.sign_batch(&avx2, scheme, &msgs).unwrap(), want);
    }

    #[test]
    fn rsassa_pss_params_parse_with_defaults() {
        // Empty RSASSA-PSS-params: RFC 4055's defaults.
        let k = with_params(&pkcs1::RsaPssParamsRef::default()).unwrap();
        assert_eq!(
            k.restriction(),
            RsaKeyRestriction::Pss {
                hash: HashAlg::Sha1,
                mgf1: HashAlg::Sha1,
                salt_len: 20
            }
        );
        let mut p = pkcs1::RsaPssParamsRef::new::<sha3::Sha3_256>(40);
        p.mask_gen.parameters = Some(ai(HashAlg::Sha512.oid()));
        let k = with_params(&p).unwrap();
        assert_eq!(
            k.restriction(),
            RsaKeyRestriction::Pss {
                hash: HashAlg::Sha3_256,
                mgf1: HashAlg::Sha512,
                salt_len: 40
            }
        );
        let k = RsaPublicKey::from_spki_der(&spki_with(ai(ID_RSASSA_PSS))).unwrap();
        assert_eq!(k.restriction(), RsaKeyRestriction::PssAny);
    }

    #[test]
    fn bad_rsassa_pss_params_are_clear_errors() {
        let err = |r: Result<RsaPublicKey, Error>| match r {
            Err(Error::InvalidKey(why)) => why,
            other => panic!("expected InvalidKey, got {other:?}"),
        };
        // A mask generation function other than MGF1.
        let mut p = pkcs1::RsaPssParamsRef::new::<sha2::Sha256>(32);
        p.mask_gen.oid = HashAlg::Sha256.oid();
        assert!(err(with_params(&p)).contains("mask generation"));
        // A hash batchsig does not implement (SHAKE128, 2.16.840.1.101.3.4.2.11).
        let shake = der::asn1::ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.11");
        let mut p = pkcs1::RsaPssParamsRef::new::<sha2::Sha256>(32);
        p.hash = ai(shake);
        assert!(err(with_params(&p)).contains("unsupported hash"));
        let mut p = pkcs1::RsaPssParamsRef::new::<sha2::Sha256>(32);
        p.mask_gen.parameters = Some(ai(shake));
        assert!(err(with_params(&p)).contains("unsupported MGF1 hash"));
        // MGF1 without its hash.
        let mut p = pkcs1::RsaPssParamsRef::new::<sha2::Sha256>(32);
        p.mask_gen.parameters = None;
        assert!(err(with_params(&p)).contains("MGF1 without"));
        // NULL instead of a SEQUENCE; trailer field 2; salt 300 (over the INTEGER's range).
        let null = spki::AlgorithmIdentifierRef {
            oid: ID_RSASSA_PSS,
            parameters: Some(der::asn1::AnyRef::NULL),
        };
        assert!(err(RsaPublicKey::from_spki_der(&spki_with(null))).contains("RSASSA-PSS-params"));
        for raw in [
            &[0x30, 0x05, 0xa3, 0x03, 0x02, 0x01, 0x02][..],
            &[0x30, 0x06, 0xa2, 0x04, 0x02, 0x02, 0x01, 0x2c][..],
        ] {
            let alg = spki::AlgorithmIdentifierRef {
                oid: ID_RSASSA_PSS,
                parameters: Some(der::asn1::AnyRef::from_der(raw).unwrap()),
            };
            assert!(err(RsaPublicKey::from_spki_der(&spki_with(alg))).contains("RSASSA-PSS-params"));
        }
        // Another algorithm altogether.
        let ec = ai(der::asn1::ObjectIdentifier::new_unwrap("1.2.840.10045.2.1"));
        assert!(err(RsaPublicKey::from_spki_der(&spki_with(ec))).contains("not an RSA key"));
    }
}
