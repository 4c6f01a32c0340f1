//! `k·G`, `k·Q` and `u₁·G + u₂·Q` on the AVX-512 IFMA backend (both register forms) against
//! the scalar backend through the shared helper: every curve, batch sizes around the lane
//! counts (0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1023: scalar tails, padded groups, chunk edges),
//! edge scalars (0, 1, 2, n−1, n−2, (n−1)/2), the identity as a point and as a result, and
//! invalid jobs (scalar = n, point off the curve) that must fail alone. Skipped with a printed
//! line where the CPU lacks IFMA.
mod common;

use batch_core::dev::{check_backend_vs_reference, check_identity_results_vs_reference};
use batch_core::Curve;
use batch_scalar::ScalarBackend;

const SIZES: [usize; 11] = [0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1023];

fn check(curve: Curve, sizes: &[usize], seed: u64, what: &str) {
    let Some(forms) = common::ifma_curves_or_skip(what) else {
        return;
    };
    for b in &forms {
        check_backend_vs_reference(&ScalarBackend::new(), b, &[curve], &[], sizes, seed);
    }
}

#[test]
fn ecc_vs_scalar_p256() {
    check(Curve::P256, &SIZES, 21, "ecc_vs_scalar_p256");
}

#[test]
fn ecc_vs_scalar_p384() {
    check(Curve::P384, &SIZES[..10], 22, "ecc_vs_scalar_p384");
}

#[test]
fn ecc_vs_scalar_p521() {
    check(Curve::P521, &SIZES[..10], 23, "ecc_vs_scalar_p521");
}

/// Identity results from non-trivial inputs (the shared helper): `(n−1)·G + 1·G`, `k·O`,
/// and `(n−1)·G` as `−G`.
#[test]
fn ecc_identity_results_vs_scalar() {
    let Some(forms) = common::ifma_curves_or_skip("ecc_identity_results_vs_scalar") else {
        return;
    };
    for b in &forms {
        check_identity_results_vs_reference(&ScalarBackend::new(), b);
    }
}

/// Verification batches with repeated public points (the shared-point comb path) against the
/// scalar backend run one job at a time, at group sizes around the threshold and past it.
#[test]
fn shared_points_vs_scalar() {
    let Some(forms) = common::ifma_curves_or_skip("shared_points_vs_scalar") else {
        return;
    };
    let min = batch_avx512::ecc::SHARED_POINT_MIN;
    for b in &forms {
        for (i, per_key) in [min - 1, min, 70].into_iter().enumerate() {
            batch_core::dev::check_shared_points_vs_reference(
                &ScalarBackend::new(),
                b,
                per_key,
                41 + i as u64,
            );
        }
    }
}
