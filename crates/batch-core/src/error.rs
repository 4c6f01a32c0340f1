//! Errors. A batch call returns `Result<Vec<JobResult<T>>, Error>`: the outer error is for the
//! whole batch (backend unavailable, device lost, lengths that do not match), each inner one
//! for a single job, so one bad job never loses the rest of the batch's results.

use crate::curve::Curve;

/// What went wrong, with enough detail to find the job and fix the input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The backend cannot run on this machine (no AVX2, no GPU adapter, …).
    Unavailable(String),
    /// The backend failed for the whole batch (device lost, validation error, timeout).
    Backend(String),
    /// Parallel input slices of different lengths.
    LengthMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A batch with no jobs where at least one is required.
    EmptyBatch,
    /// A batch over the supported size.
    BatchTooLarge { len: usize, max: usize },
    /// A job refers to a modulus index that the batch does not have.
    NoSuchModulus { index: usize, moduli: usize },
    /// A modulus that is even, or ≤ 1.
    InvalidModulus(&'static str),
    /// A modulus wider than the backend supports.
    ModulusTooLarge { bits: usize, max_bits: usize },
    /// A modexp base that is not below its modulus.
    BaseOutOfRange,
    /// A scalar that is not below the group order.
    ScalarOutOfRange { curve: Curve },
    /// A point that is not on the curve (or has a coordinate not below `p`).
    PointNotOnCurve { curve: Curve },
    /// A digest of the wrong length for the scheme's hash.
    DigestLength { expected: usize, got: usize },
    /// A signature with the wrong length or an out-of-range component.
    MalformedSignature(&'static str),
    /// A well-formed signature that does not verify.
    InvalidSignature,
    /// A key that cannot be parsed or fails its consistency checks.
    InvalidKey(String),
    /// A scheme the key or the library does not allow: an RSASSA-PSS key (RFC 4055) used with
    /// other parameters or with PKCS#1 v1.5, or signing with a verification-only hash (SHA-1).
    SchemeNotAllowed(String),
    /// A message that does not fit the key (e.g. an RSA modulus too short for the padding).
    MessageTooLong,
    /// The backend returned a result that failed a self-check (RSA signature that does not
    /// verify, `k·G` not on the curve): the result was withheld.
    FaultDetected(&'static str),
    /// Randomness could not be drawn.
    Rng(String),
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Unavailable(why) => write!(f, "backend unavailable: {why}"),
            Error::Backend(why) => write!(f, "backend failed for the batch: {why}"),
            Error::LengthMismatch {
                what,
                expected,
                got,
            } => {
                write!(f, "{what}: expected {expected} entries, got {got}")
            }
            Error::EmptyBatch => write!(f, "empty batch: at least one job is required"),
            Error::BatchTooLarge { len, max } => {
                write!(f, "batch of {len} jobs exceeds the maximum of {max}")
            }
            Error::NoSuchModulus { index, moduli } => {
                write!(
                    f,
                    "job refers to modulus #{index}, but the batch has {moduli}"
                )
            }
            Error::InvalidModulus(why) => write!(f, "invalid modulus: {why}"),
            Error::ModulusTooLarge { bits, max_bits } => {
                write!(
                    f,
                    "modulus of {bits} bits exceeds the supported {max_bits} bits"
                )
            }
            Error::BaseOutOfRange => write!(f, "base is not below its modulus"),
            Error::ScalarOutOfRange { curve } => {
                write!(f, "scalar is not below the {curve} group order")
            }
            Error::PointNotOnCurve { curve } => write!(f, "point is not on {curve}"),
            Error::DigestLength { expected, got } => {
                write!(f, "digest is {got} bytes, the hash produces {expected}")
            }
            Error::MalformedSignature(why) => write!(f, "malformed signature: {why}"),
            Error::InvalidSignature => write!(f, "signature does not verify"),
            Error::InvalidKey(why) => write!(f, "invalid key: {why}"),
            Error::SchemeNotAllowed(why) => write!(f, "scheme not allowed: {why}"),
            Error::MessageTooLong => write!(f, "message too long for the key size"),
            Error::FaultDetected(what) => {
                write!(f, "fault detected, result withheld: {what}")
            }
            Error::Rng(why) => write!(f, "random number generator failed: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// The outcome of one job in a batch.
pub type JobResult<T> = Result<T, Error>;
