//! `u₁·G + u₂·Q` on `S::LANES` lanes (verification; inputs public, so it may be
//! variable-time).
//!
//! Representation: per lane `u₁, u₂ < n` canonical, `Q` affine Montgomery with an identity
//! mask. `u₁·G` runs on the comb ([`comb::mul_vartime`], additions only, entries loaded by
//! index) and `u₂·Q` on fixed signed windows in Jacobian coordinates
//! ([`varbase::mul_vartime`]); one complete addition sums them. Post-condition: projective
//! points per lane, the identity where the sum is `O`. Why not interleaved wNAF: lanes run in
//! lockstep, so a position needs an addition whenever any lane has a digit there (see
//! `batch-avx2`'s `ecc/straus.rs` for the count).

use batch_core::EcUint;

use super::point::{Affine, Proj};
use super::{comb, varbase, CurveConsts};
use crate::field::CurveField;
use crate::simd::Lanes;

/// `u₁·G + u₂·Q` per lane; lanes in `q_identity` have `Q = O`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul_double_vartime<S: Lanes, const N: usize>(
    cc: &CurveConsts,
    f: &CurveField<S, N>,
    u1: &[&EcUint],
    u2: &[&EcUint],
    q: &Affine<S, N>,
    q_identity: S::M,
) -> Proj<S, N> {
    let a = comb::mul_vartime(&cc.comb, cc.curve.bits(), f, u1);
    let b = varbase::mul_vartime(f, cc.curve.bits(), q, q_identity, u2);
    a.add(&b, f)
}
