//! `k·G`, `k·Q` and `u₁·G + u₂·Q` on the wgpu backend against the scalar backend through the
//! shared helper: every curve, batch sizes around the workgroup size (0, 1, 5, 63, 64, 65 on
//! P-256; fewer on the wider curves: lavapipe runs a P-521 `k·Q` in tens of milliseconds per
//! job on two cores), edge scalars (0, 1, 2, n−1, n−2, (n−1)/2), the identity as a point and as
//! a result, and invalid jobs (scalar = n, point off the curve) that must fail alone. One
//! batch is forced into chunks of 7 jobs to exercise the split path.
mod common;

use batch_core::dev::{check_backend_vs_reference, from_big, to_big};
use batch_core::{AffinePoint, Backend, Curve, EcUint};
use batch_scalar::ScalarBackend;

fn scalar() -> ScalarBackend {
    ScalarBackend::with_threads(1).unwrap()
}

#[test]
fn ecc_vs_scalar_p256() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p256") else { return };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P256], &[], &[0, 1, 5, 63, 64, 65], 21);
}

#[test]
fn ecc_vs_scalar_p384() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p384") else { return };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P384], &[], &[1, 6], 22);
}

#[test]
fn ecc_vs_scalar_p521() {
    let Some(b) = common::wgpu_or_skip("ecc_vs_scalar_p521") else { return };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P521], &[], &[1, 6], 23);
}

/// The portable product path on P-256 and P-521 (the default tests run u64 products where
/// the adapter has SHADER_INT64).
#[test]
fn ecc_portable_path_vs_scalar() {
    let Some(b) = common::wgpu_portable_or_skip("ecc_portable_path_vs_scalar") else { return };
    check_backend_vs_reference(&scalar(), &b, &[Curve::P256], &[], &[1, 65], 25);
    check_backend_vs_reference(&scalar(), &b, &[Curve::P521], &[], &[5], 26);
}

/// A batch split into chunks of 7 (forced below the device limits) gives the scalar results.
#[test]
fn ecc_split_into_chunks_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("ecc_split_into_chunks_vs_scalar") else { return };
    check_backend_vs_reference(&scalar(), &b.with_max_chunk_jobs(7), &[Curve::P256], &[], &[7, 8, 22], 24);
}

/// Identity results from non-trivial inputs: `(n−1)·G + 1·G`, `k·O`, and `(n−1)·G` as `−G`.
#[test]
fn ecc_identity_results_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("ecc_identity_results_vs_scalar") else { return };
    let s = scalar();
    for c in Curve::ALL {
        let g = c.generator();
        let n1 = EcUint::from_limbs(&from_big(&(to_big(&c.order().0) - 1u8), 9)).unwrap();
        let one = EcUint::ONE;
        let q = [g, AffinePoint::IDENTITY, g, g, g];
        let u1 = [n1, one, EcUint::ZERO, n1, one];
        let u2 = [one, n1, one, n1, n1];
        let got = b.mul_double_vartime(c, &u1, &u2, &q).unwrap();
        assert_eq!(got, s.mul_double_vartime(c, &u1, &u2, &q).unwrap(), "{c}");
        assert_eq!(got[0], Ok(AffinePoint::IDENTITY), "{c}: (n−1)·G + G");
        assert_eq!(got[4], Ok(AffinePoint::IDENTITY), "{c}: G + (n−1)·G");
        assert_eq!(b.mul_point(c, &q, &u2).unwrap(), s.mul_point(c, &q, &u2).unwrap(), "{c}");
        assert_eq!(b.mul_base(c, &u1).unwrap(), s.mul_base(c, &u1).unwrap(), "{c}");
    }
}
