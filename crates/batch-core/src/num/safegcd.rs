//! Modular inversion by Bernstein–Yang "safegcd" divsteps (Bernstein, Yang: *Fast
//! constant-time gcd computation and modular inversion*, TCHES 2019), for any odd modulus.
//!
//! Representation: signed numbers in 62-bit limbs (`i64`, limbs `0..S−1` in `[0, 2^62)`, the
//! top limb signed), `S` limbs wide, enough for the modulus plus sign and slack. Each batch of
//! 60 divsteps works on the low 64 bits of `f` and `g` only and yields a 2×2 transition
//! matrix scaled by `2^62` (entries `|·| ≤ 2^62`), then applies it to the full `f, g` and to
//! the Bézout coefficients `d, e` (kept in `(−2m, m)` by adding the multiple of `m` that makes
//! them divisible by `2^62`, as libsecp256k1's `modinv64` does).
//!
//! Number of divsteps for `d`-bit inputs: up to `d = 3805` the "half-delta" variant (δ starting
//! at 1/2, Wuille's `hddivsteps`), bounded by `⌊(3787·d + 2166)/1644⌋` for `0 ≤ g ≤ f < 2^d`,
//! `d ≥ 23` (computed by convex-hull bounds for every `d ≤ 3805`, github.com/sipa/safegcd-bounds;
//! 591 for 256 bits, 885 for 384, 1201 for 521, against 742, 1111 and 1506 below); above
//! that the classic variant (δ starting at 1) with the paper's proven bound `⌊(49d + 80)/17⌋`
//! (Theorem 11.2). Here `d` is the limb width (`64·limbs`), an upper bound on the modulus.
//!
//! [`inv_odd`] is constant-time in the input *and* the modulus (secret RSA primes, nonces):
//! a fixed number of batches, every step by masks. The masks of the per-batch and final steps
//! (signs of `d`, `e`, `f`) go through `black_box`: without it LLVM turned the conditional
//! negation and additions of `m` into branches, which `scripts/ct-check.sh` caught; the
//! divstep loop stays branch-free without it (and the same check watches it).
//!
//! [`inv_odd_vartime`], for public values (`s⁻¹` in ECDSA verification, `Z` of public
//! points), runs the classic variant in batches of 62 that jump over runs of steps
//! ([`divsteps_62_vartime`], as libsecp256k1's variable-time inverse) and stops as soon as
//! `g = 0`: P-256 1.6 → 1.1 µs, P-521 3.7 → 2.4 µs on Zen 4 (`invbench`, docs/PERF.md).
//! Both return `None` when the input is not invertible (a public verdict).

use core::hint::black_box;

use super::Uint;

const M62: u64 = u64::MAX >> 2;

/// Signed-62 limbs needed for a `bits`-bit modulus: `S` limbs (the top one a signed `i64`)
/// hold magnitudes below `2^(62·S+1)`, and the largest is `2m < 2^(bits+1)` (`d, e` in
/// `(−2m, m)`; `|f|, |g| ≤ m`), so `62·S ≥ bits + 2` leaves a bit to spare (libsecp256k1's
/// five limbs for 256 bits). At least two: a batch reads 64 low bits.
const fn s_limbs(bits: usize) -> usize {
    let s = (bits + 2).div_ceil(62);
    if s < 2 {
        2
    } else {
        s
    }
}

/// `x⁻¹ mod m` for `x < m`, `m` odd and `> 1`, both `x.len()` limbs (little-endian `u64`),
/// into `out`; returns an all-ones mask if `gcd(x, m) = 1`, else zero (and `out = 0`).
/// Constant-time in `x` and `m` (their limb count is public); nothing is declassified.
pub fn inv_odd(x: &[u64], m: &[u64], out: &mut [u64]) -> u64 {
    dispatch(x, m, out, false)
}

/// [`inv_odd`] in variable time (it stops when `g = 0`): for public `x` and `m` only.
/// `None` when `x` is not invertible.
pub fn inv_odd_vartime(x: &[u64], m: &[u64]) -> Option<Vec<u64>> {
    let mut out = vec![0u64; m.len()];
    (dispatch(x, m, &mut out, true) != 0).then_some(out)
}

/// [`inv_odd`] on fixed-size integers (no allocation): `(x⁻¹ mod m, mask)`.
pub fn inv_odd_uint<const L: usize>(x: &Uint<L>, m: &Uint<L>) -> (Uint<L>, u64) {
    let mut out = Uint::<L>::ZERO;
    let ok = dispatch(&x.0, &m.0, &mut out.0, false);
    (out, ok)
}

/// [`inv_odd_vartime`] on fixed-size integers.
pub fn inv_odd_uint_vartime<const L: usize>(x: &Uint<L>, m: &Uint<L>) -> Option<Uint<L>> {
    let mut out = Uint::<L>::ZERO;
    (dispatch(&x.0, &m.0, &mut out.0, true) != 0).then_some(out)
}

fn dispatch(x: &[u64], m: &[u64], out: &mut [u64], vartime: bool) -> u64 {
    assert!(
        x.len() == m.len() && out.len() == m.len(),
        "x, m and out must have the same limb count"
    );
    let s = s_limbs(64 * m.len());
    // One monomorphised width per size class (the curves' and RSA's limb counts), so the
    // limb loops are unrolled.
    macro_rules! widths {
        ($($w:literal),*) => {
            $(if s <= $w { return Inverter::<$w>::new(m).invert(x, out, vartime); })*
        };
    }
    widths!(5, 7, 8, 10, 17, 25, 34, 50, 62, 67, 124, 248);
    panic!("modulus of {} limbs is wider than any inverter", m.len());
}

/// A 2×2 transition matrix, scaled by `2^62`.
#[derive(Clone, Copy)]
struct Trans {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

struct Inverter<const S: usize> {
    m: [i64; S],
    /// `m⁻¹ mod 2^62`.
    m_inv62: u64,
}

fn to_s62<const S: usize>(x: &[u64]) -> [i64; S] {
    let mut out = [0i64; S];
    for (i, o) in out.iter_mut().enumerate() {
        let bit = 62 * i;
        let (w, b) = (bit / 64, bit % 64);
        let lo = x.get(w).copied().unwrap_or(0) >> b;
        let hi = if b > 2 {
            x.get(w + 1).copied().unwrap_or(0) << (64 - b)
        } else {
            0
        };
        *o = ((lo | hi) & M62) as i64;
    }
    out
}

fn from_s62<const S: usize>(x: &[i64; S], out: &mut [u64]) {
    out.fill(0);
    let limbs = out.len();
    for (i, &v) in x.iter().enumerate() {
        let v = v as u64; // limbs are normalised: non-negative, < 2^62 (the top one too)
        let bit = 62 * i;
        let (w, b) = (bit / 64, bit % 64);
        if w < limbs {
            out[w] |= v << b;
        }
        if b > 2 && w + 1 < limbs {
            out[w + 1] |= v >> (64 - b);
        }
    }
}

impl<const S: usize> Inverter<S> {
    fn new(m: &[u64]) -> Self {
        // Newton's iteration for m⁻¹ mod 2^64 (five steps from m, which is its own inverse
        // mod 8), constant-time.
        let m0 = m[0];
        let mut inv = m0;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        }
        Self {
            m: to_s62(m),
            m_inv62: inv & M62,
        }
    }

    fn invert(&self, x: &[u64], out: &mut [u64], vartime: bool) -> u64 {
        let bits = 64 * x.len();
        let mut f = self.m;
        let mut g = to_s62::<S>(x);
        let mut d = [0i64; S];
        let mut e = [0i64; S];
        e[0] = 1;
        let low = |a: &[i64; S]| a[0] as u64 | ((a[1] as u64) << 62);
        if vartime {
            // Classic divsteps (η = −δ, δ = 1) in batches of 62 until g = 0, which their
            // bound guarantees within ⌈(49d + 80)/17 / 62⌉ batches; should it not be (it
            // cannot), the input is reported as not invertible rather than looping on.
            let mut eta: i64 = -1;
            let batches = classic_divstep_bound(bits).div_ceil(62);
            for _ in 0..batches {
                if g.iter().all(|&l| l == 0) {
                    break;
                }
                let (t, ne) = divsteps_62_vartime(eta, low(&f), low(&g));
                eta = ne;
                self.update_de(&mut d, &mut e, &t);
                update_fg(&mut f, &mut g, &t);
            }
            if g.iter().any(|&l| l != 0) {
                out.fill(0);
                return 0;
            }
        } else {
            let (half, steps) = divstep_bound(bits);
            // ζ = −δ (δ doubled in the half-delta variant, so it stays an integer: it starts
            // at 1 either way, and moves by 2 instead of 1 per step there).
            let mut zeta: i64 = -1;
            let step = if half { 2 } else { 1 };
            for _ in 0..steps.div_ceil(BATCH) {
                let (t, nz) = divsteps_60(zeta, step, low(&f), low(&g));
                zeta = nz;
                self.update_de(&mut d, &mut e, &t);
                update_fg(&mut f, &mut g, &t);
            }
        }
        // Now g = 0 and f = ±gcd(x, m): invertible iff f = ±1, and then d·x ≡ f (mod m), so
        // the inverse is d·sign(f), brought into [0, m).
        let f_neg = black_box(f[S - 1] >> 63); // all-ones if f < 0
        cond_negate(&mut f, f_neg);
        let mut not_one = 0u64;
        for (i, &l) in f.iter().enumerate() {
            not_one |= (l as u64) ^ (i == 0) as u64;
        }
        let ok = crate::num::ct_eq_mask(not_one, 0);
        self.normalize(&mut d, f_neg);
        for l in d.iter_mut() {
            *l &= ok as i64;
        }
        from_s62(&d, out);
        ok
    }

    /// `[d, e] ← t·[d, e] / 2^62 (mod m)`, keeping both in `(−2m, m)`.
    fn update_de(&self, d: &mut [i64; S], e: &mut [i64; S], t: &Trans) {
        let (u, v, q, r) = (t.u, t.v, t.q, t.r);
        let sd = black_box(d[S - 1] >> 63);
        let se = black_box(e[S - 1] >> 63);
        // Start from [u, q] if d < 0 and [v, r] if e < 0 (keeps the result above −2m), then
        // correct so that the low 62 bits of t·[d, e] + m·[md, me] vanish.
        let mut md = (u & sd).wrapping_add(v & se);
        let mut me = (q & sd).wrapping_add(r & se);
        let mut cd = (u as i128) * (d[0] as i128) + (v as i128) * (e[0] as i128);
        let mut ce = (q as i128) * (d[0] as i128) + (r as i128) * (e[0] as i128);
        md = md.wrapping_sub(
            (self.m_inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64,
        );
        me = me.wrapping_sub(
            (self.m_inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64,
        );
        cd += (self.m[0] as i128) * (md as i128);
        ce += (self.m[0] as i128) * (me as i128);
        debug_assert_eq!(cd as u64 & M62, 0);
        debug_assert_eq!(ce as u64 & M62, 0);
        cd >>= 62;
        ce >>= 62;
        for i in 1..S {
            cd += (u as i128) * (d[i] as i128)
                + (v as i128) * (e[i] as i128)
                + (self.m[i] as i128) * (md as i128);
            ce += (q as i128) * (d[i] as i128)
                + (r as i128) * (e[i] as i128)
                + (self.m[i] as i128) * (me as i128);
            d[i - 1] = (cd as u64 & M62) as i64;
            e[i - 1] = (ce as u64 & M62) as i64;
            cd >>= 62;
            ce >>= 62;
        }
        d[S - 1] = cd as i64;
        e[S - 1] = ce as i64;
    }

    /// `d·sign(f)` from `(−2m, m)` into `[0, m)`, by masks.
    fn normalize(&self, d: &mut [i64; S], f_neg: i64) {
        // (−2m, m) → (−m, m)
        let neg = black_box(d[S - 1] >> 63);
        for i in 0..S {
            d[i] += self.m[i] & neg;
        }
        carry(d);
        cond_negate(d, f_neg);
        // (−m, m) → [0, m)
        let neg = black_box(d[S - 1] >> 63);
        for i in 0..S {
            d[i] += self.m[i] & neg;
        }
        carry(d);
    }
}

/// Propagates carries so limbs `0..S−1` lie in `[0, 2^62)`.
fn carry<const S: usize>(d: &mut [i64; S]) {
    let mut c = 0i64;
    for l in d.iter_mut().take(S - 1) {
        let t = *l + c;
        *l = (t as u64 & M62) as i64;
        c = t >> 62;
    }
    d[S - 1] += c;
}

/// `d ← −d` where `mask` is all-ones, unchanged where zero; limbs normalised after.
fn cond_negate<const S: usize>(d: &mut [i64; S], mask: i64) {
    for l in d.iter_mut() {
        *l = (*l ^ mask) - mask;
    }
    carry(d);
}

/// `[f, g] ← t·[f, g] / 2^62` (exact).
fn update_fg<const S: usize>(f: &mut [i64; S], g: &mut [i64; S], t: &Trans) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cf = u * (f[0] as i128) + v * (g[0] as i128);
    let mut cg = q * (f[0] as i128) + r * (g[0] as i128);
    debug_assert_eq!(cf as u64 & M62, 0);
    debug_assert_eq!(cg as u64 & M62, 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..S {
        cf += u * (f[i] as i128) + v * (g[i] as i128);
        cg += q * (f[i] as i128) + r * (g[i] as i128);
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[S - 1] = cf as i64;
    g[S - 1] = cg as i64;
}

/// `(half_delta, divsteps)` for inputs below `2^bits`: the half-delta variant and its bound
/// up to 3805 bits, the classic one above (see the module notes).
fn divstep_bound(bits: usize) -> (bool, usize) {
    if (23..=3805).contains(&bits) {
        (true, (3787 * bits + 2166) / 1644)
    } else {
        (false, classic_divstep_bound(bits))
    }
}

/// The classic divstep's bound for inputs below `2^bits`: `⌊(49·bits + 80)/17⌋` steps.
fn classic_divstep_bound(bits: usize) -> usize {
    (49 * bits + 80) / 17
}

/// Divsteps per batch: two runs of [`HALF`] on packed matrix entries (see [`divsteps_60`]).
const BATCH: usize = 60;
/// Divsteps per packed run: after `n` steps every entry of the `2^n`-scaled matrix lies in
/// `[−2^n, 2^n]`, so 30 keep each within an `i32`.
const HALF: usize = 30;

/// [`BATCH`] divsteps on the low 64 bits of `f` (odd) and `g`, constant-time (masks only),
/// with `ζ = −δ`: `δ > 0` and `g` odd → `(s − δ, g, (g − f)/2)`, else
/// `(s + δ, f, (g + (g mod 2)·f)/2)`, `s` = `step` (1 classic, 2 half-delta with δ doubled).
/// Returns the transition matrix scaled by `2^62` (the 60-step matrix times 4, so
/// [`update_fg`] and the `d, e` update divide by one limb) and the new `ζ`.
///
/// Each half runs [`HALF`] steps with the matrix's rows packed two entries to a register
/// (`u + v·2^32`, `q + r·2^32`: every step is linear, so one operation updates both, and the
/// entries' bounds let them be unpacked exactly), and is multiplied out after. After the
/// first half `f` and `g` still hold 34 exact low bits, enough for the second. A step
/// compiles to 29 instructions instead of 39 with the four entries apart (x86-64: 2.7 against
/// 3.4 ns a step on Zen 3, docs/PERF.md).
fn divsteps_60(mut zeta: i64, step: i64, f0: u64, g0: u64) -> (Trans, i64) {
    let (mut f, mut g) = (f0, g0);
    let a = divsteps_packed(&mut zeta, step, &mut f, &mut g);
    let b = divsteps_packed(&mut zeta, step, &mut f, &mut g);
    // b·a (entries within 2^60), times 4.
    let row = |x: i64, y: i64| {
        (
            (x.wrapping_mul(a.u).wrapping_add(y.wrapping_mul(a.q))) << 2,
            (x.wrapping_mul(a.v).wrapping_add(y.wrapping_mul(a.r))) << 2,
        )
    };
    let ((u, v), (q, r)) = (row(b.u, b.v), row(b.q, b.r));
    (Trans { u, v, q, r }, zeta)
}

/// [`HALF`] divsteps on `f`, `g`, `ζ` in place; the matrix scaled by `2^HALF`.
#[inline(always)]
fn divsteps_packed(zeta: &mut i64, step: i64, fp: &mut u64, gp: &mut u64) -> Trans {
    // Invariants: u·f0 + v·g0 = f·2^i, q·f0 + r·g0 = g·2^i (mod 2^64), with
    // uv = u + v·2^32 and qr = q + r·2^32 (mod 2^64).
    let (mut uv, mut qr) = (1u64, 1u64 << 32);
    let (mut f, mut g, mut z) = (*fp, *gp, *zeta);
    for _ in 0..HALF {
        // Plain masks here (a `black_box` per step cost 50 % of the inversion); LLVM keeps
        // this loop branch-free, and the Valgrind check would flag it if it stopped doing so.
        // The ±f, ±(u, v) terms depend on δ alone (−f when δ > 0), so they are ready before
        // g's parity: the chain through g is parity, mask, add, shift (libsecp256k1's order).
        let pos = (z >> 63) as u64; // δ > 0
        let g_odd = (g & 1).wrapping_neg();
        let x = (f ^ pos).wrapping_sub(pos);
        let y = (uv ^ pos).wrapping_sub(pos);
        g = g.wrapping_add(x & g_odd);
        qr = qr.wrapping_add(y & g_odd);
        // Swapping (δ > 0, g odd): f ← old g = (g − f) + f, (u, v) ← (q, r); δ ← s − δ.
        let swap = pos & g_odd;
        f = f.wrapping_add(g & swap);
        uv = uv.wrapping_add(qr & swap);
        z = ((z ^ swap as i64).wrapping_sub(swap as i64)).wrapping_sub(step);
        g >>= 1;
        uv <<= 1;
    }
    (*fp, *gp, *zeta) = (f, g, z);
    // |u|, |q| ≤ 2^30: the low halves sign-extended, the borrow they took from the high ones
    // given back.
    let (u, q) = (uv as i32 as i64, qr as i32 as i64);
    Trans {
        u,
        v: (uv as i64).wrapping_sub(u) >> 32,
        q,
        r: (qr as i64).wrapping_sub(q) >> 32,
    }
}

/// 62 classic divsteps on the low 64 bits of `f` (odd) and `g`, in variable time, with
/// `η = −δ`: `δ > 0` and `g` odd → `(1 − δ, g, (g − f)/2)`, else `(1 + δ, f, (g + (g mod
/// 2)·f)/2)`. Returns the transition matrix scaled by `2^62` and the new `η`.
///
/// Instead of one step at a time it jumps: all of `g`'s trailing zeros at once (each an
/// even-`g` step: `η` down by one, `f`'s row doubled), and, with `g` odd, every step up to
/// the next point where `δ` could turn positive at once — while `δ ≤ 0` the steps only add
/// `f` to `g` where `g` is odd and halve, so `k` of them add `w·f` with `w ≡ −g·f⁻¹ (mod
/// 2^k)`; `k ≤ 6` from `f⁻¹ mod 2^6 = f·(2 − f²)` (Newton's step from `f⁻¹ ≡ f mod 8`).
/// libsecp256k1's `modinv64_divsteps_62_var` works the same way. Branches and loop counts
/// depend on `f` and `g`: public inputs only.
fn divsteps_62_vartime(mut eta: i64, f0: u64, g0: u64) -> (Trans, i64) {
    // Invariants (mod 2^64): u·f0 + v·g0 = f·2^(62−i), q·f0 + r·g0 = g·2^(62−i).
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i = 62u32;
    loop {
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= i64::from(zeros);
        i -= zeros;
        if i == 0 {
            break;
        }
        // g is odd. δ > 0: the swapping step's first half, (f, g) ← (g, −f), δ ← −δ; its
        // addition and halving follow as the first of the steps below.
        if eta < 0 {
            eta = -eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
        }
        // δ ≤ 0 for the next min(η + 1, i) steps: cancel up to that many (and 6) low bits.
        let limit = (eta + 1).min(i64::from(i)) as u32;
        let mask = (u64::MAX >> (64 - limit)) & 63;
        let f_inv = f.wrapping_mul(2u64.wrapping_sub(f.wrapping_mul(f)));
        let w = g.wrapping_mul(f_inv).wrapping_neg() & mask;
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    let t = Trans {
        u: u as i64,
        v: v as i64,
        q: q as i64,
        r: r as i64,
    };
    (t, eta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::rand_big::RandBigInt;
    use num_bigint::BigUint;

    fn limbs(x: &BigUint, n: usize) -> Vec<u64> {
        let mut v = x.to_u64_digits();
        v.resize(n, 0);
        v
    }

    fn big(x: &[u64]) -> BigUint {
        BigUint::from_slice(
            &x.iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn check(x: &BigUint, m: &BigUint, n: usize) {
        let want = x.modinv(m);
        let (xl, ml) = (limbs(x, n), limbs(m, n));
        let mut out = vec![7u64; n];
        let ok = inv_odd(&xl, &ml, &mut out);
        assert_eq!(ok == u64::MAX, want.is_some(), "x = {x:x}, m = {m:x}");
        assert!(ok == 0 || ok == u64::MAX);
        assert_eq!(
            big(&out),
            want.clone().unwrap_or_default(),
            "x = {x:x}, m = {m:x}"
        );
        assert_eq!(
            inv_odd_vartime(&xl, &ml).map(|v| big(&v)),
            want,
            "vartime, m = {m:x}"
        );
    }

    #[test]
    fn matches_num_bigint_at_every_width() {
        let mut rng = rand::rng();
        let one = BigUint::from(1u8);
        for bits in [
            3usize, 64, 65, 127, 192, 255, 256, 384, 521, 576, 1024, 1536, 2048, 3072, 4096, 7680,
            15360,
        ] {
            let n = bits.div_ceil(64);
            let reps = if bits > 4096 { 2 } else { 6 };
            for _ in 0..reps {
                let m = rng.gen_biguint(bits as u64) | &one | (&one << (bits - 1));
                check(&one, &m, n);
                check(&(&m - 1u8), &m, n);
                check(&(&m - 2u8), &m, n);
                check(&BigUint::from(0u8), &m, n);
                check(&rng.gen_biguint_below(&m), &m, n);
                // top bit of every limb set: the widest intermediate values
                let all = (&one << bits) - 1u8;
                check(&(&all % &m), &m, n);
            }
        }
        // non-invertible inputs: a shared factor
        let m = BigUint::from(3u32 * 5 * 7 * 11 * 13) * BigUint::from(1_000_003u32);
        for x in [3u32, 35, 1_000_003, 143] {
            check(&BigUint::from(x), &m, 1);
        }
        check(&BigUint::from(2u8), &BigUint::from(3u8), 1);
    }

    /// The packed batch against the divstep definition stepped one at a time on unpacked
    /// entries (the two must give the same matrix and `ζ` for any inputs, both variants).
    #[test]
    fn packed_divsteps_match_single_steps() {
        fn reference(mut zeta: i64, step: i64, mut f: u64, mut g: u64) -> ([i64; 4], i64) {
            let (mut u, mut v, mut q, mut r) = (1i64, 0i64, 0i64, 1i64);
            for _ in 0..BATCH {
                if zeta < 0 && g & 1 == 1 {
                    // δ > 0, g odd: (s − δ, g, (g − f)/2)
                    (f, g) = (g, g.wrapping_sub(f) >> 1);
                    (u, v, q, r) = (2 * q, 2 * r, q - u, r - v);
                    zeta = -zeta - step;
                } else {
                    let odd = g & 1;
                    g = g.wrapping_add(odd * f) >> 1;
                    (q, r) = (q + odd as i64 * u, r + odd as i64 * v);
                    (u, v) = (2 * u, 2 * v);
                    zeta -= step;
                }
            }
            ([u << 2, v << 2, q << 2, r << 2], zeta)
        }
        let mut rng = rand::rng();
        use rand::RngExt;
        for i in 0..20_000 {
            let step = if i % 2 == 0 { 2 } else { 1 };
            // ζ from the range a long inversion reaches, and the extremes of the first batch.
            let zeta = match i % 5 {
                0 => -1,
                1 => 1,
                _ => rng.random_range(-200i64..200),
            };
            let (f, g) = (rng.random::<u64>() | 1, rng.random::<u64>());
            // g with long runs of zero or one bits: the longest stretches without a swap.
            let g = match i % 7 {
                0 => g & 0xffff_0000_0000_0000,
                1 => g | 0x0000_ffff_ffff_ffff,
                _ => g,
            };
            let (t, z) = divsteps_60(zeta, step, f, g);
            assert_eq!(
                ([t.u, t.v, t.q, t.r], z),
                reference(zeta, step, f, g),
                "ζ = {zeta}, step {step}, f = {f:#x}, g = {g:#x}"
            );
        }
    }

    /// The variable-time batch's jumps against the classic divstep stepped one at a time
    /// (the same matrix and `η` after 62 steps), including inputs whose runs of zero or one
    /// bits make the longest jumps, and `η` far from zero (late in an inversion).
    #[test]
    fn vartime_divsteps_match_single_steps() {
        fn reference(mut eta: i64, mut f: u64, mut g: u64) -> ([i64; 4], i64) {
            let (mut u, mut v, mut q, mut r) = (1i64, 0i64, 0i64, 1i64);
            for _ in 0..62 {
                if eta < 0 && g & 1 == 1 {
                    (f, g) = (g, g.wrapping_sub(f) >> 1);
                    (u, v, q, r) = (2 * q, 2 * r, q - u, r - v);
                    eta = -eta - 1;
                } else {
                    let odd = g & 1;
                    g = g.wrapping_add(odd * f) >> 1;
                    (q, r) = (q + odd as i64 * u, r + odd as i64 * v);
                    (u, v) = (2 * u, 2 * v);
                    eta -= 1;
                }
            }
            ([u, v, q, r], eta)
        }
        let mut rng = rand::rng();
        use rand::RngExt;
        for i in 0..50_000 {
            let eta = match i % 5 {
                0 => -1,
                1 => 0,
                2 => rng.random_range(-1000i64..1000),
                _ => rng.random_range(-40i64..40),
            };
            let (f, g) = (rng.random::<u64>() | 1, rng.random::<u64>());
            let g = match i % 9 {
                0 => g & 0xffff_0000_0000_0000,
                1 => g | 0x0000_ffff_ffff_ffff,
                2 => 0,
                3 => 1 << (i % 64),
                4 => f,
                _ => g,
            };
            let (t, e) = divsteps_62_vartime(eta, f, g);
            assert_eq!(
                ([t.u, t.v, t.q, t.r], e),
                reference(eta, f, g),
                "η = {eta}, f = {f:#x}, g = {g:#x}"
            );
        }
    }

    /// Many inversions at the curve widths in variable time against num-bigint (the jumps
    /// take different paths for every input).
    #[test]
    fn vartime_matches_num_bigint_on_many_inputs() {
        let mut rng = rand::rng();
        let one = BigUint::from(1u8);
        for bits in [224usize, 256, 384, 521, 2048] {
            let n = bits.div_ceil(64);
            let m = rng.gen_biguint(bits as u64) | &one | (&one << (bits - 1));
            for _ in 0..if bits > 1000 { 100 } else { 1000 } {
                let x = rng.gen_biguint_below(&m);
                assert_eq!(
                    inv_odd_vartime(&limbs(&x, n), &limbs(&m, n)).map(|v| big(&v)),
                    x.modinv(&m),
                    "x = {x:x}, m = {m:x}"
                );
            }
        }
    }

    /// The step counts the module notes quote (half-delta up to 3805 bits, classic above).
    #[test]
    fn divstep_bounds_follow_the_published_formulas() {
        assert_eq!(divstep_bound(256), (true, 591));
        assert_eq!(divstep_bound(384), (true, 885));
        assert_eq!(divstep_bound(64 * 9), (true, 1328));
        assert_eq!(divstep_bound(3776), (true, 8699));
        assert_eq!(divstep_bound(3840), (false, 11072));
    }

    #[test]
    fn fixed_size_forms_match() {
        let mut rng = rand::rng();
        let one = BigUint::from(1u8);
        for _ in 0..20 {
            let m = rng.gen_biguint(256) | &one | (&one << 255u32);
            let x = rng.gen_biguint_below(&m);
            let (mu, xu) = (
                Uint::<4>::from_limbs(&limbs(&m, 4)).unwrap(),
                Uint::<4>::from_limbs(&limbs(&x, 4)).unwrap(),
            );
            let (inv, ok) = inv_odd_uint(&xu, &mu);
            let want = x.modinv(&m);
            assert_eq!(ok == u64::MAX, want.is_some());
            assert_eq!(big(&inv.0), want.clone().unwrap_or_default());
            assert_eq!(inv_odd_uint_vartime(&xu, &mu).map(|v| big(&v.0)), want);
        }
    }
}
