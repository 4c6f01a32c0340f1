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
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn amm_ifma<S: Lanes, const N: usize>(s: S, a: &[S::V; N], b: &[S::V; N], md: &Moduli<S, N>) -> [S::V; N] {
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

/// Reads every entry of `table` and keeps, per lane, entry `idx` (lanes of `idx` are
/// `< table.len()`; anything else gives zero digits). Constant-time: every entry is loaded,
/// lanes are chosen by mask.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
pub fn lookup<S: Lanes, const N: usize>(s: S, table: &[[S::V; N]], idx: S::V) -> [S::V; N] {
    let mut out = [s.zero(); N];
    for (t, e) in table.iter().enumerate() {
        let hit = s.eq(idx, s.splat(t as u64));
        for j in 0..N {
            out[j] = s.select(out[j], e[j], hit);
        }
    }
    out
}

/// Transposes `S::LANES` numbers of at least `N` digits each into `N` registers.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
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
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
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
