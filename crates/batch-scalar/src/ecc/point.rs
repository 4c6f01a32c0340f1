//! Points of `y² = x³ − 3x + b` over `F_p`, `L`-limb Montgomery arithmetic.
//!
//! Representation: [`ProjectivePoint`] is homogeneous `(X : Y : Z)` with `x = X/Z`, `y = Y/Z`;
//! the identity is any `(0 : λ : 0)`, [`ProjectivePoint::identity`] gives `(0 : 1 : 0)`.
//! [`AffineMonty`] is `(x, y)`, never the identity: where a slot may hold "no point", a mask
//! travels beside it. Every coordinate is in Montgomery form and fully reduced (`< p`) on entry
//! and exit.
//!
//! Formulas: Renes–Costello–Batina (eprint 2015/1060), `a = −3`, complete on prime-order
//! curves: no exceptional inputs (identity, `P = ±Q`), hence no branches. The formula text is
//! `batch_core::rcb`'s, shared by every backend; here it runs on the caller's
//! `CurveArith` (the portable `CurveDef`, or a backend's faster field for one curve).
//! [`JacobianPoint`] holds the comb's Jacobian sums (`batch_core::jacobian`, incomplete: its
//! constant-time addition selects around the exceptions) and `straus`'s variable-time ones.
//! Everything else here is constant-time.

use batch_core::curve::CurveArith;
use batch_core::num::Uint;

/// An affine point in Montgomery form; never the identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AffineMonty<const L: usize> {
    pub x: Uint<L>,
    pub y: Uint<L>,
}

impl<const L: usize> AffineMonty<L> {
    /// `a` where `mask` is zero, `b` where it is all-ones.
    #[inline(always)]
    pub fn select(a: &Self, b: &Self, mask: u64) -> Self {
        Self {
            x: Uint::select(&a.x, &b.x, mask),
            y: Uint::select(&a.y, &b.y, mask),
        }
    }

    /// `−self` where `mask` is all-ones.
    #[inline(always)]
    pub fn neg_if(&mut self, mask: u64, c: &impl CurveArith<L>) {
        let ny = c.neg(&self.y);
        self.y.assign_if(&ny, mask);
    }
}

/// A point in homogeneous projective coordinates, Montgomery form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProjectivePoint<const L: usize> {
    pub x: Uint<L>,
    pub y: Uint<L>,
    pub z: Uint<L>,
}

impl<const L: usize> ProjectivePoint<L> {
    /// `(0 : 1 : 0)`.
    #[inline(always)]
    pub fn identity(c: &impl CurveArith<L>) -> Self {
        Self {
            x: Uint::ZERO,
            y: *c.def().p.one(),
            z: Uint::ZERO,
        }
    }

    /// `(x : y : 1)`.
    #[inline(always)]
    pub fn from_affine(a: &AffineMonty<L>, c: &impl CurveArith<L>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: *c.def().p.one(),
        }
    }

    /// All-ones if this is the identity (`Z = 0`).
    #[inline(always)]
    pub fn is_identity_mask(&self) -> u64 {
        self.z.is_zero_mask()
    }

    /// `a` where `mask` is zero, `b` where it is all-ones.
    #[inline(always)]
    pub fn select(a: &Self, b: &Self, mask: u64) -> Self {
        Self {
            x: Uint::select(&a.x, &b.x, mask),
            y: Uint::select(&a.y, &b.y, mask),
            z: Uint::select(&a.z, &b.z, mask),
        }
    }

    /// Replaces `self` with `other` where `mask` is all-ones.
    #[inline(always)]
    pub fn assign_if(&mut self, other: &Self, mask: u64) {
        self.x.assign_if(&other.x, mask);
        self.y.assign_if(&other.y, mask);
        self.z.assign_if(&other.z, mask);
    }

    /// `−self` where `mask` is all-ones (`(X : −Y : Z)`; the identity stays the identity).
    #[inline(always)]
    pub fn neg_if(&mut self, mask: u64, c: &impl CurveArith<L>) {
        let ny = c.neg(&self.y);
        self.y.assign_if(&ny, mask);
    }

    /// `self + rhs`, complete (RCB15 Algorithm 4, `a = −3`).
    #[inline(always)]
    pub fn add(&self, rhs: &Self, c: &impl CurveArith<L>) -> Self {
        let (x, y, z) = batch_core::rcb_add!(
            c,
            c.def().b,
            (self.x, self.y, self.z),
            (rhs.x, rhs.y, rhs.z)
        );
        Self { x, y, z }
    }

    /// `self + rhs`, or `self` where `rhs_identity` is all-ones (then `rhs` may hold anything).
    /// RCB15 Algorithm 5 (`a = −3`) is complete in `self` but cannot express an identity `rhs`,
    /// hence the select.
    #[inline(always)]
    pub fn add_mixed(
        &self,
        rhs: &AffineMonty<L>,
        rhs_identity: u64,
        c: &impl CurveArith<L>,
    ) -> Self {
        let (x, y, z) =
            batch_core::rcb_add_mixed!(c, c.def().b, (self.x, self.y, self.z), (rhs.x, rhs.y));
        let sum = Self { x, y, z };
        Self::select(&sum, self, rhs_identity)
    }

    /// `2·self`, complete (RCB15 Algorithm 6, `a = −3`).
    #[inline(always)]
    pub fn double(&self, c: &impl CurveArith<L>) -> Self {
        let (x, y, z) = batch_core::rcb_double!(c, c.def().b, (self.x, self.y, self.z));
        Self { x, y, z }
    }
}

/// Jacobian `(X : Y : Z)`, Montgomery form, `x = X/Z²`, `y = Y/Z³`; the identity has `Z = 0`.
/// Its formulas (`batch_core::jacobian`) are incomplete: the variable-time methods branch
/// around the exceptions, [`JacobianPoint::add_affine_ct`] selects around those it can meet.
#[derive(Clone, Copy, Debug, Default)]
pub struct JacobianPoint<const L: usize> {
    pub x: Uint<L>,
    pub y: Uint<L>,
    pub z: Uint<L>,
}

impl<const L: usize> JacobianPoint<L> {
    pub fn identity(c: &impl CurveArith<L>) -> Self {
        Self {
            x: *c.def().p.one(),
            y: *c.def().p.one(),
            z: Uint::ZERO,
        }
    }

    /// `(x : y : 1)`.
    #[inline(always)]
    pub fn from_affine(a: &AffineMonty<L>, c: &impl CurveArith<L>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: *c.def().p.one(),
        }
    }

    /// `a` where `mask` is zero, `b` where it is all-ones.
    #[inline(always)]
    pub fn select(a: &Self, b: &Self, mask: u64) -> Self {
        Self {
            x: Uint::select(&a.x, &b.x, mask),
            y: Uint::select(&a.y, &b.y, mask),
            z: Uint::select(&a.z, &b.z, mask),
        }
    }

    /// `self + a` (`batch_core::jac_add_mixed!`, 8M + 3S), or `self` where `skip` is all-ones
    /// (then `a` may hold anything); constant-time. An identity `self` is handled by select
    /// (the sum is then `a`), and `self = −a` gives the identity (`Z = 0`); **`self = a` is
    /// wrong** (`(0 : 0 : 0)`), so the caller must rule it out: the comb does, by the sizes of
    /// its partial sums (see `comb`).
    #[inline(always)]
    pub fn add_affine_ct(&self, a: &AffineMonty<L>, skip: u64, c: &impl CurveArith<L>) -> Self {
        let (x, y, z) = batch_core::jac_add_mixed!(c, (self.x, self.y, self.z), (a.x, a.y));
        let sum = Self::select(
            &Self { x, y, z },
            &Self::from_affine(a, c),
            self.z.is_zero_mask(),
        );
        Self::select(&sum, self, skip)
    }

    pub fn is_identity_vartime(&self) -> bool {
        self.z.is_zero_vartime()
    }

    /// The same point from homogeneous coordinates, `(X·Z : Y·Z² : Z)` (2M + 1S), with the
    /// identity (`Z = 0`, which that map would send to `(0 : 0 : 0)`, a fixed point of every
    /// formula) as `(1 : 1 : 0)`. Constant-time: the identity is selected by mask.
    #[inline(always)]
    pub fn from_projective(p: &ProjectivePoint<L>, c: &impl CurveArith<L>) -> Self {
        let f = c;
        let zz = f.square(&p.z);
        let j = Self {
            x: f.mul(&p.x, &p.z),
            y: f.mul(&p.y, &zz),
            z: p.z,
        };
        Self::select(&j, &Self::identity(c), p.z.is_zero_mask())
    }

    /// `2·self` for `a = −3` (`batch_core::jac_double_half!`, 4M + 4S, in the order the
    /// field asks for: `CurveArith::DOUBLE_CRITICAL_FIRST`), constant-time: right for every
    /// point of a prime-order curve (no point has `y = 0`), the identity `(t² : t³ : 0)`
    /// included, which it maps to `(t'² : t'³ : 0)` with `t' ≠ 0`.
    #[inline(always)]
    pub fn double<C: CurveArith<L>>(&self, c: &C) -> Self {
        let (x, y, z) = if C::DOUBLE_CRITICAL_FIRST {
            batch_core::jac_double_half_crit!(c, (self.x, self.y, self.z))
        } else {
            batch_core::jac_double_half!(c, (self.x, self.y, self.z))
        };
        Self { x, y, z }
    }

    /// `[2·p₀, 2·p₁]`, the two doublings' field operations interleaved
    /// (`batch_core::jacobian::Pair`): the same results as [`JacobianPoint::double`] on each,
    /// constant-time likewise.
    #[inline(always)]
    pub fn double_pair(p: &[Self; 2], c: &impl CurveArith<L>) -> [Self; 2] {
        let f = batch_core::jacobian::Pair(c);
        let (x, y, z) = batch_core::jac_double_half!(
            &f,
            ([p[0].x, p[1].x], [p[0].y, p[1].y], [p[0].z, p[1].z])
        );
        [
            Self {
                x: x[0],
                y: y[0],
                z: z[0],
            },
            Self {
                x: x[1],
                y: y[1],
                z: z[1],
            },
        ]
    }

    /// `2·self` for `a = −3` (`batch_core::jac_double_half!`, 4M + 4S).
    #[inline(always)]
    pub fn double_vartime(&self, c: &impl CurveArith<L>) -> Self {
        if self.is_identity_vartime() {
            return *self;
        }
        self.double(c)
    }

    /// `self + a` for affine `a` (`batch_core::jac_add_mixed!`, 8M + 3S), falling back to
    /// doubling for `self = a` and the identity for `self = −a`.
    #[inline(always)]
    pub fn add_affine_vartime(&self, a: &AffineMonty<L>, c: &impl CurveArith<L>) -> Self {
        if self.is_identity_vartime() {
            return Self::from_affine(a, c);
        }
        let (x, y, z) = batch_core::jac_add_mixed!(c, (self.x, self.y, self.z), (a.x, a.y));
        // Z₃ = Z₁·H = 0 means H = 0, self = ±a: the formulas give the identity for −a
        // (`(r² : −r³ : 0)`) and `(0 : 0 : 0)` for a itself, which needs the doubling.
        if z.is_zero_vartime() && y.is_zero_vartime() {
            return self.double_vartime(c);
        }
        Self { x, y, z }
    }

    /// `self + e` (`batch_core::jac_add!`, 11M + 3S) with `e`'s `Z²` and `Z³` given;
    /// constant-time, and **wrong where `self = ±e` or either is the identity**: the caller
    /// selects around those (`varbase` proves which can occur).
    #[inline(always)]
    pub fn add_ct(&self, e: &JacobianEntry<L>, c: &impl CurveArith<L>) -> Self {
        let r = &e.p;
        let (x, y, z) =
            batch_core::jac_add!(c, (self.x, self.y, self.z), (r.x, r.y, r.z, e.zz, e.zzz));
        Self { x, y, z }
    }

    /// With `Z²` and `Z³`, as [`JacobianPoint::add_ct`]'s second operand (1M + 1S).
    #[inline(always)]
    pub fn entry(&self, c: &impl CurveArith<L>) -> JacobianEntry<L> {
        let zz = c.square(&self.z);
        JacobianEntry {
            p: *self,
            zz,
            zzz: c.mul(&zz, &self.z),
        }
    }

    /// Homogeneous `(XZ : Y : Z³)`: same affine point (2M + 1S; the identity `(t² : t³ : 0)`
    /// goes to `(0 : t³ : 0)`). Constant-time.
    #[inline(always)]
    pub fn to_projective(self, c: &impl CurveArith<L>) -> ProjectivePoint<L> {
        let f = c;
        let z2 = f.square(&self.z);
        ProjectivePoint {
            x: f.mul(&self.x, &self.z),
            y: self.y,
            z: f.mul(&z2, &self.z),
        }
    }
}

/// A Jacobian point with its `Z²` and `Z³` ([`JacobianPoint::entry`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct JacobianEntry<const L: usize> {
    pub p: JacobianPoint<L>,
    pub zz: Uint<L>,
    pub zzz: Uint<L>,
}

impl<const L: usize> JacobianEntry<L> {
    /// Homogeneous `(XZ : Y : Z³)` (1M).
    #[inline(always)]
    pub fn to_projective(&self, c: &impl CurveArith<L>) -> ProjectivePoint<L> {
        ProjectivePoint {
            x: c.mul(&self.p.x, &self.p.z),
            y: self.p.y,
            z: self.zzz,
        }
    }
}

/// Affine forms of `pts` with one field inversion for the whole slice (Montgomery's trick):
/// `out[i] = (point, mask)`, the mask all-ones where `pts[i]` is the identity (then the point
/// is `(0, 0)`). Constant-time: identities are swapped for `Z = 1` by select, not skipped.
pub fn batch_normalize<const L: usize>(
    c: &impl CurveArith<L>,
    pts: &[ProjectivePoint<L>],
) -> Vec<(AffineMonty<L>, u64)> {
    normalize_with(c, pts, false)
}

/// [`batch_normalize`] for public points (verification's tables and results): the same
/// results, with the variable-time inversion (1.1 against 1.8 µs at P-256 on Zen 4).
pub fn batch_normalize_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    pts: &[ProjectivePoint<L>],
) -> Vec<(AffineMonty<L>, u64)> {
    normalize_with(c, pts, true)
}

fn normalize_with<const L: usize>(
    c: &impl CurveArith<L>,
    pts: &[ProjectivePoint<L>],
    vartime: bool,
) -> Vec<(AffineMonty<L>, u64)> {
    let f = c;
    let one = *c.def().p.one();
    // prefix[i] = z_0 ⋯ z_{i−1}, with identities counted as 1.
    let mut prefix = Vec::with_capacity(pts.len());
    let mut acc = one;
    for p in pts {
        prefix.push(acc);
        let z = Uint::select(&p.z, &one, p.is_identity_mask());
        acc = f.mul(&acc, &z);
    }
    // (z_0 ⋯ z_{k−1})⁻¹, safegcd (faster than Fermat here)
    let mut inv = if vartime {
        c.def().p.inv_vartime(&acc)
    } else {
        c.def().p.inv(&acc)
    };
    let mut out = vec![(AffineMonty::default(), 0u64); pts.len()];
    for i in (0..pts.len()).rev() {
        let p = &pts[i];
        let id = p.is_identity_mask();
        let z = Uint::select(&p.z, &one, id);
        let zinv = f.mul(&inv, &prefix[i]);
        inv = f.mul(&inv, &z);
        let a = AffineMonty {
            x: f.mul(&p.x, &zinv),
            y: f.mul(&p.y, &zinv),
        };
        out[i] = (AffineMonty::select(&a, &AffineMonty::default(), id), id);
    }
    out
}
