//! `k·G`, `k·Q` and `u₁·G + u₂·Q` on the AVX2 backend against the scalar backend through the
//! shared helper: every curve, the batch sizes of `BATCH_SIZES` (0, 1, 3, 4, 5, 63, 64, 65,
//! 257, 1023), edge scalars (0, 1, 2, n−1, n−2, (n−1)/2), the identity as a point and as a
//! result, and invalid jobs (scalar = n, point off the curve) that must fail alone; and
//! verification batches with repeated points (the shared-point path).
mod common;

use batch_core::dev::{
    check_backend_vs_reference, check_identity_results_vs_reference, BATCH_SIZES,
};
use batch_core::Curve;
use batch_scalar::ScalarBackend;

#[test]
fn ecc_vs_scalar_p224() {
    let Some(b) = common::avx2_or_skip("ecc_vs_scalar_p224") else {
        return;
    };
    check_backend_vs_reference(
        &ScalarBackend::new(),
        &b,
        &[Curve::P224],
        &[],
        &BATCH_SIZES,
        14,
    );
}

#[test]
fn ecc_vs_scalar_p256() {
    let Some(b) = common::avx2_or_skip("ecc_vs_scalar_p256") else {
        return;
    };
    check_backend_vs_reference(
        &ScalarBackend::new(),
        &b,
        &[Curve::P256],
        &[],
        &BATCH_SIZES,
        11,
    );
}

#[test]
fn ecc_vs_scalar_p384() {
    let Some(b) = common::avx2_or_skip("ecc_vs_scalar_p384") else {
        return;
    };
    check_backend_vs_reference(
        &ScalarBackend::new(),
        &b,
        &[Curve::P384],
        &[],
        &BATCH_SIZES[..9],
        12,
    );
}

#[test]
fn ecc_vs_scalar_p521() {
    let Some(b) = common::avx2_or_skip("ecc_vs_scalar_p521") else {
        return;
    };
    check_backend_vs_reference(
        &ScalarBackend::new(),
        &b,
        &[Curve::P521],
        &[],
        &BATCH_SIZES[..8],
        13,
    );
}

/// Identity results from non-trivial inputs (the shared helper): `(n−1)·G + 1·G`, `k·O`,
/// and `(n−1)·G` as `−G`.
#[test]
fn ecc_identity_results_vs_scalar() {
    let Some(b) = common::avx2_or_skip("ecc_identity_results_vs_scalar") else {
        return;
    };
    check_identity_results_vs_reference(&ScalarBackend::new(), &b);
}

/// Verification batches with repeated public points (the shared-point comb path) against the
/// scalar backend run one job at a time, at group sizes around the threshold and past it.
#[test]
fn shared_points_vs_scalar() {
    let Some(b) = common::avx2_or_skip("shared_points_vs_scalar") else {
        return;
    };
    let min = batch_avx2::SHARED_POINT_MIN;
    // 130: past the P-384 groups the lanes' comb takes where the CPU has BMI2 and ADX
    for (i, per_key) in [min - 1, min, 70, 130].into_iter().enumerate() {
        batch_core::dev::check_shared_points_vs_reference(
            &ScalarBackend::new(),
            &b,
            per_key,
            41 + i as u64,
        );
    }
}

/// The 4-lane code for P-256, P-384 and P-521, which CPUs with BMI2 and ADX (every one CI
/// runs on) otherwise leave to the `mulx` fields: `k·G`, `k·Q` and `u₁·G + u₂·Q` at sizes
/// with full and padded 4-lane groups, then verification batches with shared points, against
/// the scalar backend.
#[test]
fn lanes_vs_scalar() {
    let Some(b) = common::avx2_or_skip("lanes_vs_scalar") else {
        return;
    };
    let b = b.lanes_only();
    check_backend_vs_reference(
        &ScalarBackend::new(),
        &b,
        &[Curve::P256, Curve::P384, Curve::P521],
        &[],
        &[3, 4, 5, 67],
        15,
    );
    batch_core::dev::check_shared_points_vs_reference(
        &ScalarBackend::new(),
        &b,
        batch_avx2::SHARED_POINT_MIN,
        47,
    );
}
