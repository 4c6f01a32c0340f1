//! The handshake batch: setup, then three flights, each a few batched steps on the backend.
//!
//! State per handshake is what each side sent and what the other side received (they differ
//! only where [`Corruption`] flips a byte in flight), the ephemeral scalars (canonical
//! [`EcUint`], zeroized on drop), the transcript hashes and shared secrets of each side, and
//! the first failure. A failed handshake is aborted: later steps leave it out, as a real peer
//! sends an alert and stops. Costs are per handshake that entered the step.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;
use zeroize::Zeroizing;

use super::report::{SideReport, StepCost, TlsSimReport};
use super::wire::{self, SyntheticCert};
use super::{Corruption, Side, Suite, TlsSimConfig};
use crate::ecdsa::{
    self, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignJob, EcdsaSignature, EcdsaVerifyJob, NonceMode,
};
use crate::hash::HashAlg;
use crate::rsa::{
    self, RsaPadding, RsaPrivateKey, RsaPublicKey, RsaScheme, RsaSignJob, RsaVerifyJob,
};

/// Where in the handshake a failure was detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Making the own key share (`k·G` failed its on-curve check).
    KeyShare,
    /// Validating the peer's key share or computing `k·Q`.
    Ecdh,
    /// Signing CertificateVerify.
    Sign,
    /// Parsing the certificates or verifying an issuer's signature.
    Chain,
    /// Parsing or verifying CertificateVerify.
    CertificateVerify,
    /// Comparing the two sides' shared secrets.
    SharedSecret,
}

impl Step {
    pub const fn name(self) -> &'static str {
        match self {
            Step::KeyShare => "key share",
            Step::Ecdh => "ECDH",
            Step::Sign => "sign",
            Step::Chain => "chain",
            Step::CertificateVerify => "CertificateVerify",
            Step::SharedSecret => "shared secret",
        }
    }
}

/// Why one handshake failed: the first check it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The handshake's index in the batch.
    pub index: usize,
    /// The side that detected it.
    pub side: Side,
    pub step: Step,
    pub error: Error,
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "handshake {}: {} {} failed: {}",
            self.index,
            self.side,
            self.step.name(),
            self.error
        )
    }
}

/// A certificate's public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertPublicKey {
    Rsa(RsaPublicKey),
    Ecdsa(EcdsaPublicKey),
}

impl CertPublicKey {
    const RSA: u8 = 1;
    const EC: u8 = 2;

    /// The encoding in the synthetic certificates: PKCS#1 `RSAPublicKey` DER for RSA, SEC 1
    /// uncompressed point for ECDSA.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        match self {
            CertPublicKey::Rsa(k) => k.to_pkcs1_der(),
            CertPublicKey::Ecdsa(k) => Ok(k.to_sec1_bytes()),
        }
    }

    fn key_type(&self) -> u8 {
        match self {
            CertPublicKey::Rsa(_) => Self::RSA,
            CertPublicKey::Ecdsa(_) => Self::EC,
        }
    }

    fn decode(key_type: u8, bytes: &[u8], curve: Option<Curve>) -> Result<Self, Error> {
        match (key_type, curve) {
            (Self::RSA, None) => Ok(CertPublicKey::Rsa(RsaPublicKey::from_pkcs1_der(bytes)?)),
            (Self::EC, Some(c)) => Ok(CertPublicKey::Ecdsa(EcdsaPublicKey::from_sec1_bytes(
                c, bytes,
            )?)),
            _ => Err(Error::InvalidKey(
                "certificate key type does not match the suite".into(),
            )),
        }
    }
}

/// A signing key of the simulated PKI.
#[derive(Clone, Debug)]
enum SigningKey {
    Rsa(RsaPrivateKey),
    Ecdsa(EcdsaPrivateKey),
}

impl SigningKey {
    fn public(&self) -> CertPublicKey {
        match self {
            SigningKey::Rsa(k) => CertPublicKey::Rsa(k.public_key().clone()),
            SigningKey::Ecdsa(k) => CertPublicKey::Ecdsa(*k.public_key()),
        }
    }
}

/// A signature algorithm with its hash; RSA signing uses the scheme as is, verification
/// requires a PSS salt as long as the hash (RFC 8446 §4.2.3).
#[derive(Clone, Copy, Debug)]
enum SigAlg {
    Rsa(RsaScheme),
    Ecdsa(Curve, HashAlg),
}

impl SigAlg {
    fn certificate_verify(suite: Suite) -> Self {
        match suite.ecdsa_curve() {
            Some(c) => SigAlg::Ecdsa(c, suite.signature_hash()),
            None => SigAlg::Rsa(RsaScheme::pss(suite.signature_hash())),
        }
    }

    fn certificate(suite: Suite) -> Self {
        match suite.ecdsa_curve() {
            Some(c) => SigAlg::Ecdsa(c, suite.signature_hash()),
            None => SigAlg::Rsa(RsaScheme::pkcs1v15(suite.signature_hash())),
        }
    }

    fn hash(self) -> HashAlg {
        match self {
            SigAlg::Rsa(s) => s.hash,
            SigAlg::Ecdsa(_, h) => h,
        }
    }
}

/// Signs digests in one batch (keys may differ); signatures encoded as TLS sends them (RSA
/// big-endian, ECDSA DER).
fn sign_digests(
    backend: &dyn Backend,
    alg: SigAlg,
    keys: &[&SigningKey],
    digests: &[&[u8]],
    rng: &mut ChaCha20Rng,
) -> Result<Vec<JobResult<Vec<u8>>>, Error> {
    let mismatch = || Error::InvalidKey("signing key does not match the signature scheme".into());
    match alg {
        SigAlg::Rsa(scheme) => {
            let jobs = keys
                .iter()
                .zip(digests)
                .map(|(k, d)| match k {
                    SigningKey::Rsa(key) => Ok(RsaSignJob { key, digest: d }),
                    SigningKey::Ecdsa(_) => Err(mismatch()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            rsa::sign_batch(backend, scheme, &jobs, rng)
        }
        SigAlg::Ecdsa(curve, hash) => {
            let jobs = keys
                .iter()
                .zip(digests)
                .map(|(k, d)| match k {
                    SigningKey::Ecdsa(key) if key.curve() == curve => {
                        Ok(EcdsaSignJob { key, digest: d })
                    }
                    _ => Err(mismatch()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(
                ecdsa::sign_batch(backend, hash, &jobs, NonceMode::Hedged, rng)?
                    .into_iter()
                    .map(|r| r.map(|s| s.to_der()))
                    .collect(),
            )
        }
    }
}

/// Verifies `(key, digest, encoded signature)` jobs in one batch; a key of the wrong type or
/// an undecodable signature fails only its job.
fn verify_digests(
    backend: &dyn Backend,
    alg: SigAlg,
    jobs: &[(&CertPublicKey, &[u8], &[u8])],
) -> Result<Vec<JobResult<()>>, Error> {
    let mismatch = || Error::InvalidKey("public key does not match the signature scheme".into());
    let mut out: Vec<JobResult<()>> = vec![Err(mismatch()); jobs.len()];
    match alg {
        SigAlg::Rsa(scheme) => {
            let scheme = match scheme.padding {
                RsaPadding::Pss { .. } => RsaScheme {
                    padding: RsaPadding::Pss {
                        salt_len: Some(scheme.hash.output_len()),
                    },
                    hash: scheme.hash,
                },
                RsaPadding::Pkcs1v15 => scheme,
            };
            let mut idx = Vec::new();
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
                for (i, r) in idx
                    .into_iter()
                    .zip(rsa::verify_batch(backend, scheme, &batch)?)
                {
                    out[i] = r;
                }
            }
        }
        SigAlg::Ecdsa(curve, hash) => {
            let mut idx = Vec::new();
            let mut parsed = Vec::new();
            for (i, (k, _, s)) in jobs.iter().enumerate() {
                match k {
                    CertPublicKey::Ecdsa(key) if key.curve() == curve => {
                        match EcdsaSignature::from_der(curve, s) {
                            Ok(sig) => {
                                idx.push(i);
                                parsed.push((key, sig));
                            }
                            Err(e) => out[i] = Err(e),
                        }
                    }
                    _ => {}
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
                for (i, r) in idx.iter().zip(ecdsa::verify_batch(backend, hash, &batch)?) {
                    out[*i] = r;
                }
            }
        }
    }
    Ok(out)
}

/// A uniform scalar in `[1, n)` by rejection sampling.
fn random_scalar(curve: Curve, rng: &mut ChaCha20Rng) -> EcUint {
    let fb = curve.field_bytes();
    let mut buf = Zeroizing::new(vec![0u8; fb]);
    let n = curve.order();
    loop {
        rng.fill_bytes(&mut buf);
        buf[0] &= 0xff >> (8 * fb - curve.bits());
        let k = EcUint::from_be_bytes(&buf).expect("field-size bytes fit the seam");
        if !k.is_zero_vartime() && k.cmp_vartime(&n) == core::cmp::Ordering::Less {
            return k;
        }
    }
}

/// SEC 1 uncompressed encoding of a key share, with the fault check on the backend's `k·G`.
fn encode_share(curve: Curve, p: JobResult<AffinePoint>) -> JobResult<Vec<u8>> {
    let p = p?;
    if p.infinity || !curve.is_on_curve_vartime(&p) {
        return Err(Error::FaultDetected(
            "k·G result is not a point on the curve",
        ));
    }
    let fb = curve.field_bytes();
    let mut out = vec![4u8; 1 + 2 * fb];
    p.x.write_be_bytes(&mut out[1..1 + fb]);
    p.y.write_be_bytes(&mut out[1 + fb..]);
    Ok(out)
}

/// A peer's key share: uncompressed (RFC 8446 §4.2.8.2), on the curve, not the identity.
fn decode_share(curve: Curve, bytes: &[u8]) -> JobResult<AffinePoint> {
    if bytes.len() != 1 + 2 * curve.field_bytes() || bytes[0] != 4 {
        return Err(Error::InvalidKey(format!(
            "key share is not an uncompressed {curve} point"
        )));
    }
    EcdsaPublicKey::from_sec1_bytes(curve, bytes)
        .map(|k| *k.point())
        .map_err(|_| Error::PointNotOnCurve { curve })
}

/// The ECDHE shared secret: the x-coordinate of `k·Q`, field-size big-endian (§7.4.2).
fn shared_x(curve: Curve, p: JobResult<AffinePoint>) -> JobResult<Vec<u8>> {
    let p = p?;
    if p.infinity || !curve.is_on_curve_vartime(&p) {
        return Err(Error::FaultDetected(
            "k·Q result is not a point on the curve",
        ));
    }
    let mut out = vec![0u8; curve.field_bytes()];
    p.x.write_be_bytes(&mut out);
    Ok(out)
}

fn check_len<T>(what: &str, got: &[T], want: usize) -> Result<(), Error> {
    if got.len() != want {
        return Err(Error::Backend(format!(
            "{what} returned {} results for {want} jobs",
            got.len()
        )));
    }
    Ok(())
}

fn flip(msg: &[u8], at: usize) -> Vec<u8> {
    let mut m = msg.to_vec();
    let at = at.min(m.len().saturating_sub(1));
    if let Some(b) = m.get_mut(at) {
        *b ^= 0x01;
    }
    m
}

/// One handshake: what each side sent and received, its secrets and its outcome.
#[derive(Clone)]
pub struct Handshake {
    index: usize,
    curve: Curve,
    corruption: Option<Corruption>,
    client_scalar: Option<Zeroizing<EcUint>>,
    server_scalar: Option<Zeroizing<EcUint>>,
    client_hello: Vec<u8>,
    client_hello_rx: Option<Vec<u8>>,
    server_hello: Vec<u8>,
    server_hello_rx: Option<Vec<u8>>,
    certificate: Arc<Vec<u8>>,
    certificate_rx: Option<Vec<u8>>,
    certificate_verify: Vec<u8>,
    certificate_verify_rx: Option<Vec<u8>>,
    server_transcript_hash: Vec<u8>,
    client_transcript_hash: Vec<u8>,
    server_secret: Option<Vec<u8>>,
    client_secret: Option<Vec<u8>>,
    failure: Option<Failure>,
}

impl core::fmt::Debug for Handshake {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handshake")
            .field("index", &self.index)
            .field("corruption", &self.corruption)
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}

impl Handshake {
    fn new(index: usize, curve: Curve, certificate: Arc<Vec<u8>>) -> Self {
        Self {
            index,
            curve,
            corruption: None,
            client_scalar: None,
            server_scalar: None,
            client_hello: Vec::new(),
            client_hello_rx: None,
            server_hello: Vec::new(),
            server_hello_rx: None,
            certificate,
            certificate_rx: None,
            certificate_verify: Vec::new(),
            certificate_verify_rx: None,
            server_transcript_hash: Vec::new(),
            client_transcript_hash: Vec::new(),
            server_secret: None,
            client_secret: None,
            failure: None,
        }
    }

    fn fail(&mut self, side: Side, step: Step, error: Error) {
        if self.failure.is_none() {
            self.failure = Some(Failure {
                index: self.index,
                side,
                step,
                error,
            });
        }
    }

    pub fn index(&self) -> usize {
        self.index
    }

    /// The corruption applied in flight, if any.
    pub fn corruption(&self) -> Option<Corruption> {
        self.corruption
    }

    /// The first check this handshake failed, if any.
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// Completed with every check passed (false until the client's flight has run).
    pub fn succeeded(&self) -> bool {
        self.failure.is_none()
            && self.client_secret.is_some()
            && !self.client_transcript_hash.is_empty()
    }

    /// ClientHello as the client sent it (empty before [`TlsBatch::client_hello`]).
    pub fn client_hello(&self) -> &[u8] {
        &self.client_hello
    }

    /// ClientHello as the server received it.
    pub fn client_hello_received(&self) -> &[u8] {
        self.client_hello_rx
            .as_deref()
            .unwrap_or(&self.client_hello)
    }

    /// ServerHello as the server sent it (empty before [`TlsBatch::server_flight`] or if the
    /// server aborted).
    pub fn server_hello(&self) -> &[u8] {
        &self.server_hello
    }

    /// ServerHello as the client received it.
    pub fn server_hello_received(&self) -> &[u8] {
        self.server_hello_rx
            .as_deref()
            .unwrap_or(&self.server_hello)
    }

    /// EncryptedExtensions (the same for every handshake).
    pub fn encrypted_extensions(&self) -> Vec<u8> {
        wire::encrypted_extensions()
    }

    /// The Certificate message as the server sent it.
    pub fn certificate(&self) -> &[u8] {
        &self.certificate
    }

    /// The Certificate message as the client received it.
    pub fn certificate_received(&self) -> &[u8] {
        self.certificate_rx.as_deref().unwrap_or(&self.certificate)
    }

    /// CertificateVerify as the server sent it (empty if not signed).
    pub fn certificate_verify(&self) -> &[u8] {
        &self.certificate_verify
    }

    /// CertificateVerify as the client received it.
    pub fn certificate_verify_received(&self) -> &[u8] {
        self.certificate_verify_rx
            .as_deref()
            .unwrap_or(&self.certificate_verify)
    }

    /// The signature the server sent in CertificateVerify (RSA: big-endian, modulus size;
    /// ECDSA: DER), if it signed.
    pub fn certificate_verify_signature(&self) -> Option<&[u8]> {
        wire::parse_certificate_verify(&self.certificate_verify)
            .ok()
            .map(|(_, s)| s)
    }

    /// The server's transcript hash (ClientHello ‖ ServerHello ‖ EncryptedExtensions ‖
    /// Certificate as it saw them); empty if it did not get that far.
    pub fn server_transcript_hash(&self) -> &[u8] {
        &self.server_transcript_hash
    }

    /// The client's transcript hash, over what it sent and received.
    pub fn client_transcript_hash(&self) -> &[u8] {
        &self.client_transcript_hash
    }

    /// What the server signed: the RFC 8446 §4.4.3 content over its transcript hash.
    pub fn certificate_verify_content(&self) -> Option<Vec<u8>> {
        (!self.server_transcript_hash.is_empty())
            .then(|| wire::certificate_verify_content(&self.server_transcript_hash))
    }

    /// The ECDHE shared secret (x-coordinate) the server derived.
    pub fn server_shared_secret(&self) -> Option<&[u8]> {
        self.server_secret.as_deref()
    }

    /// The ECDHE shared secret the client derived.
    pub fn client_shared_secret(&self) -> Option<&[u8]> {
        self.client_secret.as_deref()
    }

    /// The client's ephemeral private scalar, big-endian (exposed for independent checks:
    /// this is a simulator).
    pub fn client_ephemeral_secret(&self) -> Option<Zeroizing<Vec<u8>>> {
        self.client_scalar.as_ref().map(|k| self.scalar_bytes(k))
    }

    /// The server's ephemeral private scalar, big-endian.
    pub fn server_ephemeral_secret(&self) -> Option<Zeroizing<Vec<u8>>> {
        self.server_scalar.as_ref().map(|k| self.scalar_bytes(k))
    }

    fn scalar_bytes(&self, k: &EcUint) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(vec![0u8; self.curve.field_bytes()]);
        k.write_be_bytes(&mut out);
        out
    }
}

/// Wall time and jobs of one step.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    elapsed: Duration,
    jobs: usize,
}

impl Slot {
    fn add(&mut self, elapsed: Duration, jobs: usize) {
        self.elapsed += elapsed;
        self.jobs += jobs;
    }

    fn per_job(&self) -> Duration {
        if self.jobs == 0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(self.elapsed.as_secs_f64() / self.jobs as f64)
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Times {
    key_share: Slot,
    ecdh: Slot,
    sign: Slot,
    verify: Slot,
    chain: Slot,
}

impl Times {
    fn side_report(&self, side: Side) -> SideReport {
        let per_handshake = StepCost {
            key_share: self.key_share.per_job(),
            ecdh: self.ecdh.per_job(),
            sign: self.sign.per_job(),
            verify: self.verify.per_job(),
            chain: self.chain.per_job(),
        };
        let elapsed = self.key_share.elapsed
            + self.ecdh.elapsed
            + self.sign.elapsed
            + self.verify.elapsed
            + self.chain.elapsed;
        SideReport {
            side,
            handshakes_per_sec: per_handshake.handshakes_per_sec(),
            per_handshake,
            elapsed,
        }
    }
}

/// Where the batch stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Setup,
    ClientHello,
    ServerFlight,
    Done,
}

/// `N` handshakes driven step by step. Each step method runs the steps before it if they
/// have not run, and does nothing if it already ran, so any call order is valid.
///
/// ```
/// use batchsig::tls::{Suite, TlsBatch, TlsSimConfig};
/// let backend = batchsig::backend::default_backend();
/// let mut batch = TlsBatch::new(&*backend, &TlsSimConfig::new(Suite::EcdsaP256, 4)).unwrap();
/// batch.client_hello().unwrap();     // client key shares
/// batch.server_flight().unwrap();    // server key shares, ECDH, CertificateVerify
/// batch.client_finish().unwrap();    // client ECDH, chain, CertificateVerify, secrets
/// assert!(batch.handshakes().iter().all(|h| h.succeeded()));
/// let report = batch.report();
/// assert_eq!(report.failed, 0);
/// ```
#[derive(Debug)]
pub struct TlsBatch<'a> {
    backend: &'a dyn Backend,
    config: TlsSimConfig,
    rng: ChaCha20Rng,
    server_key: SigningKey,
    chain: Vec<SyntheticCert>,
    trust_anchor: CertPublicKey,
    leaf_tbs_offset: usize,
    handshakes: Vec<Handshake>,
    stage: Stage,
    server: Times,
    client: Times,
}

impl<'a> TlsBatch<'a> {
    /// Checks the configuration and the backend, loads the server key, makes the issuer keys
    /// and signs the chain (CA work, not timed).
    pub fn new(backend: &'a dyn Backend, config: &TlsSimConfig) -> Result<Self, Error> {
        config.check()?;
        if let Availability::Unavailable(why) = backend.availability() {
            return Err(Error::Unavailable(why));
        }
        let mut rng = match config.seed {
            Some(s) => ChaCha20Rng::seed_from_u64(s),
            None => crate::batch::os_seeded_rng()?,
        };
        let suite = config.suite;
        let server_key = match (suite.rsa_bits(), suite.ecdsa_curve()) {
            (Some(bits), _) => SigningKey::Rsa(crate::test_keys::rsa(bits)),
            (None, Some(curve)) => SigningKey::Ecdsa(crate::test_keys::ecdsa(curve)),
            (None, None) => unreachable!("every suite is RSA or ECDSA"),
        };
        // keys[0] is the leaf, keys[i + 1] issues certificate i, keys[depth] is the root.
        let depth = config.chain_depth;
        let mut keys = vec![server_key.clone()];
        for _ in 0..depth {
            keys.push(match &server_key {
                SigningKey::Rsa(k) => SigningKey::Rsa(k.clone()),
                SigningKey::Ecdsa(k) => {
                    SigningKey::Ecdsa(EcdsaPrivateKey::generate(k.curve(), &mut rng)?)
                }
            });
        }
        let name = |level: usize| match level {
            0 => "CN=server.batchsig.test".to_string(),
            l if l == depth => "CN=batchsig test root CA".to_string(),
            l => format!("CN=batchsig test intermediate CA {l}"),
        };
        let mut chain = Vec::with_capacity(depth.max(1));
        for level in 0..depth.max(1) {
            let pk = keys[level].public();
            let issuer = if depth == 0 { name(0) } else { name(level + 1) };
            chain.push(SyntheticCert {
                tbs: wire::tbs(
                    level.min(255) as u8,
                    &name(level),
                    &issuer,
                    pk.key_type(),
                    &pk.to_bytes()?,
                ),
                sig_scheme: 0,
                signature: Vec::new(),
            });
        }
        if depth > 0 {
            let alg = SigAlg::certificate(suite);
            let digests: Vec<Vec<u8>> = chain.iter().map(|c| alg.hash().digest(&c.tbs)).collect();
            let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
            let signers: Vec<&SigningKey> = keys[1..].iter().collect();
            let sigs = sign_digests(backend, alg, &signers, &refs, &mut rng)?;
            for (cert, sig) in chain.iter_mut().zip(sigs) {
                cert.sig_scheme = suite.certificate_signature_scheme();
                cert.signature = sig?;
            }
        }
        let trust_anchor = keys[depth].public();
        let (certificate, leaf_tbs_offset) = wire::certificate(&chain);
        let certificate = Arc::new(certificate);
        let curve = config.kex.curve();
        let mut handshakes: Vec<Handshake> = (0..config.handshakes)
            .map(|i| Handshake::new(i, curve, Arc::clone(&certificate)))
            .collect();
        for (i, kind) in config.corruptions() {
            handshakes[i].corruption = Some(kind);
        }
        Ok(Self {
            backend,
            config: config.clone(),
            rng,
            server_key,
            chain,
            trust_anchor,
            leaf_tbs_offset,
            handshakes,
            stage: Stage::Setup,
            server: Times::default(),
            client: Times::default(),
        })
    }

    pub fn config(&self) -> &TlsSimConfig {
        &self.config
    }

    pub fn handshakes(&self) -> &[Handshake] {
        &self.handshakes
    }

    /// The server certificate's public key (the key that signs CertificateVerify).
    pub fn server_public_key(&self) -> CertPublicKey {
        self.server_key.public()
    }

    /// The key the client trusts: the root that signed the last certificate of the chain (the
    /// leaf key itself with a chain depth of 0).
    pub fn trust_anchor(&self) -> &CertPublicKey {
        &self.trust_anchor
    }

    /// The certificates the server sends, leaf first.
    pub fn chain(&self) -> &[SyntheticCert] {
        &self.chain
    }

    /// Client flight: one `mul_base` batch for the client key shares, then the ClientHellos.
    pub fn client_hello(&mut self) -> Result<(), Error> {
        if self.stage >= Stage::ClientHello {
            return Ok(());
        }
        let curve = self.config.kex.curve();
        let suite = self.config.suite;
        let n = self.handshakes.len();
        let t = Instant::now();
        let scalars = Zeroizing::new(
            (0..n)
                .map(|_| random_scalar(curve, &mut self.rng))
                .collect::<Vec<EcUint>>(),
        );
        let points = self.backend.mul_base(curve, &scalars)?;
        check_len("mul_base", &points, n)?;
        let shares: Vec<JobResult<Vec<u8>>> =
            points.into_iter().map(|p| encode_share(curve, p)).collect();
        self.client.key_share.add(t.elapsed(), n);
        for ((h, k), share) in self.handshakes.iter_mut().zip(scalars.iter()).zip(shares) {
            h.client_scalar = Some(Zeroizing::new(*k));
            match share {
                Ok(share) => {
                    let mut random = [0u8; 32];
                    self.rng.fill_bytes(&mut random);
                    h.client_hello = wire::client_hello(
                        &random,
                        suite.cipher_suite(),
                        self.config.kex.code(),
                        suite.signature_scheme(),
                        &share,
                    );
                    if h.corruption == Some(Corruption::ClientKeyShare) {
                        h.client_hello_rx = Some(flip(&h.client_hello, h.client_hello.len() - 1));
                    }
                }
                Err(e) => h.fail(Side::Client, Step::KeyShare, e),
            }
        }
        self.stage = Stage::ClientHello;
        Ok(())
    }

    /// Server flight: validate the client shares, one `mul_base` batch (server shares), one
    /// `mul_point` batch (ECDH), transcript hashes, one signing batch (CertificateVerify).
    pub fn server_flight(&mut self) -> Result<(), Error> {
        self.client_hello()?;
        if self.stage >= Stage::ServerFlight {
            return Ok(());
        }
        let curve = self.config.kex.curve();
        let group = self.config.kex.code();
        let suite = self.config.suite;
        let alive: Vec<usize> = (0..self.handshakes.len())
            .filter(|&i| self.handshakes[i].failure.is_none())
            .collect();

        // The client's key share: parse and validate (part of the ECDH step).
        let t = Instant::now();
        let peers: Vec<JobResult<AffinePoint>> = alive
            .par_iter()
            .map(|&i| {
                let share =
                    wire::client_hello_share(self.handshakes[i].client_hello_received(), group)
                        .map_err(|e| Error::InvalidKey(format!("ClientHello: {e}")))?;
                decode_share(curve, share)
            })
            .collect();
        let validate = t.elapsed();
        let mut ok = Vec::new();
        let mut peer_points = Vec::new();
        for (&i, p) in alive.iter().zip(peers) {
            match p {
                Ok(p) => {
                    ok.push(i);
                    peer_points.push(p);
                }
                Err(e) => self.handshakes[i].fail(Side::Server, Step::Ecdh, e),
            }
        }

        // Server key shares.
        let t = Instant::now();
        let scalars = Zeroizing::new(
            (0..ok.len())
                .map(|_| random_scalar(curve, &mut self.rng))
                .collect::<Vec<EcUint>>(),
        );
        let shares: Vec<JobResult<Vec<u8>>> = if ok.is_empty() {
            Vec::new()
        } else {
            let points = self.backend.mul_base(curve, &scalars)?;
            check_len("mul_base", &points, ok.len())?;
            points.into_iter().map(|p| encode_share(curve, p)).collect()
        };
        self.server.key_share.add(t.elapsed(), ok.len());

        // ECDH.
        let t = Instant::now();
        let secrets: Vec<JobResult<Vec<u8>>> = if ok.is_empty() {
            Vec::new()
        } else {
            let points = self.backend.mul_point(curve, &peer_points, &scalars)?;
            check_len("mul_point", &points, ok.len())?;
            points.into_iter().map(|p| shared_x(curve, p)).collect()
        };
        self.server.ecdh.add(validate + t.elapsed(), alive.len());

        // ServerHello and the Certificate message (not timed: message assembly).
        for (((&i, k), share), secret) in ok.iter().zip(scalars.iter()).zip(shares).zip(secrets) {
            let h = &mut self.handshakes[i];
            h.server_scalar = Some(Zeroizing::new(*k));
            let share = match share {
                Ok(s) => s,
                Err(e) => {
                    h.fail(Side::Server, Step::KeyShare, e);
                    continue;
                }
            };
            match secret {
                Ok(s) => h.server_secret = Some(s),
                Err(e) => {
                    h.fail(Side::Server, Step::Ecdh, e);
                    continue;
                }
            }
            let mut random = [0u8; 32];
            self.rng.fill_bytes(&mut random);
            h.server_hello = wire::server_hello(&random, suite.cipher_suite(), group, &share);
            match h.corruption {
                Some(Corruption::ServerKeyShare) => {
                    h.server_hello_rx = Some(flip(&h.server_hello, h.server_hello.len() - 1))
                }
                Some(Corruption::Certificate) => {
                    h.certificate_rx = Some(flip(
                        &h.certificate,
                        self.leaf_tbs_offset + wire::TBS_SUBJECT_OFFSET,
                    ))
                }
                _ => {}
            }
        }

        // CertificateVerify: transcript hash, §4.4.3 content, one signing batch.
        let signers: Vec<usize> = ok
            .iter()
            .copied()
            .filter(|&i| self.handshakes[i].failure.is_none())
            .collect();
        let t = Instant::now();
        let alg = SigAlg::certificate_verify(suite);
        let ee = wire::encrypted_extensions();
        let hashed: Vec<(Vec<u8>, Vec<u8>)> = signers
            .par_iter()
            .map(|&i| {
                let h = &self.handshakes[i];
                let th = suite.transcript_hash().digest_parts(&[
                    h.client_hello_received(),
                    &h.server_hello,
                    &ee,
                    &h.certificate,
                ]);
                let digest = alg.hash().digest(&wire::certificate_verify_content(&th));
                (th, digest)
            })
            .collect();
        let sigs = if signers.is_empty() {
            Vec::new()
        } else {
            let refs: Vec<&[u8]> = hashed.iter().map(|(_, d)| d.as_slice()).collect();
            let keys = vec![&self.server_key; signers.len()];
            let sigs = sign_digests(self.backend, alg, &keys, &refs, &mut self.rng)?;
            check_len("signing", &sigs, signers.len())?;
            sigs
        };
        let cv: Vec<JobResult<Vec<u8>>> = sigs
            .into_iter()
            .map(|s| s.map(|s| wire::certificate_verify(suite.signature_scheme(), &s)))
            .collect();
        self.server.sign.add(t.elapsed(), signers.len());
        for ((&i, (th, _)), cv) in signers.iter().zip(hashed).zip(cv) {
            let h = &mut self.handshakes[i];
            h.server_transcript_hash = th;
            match cv {
                Ok(cv) => {
                    if h.corruption == Some(Corruption::CertificateVerify) {
                        let sig_len = cv.len() - wire::CERTIFICATE_VERIFY_SIG_OFFSET;
                        h.certificate_verify_rx =
                            Some(flip(&cv, wire::CERTIFICATE_VERIFY_SIG_OFFSET + sig_len / 2));
                    }
                    h.certificate_verify = cv;
                }
                Err(e) => h.fail(Side::Server, Step::Sign, e),
            }
        }
        self.stage = Stage::ServerFlight;
        Ok(())
    }

    /// Client's processing of the server flight: validate the server share and one
    /// `mul_point` batch (ECDH), one verification batch for the chain, one for
    /// CertificateVerify, then the shared-secret comparison.
    pub fn client_finish(&mut self) -> Result<(), Error> {
        self.server_flight()?;
        if self.stage >= Stage::Done {
            return Ok(());
        }
        let curve = self.config.kex.curve();
        let group = self.config.kex.code();
        let suite = self.config.suite;
        let alive = |hs: &[Handshake]| -> Vec<usize> {
            (0..hs.len()).filter(|&i| hs[i].failure.is_none()).collect()
        };

        // ECDH: the server's share, then k_c·Q_s.
        let live = alive(&self.handshakes);
        let t = Instant::now();
        let peers: Vec<JobResult<AffinePoint>> = live
            .par_iter()
            .map(|&i| {
                let share =
                    wire::server_hello_share(self.handshakes[i].server_hello_received(), group)
                        .map_err(|e| Error::InvalidKey(format!("ServerHello: {e}")))?;
                decode_share(curve, share)
            })
            .collect();
        let mut ok = Vec::new();
        let mut points = Vec::new();
        let mut scalars = Zeroizing::new(Vec::new());
        let mut failed = Vec::new();
        for (&i, p) in live.iter().zip(peers) {
            match (p, self.handshakes[i].client_scalar.as_ref()) {
                (Ok(p), Some(k)) => {
                    ok.push(i);
                    points.push(p);
                    scalars.push(**k);
                }
                (Err(e), _) => failed.push((i, e)),
                (Ok(_), None) => {
                    failed.push((i, Error::FaultDetected("client has no ephemeral key")))
                }
            }
        }
        let secrets: Vec<JobResult<Vec<u8>>> = if ok.is_empty() {
            Vec::new()
        } else {
            let pts = self.backend.mul_point(curve, &points, &scalars)?;
            check_len("mul_point", &pts, ok.len())?;
            pts.into_iter().map(|p| shared_x(curve, p)).collect()
        };
        self.client.ecdh.add(t.elapsed(), live.len());
        for (i, e) in failed {
            self.handshakes[i].fail(Side::Client, Step::Ecdh, e);
        }
        for (&i, s) in ok.iter().zip(secrets) {
            match s {
                Ok(s) => self.handshakes[i].client_secret = Some(s),
                Err(e) => self.handshakes[i].fail(Side::Client, Step::Ecdh, e),
            }
        }

        // Chain: parse the certificates, verify every issuer signature in one batch.
        let live = alive(&self.handshakes);
        let depth = self.config.chain_depth;
        let cert_alg = SigAlg::certificate(suite);
        let key_curve = suite.ecdsa_curve();
        let t = Instant::now();
        // Distinct certificate keys, parsed once (every intact handshake carries the same
        // ones, and a batch verifies fastest with one key object per key).
        let mut cache: Vec<CertPublicKey> = Vec::new();
        let (leaf_of, failed) = {
            let hs = &self.handshakes;
            // (key type, key bytes) per certificate, then digest and signature per issued one.
            type Parsed<'h> = (Vec<(u8, &'h [u8])>, Vec<(Vec<u8>, u16, &'h [u8])>);
            let parsed: Vec<JobResult<Parsed<'_>>> = live
                .par_iter()
                .map(|&i| {
                    let certs = wire::parse_certificate(hs[i].certificate_received())
                        .map_err(|e| Error::InvalidKey(format!("Certificate: {e}")))?;
                    if certs.len() != depth.max(1) {
                        return Err(Error::InvalidKey(format!(
                            "{} certificates, expected {}",
                            certs.len(),
                            depth.max(1)
                        )));
                    }
                    let mut keys = Vec::with_capacity(certs.len());
                    let mut signed = Vec::with_capacity(depth);
                    for (tbs, scheme, sig) in certs {
                        let p = wire::parse_tbs(tbs)
                            .map_err(|e| Error::InvalidKey(format!("certificate: {e}")))?;
                        keys.push((p.key_type, p.key));
                        if depth > 0 {
                            signed.push((cert_alg.hash().digest(tbs), scheme, sig));
                        }
                    }
                    Ok((keys, signed))
                })
                .collect();
            let mut index: HashMap<(u8, &[u8]), JobResult<usize>> = HashMap::new();
            let mut failed: Vec<(usize, Error)> = Vec::new();
            let mut key_idx: Vec<Option<Vec<usize>>> = Vec::with_capacity(live.len());
            for (&i, p) in live.iter().zip(&parsed) {
                let keys = match p {
                    Ok((keys, _)) => keys,
                    Err(e) => {
                        failed.push((i, e.clone()));
                        key_idx.push(None);
                        continue;
                    }
                };
                let mut idx = Vec::with_capacity(keys.len());
                for &(kt, kb) in keys {
                    let r = index
                        .entry((kt, kb))
                        .or_insert_with(|| {
                            CertPublicKey::decode(kt, kb, key_curve).map(|k| {
                                cache.push(k);
                                cache.len() - 1
                            })
                        })
                        .clone();
                    match r {
                        Ok(k) => idx.push(k),
                        Err(e) => {
                            failed.push((i, e));
                            break;
                        }
                    }
                }
                key_idx.push((idx.len() == keys.len()).then_some(idx));
            }
            let mut jobs: Vec<(&CertPublicKey, &[u8], &[u8])> = Vec::new();
            let mut owner: Vec<usize> = Vec::new();
            for ((&i, p), idx) in live.iter().zip(&parsed).zip(&key_idx) {
                let (Ok((_, signed)), Some(idx)) = (p, idx) else {
                    continue;
                };
                if depth == 0 {
                    if cache[idx[0]] != self.trust_anchor {
                        failed.push((
                            i,
                            Error::InvalidKey("leaf key is not the pinned key".into()),
                        ));
                    }
                    continue;
                }
                if signed
                    .iter()
                    .any(|s| s.1 != suite.certificate_signature_scheme())
                {
                    failed.push((
                        i,
                        Error::MalformedSignature("unexpected certificate signature scheme"),
                    ));
                    continue;
                }
                for (level, (digest, _, sig)) in signed.iter().enumerate() {
                    let issuer = if level + 1 < depth {
                        &cache[idx[level + 1]]
                    } else {
                        &self.trust_anchor
                    };
                    jobs.push((issuer, digest, sig));
                    owner.push(i);
                }
            }
            let results = if jobs.is_empty() {
                Vec::new()
            } else {
                verify_digests(self.backend, cert_alg, &jobs)?
            };
            check_len("chain verification", &results, jobs.len())?;
            for (&i, r) in owner.iter().zip(results) {
                if let Err(e) = r {
                    failed.push((i, e));
                }
            }
            let leaf_of: HashMap<usize, usize> = live
                .iter()
                .zip(&key_idx)
                .filter_map(|(&i, idx)| idx.as_ref().map(|idx| (i, idx[0])))
                .collect();
            (leaf_of, failed)
        };
        self.client.chain.add(t.elapsed(), live.len());
        for (i, e) in failed {
            self.handshakes[i].fail(Side::Client, Step::Chain, e);
        }

        // CertificateVerify: the client's transcript hash, one verification batch.
        let live = alive(&self.handshakes);
        let cv_alg = SigAlg::certificate_verify(suite);
        let t = Instant::now();
        let ee = wire::encrypted_extensions();
        let (hashes, results) = {
            let hs = &self.handshakes;
            // (transcript hash, content digest, signature) per handshake.
            type Prepared<'h> = (Vec<u8>, Vec<u8>, JobResult<&'h [u8]>);
            let prepared: Vec<Prepared<'_>> = live
                .par_iter()
                .map(|&i| {
                    let h = &hs[i];
                    let th = suite.transcript_hash().digest_parts(&[
                        &h.client_hello,
                        h.server_hello_received(),
                        &ee,
                        h.certificate_received(),
                    ]);
                    let digest = cv_alg.hash().digest(&wire::certificate_verify_content(&th));
                    let sig = match wire::parse_certificate_verify(h.certificate_verify_received())
                    {
                        Ok((scheme, sig)) if scheme == suite.signature_scheme() => Ok(sig),
                        Ok(_) => Err(Error::MalformedSignature(
                            "unexpected CertificateVerify signature scheme",
                        )),
                        Err(e) => Err(Error::MalformedSignature(e)),
                    };
                    (th, digest, sig)
                })
                .collect();
            let mut jobs = Vec::new();
            let mut slot = Vec::new();
            let mut results: Vec<JobResult<()>> = Vec::with_capacity(live.len());
            for (&i, (_, digest, sig)) in live.iter().zip(&prepared) {
                match (sig, leaf_of.get(&i)) {
                    (Ok(sig), Some(&key)) => {
                        slot.push(results.len());
                        results.push(Ok(()));
                        jobs.push((&cache[key], digest.as_slice(), *sig));
                    }
                    (Err(e), _) => results.push(Err(e.clone())),
                    (Ok(_), None) => results.push(Err(Error::InvalidKey("no leaf key".into()))),
                }
            }
            let verified = if jobs.is_empty() {
                Vec::new()
            } else {
                verify_digests(self.backend, cv_alg, &jobs)?
            };
            check_len("CertificateVerify verification", &verified, jobs.len())?;
            for (s, r) in slot.into_iter().zip(verified) {
                results[s] = r;
            }
            (
                prepared.into_iter().map(|p| p.0).collect::<Vec<_>>(),
                results,
            )
        };
        self.client.verify.add(t.elapsed(), live.len());
        for ((&i, th), r) in live.iter().zip(hashes).zip(results) {
            let h = &mut self.handshakes[i];
            h.client_transcript_hash = th;
            if let Err(e) = r {
                h.fail(Side::Client, Step::CertificateVerify, e);
            }
        }

        // Both sides must hold the same secret.
        for h in &mut self.handshakes {
            if h.failure.is_none()
                && (h.client_secret.is_none() || h.client_secret != h.server_secret)
            {
                h.fail(
                    Side::Client,
                    Step::SharedSecret,
                    Error::FaultDetected("client and server shared secrets differ"),
                );
            }
        }
        self.stage = Stage::Done;
        Ok(())
    }

    /// Runs whatever steps have not run, then reports.
    pub fn run(mut self) -> Result<TlsSimReport, Error> {
        self.client_finish()?;
        Ok(self.report())
    }

    /// The rates and failures so far (steps not yet run cost zero).
    pub fn report(&self) -> TlsSimReport {
        let failures: Vec<Failure> = self
            .handshakes
            .iter()
            .filter_map(|h| h.failure.clone())
            .collect();
        TlsSimReport {
            backend: self.backend.name().to_string(),
            suite: self.config.suite,
            kex: self.config.kex,
            handshakes: self.handshakes.len(),
            chain_depth: self.config.chain_depth,
            server: self.server.side_report(Side::Server),
            client: self.client.side_report(Side::Client),
            corrupted: self
                .handshakes
                .iter()
                .filter(|h| h.corruption.is_some())
                .count(),
            failed: failures.len(),
            failures,
        }
    }
}
