//! Jacobian doubling and addition for `y² = x³ − 3x + b`, written once like [`crate::rcb`]
//! and expanded by each backend over its own field (same `f.mul/square/add/sub` interface).
//! The doubling is complete on a prime-order curve (constant-time `k·Q` uses it too); the
//! additions are *incomplete*, for variable-time code over public inputs (verification).
//!
//! Representation: Jacobian `(X : Y : Z)`, `x = X/Z²`, `y = Y/Z³`; the identity is any
//! `(t² : t³ : 0)`, `t ≠ 0`. Conversions: affine `(x, y)` is `(x : y : 1)`; to homogeneous
//! projective (RCB's form) `(X·Z : Y : Z³)`.
//!
//! Costs (checked by the tests): doubling 4M + 4S and 13 additions (Bernstein–Lange
//! `dbl-2001-b` for `a = −3`, with `Z3 = 2·Y·Z` instead of `(Y + Z)² − γ − δ`, as squarings
//! cost as much as products in the SIMD fields, and `8γ² = 2·(2γ)²`), against RCB's 11
//! products and 21 additions; addition with the second point's `Z²` and `Z³` precomputed
//! 11M + 3S and 7 additions (`add-1998-cmo-2`), against RCB's 14 products and 29 additions;
//! mixed addition (`Z₂ = 1`) 8M + 3S and 7 additions. The backends double with
//! [`jac_double_half!`], the same doubling rearranged around `2Y` (9 additions and a halving;
//! −5.6 % instructions a P-256 verification on the scalar path); [`jac_double!`] stays as the
//! textbook form the tests hold it to. `batch-avx512` runs the doubling and the full addition
//! in verification's `u₂·Q` and ECDH's `k·Q`, `batch-scalar` the doubling and the mixed
//! addition in its wNAF loop.
//!
//! Order: the macros issue their field operations in an order an out-of-order core can
//! overlap, each product as soon as its inputs exist and the independent ones between the
//! steps of the longest chain (a field product is itself a chain of carries, so a second,
//! independent product nearby fills the issue slots the first leaves). For the additions
//! ([`jac_sum!`] after its operands' products) this is faster on every field measured
//! (P-256 on `mulx`, Zen 4, chained: mixed addition 156 → 139 ns, full addition 193 → 165 ns;
//! docs/PERF.md). For the doubling it depends on the field: [`jac_double_half_crit!`] (the
//! critical path first) takes P-256's `mulx` field from 121 to 114 ns, but slows P-521's
//! `mulx` field and the portable P-256 field inside the verification loop, so a field opts
//! in ([`crate::curve::CurveArith::DOUBLE_CRITICAL_FIRST`]) and [`jac_double_half!`] keeps
//! the order it had.
//!
//! Where they are wrong (the reason the additions are variable-time helpers only):
//! - Doubling is right for every point of a prime-order curve, the identity included: a `Z = 0`
//!   input stays `Z = 0` (`(t²:t³:0)` doubles to `(t⁸:t¹²:0)`).
//! - Addition `P₁ + P₂` with `P₁ = −P₂` gives `(r² : −r³ : 0)`, the identity: right.
//! - Addition with `P₁ = P₂` gives `(0 : 0 : 0)`, and with `P₁` or `P₂` the identity gives a
//!   `Z = 0` result: wrong. A caller keeps the identity out of both operands (a select) and
//!   checks the end result: once a sum went wrong its `Z` is `0` from then on (every later
//!   addition and doubling keeps `Z = 0`), so a result that cannot be the identity but has
//!   `Z ≡ 0` flags the run for a complete recomputation.

use crate::curve::CurveArith;
use crate::num::Uint;

/// `2·P` in Jacobian coordinates, `a = −3` (`dbl-2001-b`, `Z3 = 2YZ`): 4M + 4S.
#[macro_export]
macro_rules! jac_double {
    ($f:expr, ($x:expr, $y:expr, $z:expr)) => {{
        let f = $f;
        let (x, y, z) = (&$x, &$y, &$z);
        let delta = f.square(z); // δ = Z²
        let gamma = f.square(y); // γ = Y²
        let beta = f.mul(x, &gamma); // β = X·γ
        let t0 = f.sub(x, &delta);
        let t1 = f.add(x, &delta);
        let mut alpha = f.mul(&t0, &t1);
        let t2 = f.add(&alpha, &alpha);
        alpha = f.add(&t2, &alpha); // α = 3·(X − δ)·(X + δ)
        let b2 = f.add(&beta, &beta);
        let b4 = f.add(&b2, &b2);
        let b8 = f.add(&b4, &b4);
        let mut x3 = f.square(&alpha);
        x3 = f.sub(&x3, &b8); // X3 = α² − 8β
        let yz = f.mul(y, z);
        let z3 = f.add(&yz, &yz); // Z3 = 2·Y·Z
        let g2 = f.add(&gamma, &gamma);
        let gg4 = f.square(&g2);
        let gg8 = f.add(&gg4, &gg4); // 8γ² = 2·(2γ)²
        let t3 = f.sub(&b4, &x3);
        let mut y3 = f.mul(&alpha, &t3);
        y3 = f.sub(&y3, &gg8); // Y3 = α·(4β − X3) − 8γ²
        (x3, y3, z3)
    }};
}

/// [`jac_double!`] rearranged around `2Y`, for a field with a halving (`f.half`, as
/// OpenSSL's `ecp_nistz256` doubles): `Z3 = 2Y·Z`, `4β = X·(2Y)²`, `8γ² = ((2Y)²)²/2`. The
/// same 4M + 4S, 9 additions and a halving instead of 13 additions. The same results, the
/// identity included (`Z = 0` stays `0`).
#[macro_export]
macro_rules! jac_double_half {
    ($f:expr, ($x:expr, $y:expr, $z:expr)) => {{
        let f = $f;
        let (x, y, z) = (&$x, &$y, &$z);
        let delta = f.square(z); // δ = Z²
        let y2 = f.add(y, y);
        let z3 = f.mul(&y2, z); // Z3 = 2·Y·Z
        let g4 = f.square(&y2); // 4γ
        let b4 = f.mul(x, &g4); // 4β
        let t0 = f.sub(x, &delta);
        let t1 = f.add(x, &delta);
        let mut alpha = f.mul(&t0, &t1);
        let t2 = f.add(&alpha, &alpha);
        alpha = f.add(&t2, &alpha); // α = 3·(X − δ)·(X + δ)
        let b8 = f.add(&b4, &b4);
        let mut x3 = f.square(&alpha);
        x3 = f.sub(&x3, &b8); // X3 = α² − 8β
        let g16 = f.square(&g4);
        let gg8 = f.half(&g16); // 8γ² = (4γ)²/2
        let t3 = f.sub(&b4, &x3);
        let mut y3 = f.mul(&alpha, &t3);
        y3 = f.sub(&y3, &gg8); // Y3 = α·(4β − X3) − 8γ²
        (x3, y3, z3)
    }};
}

/// [`jac_double_half!`] with its operations issued along the critical path `δ → α → X3 → Y3`
/// and the independent products (`4γ`, `4β`, `Z3`, `16γ²`) between its steps, so that an
/// out-of-order core finds the next independent product close by. The same operations and
/// results; which order is faster depends on the field
/// ([`crate::curve::CurveArith::DOUBLE_CRITICAL_FIRST`], module header).
#[macro_export]
macro_rules! jac_double_half_crit {
    ($f:expr, ($x:expr, $y:expr, $z:expr)) => {{
        let f = $f;
        let (x, y, z) = (&$x, &$y, &$z);
        let delta = f.square(z); // δ = Z²
        let t0 = f.sub(x, &delta);
        let t1 = f.add(x, &delta);
        let mut alpha = f.mul(&t0, &t1);
        let y2 = f.add(y, y);
        let g4 = f.square(&y2); // 4γ
        let t2 = f.add(&alpha, &alpha);
        alpha = f.add(&t2, &alpha); // α = 3·(X − δ)·(X + δ)
        let b4 = f.mul(x, &g4); // 4β
        let mut x3 = f.square(&alpha);
        let z3 = f.mul(&y2, z); // Z3 = 2·Y·Z
        let b8 = f.add(&b4, &b4);
        x3 = f.sub(&x3, &b8); // X3 = α² − 8β
        let g16 = f.square(&g4);
        let t3 = f.sub(&b4, &x3);
        let mut y3 = f.mul(&alpha, &t3);
        let gg8 = f.half(&g16); // 8γ² = (4γ)²/2
        y3 = f.sub(&y3, &gg8); // Y3 = α·(4β − X3) − 8γ²
        (x3, y3, z3)
    }};
}

/// The part of a Jacobian addition after the operands are brought to a common `Z`:
/// from `U1`, `H = U2 − U1`, `S1, S2` (`X·Z'²`, `Y·Z'³` of each) and the caller's `Z`
/// factors `zf`, `(X3, Y3, Z3)` with `Z3 = zf·H`. 5M + 2S.
#[doc(hidden)]
#[macro_export]
macro_rules! jac_sum {
    ($f:expr, $u1:expr, $h:expr, $s1:expr, $s2:expr, $zf:expr) => {{
        let f = $f;
        let (u1, h, s1, s2) = ($u1, $h, $s1, $s2);
        // Each product issued as soon as its inputs exist, the independent ones (`Z3`, `r²`,
        // `S1·H³`) between the steps of the chain `H² → V → X3 → Y3` (module header: order).
        let hh = f.square(h);
        let r = f.sub(s2, s1); // r = S2 − S1
        let z3 = f.mul($zf, h);
        let rr = f.square(&r);
        let hhh = f.mul(h, &hh);
        let v = f.mul(u1, &hh); // V = U1·H²
        let mut x3 = f.sub(&rr, &hhh);
        let s1h = f.mul(s1, &hhh);
        let v2 = f.add(&v, &v);
        x3 = f.sub(&x3, &v2); // X3 = r² − H³ − 2V
        let t = f.sub(&v, &x3);
        let mut y3 = f.mul(&r, &t);
        y3 = f.sub(&y3, &s1h); // Y3 = r·(V − X3) − S1·H³
        (x3, y3, z3)
    }};
}

/// `P₁ + P₂` for an affine `P₂ = (x₂, y₂)` (`Z₂ = 1`, `madd`): 8M + 3S, the same exceptions
/// as [`jac_add!`].
#[macro_export]
macro_rules! jac_add_mixed {
    ($f:expr, ($x1:expr, $y1:expr, $z1:expr), ($x2:expr, $y2:expr)) => {{
        let f = $f;
        let (x1, y1, z1) = (&$x1, &$y1, &$z1);
        let (x2, y2) = (&$x2, &$y2);
        let z1z1 = f.square(z1);
        let u2 = f.mul(x2, &z1z1); // U2 = x2·Z1²
        let z1z1z1 = f.mul(&z1z1, z1);
        let h = f.sub(&u2, x1); // H = U2 − X1
        let s2 = f.mul(y2, &z1z1z1); // S2 = y2·Z1³
        $crate::jac_sum!(f, x1, &h, y1, &s2, z1) // Z3 = Z1·H
    }};
}

/// `P₁ + P₂` in Jacobian coordinates with `Z₂²`, `Z₂³` given (`add-1998-cmo-2`): 11M + 3S.
/// Wrong for `P₁ = P₂` and for an identity operand (module header).
#[macro_export]
macro_rules! jac_add {
    ($f:expr, ($x1:expr, $y1:expr, $z1:expr), ($x2:expr, $y2:expr, $z2:expr, $zz2:expr, $zzz2:expr)) => {{
        let f = $f;
        let (x1, y1, z1) = (&$x1, &$y1, &$z1);
        let (x2, y2, z2, zz2, zzz2) = (&$x2, &$y2, &$z2, &$zz2, &$zzz2);
        let z1z1 = f.square(z1);
        let u1 = f.mul(x1, zz2); // U1 = X1·Z2²
        let z1z1z1 = f.mul(&z1z1, z1);
        let u2 = f.mul(x2, &z1z1); // U2 = X2·Z1²
        let s1 = f.mul(y1, zzz2); // S1 = Y1·Z2³
        let h = f.sub(&u2, &u1); // H = U2 − U1
        let s2 = f.mul(y2, &z1z1z1); // S2 = Y2·Z1³
        let z1z2 = f.mul(z1, z2);
        $crate::jac_sum!(f, &u1, &h, &s1, &s2, &z1z2) // Z3 = Z1·Z2·H
    }};
}

/// Two points' field operations issued side by side: a value is `[a₀, a₁]` and every
/// operation works on both halves (`mul([a₀, a₁], [b₀, b₁]) = [a₀·b₀, a₁·b₁]`), with a field's
/// `mul/square/add/sub/half` interface, so the formula macros above expand over it into two
/// independent chains in one instruction stream. A field product is a chain of dependent
/// carries; one chain leaves most of a core's multipliers idle, two keep them busier
/// (P-256 on `mulx`, Zen 4: a doubling 139 ns alone, 107 ns each two at a time).
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a, F>(pub &'a F);

/// `Pair`'s operations, each the field's on both halves.
macro_rules! pair_ops {
    ($($op:ident($($arg:ident),+);)+) => {
        impl<F> Pair<'_, F> {
            $(
                #[inline(always)]
                pub fn $op<const L: usize>(&self, $($arg: &[Uint<L>; 2]),+) -> [Uint<L>; 2]
                where
                    F: CurveArith<L>,
                {
                    [self.0.$op($(&$arg[0]),+), self.0.$op($(&$arg[1]),+)]
                }
            )+
        }
    };
}

pair_ops! {
    mul(a, b);
    square(a);
    add(a, b);
    sub(a, b);
    half(a);
}

#[cfg(test)]
mod tests {
    use crate::rcb::symbolic::{Exprs, Sym};

    use crate::rcb::test_field::{F, P};

    fn pow(mut a: u64, mut e: u64) -> u64 {
        let mut r = 1;
        while e > 0 {
            if e & 1 == 1 {
                r = r * a % P;
            }
            a = a * a % P;
            e >>= 1;
        }
        r
    }
    fn inv(a: u64) -> u64 {
        pow(a, P - 2)
    }
    /// Affine `(x, y)` of a Jacobian point (`Z ≠ 0`).
    fn jac_affine((x, y, z): (u64, u64, u64)) -> (u64, u64) {
        let zi = inv(z);
        (x * zi % P * zi % P, y * zi % P * zi % P * zi % P)
    }
    /// Affine `(x, y)` of a projective point (`Z ≠ 0`).
    fn proj_affine((x, y, z): (u64, u64, u64)) -> (u64, u64) {
        let zi = inv(z);
        (x * zi % P, y * zi % P)
    }
    /// `(x : y : 1)` scaled to `(λ²x : λ³y : λ)`, with `Z²` and `Z³`.
    fn scaled((x, y): (u64, u64), l: u64) -> (u64, u64, u64, u64, u64) {
        let l2 = l * l % P;
        let l3 = l2 * l % P;
        (l2 * x % P, l3 * y % P, l, l2, l3)
    }

    /// Doubling and addition agree with RCB's complete formulas on points of a curve mod a
    /// small prime (Jacobian inputs with `Z ≠ 1`), and the exceptional cases behave as the
    /// module header says.
    #[test]
    fn agree_with_rcb_and_fail_as_documented() {
        let f = F;
        let (p1, p2) = ((123_456u64, 654_321u64), (5u64, 77u64));
        // b puts p1 on y² = x³ − 3x + b; p2 is then put on the same curve by choosing y.
        let b = (p1.1 * p1.1 % P + 3 * p1.0 + P * P - p1.0 * p1.0 % P * p1.0 % P) % P;
        let rhs = |x: u64| (x * x % P * x % P + P * 3 - 3 * x % P + b) % P;
        // a point with a square right-hand side: search x, y = rhs^((P+1)/4) (P ≡ 3 mod 4)
        let p2 = (p2.0..)
            .map(|x| (x, pow(rhs(x), (P + 1) / 4)))
            .find(|&(x, y)| y * y % P == rhs(x))
            .unwrap();
        let j1 = scaled(p1, 31);
        let j2 = scaled(p2, 4242);
        // doubling, both forms: the same Jacobian coordinates, not only the same point
        let d = crate::jac_double!(&f, (j1.0, j1.1, j1.2));
        let want = crate::rcb_double!(&f, b, (p1.0, p1.1, 1u64));
        assert_eq!(jac_affine(d), proj_affine(want));
        assert_eq!(crate::jac_double_half!(&f, (j1.0, j1.1, j1.2)), d);
        assert_eq!(crate::jac_double_half_crit!(&f, (j1.0, j1.1, j1.2)), d);
        assert_eq!(
            crate::jac_double_half!(&f, (d.0, d.1, d.2)),
            crate::jac_double!(&f, (d.0, d.1, d.2))
        );
        // addition, and mixed addition (the same sum)
        let s = crate::jac_add!(&f, (j1.0, j1.1, j1.2), (j2.0, j2.1, j2.2, j2.3, j2.4));
        let want = crate::rcb_add!(&f, b, (p1.0, p1.1, 1u64), (p2.0, p2.1, 1u64));
        assert_eq!(jac_affine(s), proj_affine(want));
        let sm = crate::jac_add_mixed!(&f, (j1.0, j1.1, j1.2), (p2.0, p2.1));
        assert_eq!(jac_affine(sm), proj_affine(want));
        // mixed: P + P is (0 : 0 : 0), P + (−P) the identity with Y ≠ 0
        assert_eq!(
            crate::jac_add_mixed!(&f, (j1.0, j1.1, j1.2), (p1.0, p1.1)),
            (0, 0, 0)
        );
        let mo = crate::jac_add_mixed!(&f, (j1.0, j1.1, j1.2), (p1.0, P - p1.1));
        assert_eq!(mo.2, 0);
        assert_ne!(mo.1, 0);
        // P + (−P): the identity, with Y ≠ 0
        let neg = scaled((p1.0, P - p1.1), 99);
        let o = crate::jac_add!(&f, (j1.0, j1.1, j1.2), (neg.0, neg.1, neg.2, neg.3, neg.4));
        assert_eq!(o.2, 0);
        assert_ne!(o.1, 0);
        // the identity doubles to the identity
        let oo = crate::jac_double!(&f, (o.0, o.1, o.2));
        assert_eq!(oo.2, 0);
        assert_ne!(oo.1, 0);
        assert_eq!(crate::jac_double_half!(&f, (o.0, o.1, o.2)), oo);
        assert_eq!(crate::jac_double_half_crit!(&f, (o.0, o.1, o.2)), oo);
        // P + P: (0 : 0 : 0), not 2P
        let j1b = scaled(p1, 7);
        let pp = crate::jac_add!(&f, (j1.0, j1.1, j1.2), (j1b.0, j1b.1, j1b.2, j1b.3, j1b.4));
        assert_eq!(pp, (0, 0, 0));
        // O + P: Z = 0, not P
        let op = crate::jac_add!(&f, (o.0, o.1, o.2), (j2.0, j2.1, j2.2, j2.3, j2.4));
        assert_eq!(op.2, 0);
        // and a Z = 0 value stays Z = 0 through later additions and doublings
        let later = crate::jac_add!(&f, (op.0, op.1, op.2), (j1.0, j1.1, j1.2, j1.3, j1.4));
        assert_eq!(later.2, 0);
        assert_eq!(crate::jac_double!(&f, (pp.0, pp.1, pp.2)).2, 0);
    }

    /// The operation counts the module header states (products and squarings together,
    /// additions and subtractions together).
    #[test]
    fn formulas_have_the_stated_costs() {
        let e = Exprs::default();
        let [x, y, z] = [0, 1, 2].map(|i| e.input(i));
        let d: (Sym, Sym, Sym) = crate::jac_double!(&e, (x, y, z));
        assert_eq!(e.cost(&[d.0, d.1, d.2]), (8, 13));
        let h: (Sym, Sym, Sym) = crate::jac_double_half!(&e, (x, y, z));
        assert_eq!(e.cost(&[h.0, h.1, h.2]), (8, 10));
        let c: (Sym, Sym, Sym) = crate::jac_double_half_crit!(&e, (x, y, z));
        assert_eq!(e.cost(&[c.0, c.1, c.2]), (8, 10));
        let e = Exprs::default();
        let [x, y, z, zz, zzz, x1, y1, z1] = [0, 1, 2, 3, 4, 5, 6, 7].map(|i| e.input(i));
        let a: (Sym, Sym, Sym) = crate::jac_add!(&e, (x1, y1, z1), (x, y, z, zz, zzz));
        assert_eq!(e.cost(&[a.0, a.1, a.2]), (14, 7));
        let e = Exprs::default();
        let [x, y, x1, y1, z1] = [0, 1, 2, 3, 4].map(|i| e.input(i));
        let m: (Sym, Sym, Sym) = crate::jac_add_mixed!(&e, (x1, y1, z1), (x, y));
        assert_eq!(e.cost(&[m.0, m.1, m.2]), (11, 7));
    }
}
