//! X.509 certificates: issued here with `x509-cert`'s types and batchsig's signers, parsed
//! with `x509-cert`/`der` and verified on a [`Backend`].
//!
//! Supported certificate signatures are what public CAs issue: `sha{256,384,512}WithRSA
//! Encryption` (RSA PKCS#1 v1.5, TLS `rsa_pkcs1_*`) and `ecdsa-with-SHA{256,384,512}`; any
//! other algorithm (RSA-PSS certificates, Ed25519) is a clear error. Issued certificates are
//! v3 with BasicConstraints, KeyUsage, subject and authority key identifiers (RFC 7093 §2
//! method 1: the leftmost 160 bits of the SHA-256 of the key) and, on the leaf, a DNS
//! SubjectAltName, dated with UTCTime (GeneralizedTime from 2050, RFC 5280 §4.1.2.5): what
//! `openssl verify -x509_strict` asks for.

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use batch_core::{Backend, Error};
use batchsig::HashAlg;
use const_oid::{AssociatedOid, ObjectIdentifier};
use der::asn1::{BitString, GeneralizedTime, Ia5String, OctetString, UtcTime};
use der::{Decode, Encode, Reader, SliceReader};
use rand_chacha::ChaCha20Rng;
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, KeyUsage, KeyUsages, SubjectAltName,
    SubjectKeyIdentifier,
};
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, Version};

use crate::identity::{sign_digests, CertPublicKey, ServerKey, SigAlg};

const SHA256_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11");
const SHA384_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.12");
const SHA512_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.13");
const ECDSA_WITH_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2");
const ECDSA_WITH_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.3");
const ECDSA_WITH_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.4");

fn cert_err(what: impl core::fmt::Display) -> Error {
    Error::InvalidKey(format!("certificate: {what}"))
}

/// A certificate's signature algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CertSigAlg {
    /// `sha*WithRSAEncryption` (PKCS#1 v1.5).
    RsaPkcs1(HashAlg),
    /// `ecdsa-with-SHA*`.
    Ecdsa(HashAlg),
}

impl CertSigAlg {
    /// What a CA with this key signs with: PKCS#1 v1.5 with the hash matching the key's
    /// strength for RSA, the curve's hash for ECDSA.
    pub fn for_issuer(key: &ServerKey) -> Self {
        let hash = key.suite().signature_hash();
        match key {
            ServerKey::Rsa(_) => CertSigAlg::RsaPkcs1(hash),
            ServerKey::Ecdsa(_) => CertSigAlg::Ecdsa(hash),
        }
    }

    pub fn hash(self) -> HashAlg {
        match self {
            CertSigAlg::RsaPkcs1(h) | CertSigAlg::Ecdsa(h) => h,
        }
    }

    /// The algorithm's OID; `None` for a hash certificates here are not issued or verified
    /// with (only SHA-256/384/512, what public CAs use).
    pub fn oid(self) -> Option<ObjectIdentifier> {
        Some(match self {
            CertSigAlg::RsaPkcs1(HashAlg::Sha256) => SHA256_WITH_RSA,
            CertSigAlg::RsaPkcs1(HashAlg::Sha384) => SHA384_WITH_RSA,
            CertSigAlg::RsaPkcs1(HashAlg::Sha512) => SHA512_WITH_RSA,
            CertSigAlg::Ecdsa(HashAlg::Sha256) => ECDSA_WITH_SHA256,
            CertSigAlg::Ecdsa(HashAlg::Sha384) => ECDSA_WITH_SHA384,
            CertSigAlg::Ecdsa(HashAlg::Sha512) => ECDSA_WITH_SHA512,
            _ => return None,
        })
    }

    /// The algorithm named by `id`; parameters must be NULL or absent for RSA (RFC 4055
    /// §5), absent for ECDSA (RFC 5758 §3.2).
    pub fn from_algorithm_identifier(id: &AlgorithmIdentifierOwned) -> Result<Self, Error> {
        let oid = id.oid;
        let alg = [
            CertSigAlg::RsaPkcs1(HashAlg::Sha256),
            CertSigAlg::RsaPkcs1(HashAlg::Sha384),
            CertSigAlg::RsaPkcs1(HashAlg::Sha512),
            CertSigAlg::Ecdsa(HashAlg::Sha256),
            CertSigAlg::Ecdsa(HashAlg::Sha384),
            CertSigAlg::Ecdsa(HashAlg::Sha512),
        ]
        .into_iter()
        .find(|a| a.oid() == Some(oid))
        .ok_or_else(|| cert_err(format!("unsupported signature algorithm {oid}")))?;
        let params_ok = match (alg, &id.parameters) {
            (_, None) => true,
            (CertSigAlg::RsaPkcs1(_), Some(p)) => p.is_null(),
            (CertSigAlg::Ecdsa(_), Some(_)) => false,
        };
        if !params_ok {
            return Err(cert_err("unexpected signature algorithm parameters"));
        }
        Ok(alg)
    }

    /// The TLS SignatureScheme of this algorithm, as `signature_algorithms_cert` lists it
    /// (RFC 8446 §4.2.3): `rsa_pkcs1_sha256` (0x0401) …, `ecdsa_secp256r1_sha256` (0x0403) ….
    pub fn tls_scheme(self) -> u16 {
        let h = match self.hash() {
            HashAlg::Sha256 => 0x04,
            HashAlg::Sha384 => 0x05,
            HashAlg::Sha512 => 0x06,
            // No TLS 1.3 code point: 0x0001/0x0003, which no peer accepts.
            _ => 0x00,
        };
        match self {
            CertSigAlg::RsaPkcs1(_) => (h << 8) | 0x01,
            CertSigAlg::Ecdsa(_) => (h << 8) | 0x03,
        }
    }

    fn algorithm_identifier(self) -> Result<AlgorithmIdentifierOwned, Error> {
        Ok(AlgorithmIdentifierOwned {
            oid: self
                .oid()
                .ok_or_else(|| cert_err(format!("no certificate signature with {self:?}")))?,
            parameters: match self {
                CertSigAlg::RsaPkcs1(_) => Some(der::asn1::Any::null()),
                CertSigAlg::Ecdsa(_) => None,
            },
        })
    }

    pub(crate) fn sig_alg(self) -> SigAlg {
        match self {
            CertSigAlg::RsaPkcs1(h) => SigAlg::RsaPkcs1(h),
            CertSigAlg::Ecdsa(h) => SigAlg::Ecdsa(h),
        }
    }
}

/// The certificate signature schemes a simulated client accepts (its
/// `signature_algorithms_cert`).
pub const ACCEPTED_CERT_SCHEMES: [u16; 6] = [0x0401, 0x0501, 0x0601, 0x0403, 0x0503, 0x0603];

/// One certificate as a client reads it.
#[derive(Clone, Debug)]
pub struct ParsedCert<'a> {
    /// The DER of `tbsCertificate`, as received (what the issuer signed).
    pub tbs_der: &'a [u8],
    pub alg: CertSigAlg,
    pub cert: Certificate,
}

impl ParsedCert<'_> {
    /// The issuer's signature (RSA: big-endian, ECDSA: DER).
    pub fn signature(&self) -> Result<&[u8], Error> {
        self.cert
            .signature()
            .as_bytes()
            .ok_or_else(|| cert_err("signature BIT STRING has unused bits"))
    }

    /// The subject's key, parsed (RSA: modulus checks and Montgomery setup; ECDSA: the
    /// point decoded and checked on the curve).
    pub fn public_key(&self) -> Result<CertPublicKey, Error> {
        let spki = self
            .cert
            .tbs_certificate()
            .subject_public_key_info()
            .to_der()
            .map_err(cert_err)?;
        CertPublicKey::from_spki_der(&spki)
    }

    pub fn subject(&self) -> &Name {
        self.cert.tbs_certificate().subject()
    }

    pub fn issuer(&self) -> &Name {
        self.cert.tbs_certificate().issuer()
    }

    /// Whether `now` lies in the validity period (both ends inclusive, §4.1.2.5).
    pub fn valid_at(&self, now: SystemTime) -> bool {
        let v = self.cert.tbs_certificate().validity();
        v.not_before.to_system_time() <= now && now <= v.not_after.to_system_time()
    }
}

/// Parses one DER certificate: the whole structure, the raw TBS bytes, and a signature
/// algorithm we support that agrees with the TBS's own (§4.1.1.2).
pub fn parse(der_bytes: &[u8]) -> Result<ParsedCert<'_>, Error> {
    let cert = Certificate::from_der(der_bytes).map_err(cert_err)?;
    if cert.signature_algorithm() != cert.tbs_certificate().signature() {
        return Err(cert_err(
            "signatureAlgorithm differs from the TBS signature",
        ));
    }
    let alg = CertSigAlg::from_algorithm_identifier(cert.signature_algorithm())?;
    let r = SliceReader::new(der_bytes).map_err(cert_err)?;
    let header = der::Header::peek(&r).map_err(cert_err)?;
    // Skip the outer SEQUENCE header; the next TLV is tbsCertificate.
    let hlen = usize::try_from(header.encoded_len().map_err(cert_err)?).map_err(cert_err)?;
    let mut inner = SliceReader::new(&der_bytes[hlen..]).map_err(cert_err)?;
    let tbs_der = inner.tlv_bytes().map_err(cert_err)?;
    Ok(ParsedCert { tbs_der, alg, cert })
}

/// PEM `CERTIFICATE` blocks (or one DER certificate) to DER, in order.
pub fn certificates_from_pem_or_der(input: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    let text = match core::str::from_utf8(input) {
        Ok(t) if t.contains("-----BEGIN") => t,
        _ => return Ok(vec![input.to_vec()]),
    };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN") {
        let block = &rest[start..];
        let end_marker = block
            .find("-----END")
            .ok_or_else(|| cert_err("PEM block without END line"))?;
        let end = block[end_marker..]
            .find('\n')
            .map_or(block.len(), |i| end_marker + i + 1);
        let (label, der_bytes) =
            der::pem::decode_vec(&block.as_bytes()[..end]).map_err(cert_err)?;
        if label != "CERTIFICATE" {
            return Err(cert_err(format!("unexpected PEM label {label:?}")));
        }
        out.push(der_bytes);
        rest = &block[end..];
    }
    if out.is_empty() {
        return Err(cert_err("no CERTIFICATE in the PEM input"));
    }
    Ok(out)
}

/// `CERTIFICATE` PEM of a DER certificate.
pub fn to_pem(der_bytes: &[u8]) -> Result<String, Error> {
    der::pem::encode_string("CERTIFICATE", der::pem::LineEnding::LF, der_bytes).map_err(cert_err)
}

/// What [`issue_chain`] puts in the certificates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainOptions {
    /// The leaf's DNS name (its SubjectAltName and common name).
    pub server_name: String,
    /// Validity of every certificate.
    pub not_before: SystemTime,
    pub not_after: SystemTime,
}

impl Default for ChainOptions {
    /// `server.batchsig.test`, valid from an hour ago for 90 days.
    fn default() -> Self {
        let now = SystemTime::now();
        Self {
            server_name: "server.batchsig.test".into(),
            not_before: now - Duration::from_secs(3600),
            not_after: now + Duration::from_secs(90 * 86400),
        }
    }
}

fn time(t: SystemTime) -> Result<Time, Error> {
    match UtcTime::from_system_time(t) {
        Ok(u) => Ok(Time::UtcTime(u)),
        Err(_) => GeneralizedTime::from_system_time(t)
            .map(Time::GeneralTime)
            .map_err(cert_err),
    }
}

fn extension(
    value: &impl Encode,
    oid: ObjectIdentifier,
    critical: bool,
) -> Result<Extension, Error> {
    Ok(Extension {
        extn_id: oid,
        critical,
        extn_value: OctetString::new(value.to_der().map_err(cert_err)?).map_err(cert_err)?,
    })
}

/// `TBSCertificate` as issued here (RFC 5280 §4.1; x509-cert 0.3 builds its own type only
/// through its profile-driven builder, which adds extensions of its own): v3, no unique IDs.
#[derive(der::Sequence)]
struct TbsOut {
    #[asn1(context_specific = "0", default = "Default::default")]
    version: Version,
    serial_number: SerialNumber,
    signature: AlgorithmIdentifierOwned,
    issuer: Name,
    validity: Validity,
    subject: Name,
    subject_public_key_info: SubjectPublicKeyInfoOwned,
    #[asn1(context_specific = "3", tag_mode = "EXPLICIT", optional = "true")]
    extensions: Option<x509_cert::ext::Extensions>,
}

/// `Certificate` (RFC 5280 §4.1) around a [`TbsOut`].
#[derive(der::Sequence)]
struct CertOut {
    tbs_certificate: TbsOut,
    signature_algorithm: AlgorithmIdentifierOwned,
    signature: BitString,
}

/// RFC 7093 §2 method 1: the leftmost 160 bits of the SHA-256 of the subjectPublicKey bits.
fn key_id(spki: &SubjectPublicKeyInfoOwned) -> Result<OctetString, Error> {
    let digest = HashAlg::Sha256.digest(spki.subject_public_key.raw_bytes());
    OctetString::new(&digest[..20]).map_err(cert_err)
}

/// Issues `leaf`'s chain: `issuers` are the intermediates, leaf side first, then the root
/// (self-signed). Returns the certificates the server sends (the leaf, then each
/// intermediate) and the root certificate (the clients' trust anchor). Signs on `backend`
/// (CA work, one certificate at a time).
pub fn issue_chain(
    backend: &dyn Backend,
    leaf: &ServerKey,
    issuers: &[ServerKey],
    options: &ChainOptions,
    rng: &mut ChaCha20Rng,
) -> Result<(Vec<Vec<u8>>, Vec<u8>), Error> {
    let Some(root_level) = issuers.len().checked_sub(1) else {
        return Err(cert_err("a chain needs at least a root issuer"));
    };
    let validity = Validity::new(time(options.not_before)?, time(options.not_after)?);
    let name = |level: usize| -> Result<Name, Error> {
        let cn = match level {
            0 => options.server_name.clone(),
            l if l == root_level + 1 => "batchsig test root CA".to_string(),
            l => format!("batchsig test intermediate CA {l}"),
        };
        Name::from_str(&format!("CN={cn}")).map_err(cert_err)
    };
    // Level 0 is the leaf, level i ≥ 1 is issuers[i − 1]; level i is signed by level i + 1,
    // the root (level issuers.len()) by itself.
    let mut certs = Vec::with_capacity(issuers.len() + 1);
    for level in 0..=issuers.len() {
        let subject_key = if level == 0 {
            leaf
        } else {
            &issuers[level - 1]
        };
        let signer = &issuers[(level).min(root_level)];
        let alg = CertSigAlg::for_issuer(signer);
        let spki =
            SubjectPublicKeyInfoOwned::from_der(&subject_key.spki_der()?).map_err(cert_err)?;
        let issuer_spki =
            SubjectPublicKeyInfoOwned::from_der(&signer.spki_der()?).map_err(cert_err)?;
        let mut extensions = vec![extension(
            &BasicConstraints {
                ca: level > 0,
                path_len_constraint: None,
            },
            BasicConstraints::OID,
            true,
        )?];
        let usage = if level == 0 {
            KeyUsages::DigitalSignature.into()
        } else {
            KeyUsages::KeyCertSign | KeyUsages::CRLSign
        };
        extensions.push(extension(&KeyUsage(usage), KeyUsage::OID, true)?);
        extensions.push(extension(
            &SubjectKeyIdentifier(key_id(&spki)?),
            SubjectKeyIdentifier::OID,
            false,
        )?);
        extensions.push(extension(
            &AuthorityKeyIdentifier {
                key_identifier: Some(key_id(&issuer_spki)?),
                authority_cert_issuer: None,
                authority_cert_serial_number: None,
            },
            AuthorityKeyIdentifier::OID,
            false,
        )?);
        if level == 0 {
            let dns = Ia5String::new(&options.server_name).map_err(cert_err)?;
            extensions.push(extension(
                &SubjectAltName(vec![GeneralName::DnsName(dns)]),
                SubjectAltName::OID,
                false,
            )?);
        }
        let issuer_level = if level == issuers.len() {
            level
        } else {
            level + 1
        };
        let tbs = TbsOut {
            version: Version::V3,
            serial_number: SerialNumber::new(&[0x10, level as u8 + 1]).map_err(cert_err)?,
            signature: alg.algorithm_identifier()?,
            issuer: name(issuer_level)?,
            validity,
            subject: name(level)?,
            subject_public_key_info: spki,
            extensions: Some(extensions),
        };
        let tbs_der = tbs.to_der().map_err(cert_err)?;
        let digest = alg.hash().digest(&tbs_der);
        let sig = sign_digests(backend, alg.sig_alg(), &[signer], &[&digest], rng)?
            .pop()
            .ok_or(Error::Backend("signing returned no result".into()))??;
        let cert = CertOut {
            tbs_certificate: tbs,
            signature_algorithm: alg.algorithm_identifier()?,
            signature: BitString::from_bytes(&sig).map_err(cert_err)?,
        };
        let der = cert.to_der().map_err(cert_err)?;
        // What we wrote must read back as an RFC 5280 certificate.
        Certificate::from_der(&der).map_err(cert_err)?;
        certs.push(der);
    }
    let root = certs.pop().expect("at least the root");
    Ok((certs, root))
}
