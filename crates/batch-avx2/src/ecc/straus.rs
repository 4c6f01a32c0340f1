//! `u₁·G + u₂·Q` on four lanes (verification; inputs public, so it may be variable-time).
//!
//! Representation: per lane `u₁, u₂ < n` canonical, `Q` affine Montgomery with an identity
//! mask. `u₁·G` runs on the comb ([`comb::mul_vartime`], additions only) and `u₂·Q` on fixed signed
//! windows ([`varbase::mul`]); one complete addition sums them. Post-condition: projective
//! points per lane, the identity where the sum is `O`.
//!
//! Why not interleaved wNAF as in `batch-scalar`: four lanes run in lockstep, so a position
//! needs an addition whenever *any* lane has a digit there (about half the positions for
//! each scalar), and the complete formulas cost as much as Jacobian ones. Counted on P-256
//! over 4 lanes, the interleaved loop (257 doublings, ~120 + ~135 additions) did ~5,990
//! field products per group against ~4,140 here (43 mixed additions for `u₁·G`, 257
//! doublings and 52 additions for `u₂·Q`). The `u₂·Q` half is the constant-time ladder of
//! `k·Q`; the comb half loads each lane's entry by index (public inputs).

use batch_core::EcUint;

use super::point::{Affine4, Proj4};
use super::{comb, varbase, CurveConsts};
use crate::field::{Field4, V};

/// `u₁·G + u₂·Q` per lane; lanes with `q_identity` all-ones have `Q = O`.
#[target_feature(enable = "avx2")]
pub fn mul_double_vartime<const N: usize>(
    cc: &CurveConsts,
    f: &Field4<N>,
    u1: [&EcUint; 4],
    u2: [&EcUint; 4],
    q: &Affine4<N>,
    q_identity: V,
) -> Proj4<N> {
    let a = comb::mul_vartime(&cc.comb, cc.curve.bits(), f, u1);
    let b = varbase::mul(f, cc.curve.bits(), q, q_identity, u2);
    a.add(&b, f)
}
