//! NIST prime curves `y² = x³ − 3x + b` over `F_p` (P-224, P-256, P-384, P-521) and the point and
//! scalar types that cross the [`Backend`](crate::Backend) seam.
//!
//! At the seam, coordinates and scalars are canonical (not Montgomery) little-endian
//! [`EcUint`]s, nine limbs wide whatever the curve (P-521 needs nine); the limbs above the
//! curve's width are zero. Inside, [`CurveDef`] holds everything in Montgomery form for one
//! limb count `L`, built at compile time.

use crate::num::{MontyParams, Uint};

/// Widest curve in limbs (P-521).
pub const EC_LIMBS: usize = 9;
/// A scalar or coordinate at the seam: canonical, little-endian, zero above the curve width.
pub type EcUint = Uint<EC_LIMBS>;

/// The supported curves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Curve {
    P224,
    P256,
    P384,
    P521,
}

impl Curve {
    pub const ALL: [Curve; 4] = [Curve::P224, Curve::P256, Curve::P384, Curve::P521];

    /// Bits of `p` (and of `n`).
    pub const fn bits(self) -> usize {
        match self {
            Curve::P224 => 224,
            Curve::P256 => 256,
            Curve::P384 => 384,
            Curve::P521 => 521,
        }
    }

    /// 64-bit limbs per field element.
    pub const fn limbs(self) -> usize {
        self.bits().div_ceil(64)
    }

    /// Bytes of one encoded field element or scalar (SEC 1).
    pub const fn field_bytes(self) -> usize {
        self.bits().div_ceil(8)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Curve::P224 => "P-224",
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
        }
    }

    /// The group order `n`, at seam width.
    pub fn order(self) -> EcUint {
        match self {
            Curve::P224 => P224.n.modulus().resize().expect("fits"),
            Curve::P256 => P256.n.modulus().resize().expect("fits"),
            Curve::P384 => P384.n.modulus().resize().expect("fits"),
            Curve::P521 => P521.n.modulus().resize().expect("fits"),
        }
    }

    /// The field prime `p`, at seam width.
    pub fn prime(self) -> EcUint {
        match self {
            Curve::P224 => P224.p.modulus().resize().expect("fits"),
            Curve::P256 => P256.p.modulus().resize().expect("fits"),
            Curve::P384 => P384.p.modulus().resize().expect("fits"),
            Curve::P521 => P521.p.modulus().resize().expect("fits"),
        }
    }

    /// The base point `G` in affine form.
    pub fn generator(self) -> AffinePoint {
        match self {
            Curve::P224 => P224.generator(),
            Curve::P256 => P256.generator(),
            Curve::P384 => P384.generator(),
            Curve::P521 => P521.generator(),
        }
    }

    /// Whether `pt` is the identity or satisfies the curve equation with coordinates `< p`.
    /// Variable-time (points are public).
    pub fn is_on_curve_vartime(self, pt: &AffinePoint) -> bool {
        match self {
            Curve::P224 => P224.is_on_curve_vartime(pt),
            Curve::P256 => P256.is_on_curve_vartime(pt),
            Curve::P384 => P384.is_on_curve_vartime(pt),
            Curve::P521 => P521.is_on_curve_vartime(pt),
        }
    }

    /// All-ones if `pt` is a valid seam point: coordinates `< p` (and zero above the curve's
    /// width) on the curve, or the identity with zero coordinates. Constant-time in the point.
    pub fn on_curve_mask(self, pt: &AffinePoint) -> u64 {
        match self {
            Curve::P224 => P224.seam_point_mask(pt),
            Curve::P256 => P256.seam_point_mask(pt),
            Curve::P384 => P384.seam_point_mask(pt),
            Curve::P521 => P521.seam_point_mask(pt),
        }
    }
}

impl core::fmt::Display for Curve {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// An affine point at the seam; `infinity` marks the identity (then `x = y = 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AffinePoint {
    pub x: EcUint,
    pub y: EcUint,
    pub infinity: bool,
}

impl AffinePoint {
    pub const IDENTITY: Self = Self {
        x: Uint::ZERO,
        y: Uint::ZERO,
        infinity: true,
    };
}

/// One curve's constants for `L`-limb arithmetic, in Montgomery form where noted.
#[derive(Debug)]
pub struct CurveDef<const L: usize> {
    pub curve: Curve,
    /// Field modulus `p` and its Montgomery constants.
    pub p: MontyParams<L>,
    /// Group order `n` and its Montgomery constants.
    pub n: MontyParams<L>,
    /// `b` in Montgomery form (mod p).
    pub b: Uint<L>,
    /// `3b` in Montgomery form: used by the complete formulas.
    pub b3: Uint<L>,
    /// Generator coordinates in Montgomery form (mod p).
    pub gx: Uint<L>,
    pub gy: Uint<L>,
}

impl<const L: usize> CurveDef<L> {
    const fn new(curve: Curve, p: &str, n: &str, b: &str, gx: &str, gy: &str) -> Self {
        let pp = MontyParams::new(Uint::from_be_hex(p));
        let np = MontyParams::new(Uint::from_be_hex(n));
        let b = const_to_monty(&pp, &Uint::from_be_hex(b));
        let b2 = const_add(&pp, &b, &b);
        let b3 = const_add(&pp, &b2, &b);
        Self {
            curve,
            p: pp,
            n: np,
            b,
            b3,
            gx: const_to_monty(&pp, &Uint::from_be_hex(gx)),
            gy: const_to_monty(&pp, &Uint::from_be_hex(gy)),
        }
    }

    /// The generator at the seam.
    pub fn generator(&self) -> AffinePoint {
        AffinePoint {
            x: self.p.from_monty(&self.gx).resize().expect("fits"),
            y: self.p.from_monty(&self.gy).resize().expect("fits"),
            infinity: false,
        }
    }

    /// Seam coordinate to Montgomery form; `None` if it is not below `p`.
    pub fn fe_from_seam(&self, v: &EcUint) -> Option<Uint<L>> {
        let x = v.resize::<L>()?;
        if x.cmp_vartime(self.p.modulus()) != core::cmp::Ordering::Less {
            return None;
        }
        Some(self.p.to_monty(&x))
    }

    /// Seam coordinate to Montgomery form with an all-ones mask if it is `< p` (and zero above
    /// the curve's width); zero and a zero mask otherwise. Constant-time.
    pub fn fe_from_seam_mask(&self, v: &EcUint) -> (Uint<L>, u64) {
        let x: Uint<L> = v.truncate();
        let ok = crate::ct::is_zero_mask(&v.0[L..]) & x.ct_lt_mask(self.p.modulus());
        (self.p.to_monty(&Uint::select(&Uint::ZERO, &x, ok)), ok)
    }

    /// [`Curve::on_curve_mask`] for this curve.
    pub fn seam_point_mask(&self, pt: &AffinePoint) -> u64 {
        let (x, x_ok) = self.fe_from_seam_mask(&pt.x);
        let (y, y_ok) = self.fe_from_seam_mask(&pt.y);
        let on_curve = x_ok & y_ok & self.on_curve_mask(&x, &y);
        let infinity = crate::num::mask_from_bit(pt.infinity as u64);
        let zero = pt.x.is_zero_mask() & pt.y.is_zero_mask();
        (infinity & zero) | (!infinity & on_curve)
    }

    /// Montgomery form to seam coordinate.
    pub fn fe_to_seam(&self, v: &Uint<L>) -> EcUint {
        self.p.from_monty(v).resize().expect("fits")
    }

    /// Checks `y² = x³ − 3x + b` for seam coordinates `< p`; the identity passes.
    pub fn is_on_curve_vartime(&self, pt: &AffinePoint) -> bool {
        if pt.infinity {
            return pt.x.is_zero_vartime() && pt.y.is_zero_vartime();
        }
        let (Some(x), Some(y)) = (self.fe_from_seam(&pt.x), self.fe_from_seam(&pt.y)) else {
            return false;
        };
        self.on_curve_mask(&x, &y) == u64::MAX
    }

    /// All-ones if Montgomery-form `(x, y)` satisfies the curve equation. Constant-time.
    pub fn on_curve_mask(&self, x: &Uint<L>, y: &Uint<L>) -> u64 {
        let f = &self.p;
        let lhs = f.square(y);
        let x2 = f.square(x);
        let x3 = f.mul(&x2, x);
        let three_x = f.add(&f.double(x), x);
        let rhs = f.add(&f.sub(&x3, &three_x), &self.b);
        lhs.ct_eq_mask(&rhs)
    }
}

/// The arithmetic a curve's point code runs on: the curve's constants ([`CurveDef`]) and its
/// base field's operations on fully reduced (`< p`) Montgomery-form elements (`R = 2^(64·L)`).
///
/// [`CurveDef`] implements it with its portable [`MontyParams`]; a backend with a faster
/// kernel for one curve (batch-avx2's `mulx`/`adcx`/`adox` P-256 field) implements it with the
/// same representation, so the same point code, comb tables and results serve both, and each
/// implementation is tested against the other. The point formulas (`rcb_*!`, `jac_*!`) call
/// `f.mul`, `f.square`, `f.add`, `f.sub` on it directly. Every method is constant-time.
pub trait CurveArith<const L: usize>: Sync + 'static {
    /// Whether this field's Jacobian doubling runs faster with its operations in
    /// critical-path order ([`crate::jac_double_half_crit!`]) than in the formula's order
    /// ([`crate::jac_double_half!`]): the same results either way; set where measured
    /// (`crate::jacobian`'s header).
    const DOUBLE_CRITICAL_FIRST: bool = false;
    /// The curve's constants (`b`, `G`, `p`'s and `n`'s parameters for everything else).
    fn def(&self) -> &CurveDef<L>;
    /// `a·b·R⁻¹ mod p`.
    fn mul(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L>;
    /// `a²·R⁻¹ mod p`.
    fn square(&self, a: &Uint<L>) -> Uint<L>;
    /// `a + b mod p`.
    fn add(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L>;
    /// `a − b mod p`.
    fn sub(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L>;
    /// `−a mod p`.
    #[inline(always)]
    fn neg(&self, a: &Uint<L>) -> Uint<L> {
        self.sub(&Uint::ZERO, a)
    }
    /// `a/2 mod p` for `a < p` (halving commutes with the Montgomery factor): `a`, or `a + p`
    /// where `a` is odd (selected by mask), shifted right by one bit with the carry.
    /// Constant-time: the mask goes through [`crate::num::mask_from_bit`], without which
    /// LLVM compiled the masked addition into a branch on the low bit (`scripts/ct-check.sh`
    /// caught it once `k·Q` doubled with this).
    #[inline(always)]
    fn half(&self, a: &Uint<L>) -> Uint<L> {
        let p = self.def().p.modulus();
        let odd = crate::num::mask_from_bit(a.0[0] & 1);
        let mut t = [0u64; L];
        let mut carry = 0u64;
        for i in 0..L {
            let s = a.0[i] as u128 + (p.0[i] & odd) as u128 + carry as u128;
            t[i] = s as u64;
            carry = (s >> 64) as u64;
        }
        let mut out = [0u64; L];
        for i in 0..L {
            let above = if i + 1 < L { t[i + 1] } else { carry };
            out[i] = (t[i] >> 1) | (above << 63);
        }
        Uint(out)
    }
    /// Entry `mag` (from 1) of a table of points of `C` coordinates each, zeros for
    /// `mag = 0`, reading every entry ([`crate::num::select_entry`]): constant-time in `mag`.
    /// A field with wider vectors at hand may scan with them.
    #[inline(always)]
    fn select_entry<const C: usize>(&self, table: &[[Uint<L>; C]], mag: u64) -> [Uint<L>; C] {
        crate::num::select_entry(table, mag)
    }
}

impl<const L: usize> CurveArith<L> for CurveDef<L> {
    #[inline(always)]
    fn def(&self) -> &CurveDef<L> {
        self
    }
    #[inline(always)]
    fn mul(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        self.p.mul(a, b)
    }
    #[inline(always)]
    fn square(&self, a: &Uint<L>) -> Uint<L> {
        self.p.square(a)
    }
    #[inline(always)]
    fn add(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        self.p.add(a, b)
    }
    #[inline(always)]
    fn sub(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        self.p.sub(a, b)
    }
    #[inline(always)]
    fn neg(&self, a: &Uint<L>) -> Uint<L> {
        self.p.neg(a)
    }
}

const fn const_add<const L: usize>(p: &MontyParams<L>, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
    let (s, c) = a.adc(b);
    let (d, borrow) = s.sbb(p.modulus());
    if c == 1 || borrow == 0 {
        d
    } else {
        s
    }
}

/// `x·R mod p` by doubling, for compile-time constants only (variable-time, slow).
const fn const_to_monty<const L: usize>(p: &MontyParams<L>, x: &Uint<L>) -> Uint<L> {
    let mut v = *x;
    // reduce x below p first (x < 2p for every constant here)
    let (d, borrow) = v.sbb(p.modulus());
    if borrow == 0 {
        v = d;
    }
    let mut i = 0;
    while i < 64 * L {
        v = const_add(p, &v, &v);
        i += 1;
    }
    v
}

/// P-224 (SEC 2 secp224r1): `p = 2^224 − 2^96 + 1`, in four limbs (the top one holds 32 bits).
pub static P224: CurveDef<4> = CurveDef::new(
    Curve::P224,
    "00000000ffffffffffffffffffffffffffffffff000000000000000000000001",
    "00000000ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d",
    "00000000b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4",
    "00000000b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21",
    "00000000bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34",
);

pub static P256: CurveDef<4> = CurveDef::new(
    Curve::P256,
    "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
    "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
    "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
);

pub static P384: CurveDef<6> = CurveDef::new(
    Curve::P384,
    "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
    "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
    "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
    "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
    "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
);

pub static P521: CurveDef<9> = CurveDef::new(
    Curve::P521,
    "1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
    "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
    "c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
    "11839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_on_their_curves() {
        for c in Curve::ALL {
            let g = c.generator();
            assert!(c.is_on_curve_vartime(&g), "{c}");
            let mut bad = g;
            bad.y.0[0] ^= 1;
            assert!(!c.is_on_curve_vartime(&bad), "{c}");
            assert!(c.is_on_curve_vartime(&AffinePoint::IDENTITY));
            assert_eq!(c.order().bits_vartime(), c.bits());
            assert_eq!(c.prime().bits_vartime(), c.bits());
        }
    }

    /// `half(a) + half(a) = a` and `half(a + a) = a` on the edges (0, 1, 2, p − 1, p − 2)
    /// and random values below `p`, for every curve's field.
    #[test]
    fn half_halves() {
        fn check<const L: usize>(c: &CurveDef<L>) {
            use rand::RngExt;
            let p = *c.p.modulus();
            let small = |k: u64| Uint::<L>::from_limbs(&[k]).unwrap();
            let mut xs = vec![
                Uint::ZERO,
                small(1),
                small(2),
                p.sbb(&small(1)).0,
                p.sbb(&small(2)).0,
            ];
            let mut rng = rand::rng();
            while xs.len() < 200 {
                let mut x = Uint::<L>(core::array::from_fn(|_| rng.random()));
                x.0[L - 1] &= p.0[L - 1];
                if x.ct_lt_mask(&p) == u64::MAX {
                    xs.push(x);
                }
            }
            for a in &xs {
                let h = c.half(a);
                assert_eq!(h.ct_lt_mask(&p), u64::MAX, "{}: half below p", c.curve);
                assert_eq!(c.add(&h, &h), *a, "{}: {a:?}", c.curve);
                assert_eq!(c.half(&c.add(a, a)), *a, "{}: {a:?}", c.curve);
            }
        }
        check(&P224);
        check(&P256);
        check(&P384);
        check(&P521);
    }
}
