//! Variable-base `k·Q` on `S::LANES` lanes: constant-time fixed signed window.
//!
//! Representation: per lane `k < n` canonical, recoded into Booth digits of width [`W`]
//! (`d_i ∈ [−16, 16]`, `batch-scalar`'s `booth_digit`); `Q` affine Montgomery with a lane
//! identity mask. A per-group table holds `j·Q` for `j = 1 … 16` (projective, lane-wise), then
//! left to right: `W` doublings (in Jacobian coordinates, complete on these curves) and one
//! complete RCB addition per window.
//! Post-condition: projective points, the identity in lanes with `k = 0` or `Q = O`.
//!
//! Constant-time in `k` and `Q`: each lookup reads the whole table and keeps one entry per
//! lane by compare masks; a zero digit selects the identity, the sign is a masked negation.
//!
//! [`mul_vartime`] is the verification half (public `k`, `Q`): the same windows in Jacobian
//! coordinates (`batch_core::jacobian`: a doubling 8 products and 13 additions instead of RCB's
//! 11 and 21), incomplete formulas kept off their exceptional inputs, with [`mul`] as the
//! fallback for a group where one was hit anyway.

use batch_core::EcUint;
use batch_scalar::ecc::comb::{booth_digit, booth_windows};

use super::point::{
    lanes_of_mask_vartime, mask_from_lanes, mask_from_words, Affine, Jac, JacEntry, Proj,
};
use crate::field::CurveField;
use crate::simd::Lanes;

/// Window width: 16-entry table, `⌈(bits+1)/5⌉` windows (as `batch-scalar`).
pub const W: usize = 5;
const HALF: usize = 1 << (W - 1);

/// `mag·Q` per lane (`table[j−1] = j·Q`), the identity where `mag = 0`; reads every entry.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn lookup<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    table: &[Proj<S, N>],
    mag: S::V,
) -> Proj<S, N> {
    let s = f.s;
    let mut out = Proj::identity(f);
    for (j, e) in table.iter().enumerate() {
        out = Proj::select(&out, e, s.eq(mag, s.splat(j as u64 + 1)), f);
    }
    out
}

/// `k·Q` per lane; lanes in `q_identity` have `Q = O` (their `q` is ignored).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    bits: usize,
    q: &Affine<S, N>,
    q_identity: S::M,
    ks: &[&EcUint],
) -> Proj<S, N> {
    let s = f.s;
    let id = Proj::identity(f);
    let q1 = Proj::select(&Proj::from_affine(q, f), &id, q_identity, f);
    let mut table = [q1; HALF];
    for j in 2..=HALF {
        table[j - 1] = if j % 2 == 0 {
            table[j / 2 - 1].double(f)
        } else {
            table[j - 2].add_mixed(q, q_identity, f)
        };
    }
    let digit = |i: usize| {
        let (mut mag, mut neg) = ([0u64; 8], [0u64; 8]);
        for (l, k) in ks.iter().enumerate() {
            (mag[l], neg[l]) = booth_digit(k, i, W);
        }
        (
            s.from_lanes(&mag[..S::LANES]),
            mask_from_words(s, &neg[..S::LANES]),
        )
    };
    let windows = booth_windows(bits, W);
    let (mag, neg) = digit(windows - 1);
    let mut acc = lookup(f, &table, mag);
    acc.neg_if(neg, f);
    for i in (0..windows - 1).rev() {
        // The doublings in Jacobian coordinates (8 products and 13 additions each against
        // RCB's 11 and 21; complete for every point of a prime-order curve), the addition
        // complete in projective ones: two conversions a window, the identity carried over
        // by a constant-time select (`Jac::from_proj`).
        let mut j = Jac::from_proj(&acc, f);
        for _ in 0..W {
            j = j.double(f);
        }
        acc = j.to_proj(f);
        let (mag, neg) = digit(i);
        let mut e = lookup(f, &table, mag);
        e.neg_if(neg, f);
        acc = acc.add(&e, f);
    }
    acc
}

/// `k·Q` per lane for public `k` and `Q` (verification), as [`mul`] computes it but with
/// Jacobian doublings and additions (`batch_core::jacobian`). Variable-time.
///
/// The incomplete addition must not see the identity or equal operands. The accumulator is
/// the identity until a lane's first non-zero digit: a lane mask tracks that, and the entry is
/// selected in instead of added (zero digits keep the accumulator). Equal or opposite operands
/// later on take a crafted scalar (`k ≡ 2d mod n` for the last digit `d`, which needs
/// `n mod 32 ≤ 16`: reachable on P-521); the sum then has `Z = 0`, which stays so to the end,
/// where `k·Q` for `0 < k < n` and `Q ≠ O` cannot be the identity. A lane with `Z ≡ 0` at the
/// end therefore flags the group, which is recomputed by [`mul`] (complete formulas).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul_vartime<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    bits: usize,
    q: &Affine<S, N>,
    q_identity: S::M,
    ks: &[&EcUint],
) -> Proj<S, N> {
    let s = f.s;
    let q1 = Jac::from_affine(q, f);
    let mut table: Vec<JacEntry<S, N>> = Vec::with_capacity(HALF);
    table.push(q1.entry(f));
    for j in 2..=HALF {
        // j·Q ≠ ±Q for 2 ≤ j ≤ 16 on a prime-order curve: never exceptional (identity lanes
        // compute garbage here, replaced at the end)
        let pt = if j % 2 == 0 {
            table[j / 2 - 1].p.double(f)
        } else {
            table[j - 2].p.add(&table[0], f)
        };
        table.push(pt.entry(f));
    }
    let lanes = S::LANES;
    let (mut mag, mut neg) = ([0u64; 8], [0u64; 8]);
    let windows = booth_windows(bits, W);
    let mut acc = q1;
    let mut acc_id = [true; 8]; // lanes whose accumulator is still the identity
    for i in (0..windows).rev() {
        if acc_id[..lanes].iter().any(|&id| !id) {
            for _ in 0..W {
                acc = acc.double(f);
            }
        }
        for (l, k) in ks.iter().enumerate() {
            (mag[l], neg[l]) = booth_digit(k, i, W);
        }
        if mag[..lanes].iter().all(|&m| m == 0) {
            continue;
        }
        // the entries some lane uses, selected per lane (public digits: absent ones skipped)
        let mv = s.from_lanes(&mag[..lanes]);
        let mut e = table[0];
        for j in 2..=HALF {
            if mag[..lanes].contains(&(j as u64)) {
                let hit = s.eq(mv, s.splat(j as u64));
                let t = &table[j - 1];
                e = JacEntry {
                    p: Jac::select(&e.p, &t.p, hit, f),
                    zz: f.select(&e.zz, &t.zz, hit),
                    zzz: f.select(&e.zzz, &t.zzz, hit),
                };
            }
        }
        let ny = f.neg(&e.p.y);
        e.p.y = f.select(&e.p.y, &ny, mask_from_words(s, &neg[..lanes]));
        let sum = acc.add(&e, f);
        // per lane: identity accumulator → the entry; zero digit → unchanged; else the sum
        let (mut take_entry, mut take_sum) = ([false; 8], [false; 8]);
        for l in 0..lanes {
            take_entry[l] = acc_id[l] && mag[l] != 0;
            take_sum[l] = !acc_id[l] && mag[l] != 0;
        }
        let next = Jac::select(&acc, &sum, mask_from_lanes(s, &take_sum), f);
        acc = Jac::select(&next, &e.p, mask_from_lanes(s, &take_entry), f);
        for l in 0..lanes {
            acc_id[l] &= mag[l] == 0;
        }
    }
    // A lane that should not be the identity (k ≠ 0, Q ≠ O) with Z ≡ 0 hit an exceptional sum.
    let q_id = lanes_of_mask_vartime(s, q_identity);
    let z_zero = lanes_of_mask_vartime(s, f.is_zero(&acc.z));
    if (0..lanes).any(|l| z_zero[l] && !acc_id[l] && !q_id[l]) {
        return mul(f, bits, q, q_identity, ks);
    }
    let mut id = [false; 8];
    for l in 0..lanes {
        id[l] = acc_id[l] || q_id[l];
    }
    Proj::select(
        &acc.to_proj(f),
        &Proj::identity(f),
        mask_from_lanes(s, &id),
        f,
    )
}
