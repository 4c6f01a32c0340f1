//! batch-core: what every batchsig backend shares.
//!
//! - [`Backend`]: the batch-shaped arithmetic seam (modular exponentiation, `k·G`, `k·Q`,
//!   `u₁·G + u₂·Q`); backends implement it, `batchsig` writes the signature schemes once on top.
//! - [`num`]: fixed-size integers on 64-bit limbs and Montgomery arithmetic (the reference
//!   representation; backends may use their own internally).
//! - [`curve`]: P-224, P-256, P-384 and P-521 parameters and the affine point type at the seam.
//! - [`Error`]: what went wrong with which job or batch.
//! - [`Forward`]: a backend built on another, replacing some of its operations (tests'
//!   fault injection and instrumentation).
//! - [`ct`]: constant-time comparisons on limb slices, and the hook of the Valgrind check.
//! - [`pool::Pool`]: the thread pool a CPU backend spreads its batches over.
//! - [`shared`]: splitting verification batches by shared public point.
//! - [`rcb`]: the complete point formulas, written once as macros every backend expands.
#![forbid(unsafe_code)]

pub mod backend;
pub mod ct;
pub mod curve;
#[cfg(feature = "dev")]
pub mod dev;
pub mod error;
pub mod forward;
pub mod groups;
pub mod jacobian;
pub mod num;
pub mod pool;
pub mod rcb;
pub mod shared;

pub use backend::{Availability, Backend, ModexpJob, ModulusCache, MAX_BATCH, MAX_MODULUS_BITS};
pub use curve::{AffinePoint, Curve, EcUint};
pub use error::{Error, JobResult};
pub use forward::Forward;
