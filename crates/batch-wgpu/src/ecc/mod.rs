//! Elliptic-curve operations on the GPU: not implemented yet.
//!
//! Every call fails for the whole batch with [`Error::Unavailable`] (after the batch-shape
//! checks), so nothing above the trait can mistake this backend for one that computed.
//! Planned: field arithmetic and complete Renes–Costello–Batina point formulas in WGSL
//! (`shaders/field.wgsl`, `shaders/point.wgsl`), a fixed-base comb table in a storage buffer
//! for `k·G`, fixed windows for `k·Q`, interleaved wNAF for `u₁·G + u₂·Q`, batch inversion
//! for affine results — mirroring `batch-scalar/src/ecc`.

use batch_core::Error;

/// The error every EC entry point returns until the shaders exist.
pub(crate) fn not_implemented() -> Error {
    Error::Unavailable("wgpu: EC operations (mul_base, mul_point, mul_double_vartime) are not implemented yet".into())
}
