//! Variable-base `k·Q` on four lanes: constant-time fixed signed window.
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

use super::point::{Affine4, Proj4};
use crate::field::{eq_mask, from_lanes, splat, Field4, V};

/// Window width: 16-entry table, `⌈(bits+1)/5⌉` windows (as `batch-scalar`).
pub const W: usize = 5;
const HALF: usize = 1 << (W - 1);

/// `mag·Q` per lane (`table[j−1] = j·Q`), the identity where `mag = 0`; reads every entry.
#[target_feature(enable = "avx2")]
pub(crate) fn lookup<const N: usize>(f: &Field4<N>, table: &[Proj4<N>], mag: V) -> Proj4<N> {
    let mut out = Proj4::identity(f);
    for (j, e) in table.iter().enumerate() {
        out = Proj4::select(&out, e, eq_mask(mag, splat(j as u64 + 1)), f);
    }
    out
}

/// `k·Q` per lane; lanes with `q_identity` all-ones have `Q = O` (their `q` is ignored).
#[target_feature(enable = "avx2")]
pub fn mul<const N: usize>(
    f: &Field4<N>,
    bits: usize,
    q: &Affine4<N>,
    q_identity: V,
    ks: [&EcUint; 4],
) -> Proj4<N> {
    let id = Proj4::identity(f);
    let q1 = Proj4::select(&Proj4::from_affine(q, f), &id, q_identity, f);
    let mut table = [q1; HALF];
    for j in 2..=HALF {
        table[j - 1] = if j % 2 == 0 {
            table[j / 2 - 1].double(f)
        } else {
            table[j - 2].add_mixed(q, q_identity, f)
        };
    }
    let windows = booth_windows(bits, W);
    let digit = |i: usize| {
        let d = ks.map(|k| booth_digit(k, i, W));
        (d.map(|x| x.0), d.map(|x| x.1))
    };
    let (mag, neg) = digit(windows - 1);
    let mut acc = lookup(f, &table, from_lanes(mag));
    acc.neg_if(from_lanes(neg), f);
    for i in (0..windows - 1).rev() {
        for _ in 0..W {
            acc = acc.double(f);
        }
        let (mag, neg) = digit(i);
        let mut e = lookup(f, &table, from_lanes(mag));
        e.neg_if(from_lanes(neg), f);
        acc = acc.add(&e, f);
    }
    acc
}
