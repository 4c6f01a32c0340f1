//! Variable-base `k·Q` on `S::LANES` lanes: constant-time fixed signed window.
//!
//! Representation: per lane `k < n` canonical, recoded into Booth digits of width [`W`]
//! (`d_i ∈ [−16, 16]`, `batch-scalar`'s `booth_digit`); `Q` affine Montgomery with a lane
//! identity mask. A per-group table holds `j·Q` for `j = 1 … 16` (projective, lane-wise), then
//! left to right: `W` doublings and one addition per window, complete formulas throughout.
//! Post-condition: projective points, the identity in lanes with `k = 0` or `Q = O`.
//!
//! Constant-time in `k` and `Q`: each lookup reads the whole table and keeps one entry per
//! lane by compare masks; a zero digit selects the identity, the sign is a masked negation.

use batch_core::EcUint;
use batch_scalar::ecc::comb::{booth_digit, booth_windows};

use super::point::{mask_from_words, Affine, Proj};
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
        for _ in 0..W {
            acc = acc.double(f);
        }
        let (mag, neg) = digit(i);
        let mut e = lookup(f, &table, mag);
        e.neg_if(neg, f);
        acc = acc.add(&e, f);
    }
    acc
}
