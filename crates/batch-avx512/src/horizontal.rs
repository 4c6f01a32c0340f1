//! Exponentiation of a few jobs with each number along a register's lanes (the "horizontal"
//! form), for what a batch leaves over once its groups of eight are cut: a single
//! verification, the two CRT halves of a single signature, a batch of five.
//!
//! The lane form (`field`, `modexp`) puts digit `i` of eight jobs in register `i`, so a group
//! costs eight lanes however few jobs fill it. Here one number's `N` digits lie along the
//! lanes of `R = ⌈N/L⌉` registers of `L` lanes (`zmm`, `L = 8`, or `ymm`, `L = 4`: digit `i`
//! in register `i/L`, lane `i mod L`), so one job fills the registers by itself. The
//! almost-Montgomery product is word-serial, as in OpenSSL's rsaz-avx512: for each digit `bᵢ`
//! of `b` the accumulator gains `lo52(a·bᵢ)` and `lo52(m·yᵢ)`, shifts down one digit
//! (`valignq`), then gains `hi52(a·bᵢ)` and `hi52(m·yᵢ)`, which the shift has already
//! aligned. The accumulator's lowest digit, and from it `yᵢ`, are kept exactly in a general
//! register (128-bit products), so the vector's lane 0 is only read once per digit, after the
//! shift. One step is a chain of about twenty cycles (scalar → broadcast → IFMA → shift →
//! scalar), so independent jobs run interleaved — two, or four where a number takes at most
//! four registers (`K`) — and each fills the others' waits (on Sapphire Rapids; Zen 4, with
//! half the `zmm` IFMA throughput, is bound by the IFMA work instead, which is why 20 digits
//! run in five `ymm` rather than three `zmm` with four padding digits: `modexp::FEW_YMM_DIGITS`).
//! A final pass propagates the carries (the 12 bits above each digit, then single carries by
//! the generate/propagate masks of an integer addition).
//!
//! Same contract as the lane kernel: inputs below `2m` in normalised digits with
//! `2^(52·N) > 4m`, output below `2m`, normalised. Constant-time jobs use the lane form's fixed
//! window (at most five bits), with a lookup that reads every table entry and keeps one by
//! mask; `_vartime` jobs square-and-multiply.
//!
//! Every function here is `#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]` and takes
//! a [`crate::simd::Z8`] or [`crate::simd::Y4`] proof; the entry point is
//! [`crate::simd::modexp_few`].

use batch_core::num::digits::ModulusDigits;
use batch_core::num::dyn_monty::window_for;
use batch_core::num::{bits_vartime, window};

use crate::digits::to_digits;
use crate::simd::{opaque_u64, Across, Lanes};

const MASK: u64 = (1 << 52) - 1;

/// One number in the horizontal form: `L·R` digits (`L` lanes a register), digit `i` in
/// register `i/L`, lane `i mod L`.
type Num<S, const R: usize> = [<S as Lanes>::V; R];

/// A job's modulus in the horizontal form, with its lowest digit and `−m⁻¹ mod 2^52` for the
/// scalar side of the product.
struct HMod<S: Lanes, const R: usize> {
    m: Num<S, R>,
    m0: u64,
    k0: u64,
}

/// The digits `d` (at most `L·R`), zero-padded.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn load<S: Across, const R: usize>(s: S, d: &[u64]) -> Num<S, R> {
    assert!(d.len() <= S::LANES * R);
    let mut out = [s.zero(); R];
    for (j, o) in out.iter_mut().enumerate() {
        let mut buf = [0u64; 8];
        for (l, x) in buf.iter_mut().enumerate().take(S::LANES) {
            if let Some(&v) = d.get(S::LANES * j + l) {
                *x = v;
            }
        }
        *o = s.from_lanes(&buf[..S::LANES]);
    }
    out
}

/// The first `n` digits of `v`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn store<S: Across, const R: usize>(s: S, v: &Num<S, R>, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; S::LANES * R];
    for (j, &x) in v.iter().enumerate() {
        s.to_lanes(x, &mut out[S::LANES * j..S::LANES * (j + 1)]);
    }
    out.truncate(n);
    out
}

/// Carries propagated: every digit below `2^52`. The value is unchanged provided it fits in
/// `L·R` digits (a product's is below `2m`).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(crate) fn normalise<S: Across, const R: usize>(s: S, r: &Num<S, R>) -> Num<S, R> {
    let mask = s.splat(MASK);
    let zero = s.zero();
    let mut out = [zero; R];
    // The bits above each digit move up one digit (they stay below 2^12).
    let mut below = zero;
    for j in 0..R {
        let c = s.shr52(r[j]);
        out[j] = s.add(s.and(r[j], mask), s.shift_up(c, below));
        below = c;
    }
    // Now each digit is at most 2^52 + 2^12: one carry at most. A digit generates one if it
    // is above 2^52 − 1 and passes one on if it equals it; the carries into each digit are
    // then those of the integer addition (g << 1) + p, read off by xor with p.
    let carries = if S::LANES * R <= 64 {
        // In general registers, each shifted mask behind `opaque_u64` so that LLVM does not
        // gather the two in vector registers (measured: 1024-bit CRT pair −3 %, 1536 and
        // 2048 −2 %). The 80-digit form keeps its masks in a u128.
        let (mut g, mut p) = (0u64, 0u64);
        for (j, &x) in out.iter().enumerate() {
            g |= opaque_u64(u64::from(s.gt(x, mask)) << (S::LANES * j));
            p |= opaque_u64(u64::from(s.eq(x, mask)) << (S::LANES * j));
        }
        u128::from((g << 1).wrapping_add(p) ^ p)
    } else {
        let (mut g, mut p) = (0u128, 0u128);
        for (j, &x) in out.iter().enumerate() {
            g |= u128::from(s.gt(x, mask)) << (S::LANES * j);
            p |= u128::from(s.eq(x, mask)) << (S::LANES * j);
        }
        (g << 1).wrapping_add(p) ^ p
    };
    for (j, x) in out.iter_mut().enumerate() {
        // x + 1 − 2^52 where a carry comes in, then the low 52 bits.
        *x = s.and(s.sub_in(*x, (carries >> (S::LANES * j)) as u8, mask), mask);
    }
    out
}

/// `K` independent almost-Montgomery products `a_k·b_k·2^(−52n) mod m_k`, each below `2m_k`
/// given inputs below `2m_k` and `2^(52n) > 4m_k`.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn amm<S: Across, const R: usize, const K: usize>(
    s: S,
    n: usize,
    a: &[Num<S, R>; K],
    b: &[Num<S, R>; K],
    m: &[&HMod<S, R>; K],
) -> [Num<S, R>; K] {
    let mut r = *a;
    amm_into(s, n, &mut r, Some(b), m);
    r
}

/// [`amm`] in place: `acc ← acc·b` (`acc²` where `b` is `None`). The result is stored where
/// the next product reads it, in the registers' own width: returned by value, the caller
/// copied each product through its stack in `zmm` halves, and a load spanning two `ymm`
/// stores waits for them to retire (no store forwarding) — on the squarings' critical path.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline(never)]
fn amm_into<S: Across, const R: usize, const K: usize>(
    s: S,
    n: usize,
    acc: &mut [Num<S, R>; K],
    b: Option<&[Num<S, R>; K]>,
    m: &[&HMod<S, R>; K],
) {
    debug_assert!(n <= S::LANES * R);
    let zero = s.zero();
    let a = &*acc;
    let b = b.unwrap_or(a);
    // b's digits in memory, digit i at index i (register i/L, lane i mod L)
    let mut bd: [&[u64]; K] = [&[]; K];
    let mut a0 = [0u64; K];
    for k in 0..K {
        bd[k] = bytemuck::cast_slice(&b[k][..]);
        a0[k] = s.lane0(a[k][0]);
    }
    let mut r = [[zero; R]; K];
    // The accumulator's lowest digit, exact (the vector's lane 0 is dropped by each shift).
    let mut low = [0u64; K];
    for i in 0..n {
        for k in 0..K {
            let bi = bd[k][i];
            let t = u128::from(low[k]) + u128::from(a0[k]) * u128::from(bi);
            let y = (t as u64).wrapping_mul(m[k].k0) & MASK;
            let t = t + u128::from(m[k].m0) * u128::from(y);
            // t ≡ 0 mod 2^52: its carry into the next digit (below 2^54).
            low[k] = (t >> 52) as u64;
            let (vb, vy) = (s.splat(bi), s.splat(y));
            let rk = &mut r[k];
            for j in 0..R {
                rk[j] = s.madd_lo(rk[j], a[k][j], vb);
            }
            for j in 0..R {
                rk[j] = s.madd_lo(rk[j], m[k].m[j], vy);
            }
            for j in 0..R {
                let hi = if j + 1 < R { rk[j + 1] } else { zero };
                rk[j] = s.shift_down(hi, rk[j]);
            }
            // Digits gain at most four terms below 2^52 per step: lane values stay below
            // 4·n·2^52 < 2^62, and low below 2^63.
            low[k] += s.lane0(rk[0]);
            for j in 0..R {
                rk[j] = s.madd_hi(rk[j], a[k][j], vb);
            }
            for j in 0..R {
                rk[j] = s.madd_hi(rk[j], m[k].m[j], vy);
            }
        }
    }
    for k in 0..K {
        r[k][0] = s.with_lane0(r[k][0], low[k]);
        acc[k] = normalise(s, &r[k]);
    }
}

/// Per job `k`, entry `want[k]` of `table` (its `[k]` part), reading every entry once per job
/// (per group of at most eight of its registers). Constant-time in `want`: each job's index
/// is broadcast behind [`Lanes::opaque`], so the optimiser cannot see that all its lanes are
/// equal (and choose whole entries by a jump); every lane is compared with the entry counter
/// and kept by a masked move, in registers — at most eight accumulators, so none spills to the
/// stack, where LLVM selects by stores masked by the secret index (see
/// `field::select_entries`).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline]
fn select<S: Across, const R: usize, const K: usize>(
    s: S,
    table: &[[Num<S, R>; K]],
    want: &[u64; K],
) -> [Num<S, R>; K] {
    const GROUP: usize = 8;
    let mut idx = [s.zero(); K];
    for k in 0..K {
        idx[k] = s.opaque(s.splat(want[k]));
    }
    let one = s.splat(1);
    let mut out = [[s.zero(); R]; K];
    for k in 0..K {
        for j0 in (0..R).step_by(GROUP) {
            let n = GROUP.min(R - j0);
            let mut acc = [s.zero(); GROUP];
            let mut t = s.zero();
            for entry in table {
                let hit = s.eq(t, idx[k]);
                for (b, a) in acc.iter_mut().enumerate().take(n) {
                    *a = s.select(*a, entry[k][j0 + b], hit);
                }
                t = s.add(t, one);
            }
            for (o, &a) in out[k][j0..j0 + n].iter_mut().zip(&acc) {
                *o = s.opaque(a);
            }
        }
    }
    out
}

/// The widest window here: the lane form's six bits at 2048-bit exponents save 36 products
/// a pair but read twice the entries per window; five measured 4–7 % faster per RSA-4096 CRT
/// pair on Zen 4 (AWS-LC's `RSAZ_mod_exp_avx512_x2` uses five at every width too).
const MAX_WINDOW: usize = 5;

/// Fixed-window exponentiation over every bit of the exponents' limbs (their count is public),
/// the lane form's window up to [`MAX_WINDOW`] bits; `b`, `one` in Montgomery form.
/// Constant-time in the base and exponent values: the lookup reads every entry and keeps one
/// by mask.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn pow<S: Across, const R: usize, const K: usize>(
    s: S,
    n: usize,
    b: &[Num<S, R>; K],
    one: &[Num<S, R>; K],
    exps: &[&[u64]; K],
    m: &[&HMod<S, R>; K],
) -> [Num<S, R>; K] {
    let limbs = exps.iter().map(|e| e.len()).max().unwrap_or(0);
    let bits = 64 * limbs;
    let w = window_for(bits).min(MAX_WINDOW);
    let mut table: Vec<[Num<S, R>; K]> = Vec::with_capacity(1 << w);
    table.push(*one);
    table.push(*b);
    for i in 2..1 << w {
        let next = amm(s, n, &table[i - 1], b, m);
        table.push(next);
    }
    let windows = bits.div_ceil(w);
    let mut acc = *one;
    for win in (0..windows).rev() {
        let mut want = [0u64; K];
        for k in 0..K {
            want[k] = window(exps[k], win * w, w);
        }
        let entry = select(s, &table, &want);
        if win == windows - 1 {
            acc = entry; // acc is one: skip the squarings and the product
        } else {
            for _ in 0..w {
                amm_into(s, n, &mut acc, None, m);
            }
            amm_into(s, n, &mut acc, Some(&entry), m);
        }
    }
    acc
}

/// Left-to-right square-and-multiply over the longest exponent's significant bits; a job keeps
/// the product only where its bit is set. Variable-time in the exponents. Returns the power out
/// of Montgomery form: no product by 1 at the top bit, and the last bit's product, by the plain
/// base `bp` (`x·R · b / R`) or by 1, is also the conversion out.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn pow_vartime<S: Across, const R: usize, const K: usize>(
    s: S,
    n: usize,
    b: &[Num<S, R>; K],
    bp: &[Num<S, R>; K],
    one: &[Num<S, R>; K],
    exps: &[&[u64]; K],
    m: &[&HMod<S, R>; K],
) -> [Num<S, R>; K] {
    let bits = exps.iter().map(|e| bits_vartime(e)).max().unwrap_or(0);
    let bit = |i: usize| -> [bool; K] { core::array::from_fn(|k| window(exps[k], i, 1) == 1) };
    let unit = [load(s, &[1]); K];
    if bits == 0 {
        return amm(s, n, one, &unit, m);
    }
    // the top bit: b in the jobs that have it, 1 in the others (no product by 1)
    let top = bit(bits - 1);
    let mut acc: [Num<S, R>; K] = core::array::from_fn(|k| if top[k] { b[k] } else { one[k] });
    for i in (1..bits - 1).rev() {
        amm_into(s, n, &mut acc, None, m);
        let hit = bit(i);
        if hit.iter().any(|&h| h) {
            let t = amm(s, n, &acc, b, m);
            for k in 0..K {
                if hit[k] {
                    acc[k] = t[k];
                }
            }
        }
    }
    if bits == 1 {
        return amm(s, n, &acc, &unit, m);
    }
    // bit 0 leaves Montgomery form: × the plain base where it is set, × 1 elsewhere
    amm_into(s, n, &mut acc, None, m);
    let last = bit(0);
    let f: [Num<S, R>; K] = core::array::from_fn(|k| if last[k] { bp[k] } else { unit[k] });
    amm(s, n, &acc, &f, m)
}

/// `K` jobs together: `bases[k]^exps[k] mod mods[k]`, canonical limbs.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn run<S: Across, const R: usize, const K: usize>(
    s: S,
    n: usize,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    let zero = [[s.zero(); R]; K];
    let (mut hm, mut one, mut r2, mut x) = ([(); K].map(|_| None), zero, zero, zero);
    for k in 0..K {
        let md = mods[k];
        hm[k] = Some(HMod {
            m: load(s, &md.m),
            m0: md.m[0],
            k0: md.minv,
        });
        one[k] = load(s, &md.one);
        r2[k] = load(s, &md.r2);
        x[k] = load(s, &to_digits(bases[k], n));
    }
    let mr: [&HMod<S, R>; K] = core::array::from_fn(|k| hm[k].as_ref().expect("set above"));
    let e: [&[u64]; K] = core::array::from_fn(|k| exps[k]);
    let unit = [load(s, &[1]); K];
    // base·R mod m, below 2m
    let b = amm(s, n, &x, &r2, &mr);
    let out = if vartime {
        pow_vartime(s, n, &b, &x, &one, &e, &mr)
    } else {
        amm(s, n, &pow(s, n, &b, &one, &e, &mr), &unit, &mr)
    };
    (0..K)
        .map(|k| mods[k].canonical(&store(s, &out[k], n)))
        .collect()
}

/// Up to this many registers a number, four jobs run interleaved (their accumulators, 4·R
/// registers, and the eight broadcast digits still fit the 32 vector registers); wider numbers
/// go two at a time (five `ymm` a number, four jobs: measured slower than two pairs on Zen 4).
const QUAD_MAX_REGS: usize = 4;

/// A few jobs of kernel width `n ≤ L·R` (`L` lanes a register of `S`), four (up to
/// `QUAD_MAX_REGS`) or two at a time: `bases[j]^exps[j] mod mods[j]`, canonical limbs.
/// Constant-time in bases and exponent values unless `vartime` (the pairing depends only on
/// the job count).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn modexp_few_ifma<S: Across, const R: usize>(
    s: S,
    n: usize,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    // `normalise` keeps 8 mask bits a register in a u128.
    const { assert!(S::LANES * R < 128) };
    assert!(n <= S::LANES * R && mods.len() == bases.len() && mods.len() == exps.len());
    let mut out = Vec::with_capacity(mods.len());
    let mut i = 0;
    while i < mods.len() {
        let left = mods.len() - i;
        let k = if left >= 4 && R <= QUAD_MAX_REGS {
            4
        } else {
            left.min(2)
        };
        let (m, b, e) = (&mods[i..i + k], &bases[i..i + k], &exps[i..i + k]);
        out.extend(match k {
            4 => run::<S, R, 4>(s, n, m, b, e, vartime),
            2 => run::<S, R, 2>(s, n, m, b, e, vartime),
            _ => run::<S, R, 1>(s, n, m, b, e, vartime),
        });
        i += k;
    }
    out
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;

    use super::*;

    fn value(d: &[u64]) -> BigUint {
        d.iter().rev().fold(BigUint::default(), |acc, &x| {
            (acc << 52u32) + BigUint::from(x)
        })
    }

    /// Carry propagation over digits the random products rarely produce: runs of
    /// `2^52 − 1` that a carry ripples through (within a register and across registers),
    /// digits with twelve high bits set, and a digit generating a carry right below a run.
    #[test]
    fn normalise_ripples_carries_through_runs() {
        let Ok(t) = crate::simd::detect() else {
            eprintln!(
                "skipped: no AVX-512 IFMA on this CPU (normalise_ripples_carries_through_runs)"
            );
            return;
        };
        for d in cases() {
            check_normalise::<_, 4>(t.z8(), &d);
            check_normalise::<_, 8>(t.y4(), &d);
            // 80 digits: the masks in a u128 rather than a u64
            check_normalise::<_, 10>(t.z8(), &d);
        }
        // a ripple across bit 64 of the masks, from digit 60 to 70
        let wide = [vec![0; 60], vec![MASK + 1], vec![MASK; 10], vec![3]].concat();
        check_normalise::<_, 10>(t.z8(), &wide);
    }

    /// Digits (at most `L·R`) carried through `normalise` in `R` registers of `s`'s width.
    fn check_normalise<S: Across, const R: usize>(s: S, d: &[u64]) {
        let mut v = [s.zero(); R];
        for (j, x) in v.iter_mut().enumerate() {
            let mut lanes = [0u64; 8];
            for (l, y) in lanes.iter_mut().enumerate().take(S::LANES) {
                *y = d.get(S::LANES * j + l).copied().unwrap_or(0);
            }
            *x = s.from_lanes(&lanes[..S::LANES]);
        }
        let out = crate::simd::normalise_for_test(s, &v);
        assert!(
            out.iter().all(|&x| x <= MASK),
            "{} {d:x?} -> {out:x?}",
            S::NAME
        );
        assert_eq!(value(&out), value(d), "{} {d:x?}", S::NAME);
    }

    fn cases() -> Vec<Vec<u64>> {
        vec![
            // a carry out of digit 0 ripples through digits 1..=12 (across register edges)
            [vec![MASK + 1], vec![MASK; 12], vec![5, 0, 0]].concat(),
            // high bits in every digit, a run after each
            (0..24)
                .map(|i| {
                    if i % 3 == 0 {
                        (0xfff << 52) | MASK
                    } else {
                        MASK
                    }
                })
                .chain([0])
                .collect(),
            // a run that ends at the top of the used digits, and zeros
            [vec![0, 7 << 52], vec![MASK; 20], vec![0]].concat(),
            // no carries at all
            vec![MASK - 1; 23],
        ]
    }
}
