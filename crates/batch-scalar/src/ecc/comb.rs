//! Fixed-base `k·G` by signed windows over a precomputed table: additions only, no doublings.
//!
//! Representation: `k < n` canonical (`Uint<L>`), recoded into `W = ⌈(bits+1)/w⌉` Booth digits
//! `d_i ∈ [−2^(w−1), 2^(w−1)]` with `k = Σ d_i·2^(w·i)`. The table holds, for each window `i`,
//! the affine points `j·2^(w·i)·G` for `j = 1 … 2^(w−1)` (Montgomery form), built once per
//! process per curve. Then `k·G = Σ d_i·2^(w·i)·G`: one mixed addition per window.
//! Post-condition: a projective point, the identity exactly when `k = 0`.
//!
//! Constant-time in `k`: digits come from arithmetic masks, every lookup reads every entry of
//! its window, the sign is applied by masked negation and a zero digit by select.

use std::sync::OnceLock;

use batch_core::curve::{CurveArith, CurveDef, P224, P256, P384, P521};
use batch_core::num::digits::{from_digits, to_digits, ModulusDigits};
use batch_core::num::{ct_eq_mask, mask_from_bit, Uint};

use super::point::{batch_normalize, AffineMonty, JacobianPoint, ProjectivePoint};

/// A comb table in a SIMD backend's digit form (`batch_core::num::digits`): window `i`,
/// multiple `j` as `2N` digits (x then y, Montgomery form, `R = 2^(b·N)`) at
/// `(i·2^(w−1) + j − 1)·2N`. The AVX2 and AVX-512 backends use it for `G` (once per process)
/// and for a shared public key (once per verification batch, `batch_core::shared`).
#[derive(Debug)]
pub struct CombDigits {
    pub w: usize,
    /// Digits per coordinate.
    pub n: usize,
    data: Vec<u64>,
}

impl CombDigits {
    /// Converts a [`CombTable`] (same points, 64-bit Montgomery limbs): one Montgomery product
    /// by `2^(b·N) mod p` per coordinate takes `x·2^(64·L)` to `x·2^(b·N)` (a shift-and-reduce
    /// per coordinate made shared-point tables cost more than they saved).
    pub fn new<const L: usize>(c: &CurveDef<L>, p: &ModulusDigits, table: &CombTable<L>) -> Self {
        let (w, n, bits) = (table.width(), p.n, p.digit_bits);
        let half = 1usize << (w - 1);
        let r_limbs = from_digits(&p.to_monty_digits(&[1]), L, bits);
        let r = Uint::<L>(r_limbs.try_into().expect("L limbs"));
        let convert = |v: &Uint<L>| to_digits(&c.p.mul(v, &r).0, n, bits);
        let mut data = Vec::with_capacity(table.windows() * half * 2 * n);
        for i in 0..table.windows() {
            for j in 1..=half {
                let e = table.entry_vartime(i, j);
                data.extend(convert(&e.x));
                data.extend(convert(&e.y));
            }
        }
        Self { w, n, data }
    }

    /// The comb of width `w` for a public point `q` (valid, not the identity), converted.
    pub fn for_point_vartime<const L: usize>(
        c: &CurveDef<L>,
        p: &ModulusDigits,
        q: &batch_core::AffinePoint,
        w: usize,
    ) -> Self {
        let qm = AffineMonty {
            x: c.p.to_monty(&q.x.truncate()),
            y: c.p.to_monty(&q.y.truncate()),
        };
        Self::new(c, p, &CombTable::for_point_vartime(c, &qm, w))
    }

    /// `j·2^(w·i)·B`, `1 ≤ j ≤ 2^(w−1)`: x digits then y digits. Variable-time in `i`, `j`.
    pub fn entry(&self, i: usize, j: usize) -> &[u64] {
        let at = ((i << (self.w - 1)) + j - 1) * 2 * self.n;
        &self.data[at..at + 2 * self.n]
    }
}

/// Window widths (measured on the scalar backend; see the module docs of `ecc`).
pub const W_P224: usize = 7;
pub const W_P256: usize = 7;
pub const W_P384: usize = 7;
pub const W_P521: usize = 7;
/// Widest supported window (a table of `2^(MAX_W−1)` entries a window).
pub const MAX_W: usize = 8;

/// Booth digit `i` of width `w` (`w + 1 ≤ 32`) of `k`, as (magnitude, sign mask): the digit
/// is `−magnitude` where the mask is all-ones. Reads bits `w·i − 1 … w·i + w − 1` (bit −1 is
/// 0). Constant-time in `k`; `i`, `w` are public.
#[inline(always)]
pub fn booth_digit<const L: usize>(k: &Uint<L>, i: usize, w: usize) -> (u64, u64) {
    let bits = if i == 0 {
        k.window(0, w) << 1
    } else {
        k.window(w * i - 1, w + 1)
    };
    let neg = mask_from_bit((bits >> w) & 1);
    // Negative digits: the complement of the window, within w + 1 bits, gives the magnitude.
    let d = (((1u64 << (w + 1)) - 1 - bits) & neg) | (bits & !neg);
    ((d >> 1) + (d & 1), neg)
}

/// Booth windows needed for scalars of `bits` bits (`< 2^bits`): the top digit is then
/// non-negative, so no carry is left over.
pub const fn booth_windows(bits: usize, w: usize) -> usize {
    (bits + 1).div_ceil(w)
}

/// Precomputed `j·2^(w·i)·G` for one curve.
#[derive(Debug)]
pub struct CombTable<const L: usize> {
    w: usize,
    windows: usize,
    /// Window `i`, multiple `j` at `i·2^(w−1) + j − 1`, as `[x, y]` (the form
    /// `CurveArith::select_entry` scans).
    entries: Vec<[Uint<L>; 2]>,
}

impl<const L: usize> CombTable<L> {
    /// Builds the table for `c`'s generator (projective complete additions, one inversion).
    pub fn new(c: &impl CurveArith<L>, w: usize) -> Self {
        Self::for_point_vartime(
            c,
            &AffineMonty {
                x: c.def().gx,
                y: c.def().gy,
            },
            w,
        )
    }

    /// The same table for another base point `B` (on the curve, not the identity): a
    /// verification batch under one public key builds one for `Q`. Variable-time only in
    /// name — the construction is the same straight-line code as for `G` — but `B` is meant
    /// to be public.
    pub fn for_point_vartime(c: &impl CurveArith<L>, b: &AffineMonty<L>, w: usize) -> Self {
        assert!((2..=MAX_W).contains(&w), "comb width");
        let windows = booth_windows(c.def().curve.bits(), w);
        let half = 1usize << (w - 1);
        let mut proj = Vec::with_capacity(windows * half);
        let mut base = ProjectivePoint::from_affine(b, c);
        for _ in 0..windows {
            let mut acc = base;
            proj.push(acc);
            for _ in 1..half {
                acc = acc.add(&base, c);
                proj.push(acc);
            }
            // 2^w·B = 2·(2^(w−1)·B)
            base = acc.double(c);
        }
        let entries = batch_normalize(c, &proj)
            .into_iter()
            .map(|(a, id)| {
                assert_eq!(
                    id, 0,
                    "multiples of a point of prime order n below n are never the identity"
                );
                [a.x, a.y]
            })
            .collect();
        Self {
            w,
            windows,
            entries,
        }
    }

    pub fn width(&self) -> usize {
        self.w
    }

    pub fn windows(&self) -> usize {
        self.windows
    }

    /// `j·2^(w·i)·G` for `1 ≤ j ≤ 2^(w−1)`, by direct indexing. Variable-time in `i`, `j`.
    #[inline(always)]
    pub fn entry_vartime(&self, i: usize, j: usize) -> AffineMonty<L> {
        let [x, y] = self.entries[(i << (self.w - 1)) + j - 1];
        AffineMonty { x, y }
    }

    /// `mag·2^(w·i)·G`, or `(0, 0)` for `mag = 0`, reading every entry of window `i`.
    #[inline(always)]
    fn lookup(&self, c: &impl CurveArith<L>, i: usize, mag: u64) -> AffineMonty<L> {
        let half = 1usize << (self.w - 1);
        let [x, y] = c.select_entry(&self.entries[i * half..(i + 1) * half], mag);
        AffineMonty { x, y }
    }

    /// `k·G` for `k < n` (canonical). Constant-time in `k`.
    /// Inlined so that a compile-time `c` folds into the field arithmetic (see `ecc::CurveSpec`).
    ///
    /// The sum runs in Jacobian coordinates (mixed addition 8M + 3S against RCB's 11M + 2
    /// products by `b`, and fewer additions), whose exceptions are handled so:
    /// - an identity accumulator (`k`'s low `w·i` bits zero so far) and a zero digit by select;
    /// - `acc = −entry` gives the identity, which the formulas get right;
    /// - `acc = entry` cannot occur for `k < n`: before window `i` the accumulator is
    ///   `s·G` with `|s| ≤ 2^(w−1)·(2^(w·i) − 1)/(2^w − 1) < 0.51·2^(w·i)` and the entry is
    ///   `d·2^(w·i)·G`, `1 ≤ |d| ≤ 2^(w−1)`, so `s − d·2^(w·i)` is non-zero and, below the top
    ///   window, smaller than `2^(w·(W−1) − 1) < n` in magnitude: never a multiple of `n`. In
    ///   the top window `d ≥ 0`, and `s ≡ d·2^(w·(W−1))` would need `d·2^(w·(W−1)) = s + m·n`
    ///   with `m ≥ 1`, i.e. `k = 2s + m·n` (`< n` only for `m = 1`, `s < 0`), so `n + s` would
    ///   be a multiple of `2^(w·(W−1))` in `(n − 0.51·2^(w·(W−1)), n)`; for the four curves
    ///   and `w = 7`, `n` lies just below a multiple of `2^(w·(W−1))` (`n/2^(w·(W−1))` is
    ///   0.99…, 15.99…, 63.99… and 7.99… for P-224, P-256, P-384 and P-521), so there is none.
    ///   `top_window_is_safe` checks that condition for every curve and width in use.
    #[inline(always)]
    pub fn mul(&self, c: &impl CurveArith<L>, k: &Uint<L>) -> ProjectivePoint<L> {
        let mut acc = JacobianPoint::identity(c);
        for i in 0..self.windows {
            let (mag, neg) = booth_digit(k, i, self.w);
            let zero = ct_eq_mask(mag, 0);
            let mut e = self.lookup(c, i, mag);
            e.neg_if(neg, c);
            if i == 0 {
                // acc is the identity: take the entry itself.
                acc = JacobianPoint::select(&JacobianPoint::from_affine(&e, c), &acc, zero);
            } else {
                acc = acc.add_affine_ct(&e, zero, c);
            }
        }
        acc.to_projective(c)
    }
}

impl<const L: usize> CombTable<L> {
    /// [`CombTable::mul`] for a public scalar (verification): entries by index, zero digits
    /// skipped. Variable-time.
    pub fn mul_vartime(&self, c: &impl CurveArith<L>, k: &Uint<L>) -> ProjectivePoint<L> {
        let mut acc = ProjectivePoint::identity(c);
        for i in 0..self.windows {
            let (mag, neg) = booth_digit(k, i, self.w);
            if mag == 0 {
                continue;
            }
            let mut e = self.entry_vartime(i, mag as usize);
            e.neg_if(neg, c);
            acc = acc.add_mixed(&e, 0, c);
        }
        acc
    }
}

/// The P-224 table, built on first use.
pub fn table_p224() -> &'static CombTable<4> {
    static T: OnceLock<CombTable<4>> = OnceLock::new();
    T.get_or_init(|| CombTable::new(&P224, W_P224))
}

/// The P-256 table, built on first use.
pub fn table_p256() -> &'static CombTable<4> {
    static T: OnceLock<CombTable<4>> = OnceLock::new();
    T.get_or_init(|| CombTable::new(&P256, W_P256))
}

/// The P-384 table, built on first use.
pub fn table_p384() -> &'static CombTable<6> {
    static T: OnceLock<CombTable<6>> = OnceLock::new();
    T.get_or_init(|| CombTable::new(&P384, W_P384))
}

/// The P-521 table, built on first use.
pub fn table_p521() -> &'static CombTable<9> {
    static T: OnceLock<CombTable<9>> = OnceLock::new();
    T.get_or_init(|| CombTable::new(&P521, W_P521))
}
