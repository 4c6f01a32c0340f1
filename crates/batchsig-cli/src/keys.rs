//! Keys on disk and the scheme each key signs with. Private keys: PKCS#8 PEM written (as
//! `openssl genpkey`), PKCS#8/PKCS#1/SEC 1, PEM or DER read; public keys: SPKI PEM written,
//! SPKI or PKCS#1 read. The key type decides which options apply: `--scheme` is RSA only,
//! `--hash` ECDSA only; the wrong one is an error, not silently ignored.

use std::path::Path;

use batchsig::ecdsa::{curve_hash, EcdsaPrivateKey, EcdsaPublicKey};
use batchsig::rsa::{RsaKeyRestriction, RsaPadding, RsaPrivateKey, RsaPublicKey, RsaScheme};
use batchsig::{Curve, HashAlg};
use clap::ValueEnum;

use crate::files::{write_atomic, write_new, FileMode};
use crate::Fatal;

/// `keygen --alg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeyAlg {
    Rsa2048,
    Rsa3072,
    Rsa4096,
    P224,
    P256,
    P384,
    P521,
}

/// `--scheme` (RSA): `pkcs1-<hash>` or `pss-<hash>` (PSS: MGF1 with the same hash, salt as
/// long as the hash, or as an id-RSASSA-PSS key's parameters say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeArg {
    pss: bool,
    hash: HashAlg,
}

/// Every `--scheme` value, in `--help` order.
const SCHEMES: [(&str, SchemeArg); 20] = {
    const fn p(pss: bool, hash: HashAlg) -> SchemeArg {
        SchemeArg { pss, hash }
    }
    [
        ("pkcs1-sha256", p(false, HashAlg::Sha256)),
        ("pkcs1-sha384", p(false, HashAlg::Sha384)),
        ("pkcs1-sha512", p(false, HashAlg::Sha512)),
        ("pkcs1-sha224", p(false, HashAlg::Sha224)),
        ("pkcs1-sha512-224", p(false, HashAlg::Sha512_224)),
        ("pkcs1-sha512-256", p(false, HashAlg::Sha512_256)),
        ("pkcs1-sha3-224", p(false, HashAlg::Sha3_224)),
        ("pkcs1-sha3-256", p(false, HashAlg::Sha3_256)),
        ("pkcs1-sha3-384", p(false, HashAlg::Sha3_384)),
        ("pkcs1-sha3-512", p(false, HashAlg::Sha3_512)),
        ("pss-sha256", p(true, HashAlg::Sha256)),
        ("pss-sha384", p(true, HashAlg::Sha384)),
        ("pss-sha512", p(true, HashAlg::Sha512)),
        ("pss-sha224", p(true, HashAlg::Sha224)),
        ("pss-sha512-224", p(true, HashAlg::Sha512_224)),
        ("pss-sha512-256", p(true, HashAlg::Sha512_256)),
        ("pss-sha3-224", p(true, HashAlg::Sha3_224)),
        ("pss-sha3-256", p(true, HashAlg::Sha3_256)),
        ("pss-sha3-384", p(true, HashAlg::Sha3_384)),
        ("pss-sha3-512", p(true, HashAlg::Sha3_512)),
    ]
};

impl ValueEnum for SchemeArg {
    fn value_variants<'a>() -> &'a [Self] {
        static V: std::sync::OnceLock<Vec<SchemeArg>> = std::sync::OnceLock::new();
        V.get_or_init(|| SCHEMES.iter().map(|s| s.1).collect())
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        SCHEMES
            .iter()
            .find(|s| s.1 == *self)
            .map(|s| clap::builder::PossibleValue::new(s.0))
    }
}

impl SchemeArg {
    fn scheme(self) -> RsaScheme {
        if self.pss {
            RsaScheme::pss(self.hash)
        } else {
            RsaScheme::pkcs1v15(self.hash)
        }
    }
}

/// `--hash` (ECDSA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashArg(HashAlg);

/// Every `--hash` value.
const HASHES: [(&str, HashAlg); 10] = [
    ("sha256", HashAlg::Sha256),
    ("sha384", HashAlg::Sha384),
    ("sha512", HashAlg::Sha512),
    ("sha224", HashAlg::Sha224),
    ("sha512-224", HashAlg::Sha512_224),
    ("sha512-256", HashAlg::Sha512_256),
    ("sha3-224", HashAlg::Sha3_224),
    ("sha3-256", HashAlg::Sha3_256),
    ("sha3-384", HashAlg::Sha3_384),
    ("sha3-512", HashAlg::Sha3_512),
];

impl ValueEnum for HashArg {
    fn value_variants<'a>() -> &'a [Self] {
        static V: std::sync::OnceLock<Vec<HashArg>> = std::sync::OnceLock::new();
        V.get_or_init(|| HASHES.iter().map(|h| HashArg(h.1)).collect())
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        HASHES
            .iter()
            .find(|h| h.1 == self.0)
            .map(|h| clap::builder::PossibleValue::new(h.0))
    }
}

impl HashArg {
    fn alg(self) -> HashAlg {
        self.0
    }
}

/// `--mgf1` / `--salt-len`: RSA-PSS parameters other than the scheme's defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PssArgs {
    pub mgf1: Option<HashAlg>,
    pub salt_len: Option<usize>,
}

impl PssArgs {
    fn is_empty(self) -> bool {
        self == Self::default()
    }
}

/// `--mgf1`: a `--hash` name, or `sha1` (allowed as MGF1's hash, never as a message hash).
pub fn parse_mgf1(s: &str) -> Result<HashAlg, String> {
    if s == "sha1" {
        return Ok(HashAlg::Sha1);
    }
    HASHES
        .iter()
        .find(|h| h.0 == s)
        .map(|h| h.1)
        .ok_or_else(|| {
            let names: Vec<&str> = HASHES.iter().map(|h| h.0).collect();
            format!("unknown hash {s:?}; one of sha1, {}", names.join(", "))
        })
}

pub enum PrivateKey {
    Rsa(RsaPrivateKey),
    Ecdsa(EcdsaPrivateKey),
}

pub enum PublicKey {
    Rsa(RsaPublicKey),
    Ecdsa(EcdsaPublicKey),
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PrivateKey({})", self.public().describe())
    }
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey({})", self.describe())
    }
}

/// A private key with the scheme it signs with.
#[derive(Debug)]
pub enum Signer {
    Rsa(RsaPrivateKey, RsaScheme),
    Ecdsa(EcdsaPrivateKey, HashAlg),
}

/// A public key with the scheme it verifies.
#[derive(Debug)]
pub enum Verifier {
    Rsa(RsaPublicKey, RsaScheme),
    Ecdsa(EcdsaPublicKey, HashAlg),
}

/// `--scheme` / `--hash` for an RSA key: `--hash` does not apply. Without `--scheme`: an
/// id-RSASSA-PSS key's own parameters, `pss-sha256` for one without, else `pkcs1-sha256`;
/// a `--scheme` the key does not allow is an error here, before any work.
fn rsa_scheme(
    scheme: Option<SchemeArg>,
    hash: Option<HashArg>,
    pss: PssArgs,
    path: &Path,
    key: &RsaPublicKey,
    verifying: bool,
) -> Result<RsaScheme, Fatal> {
    let bits = key.bits();
    if let Some(h) = hash {
        let h = h.to_possible_value().map(|v| v.get_name().to_string());
        return Err(format!(
            "--hash is for ECDSA keys, but {} is an RSA-{bits} key; an RSA key takes its hash \
             from --scheme (e.g. --scheme pkcs1-{})",
            path.display(),
            h.unwrap_or_default()
        )
        .into());
    }
    let chosen = match (scheme, RsaScheme::for_key(key), key.restriction()) {
        (Some(s), _, _) => s.scheme(),
        // Verification: any salt at least the key's (RFC 4055 §3.1), as OpenSSL signs with
        // up to the maximum salt.
        (None, Some(s), _) if verifying => match s.padding {
            RsaPadding::Pss { mgf1, .. } => RsaScheme::pss_with(s.hash, mgf1, None),
            RsaPadding::Pkcs1v15 => s,
        },
        (None, Some(s), _) => s,
        (None, None, RsaKeyRestriction::PssAny) => RsaScheme::pss(HashAlg::Sha256),
        (None, None, _) => RsaScheme::pkcs1v15(HashAlg::Sha256),
    };
    // `--mgf1` / `--salt-len` replace the PSS scheme's own MGF1 hash and salt length.
    let chosen = match chosen.padding {
        _ if pss.is_empty() => chosen,
        RsaPadding::Pss { mgf1, salt_len } => RsaScheme::pss_with(
            chosen.hash,
            pss.mgf1.unwrap_or(mgf1),
            pss.salt_len.or(salt_len),
        ),
        RsaPadding::Pkcs1v15 => {
            return Err(format!(
                "--mgf1 and --salt-len are for RSA-PSS, but {} signs with {chosen}; choose a \
                 PSS scheme (e.g. --scheme pss-sha256)",
                path.display()
            )
            .into())
        }
    };
    // Signing: the salt length the key's parameters give, so that it is named.
    let allowed = chosen
        .allowed_by(key)
        .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
    Ok(if verifying { chosen } else { allowed })
}

/// `--scheme` / `--hash` for an ECDSA key: `--scheme` does not apply.
fn ecdsa_hash(
    scheme: Option<SchemeArg>,
    hash: Option<HashArg>,
    pss: PssArgs,
    path: &Path,
    curve: Curve,
) -> Result<HashAlg, Fatal> {
    if !pss.is_empty() {
        return Err(format!(
            "--mgf1 and --salt-len are for RSA-PSS, but {} is a {} ECDSA key",
            path.display(),
            Curve::name(curve)
        )
        .into());
    }
    if let Some(s) = scheme {
        let s = s.to_possible_value().map(|v| v.get_name().to_string());
        return Err(format!(
            "--scheme {} is for RSA keys, but {} is a {} ECDSA key; choose the ECDSA hash with \
             --hash",
            s.unwrap_or_default(),
            path.display(),
            Curve::name(curve)
        )
        .into());
    }
    Ok(hash.map_or(curve_hash(curve), HashArg::alg))
}

fn scheme_name(s: RsaScheme, signing: bool) -> String {
    match s.padding {
        RsaPadding::Pss { salt_len: None, .. } if signing => {
            format!("{s} (salt {} bytes)", s.hash.output_len())
        }
        RsaPadding::Pss { salt_len: None, .. } => format!("{s} (any salt length)"),
        _ => s.to_string(),
    }
}

impl Signer {
    /// The hash messages go through.
    pub fn hash(&self) -> HashAlg {
        match self {
            Signer::Rsa(_, s) => s.hash,
            Signer::Ecdsa(_, h) => *h,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Signer::Rsa(k, s) => format!("RSA-{} {}", k.bits(), scheme_name(*s, true)),
            Signer::Ecdsa(k, h) => format!("{} ECDSA/{}", Curve::name(k.curve()), h.name()),
        }
    }
}

impl Verifier {
    /// The hash messages go through.
    pub fn hash(&self) -> HashAlg {
        match self {
            Verifier::Rsa(_, s) => s.hash,
            Verifier::Ecdsa(_, h) => *h,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Verifier::Rsa(k, s) => format!("RSA-{} {}", k.bits(), scheme_name(*s, false)),
            Verifier::Ecdsa(k, h) => format!("{} ECDSA/{}", Curve::name(k.curve()), h.name()),
        }
    }
}

impl PrivateKey {
    /// This key with the scheme from `--scheme` / `--hash` / `--mgf1` / `--salt-len`, which
    /// must fit it.
    pub fn signer(
        self,
        scheme: Option<SchemeArg>,
        hash: Option<HashArg>,
        pss: PssArgs,
        path: &Path,
    ) -> Result<Signer, Fatal> {
        Ok(match self {
            PrivateKey::Rsa(k) => {
                let s = rsa_scheme(scheme, hash, pss, path, k.public_key(), false)?;
                Signer::Rsa(k, s)
            }
            PrivateKey::Ecdsa(k) => {
                let h = ecdsa_hash(scheme, hash, pss, path, k.curve())?;
                Signer::Ecdsa(k, h)
            }
        })
    }

    pub fn public(&self) -> PublicKey {
        match self {
            PrivateKey::Rsa(k) => PublicKey::Rsa(k.public_key().clone()),
            PrivateKey::Ecdsa(k) => PublicKey::Ecdsa(*k.public_key()),
        }
    }
}

impl PublicKey {
    /// This key with the scheme from `--scheme` / `--hash` / `--mgf1` / `--salt-len`, which
    /// must fit it.
    pub fn verifier(
        self,
        scheme: Option<SchemeArg>,
        hash: Option<HashArg>,
        pss: PssArgs,
        path: &Path,
    ) -> Result<Verifier, Fatal> {
        Ok(match self {
            PublicKey::Rsa(k) => {
                let s = rsa_scheme(scheme, hash, pss, path, &k, true)?;
                Verifier::Rsa(k, s)
            }
            PublicKey::Ecdsa(k) => {
                let h = ecdsa_hash(scheme, hash, pss, path, k.curve())?;
                Verifier::Ecdsa(k, h)
            }
        })
    }

    /// `RSA-2048`, `P-256 ECDSA`, … for messages.
    pub fn describe(&self) -> String {
        match self {
            PublicKey::Rsa(k) => format!("RSA-{}", k.bits()),
            PublicKey::Ecdsa(k) => format!("{} ECDSA", Curve::name(k.curve())),
        }
    }

    pub fn to_pem(&self) -> Result<String, Fatal> {
        match self {
            PublicKey::Rsa(k) => k.to_public_key_pem(),
            PublicKey::Ecdsa(k) => k.to_public_key_pem(),
        }
        .map_err(|e| Fatal(format!("cannot encode the public key: {e}")))
    }
}

fn read_key_file(path: &Path) -> Result<Vec<u8>, Fatal> {
    std::fs::read(path).map_err(|e| Fatal(format!("cannot read key {}: {e}", path.display())))
}

/// A private key of either type from `path`.
pub fn load_private(path: &Path) -> Result<PrivateKey, Fatal> {
    let bytes = read_key_file(path)?;
    let rsa = match RsaPrivateKey::from_pem_or_der(&bytes) {
        Ok(k) => return Ok(PrivateKey::Rsa(k)),
        Err(e) => e,
    };
    let ec = match EcdsaPrivateKey::from_pem_or_der(&bytes) {
        Ok(k) => return Ok(PrivateKey::Ecdsa(k)),
        Err(e) => e,
    };
    if parse_public(&bytes).is_some() {
        return Err(format!(
            "{} is a public key; signing needs the private key",
            path.display()
        )
        .into());
    }
    Err(format!(
        "{} is not a usable RSA or EC private key (as RSA: {rsa}; as EC: {ec})",
        path.display()
    )
    .into())
}

fn parse_public(bytes: &[u8]) -> Option<PublicKey> {
    if let Ok(k) = RsaPublicKey::from_pem_or_der(bytes) {
        return Some(PublicKey::Rsa(k));
    }
    EcdsaPublicKey::from_pem_or_der(bytes)
        .ok()
        .map(PublicKey::Ecdsa)
}

/// A public key of either type from `path`; a private key file gives its public key.
pub fn load_public(path: &Path) -> Result<PublicKey, Fatal> {
    let bytes = read_key_file(path)?;
    let rsa = match RsaPublicKey::from_pem_or_der(&bytes) {
        Ok(k) => return Ok(PublicKey::Rsa(k)),
        Err(e) => e,
    };
    let ec = match EcdsaPublicKey::from_pem_or_der(&bytes) {
        Ok(k) => return Ok(PublicKey::Ecdsa(k)),
        Err(e) => e,
    };
    if let Ok(k) = RsaPrivateKey::from_pem_or_der(&bytes) {
        return Ok(PrivateKey::Rsa(k).public());
    }
    if let Ok(k) = EcdsaPrivateKey::from_pem_or_der(&bytes) {
        return Ok(PrivateKey::Ecdsa(k).public());
    }
    Err(format!(
        "{} is not a usable RSA or EC key (as RSA public key: {rsa}; as EC public key: {ec})",
        path.display()
    )
    .into())
}

/// `batchsig keygen`.
pub fn keygen(alg: KeyAlg, out: &Path, pub_out: Option<&Path>, force: bool) -> Result<(), Fatal> {
    if !force {
        for p in std::iter::once(out).chain(pub_out) {
            if p.exists() {
                return Err(format!("{} exists; pass --force to replace it", p.display()).into());
            }
        }
    }
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let err = |e: batchsig::Error| Fatal(format!("key generation failed: {e}"));
    let key = match alg {
        KeyAlg::Rsa2048 | KeyAlg::Rsa3072 | KeyAlg::Rsa4096 => {
            let bits = match alg {
                KeyAlg::Rsa2048 => 2048,
                KeyAlg::Rsa3072 => 3072,
                _ => 4096,
            };
            PrivateKey::Rsa(RsaPrivateKey::generate(&mut rng, bits).map_err(err)?)
        }
        KeyAlg::P224 | KeyAlg::P256 | KeyAlg::P384 | KeyAlg::P521 => {
            let curve = match alg {
                KeyAlg::P224 => Curve::P224,
                KeyAlg::P256 => Curve::P256,
                KeyAlg::P384 => Curve::P384,
                _ => Curve::P521,
            };
            PrivateKey::Ecdsa(EcdsaPrivateKey::generate(curve, &mut rng).map_err(err)?)
        }
    };
    let pem = match &key {
        PrivateKey::Rsa(k) => k.to_pkcs8_pem(),
        PrivateKey::Ecdsa(k) => k.to_pkcs8_pem(),
    }
    .map_err(|e| Fatal(format!("cannot encode the private key: {e}")))?;
    let write = |p: &Path, data: &[u8], mode| {
        if force {
            write_atomic(p, data, mode, true)
        } else {
            write_new(p, data, mode)
        }
    };
    write(out, pem.as_bytes(), FileMode::Secret)?;
    if let Some(p) = pub_out {
        write(p, key.public().to_pem()?.as_bytes(), FileMode::Public)?;
    }
    eprintln!(
        "wrote {} private key to {}{}",
        key.public().describe(),
        out.display(),
        pub_out.map_or(String::new(), |p| format!(
            ", public key to {}",
            p.display()
        ))
    );
    Ok(())
}

/// `batchsig pubkey`.
pub fn pubkey(key: &Path, out: Option<&Path>) -> Result<(), Fatal> {
    let pem = load_public(key)?.to_pem()?;
    match out {
        Some(p) => write_atomic(p, pem.as_bytes(), FileMode::Public, true),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(pem.as_bytes())
                .map_err(|e| Fatal(format!("cannot write to stdout: {e}")))
        }
    }
}
