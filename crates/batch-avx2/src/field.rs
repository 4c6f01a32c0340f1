//! 4-lane Montgomery arithmetic on 28-bit digits: the one kernel every operation runs on.
//!
//! Representation (transposed, multi-buffer): an `N`-digit number of each of four independent
//! lanes is `[V; N]`; register `i` holds digit `i` of lanes 0–3 in its four 64-bit lanes
//! (`d_i < 2^28 + 2^9`, "almost normalised", so every digit fits `vpmuludq`'s 32-bit inputs):
//!
//! ```text
//!   x[i] = [ lane0.d_i | lane1.d_i | lane2.d_i | lane3.d_i ]   value_l = Σ_i d_i·2^(28·i)
//! ```
//!
//! Each lane has its own modulus `m` (RSA batches may mix keys) with `R = 2^(28·N) > 4m`.
//! [`mont_mul`] is operand-scanning Montgomery multiplication with lazy carries: products go
//! into 64-bit column accumulators, only the lowest column is carried each step.
//! Pre: digits `< 2^28 + 2^9`. Post: `a·b·R⁻¹ + q·m·R⁻¹ < a·b/R + m`, digits `< 2^28 + 2^9`
//! (two parallel carry passes, no serial chain). With `a, b < 2m` the result is `< 2m`
//! ("almost Montgomery": never reduced below `m` inside a computation).
//!
//! Column bound: a column collects at most `2N` products `< 2^56.01` plus one carry `< 2^36`,
//! so `N ≤ 127` needs no extra carries; wider kernels (RSA-4096 and up) run a parallel carry
//! pass over the live columns every 64 rows.
//!
//! [`Field4`] adds bound-tracked add/sub for the curve fields (every lane the same prime).
//! Everything is constant-time: no branch or address depends on lane values.

use core::arch::x86_64::*;

use crate::digits::{DIGIT_BITS, DIGIT_MASK};
pub use batch_core::num::digits::FieldConsts;

/// Four 64-bit lanes.
pub type V = __m256i;

#[target_feature(enable = "avx2")]
#[inline]
pub fn splat(x: u64) -> V {
    _mm256_set1_epi64x(x as i64)
}

#[target_feature(enable = "avx2")]
#[inline]
pub fn zero() -> V {
    _mm256_setzero_si256()
}

#[target_feature(enable = "avx2")]
#[inline]
pub fn from_lanes(l: [u64; 4]) -> V {
    _mm256_set_epi64x(l[3] as i64, l[2] as i64, l[1] as i64, l[0] as i64)
}

#[target_feature(enable = "avx2")]
#[inline]
pub fn to_lanes(v: V) -> [u64; 4] {
    [
        _mm256_extract_epi64::<0>(v) as u64,
        _mm256_extract_epi64::<1>(v) as u64,
        _mm256_extract_epi64::<2>(v) as u64,
        _mm256_extract_epi64::<3>(v) as u64,
    ]
}

/// `a` where `mask` lanes are zero, `b` where they are all-ones.
#[target_feature(enable = "avx2")]
#[inline]
pub fn blend(a: V, b: V, mask: V) -> V {
    _mm256_or_si256(_mm256_andnot_si256(mask, a), _mm256_and_si256(mask, b))
}

/// All-ones lanes where `a == b`.
#[target_feature(enable = "avx2")]
#[inline]
pub fn eq_mask(a: V, b: V) -> V {
    _mm256_cmpeq_epi64(a, b)
}

/// Transposes four lanes of `N` digits each into `N` registers.
#[target_feature(enable = "avx2")]
#[inline]
pub fn load<const N: usize>(lanes: [&[u64]; 4]) -> [V; N] {
    let mut out = [zero(); N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = from_lanes([lanes[0][i], lanes[1][i], lanes[2][i], lanes[3][i]]);
    }
    out
}

/// The same `N` digits in all four lanes.
#[target_feature(enable = "avx2")]
#[inline]
pub fn broadcast<const N: usize>(d: &[u64]) -> [V; N] {
    let mut out = [zero(); N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = splat(d[i]);
    }
    out
}

/// Inverse of [`load`].
#[target_feature(enable = "avx2")]
#[inline]
pub fn store<const N: usize>(x: &[V; N]) -> [Vec<u64>; 4] {
    let mut out = [vec![0u64; N], vec![0u64; N], vec![0u64; N], vec![0u64; N]];
    for (i, v) in x.iter().enumerate() {
        let l = to_lanes(*v);
        for (o, li) in out.iter_mut().zip(l) {
            o[i] = li;
        }
    }
    out
}

/// One parallel carry pass: `d_i ← (d_i mod 2^28) + ⌊d_{i−1}/2^28⌋`. Value-preserving when
/// the value is below `2^(28·N)` (then the top digit's carry is zero). Digits `< 2^64` in,
/// `< 2^28 + 2^36` out; digits `< 2^37` in, `< 2^28 + 2^9` out.
#[target_feature(enable = "avx2")]
#[inline]
pub fn carry_pass<const N: usize>(x: &mut [V; N]) {
    let mask = splat(DIGIT_MASK);
    for k in (1..N).rev() {
        x[k] = _mm256_add_epi64(
            _mm256_and_si256(x[k], mask),
            _mm256_srli_epi64::<28>(x[k - 1]),
        );
    }
    x[0] = _mm256_and_si256(x[0], mask);
}

/// Per-lane modulus for [`mont_mul`].
#[derive(Clone, Copy, Debug)]
pub struct Modulus4<const N: usize> {
    /// `m`, normalised digits, per lane.
    pub m: [V; N],
    /// `−m⁻¹ mod 2^28`, per lane.
    pub minv: V,
}

/// `a·b·R⁻¹ mod m` per lane, almost reduced (see the module header for the bounds).
///
/// Two rows of the operand scan at a time: the two quotient digits `q_i`, `q_{i+1}` come
/// first (column `i + 1` is completed early for `q_{i+1}`), then one sweep adds four products
/// to each column, so a column is loaded and stored once per two rows. The accumulator is a
/// sliding window: `acc[k]` is column `i + k` before rows `i, i + 1` and column `i + 2 + k`
/// after them (the sweep writes two places down), so every loop has a constant trip count.
/// Columns `≥ i + N`, outside the window, are zero.
#[target_feature(enable = "avx2")]
#[inline]
pub fn mont_mul<const N: usize>(a: &[V; N], b: &[V; N], md: &Modulus4<N>) -> [V; N] {
    let mask = splat(DIGIT_MASK);
    let m = &md.m;
    let mul = |x: V, y: V| _mm256_mul_epu32(x, y);
    let add = |x: V, y: V| _mm256_add_epi64(x, y);
    let mut acc = [zero(); N];
    let mut i = 0;
    while i + 1 < N {
        let (a0, a1) = (a[i], a[i + 1]);
        // Column i: q0 makes it ≡ 0 (mod 2^28); only its carry survives.
        let t0 = add(acc[0], mul(a0, b[0]));
        let q0 = _mm256_and_si256(mul(t0, md.minv), mask);
        let c0 = _mm256_srli_epi64::<28>(add(t0, mul(q0, m[0])));
        // Column i + 1, complete: both rows' terms and the carry.
        let t1 = add(
            add(add(acc[1], mul(a0, b[1])), add(mul(q0, m[1]), c0)),
            mul(a1, b[0]),
        );
        let q1 = _mm256_and_si256(mul(t1, md.minv), mask);
        let c1 = _mm256_srli_epi64::<28>(add(t1, mul(q1, m[0])));
        // Columns i + k, k = 2 … N − 1: row i's digit k, row i + 1's digit k − 1.
        for k in 2..N {
            let p = add(
                add(mul(a0, b[k]), mul(q0, m[k])),
                add(mul(a1, b[k - 1]), mul(q1, m[k - 1])),
            );
            acc[k - 2] = add(acc[k], p);
        }
        // Column i + N: row i + 1 only (it was zero); column i + N + 1 is zero.
        acc[N - 2] = add(mul(a1, b[N - 1]), mul(q1, m[N - 1]));
        acc[N - 1] = zero();
        acc[0] = add(acc[0], c1);
        if N >= 128 && (i + 2) % 64 == 0 {
            // Every 64 rows, one parallel carry pass over the window (its top column is zero).
            carry_pass(&mut acc);
        }
        i += 2;
    }
    if i < N {
        // Odd N: the last row alone (i = N − 1); acc[k] is column i + k, then i + 1 + k.
        let ai = a[i];
        let t0 = add(acc[0], mul(ai, b[0]));
        let q = _mm256_and_si256(mul(t0, md.minv), mask);
        let carry = _mm256_srli_epi64::<28>(add(t0, mul(q, m[0])));
        for k in 1..N {
            acc[k - 1] = add(acc[k], add(mul(ai, b[k]), mul(q, m[k])));
        }
        acc[N - 1] = zero();
        acc[0] = add(acc[0], carry);
    }
    carry_pass(&mut acc);
    carry_pass(&mut acc);
    acc
}

/// `a²·R⁻¹ mod m` per lane, as [`mont_mul`]. (A dedicated squaring — cross products once,
/// then the reduction — measured slower: its column updates are load/store bound.)
#[target_feature(enable = "avx2")]
#[inline]
pub fn mont_sqr<const N: usize>(a: &[V; N], md: &Modulus4<N>) -> [V; N] {
    mont_mul(a, a, md)
}

/// Reads every entry of `table` and keeps, per lane, entry `idx` (lanes of `idx` are
/// `< table.len()`; anything else gives zero digits). Constant-time.
#[target_feature(enable = "avx2")]
#[inline]
pub fn lookup<const N: usize>(table: &[[V; N]], idx: V) -> [V; N] {
    let mut out = [zero(); N];
    for (t, e) in table.iter().enumerate() {
        let mask = eq_mask(idx, splat(t as u64));
        for j in 0..N {
            out[j] = _mm256_or_si256(out[j], _mm256_and_si256(e[j], mask));
        }
    }
    out
}

/// `[1, 0, …, 0]` in every lane: multiplying by it leaves Montgomery form.
#[target_feature(enable = "avx2")]
#[inline]
pub fn unit<const N: usize>() -> [V; N] {
    let mut u = [zero(); N];
    u[0] = splat(1);
    u
}

/// A curve-field element on four lanes with a *public* bound: value `< k·p` in every lane.
/// The bound depends only on the sequence of operations, never on data, so tracking it is
/// constant-time; debug builds assert that every product stays in range, and since the
/// bounds are data-independent one run of each formula proves them for all inputs.
#[derive(Clone, Copy, Debug)]
pub struct Fe<const N: usize> {
    pub d: [V; N],
    pub k: u64,
}

/// A curve field on four lanes (same prime in every lane), built from [`FieldConsts`].
#[derive(Debug)]
pub struct Field4<const N: usize> {
    pub md: Modulus4<N>,
    pub max_prod: u64,
    pub subs: Vec<(u64, u64, [V; N])>,
    pub one: Fe<N>,
    pub r2: Fe<N>,
    pub b: Fe<N>,
    pub unit: [V; N],
}

impl<const N: usize> Field4<N> {
    #[target_feature(enable = "avx2")]
    pub fn new(c: &FieldConsts) -> Self {
        assert_eq!(c.digit_bits, DIGIT_BITS);
        assert_eq!(c.n, N);
        Self {
            md: Modulus4 {
                m: broadcast(&c.p),
                minv: splat(c.minv),
            },
            max_prod: c.max_prod,
            subs: c
                .subs
                .iter()
                .map(|s| (s.c, s.max_kb, broadcast(&s.digits)))
                .collect(),
            one: Fe {
                d: broadcast(&c.one),
                k: 1,
            },
            r2: Fe {
                d: broadcast(&c.r2),
                k: 1,
            },
            b: Fe {
                d: broadcast(&c.b),
                k: 1,
            },
            unit: unit(),
        }
    }

    /// Zero in every lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn zero(&self) -> Fe<N> {
        Fe {
            d: [zero(); N],
            k: 1,
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn mul(&self, a: &Fe<N>, b: &Fe<N>) -> Fe<N> {
        debug_assert!(
            a.k.saturating_mul(b.k) <= self.max_prod,
            "product bound {}·{}",
            a.k,
            b.k
        );
        Fe {
            d: mont_mul(&a.d, &b.d, &self.md),
            k: 2,
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn square(&self, a: &Fe<N>) -> Fe<N> {
        debug_assert!(
            a.k.saturating_mul(a.k) <= self.max_prod,
            "square bound {}",
            a.k
        );
        Fe {
            d: mont_sqr(&a.d, &self.md),
            k: 2,
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn add(&self, a: &Fe<N>, b: &Fe<N>) -> Fe<N> {
        let mut d = [zero(); N];
        for i in 0..N {
            d[i] = _mm256_add_epi64(a.d[i], b.d[i]);
        }
        carry_pass(&mut d);
        debug_assert!(a.k + b.k <= self.max_prod, "sum bound");
        Fe { d, k: a.k + b.k }
    }

    /// `a − b + c·p` for the smallest tabulated `c` that covers `b`'s bound.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn sub(&self, a: &Fe<N>, b: &Fe<N>) -> Fe<N> {
        let (c, _, cd) = self
            .subs
            .iter()
            .find(|s| s.1 >= b.k)
            .unwrap_or_else(|| panic!("no subtraction constant covers bound {}", b.k));
        let mut d = [zero(); N];
        for i in 0..N {
            d[i] = _mm256_sub_epi64(_mm256_add_epi64(a.d[i], cd[i]), b.d[i]);
        }
        carry_pass(&mut d);
        debug_assert!(a.k + c <= self.max_prod, "difference bound");
        Fe { d, k: a.k + c }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn neg(&self, a: &Fe<N>) -> Fe<N> {
        self.sub(&self.zero(), a)
    }

    /// `a` in lanes where `mask` is zero, `b` where it is all-ones.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn select(&self, a: &Fe<N>, b: &Fe<N>, mask: V) -> Fe<N> {
        let mut d = [zero(); N];
        for i in 0..N {
            d[i] = blend(a.d[i], b.d[i], mask);
        }
        Fe { d, k: a.k.max(b.k) }
    }

    /// Enters Montgomery form: canonical digits (`< p`) in, `k = 2` out.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn to_monty(&self, canonical: &[V; N]) -> Fe<N> {
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
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn out_of_monty(&self, a: &Fe<N>) -> [V; N] {
        self.mul(a, &Fe { d: self.unit, k: 1 }).d
    }

    /// `a^e` for a public exponent `e` (little-endian limbs) that is the same in all lanes:
    /// fixed 4-bit windows, table indexed by the public window. Constant-time in `a`.
    #[target_feature(enable = "avx2")]
    pub fn pow_public(&self, a: &Fe<N>, e: &[u64]) -> Fe<N> {
        let mut table = [self.one; 16];
        table[1] = *a;
        for i in 2..16 {
            table[i] = self.mul(&table[i - 1], a);
        }
        let bits = batch_core::num::bits_vartime(e);
        let windows = bits.div_ceil(4);
        let mut acc = self.one;
        for w in (0..windows).rev() {
            if w != windows - 1 {
                for _ in 0..4 {
                    acc = self.square(&acc);
                }
            }
            let idx = batch_core::num::window(e, 4 * w, 4) as usize;
            acc = self.mul(&acc, &table[idx]);
        }
        acc
    }
}
