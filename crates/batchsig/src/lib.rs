//! batchsig: RSA and ECDSA signing and verification in batches, on interchangeable arithmetic
//! backends (CPU scalar, AVX2, GPU), with signatures byte-for-byte the same on each.
//!
//! Backends do arithmetic ([`batch_core::Backend`]); this crate does the schemes once:
//! hashing, padding, blinding, CRT, nonces, `s = k⁻¹(e + r·d)`, encodings — and the fault
//! checks (every RSA signature is verified before release, every `k·G` is checked on the
//! curve).
//!
//! With the `test-keys` feature (off by default; the example's fixed key comes from it):
//! ```
//! # #[cfg(feature = "test-keys")] {
//! use batchsig::{backend, rsa::RsaScheme, HashAlg};
//! let backend = backend::default_backend();
//! let key = batchsig::test_keys::rsa(2048);
//! let msgs: Vec<&[u8]> = vec![b"hello", b"world"];
//! let sigs = key.sign_batch(&*backend, RsaScheme::pss(HashAlg::Sha256), &msgs).unwrap();
//! let sigs: Vec<Vec<u8>> = sigs.into_iter().map(Result::unwrap).collect();
//! let sig_refs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
//! let ok = key.public_key().verify_batch(&*backend, RsaScheme::pss(HashAlg::Sha256), &msgs, &sig_refs).unwrap();
//! assert!(ok.iter().all(Result::is_ok));
//! # }
//! ```
//!
//! Cargo features: `wgpu` (the GPU backend, on by default), `rustcrypto` (conversions to and
//! from RustCrypto's key and signature types, module `rustcrypto`, on by default) and
//! `test-keys`.
//! The [`signer`] module implements the `signature` crate's traits for one-at-a-time use.
#![forbid(unsafe_code)]

pub mod backend;
mod batch;
pub mod ecdsa;
pub mod encoding;
pub mod hash;
pub mod rsa;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;
pub mod signer;
#[cfg(feature = "test-keys")]
pub mod test_keys;

pub use batch_core::{self, AffinePoint, Availability, Backend, Curve, Error, JobResult};
pub use hash::HashAlg;
