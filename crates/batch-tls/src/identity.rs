//! The server's identity — its signing key and certificate chain — and the batched signing
//! and verification of the simulation's signatures.

use batch_core::{Backend, Curve, Error, JobResult};
use batchsig::ecdsa::{
    self, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignJob, EcdsaSignature, EcdsaVerifyJob, NonceMode,
};
use batchsig::rsa::{self, RsaPrivateKey, RsaPublicKey, RsaScheme, RsaSignJob, RsaVerifyJob};
use batchsig::HashAlg;
use rand_chacha::ChaCha20Rng;
use rand_core::CryptoRng;

use crate::x509::{self, ChainOptions};
use crate::Suite;

const RSA_ENCRYPTION: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");

/// A certificate's public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertPublicKey {
    Rsa(RsaPublicKey),
    Ecdsa(EcdsaPublicKey),
}

impl CertPublicKey {
    /// A `SubjectPublicKeyInfo` (DER): `rsaEncryption` or `id-ecPublicKey` on a supported
    /// curve.
    pub fn from_spki_der(der_bytes: &[u8]) -> Result<Self, Error> {
        use der::Decode;
        let spki = spki::SubjectPublicKeyInfoRef::from_der(der_bytes)
            .map_err(|e| Error::InvalidKey(format!("SubjectPublicKeyInfo: {e}")))?;
        if spki.algorithm.oid == RSA_ENCRYPTION {
            RsaPublicKey::from_spki_der(der_bytes).map(CertPublicKey::Rsa)
        } else {
            EcdsaPublicKey::from_pem_or_der(der_bytes).map(CertPublicKey::Ecdsa)
        }
    }

    /// The suite this key signs CertificateVerify with (RSA below
    /// [`Suite::MIN_RSA_BITS`] is refused).
    pub fn suite(&self) -> Result<Suite, Error> {
        match self {
            CertPublicKey::Rsa(k) if k.bits() < Suite::MIN_RSA_BITS => {
                Err(Error::InvalidKey(format!(
                    "RSA-{} certificate key: at least {} bits required",
                    k.bits(),
                    Suite::MIN_RSA_BITS
                )))
            }
            CertPublicKey::Rsa(k) => Ok(Suite::RsaPss(k.bits())),
            CertPublicKey::Ecdsa(k) => {
                let s = Suite::Ecdsa(k.curve());
                s.check()?;
                Ok(s)
            }
        }
    }
}

/// The server's (or a CA's) signing key.
#[derive(Clone, Debug)]
pub enum ServerKey {
    Rsa(RsaPrivateKey),
    Ecdsa(EcdsaPrivateKey),
}

impl ServerKey {
    /// An RSA (`RSA PRIVATE KEY`, `PRIVATE KEY`) or EC (`EC PRIVATE KEY`, `PRIVATE KEY`) key,
    /// PEM or DER, at least [`Suite::MIN_RSA_BITS`] for RSA.
    pub fn from_pem_or_der(input: &[u8]) -> Result<Self, Error> {
        let key = match RsaPrivateKey::from_pem_or_der(input) {
            Ok(k) => ServerKey::Rsa(k),
            Err(rsa_err) => match EcdsaPrivateKey::from_pem_or_der(input) {
                Ok(k) => ServerKey::Ecdsa(k),
                Err(ec_err) => {
                    return Err(Error::InvalidKey(format!(
                        "neither an RSA key ({rsa_err}) nor an EC key ({ec_err})"
                    )))
                }
            },
        };
        key.public().suite()?;
        Ok(key)
    }

    /// A fresh key for `suite` (RSA key generation takes seconds for large sizes).
    pub fn generate(suite: Suite, rng: &mut impl CryptoRng) -> Result<Self, Error> {
        suite.check()?;
        match suite {
            Suite::RsaPss(bits) => RsaPrivateKey::generate(rng, bits).map(ServerKey::Rsa),
            Suite::Ecdsa(curve) => EcdsaPrivateKey::generate(curve, rng).map(ServerKey::Ecdsa),
        }
    }

    /// The suite this key signs CertificateVerify with.
    pub fn suite(&self) -> Suite {
        match self {
            ServerKey::Rsa(k) => Suite::RsaPss(k.public_key().bits()),
            ServerKey::Ecdsa(k) => Suite::Ecdsa(k.curve()),
        }
    }

    pub fn public(&self) -> CertPublicKey {
        match self {
            ServerKey::Rsa(k) => CertPublicKey::Rsa(k.public_key().clone()),
            ServerKey::Ecdsa(k) => CertPublicKey::Ecdsa(*k.public_key()),
        }
    }

    /// The public key as `SubjectPublicKeyInfo` DER.
    pub fn spki_der(&self) -> Result<Vec<u8>, Error> {
        let pem = match self {
            ServerKey::Rsa(k) => k.public_key().to_public_key_pem()?,
            ServerKey::Ecdsa(k) => k.public_key().to_public_key_pem()?,
        };
        Ok(batchsig::encoding::pem_or_der(pem.as_bytes())?.1)
    }

    /// The issuers [`ServerIdentity::generate`] makes for this leaf: an RSA-2048
    /// intermediate and root for RSA, P-384 ones for P-256 and P-384, P-521 ones for P-521.
    pub fn default_issuer_suite(&self) -> Suite {
        match self {
            ServerKey::Rsa(_) => Suite::RsaPss(2048),
            ServerKey::Ecdsa(k) if k.curve() == Curve::P521 => Suite::Ecdsa(Curve::P521),
            ServerKey::Ecdsa(_) => Suite::Ecdsa(Curve::P384),
        }
    }
}

/// What the server presents and the clients trust: the signing key, the chain it sends
/// (DER, leaf first) and the root certificate its clients hold.
#[derive(Clone, Debug)]
pub struct ServerIdentity {
    key: ServerKey,
    chain: Vec<Vec<u8>>,
    trust_anchor: Vec<u8>,
}

impl ServerIdentity {
    /// Checks that every certificate parses with a supported algorithm, the leaf's key is
    /// `key`'s public key, and the chain has at least the leaf. The chain's signatures are
    /// not checked here: that is the clients' work.
    pub fn new(key: ServerKey, chain: Vec<Vec<u8>>, trust_anchor: Vec<u8>) -> Result<Self, Error> {
        let leaf = chain
            .first()
            .ok_or_else(|| Error::InvalidKey("empty certificate chain".into()))?;
        for c in chain.iter().chain([&trust_anchor]) {
            x509::parse(c)?;
        }
        if x509::parse(leaf)?.public_key()? != key.public() {
            return Err(Error::InvalidKey(
                "the leaf certificate's key is not the server key".into(),
            ));
        }
        Ok(Self {
            key,
            chain,
            trust_anchor,
        })
    }

    /// `chain`: the certificates the server sends (PEM blocks, leaf first); `key`: its
    /// private key (PEM or DER); `root`: the certificate the clients trust.
    pub fn from_pem(chain: &[u8], key: &[u8], root: &[u8]) -> Result<Self, Error> {
        let root = x509::certificates_from_pem_or_der(root)?;
        if root.len() != 1 {
            return Err(Error::InvalidKey(format!(
                "{} trust anchors given, expected one",
                root.len()
            )));
        }
        Self::new(
            ServerKey::from_pem_or_der(key)?,
            x509::certificates_from_pem_or_der(chain)?,
            root.into_iter().next().expect("one"),
        )
    }

    /// `key` under freshly generated issuers of [`ServerKey::default_issuer_suite`] (an
    /// intermediate and a root), with [`ChainOptions::default`].
    pub fn generate(
        backend: &dyn Backend,
        key: ServerKey,
        rng: &mut impl CryptoRng,
    ) -> Result<Self, Error> {
        let suite = key.default_issuer_suite();
        let issuers = [
            ServerKey::generate(suite, rng)?,
            ServerKey::generate(suite, rng)?,
        ];
        Self::issue(backend, key, &issuers, &ChainOptions::default(), rng)
    }

    /// `key` under the given issuers (intermediates leaf side first, the root last).
    pub fn issue(
        backend: &dyn Backend,
        key: ServerKey,
        issuers: &[ServerKey],
        options: &ChainOptions,
        rng: &mut impl CryptoRng,
    ) -> Result<Self, Error> {
        use rand_core::SeedableRng;
        let mut rng = ChaCha20Rng::from_rng(rng);
        let (chain, root) = x509::issue_chain(backend, &key, issuers, options, &mut rng)?;
        Self::new(key, chain, root)
    }

    pub fn key(&self) -> &ServerKey {
        &self.key
    }

    /// The suite of the server key.
    pub fn suite(&self) -> Suite {
        self.key.suite()
    }

    /// The certificates sent, DER, leaf first.
    pub fn chain(&self) -> &[Vec<u8>] {
        &self.chain
    }

    /// The root certificate (DER) the clients trust.
    pub fn trust_anchor(&self) -> &[u8] {
        &self.trust_anchor
    }

    /// The chain as PEM (leaf first) and the root as PEM.
    pub fn to_pem(&self) -> Result<(String, String), Error> {
        let chain = self
            .chain
            .iter()
            .map(|c| x509::to_pem(c))
            .collect::<Result<String, Error>>()?;
        Ok((chain, x509::to_pem(&self.trust_anchor)?))
    }
}

/// A signature algorithm with its hash. RSA: CertificateVerify is PSS with a salt as long as
/// the hash (RFC 8446 §4.2.3), certificates PKCS#1 v1.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SigAlg {
    RsaPss(HashAlg),
    RsaPkcs1(HashAlg),
    Ecdsa(HashAlg),
}

impl SigAlg {
    pub(crate) fn certificate_verify(suite: Suite) -> Self {
        match suite {
            Suite::Ecdsa(_) => SigAlg::Ecdsa(suite.signature_hash()),
            Suite::RsaPss(_) => SigAlg::RsaPss(suite.signature_hash()),
        }
    }

    pub(crate) fn hash(self) -> HashAlg {
        match self {
            SigAlg::RsaPss(h) | SigAlg::RsaPkcs1(h) | SigAlg::Ecdsa(h) => h,
        }
    }

    fn rsa_scheme(self) -> Option<RsaScheme> {
        match self {
            SigAlg::RsaPss(h) => Some(RsaScheme::pss_with(h, h, Some(h.output_len()))),
            SigAlg::RsaPkcs1(h) => Some(RsaScheme::pkcs1v15(h)),
            SigAlg::Ecdsa(_) => None,
        }
    }
}

/// Signs digests in one batch (keys may differ); signatures encoded as TLS and X.509 carry
/// them (RSA big-endian, ECDSA DER).
pub(crate) fn sign_digests(
    backend: &dyn Backend,
    alg: SigAlg,
    keys: &[&ServerKey],
    digests: &[&[u8]],
    rng: &mut ChaCha20Rng,
) -> Result<Vec<JobResult<Vec<u8>>>, Error> {
    let mismatch = || Error::InvalidKey("signing key does not match the signature scheme".into());
    match alg.rsa_scheme() {
        Some(scheme) => {
            let jobs = keys
                .iter()
                .zip(digests)
                .map(|(k, d)| match k {
                    ServerKey::Rsa(key) => Ok(RsaSignJob { key, digest: d }),
                    ServerKey::Ecdsa(_) => Err(mismatch()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            rsa::sign_batch(backend, scheme, &jobs, rng)
        }
        None => {
            let jobs = keys
                .iter()
                .zip(digests)
                .map(|(k, d)| match k {
                    ServerKey::Ecdsa(key) => Ok(EcdsaSignJob { key, digest: d }),
                    ServerKey::Rsa(_) => Err(mismatch()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(
                ecdsa::sign_batch(backend, alg.hash(), &jobs, NonceMode::Hedged, rng)?
                    .into_iter()
                    .map(|r| r.map(|s| s.to_der()))
                    .collect(),
            )
        }
    }
}

/// Verifies `(key, digest, encoded signature)` jobs in one batch; a key of the wrong type or
/// an undecodable signature fails only its job.
pub(crate) fn verify_digests(
    backend: &dyn Backend,
    alg: SigAlg,
    jobs: &[(&CertPublicKey, &[u8], &[u8])],
) -> Result<Vec<JobResult<()>>, Error> {
    let mismatch = || Error::InvalidKey("public key does not match the signature scheme".into());
    let mut out: Vec<JobResult<()>> = vec![Err(mismatch()); jobs.len()];
    let mut idx = Vec::new();
    match alg.rsa_scheme() {
        Some(scheme) => {
            let mut batch = Vec::new();
            for (i, (k, d, s)) in jobs.iter().enumerate() {
                if let CertPublicKey::Rsa(key) = k {
                    idx.push(i);
                    batch.push(RsaVerifyJob {
                        key,
                        digest: d,
                        signature: s,
                    });
                }
            }
            if !batch.is_empty() {
                for (&i, r) in idx.iter().zip(rsa::verify_batch(backend, scheme, &batch)?) {
                    out[i] = r;
                }
            }
        }
        None => {
            let mut parsed = Vec::new();
            for (i, (k, _, s)) in jobs.iter().enumerate() {
                if let CertPublicKey::Ecdsa(key) = k {
                    match EcdsaSignature::from_der(key.curve(), s) {
                        Ok(sig) => {
                            idx.push(i);
                            parsed.push((key, sig));
                        }
                        Err(e) => out[i] = Err(e),
                    }
                }
            }
            let batch: Vec<EcdsaVerifyJob<'_>> = idx
                .iter()
                .zip(&parsed)
                .map(|(&i, (key, sig))| EcdsaVerifyJob {
                    key,
                    digest: jobs[i].1,
                    signature: sig,
                })
                .collect();
            if !batch.is_empty() {
                for (&i, r) in idx
                    .iter()
                    .zip(ecdsa::verify_batch(backend, alg.hash(), &batch)?)
                {
                    out[i] = r;
                }
            }
        }
    }
    Ok(out)
}
