//! Points of `y² = x³ − 3x + b` on four lanes, `N`-digit Montgomery field ([`Field4`]).
//!
//! Representation: [`Proj4`] is homogeneous `(X : Y : Z)` per lane (`x = X/Z`, `y = Y/Z`),
//! the identity `(0 : λ : 0)`; [`Affine4`] is `(x, y)` per lane and never the identity (a lane
//! mask travels beside it where a slot may be empty). Coordinates are in Montgomery form,
//! almost reduced (bound-tracked [`Fe`]s), never canonical inside.
//!
//! Formulas: Renes–Costello–Batina (eprint 2015/1060), `a = −3`: `batch_core::rcb`'s text,
//! shared by every backend, expanded here over [`Field4`]. Complete: no exceptional lanes, no
//! branches; constant-time.

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
        Self {
            x: f.zero(),
            y: f.one,
            z: f.zero(),
        }
    }

    /// `(x : y : 1)`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn from_affine(a: &Affine4<N>, f: &Field4<N>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: f.one,
        }
    }

    /// `a` in lanes where `mask` is zero, `b` where it is all-ones.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn select(a: &Self, b: &Self, mask: V, f: &Field4<N>) -> Self {
        Self {
            x: f.select(&a.x, &b.x, mask),
            y: f.select(&a.y, &b.y, mask),
            z: f.select(&a.z, &b.z, mask),
        }
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
        let (x, y, z) =
            batch_core::rcb_add!(f, f.b, (self.x, self.y, self.z), (rhs.x, rhs.y, rhs.z));
        Self { x, y, z }
    }

    /// `self + rhs`, or `self` in lanes where `rhs_identity` is all-ones (RCB15 Algorithm 5
    /// cannot express an identity `rhs`, hence the select).
    #[target_feature(enable = "avx2")]
    pub fn add_mixed(&self, rhs: &Affine4<N>, rhs_identity: V, f: &Field4<N>) -> Self {
        let (x, y, z) =
            batch_core::rcb_add_mixed!(f, f.b, (self.x, self.y, self.z), (rhs.x, rhs.y));
        let sum = Self { x, y, z };
        Self::select(&sum, self, rhs_identity, f)
    }

    /// `2·self`, complete (RCB15 Algorithm 6, `a = −3`).
    #[target_feature(enable = "avx2")]
    pub fn double(&self, f: &Field4<N>) -> Self {
        let (x, y, z) = batch_core::rcb_double!(f, f.b, (self.x, self.y, self.z));
        Self { x, y, z }
    }
}

/// Canonical limbs per lane of a Montgomery-form element (one product by 1, then one
/// conditional subtraction of `p` in scalar code). Constant-time.
#[target_feature(enable = "avx2")]
fn canonical_lanes<const N: usize>(f: &Field4<N>, p: &ModulusDigits, a: &Fe<N>) -> [EcUint; 4] {
    let d = store(&f.out_of_monty(a));
    let lane = |l: usize| {
        EcUint::from_limbs(&p.canonical(&d[l])).expect("a field element fits the seam width")
    };
    [lane(0), lane(1), lane(2), lane(3)]
}

/// Affine seam points for `pts` (four per entry), with one field inversion per lane for the
/// whole slice (Montgomery's trick, lane-wise). Identity lanes (`Z ≡ 0`) come out as
/// [`AffinePoint::IDENTITY`]; they are swapped for `Z = 1` by select, not skipped.
/// Constant-time.
#[target_feature(enable = "avx2")]
pub fn batch_normalize<const N: usize>(
    f: &Field4<N>,
    p: &ModulusDigits,
    p_minus_2: &[u64],
    pts: &[Proj4<N>],
) -> Vec<AffinePoint> {
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
