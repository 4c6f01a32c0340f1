//! `k·G`, `k·Q` and `u₁·G + u₂·Q` on the wgpu backend against the scalar backend through the
//! shared helper: every curve, batch sizes around the workgroup size (0, 1, 5, 63, 64, 65 on
//! P-256; 1, 6, 65 on P-224; fewer on the wider curves: lavapipe runs a P-521 `k·Q` in tens of milliseconds per
//! job on two cores), edge scalars (0, 1, 2, n−1, n−2, (n−1)/2), the identity as a point and as
//! a result, and invalid jobs (scalar = n, point off the curve) that must fail alone. One
//! batch is forced into chunks of 7 jobs to exercise the split path.
mod common;

use batch_core::dev::{check_backend_vs_reference, check_identity_results_vs_reference};
use batch_core::{Backend, Curve};
use batch_scalar::ScalarBackend;
use batch_wgpu::Normalize;

fn scalar() -> ScalarBackend {
    ScalarBackend::with_threads(1).unwrap()
}

#[test]
fn ecc_vs_scalar_p256() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p256") else {
        return;
    };
    check_backend_vs_reference(
        &scalar(),
        &b,
        &[Curve::P256],
        &[],
        &[0, 1, 5, 63, 64, 65],
        21,
    );
}

#[test]
fn ecc_vs_scalar_p224() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p224") else {
        return;
    };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P224], &[], &[1, 6, 65], 24);
}

#[test]
fn ecc_vs_scalar_p384() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p384") else {
        return;
    };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P384], &[], &[1, 6], 22);
}

#[test]
fn ecc_vs_scalar_p521() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p521") else {
        return;
    };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P521], &[], &[1, 6], 23);
}

/// The portable product path on P-256 and P-521 (the default tests run u64 products where
/// the adapter has SHADER_INT64).
#[test]
fn ecc_portable_path_vs_scalar() {
    let Some(b) = common::wgpu_portable_or_skip("ecc_portable_path_vs_scalar") else {
        return;
    };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P256], &[], &[1, 65], 25);
    check_backend_vs_reference(&scalar(), &b, &[Curve::P521], &[], &[5], 26);
}

/// A batch split into chunks of 7 (forced below the device limits) gives the scalar results.
#[test]
fn ecc_split_into_chunks_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("ecc_split_into_chunks_vs_scalar") else {
        return;
    };
    check_backend_vs_reference(
        &scalar(),
        &b.with_max_chunk_jobs(7),
        &[Curve::P256],
        &[],
        &[7, 8, 22],
        24,
    );
}

/// Scalar multiplications cut into many dispatches (a loop budget forced far below
/// llvmpipe's, so P-256 needs them too), the state going through `scratch` between them,
/// including the step from the `k·G` part of `u₁·G + u₂·Q` to its `k·Q` part.
#[test]
fn ecc_split_into_dispatches_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("ecc_split_into_dispatches_vs_scalar") else {
        return;
    };
    check_backend_vs_reference(
        &scalar(),
        &b.with_loop_budget(400),
        &[Curve::P256],
        &[],
        &[1, 9],
        27,
    );
}

/// Results made affine on the GPU (`ec_normalize`: one inversion per workgroup of 256 jobs on
/// P-224/256/384, 128 on P-521) and on the host, each forced whatever the adapter's default:
/// a batch that fills a normalisation workgroup and spills into the next (257 on P-256, with
/// repeated points, so the shared-point path too), P-521 (the widest field, and cut into
/// dispatches on llvmpipe), chunks of 7 (partial workgroups), identity results on every
/// curve, and the portable product path. A result the normalisation did not write, or left
/// projective, fails the host's check. Sizes are kept small: on a cold shader cache every
/// pipeline costs llvmpipe seconds to compile.
#[test]
fn ecc_vs_scalar_normalized_on_gpu_and_host() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_normalized_on_gpu_and_host") else {
        return;
    };
    let gpu = b.with_normalize(Normalize::Gpu);
    assert!(gpu.description().ends_with("made affine on the GPU"));
    check_backend_vs_reference(&scalar(), &gpu, &[Curve::P256], &[], &[1, 257], 28);
    check_backend_vs_reference(&scalar(), &gpu, &[Curve::P521], &[], &[6], 30);
    check_backend_vs_reference(
        &scalar(),
        &gpu.with_max_chunk_jobs(7),
        &[Curve::P256],
        &[],
        &[22],
        31,
    );
    check_identity_results_vs_reference(&scalar(), &gpu);
    let host = b.with_normalize(Normalize::Host);
    assert!(host.description().ends_with("made affine on the host"));
    check_backend_vs_reference(&scalar(), &host, &[Curve::P256], &[], &[65], 32);
    check_identity_results_vs_reference(&scalar(), &host);
    let Some(portable) = common::wgpu_portable_or_skip("ecc_vs_scalar_normalized_on_gpu_and_host")
    else {
        return;
    };
    let portable = portable.with_normalize(Normalize::Gpu);
    check_backend_vs_reference(&scalar(), &portable, &[Curve::P256], &[], &[65], 33);
}

/// Identity results from non-trivial inputs (the shared helper): `(n−1)·G + 1·G`, `k·O`,
/// and `(n−1)·G` as `−G`.
#[test]
fn ecc_identity_results_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("ecc_identity_results_vs_scalar") else {
        return;
    };
    check_identity_results_vs_reference(&scalar(), &b);
}
