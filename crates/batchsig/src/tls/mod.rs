//! Bulk TLS 1.3 handshake simulation: how many full handshakes a second can this machine's
//! public-key work sustain, per certificate type and backend?
//!
//! [`simulate`] runs `N` concurrent TLS 1.3 full handshakes (ECDHE key exchange, server
//! authentication by certificate) step by step, each step one batch on the chosen
//! [`Backend`]:
//!
//! | side   | step        | work per handshake                                            |
//! |--------|-------------|---------------------------------------------------------------|
//! | client | key share   | `k_c·G` (`mul_base`)                                          |
//! | server | key share   | `k_s·G` (`mul_base`)                                          |
//! | server | ECDH        | validate the client's share, `k_s·Q_c` (`mul_point`)          |
//! | server | sign        | transcript hash, CertificateVerify signature (RFC 8446 §4.4.3)|
//! | client | ECDH        | validate the server's share, `k_c·Q_s` (`mul_point`)          |
//! | client | chain       | one issuer signature per certificate of the chain             |
//! | client | verify      | transcript hash, CertificateVerify verification               |
//!
//! Everything else a real handshake does (record encryption, key schedule, Finished MACs) is
//! symmetric-key work and left out: the figures are an upper bound set by public-key
//! arithmetic. Messages are real TLS 1.3 framing with synthetic certificates (see
//! [`wire`]); the transcript hash is the cipher suite's hash over ClientHello ‖ ServerHello ‖
//! EncryptedExtensions ‖ Certificate, exactly what §4.4.3 signs.
//!
//! Inside the simulation the checks are real: both sides must derive the same shared secret
//! (the x-coordinate, RFC 8446 §7.4.2), every signature must verify, and handshakes
//! corrupted in flight on purpose ([`TlsSimConfig::corrupt`]) must fail; each failure is
//! counted in the report, never a panic.
//!
//! Keys: the server's certificate key is the fixed test key of the suite
//! ([`crate::test_keys`]). Issuer keys: for ECDSA suites, fresh keys on the same curve,
//! one per level; for RSA suites, the same fixed key signs every level (generating RSA keys
//! takes seconds; the cost of verifying is the same).
//!
//! ```
//! use batchsig::tls::{simulate, Suite, TlsSimConfig};
//! let backend = batchsig::backend::default_backend();
//! let mut config = TlsSimConfig::new(Suite::EcdsaP256, 8);
//! config.corrupt = 2;
//! let report = simulate(&*backend, &config).unwrap();
//! assert_eq!(report.failed, 2);
//! assert!(report.server.handshakes_per_sec > 0.0);
//! ```

mod report;
mod sim;
pub mod wire;

use batch_core::{Backend, Curve, Error};

pub use report::{
    compare_security_levels, format_comparison, format_table, LevelComparison, SideReport,
    StepCost, TlsSimReport,
};
pub use sim::{CertPublicKey, Failure, Handshake, Step, TlsBatch};

use crate::hash::HashAlg;

/// The server's certificate type and the TLS 1.3 signature scheme of its CertificateVerify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suite {
    /// `rsa_pss_rsae_sha256` with an RSA-2048 certificate.
    RsaPss2048,
    /// `rsa_pss_rsae_sha256` with an RSA-3072 certificate.
    RsaPss3072,
    /// `rsa_pss_rsae_sha256` with an RSA-4096 certificate.
    RsaPss4096,
    /// `rsa_pss_rsae_sha384` with an RSA-7680 certificate (192-bit level; slow).
    RsaPss7680,
    /// `rsa_pss_rsae_sha512` with an RSA-15360 certificate (256-bit level; very slow).
    RsaPss15360,
    /// `ecdsa_secp256r1_sha256`.
    EcdsaP256,
    /// `ecdsa_secp384r1_sha384`.
    EcdsaP384,
    /// `ecdsa_secp521r1_sha512`.
    EcdsaP521,
}

impl Suite {
    /// The suites deployed on the web today (what `Suite::all()` returns).
    pub const COMMON: [Suite; 6] = [
        Suite::RsaPss2048,
        Suite::RsaPss3072,
        Suite::RsaPss4096,
        Suite::EcdsaP256,
        Suite::EcdsaP384,
        Suite::EcdsaP521,
    ];

    /// Every suite, including the large RSA keys that pair with P-384 and P-521.
    pub const ALL: [Suite; 8] = [
        Suite::RsaPss2048,
        Suite::RsaPss3072,
        Suite::RsaPss4096,
        Suite::RsaPss7680,
        Suite::RsaPss15360,
        Suite::EcdsaP256,
        Suite::EcdsaP384,
        Suite::EcdsaP521,
    ];

    /// The common suites: RSA-2048/3072/4096 and ECDSA P-256/384/521.
    pub fn all() -> &'static [Suite] {
        &Self::COMMON
    }

    /// `"rsa_pss_rsae_sha256/rsa2048"`, `"ecdsa_secp256r1_sha256"`, …
    pub const fn name(self) -> &'static str {
        match self {
            Suite::RsaPss2048 => "rsa_pss_rsae_sha256/rsa2048",
            Suite::RsaPss3072 => "rsa_pss_rsae_sha256/rsa3072",
            Suite::RsaPss4096 => "rsa_pss_rsae_sha256/rsa4096",
            Suite::RsaPss7680 => "rsa_pss_rsae_sha384/rsa7680",
            Suite::RsaPss15360 => "rsa_pss_rsae_sha512/rsa15360",
            Suite::EcdsaP256 => "ecdsa_secp256r1_sha256",
            Suite::EcdsaP384 => "ecdsa_secp384r1_sha384",
            Suite::EcdsaP521 => "ecdsa_secp521r1_sha512",
        }
    }

    /// The suite called `name` (as [`Suite::name`] writes it; also `rsa2048`, `p256`, …).
    pub fn from_name(name: &str) -> Option<Suite> {
        Self::ALL.into_iter().find(|s| {
            s.name().eq_ignore_ascii_case(name)
                || s.certificate_type().eq_ignore_ascii_case(name)
                || s.certificate_type()
                    .replace('-', "")
                    .eq_ignore_ascii_case(name)
        })
    }

    /// The certificate's key: `"RSA-2048"`, `"P-256"`, …
    pub const fn certificate_type(self) -> &'static str {
        match self {
            Suite::RsaPss2048 => "RSA-2048",
            Suite::RsaPss3072 => "RSA-3072",
            Suite::RsaPss4096 => "RSA-4096",
            Suite::RsaPss7680 => "RSA-7680",
            Suite::RsaPss15360 => "RSA-15360",
            Suite::EcdsaP256 => "P-256",
            Suite::EcdsaP384 => "P-384",
            Suite::EcdsaP521 => "P-521",
        }
    }

    /// The RSA modulus size, for RSA suites.
    pub const fn rsa_bits(self) -> Option<usize> {
        match self {
            Suite::RsaPss2048 => Some(2048),
            Suite::RsaPss3072 => Some(3072),
            Suite::RsaPss4096 => Some(4096),
            Suite::RsaPss7680 => Some(7680),
            Suite::RsaPss15360 => Some(15360),
            _ => None,
        }
    }

    /// The ECDSA curve, for ECDSA suites.
    pub const fn ecdsa_curve(self) -> Option<Curve> {
        match self {
            Suite::EcdsaP256 => Some(Curve::P256),
            Suite::EcdsaP384 => Some(Curve::P384),
            Suite::EcdsaP521 => Some(Curve::P521),
            _ => None,
        }
    }

    /// The TLS SignatureScheme code point of CertificateVerify (RFC 8446 §4.2.3).
    pub const fn signature_scheme(self) -> u16 {
        match self {
            Suite::RsaPss2048 | Suite::RsaPss3072 | Suite::RsaPss4096 => 0x0804,
            Suite::RsaPss7680 => 0x0805,
            Suite::RsaPss15360 => 0x0806,
            Suite::EcdsaP256 => 0x0403,
            Suite::EcdsaP384 => 0x0503,
            Suite::EcdsaP521 => 0x0603,
        }
    }

    /// The hash of the CertificateVerify signature scheme.
    pub const fn signature_hash(self) -> HashAlg {
        match self {
            Suite::RsaPss2048 | Suite::RsaPss3072 | Suite::RsaPss4096 | Suite::EcdsaP256 => {
                HashAlg::Sha256
            }
            Suite::RsaPss7680 | Suite::EcdsaP384 => HashAlg::Sha384,
            Suite::RsaPss15360 | Suite::EcdsaP521 => HashAlg::Sha512,
        }
    }

    /// The SignatureScheme of the certificates' signatures: `rsa_pkcs1_*` for RSA (what
    /// CAs issue), the suite's own ECDSA scheme otherwise.
    pub const fn certificate_signature_scheme(self) -> u16 {
        match self {
            Suite::RsaPss2048 | Suite::RsaPss3072 | Suite::RsaPss4096 => 0x0401,
            Suite::RsaPss7680 => 0x0501,
            Suite::RsaPss15360 => 0x0601,
            _ => self.signature_scheme(),
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

    /// Security strength in bits (NIST SP 800-57 Part 1 Rev. 5, Table 2): RSA-2048 → 112,
    /// RSA-3072 and RSA-4096 → 128, RSA-7680 → 192, RSA-15360 → 256; P-256 → 128,
    /// P-384 → 192, P-521 → 256.
    pub const fn security_bits(self) -> u32 {
        match self {
            Suite::RsaPss2048 => 112,
            Suite::RsaPss3072 | Suite::RsaPss4096 | Suite::EcdsaP256 => 128,
            Suite::RsaPss7680 | Suite::EcdsaP384 => 192,
            Suite::RsaPss15360 | Suite::EcdsaP521 => 256,
        }
    }
}

impl core::fmt::Display for Suite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
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
    /// A byte of the leaf certificate's subject: the chain signature fails (or, with a chain
    /// depth of 0, CertificateVerify, as the transcripts differ).
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

/// What to simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSimConfig {
    /// The server's certificate type and CertificateVerify scheme.
    pub suite: Suite,
    /// The ECDHE group.
    pub kex: KexGroup,
    /// Concurrent handshakes, each step one batch of this many jobs (at least 1).
    pub handshakes: usize,
    /// Certificate signatures the client verifies per handshake: the leaf and `depth − 1`
    /// intermediates are sent, the last one's issuer is the client's trust anchor. `0`: the
    /// leaf key is pinned, no chain signature is verified.
    pub chain_depth: usize,
    /// Handshakes to corrupt in flight (at most `handshakes`); see [`Self::corruptions`].
    pub corrupt: usize,
    /// The kind of corruption; `None` cycles through [`Corruption::ALL`].
    pub corrupt_kind: Option<Corruption>,
    /// Seeds every random choice (randoms, ephemeral keys, nonce hedging, RSA blinding and
    /// salts) for reproducible transcripts; `None` draws from the operating system.
    pub seed: Option<u64>,
}

impl TlsSimConfig {
    /// `handshakes` handshakes of `suite` over P-256 ECDHE, a chain of depth 2 (leaf and
    /// one intermediate, under a root), nothing corrupted, OS randomness.
    pub fn new(suite: Suite, handshakes: usize) -> Self {
        Self {
            suite,
            kex: KexGroup::P256,
            handshakes,
            chain_depth: 2,
            corrupt: 0,
            corrupt_kind: None,
            seed: None,
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
        let jobs = self.handshakes.saturating_mul(self.chain_depth.max(1));
        if jobs > batch_core::MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: jobs,
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

/// Runs every step of `config.handshakes` handshakes on `backend` and reports the rates.
/// Fails only for the whole run (backend unavailable or failing, invalid configuration);
/// a handshake that fails its checks is counted in [`TlsSimReport::failures`].
pub fn simulate(backend: &dyn Backend, config: &TlsSimConfig) -> Result<TlsSimReport, Error> {
    TlsBatch::new(backend, config)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Suite::ALL {
            assert_eq!(Suite::from_name(s.name()), Some(s));
            assert_eq!(Suite::from_name(s.certificate_type()), Some(s));
        }
        assert_eq!(Suite::from_name("rsa2048"), Some(Suite::RsaPss2048));
        assert_eq!(Suite::from_name("p384"), Some(Suite::EcdsaP384));
        for g in KexGroup::ALL {
            assert_eq!(KexGroup::from_name(g.name()), Some(g));
            assert_eq!(KexGroup::from_name(g.curve().name()), Some(g));
        }
        assert_eq!(KexGroup::from_name("p384"), Some(KexGroup::P384));
        assert_eq!(Suite::from_name("nope"), None);
    }

    #[test]
    fn corruption_plan_spreads_and_cycles() {
        let mut c = TlsSimConfig::new(Suite::EcdsaP256, 10);
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
        assert_eq!(Suite::RsaPss2048.transcript_hash(), HashAlg::Sha256);
        assert_eq!(Suite::EcdsaP384.transcript_hash(), HashAlg::Sha384);
        assert_eq!(Suite::EcdsaP521.transcript_hash(), HashAlg::Sha384);
        assert_eq!(Suite::EcdsaP521.signature_hash(), HashAlg::Sha512);
        assert_eq!(Suite::all().len(), 6);
    }
}
