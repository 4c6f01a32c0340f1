//! The handshake batch: setup, then three flights, each a few batched steps on the backend.
//!
//! State per handshake is what each side sent and what the other side received (they differ
//! only where [`Corruption`] flips a byte in flight), the ephemeral scalars (canonical
//! [`EcUint`], zeroized on drop), the transcript hashes and shared secrets of each side, and
//! the first failure. A failed handshake is aborted: later steps leave it out, as a real peer
//! sends an alert and stops. Costs are per handshake that entered the step.

use std::sync::Arc;
use std::time::{Duration, Instant};

use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult};
use batchsig::ecdsa::EcdsaPublicKey;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use zeroize::Zeroizing;

use crate::identity::{sign_digests, verify_digests, CertPublicKey, ServerIdentity, SigAlg};
use crate::report::{SideReport, StepCost, TlsSimReport};
use crate::{wire, x509};
use crate::{Corruption, Side, Suite, TlsSimConfig};

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
    /// The leaf key this client parsed from the chain it received.
    client_leaf_key: Option<CertPublicKey>,
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
            client_leaf_key: None,
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

/// What each client holds before any handshake: its trust anchor, parsed once (a client's
/// trust store), and the certificate schemes it accepts.
#[derive(Debug)]
struct TrustStore {
    subject: x509_cert::name::Name,
    key: CertPublicKey,
}

/// `N` handshakes driven step by step. Each step method runs the steps before it if they
/// have not run, and does nothing if it already ran, so any call order is valid.
///
/// ```
/// use batch_tls::{ServerIdentity, ServerKey, Suite, TlsBatch, TlsSimConfig};
/// let backend = batchsig::backend::default_backend();
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let key = ServerKey::generate(Suite::Ecdsa(batchsig::Curve::P256), &mut rng).unwrap();
/// let identity = ServerIdentity::generate(&*backend, key, &mut rng).unwrap();
/// let mut batch = TlsBatch::new(&*backend, &identity, &TlsSimConfig::new(4)).unwrap();
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
    suite: Suite,
    rng: ChaCha20Rng,
    identity: ServerIdentity,
    trust: TrustStore,
    /// Offset of the leaf's last byte (its signature's) in the Certificate message.
    leaf_last_byte: usize,
    handshakes: Vec<Handshake>,
    stage: Stage,
    server: Times,
    client: Times,
    parsed_keys: std::sync::atomic::AtomicUsize,
}

/// Runs `f` once per index, as independent clients spread over the rayon pool; a run-level
/// error of any stops the step.
fn per_client<T: Send>(
    live: &[usize],
    f: impl Fn(usize) -> Result<JobResult<T>, Error> + Sync,
) -> Result<Vec<JobResult<T>>, Error> {
    live.par_iter().map(|&i| f(i)).collect()
}

/// The single result of a one-job batch.
fn only<T>(what: &str, mut v: Vec<JobResult<T>>) -> Result<JobResult<T>, Error> {
    check_len(what, &v, 1)?;
    Ok(v.pop().expect("one result"))
}

impl<'a> TlsBatch<'a> {
    /// Checks the configuration, the backend and the identity; parses the clients' trust
    /// anchor (not timed).
    pub fn new(
        backend: &'a dyn Backend,
        identity: &ServerIdentity,
        config: &TlsSimConfig,
    ) -> Result<Self, Error> {
        config.check()?;
        if let Availability::Unavailable(why) = backend.availability() {
            return Err(Error::Unavailable(why));
        }
        let rng = match config.seed {
            Some(s) => ChaCha20Rng::seed_from_u64(s),
            None => ChaCha20Rng::try_from_rng(&mut getrandom::SysRng)
                .map_err(|e| Error::Rng(e.to_string()))?,
        };
        let suite = identity.key().public().suite()?;
        let anchor = x509::parse(identity.trust_anchor())?;
        let trust = TrustStore {
            subject: anchor.subject().clone(),
            key: anchor.public_key()?,
        };
        let (certificate, offsets) = wire::certificate(identity.chain());
        let leaf_last_byte = offsets[0] + identity.chain()[0].len() - 1;
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
            suite,
            rng,
            identity: identity.clone(),
            trust,
            leaf_last_byte,
            handshakes,
            stage: Stage::Setup,
            server: Times::default(),
            client: Times::default(),
            parsed_keys: Default::default(),
        })
    }

    pub fn config(&self) -> &TlsSimConfig {
        &self.config
    }

    /// The suite of the server's key.
    pub fn suite(&self) -> Suite {
        self.suite
    }

    pub fn handshakes(&self) -> &[Handshake] {
        &self.handshakes
    }

    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// Certificate keys the clients have parsed so far (each client parses every key of the
    /// chain it received, every handshake; nothing is shared between clients).
    pub fn client_key_parses(&self) -> usize {
        self.parsed_keys.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Client flight: each client makes its key share (`k·G`, a one-job batch), then its
    /// ClientHello.
    pub fn client_hello(&mut self) -> Result<(), Error> {
        if self.stage >= Stage::ClientHello {
            return Ok(());
        }
        let curve = self.config.kex.curve();
        let suite = self.suite;
        let n = self.handshakes.len();
        let scalars = Zeroizing::new(
            (0..n)
                .map(|_| random_scalar(curve, &mut self.rng))
                .collect::<Vec<EcUint>>(),
        );
        let all: Vec<usize> = (0..n).collect();
        let t = Instant::now();
        let shares = per_client(&all, |i| {
            let p = self.backend.mul_base(curve, &scalars[i..i + 1])?;
            Ok(encode_share(curve, only("mul_base", p)?))
        })?;
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
                        &x509::ACCEPTED_CERT_SCHEMES,
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
        let suite = self.suite;
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
                    h.certificate_rx = Some(flip(&h.certificate, self.leaf_last_byte))
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
            let keys = vec![self.identity.key(); signers.len()];
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

    /// Client's processing of the server flight, each client on its own: validate the server
    /// share and `k_c·Q_s` (a one-job `mul_point`), parse the chain and verify it (one batch
    /// of the chain's signatures), verify CertificateVerify (a one-job batch), then compare
    /// the shared secrets.
    pub fn client_finish(&mut self) -> Result<(), Error> {
        self.server_flight()?;
        if self.stage >= Stage::Done {
            return Ok(());
        }
        let curve = self.config.kex.curve();
        let group = self.config.kex.code();
        let suite = self.suite;
        let alive = |hs: &[Handshake]| -> Vec<usize> {
            (0..hs.len()).filter(|&i| hs[i].failure.is_none()).collect()
        };

        // ECDH: the server's share, then k_c·Q_s.
        let live = alive(&self.handshakes);
        let t = Instant::now();
        let secrets = {
            let hs = &self.handshakes;
            per_client(&live, |i| {
                let h = &hs[i];
                let peer = match wire::server_hello_share(h.server_hello_received(), group)
                    .map_err(|e| Error::InvalidKey(format!("ServerHello: {e}")))
                    .and_then(|share| decode_share(curve, share))
                {
                    Ok(p) => p,
                    Err(e) => return Ok(Err(e)),
                };
                let Some(k) = h.client_scalar.as_ref() else {
                    return Ok(Err(Error::FaultDetected("client has no ephemeral key")));
                };
                let p = self.backend.mul_point(
                    curve,
                    std::slice::from_ref(&peer),
                    std::slice::from_ref(&**k),
                )?;
                Ok(shared_x(curve, only("mul_point", p)?))
            })?
        };
        self.client.ecdh.add(t.elapsed(), live.len());
        for (&i, s) in live.iter().zip(secrets) {
            match s {
                Ok(s) => self.handshakes[i].client_secret = Some(s),
                Err(e) => self.handshakes[i].fail(Side::Client, Step::Ecdh, e),
            }
        }

        // Chain: parse the certificates and their keys, check names and dates, verify every
        // issuer signature up to the trust anchor.
        let live = alive(&self.handshakes);
        let now = self.config.now.unwrap_or_else(std::time::SystemTime::now);
        let t = Instant::now();
        let leaves = {
            let hs = &self.handshakes;
            per_client(&live, |i| {
                self.client_chain(hs[i].certificate_received(), now)
            })?
        };
        self.client.chain.add(t.elapsed(), live.len());
        for (&i, leaf) in live.iter().zip(leaves) {
            match leaf {
                Ok(k) => self.handshakes[i].client_leaf_key = Some(k),
                Err(e) => self.handshakes[i].fail(Side::Client, Step::Chain, e),
            }
        }

        // CertificateVerify: the client's transcript hash, a one-job verification.
        let live = alive(&self.handshakes);
        let cv_alg = SigAlg::certificate_verify(suite);
        let t = Instant::now();
        let ee = wire::encrypted_extensions();
        let verified = {
            let hs = &self.handshakes;
            live.par_iter()
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
                        Ok((scheme, sig)) if scheme == suite.signature_scheme() => sig,
                        Ok(_) => {
                            return Ok((
                                th,
                                Err(Error::MalformedSignature(
                                    "unexpected CertificateVerify signature scheme",
                                )),
                            ))
                        }
                        Err(e) => return Ok((th, Err(Error::MalformedSignature(e)))),
                    };
                    let Some(key) = h.client_leaf_key.as_ref() else {
                        return Ok((th, Err(Error::InvalidKey("no leaf key".into()))));
                    };
                    let r = verify_digests(self.backend, cv_alg, &[(key, &digest, sig)])?;
                    Ok((th, only("CertificateVerify verification", r)?))
                })
                .collect::<Result<Vec<(Vec<u8>, JobResult<()>)>, Error>>()?
        };
        self.client.verify.add(t.elapsed(), live.len());
        for (&i, (th, r)) in live.iter().zip(verified) {
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

    /// One client's chain check of the Certificate message it received: returns the leaf's
    /// key, parsed by this client, or why the chain is rejected.
    fn client_chain(
        &self,
        msg: &[u8],
        now: std::time::SystemTime,
    ) -> Result<JobResult<CertPublicKey>, Error> {
        let reject = |why: String| Ok(Err(Error::InvalidKey(why)));
        let ders = match wire::parse_certificate(msg) {
            Ok(d) if !d.is_empty() => d,
            Ok(_) => return reject("Certificate: no certificate".into()),
            Err(e) => return reject(format!("Certificate: {e}")),
        };
        let mut certs = Vec::with_capacity(ders.len());
        for d in ders {
            match x509::parse(d) {
                Ok(c) => certs.push(c),
                Err(e) => return Ok(Err(e)),
            }
        }
        // Names chain up to the anchor, dates include now, algorithms were offered.
        for (level, c) in certs.iter().enumerate() {
            let issuer = certs
                .get(level + 1)
                .map_or(&self.trust.subject, |n| n.subject());
            if c.issuer() != issuer {
                return reject(format!(
                    "certificate {level}: issuer {} is not {issuer}",
                    c.issuer()
                ));
            }
            if !c.valid_at(now) {
                return reject(format!(
                    "certificate {level} ({}): expired or not yet valid",
                    c.subject()
                ));
            }
            if !x509::ACCEPTED_CERT_SCHEMES.contains(&c.alg.tls_scheme()) {
                return reject(format!("certificate {level}: signature scheme not offered"));
            }
        }
        // This client's own key objects for every certificate it received.
        let mut keys = Vec::with_capacity(certs.len());
        for c in &certs {
            match c.public_key() {
                Ok(k) => keys.push(k),
                Err(e) => return Ok(Err(e)),
            }
        }
        self.parsed_keys
            .fetch_add(keys.len(), std::sync::atomic::Ordering::Relaxed);
        // One batch per signature algorithm of the chain (usually one): issuer key, digest
        // of the TBS as received, signature.
        let mut digests = Vec::with_capacity(certs.len());
        for c in &certs {
            let sig = match c.signature() {
                Ok(s) => s,
                Err(e) => return Ok(Err(e)),
            };
            digests.push((c.alg.sig_alg(), c.alg.hash().digest(c.tbs_der), sig));
        }
        let mut algs: Vec<SigAlg> = Vec::with_capacity(1);
        for d in &digests {
            if !algs.contains(&d.0) {
                algs.push(d.0);
            }
        }
        for alg in algs {
            let jobs: Vec<(&CertPublicKey, &[u8], &[u8])> = digests
                .iter()
                .enumerate()
                .filter(|(_, d)| d.0 == alg)
                .map(|(level, (_, digest, sig))| {
                    (
                        keys.get(level + 1).unwrap_or(&self.trust.key),
                        digest.as_slice(),
                        *sig,
                    )
                })
                .collect();
            let results = verify_digests(self.backend, alg, &jobs)?;
            check_len("chain verification", &results, jobs.len())?;
            if let Some(e) = results.into_iter().find_map(Result::err) {
                return Ok(Err(e));
            }
        }
        let leaf = keys.swap_remove(0);
        match leaf.suite() {
            Ok(s) if s == self.suite => Ok(Ok(leaf)),
            Ok(s) => reject(format!(
                "leaf key is {}, CertificateVerify is {}",
                s.certificate_type(),
                self.suite.certificate_type()
            )),
            Err(e) => Ok(Err(e)),
        }
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
            suite: self.suite,
            kex: self.config.kex,
            handshakes: self.handshakes.len(),
            chain_depth: self.identity.chain().len(),
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
