//! Bulk TLS 1.3 handshake simulation: how many full handshakes a second can this machine's
//! public-key work sustain, per certificate type and backend — with generated certificates
//! or your own chain and key.
//!
//! [`simulate`] runs `N` TLS 1.3 full handshakes (ECDHE key exchange, server authentication
//! by an X.509 certificate chain) step by step:
//!
//! | side   | step        | work per handshake                                            |
//! |--------|-------------|---------------------------------------------------------------|
//! | client | key share   | `k_c·G` (`mul_base`)                                          |
//! | server | key share   | `k_s·G` (`mul_base`)                                          |
//! | server | ECDH        | validate the client's share, `k_s·Q_c` (`mul_point`)          |
//! | server | sign        | transcript hash, CertificateVerify signature (RFC 8446 §4.4.3)|
//! | client | ECDH        | validate the server's share, `k_c·Q_s` (`mul_point`)          |
//! | client | chain       | parse the X.509 chain and its keys, names, dates, signatures  |
//! | client | verify      | transcript hash, CertificateVerify verification               |
//!
//! **The server is one machine**: each server step is one batch of `N` jobs on the chosen
//! [`Backend`], which is what batching is for. **The client column is `N` independent
//! clients**: each client runs its steps as its own one-handshake batches (spread over the
//! machine's cores), parses the certificates it received and builds its own key objects —
//! RSA Montgomery setup, ECDSA point decoding — every handshake. No client shares parsed
//! keys, tables or a batch with another, as `N` real clients would not; so the client
//! figure does not depend on `N`.
//!
//! Everything else a real handshake does (record encryption, key schedule, Finished MACs) is
//! symmetric-key work and left out: the figures are an upper bound set by public-key
//! arithmetic. Messages are real TLS 1.3 framing with real X.509 certificates (see [`wire`],
//! [`x509`]); the transcript hash is the cipher suite's hash over ClientHello ‖ ServerHello ‖
//! EncryptedExtensions ‖ Certificate, exactly what §4.4.3 signs.
//!
//! The checks are real: the client checks each certificate's issuer name and validity
//! dates, every signature up to its trust anchor and CertificateVerify; both sides must
//! derive the same shared secret (the x-coordinate, RFC 8446 §7.4.2); handshakes corrupted in
//! flight on purpose ([`TlsSimConfig::corrupt`]) must fail; each failure is counted in the
//! report, never a panic.
//!
//! Keys: the caller supplies the server's identity ([`ServerIdentity`]): its signing key
//! ([`ServerKey`], from PEM or generated) and its chain (from PEM, or issued here under
//! freshly generated issuers: RSA leaves under an RSA-2048 intermediate and root, ECDSA
//! leaves under P-384 ones, P-521 leaves under P-521 ones).
//!
//! ```
//! use batch_tls::{simulate, ServerIdentity, ServerKey, Suite, TlsSimConfig};
//! use batchsig::Curve;
//! let backend = batchsig::backend::default_backend();
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let key = ServerKey::generate(Suite::Ecdsa(Curve::P256), &mut rng).unwrap();
//! let identity = ServerIdentity::generate(&*backend, key, &mut rng).unwrap();
//! let mut config = TlsSimConfig::new(8);
//! config.corrupt = 2;
//! let report = simulate(&*backend, &identity, &config).unwrap();
//! assert_eq!(report.failed, 2);
//! assert!(report.server.handshakes_per_sec > 0.0);
//! ```

mod identity;
mod report;
mod sim;
pub mod wire;
pub mod x509;

use batch_core::{Backend, Curve, Error};
use batchsig::HashAlg;

pub use identity::{CertPublicKey, ServerIdentity, ServerKey};
pub use report::{
    compare, format_comparison, format_table, summarize, Comparison, RunSummary, SideReport,
    SideSummary, StepCost, TlsSimReport,
};
pub use sim::{Failure, Handshake, Step, TlsBatch};

/// The server's certificate key and the TLS 1.3 signature scheme of its CertificateVerify,
/// derived from the key ([`ServerKey::suite`]): any RSA size from 2048 bits, any supported
/// curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suite {
    /// `rsa_pss_rsae_sha256` (up to 7679 bits), `_sha384` (up to 15359) or `_sha512` with an
    /// RSA certificate of this many bits.
    RsaPss(usize),
    /// `ecdsa_secp256r1_sha256`, `ecdsa_secp384r1_sha384` or `ecdsa_secp521r1_sha512`.
    Ecdsa(Curve),
}

impl Suite {
    /// The suites deployed on the web today (what `Suite::all()` returns).
    pub const COMMON: [Suite; 6] = [
        Suite::RsaPss(2048),
        Suite::RsaPss(3072),
        Suite::RsaPss(4096),
        Suite::Ecdsa(Curve::P256),
        Suite::Ecdsa(Curve::P384),
        Suite::Ecdsa(Curve::P521),
    ];

    /// The common suites and the large RSA keys that pair with P-384 and P-521.
    pub const ALL: [Suite; 8] = [
        Suite::RsaPss(2048),
        Suite::RsaPss(3072),
        Suite::RsaPss(4096),
        Suite::RsaPss(7680),
        Suite::RsaPss(15360),
        Suite::Ecdsa(Curve::P256),
        Suite::Ecdsa(Curve::P384),
        Suite::Ecdsa(Curve::P521),
    ];

    /// The smallest RSA modulus accepted for a certificate key.
    pub const MIN_RSA_BITS: usize = 2048;

    /// The curves TLS 1.3 signs CertificateVerify with (RFC 8446 §4.2.3). P-224 is not one:
    /// keys and suites on it are refused ([`Suite::check`]).
    pub const CURVES: [Curve; 3] = [Curve::P256, Curve::P384, Curve::P521];

    /// `Ok` for a suite TLS 1.3 has: RSA from [`Self::MIN_RSA_BITS`], ECDSA on
    /// [`Self::CURVES`].
    pub fn check(self) -> Result<(), Error> {
        match self {
            Suite::RsaPss(bits) if bits < Self::MIN_RSA_BITS => Err(Error::InvalidKey(format!(
                "RSA-{bits}: at least {} bits required",
                Self::MIN_RSA_BITS
            ))),
            Suite::Ecdsa(c) if !Self::CURVES.contains(&c) => Err(Error::InvalidKey(format!(
                "{c}: TLS 1.3 has no signature scheme on this curve"
            ))),
            _ => Ok(()),
        }
    }

    /// The common suites: RSA-2048/3072/4096 and ECDSA P-256/384/521.
    pub fn all() -> &'static [Suite] {
        &Self::COMMON
    }

    /// `"rsa_pss_rsae_sha256/rsa2048"`, `"ecdsa_secp256r1_sha256"`, …
    pub fn name(self) -> String {
        match self {
            Suite::RsaPss(bits) => format!("{}/rsa{bits}", self.scheme_name()),
            Suite::Ecdsa(_) => self.scheme_name().to_string(),
        }
    }

    fn scheme_name(self) -> &'static str {
        match self.signature_scheme() {
            0x0804 => "rsa_pss_rsae_sha256",
            0x0805 => "rsa_pss_rsae_sha384",
            0x0806 => "rsa_pss_rsae_sha512",
            0x0403 => "ecdsa_secp256r1_sha256",
            0x0503 => "ecdsa_secp384r1_sha384",
            0x0303 => "ecdsa_sha224 (TLS 1.2 only)",
            _ => "ecdsa_secp521r1_sha512",
        }
    }

    /// The suite called `name`: as [`Suite::name`] or [`Suite::certificate_type`] write it,
    /// or `rsa2048`, `rsa6144`, `p256`, … (any case); RSA from [`Self::MIN_RSA_BITS`] bits.
    pub fn from_name(name: &str) -> Option<Suite> {
        let n = name.to_ascii_lowercase().replace('-', "");
        let rsa = n.rsplit('/').next().unwrap_or(&n);
        if let Some(bits) = rsa
            .strip_prefix("rsa")
            .and_then(|b| b.parse::<usize>().ok())
        {
            let s = Suite::RsaPss(bits);
            let scheme_ok = !n.contains('/') || n.starts_with(&s.scheme_name().replace('-', ""));
            return (bits >= Self::MIN_RSA_BITS && scheme_ok).then_some(s);
        }
        Self::CURVES.into_iter().map(Suite::Ecdsa).find(|s| {
            let c = s.certificate_type().to_ascii_lowercase().replace('-', "");
            n == c || n == s.scheme_name()
        })
    }

    /// The certificate's key: `"RSA-2048"`, `"P-256"`, …
    pub fn certificate_type(self) -> String {
        match self {
            Suite::RsaPss(bits) => format!("RSA-{bits}"),
            Suite::Ecdsa(c) => c.name().to_string(),
        }
    }

    /// The RSA modulus size, for RSA suites.
    pub const fn rsa_bits(self) -> Option<usize> {
        match self {
            Suite::RsaPss(bits) => Some(bits),
            Suite::Ecdsa(_) => None,
        }
    }

    /// The ECDSA curve, for ECDSA suites.
    pub const fn ecdsa_curve(self) -> Option<Curve> {
        match self {
            Suite::Ecdsa(c) => Some(c),
            Suite::RsaPss(_) => None,
        }
    }

    /// The hash of the CertificateVerify signature scheme: for RSA, SHA-256 below 7680
    /// bits, SHA-384 below 15360, SHA-512 above (the hash matching the key's strength).
    pub const fn signature_hash(self) -> HashAlg {
        match self {
            Suite::RsaPss(bits) if bits >= 15360 => HashAlg::Sha512,
            Suite::RsaPss(bits) if bits >= 7680 => HashAlg::Sha384,
            Suite::RsaPss(_) => HashAlg::Sha256,
            // not a TLS 1.3 suite (`check` refuses it); the curve's own hash
            Suite::Ecdsa(Curve::P224) => HashAlg::Sha224,
            Suite::Ecdsa(Curve::P256) => HashAlg::Sha256,
            Suite::Ecdsa(Curve::P384) => HashAlg::Sha384,
            Suite::Ecdsa(Curve::P521) => HashAlg::Sha512,
        }
    }

    /// The TLS SignatureScheme code point of CertificateVerify (RFC 8446 §4.2.3).
    pub const fn signature_scheme(self) -> u16 {
        let hash = match self.signature_hash() {
            HashAlg::Sha256 => 0x04,
            HashAlg::Sha384 => 0x05,
            // TLS 1.2's sha224(3): only P-224, which `check` refuses for TLS 1.3
            HashAlg::Sha224 => 0x03,
            // otherwise signature_hash() is SHA-512
            _ => 0x06,
        };
        match self {
            Suite::RsaPss(_) => 0x0800 | hash,
            Suite::Ecdsa(_) => (hash << 8) | 0x03,
        }
    }

    /// The cipher suite negotiated alongside: `TLS_AES_128_GCM_SHA256` (0x1301) for
    /// SHA-256 signature schemes, `TLS_AES_256_GCM_SHA384` (0x1302) otherwise.
    pub const fn cipher_suite(self) -> u16 {
        match self.signature_hash() {
            HashAlg::Sha256 => 0x1301,
            _ => 0x1302,
        }
    }

    /// The transcript hash: the cipher suite's hash (SHA-256 or SHA-384).
    pub const fn transcript_hash(self) -> HashAlg {
        match self.cipher_suite() {
            0x1301 => HashAlg::Sha256,
            _ => HashAlg::Sha384,
        }
    }

    /// Security strength in bits (NIST SP 800-57 Part 1 Rev. 5, Table 2): RSA below 3072
    /// bits → 112, below 7680 → 128, below 15360 → 192, else 256; P-256 → 128,
    /// P-384 → 192, P-521 → 256.
    pub const fn security_bits(self) -> u32 {
        match self {
            Suite::RsaPss(bits) if bits < 3072 => 112,
            Suite::RsaPss(bits) if bits < 7680 => 128,
            Suite::RsaPss(bits) if bits < 15360 => 192,
            Suite::RsaPss(_) => 256,
            Suite::Ecdsa(Curve::P224) => 112,
            Suite::Ecdsa(Curve::P256) => 128,
            Suite::Ecdsa(Curve::P384) => 192,
            Suite::Ecdsa(Curve::P521) => 256,
        }
    }
}

impl core::fmt::Display for Suite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.name())
    }
}

/// The ECDHE group of the key exchange.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KexGroup {
    /// `secp256r1` (0x0017), the usual choice.
    #[default]
    P256,
    /// `secp384r1` (0x0018).
    P384,
    /// `secp521r1` (0x0019).
    P521,
}

impl KexGroup {
    pub const ALL: [KexGroup; 3] = [KexGroup::P256, KexGroup::P384, KexGroup::P521];

    pub const fn curve(self) -> Curve {
        match self {
            KexGroup::P256 => Curve::P256,
            KexGroup::P384 => Curve::P384,
            KexGroup::P521 => Curve::P521,
        }
    }

    /// The TLS NamedGroup name: `"secp256r1"`, …
    pub const fn name(self) -> &'static str {
        match self {
            KexGroup::P256 => "secp256r1",
            KexGroup::P384 => "secp384r1",
            KexGroup::P521 => "secp521r1",
        }
    }

    /// The TLS NamedGroup code point (RFC 8446 §4.2.7).
    pub const fn code(self) -> u16 {
        match self {
            KexGroup::P256 => 0x0017,
            KexGroup::P384 => 0x0018,
            KexGroup::P521 => 0x0019,
        }
    }

    /// The group called `name`: `secp256r1`, `P-256` or `p256` (any case).
    pub fn from_name(name: &str) -> Option<KexGroup> {
        Self::ALL.into_iter().find(|g| {
            let c = g.curve().name();
            g.name().eq_ignore_ascii_case(name)
                || c.eq_ignore_ascii_case(name)
                || c.replace('-', "").eq_ignore_ascii_case(name)
        })
    }
}

impl core::fmt::Display for KexGroup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which end of the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Server,
    Client,
}

impl Side {
    /// `"server"` or `"client"`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Client => "client",
        }
    }
}

impl core::fmt::Display for Side {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A byte flipped in flight, to check that the simulation detects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Corruption {
    /// A byte of the CertificateVerify signature: the client's verification fails.
    CertificateVerify,
    /// The last byte of the server's key share: the point is not on the curve.
    ServerKeyShare,
    /// The last byte of the leaf certificate (its issuer's signature): the chain fails.
    Certificate,
    /// The last byte of the client's key share: the server rejects the point.
    ClientKeyShare,
}

impl Corruption {
    /// The order in which [`TlsSimConfig::corruptions`] cycles through the kinds.
    pub const ALL: [Corruption; 4] = [
        Corruption::CertificateVerify,
        Corruption::ServerKeyShare,
        Corruption::Certificate,
        Corruption::ClientKeyShare,
    ];
}

/// What to simulate (the server's key and chain come separately, as a [`ServerIdentity`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSimConfig {
    /// The ECDHE group.
    pub kex: KexGroup,
    /// Handshakes: the server's steps are batches of this many jobs (at least 1).
    pub handshakes: usize,
    /// Handshakes to corrupt in flight (at most `handshakes`); see [`Self::corruptions`].
    pub corrupt: usize,
    /// The kind of corruption; `None` cycles through [`Corruption::ALL`].
    pub corrupt_kind: Option<Corruption>,
    /// Seeds every random choice (randoms, ephemeral keys, nonce hedging, RSA blinding and
    /// salts) for reproducible transcripts; `None` draws from the operating system.
    pub seed: Option<u64>,
    /// The time the clients check certificate validity against; `None`: now.
    pub now: Option<std::time::SystemTime>,
}

impl TlsSimConfig {
    /// `handshakes` handshakes over P-256 ECDHE, nothing corrupted, OS randomness.
    pub fn new(handshakes: usize) -> Self {
        Self {
            kex: KexGroup::P256,
            handshakes,
            corrupt: 0,
            corrupt_kind: None,
            seed: None,
            now: None,
        }
    }

    /// Which handshakes are corrupted, and how: `corrupt` indices spread evenly over the batch
    /// (`j·handshakes/corrupt` for `j < corrupt`), kinds from `corrupt_kind` or cycling
    /// through [`Corruption::ALL`]. Empty if `corrupt` exceeds `handshakes` (which
    /// [`simulate`] rejects).
    pub fn corruptions(&self) -> Vec<(usize, Corruption)> {
        if self.corrupt > self.handshakes {
            return Vec::new();
        }
        (0..self.corrupt)
            .map(|j| {
                let kind = self
                    .corrupt_kind
                    .unwrap_or(Corruption::ALL[j % Corruption::ALL.len()]);
                (j * self.handshakes / self.corrupt, kind)
            })
            .collect()
    }

    fn check(&self) -> Result<(), Error> {
        if self.handshakes == 0 {
            return Err(Error::EmptyBatch);
        }
        if self.handshakes > batch_core::MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: self.handshakes,
                max: batch_core::MAX_BATCH,
            });
        }
        if self.corrupt > self.handshakes {
            return Err(Error::LengthMismatch {
                what: "corrupted handshakes (at most the handshake count)",
                expected: self.handshakes,
                got: self.corrupt,
            });
        }
        Ok(())
    }
}

/// Runs every step of `config.handshakes` handshakes of `identity` on `backend` and reports
/// the rates. Fails only for the whole run (backend unavailable or failing, invalid
/// configuration or identity); a handshake that fails its checks is counted in
/// [`TlsSimReport::failures`].
pub fn simulate(
    backend: &dyn Backend,
    identity: &ServerIdentity,
    config: &TlsSimConfig,
) -> Result<TlsSimReport, Error> {
    TlsBatch::new(backend, identity, config)?.run()
}

/// One warm-up run (not counted: first-use costs such as page faults, lazily built tables,
/// GPU device opening and pipeline compilation), then `runs` timed runs, summarized. Any
/// failed handshake is counted in [`RunSummary::failed`].
pub fn measure(
    backend: &dyn Backend,
    identity: &ServerIdentity,
    config: &TlsSimConfig,
    runs: usize,
) -> Result<RunSummary, Error> {
    if runs == 0 {
        return Err(Error::EmptyBatch);
    }
    simulate(backend, identity, config)?;
    let reports = (0..runs)
        .map(|_| simulate(backend, identity, config))
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(summarize(&reports).expect("runs of one configuration"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Suite::ALL {
            assert_eq!(Suite::from_name(&s.name()), Some(s));
            assert_eq!(Suite::from_name(&s.certificate_type()), Some(s));
        }
        assert_eq!(Suite::from_name("rsa2048"), Some(Suite::RsaPss(2048)));
        assert_eq!(Suite::from_name("RSA-6144"), Some(Suite::RsaPss(6144)));
        assert_eq!(Suite::from_name("rsa1024"), None);
        assert_eq!(Suite::from_name("rsa_pss_rsae_sha512/rsa2048"), None);
        assert_eq!(Suite::from_name("p384"), Some(Suite::Ecdsa(Curve::P384)));
        for g in KexGroup::ALL {
            assert_eq!(KexGroup::from_name(g.name()), Some(g));
            assert_eq!(KexGroup::from_name(g.curve().name()), Some(g));
        }
        assert_eq!(KexGroup::from_name("p384"), Some(KexGroup::P384));
        assert_eq!(Suite::from_name("nope"), None);
        assert_eq!(Suite::from_name("p224"), None);
        assert_eq!(Suite::from_name("P-224"), None);
    }

    /// P-224 has no TLS 1.3 signature scheme: its keys and suites are refused with an error.
    #[test]
    fn p224_is_refused() {
        let p224 = Suite::Ecdsa(Curve::P224);
        assert!(matches!(p224.check(), Err(Error::InvalidKey(_))));
        assert!(Suite::ALL.iter().all(|s| s.check().is_ok()));
        let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(224);
        assert!(ServerKey::generate(p224, &mut rng).is_err());
        let key = batchsig::ecdsa::EcdsaPrivateKey::generate(Curve::P224, &mut rng).unwrap();
        let pem = key.to_pkcs8_pem().unwrap();
        let err = ServerKey::from_pem_or_der(pem.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("TLS 1.3"), "{err}");
    }

    #[test]
    fn corruption_plan_spreads_and_cycles() {
        let mut c = TlsSimConfig::new(10);
        c.corrupt = 4;
        assert_eq!(
            c.corruptions(),
            vec![
                (0, Corruption::CertificateVerify),
                (2, Corruption::ServerKeyShare),
                (5, Corruption::Certificate),
                (7, Corruption::ClientKeyShare)
            ]
        );
        c.corrupt = 10;
        let idx: Vec<usize> = c.corruptions().iter().map(|p| p.0).collect();
        assert_eq!(idx, (0..10).collect::<Vec<_>>());
        c.corrupt_kind = Some(Corruption::Certificate);
        assert!(c
            .corruptions()
            .iter()
            .all(|p| p.1 == Corruption::Certificate));
        c.corrupt = 11;
        assert!(c.corruptions().is_empty());
        assert!(matches!(c.check(), Err(Error::LengthMismatch { .. })));
        c.handshakes = 0;
        c.corrupt = 0;
        assert_eq!(c.check(), Err(Error::EmptyBatch));
    }

    #[test]
    fn hashes_pair_with_cipher_suites() {
        let schemes: Vec<u16> = Suite::ALL.iter().map(|s| s.signature_scheme()).collect();
        assert_eq!(
            schemes,
            [0x0804, 0x0804, 0x0804, 0x0805, 0x0806, 0x0403, 0x0503, 0x0603]
        );
        assert_eq!(Suite::RsaPss(2048).transcript_hash(), HashAlg::Sha256);
        assert_eq!(Suite::Ecdsa(Curve::P384).transcript_hash(), HashAlg::Sha384);
        assert_eq!(Suite::Ecdsa(Curve::P521).transcript_hash(), HashAlg::Sha384);
        assert_eq!(Suite::Ecdsa(Curve::P521).signature_hash(), HashAlg::Sha512);
        let bits: Vec<u32> = Suite::ALL.iter().map(|s| s.security_bits()).collect();
        assert_eq!(bits, [112, 128, 128, 192, 256, 128, 192, 256]);
        assert_eq!(Suite::all().len(), 6);
    }
}
