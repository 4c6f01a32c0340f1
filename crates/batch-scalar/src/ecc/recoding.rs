//! Single `k·P` by scalar-recoding method — the point-multiplication comparison of the seed
//! paper (Đinh–Nguyễn–Lê 2015, Table 2: NAF, wNAF, …), reproduced by `batch-bench`'s
//! `recoding` criterion group. The backend itself uses only [`Method::Comb`] (for `k·G`) and
//! [`Method::FixedWindow`] (for `k·Q`); the others exist to be measured against them.
//!
//! Representation: `k < n` canonical (`Uint<L>`), `P` affine in Montgomery form (not the
//! identity). Every method uses the same complete projective formulas of [`point`](super::point),
//! so the table isolates the recoding: how many doublings and additions each one needs.
//! Post-condition: a projective point equal to `k·P` (the identity for `k = 0`).
//!
//! The `_vartime` methods branch on the bits of `k`: measurement only, never for secrets.

use batch_core::curve::CurveArith;
use batch_core::num::Uint;

use super::comb::CombTable;
use super::point::{AffineMonty, ProjectivePoint};
use super::straus::wnaf_vartime;
use super::varbase;

/// Width of the [`Method::WnafVartime`] recoding (8 precomputed odd multiples, as in `straus`).
pub const WNAF_WIDTH: usize = 5;

/// A scalar-multiplication method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Left-to-right binary: one doubling per bit, one addition per set bit. Variable-time.
    DoubleAndAddVartime,
    /// Non-adjacent form (width 2): a third of the digits non-zero on average. Variable-time.
    NafVartime,
    /// Width-[`WNAF_WIDTH`] NAF over precomputed odd multiples. Variable-time.
    WnafVartime,
    /// Signed fixed windows of width [`varbase::W`] over a per-call table; constant-time (the
    /// backend's `k·Q`).
    FixedWindow,
    /// Signed comb over a table of `j·2^(w·i)·P` built once; additions only, constant-time
    /// (the backend's `k·G`). Needs the table (see [`table_p256`](super::comb::table_p256)).
    Comb,
}

impl Method {
    pub const ALL: [Method; 5] = [
        Method::DoubleAndAddVartime,
        Method::NafVartime,
        Method::WnafVartime,
        Method::FixedWindow,
        Method::Comb,
    ];

    /// Short name, as used for bench ids.
    pub fn name(self) -> &'static str {
        match self {
            Method::DoubleAndAddVartime => "double-and-add",
            Method::NafVartime => "naf",
            Method::WnafVartime => "wnaf5",
            Method::FixedWindow => "fixed-window5",
            Method::Comb => "comb7",
        }
    }

    /// `k·P` by this method. `comb` must be the table for `p` (only [`Method::Comb`] reads it;
    /// the backend's tables are for the generator).
    pub fn mul<const L: usize>(
        self,
        c: &impl CurveArith<L>,
        p: &AffineMonty<L>,
        comb: &CombTable<L>,
        k: &Uint<L>,
    ) -> ProjectivePoint<L> {
        match self {
            Method::DoubleAndAddVartime => double_and_add_vartime(c, p, k),
            Method::NafVartime => {
                signed_digits_vartime(c, p, &wnaf_vartime(k, 2, c.def().curve.bits()), 2)
            }
            Method::WnafVartime => signed_digits_vartime(
                c,
                p,
                &wnaf_vartime(k, WNAF_WIDTH, c.def().curve.bits()),
                WNAF_WIDTH,
            ),
            Method::FixedWindow => varbase::mul(c, p, 0, k),
            Method::Comb => comb.mul(c, k),
        }
    }
}

/// Left-to-right binary method.
fn double_and_add_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    p: &AffineMonty<L>,
    k: &Uint<L>,
) -> ProjectivePoint<L> {
    let mut acc = ProjectivePoint::identity(c);
    for i in (0..c.def().curve.bits()).rev() {
        acc = acc.double(c);
        if k.window(i, 1) == 1 {
            acc = acc.add_mixed(p, 0, c);
        }
    }
    acc
}

/// Left-to-right over signed odd digits `|d| < 2^(w−1)` (least significant first), with a
/// table of `P, 3P, …, (2^(w−1) − 1)P`.
fn signed_digits_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    p: &AffineMonty<L>,
    digits: &[i32],
    w: usize,
) -> ProjectivePoint<L> {
    let p1 = ProjectivePoint::from_affine(p, c);
    let twice = p1.double(c);
    let mut odd = vec![p1];
    for j in 1..(1usize << (w - 2)) {
        odd.push(odd[j - 1].add(&twice, c));
    }
    let mut acc = ProjectivePoint::identity(c);
    let mut started = false;
    for &d in digits.iter().rev() {
        if started {
            acc = acc.double(c);
        }
        if d != 0 {
            let mut e = odd[(d.unsigned_abs() as usize) / 2];
            e.neg_if(if d < 0 { u64::MAX } else { 0 }, c);
            acc = if started { acc.add(&e, c) } else { e };
            started = true;
        }
    }
    acc
}
