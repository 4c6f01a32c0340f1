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
fn ecc_vs_scalar_p224() {
    check(Curve::P224, &SIZES, 20, "ecc_vs_scalar_p224");
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
    // each curve's threshold and one below it (every curve runs at every size), and past them
    let mut sizes: Vec<usize> = batch_avx512::ecc::CURVES
        .iter()
        .flat_map(|&c| {
            let min = batch_avx512::ecc::shared_point_min(c);
            [min - 1, min]
        })
        .chain([70])
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    for b in &forms {
        for (i, per_key) in sizes.iter().copied().enumerate() {
            batch_core::dev::check_shared_points_vs_reference(
                &ScalarBackend::new(),
                b,
                per_key,
                41 + i as u64,
            );
        }
    }
}

/// `u₁·G + u₂·Q` where the Jacobian `u₂·Q` windows meet their exceptional sums: a last
/// digit `d` with `u₂ ≡ 2d (mod n)` makes the accumulator equal the entry (on P-521, whose
/// `n mod 32 = 9`, `u₂ = n − 18` does), so the group must fall back to the complete formulas.
/// Also `u₂ = n − 2d` for every digit size and small even `u₂` (leading zero windows), against
/// the scalar backend; whole groups of such jobs, and such a job among ordinary ones.
#[test]
fn exceptional_jacobian_sums_vs_scalar() {
    use batch_core::dev::{from_big, rng, to_big};
    use batch_core::{Backend, EcUint};
    let Some(forms) = common::ifma_curves_or_skip("exceptional_jacobian_sums_vs_scalar") else {
        return;
    };
    let scalar = ScalarBackend::new();
    for &curve in &batch_avx512::ecc::CURVES {
        let n = to_big(&curve.order().0);
        let r32 = (&n % 32u8).to_u64_digits().first().copied().unwrap_or(0);
        let mut u2s = vec![&n - 2 * r32, &n - 2 * r32 + 1u8, &n - 2 * r32 - 1u8];
        for d in 1..=16u32 {
            u2s.push(&n - 2 * d);
            u2s.push((2 * d).into());
        }
        let to_uint = |v: &num_bigint::BigUint| {
            EcUint::from_limbs(&from_big(v, curve.limbs())).expect("fits")
        };
        let u2: Vec<EcUint> = u2s.iter().map(to_uint).collect();
        let mut r = rng(99);
        let u1 = batch_core::dev::ec_scalars(&mut r, curve, u2.len() + 6)[6..].to_vec();
        let ks = batch_core::dev::ec_scalars(&mut r, curve, u2.len() + 6)[6..].to_vec();
        let mut q: Vec<_> = scalar
            .mul_base(curve, &ks)
            .unwrap()
            .into_iter()
            .map(|p| p.unwrap())
            .collect();
        q[1] = curve.generator();
        let want = scalar.mul_double_vartime(curve, &u1, &u2, &q).unwrap();
        // the same scalars through the constant-time k·Q, whose last window is the one that
        // meets acc = ±entry (its complete addition handles it)
        let want_kq = scalar.mul_point(curve, &q, &u2).unwrap();
        for b in &forms {
            let got = b.mul_double_vartime(curve, &u1, &u2, &q).unwrap();
            assert_eq!(got, want, "{curve} {:?}", b.lanes());
            let got_kq = b.mul_point(curve, &q, &u2).unwrap();
            assert_eq!(got_kq, want_kq, "{curve} k·Q {:?}", b.lanes());
        }
    }
}
