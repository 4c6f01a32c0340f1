//! Points of `y² = x³ − 3x + b` on `S::LANES` lanes, `N`-digit Montgomery field
//! ([`CurveField`]).
//!
//! Representation: [`Proj`] is homogeneous `(X : Y : Z)` per lane (`x = X/Z`, `y = Y/Z`), the
//! identity `(0 : λ : 0)`; [`Affine`] is `(x, y)` per lane and never the identity (a lane mask
//! travels beside it where a slot may be empty). Coordinates are in Montgomery form, almost
//! reduced (bound-tracked [`Fe`]s), never canonical inside.
//!
//! Formulas: Renes–Costello–Batina (eprint 2015/1060), `a = −3`: `batch_core::rcb`'s text,
//! shared by every backend, expanded here over [`CurveField`]. Complete: no exceptional lanes,
//! no branches; constant-time.

use batch_core::num::Uint;
use batch_core::{AffinePoint, EcUint};

use crate::digits::ModulusDigits;
use crate::field::{store, CurveField, Fe};
use crate::simd::Lanes;

/// Affine points in Montgomery form, one per lane; never the identity.
#[derive(Clone, Copy, Debug)]
pub struct Affine<S: Lanes, const N: usize> {
    pub x: Fe<S, N>,
    pub y: Fe<S, N>,
}

impl<S: Lanes, const N: usize> Affine<S, N> {
    /// `−self` in the lanes of `m`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn neg_if(&mut self, m: S::M, f: &CurveField<S, N>) {
        let ny = f.neg(&self.y);
        self.y = f.select(&self.y, &ny, m);
    }
}

/// Three coordinates: `a`'s outside the lanes of `m`, `b`'s in them (`Proj` and `Jac`).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn select3<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    a: [&Fe<S, N>; 3],
    b: [&Fe<S, N>; 3],
    m: S::M,
) -> [Fe<S, N>; 3] {
    [
        f.select(a[0], b[0], m),
        f.select(a[1], b[1], m),
        f.select(a[2], b[2], m),
    ]
}

/// Points in homogeneous projective coordinates, one per lane.
#[derive(Clone, Copy, Debug)]
pub struct Proj<S: Lanes, const N: usize> {
    pub x: Fe<S, N>,
    pub y: Fe<S, N>,
    pub z: Fe<S, N>,
}

impl<S: Lanes, const N: usize> Proj<S, N> {
    /// `(0 : 1 : 0)` in every lane.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn identity(f: &CurveField<S, N>) -> Self {
        Self {
            x: f.zero(),
            y: f.one,
            z: f.zero(),
        }
    }

    /// `(x : y : 1)`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn from_affine(a: &Affine<S, N>, f: &CurveField<S, N>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: f.one,
        }
    }

    /// `a` outside the lanes of `m`, `b` in them.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn select(a: &Self, b: &Self, m: S::M, f: &CurveField<S, N>) -> Self {
        let [x, y, z] = select3(f, [&a.x, &a.y, &a.z], [&b.x, &b.y, &b.z], m);
        Self { x, y, z }
    }

    /// `−self` in the lanes of `m`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn neg_if(&mut self, m: S::M, f: &CurveField<S, N>) {
        let ny = f.neg(&self.y);
        self.y = f.select(&self.y, &ny, m);
    }

    /// `self + rhs`, complete (RCB15 Algorithm 4, `a = −3`).
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn add(&self, rhs: &Self, f: &CurveField<S, N>) -> Self {
        let (x, y, z) =
            batch_core::rcb_add!(f, f.b, (self.x, self.y, self.z), (rhs.x, rhs.y, rhs.z));
        Self { x, y, z }
    }

    /// `self + rhs`, or `self` in the lanes of `rhs_identity` (RCB15 Algorithm 5 cannot
    /// express an identity `rhs`, hence the select).
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn add_mixed(&self, rhs: &Affine<S, N>, rhs_identity: S::M, f: &CurveField<S, N>) -> Self {
        let (x, y, z) =
            batch_core::rcb_add_mixed!(f, f.b, (self.x, self.y, self.z), (rhs.x, rhs.y));
        Self::select(&Self { x, y, z }, self, rhs_identity, f)
    }

    /// `2·self`, complete (RCB15 Algorithm 6, `a = −3`).
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn double(&self, f: &CurveField<S, N>) -> Self {
        let (x, y, z) = batch_core::rcb_double!(f, f.b, (self.x, self.y, self.z));
        Self { x, y, z }
    }
}

/// Points in Jacobian coordinates, one per lane (`x = X/Z²`, `y = Y/Z³`), over
/// `batch_core::jacobian`'s formulas: the doubling is complete (constant-time `k·Q` uses it),
/// the addition is not (variable-time code over public inputs only).
#[derive(Clone, Copy, Debug)]
pub struct Jac<S: Lanes, const N: usize> {
    pub x: Fe<S, N>,
    pub y: Fe<S, N>,
    pub z: Fe<S, N>,
}

/// A Jacobian point with its `Z²` and `Z³`, as an addition's second operand.
#[derive(Clone, Copy, Debug)]
pub struct JacEntry<S: Lanes, const N: usize> {
    pub p: Jac<S, N>,
    pub zz: Fe<S, N>,
    pub zzz: Fe<S, N>,
}

impl<S: Lanes, const N: usize> Jac<S, N> {
    /// The same point, every register through [`Lanes::opaque`] (for an update in place
    /// under a secret mask: `varbase::mul`).
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn opaque(mut self, f: &CurveField<S, N>) -> Self {
        // a loop, not a closure: closures do not inherit the target features, and an
        // out-of-line call per register costs more than the selection
        for v in self
            .x
            .d
            .iter_mut()
            .chain(&mut self.y.d)
            .chain(&mut self.z.d)
        {
            *v = f.s.opaque(*v);
        }
        self
    }

    /// `(x : y : 1)`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn from_affine(a: &Affine<S, N>, f: &CurveField<S, N>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: f.one,
        }
    }

    /// `2·self` (`batch_core::jac_double_half!`, with the lanes' halving): right for every
    /// point, the identity included (with `Y ≠ 0`); complete and constant-time on prime-order
    /// curves.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn double(&self, f: &CurveField<S, N>) -> Self {
        let (x, y, z) = batch_core::jac_double_half!(f, (self.x, self.y, self.z));
        Self { x, y, z }
    }

    /// `self + rhs` (`batch_core::jac_add!`): wrong where `self = rhs` or either is the
    /// identity (then `Z = 0`); see `batch_core::jacobian`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn add(&self, rhs: &JacEntry<S, N>, f: &CurveField<S, N>) -> Self {
        let r = &rhs.p;
        let (x, y, z) = batch_core::jac_add!(
            f,
            (self.x, self.y, self.z),
            (r.x, r.y, r.z, rhs.zz, rhs.zzz)
        );
        Self { x, y, z }
    }

    /// With `Z²` and `Z³`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn entry(&self, f: &CurveField<S, N>) -> JacEntry<S, N> {
        let zz = f.square(&self.z);
        JacEntry {
            p: *self,
            zz,
            zzz: f.mul(&zz, &self.z),
        }
    }

    /// `a` outside the lanes of `m`, `b` in them.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn select(a: &Self, b: &Self, m: S::M, f: &CurveField<S, N>) -> Self {
        let [x, y, z] = select3(f, [&a.x, &a.y, &a.z], [&b.x, &b.y, &b.z], m);
        Self { x, y, z }
    }

    /// The same point from homogeneous projective coordinates, `(X·Z : Y·Z² : Z)`, with the
    /// identity (`Z ≡ 0`, which that map would send to `(0 : 0 : 0)`) as `(1 : 1 : 0)`.
    /// Constant-time: the identity lanes are found by [`CurveField::is_zero`] and selected.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn from_proj(p: &Proj<S, N>, f: &CurveField<S, N>) -> Self {
        let zz = f.square(&p.z);
        let j = Self {
            x: f.mul(&p.x, &p.z),
            y: f.mul(&p.y, &zz),
            z: p.z,
        };
        let id = Self {
            x: f.one,
            y: f.one,
            z: f.zero(),
        };
        Self::select(&j, &id, f.is_zero(&p.z), f)
    }

    /// The same point in homogeneous projective coordinates, `(X·Z : Y : Z³)` (the identity
    /// `(t² : t³ : 0)` goes to `(0 : t³ : 0)`).
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn to_proj(&self, f: &CurveField<S, N>) -> Proj<S, N> {
        let zz = f.square(&self.z);
        Proj {
            x: f.mul(&self.x, &self.z),
            y: self.y,
            z: f.mul(&zz, &self.z),
        }
    }
}

/// Canonical limbs per lane of a Montgomery-form element (one product by 1, then one
/// conditional subtraction of `p` in scalar code). Constant-time.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn canonical_lanes<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    p: &ModulusDigits,
    a: &Fe<S, N>,
) -> Vec<EcUint> {
    store(f.s, &f.out_of_monty(a))
        .iter()
        .map(|d| EcUint::from_limbs(&p.canonical(d)).expect("a field element fits the seam width"))
        .collect()
}

/// A lane mask from per-lane all-ones / zero words.
#[inline(always)]
pub fn mask_from_words<S: Lanes>(s: S, words: &[u64]) -> S::M {
    s.eq(s.from_lanes(words), s.splat(u64::MAX))
}

/// Per lane, whether it is in `m` (the first `S::LANES` entries; for public masks only).
#[inline(always)]
pub fn lanes_of_mask_vartime<S: Lanes>(s: S, m: S::M) -> [bool; 8] {
    let mut words = [0u64; 8];
    s.to_lanes(
        s.select(s.zero(), s.splat(u64::MAX), m),
        &mut words[..S::LANES],
    );
    words.map(|w| w != 0)
}

/// [`mask_from_words`] from per-lane flags.
#[inline(always)]
pub fn mask_from_lanes<S: Lanes>(s: S, lanes: &[bool]) -> S::M {
    let mut words = [0u64; 8];
    for (w, &b) in words.iter_mut().zip(lanes) {
        *w = if b { u64::MAX } else { 0 };
    }
    mask_from_words(s, &words[..S::LANES])
}

/// Affine seam points for `pts` (`S::LANES` per entry, lane-major order), with one field
/// inversion per lane for the whole slice (Montgomery's trick, lane-wise). Identity lanes
/// (`Z ≡ 0`) come out as [`AffinePoint::IDENTITY`]; they are swapped for `Z = 1` by select,
/// not skipped. Constant-time.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn batch_normalize<S: Lanes, const N: usize>(
    f: &CurveField<S, N>,
    p: &ModulusDigits,
    p_minus_2: &[u64],
    pts: &[Proj<S, N>],
) -> Vec<AffinePoint> {
    let lanes = S::LANES;
    let mut ids = Vec::with_capacity(pts.len());
    let mut zs = Vec::with_capacity(pts.len());
    for q in pts {
        let m: Vec<u64> = canonical_lanes(f, p, &q.z)
            .iter()
            .map(|z| z.is_zero_mask())
            .collect();
        zs.push(f.select(&q.z, &f.one, mask_from_words(f.s, &m)));
        ids.push(m);
    }
    let mut prefix = Vec::with_capacity(pts.len());
    let mut acc = f.one;
    for z in &zs {
        prefix.push(acc);
        acc = f.mul(&acc, z);
    }
    let mut inv = f.pow_public(&acc, p_minus_2);
    let mut out = vec![AffinePoint::IDENTITY; lanes * pts.len()];
    for i in (0..pts.len()).rev() {
        let zinv = f.mul(&inv, &prefix[i]);
        inv = f.mul(&inv, &zs[i]);
        let x = canonical_lanes(f, p, &f.mul(&pts[i].x, &zinv));
        let y = canonical_lanes(f, p, &f.mul(&pts[i].y, &zinv));
        for l in 0..lanes {
            let id = ids[i][l];
            out[lanes * i + l] = AffinePoint {
                x: Uint::select(&x[l], &Uint::ZERO, id),
                y: Uint::select(&y[l], &Uint::ZERO, id),
                // NOTE: as in batch-scalar, the seam marks the identity with a bool; whether a
                // result is the identity (k = 0 or Q = O) is visible to the caller anyway.
                infinity: batch_core::ct::declassify_mask(id),
            };
        }
    }
    out
}
