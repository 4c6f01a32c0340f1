//! Multi-buffer Montgomery arithmetic on 52-bit digits: the kernel every operation runs on.
//!
//! Representation (transposed, as in the avx2 backend): an `N`-digit number of each of
//! `S::LANES` independent lanes is `[S::V; N]`; register `i` holds digit `i` of every lane:
//!
//! ```text
//!   x[i] = [ lane0.d_i | lane1.d_i | … | lane7.d_i ]      value_l = Σ_i d_i·2^(52·i)
//! ```
//!
//! Digits are *normalised* (`d_i < 2^52`) between operations, because `vpmadd52luq/huq` read
//! only the low 52 bits of their multiplicands. Each lane has its own modulus `m` (RSA
//! batches may mix keys), `R = 2^(52·N) > 4m`.
//!
//! [`amm_ifma`] is almost-Montgomery multiplication (operand scanning, quotient digit per row):
//! row `i` adds `a·b_i` and `u_i·m` (`u_i = −t_0·m⁻¹ mod 2^52`) into 64-bit column
//! accumulators — low halves into the column, high halves into the next one — and drops the
//! lowest column, whose low 52 bits are then zero, carrying its top bits up. Only that one
//! carry runs per row; a column collects at most 4 terms `< 2^52` per row for `N` rows, so
//! `N ≤ 1023` never overflows 64 bits. One serial carry pass normalises the result.
//! Pre: `a, b < 2m`, normalised. Post: `a·b·R⁻¹ (mod m)`, `< 2m`, normalised.
//! Everything is constant-time: no branch or address depends on lane values.

use crate::simd::Lanes;

/// Bits per digit.
pub const DIGIT_BITS: usize = 52;
/// `2^52 − 1`.
pub const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;

/// Per-lane modulus for [`amm_ifma`].
#[derive(Clone, Copy, Debug)]
pub struct Moduli<S: Lanes, const N: usize> {
    /// `m`, normalised digits, per lane.
    pub m: [S::V; N],
    /// `−m⁻¹ mod 2^52`, per lane.
    pub k0: S::V,
}

/// `a·b·R⁻¹ mod m` per lane, almost reduced (see the module header).
///
/// The accumulator is a sliding window: before row `i`, `acc[j]` is column `i + j`; the row
/// writes column `i + j` into `acc[j − 1]`, so every loop has a constant trip count and the
/// window stays in registers for the RSA-2048 width. Column `i + N` is zero before row `i`.
/// Called through `simd::amm`, which has no target features, so this is never inlined: one
/// copy per width and form, compiled the same whatever calls it (copies inlined into the
/// exponentiation measured up to 2× slower at some widths, register allocation varying by
/// caller; `#[inline(never)]` alone did not keep it out of line).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn amm_ifma<S: Lanes, const N: usize>(
    s: S,
    a: &[S::V; N],
    b: &[S::V; N],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    let m = &md.m;
    let zero = s.zero();
    let mut acc = [zero; N];
    for i in 0..N {
        let bi = b[i];
        // Column i: t₀ = acc₀ + lo(a₀bᵢ); u = lo(t₀·k0) makes t₀ + lo(m₀u) ≡ 0 (mod 2^52).
        let t0 = s.madd_lo(acc[0], a[0], bi);
        let u = s.madd_lo(zero, t0, md.k0);
        let carry = s.shr52(s.madd_lo(t0, m[0], u));
        // Columns i + 1 … i + N − 1: the terms that do not wait for u first.
        for j in 1..N {
            let t = s.madd_hi(s.madd_lo(acc[j], a[j], bi), a[j - 1], bi);
            acc[j - 1] = s.madd_hi(s.madd_lo(t, m[j], u), m[j - 1], u);
        }
        // Column i + N: high halves only.
        acc[N - 1] = s.madd_hi(s.madd_hi(zero, a[N - 1], bi), m[N - 1], u);
        acc[0] = s.add(acc[0], carry);
    }
    normalise(s, &mut acc);
    acc
}

/// `a²·R⁻¹ mod m` per lane, almost reduced: the same value class and bounds as
/// [`amm_ifma`]`(a, a)` with about 3N² instead of 4N² multiply-adds.
///
/// The square first, column by column (product scanning, so each column is summed in one
/// register and written once): column `k` is twice the cross products `a_i·a_j`, `i < j`,
/// whose low half lands at `i + j` or high half at `i + j + 1`, plus the low or high half of
/// `a_{k/2}²`. Then the reduction, row by row over the same sliding window as `amm_ifma`,
/// pulling in column `i + N` as it enters. A column holds at most `2N + 2` terms `< 2^52`
/// from the square and `2N` from the reduction: no overflow for `N ≤ 1023`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn ams_ifma<S: Lanes, const N: usize>(s: S, a: &[S::V; N], md: &Moduli<S, N>) -> [S::V; N] {
    let zero = s.zero();
    let m = &md.m;
    let mut acc = [zero; N];
    let mut hi = [zero; N];
    square_columns(s, a, &mut acc, &mut hi);
    for i in 0..N {
        let t0 = acc[0];
        let u = s.madd_lo(zero, t0, md.k0);
        let carry = s.shr52(s.madd_lo(t0, m[0], u));
        for j in 1..N {
            acc[j - 1] = s.madd_hi(s.madd_lo(acc[j], m[j], u), m[j - 1], u);
        }
        acc[N - 1] = s.madd_hi(hi[i], m[N - 1], u);
        acc[0] = s.add(acc[0], carry);
    }
    normalise(s, &mut acc);
    acc
}

/// How a curve field's products reduce: the generic row (a quotient digit `u = t·k0` and
/// `N` digit products of `u·p` per row), or a row that uses the prime's shape. Recognised by
/// [`Reduction::of`] from the prime's digits, so a kernel never runs on a prime it does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Generic,
    /// P-256 at 6 digits: `−p⁻¹ ≡ 1 (mod 2^52)`, so `u` is the column's low digit itself;
    /// `p₀ = 2^52 − 1`, whose two digit products with the carry sum to `u + (t >> 52)` (no
    /// multiplication); `p₂ = p₅ = 0`. Three digit products per row instead of six plus `u`.
    P256,
    /// P-521 at 11 digits, `p = 2^521 − 1`: adding `u·p` is subtracting `u` (which leaves the
    /// carry `t >> 52`) and adding `2u` ten digits up (`2^521 = 2^(52·10)·2`): no
    /// multiplication in the reduction at all.
    P521,
}

impl Reduction {
    /// The reduction for a field of `N` digits with prime digits `m` and `k0 = −m⁻¹ mod 2^52`.
    pub fn of(m: &[u64], k0: u64) -> Self {
        let full = DIGIT_MASK;
        if k0 == 1 && m.len() == 6 && m[0] == full && m[2] == 0 && m[5] == 0 {
            Reduction::P256
        } else if k0 == 1 && m.len() == 11 && m[..10].iter().all(|&d| d == full) && m[10] == 1 {
            Reduction::P521
        } else {
            Reduction::Generic
        }
    }
}

mod curve_generated {
    use crate::simd::Lanes;
    include!(concat!(env!("OUT_DIR"), "/curve_gen.rs"));
}

/// `a·b·R⁻¹ mod m` per lane for the curve fields, almost reduced: the same value as
/// [`amm_ifma`] (the quotient digits are the same). Straight-line code generated by build.rs
/// for each curve's width and reduction: the `2N` product columns first (product scanning, two
/// independent sums per column, so a column's dependency chain is half its terms), then `N`
/// reduction rows of the kind `RED` names ([`Reduction`] as 0 = generic, 1 = P-256,
/// 2 = P-521; the caller checked the prime with [`Reduction::of`]), then one carry pass.
/// Other widths run [`amm_ifma`]. Pre and post as [`amm_ifma`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn amm_curve_ifma<S: Lanes, const N: usize, const RED: u8>(
    s: S,
    a: &[S::V; N],
    b: &[S::V; N],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    use curve_generated::*;
    let mut out = [s.zero(); N];
    let (m, k0) = (&md.m[..], md.k0);
    match (N, RED) {
        (5, 0) => curve_mul_5_generic(s, a, b, m, k0, &mut out),
        (6, 1) => curve_mul_6_p256(s, a, b, m, k0, &mut out),
        (8, 0) => curve_mul_8_generic(s, a, b, m, k0, &mut out),
        (11, 2) => curve_mul_11_p521(s, a, b, m, k0, &mut out),
        _ => return amm_ifma(s, a, b, md),
    }
    out
}

/// `a²·R⁻¹ mod m` for the curve fields: as [`amm_curve_ifma`], with the square's columns
/// (cross products once, doubled, squares added). Other widths run [`ams_ifma`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn ams_curve_ifma<S: Lanes, const N: usize, const RED: u8>(
    s: S,
    a: &[S::V; N],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    use curve_generated::*;
    let mut out = [s.zero(); N];
    let (m, k0) = (&md.m[..], md.k0);
    match (N, RED) {
        (5, 0) => curve_sqr_5_generic(s, a, m, k0, &mut out),
        (6, 1) => curve_sqr_6_p256(s, a, m, k0, &mut out),
        (8, 0) => curve_sqr_8_generic(s, a, m, k0, &mut out),
        (11, 2) => curve_sqr_11_p521(s, a, m, k0, &mut out),
        _ => return ams_ifma(s, a, md),
    }
    out
}

/// Widths whose squaring products are generated straight-line code (build.rs).
pub const GENERATED_SQUARING: [usize; 3] = [20, 30, 40];

mod generated {
    use crate::simd::Lanes;
    include!(concat!(env!("OUT_DIR"), "/sqr_gen.rs"));
}

/// The `2N` columns of `a²`: cross products doubled, squares added. Straight-line generated
/// code for the RSA signing widths (build.rs), a column loop for the others.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn square_columns<S: Lanes, const N: usize>(
    s: S,
    a: &[S::V; N],
    lo: &mut [S::V; N],
    hi: &mut [S::V; N],
) {
    match N {
        20 => return generated::sqr_20(s, a, lo, hi),
        30 => return generated::sqr_30(s, a, lo, hi),
        40 => return generated::sqr_40(s, a, lo, hi),
        _ => {}
    }
    let zero = s.zero();
    for k in 0..2 * N {
        let mut c = zero;
        // low halves: i + j = k, i < j < N
        let mut i = if k >= N { k - N + 1 } else { 0 };
        while 2 * i < k {
            c = s.madd_lo(c, a[i], a[k - i]);
            i += 1;
        }
        // high halves: i + j = k − 1, i < j < N
        if k >= 1 {
            let k1 = k - 1;
            let mut i = if k1 >= N { k1 - N + 1 } else { 0 };
            while 2 * i < k1 {
                c = s.madd_hi(c, a[i], a[k1 - i]);
                i += 1;
            }
        }
        c = s.add(c, c);
        let c = if k % 2 == 0 {
            s.madd_lo(c, a[k / 2], a[k / 2])
        } else {
            s.madd_hi(c, a[k / 2], a[k / 2])
        };
        if k < N {
            lo[k] = c;
        } else {
            hi[k - N] = c;
        }
    }
}

/// Serial carry pass: `d_i < 2^52` after; value-preserving when it fits `N` digits.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn normalise<S: Lanes, const N: usize>(s: S, x: &mut [S::V; N]) {
    let mask = s.splat(DIGIT_MASK);
    let mut carry = s.zero();
    for d in x.iter_mut() {
        let t = s.add(*d, carry);
        carry = s.shr52(t);
        *d = s.and(t, mask);
    }
}

/// Serial carry pass for digits that may be negative (two's complement lanes): `d_i < 2^52`
/// after; value-preserving when the value is in `[0, 2^(52·N))`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn normalise_signed<S: Lanes, const N: usize>(s: S, x: &mut [S::V; N]) {
    let mask = s.splat(DIGIT_MASK);
    let mut carry = s.zero();
    for d in x.iter_mut() {
        let t = s.add(*d, carry);
        carry = s.sar52(t);
        *d = s.and(t, mask);
    }
}

/// Reads every entry of `table` (at most 64) and keeps, per lane, entry `idx` (lanes of `idx`
/// are `< table.len()`; anything else gives zero digits). Constant-time: every entry is
/// loaded, lanes are chosen by mask.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn lookup<S: Lanes, const N: usize>(s: S, table: &[[S::V; N]], idx: S::V) -> [S::V; N] {
    assert!(table.len() <= 64, "lookup tables have at most 64 entries");
    let none = s.eq(s.zero(), s.splat(1));
    let mut hits = [none; 64];
    for (t, h) in hits.iter_mut().enumerate().take(table.len()) {
        *h = s.eq(idx, s.splat(t as u64));
    }
    select_entries(s, &hits[..table.len()], |t| &table[t])
}

/// Per lane, the digits of the entry whose mask in `hits` has the lane (zero digits where
/// none has it); reads every entry. The digits go eight at a time, each group chosen in
/// registers over all the entries and stored once: selecting entry by entry into an array in
/// memory lets LLVM store each entry's hit lanes with a store masked by the secret index,
/// which later loads wait on for a mask-dependent time (see [`Lanes::opaque`]).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn select_entries<'a, S: Lanes, const N: usize>(
    s: S,
    hits: &[S::M],
    entry: impl Fn(usize) -> &'a [S::V; N],
) -> [S::V; N] {
    const GROUP: usize = 8;
    let mut out = [s.zero(); N];
    for j0 in (0..N).step_by(GROUP) {
        let n = GROUP.min(N - j0);
        let mut acc = [s.zero(); GROUP];
        for (t, &hit) in hits.iter().enumerate() {
            let e = entry(t);
            for (b, a) in acc.iter_mut().enumerate().take(n) {
                *a = s.select(*a, e[j0 + b], hit);
            }
        }
        for (o, &a) in out[j0..j0 + n].iter_mut().zip(&acc) {
            *o = s.opaque(a);
        }
    }
    out
}

/// Transposes `S::LANES` numbers of at least `N` digits each into `N` registers. (No target
/// features needed: the lane methods carry the proof; inlined into the kernels' callers.)
#[inline]
pub fn load<S: Lanes, const N: usize>(s: S, lanes: &[&[u64]]) -> [S::V; N] {
    debug_assert_eq!(lanes.len(), S::LANES);
    let mut out = [s.zero(); N];
    let mut buf = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        for (l, b) in lanes.iter().zip(buf.iter_mut()) {
            *b = l[i];
        }
        *o = s.from_lanes(&buf[..S::LANES]);
    }
    out
}

/// Inverse of [`load`]: `S::LANES` vectors of `N` digits.
#[inline]
pub fn store<S: Lanes, const N: usize>(s: S, x: &[S::V; N]) -> Vec<Vec<u64>> {
    let mut out = vec![vec![0u64; N]; S::LANES];
    let mut buf = [0u64; 8];
    for (i, v) in x.iter().enumerate() {
        s.to_lanes(*v, &mut buf[..S::LANES]);
        for (o, b) in out.iter_mut().zip(buf) {
            o[i] = b;
        }
    }
    out
}

/// `[1, 0, …, 0]` in every lane: multiplying by it leaves Montgomery form.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn unit<S: Lanes, const N: usize>(s: S) -> [S::V; N] {
    let mut u = [s.zero(); N];
    u[0] = s.splat(1);
    u
}

/// A curve-field element on lanes with a *public* bound: value `< k·p` in every lane, digits
/// normalised. The bound depends only on the sequence of operations, never on data, so
/// tracking it is constant-time; debug builds assert every product's bound, and since the
/// bounds are data-independent one run of each formula proves them for all inputs.
#[derive(Clone, Copy, Debug)]
pub struct Fe<S: Lanes, const N: usize> {
    pub d: [S::V; N],
    pub k: u64,
}

/// A curve field on lanes (the same prime in every lane), built from batch-core's
/// [`FieldConsts`] at 52-bit digits: products and squares are [`amm_curve_ifma`] and
/// [`ams_curve_ifma`] (out of line, through `simd::amm_curve`), straight-line kernels with
/// reduction rows shaped by the prime ([`Reduction`]); sums and differences are digit-wise with
/// one serial carry pass (IFMA needs normalised digits), a difference `a − b` adding `k_b·p`
/// first, then a signed carry pass. Every field has at least 20 bits of room above `p` (P-256
/// takes six digits: five, with a fold of the top bits wherever a bound overflowed, measured
/// 16 % slower for `k·G`), so the formulas never need a reduction inside.
#[derive(Debug)]
pub struct CurveField<S: Lanes, const N: usize> {
    pub s: S,
    pub md: Moduli<S, N>,
    /// The reduction the prime's shape allows ([`Reduction::of`]).
    pub red: Reduction,
    pub max_prod: u64,
    /// `c·p` in normalised digits at index `c − 1`, `c ≤ min(max_prod, MAX_MULTIPLE)`.
    pub multiples: Vec<[S::V; N]>,
    pub one: Fe<S, N>,
    pub r2: Fe<S, N>,
    pub b: Fe<S, N>,
    pub unit: [S::V; N],
}

pub use batch_core::num::digits::FieldConsts;

/// Largest multiple of `p` tabulated for subtraction (the point formulas' subtrahends stay
/// far below it).
const MAX_MULTIPLE: u64 = 64;

/// `k·p` in normalised 52-bit digits (the same count as `p`'s, which has room for it).
fn small_multiple(p: &[u64], k: u64) -> Vec<u64> {
    let mut carry = 0u128;
    let out: Vec<u64> = p
        .iter()
        .map(|&d| {
            let t = d as u128 * k as u128 + carry;
            carry = t >> DIGIT_BITS;
            (t as u64) & DIGIT_MASK
        })
        .collect();
    assert_eq!(carry, 0, "k·p must fit the digits");
    out
}

impl<S: Lanes, const N: usize> CurveField<S, N> {
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn new(s: S, c: &FieldConsts) -> Self {
        assert_eq!((c.n, c.digit_bits), (N, DIGIT_BITS));
        let bc = |d: &[u64]| -> [S::V; N] { core::array::from_fn(|i| s.splat(d[i])) };
        Self {
            s,
            md: Moduli {
                m: bc(&c.p),
                k0: s.splat(c.minv),
            },
            red: Reduction::of(&c.p, c.minv),
            max_prod: c.max_prod,
            multiples: (1..=c.max_prod.min(MAX_MULTIPLE))
                .map(|k| bc(&small_multiple(&c.p, k)))
                .collect(),
            one: Fe {
                d: bc(&c.one),
                k: 1,
            },
            r2: Fe { d: bc(&c.r2), k: 1 },
            b: Fe { d: bc(&c.b), k: 1 },
            unit: unit(s),
        }
    }

    /// Whether bounds `x`, `y` overflow a sum or difference (`sum`) or a product. The
    /// bounds are public and data-independent: one run of each formula in a debug build
    /// proves them for all inputs.
    #[inline(always)]
    fn check(&self, x: u64, y: u64, sum: bool) {
        if sum {
            debug_assert!(
                x + y <= self.max_prod && y <= MAX_MULTIPLE,
                "sum bound {x} + {y}"
            );
        } else {
            debug_assert!(
                x.saturating_mul(y) <= self.max_prod,
                "product bound {x}·{y}"
            );
        }
    }

    /// Zero in every lane.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn zero(&self) -> Fe<S, N> {
        Fe {
            d: [self.s.zero(); N],
            k: 1,
        }
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn mul(&self, a: &Fe<S, N>, b: &Fe<S, N>) -> Fe<S, N> {
        self.check(a.k, b.k, false);
        Fe {
            d: crate::simd::amm_curve(self.s, self.red, &a.d, &b.d, &self.md),
            k: 2,
        }
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn square(&self, a: &Fe<S, N>) -> Fe<S, N> {
        self.check(a.k, a.k, false);
        Fe {
            d: crate::simd::ams_curve(self.s, self.red, &a.d, &self.md),
            k: 2,
        }
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn add(&self, a: &Fe<S, N>, b: &Fe<S, N>) -> Fe<S, N> {
        self.check(a.k, b.k, true);
        self.add_raw(a, b)
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    fn add_raw(&self, a: &Fe<S, N>, b: &Fe<S, N>) -> Fe<S, N> {
        let s = self.s;
        let mut d: [S::V; N] = core::array::from_fn(|i| s.add(a.d[i], b.d[i]));
        normalise(s, &mut d);
        debug_assert!(a.k + b.k <= self.max_prod, "sum bound");
        Fe { d, k: a.k + b.k }
    }

    /// `a − b + k_b·p`: bound `k_a + k_b`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn sub(&self, a: &Fe<S, N>, b: &Fe<S, N>) -> Fe<S, N> {
        self.check(a.k, b.k, true);
        self.sub_raw(a, b)
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    fn sub_raw(&self, a: &Fe<S, N>, b: &Fe<S, N>) -> Fe<S, N> {
        let s = self.s;
        let kp = &self.multiples[b.k as usize - 1];
        let mut d: [S::V; N] = core::array::from_fn(|i| s.sub(s.add(a.d[i], kp[i]), b.d[i]));
        // b < k_b·p, so the value is ≥ 0; digits may be negative until the signed carry.
        normalise_signed(s, &mut d);
        debug_assert!(a.k + b.k <= self.max_prod, "difference bound");
        Fe { d, k: a.k + b.k }
    }

    /// `a/2 mod p`: `a + p` in the lanes where `a` is odd (by mask), normalised, then shifted
    /// right one bit across the digits. `a < k·p` gives `a/2 < ⌈(k + 1)/2⌉·p`. Constant-time.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn half(&self, a: &Fe<S, N>) -> Fe<S, N> {
        self.check(a.k, 1, true);
        let s = self.s;
        let one = s.splat(1);
        let odd = s.eq(s.and(a.d[0], one), one);
        let mut d: [S::V; N] =
            core::array::from_fn(|i| s.add(a.d[i], s.select(s.zero(), self.md.m[i], odd)));
        normalise(s, &mut d);
        let mask = s.splat(DIGIT_MASK);
        Fe {
            d: core::array::from_fn(|i| {
                let low = s.shr1(d[i]);
                match d.get(i + 1) {
                    Some(&above) => s.or(low, s.and(s.shl51(above), mask)),
                    None => low,
                }
            }),
            k: (a.k + 2) / 2,
        }
    }

    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn neg(&self, a: &Fe<S, N>) -> Fe<S, N> {
        self.sub(&self.zero(), a)
    }

    /// `a` outside the lanes of `m`, `b` in them.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn select(&self, a: &Fe<S, N>, b: &Fe<S, N>, m: S::M) -> Fe<S, N> {
        let s = self.s;
        Fe {
            d: core::array::from_fn(|i| s.select(a.d[i], b.d[i], m)),
            k: a.k.max(b.k),
        }
    }

    /// Enters Montgomery form: canonical digits (`< p`) in, `k = 2` out.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn to_monty(&self, canonical: &[S::V; N]) -> Fe<S, N> {
        self.mul(
            &Fe {
                d: *canonical,
                k: 1,
            },
            &self.r2,
        )
    }

    /// Leaves Montgomery form: digits of a value in `[0, p]` per lane (`p` itself only for
    /// zero); callers subtract `p` once.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn out_of_monty(&self, a: &Fe<S, N>) -> [S::V; N] {
        self.mul(a, &Fe { d: self.unit, k: 1 }).d
    }

    /// The lanes where `a ≡ 0 (mod p)`. Constant-time: one product by 1 (which leaves a value
    /// in `[0, p]`, `p` only for zero), then a digit-wise comparison with 0 and with `p`
    /// folded by OR, no branch.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    #[inline]
    pub fn is_zero(&self, a: &Fe<S, N>) -> S::M {
        let s = self.s;
        let x = self.out_of_monty(a);
        let (mut any, mut diff) = (s.zero(), s.zero());
        for (d, m) in x.iter().zip(&self.md.m) {
            any = s.or(any, *d);
            diff = s.or(diff, s.xor(*d, *m));
        }
        // a lane is zero where either fold is zero: their product-free AND
        let zero_or_p = s.select(any, diff, s.eq(diff, s.zero()));
        s.eq(zero_or_p, s.zero())
    }

    /// `a^e` for a public exponent `e` (little-endian limbs), the same in all lanes: fixed
    /// 4-bit windows, table indexed by the public window. Constant-time in `a`.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub fn pow_public(&self, a: &Fe<S, N>, e: &[u64]) -> Fe<S, N> {
        let mut table = [self.one; 16];
        table[1] = *a;
        for i in 2..16 {
            table[i] = self.mul(&table[i - 1], a);
        }
        let windows = batch_core::num::bits_vartime(e).div_ceil(4);
        let mut acc = self.one;
        for w in (0..windows).rev() {
            if w != windows - 1 {
                for _ in 0..4 {
                    acc = self.square(&acc);
                }
            }
            acc = self.mul(&acc, &table[batch_core::num::window(e, 4 * w, 4) as usize]);
        }
        acc
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use batch_core::dev::{random_modulus, rng, to_big};
    use rand::RngExt;

    use crate::digits::{modulus_digits, to_digits};
    use crate::modexp::by_width;
    use crate::simd::{amm, amm_curve, ams, ams_curve, detect, Lanes, Y4, Z8};

    use super::*;

    /// `ams(a) ≡ amm(a, a) ≡ a²·R⁻¹ (mod m)` per lane, both `< 2m`, for inputs up to `2m − 1`.
    fn check<S: Lanes, const N: usize>(s: S, bits: usize, seed: u64) {
        let mut r = rng(seed);
        let mods: Vec<_> = (0..S::LANES)
            .map(|_| modulus_digits(&random_modulus(&mut r, bits), N).unwrap())
            .collect();
        // a < 2m: random below m, plus m − 1 + m in lane 0 and m − 1 in lane 1
        let avals: Vec<num_bigint::BigUint> = mods
            .iter()
            .enumerate()
            .map(|(l, md)| {
                let m = to_big(&md.limbs);
                match l {
                    0 => &m + &m - 1u8,
                    1 => &m - 1u8,
                    _ => {
                        let x: Vec<u64> = (0..md.limbs.len()).map(|_| r.random()).collect();
                        to_big(&x) % &m
                    }
                }
            })
            .collect();
        let ad: Vec<Vec<u64>> = avals
            .iter()
            .map(|v| to_digits(&v.to_u64_digits(), N))
            .collect();
        fn slices(v: &[Vec<u64>]) -> Vec<&[u64]> {
            v.iter().map(Vec::as_slice).collect()
        }
        let a: [S::V; N] = load(s, &slices(&ad));
        let md = Moduli::<S, N> {
            m: load(
                s,
                &slices(&mods.iter().map(|m| m.m.clone()).collect::<Vec<_>>()),
            ),
            k0: s.from_lanes(&mods.iter().map(|m| m.minv).collect::<Vec<_>>()),
        };
        let sq = store(s, &ams(s, &a, &md));
        let mu = store(s, &amm(s, &a, &a, &md));
        let rinv_bits = 52 * N;
        for l in 0..S::LANES {
            let m = to_big(&mods[l].limbs);
            let r_inv = (num_bigint::BigUint::from(1u8) << rinv_bits)
                .modinv(&m)
                .unwrap();
            let want = (&avals[l] * &avals[l] * &r_inv) % &m;
            for (what, got) in [("ams", &sq[l]), ("amm", &mu[l])] {
                let g = to_big(&batch_core::num::digits::from_digits(
                    got,
                    mods[l].limbs.len() + 1,
                    52,
                ));
                assert!(g < &m + &m, "{what} {bits} bits lane {l}: not below 2m");
                assert!(
                    got.iter().all(|&d| d < 1 << 52),
                    "{what}: digits not normalised"
                );
                assert_eq!(g % &m, want, "{what} {bits} bits lane {l}");
            }
        }
    }

    /// Without IFMA: one `skipped` line, or a failure where `BATCHSIG_REQUIRE_AVX512` is set.
    fn skip_or_fail(what: &str) {
        assert!(
            std::env::var("BATCHSIG_REQUIRE_AVX512").is_err(),
            "{what}: no AVX-512 IFMA, and BATCHSIG_REQUIRE_AVX512 is set"
        );
        eprintln!("skipped: no AVX-512 IFMA on this CPU ({what})");
    }

    /// The curve kernels (generated, with each prime's own reduction rows) against the generic
    /// product and squaring, bit for bit (the quotient digits are the same, so the almost
    /// reduced results must be too), and against num-bigint, for operands up to the bound the
    /// curve code allows (`k_a·k_b ≤ max_prod`), edges included: 0, 1, p − 1, p, 2p − 1,
    /// `max_prod·p − 1`, all-ones digits below the bound.
    fn check_curve<S: Lanes, const N: usize>(s: S, curve: batch_core::Curve, red: Reduction) {
        use batch_core::dev::to_big;
        use num_bigint::BigUint;
        let cc = crate::ecc::consts(curve);
        // (CurveField::new has target features; the same two fields, built here)
        let md = Moduli::<S, N> {
            m: core::array::from_fn(|i| s.splat(cc.field.p[i])),
            k0: s.splat(cc.field.minv),
        };
        let fred = Reduction::of(&cc.field.p, cc.field.minv);
        assert_eq!(fred, red, "{curve}: reduction");
        let p = to_big(&cc.p.limbs);
        let maxp = cc.field.max_prod;
        let r_inv = (BigUint::from(1u8) << (52 * N)).modinv(&p).unwrap();
        let mut r = rng(77);
        // (a, b) pairs per lane, a·b within the products' bound
        let mut pairs: Vec<(BigUint, BigUint)> = Vec::new();
        let edges = |k: u64| -> Vec<BigUint> {
            let kp = &p * k;
            vec![
                BigUint::from(0u8),
                BigUint::from(1u8),
                &p - 1u8,
                p.clone(),
                &kp - 1u8,
                (BigUint::from(1u8) << (kp.bits() - 1)) - 1u8,
            ]
        };
        for (ka, kb) in [(1, 1), (2, 2), (1, maxp), (maxp, 1), (4, maxp / 4)] {
            for x in edges(ka) {
                for y in edges(kb) {
                    pairs.push((x.clone(), y));
                }
            }
            for _ in 0..64 {
                let x: Vec<u64> = (0..cc.p.limbs.len() + 1).map(|_| r.random()).collect();
                let y: Vec<u64> = (0..cc.p.limbs.len() + 1).map(|_| r.random()).collect();
                pairs.push((to_big(&x) % (&p * ka), to_big(&y) % (&p * kb)));
            }
        }
        let digits = |v: &BigUint| crate::digits::to_digits(&v.to_u64_digits(), N);
        for group in pairs.chunks(S::LANES) {
            let mut group = group.to_vec();
            group.resize(S::LANES, (BigUint::from(3u8), BigUint::from(5u8)));
            let ad: Vec<Vec<u64>> = group.iter().map(|(x, _)| digits(x)).collect();
            let bd: Vec<Vec<u64>> = group.iter().map(|(_, y)| digits(y)).collect();
            fn sl(v: &[Vec<u64>]) -> Vec<&[u64]> {
                v.iter().map(Vec::as_slice).collect()
            }
            let (a, b): ([S::V; N], [S::V; N]) = (load(s, &sl(&ad)), load(s, &sl(&bd)));
            let got = store(s, &amm_curve(s, fred, &a, &b, &md));
            let want = store(s, &amm(s, &a, &b, &md));
            let got_sq = store(s, &ams_curve(s, fred, &a, &md));
            let want_sq = store(s, &amm(s, &a, &a, &md));
            for (l, (x, y)) in group.iter().enumerate() {
                assert_eq!(got[l], want[l], "{curve} mul lane {l}: {x:x} · {y:x}");
                assert_eq!(got_sq[l], want_sq[l], "{curve} sqr lane {l}: {x:x}²");
                let g = to_big(&batch_core::num::digits::from_digits(&got[l], N + 1, 52));
                assert!(g < &p + &p, "{curve}: not below 2p");
                assert_eq!(g % &p, (x * y * &r_inv) % &p, "{curve} mul lane {l}");
            }
        }
    }

    #[test]
    fn curve_kernels_match_generic_and_num_bigint() {
        let Ok(t) = detect() else {
            skip_or_fail("curve_kernels_match_generic_and_num_bigint");
            return;
        };
        use batch_core::Curve;
        check_curve::<Z8, 5>(t.z8(), Curve::P224, Reduction::Generic);
        check_curve::<Y4, 5>(t.y4(), Curve::P224, Reduction::Generic);
        check_curve::<Z8, 6>(t.z8(), Curve::P256, Reduction::P256);
        check_curve::<Y4, 6>(t.y4(), Curve::P256, Reduction::P256);
        check_curve::<Z8, 8>(t.z8(), Curve::P384, Reduction::Generic);
        check_curve::<Y4, 8>(t.y4(), Curve::P384, Reduction::Generic);
        check_curve::<Z8, 11>(t.z8(), Curve::P521, Reduction::P521);
        check_curve::<Y4, 11>(t.y4(), Curve::P521, Reduction::P521);
    }

    /// `half` on lanes: for operands below `k·p` (k = 1, 2, 3, 6; edges 0, 1, 2, p − 1,
    /// k·p − 1 and random values), the result has normalised digits, lies below its stated
    /// bound `⌈(k + 1)/2⌉·p`, and doubles back to the operand mod p.
    fn check_half<S: Lanes, const N: usize>(s: S, curve: batch_core::Curve) {
        use batch_core::dev::to_big;
        use num_bigint::BigUint;
        let cc = crate::ecc::consts(curve);
        let p = to_big(&cc.p.limbs);
        let mut r = rng(91);
        let digits = |v: &BigUint| crate::digits::to_digits(&v.to_u64_digits(), N);
        for k in [1u64, 2, 3, 6] {
            let kp = &p * k;
            let mut vals = vec![
                BigUint::from(0u8),
                BigUint::from(1u8),
                BigUint::from(2u8),
                &p - 1u8,
                &kp - 1u8,
            ];
            for _ in 0..40 {
                let x: Vec<u64> = (0..cc.p.limbs.len() + 1).map(|_| r.random()).collect();
                vals.push(to_big(&x) % &kp);
            }
            for group in vals.chunks(S::LANES) {
                let mut group = group.to_vec();
                group.resize(S::LANES, BigUint::from(7u8));
                let d: Vec<Vec<u64>> = group.iter().map(digits).collect();
                let sl: Vec<&[u64]> = d.iter().map(Vec::as_slice).collect();
                let a = Fe::<S, N> { d: load(s, &sl), k };
                let h = crate::simd::half_for_test(s, &cc.field, &a);
                assert_eq!(h.k, (k + 1).div_ceil(2));
                for (l, (got, x)) in store(s, &h.d).iter().zip(&group).enumerate() {
                    assert!(got.iter().all(|&d| d < 1 << 52), "{curve}: digits");
                    let g = to_big(&batch_core::num::digits::from_digits(got, N + 1, 52));
                    assert!(g < &p * h.k, "{curve} k={k} lane {l}: above the bound");
                    assert_eq!((&g + &g) % &p, x % &p, "{curve} k={k} lane {l}: {x:x}");
                }
            }
        }
    }

    #[test]
    fn half_on_lanes_halves() {
        let Ok(t) = detect() else {
            skip_or_fail("half_on_lanes_halves");
            return;
        };
        use batch_core::Curve;
        check_half::<Z8, 5>(t.z8(), Curve::P224);
        check_half::<Y4, 6>(t.y4(), Curve::P256);
        check_half::<Z8, 6>(t.z8(), Curve::P256);
        check_half::<Z8, 8>(t.z8(), Curve::P384);
        check_half::<Z8, 11>(t.z8(), Curve::P521);
    }

    #[test]
    fn squaring_matches_product_and_num_bigint() {
        let Ok(t) = detect() else {
            skip_or_fail("squaring_matches_product_and_num_bigint");
            return;
        };
        for (i, bits) in [
            200usize, 256, 414, 521, 1024, 1038, 1536, 2048, 3072, 3840, 4096, 7680, 15360,
        ]
        .into_iter()
        .enumerate()
        {
            let n = crate::modexp::kernel_digits(bits);
            by_width!(n, N => {
                check::<Z8, N>(t.z8(), bits, 100 + i as u64);
                check::<Y4, N>(t.y4(), bits, 200 + i as u64);
            });
        }
    }
}
