//! Fixed-base `k·G` on `S::LANES` lanes by signed windows over a precomputed table:
//! additions only.
//!
//! Representation: the table holds, for window `i`, `j·2^(w·i)·G` for `j = 1 … 2^(w−1)` as
//! affine Montgomery digits (`R = 2^(52·N)`), built once per process from `batch-scalar`'s
//! comb (same points, converted). Each lane's `k < n` is recoded into Booth digits with
//! `batch-scalar`'s `booth_digit` (constant-time); then `k·G = Σ d_i·2^(w·i)·G`, one mixed
//! addition per window. Post-condition: projective points, the identity in lanes with `k = 0`.
//!
//! Constant-time in `k`: the lookup reads every entry of the window and keeps one per lane
//! by compare masks; the sign is a masked negation, a zero digit a select.

use batch_core::EcUint;
use batch_scalar::ecc::comb::{booth_digit, booth_windows};

use super::point::{Affine, Proj};
use super::CombDigits;
use crate::field::{CurveField, Fe};
use crate::simd::Lanes;

/// `mag·2^(w·i)·G` per lane, zero digits where `mag = 0`; reads every entry of window `i`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn lookup<S: Lanes, const N: usize>(s: S, t: &CombDigits, i: usize, mag: S::V) -> Affine<S, N> {
    let half = 1usize << (t.w - 1);
    let mut x = [s.zero(); N];
    let mut y = [s.zero(); N];
    for j in 1..=half {
        let hit = s.eq(mag, s.splat(j as u64));
        let e = t.entry(i, j);
        for d in 0..N {
            x[d] = s.select(x[d], s.splat(e[d]), hit);
            y[d] = s.select(y[d], s.splat(e[N + d]), hit);
        }
    }
    Affine {
        x: Fe { d: x, k: 1 },
        y: Fe { d: y, k: 1 },
    }
}

/// `k·B` for one scalar `k < n` per lane, `B` the table's point (`G`, or a shared public
/// key), `bits` the curve's. Constant-time in the scalars.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul<S: Lanes, const N: usize>(
    t: &CombDigits,
    bits: usize,
    f: &CurveField<S, N>,
    ks: &[&EcUint],
) -> Proj<S, N> {
    let s = f.s;
    let w = t.w;
    let mut acc = Proj::identity(f);
    let (mut mag, mut neg) = ([0u64; 8], [0u64; 8]);
    for i in 0..booth_windows(bits, w) {
        for (l, k) in ks.iter().enumerate() {
            (mag[l], neg[l]) = booth_digit(k, i, w);
        }
        let mag = s.from_lanes(&mag[..S::LANES]);
        let zero_digit = s.eq(mag, s.zero());
        let mut e = lookup::<S, N>(s, t, i, mag);
        e.neg_if(super::point::mask_from_words(s, &neg[..S::LANES]), f);
        // Window 0 too goes through the (complete) addition rather than a select into the
        // identity, as in batch-avx2 (whose select compiled to a store masked by the digit).
        acc = acc.add_mixed(&e, zero_digit, f);
    }
    acc
}

/// [`mul`] for public scalars (verification): each lane loads its own entry by index instead
/// of scanning the window, so wide tables (a shared point's) cost no more per window than
/// narrow ones. Variable-time.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn mul_vartime<S: Lanes, const N: usize>(
    t: &CombDigits,
    bits: usize,
    f: &CurveField<S, N>,
    ks: &[&EcUint],
) -> Proj<S, N> {
    let s = f.s;
    let w = t.w;
    let mut acc = Proj::identity(f);
    let (mut mag, mut neg) = ([0u64; 8], [0u64; 8]);
    let mut cols = [[0u64; 8]; 2 * 11]; // 2N ≤ 22 (P-521)
    for i in 0..booth_windows(bits, w) {
        for (l, k) in ks.iter().enumerate() {
            (mag[l], neg[l]) = booth_digit(k, i, w);
            // a zero digit loads entry 1 and is skipped by the addition's mask
            let e = t.entry(i, mag[l].max(1) as usize);
            for (c, &d) in cols.iter_mut().zip(e) {
                c[l] = d;
            }
        }
        if mag[..S::LANES].iter().all(|&m| m == 0) {
            continue;
        }
        let zero_digit = s.eq(s.from_lanes(&mag[..S::LANES]), s.zero());
        let mut e = Affine {
            x: Fe {
                d: core::array::from_fn(|d| s.from_lanes(&cols[d][..S::LANES])),
                k: 1,
            },
            y: Fe {
                d: core::array::from_fn(|d| s.from_lanes(&cols[N + d][..S::LANES])),
                k: 1,
            },
        };
        e.neg_if(super::point::mask_from_words(s, &neg[..S::LANES]), f);
        acc = acc.add_mixed(&e, zero_digit, f);
    }
    acc
}
