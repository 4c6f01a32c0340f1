//! Variable-base `k·Q`: constant-time fixed signed window.
//!
//! Representation: `k < n` canonical (`Uint<L>`), recoded into Booth digits of width
//! [`W`] (`d_i ∈ [−16, 16]`, see [`booth_digit`]); `Q` affine in Montgomery form with an
//! identity mask. A per-job table holds `j·Q` for `j = 1 … 16` (projective), then left to
//! right: `W` doublings (Jacobian, complete on these curves) and one addition (complete RCB)
//! per window.
//! Post-condition: a projective point, the identity exactly when `k = 0` or `Q = O`.
//!
//! Constant-time in `k` and `Q`: no branch or index depends on either; each lookup reads the
//! whole table, a zero digit selects the identity, the sign is a masked negation.

use batch_core::curve::CurveArith;
use batch_core::num::{scan_masks, Uint};

use super::comb::{booth_digit, booth_windows};
use super::point::{AffineMonty, JacobianPoint, ProjectivePoint};

/// Window width: 16-entry table, `⌈(bits+1)/5⌉` windows.
pub const W: usize = 5;
const HALF: usize = 1 << (W - 1);

/// `mag·Q` from the table (`table[j−1] = j·Q`), the identity for `mag = 0`; reads every entry.
#[inline(always)]
fn lookup<const L: usize>(
    c: &impl CurveArith<L>,
    table: &[ProjectivePoint<L>; HALF],
    mag: u64,
) -> ProjectivePoint<L> {
    const { assert!(HALF <= batch_core::num::SCAN_BLOCK) };
    let masks = scan_masks(0, mag);
    let mut out = ProjectivePoint::identity(c);
    for (e, &m) in table.iter().zip(&masks) {
        out.assign_if(e, m);
    }
    out
}

/// `k·Q` for `k < n`; `q_identity` all-ones means `Q = O` (then `q` is ignored).
/// Inlined so that a compile-time `c` folds into the field arithmetic (see `ecc::CurveSpec`).
#[inline(always)]
pub fn mul<const L: usize>(
    c: &impl CurveArith<L>,
    q: &AffineMonty<L>,
    q_identity: u64,
    k: &Uint<L>,
) -> ProjectivePoint<L> {
    let id = ProjectivePoint::identity(c);
    let q1 = ProjectivePoint::select(&ProjectivePoint::from_affine(q, c), &id, q_identity);
    let mut table = [q1; HALF];
    for j in 2..=HALF {
        table[j - 1] = if j % 2 == 0 {
            table[j / 2 - 1].double(c)
        } else {
            table[j - 2].add_mixed(q, q_identity, c)
        };
    }
    let windows = booth_windows(c.def().curve.bits(), W);
    let (mag, neg) = booth_digit(k, windows - 1, W);
    let mut acc = lookup(c, &table, mag);
    acc.neg_if(neg, c);
    for i in (0..windows - 1).rev() {
        // The doublings in Jacobian coordinates (8 products, 9 additions and a halving each,
        // against RCB's 11 products and 21 additions), complete on these prime-order curves;
        // the addition complete in projective ones: two conversions a window (6 products),
        // the identity carried across by a constant-time select.
        let mut j = JacobianPoint::from_projective(&acc, c);
        for _ in 0..W {
            j = j.double(c);
        }
        acc = j.to_projective(c);
        let (mag, neg) = booth_digit(k, i, W);
        let mut e = lookup(c, &table, mag);
        e.neg_if(neg, c);
        acc = acc.add(&e, c);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ecc::comb::table_p384;
    use crate::ecc::point::batch_normalize;
    use batch_core::curve::P384;

    /// k·Q against the comb (an independent path) for Q = G, and k·(2G) == (2k)·G.
    #[test]
    fn matches_comb_on_p384() {
        let c = &P384;
        let t = table_p384();
        let g = AffineMonty { x: c.gx, y: c.gy };
        let g2 = batch_normalize(c, &[ProjectivePoint::from_affine(&g, c).double(c)])[0].0;
        let n = *c.n.modulus();
        let n1 = n.sbb(&Uint::ONE).0;
        let ks = [
            Uint::ZERO,
            Uint::ONE,
            Uint::from_limbs(&[2]).unwrap(),
            Uint::from_limbs(&[17]).unwrap(),
            n1,
            Uint([0x0123_4567_89ab_cdef, 5, 0, 0, u64::MAX, 7]),
        ];
        for k in ks {
            let want = batch_normalize(c, &[t.mul(c, &k)])[0];
            let got = batch_normalize(c, &[mul(c, &g, 0, &k)])[0];
            assert_eq!(got, want, "k={k:?}");
            // k·(2G) = (2k mod n)·G
            let k2 = c.n.add(&k, &k);
            let got2 = batch_normalize(c, &[mul(c, &g2, 0, &k)])[0];
            assert_eq!(got2, batch_normalize(c, &[t.mul(c, &k2)])[0], "2k, k={k:?}");
            // the identity point gives the identity, whatever is in q
            assert_eq!(mul(c, &g, u64::MAX, &k).is_identity_mask(), u64::MAX);
        }
    }
}
