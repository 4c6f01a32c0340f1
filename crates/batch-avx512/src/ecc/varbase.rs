//! Variable-base `k·Q` on `S::LANES` lanes: constant-time fixed signed window.
//!
//! Representation: per lane `k < n` canonical, recoded into Booth digits of width [`W`]
//! (`d_i ∈ [−16, 16]`, `batch-scalar`'s `booth_digit`); `Q` affine Montgomery with a lane
//! identity mask. A per-group table holds `j·Q` for `j = 1 … 16` (Jacobian with `Z²` and
//! `Z³`, lane-wise), then left to right: `W` doublings and one addition per window, in
//! Jacobian coordinates but for the last window's addition, which is the complete RCB one
//! (see [`mul`]).
//! Post-condition: projective points, the identity in lanes with `k = 0` or `Q = O`.
//!
//! Constant-time in `k` and `Q`: each lookup reads the whole table and keeps one entry per
//! lane by compare masks; zero digits and identity accumulators are selected around by lane
//! masks, the sign is a masked negation.
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

/// `mag·Q` per lane (`table[j−1] = j·Q`), entry 1 where `mag = 0` (the caller selects around
/// it); reads every entry.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn lookup<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    table: &[JacEntry<S, N>; HALF],
    mag: S::V,
) -> JacEntry<S, N> {
    let s = f.s;
    let mut out = table[0];
    for (j, e) in table.iter().enumerate().skip(1) {
        let hit = s.eq(mag, s.splat(j as u64 + 1));
        out = JacEntry {
            p: Jac::select(&out.p, &e.p, hit, f),
            zz: f.select(&out.zz, &e.zz, hit),
            zzz: f.select(&out.zzz, &e.zzz, hit),
        };
    }
    out
}

/// `k·Q` per lane; lanes in `q_identity` have `Q = O` (their `q` is ignored).
///
/// Every doubling and every addition but the last window's in Jacobian coordinates, as
/// `batch_scalar::ecc::varbase::mul` (whose header proves that for `k < n` only the last
/// window's addition can meet `acc = ±entry`; that one is the complete RCB addition here too).
/// Identity operands are selected around by lane masks: a lane's accumulator is the identity
/// while every digit so far was zero (a running OR of the digits), a zero digit keeps it.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    bits: usize,
    q: &Affine<S, N>,
    q_identity: S::M,
    ks: &[&EcUint],
) -> Proj<S, N> {
    let s = f.s;
    let table = table(f, q);
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
    let signed = |mag: S::V, neg: S::M| {
        let mut e = lookup(f, &table, mag);
        let ny = f.neg(&e.p.y);
        e.p.y = f.select(&e.p.y, &ny, neg);
        e
    };
    let identity = Jac {
        x: f.one,
        y: f.one,
        z: f.zero(),
    };
    let windows = booth_windows(bits, W);
    let (mag, neg) = digit(windows - 1);
    let mut seen = mag;
    let mut acc = Jac::select(&signed(mag, neg).p, &identity, s.eq(mag, s.zero()), f);
    for i in (1..windows - 1).rev() {
        for _ in 0..W {
            acc = acc.double(f);
        }
        let (mag, neg) = digit(i);
        let e = signed(mag, neg);
        let sum = Jac::select(&acc.add(&e, f), &e.p, s.eq(seen, s.zero()), f);
        // `opaque`: otherwise the update is a store of the changed lanes, masked by the
        // digits, which the next doubling's loads wait on for a mask-dependent time.
        acc = Jac::select(&sum, &acc, s.eq(mag, s.zero()), f).opaque(f);
        seen = s.or(seen, mag);
    }
    // The last window, where acc = ±entry can occur: the complete addition.
    for _ in 0..W {
        acc = acc.double(f);
    }
    let (mag, neg) = digit(0);
    let e = signed(mag, neg);
    let e = Proj::select(
        &Proj {
            x: f.mul(&e.p.x, &e.p.z),
            y: e.p.y,
            z: e.zzz,
        },
        &Proj::identity(f),
        s.eq(mag, s.zero()),
        f,
    );
    let r = acc.to_proj(f).add(&e, f);
    Proj::select(&r, &Proj::identity(f), q_identity, f)
}

/// `j·Q` for `j = 1 … 16` per lane, Jacobian with `Z²` and `Z³`: doublings, and additions of
/// `Q` to `(j − 1)·Q`, which is not `±Q` (`2 ≤ j − 1 ≤ 15 < n − 1`). Lanes with `Q = O` hold
/// garbage (callers replace their results). Constant-time.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn table<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    q: &Affine<S, N>,
) -> [JacEntry<S, N>; HALF] {
    let q1 = Jac::from_affine(q, f).entry(f);
    let mut table = [q1; HALF];
    for j in 2..=HALF {
        let pt = if j % 2 == 0 {
            table[j / 2 - 1].p.double(f)
        } else {
            table[j - 2].p.add(&table[0], f)
        };
        table[j - 1] = pt.entry(f);
    }
    table
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
    let table = table(f, q);
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
