//! `batchsig`: generate keys, then sign and verify many files (or many lines of one file) in
//! batches on any batchsig backend. Signatures are what `openssl dgst -sign` writes (RSA: the
//! raw `k`-byte value; ECDSA: DER), so `openssl dgst -verify` checks them and vice versa.
//!
//! Exit status: 0 when everything succeeded; 1 when a signature failed to verify (or an item
//! could not be signed); 2 for usage, input and run errors (unreadable or wrong key, option
//! that does not fit the key, missing file, unusable backend) — always with a message on
//! stderr, never a panic.

mod cmd_sign;
mod cmd_verify;
mod files;
mod keys;
mod progress;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use batchsig::{Backend, HashAlg};
use clap::{Args, Parser, Subcommand};

use keys::{HashArg, KeyAlg, SchemeArg};

/// An error that ends the run with exit status 2 (usage, input or run error).
#[derive(Debug)]
pub struct Fatal(pub String);

impl From<String> for Fatal {
    fn from(s: String) -> Self {
        Fatal(s)
    }
}

impl From<&str> for Fatal {
    fn from(s: &str) -> Self {
        Fatal(s.to_string())
    }
}

/// How a command that ran to its end went: `failed` items give exit status 1.
#[derive(Debug, Default)]
pub struct Outcome {
    pub failed: usize,
}

#[derive(Parser, Debug)]
#[command(
    name = "batchsig",
    version,
    about = "Batch RSA and ECDSA key generation, signing and verification",
    after_help = "Exit status: 0 all good; 1 a signature failed to verify (or an item could not be \
                  signed); 2 usage or input error (unreadable key, option that does not fit the \
                  key, missing file, unknown or unavailable backend)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate a private key (PKCS#8 PEM, as `openssl genpkey` writes).
    Keygen {
        /// Key type and size.
        #[arg(long, value_enum)]
        alg: KeyAlg,
        /// Where to write the private key (created with mode 0600).
        #[arg(long)]
        out: PathBuf,
        /// Also write the public key (SubjectPublicKeyInfo PEM) here.
        #[arg(long = "pub")]
        pub_out: Option<PathBuf>,
        /// Replace existing files instead of refusing.
        #[arg(long)]
        force: bool,
    },
    /// Write the public key (SubjectPublicKeyInfo PEM) of a private key.
    Pubkey {
        /// The private key (PKCS#8, PKCS#1 or SEC 1; PEM or DER).
        #[arg(long)]
        key: PathBuf,
        /// Where to write it (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Sign files (each signature written to FILE.sig) or the lines of one file.
    Sign(SignArgs),
    /// Verify files against FILE.sig (or --sig), or lines against a JSON-lines file.
    Verify(VerifyArgs),
}

/// Options shared by `sign` and `verify`.
#[derive(Args, Debug)]
pub struct Common {
    /// RSA only: padding and hash (SHA-2, SHA-512/t, SHA-3) [default: pkcs1-sha256; for an
    /// RSA-PSS key (id-RSASSA-PSS) its own parameters, or pss-sha256 if it has none]. PSS
    /// uses MGF1 with the same hash and, when signing, a salt as long as the hash (openssl:
    /// -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:digest) or as the key's
    /// parameters say; verification accepts any salt length (at least the key's). An RSA-PSS
    /// key refuses other schemes.
    #[arg(long, value_enum)]
    pub scheme: Option<SchemeArg>,
    /// ECDSA only: the message hash [default: by curve: P-224 sha224, P-256 sha256, P-384
    /// sha384, P-521 sha512].
    #[arg(long, value_enum)]
    pub hash: Option<HashArg>,
    /// RSA-PSS only: MGF1's hash, one of the --hash names or sha1 [default: the message
    /// hash, or an RSA-PSS key's parameters] (openssl: -sigopt rsa_mgf1_md:HASH).
    #[arg(long, value_parser = keys::parse_mgf1)]
    pub mgf1: Option<HashAlg>,
    /// RSA-PSS only: the salt length in bytes [default: signing, the hash length or the key's;
    /// verifying, any] (openssl: -sigopt rsa_pss_saltlen:N). When verifying, the salt must
    /// have exactly this length.
    #[arg(long)]
    pub salt_len: Option<usize>,
    /// Backend by name: scalar, avx2, avx512, wgpu, or auto (each operation on the fastest
    /// backend here).
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Worker threads (rayon) [default: one per CPU].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Jobs per library call; larger inputs are streamed in batches of this size.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=(batchsig::batch_core::MAX_BATCH as i64)))]
    pub batch: u32,
}

impl Common {
    /// `--mgf1` and `--salt-len`.
    pub fn pss(&self) -> keys::PssArgs {
        keys::PssArgs {
            mgf1: self.mgf1,
            salt_len: self.salt_len,
        }
    }
}

#[derive(Args, Debug)]
pub struct SignArgs {
    /// The private key (PKCS#8, PKCS#1 or SEC 1; PEM or DER).
    #[arg(long)]
    pub key: PathBuf,
    #[command(flatten)]
    pub common: Common,
    /// Sign one message per line of this file (without its line ending, \n or \r\n) and
    /// write JSON lines {"index": i, "signature": "<base64>"}, i counting lines from 0.
    #[arg(long, conflicts_with = "files")]
    pub lines: Option<PathBuf>,
    /// With --lines: where to write the JSON lines [default: stdout].
    #[arg(long, requires = "lines")]
    pub out: Option<PathBuf>,
    /// Files to sign; each signature goes to FILE.sig (replaced if present).
    #[arg(required_unless_present = "lines")]
    pub files: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The public key (SubjectPublicKeyInfo or PKCS#1; PEM or DER); a private key works too.
    #[arg(long)]
    pub key: PathBuf,
    #[command(flatten)]
    pub common: Common,
    /// The signature file, when verifying a single FILE [default: FILE.sig].
    #[arg(long, conflicts_with = "lines")]
    pub sig: Option<PathBuf>,
    /// Verify one message per line of this file against --sigs.
    #[arg(long, conflicts_with = "files", requires = "sigs")]
    pub lines: Option<PathBuf>,
    /// With --lines: the JSON lines `batchsig sign --lines` wrote, one record per line, in order.
    #[arg(long, requires = "lines")]
    pub sigs: Option<PathBuf>,
    /// Files to verify, each against FILE.sig.
    #[arg(required_unless_present = "lines")]
    pub files: Vec<PathBuf>,
}

/// The backend named on the command line, checked to run here.
pub fn backend(name: &str) -> Result<Arc<dyn Backend>, Fatal> {
    let b = if name == "auto" {
        batchsig::backend::default_backend()
    } else {
        batchsig::backend::by_name(name).ok_or_else(|| {
            let names: Vec<&str> = batchsig::backend::all_backends()
                .iter()
                .map(|b| b.name())
                .collect();
            format!("unknown backend {name:?} (known: {})", names.join(", "))
        })?
    };
    if let batchsig::Availability::Unavailable(why) = b.availability() {
        return Err(format!("backend {name} is not available here: {why}").into());
    }
    Ok(b)
}

/// Sets the size of rayon's global pool (used by the library) once, before any work.
pub fn set_threads(threads: Option<u32>) -> Result<(), Fatal> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?;
    }
    Ok(())
}

fn run(cli: Cli) -> Result<Outcome, Fatal> {
    match cli.command {
        Command::Keygen {
            alg,
            out,
            pub_out,
            force,
        } => keys::keygen(alg, &out, pub_out.as_deref(), force).map(|()| Outcome::default()),
        Command::Pubkey { key, out } => {
            keys::pubkey(&key, out.as_deref()).map(|()| Outcome::default())
        }
        Command::Sign(args) => cmd_sign::run(&args),
        Command::Verify(args) => cmd_verify::run(&args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors: clap prints them and exits with status 2
    match run(cli) {
        Ok(o) if o.failed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(Fatal(msg)) => {
            eprintln!("batchsig: error: {msg}");
            ExitCode::from(2)
        }
    }
}
