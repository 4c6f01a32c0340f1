//! Variable-base `k·Q`: constant-time fixed signed window.
//!
//! Representation: `k < n` canonical (`Uint<L>`), recoded into Booth digits of width
//! [`W`] (`d_i ∈ [−16, 16]`, see [`booth_digit`]); `Q` affine in Montgomery form with an
//! identity mask. A per-job table holds `j·Q` for `j = 1 … 16` in Jacobian coordinates with
//! their `Z²` and `Z³`, then left to right: `W` doublings and one addition per window, all in
//! Jacobian coordinates (`batch_core::jacobian`: a doubling 8 products and 9 additions, an
//! addition 14 products and 7 additions, against RCB's 11 and 21, 14 and 29) but the last
//! window's addition, which is the complete RCB one.
//! Post-condition: a projective point, the identity exactly when `k = 0` or `Q = O`.
//!
//! **Why the incomplete addition is enough.** The Jacobian doubling is complete on these
//! prime-order curves (no point has `y = 0`; the identity `(t² : t³ : 0)` stays one). The
//! addition is wrong for an identity operand and for `acc = ±entry`. Identity operands are
//! selected around (a zero digit keeps `acc`; an identity `acc` takes the entry). For the
//! rest, write `m` for the value of the digits above window `i` (`k = m·2^(5(i+1)) + Σ_{j≤i}
//! d_j·2^(5j)`, the sum below `(16/31)·2^(5(i+1))` in size): then `0 ≤ m < k/2^(5(i+1)) +
//! 16/31`, and window `i` adds `d_i·Q` to `32m·Q` with `32m < k/2^(5i) + 17`. For `i ≥ 1` and
//! `k < n` that is below `n/32 + 17`, so for `m ≥ 1`, `32m ∈ [32, n − 17)` is neither `±d_i`
//! modulo `n`, and `acc ≠ ±entry`. Only the last window (`i = 0`) can meet them (for a few `k`
//! near `n` or `2d_0`): it adds with the complete formulas. `Q = O` runs on whatever `q` holds
//! and the identity is selected at the end.
//!
//! Constant-time in `k` and `Q`: no branch or index depends on either; each lookup reads the
//! whole table, zero digits and identities are handled by masks, the sign is a masked negation.

use batch_core::curve::CurveArith;
use batch_core::num::{ct_eq_mask, Uint};

use super::comb::{booth_digit, booth_windows};
use super::point::{AffineMonty, JacobianEntry, JacobianPoint, ProjectivePoint};

/// Window width: 16-entry table, `⌈(bits+1)/5⌉` windows.
pub const W: usize = 5;
const HALF: usize = 1 << (W - 1);

/// A table entry as the coordinates `CurveArith::select_entry` scans: `(X, Y, Z, Z², Z³)`.
type Coords<const L: usize> = [Uint<L>; 5];

/// `mag·Q` from the table (`table[j−1] = j·Q`) with its sign applied, zeros for `mag = 0`
/// (the caller selects around that); reads every entry (`CurveArith::select_entry`: on AVX2
/// where the field has it).
#[inline(always)]
fn lookup<const L: usize>(
    c: &impl CurveArith<L>,
    table: &[Coords<L>; HALF],
    (mag, neg): (u64, u64),
) -> JacobianEntry<L> {
    let [x, mut y, z, zz, zzz] = c.select_entry(table, mag);
    let ny = c.neg(&y);
    y.assign_if(&ny, neg);
    JacobianEntry {
        p: JacobianPoint { x, y, z },
        zz,
        zzz,
    }
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
    // j·Q for j = 2 … 16: doublings, and mixed additions of Q to (j − 1)·Q, which is not ±Q
    // (2 ≤ j − 1 ≤ 15 < n − 1); for Q = O these hold garbage, replaced at the end.
    let q1 = JacobianPoint::from_affine(q, c);
    let mut pts = [q1; HALF];
    for j in 2..=HALF {
        pts[j - 1] = if j % 2 == 0 {
            pts[j / 2 - 1].double(c)
        } else {
            let (x, y, z) = batch_core::jac_add_mixed!(
                c,
                (pts[j - 2].x, pts[j - 2].y, pts[j - 2].z),
                (q.x, q.y)
            );
            JacobianPoint { x, y, z }
        };
    }
    let table: [Coords<L>; HALF] = pts.map(|p| {
        let e = p.entry(c);
        [e.p.x, e.p.y, e.p.z, e.zz, e.zzz]
    });

    let windows = booth_windows(c.def().curve.bits(), W);
    let digit = |i: usize| booth_digit(k, i, W);
    let top = digit(windows - 1);
    let mut acc = JacobianPoint::select(
        &lookup(c, &table, top).p,
        &JacobianPoint::identity(c),
        ct_eq_mask(top.0, 0),
    );
    for i in (1..windows - 1).rev() {
        for _ in 0..W {
            acc = acc.double(c);
        }
        let d = digit(i);
        let e = lookup(c, &table, d);
        let sum = JacobianPoint::select(&acc.add_ct(&e, c), &e.p, acc.z.is_zero_mask());
        acc = JacobianPoint::select(&sum, &acc, ct_eq_mask(d.0, 0));
    }
    // The last window, where acc = ±entry can occur: the complete addition.
    for _ in 0..W {
        acc = acc.double(c);
    }
    let d = digit(0);
    let e = ProjectivePoint::select(
        &lookup(c, &table, d).to_projective(c),
        &ProjectivePoint::identity(c),
        ct_eq_mask(d.0, 0),
    );
    let r = acc.to_projective(c).add(&e, c);
    ProjectivePoint::select(&r, &ProjectivePoint::identity(c), q_identity)
}
