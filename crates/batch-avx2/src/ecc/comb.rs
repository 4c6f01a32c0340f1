//! Fixed-base `k·G` on four lanes by signed windows over a precomputed table: additions only.
//!
//! Representation: the table holds, for window `i`, `j·2^(w·i)·G` for `j = 1 … 2^(w−1)` as
//! affine Montgomery digits (`R = 2^(28·N)`), built once per process from `batch-scalar`'s
//! comb (same points, converted). Each lane's `k < n` is recoded into Booth digits with
//! `batch-scalar`'s `booth_digit` (constant-time); then `k·G = Σ d_i·2^(w·i)·G`, one mixed
//! addition per window. Post-condition: projective points, the identity in lanes with `k = 0`.
//!
//! Constant-time in `k`: the lookup reads every entry of the window and keeps one per lane
//! by compare masks; the sign is a masked negation, a zero digit a select.

use batch_core::EcUint;
use batch_scalar::ecc::comb::{booth_digit, booth_windows};

use super::point::{Affine4, Proj4};
use super::CombDigits;
use crate::field::{eq_mask, from_lanes, load, splat, zero, Fe, Field4, V};

/// `mag·2^(w·i)·B` per lane, zero digits where `mag = 0`; reads every entry of window `i`.
#[target_feature(enable = "avx2")]
fn lookup<const N: usize>(t: &CombDigits, i: usize, mag: V) -> Affine4<N> {
    let half = 1usize << (t.w - 1);
    let mut x = [zero(); N];
    let mut y = [zero(); N];
    for j in 1..=half {
        let mask = eq_mask(mag, splat(j as u64));
        let e = t.entry(i, j);
        for d in 0..N {
            x[d] = core::arch::x86_64::_mm256_or_si256(
                x[d],
                core::arch::x86_64::_mm256_and_si256(splat(e[d]), mask),
            );
            y[d] = core::arch::x86_64::_mm256_or_si256(
                y[d],
                core::arch::x86_64::_mm256_and_si256(splat(e[N + d]), mask),
            );
        }
    }
    Affine4 {
        x: Fe { d: x, k: 1 },
        y: Fe { d: y, k: 1 },
    }
}

/// `k·B` for four scalars `k < n`, `B` the table's point (`G`, or a shared public key), `bits`
/// the curve's. Constant-time in the scalars.
#[target_feature(enable = "avx2")]
pub fn mul<const N: usize>(
    t: &CombDigits,
    bits: usize,
    f: &Field4<N>,
    ks: [&EcUint; 4],
) -> Proj4<N> {
    let w = t.w;
    let windows = booth_windows(bits, w);
    let mut acc = Proj4::identity(f);
    for i in 0..windows {
        let digits = ks.map(|k| booth_digit(k, i, w));
        let mag = from_lanes(digits.map(|d| d.0));
        let neg = from_lanes(digits.map(|d| d.1));
        let zero_digit = eq_mask(mag, splat(0));
        let mut e = lookup::<N>(t, i, mag);
        e.neg_if(neg, f);
        // Window 0 too goes through the (complete) addition: a select into the identity here
        // was compiled to a `vpmaskmovq` store masked by the secret digit, which the Valgrind
        // check flags (scripts/ct-check.sh); one addition more per scalar.
        acc = acc.add_mixed(&e, zero_digit, f);
    }
    acc
}

/// [`mul`] for public scalars (verification): each lane loads its own entry by index instead
/// of scanning the window, so a wide table (a shared point's) costs no more per window than
/// a narrow one, and windows where every lane's digit is zero are skipped. Variable-time.
#[target_feature(enable = "avx2")]
pub fn mul_vartime<const N: usize>(
    t: &CombDigits,
    bits: usize,
    f: &Field4<N>,
    ks: [&EcUint; 4],
) -> Proj4<N> {
    let w = t.w;
    let mut acc = Proj4::identity(f);
    for i in 0..booth_windows(bits, w) {
        let digits = ks.map(|k| booth_digit(k, i, w));
        if digits.iter().all(|d| d.0 == 0) {
            continue;
        }
        // a zero digit loads entry 1, and the addition's mask skips it
        let e = digits.map(|d| t.entry(i, d.0.max(1) as usize));
        let mut p = Affine4 {
            x: Fe {
                d: load::<N>(e.map(|e| &e[..N])),
                k: 1,
            },
            y: Fe {
                d: load::<N>(e.map(|e| &e[N..])),
                k: 1,
            },
        };
        p.neg_if(from_lanes(digits.map(|d| d.1)), f);
        let zero_digit = eq_mask(from_lanes(digits.map(|d| d.0)), splat(0));
        acc = acc.add_mixed(&p, zero_digit, f);
    }
    acc
}
