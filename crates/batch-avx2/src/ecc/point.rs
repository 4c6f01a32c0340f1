//! Points of `y² = x³ − 3x + b` on four lanes, `N`-digit Montgomery field ([`Field4`]).
//!
//! Representation: [`Proj4`] is homogeneous `(X : Y : Z)` per lane (`x = X/Z`, `y = Y/Z`),
//! the identity `(0 : λ : 0)`; [`Affine4`] is `(x, y)` per lane and never the identity (a lane
//! mask travels beside it where a slot may be empty). Coordinates are in Montgomery form,
//! almost reduced (bound-tracked [`Fe`]s), never canonical inside.
//!
//! Formulas: Renes–Costello–Batina, "Complete addition formulas for prime order elliptic
//! curves" (eprint 2015/1060), `a = −3`: Algorithm 4 (addition), 5 (mixed addition), 6
//! (doubling), line for line as in `batch-scalar`'s `ecc/point.rs`; trailing comments are the
//! paper's step numbers. Complete: no exceptional lanes, no branches; constant-time.

use batch_core::num::Uint;
use batch_core::{AffinePoint, EcUint};

use crate::digits::ModulusDigits;
use crate::field::{store, Fe, Field4, V};

/// Four affine points in Montgomery form; never the identity.
#[derive(Clone, Copy, Debug)]
pub struct Affine4<const N: usize> {
    pub x: Fe<N>,
    pub y: Fe<N>,
}

impl<const N: usize> Affine4<N> {
    /// `−self` in lanes where `mask` is all-ones.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn neg_if(&mut self, mask: V, f: &Field4<N>) {
        let ny = f.neg(&self.y);
        self.y = f.select(&self.y, &ny, mask);
    }
}

/// Four points in homogeneous projective coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Proj4<const N: usize> {
    pub x: Fe<N>,
    pub y: Fe<N>,
    pub z: Fe<N>,
}

impl<const N: usize> Proj4<N> {
    /// `(0 : 1 : 0)` in every lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn identity(f: &Field4<N>) -> Self {
        Self { x: f.zero(), y: f.one, z: f.zero() }
    }

    /// `(x : y : 1)`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn from_affine(a: &Affine4<N>, f: &Field4<N>) -> Self {
        Self { x: a.x, y: a.y, z: f.one }
    }

    /// `a` in lanes where `mask` is zero, `b` where it is all-ones.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn select(a: &Self, b: &Self, mask: V, f: &Field4<N>) -> Self {
        Self { x: f.select(&a.x, &b.x, mask), y: f.select(&a.y, &b.y, mask), z: f.select(&a.z, &b.z, mask) }
    }

    /// `−self` in lanes where `mask` is all-ones.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn neg_if(&mut self, mask: V, f: &Field4<N>) {
        let ny = f.neg(&self.y);
        self.y = f.select(&self.y, &ny, mask);
    }

    /// `self + rhs`, complete (RCB15 Algorithm 4, `a = −3`).
    #[target_feature(enable = "avx2")]
    pub fn add(&self, rhs: &Self, f: &Field4<N>) -> Self {
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2, z2) = (&rhs.x, &rhs.y, &rhs.z);
        let mut t0 = f.mul(x1, x2); // 1
        let mut t1 = f.mul(y1, y2); // 2
        let mut t2 = f.mul(z1, z2); // 3
        let mut t3 = f.add(x1, y1); // 4
        let mut t4 = f.add(x2, y2); // 5
        t3 = f.mul(&t3, &t4); // 6
        t4 = f.add(&t0, &t1); // 7
        t3 = f.sub(&t3, &t4); // 8
        t4 = f.add(y1, z1); // 9
        let mut x3 = f.add(y2, z2); // 10
        t4 = f.mul(&t4, &x3); // 11
        x3 = f.add(&t1, &t2); // 12
        t4 = f.sub(&t4, &x3); // 13
        x3 = f.add(x1, z1); // 14
        let mut y3 = f.add(x2, z2); // 15
        x3 = f.mul(&x3, &y3); // 16
        y3 = f.add(&t0, &t2); // 17
        y3 = f.sub(&x3, &y3); // 18
        let mut z3 = f.mul(&f.b, &t2); // 19
        x3 = f.sub(&y3, &z3); // 20
        z3 = f.add(&x3, &x3); // 21
        x3 = f.add(&x3, &z3); // 22
        z3 = f.sub(&t1, &x3); // 23
        x3 = f.add(&t1, &x3); // 24
        y3 = f.mul(&f.b, &y3); // 25
        t1 = f.add(&t2, &t2); // 26
        t2 = f.add(&t1, &t2); // 27
        y3 = f.sub(&y3, &t2); // 28
        y3 = f.sub(&y3, &t0); // 29
        t1 = f.add(&y3, &y3); // 30
        y3 = f.add(&t1, &y3); // 31
        t1 = f.add(&t0, &t0); // 32
        t0 = f.add(&t1, &t0); // 33
        t0 = f.sub(&t0, &t2); // 34
        t1 = f.mul(&t4, &y3); // 35
        t2 = f.mul(&t0, &y3); // 36
        y3 = f.mul(&x3, &z3); // 37
        y3 = f.add(&y3, &t2); // 38
        x3 = f.mul(&x3, &t3); // 39
        x3 = f.sub(&x3, &t1); // 40
        z3 = f.mul(&z3, &t4); // 41
        t1 = f.mul(&t3, &t0); // 42
        z3 = f.add(&z3, &t1); // 43
        Self { x: x3, y: y3, z: z3 }
    }

    /// `self + rhs`, or `self` in lanes where `rhs_identity` is all-ones (RCB15 Algorithm 5
    /// cannot express an identity `rhs`, hence the select).
    #[target_feature(enable = "avx2")]
    pub fn add_mixed(&self, rhs: &Affine4<N>, rhs_identity: V, f: &Field4<N>) -> Self {
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2) = (&rhs.x, &rhs.y);
        let mut t0 = f.mul(x1, x2); // 1
        let mut t1 = f.mul(y1, y2); // 2
        let mut t3 = f.add(x2, y2); // 3
        let mut t4 = f.add(x1, y1); // 4
        t3 = f.mul(&t3, &t4); // 5
        t4 = f.add(&t0, &t1); // 6
        t3 = f.sub(&t3, &t4); // 7
        t4 = f.mul(y2, z1); // 8
        t4 = f.add(&t4, y1); // 9
        let mut y3 = f.mul(x2, z1); // 10
        y3 = f.add(&y3, x1); // 11
        let mut z3 = f.mul(&f.b, z1); // 12
        let mut x3 = f.sub(&y3, &z3); // 13
        z3 = f.add(&x3, &x3); // 14
        x3 = f.add(&x3, &z3); // 15
        z3 = f.sub(&t1, &x3); // 16
        x3 = f.add(&t1, &x3); // 17
        y3 = f.mul(&f.b, &y3); // 18
        t1 = f.add(z1, z1); // 19
        let mut t2 = f.add(&t1, z1); // 20
        y3 = f.sub(&y3, &t2); // 21
        y3 = f.sub(&y3, &t0); // 22
        t1 = f.add(&y3, &y3); // 23
        y3 = f.add(&t1, &y3); // 24
        t1 = f.add(&t0, &t0); // 25
        t0 = f.add(&t1, &t0); // 26
        t0 = f.sub(&t0, &t2); // 27
        t1 = f.mul(&t4, &y3); // 28
        t2 = f.mul(&t0, &y3); // 29
        y3 = f.mul(&x3, &z3); // 30
        y3 = f.add(&y3, &t2); // 31
        x3 = f.mul(&x3, &t3); // 32
        x3 = f.sub(&x3, &t1); // 33
        z3 = f.mul(&z3, &t4); // 34
        t1 = f.mul(&t3, &t0); // 35
        z3 = f.add(&z3, &t1); // 36
        let sum = Self { x: x3, y: y3, z: z3 };
        Self::select(&sum, self, rhs_identity, f)
    }

    /// `2·self`, complete (RCB15 Algorithm 6, `a = −3`).
    #[target_feature(enable = "avx2")]
    pub fn double(&self, f: &Field4<N>) -> Self {
        let (x, y, z) = (&self.x, &self.y, &self.z);
        let mut t0 = f.square(x); // 1
        let t1 = f.square(y); // 2
        let mut t2 = f.square(z); // 3
        let mut t3 = f.mul(x, y); // 4
        t3 = f.add(&t3, &t3); // 5
        let mut z3 = f.mul(x, z); // 6
        z3 = f.add(&z3, &z3); // 7
        let mut y3 = f.mul(&f.b, &t2); // 8
        y3 = f.sub(&y3, &z3); // 9
        let mut x3 = f.add(&y3, &y3); // 10
        y3 = f.add(&x3, &y3); // 11
        x3 = f.sub(&t1, &y3); // 12
        y3 = f.add(&t1, &y3); // 13
        y3 = f.mul(&x3, &y3); // 14
        x3 = f.mul(&x3, &t3); // 15
        t3 = f.add(&t2, &t2); // 16
        t2 = f.add(&t2, &t3); // 17
        z3 = f.mul(&f.b, &z3); // 18
        z3 = f.sub(&z3, &t2); // 19
        z3 = f.sub(&z3, &t0); // 20
        t3 = f.add(&z3, &z3); // 21
        z3 = f.add(&z3, &t3); // 22
        t3 = f.add(&t0, &t0); // 23
        t0 = f.add(&t3, &t0); // 24
        t0 = f.sub(&t0, &t2); // 25
        t0 = f.mul(&t0, &z3); // 26
        y3 = f.add(&y3, &t0); // 27
        t0 = f.mul(y, z); // 28
        t0 = f.add(&t0, &t0); // 29
        z3 = f.mul(&t0, &z3); // 30
        x3 = f.sub(&x3, &z3); // 31
        z3 = f.mul(&t0, &t1); // 32
        z3 = f.add(&z3, &z3); // 33
        z3 = f.add(&z3, &z3); // 34
        Self { x: x3, y: y3, z: z3 }
    }
}

/// Canonical limbs per lane of a Montgomery-form element (one product by 1, then one
/// conditional subtraction of `p` in scalar code). Constant-time.
#[target_feature(enable = "avx2")]
fn canonical_lanes<const N: usize>(f: &Field4<N>, p: &ModulusDigits, a: &Fe<N>) -> [EcUint; 4] {
    let d = store(&f.out_of_monty(a));
    let lane = |l: usize| EcUint::from_limbs(&p.canonical(&d[l])).expect("a field element fits the seam width");
    [lane(0), lane(1), lane(2), lane(3)]
}

/// Affine seam points for `pts` (four per entry), with one field inversion per lane for the
/// whole slice (Montgomery's trick, lane-wise). Identity lanes (`Z ≡ 0`) come out as
/// [`AffinePoint::IDENTITY`]; they are swapped for `Z = 1` by select, not skipped.
/// Constant-time.
#[target_feature(enable = "avx2")]
pub fn batch_normalize<const N: usize>(f: &Field4<N>, p: &ModulusDigits, p_minus_2: &[u64], pts: &[Proj4<N>]) -> Vec<AffinePoint> {
    // Identity masks from the canonical Z of each lane.
    let mut ids = Vec::with_capacity(pts.len());
    let mut zs = Vec::with_capacity(pts.len());
    for q in pts {
        let zc = canonical_lanes(f, p, &q.z);
        let m = zc.map(|z| z.is_zero_mask());
        let id = crate::field::from_lanes(m);
        zs.push(f.select(&q.z, &f.one, id));
        ids.push(m);
    }
    let mut prefix = Vec::with_capacity(pts.len());
    let mut acc = f.one;
    for z in &zs {
        prefix.push(acc);
        acc = f.mul(&acc, z);
    }
    let mut inv = f.pow_public(&acc, p_minus_2);
    let mut out = vec![AffinePoint::IDENTITY; 4 * pts.len()];
    for i in (0..pts.len()).rev() {
        let zinv = f.mul(&inv, &prefix[i]);
        inv = f.mul(&inv, &zs[i]);
        let x = canonical_lanes(f, p, &f.mul(&pts[i].x, &zinv));
        let y = canonical_lanes(f, p, &f.mul(&pts[i].y, &zinv));
        for l in 0..4 {
            let id = ids[i][l];
            out[4 * i + l] = AffinePoint {
                x: Uint::select(&x[l], &Uint::ZERO, id),
                y: Uint::select(&y[l], &Uint::ZERO, id),
                // NOTE: as in batch-scalar, the seam marks the identity with a bool; whether
                // a result is the identity (k = 0 or Q = O) is visible to the caller anyway,
                // so it is declassified (the Result around the point may keep its tag there).
                infinity: batch_core::ct::declassify_mask(id),
            };
        }
    }
    out
}
