//! Numbers in `b`-bit digits: the representation of the SIMD backends (AVX2: `b = 28`,
//! IFMA: `b = 52`), with the per-modulus constants their Montgomery kernels need.
//!
//! Representation: a number is `n` digits `d_i` with value `Σ d_i·2^(b·i)`; "normalised"
//! means every `d_i < 2^b`. [`from_digits`] accepts any digits below `2^(128 − 64)`
//! (unnormalised lazy-carry digits included) and carries exactly. Limbs are the seam's
//! little-endian `u64`s.
//!
//! Everything here is constant-time in the values (lengths and `b` are public) except
//! functions ending in `_vartime`.

use std::sync::OnceLock;

use crate::backend::{check_modulus, MAX_MODULUS_BITS};
use crate::num::{bits_vartime, mask_from_bit, pow2_rem_vartime, sbb, window, DynMonty};

/// `2^bits − 1`.
pub const fn digit_mask(bits: usize) -> u64 {
    (1 << bits) - 1
}

/// Digits of `bits` bits needed so that `R = 2^(digit_bits·N)` is above `4·m` for a
/// `modulus_bits`-bit modulus (the almost-Montgomery bound).
pub const fn digits_for_bits(modulus_bits: usize, digit_bits: usize) -> usize {
    (modulus_bits + 2).div_ceil(digit_bits)
}

/// The smallest kernel width in `widths` (ascending) that holds a `modulus_bits`-bit modulus
/// in `digit_bits`-bit digits (see [`digits_for_bits`]); panics if none does.
pub fn kernel_width(widths: &[usize], modulus_bits: usize, digit_bits: usize) -> usize {
    let need = digits_for_bits(modulus_bits, digit_bits);
    *widths
        .iter()
        .find(|&&n| n >= need)
        .expect("the widest kernel holds MAX_MODULUS_BITS")
}

/// The `n` normalised `bits`-bit digits of `x`; `x` must be below `2^(bits·n)`.
///
/// Never inlined: run once per job, it would otherwise be vectorised inside the AVX-512
/// kernels that call it, whose last partial vector of digits LLVM writes with a store masked
/// by the (public) digit count — which `scripts/masked-store-check.sh` cannot tell from a
/// store masked by a secret, and refuses.
#[inline(never)]
pub fn to_digits(x: &[u64], n: usize, bits: usize) -> Vec<u64> {
    debug_assert!(bits_vartime(x) <= bits * n, "value wider than {n} digits");
    (0..n).map(|i| window(x, bits * i, bits)).collect()
}

/// `limbs` little-endian limbs of `Σ d_i·2^(bits·i)` for digits below `2^64`; bits above
/// `64·limbs` are dropped.
pub fn from_digits(d: &[u64], limbs: usize, bits: usize) -> Vec<u64> {
    let mut out = vec![0u64; limbs];
    // `acc` holds the bits from `64·w` up: below 2^64 between digits, so adding a digit
    // `< 2^64` at `acc_bits < 64` stays below 2^128.
    let mut acc: u128 = 0;
    let mut acc_bits = 0usize;
    let mut w = 0usize;
    for &di in d {
        acc += (di as u128) << acc_bits;
        acc_bits += bits;
        while acc_bits >= 64 {
            if w < limbs {
                out[w] = acc as u64;
            }
            w += 1;
            acc >>= 64;
            acc_bits -= 64;
        }
    }
    while w < limbs {
        out[w] = acc as u64;
        acc >>= 64;
        w += 1;
    }
    out
}

/// `x − m` where `x ≥ m`, else `x` (same lengths). Constant-time.
pub fn sub_if_ge(x: &mut [u64], m: &[u64]) {
    debug_assert_eq!(x.len(), m.len());
    let mut diff = vec![0u64; x.len()];
    let mut borrow = 0;
    for i in 0..x.len() {
        let (d, b) = sbb(x[i], m[i], borrow);
        diff[i] = d;
        borrow = b;
    }
    let keep = mask_from_bit(borrow); // all-ones where x < m
    for i in 0..x.len() {
        x[i] = (x[i] & keep) | (diff[i] & !keep);
    }
}

/// `−m⁻¹ mod 2^bits` for odd `m0` (the low limb of `m`).
pub fn neg_inv_digit(m0: u64, bits: usize) -> u64 {
    // Newton: each step doubles the correct low bits (m0·m0 ≡ 1 mod 8 to start).
    let mut inv = m0;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    debug_assert_eq!(m0.wrapping_mul(inv), 1);
    inv.wrapping_neg() & digit_mask(bits)
}

/// `x·2^shift mod m`, canonical (`m.limbs()` limbs).
pub fn shl_mod(m: &DynMonty, x: &[u64], shift: usize) -> Vec<u64> {
    let words = shift / 64;
    let bits = shift % 64;
    let mut v = vec![0u64; words + x.len() + 1];
    for (i, &xi) in x.iter().enumerate() {
        v[words + i] |= xi << bits;
        if bits != 0 {
            v[words + i + 1] |= xi >> (64 - bits);
        }
    }
    m.reduce(&v)
}

/// Everything a digit-vector Montgomery kernel needs about one modulus, in normalised digits.
#[derive(Clone, Debug)]
pub struct ModulusDigits {
    /// Bits per digit `b`.
    pub digit_bits: usize,
    /// The modulus, canonical limbs.
    pub limbs: Vec<u64>,
    /// Digit count `N` of the kernel (`2^(b·N) > 4m`).
    pub n: usize,
    /// `m` in digits.
    pub m: Vec<u64>,
    /// `−m⁻¹ mod 2^b`.
    pub minv: u64,
    /// `R mod m`, `R = 2^(b·N)`: one in Montgomery form.
    pub one: Vec<u64>,
    /// `R² mod m`: multiplying by it enters Montgomery form.
    pub r2: Vec<u64>,
    /// Scalar arithmetic on the same modulus (reductions of constants, scalar tails):
    /// [`Self::dyn_monty`].
    dyn_monty: OnceLock<DynMonty>,
}

impl ModulusDigits {
    /// Prepares an odd modulus `> 1` (already validated) for an `n`-digit kernel of
    /// `digit_bits`-bit digits. Constant-time in `m`'s value (all but its bit length): for
    /// secret moduli.
    pub fn new(m: &[u64], n: usize, digit_bits: usize) -> Result<Self, crate::Error> {
        let dm = DynMonty::new(m)?;
        let limbs = dm.modulus();
        let one = shl_mod(&dm, &[1], digit_bits * n);
        let r2 = shl_mod(&dm, &[1], 2 * digit_bits * n);
        Ok(Self::assemble(
            OnceLock::from(dm),
            limbs,
            one,
            r2,
            n,
            digit_bits,
        ))
    }

    /// [`Self::new`] for a **public** modulus (RSA verification, `modexp_vartime`): the same
    /// constants, with `R mod m` and `R² mod m` by long division
    /// ([`crate::num::pow2_rem_vartime`]) instead of constant-time doublings, and the scalar
    /// [`DynMonty`] built only if [`Self::dyn_monty`] is called (a scalar tail), by
    /// [`DynMonty::new_vartime`]. Variable-time in `m`; never for secret moduli.
    pub fn new_vartime(m: &[u64], n: usize, digit_bits: usize) -> Result<Self, crate::Error> {
        check_modulus(m, MAX_MODULUS_BITS)?;
        let limbs = m[..bits_vartime(m).div_ceil(64)].to_vec();
        let one = pow2_rem_vartime(digit_bits * n, &limbs);
        let r2 = pow2_rem_vartime(2 * digit_bits * n, &limbs);
        Ok(Self::assemble(
            OnceLock::new(),
            limbs,
            one,
            r2,
            n,
            digit_bits,
        ))
    }

    /// Scalar arithmetic on the same modulus. Built by [`Self::new`] (constant-time); after
    /// [`Self::new_vartime`], on first use, by the variable-time setup (the modulus is public).
    pub fn dyn_monty(&self) -> &DynMonty {
        self.dyn_monty.get_or_init(|| {
            DynMonty::new_vartime(&self.limbs).expect("new_vartime validated the modulus")
        })
    }

    fn assemble(
        dm: OnceLock<DynMonty>,
        limbs: Vec<u64>,
        one: Vec<u64>,
        r2: Vec<u64>,
        n: usize,
        digit_bits: usize,
    ) -> Self {
        debug_assert!(digits_for_bits(bits_vartime(&limbs), digit_bits) <= n);
        Self {
            digit_bits,
            m: to_digits(&limbs, n, digit_bits),
            minv: neg_inv_digit(limbs[0], digit_bits),
            one: to_digits(&one, n, digit_bits),
            r2: to_digits(&r2, n, digit_bits),
            n,
            limbs,
            dyn_monty: dm,
        }
    }

    /// `x·R mod m` in digits (constants only: scalar and slow).
    pub fn to_monty_digits(&self, x: &[u64]) -> Vec<u64> {
        to_digits(
            &shl_mod(self.dyn_monty(), x, self.digit_bits * self.n),
            self.n,
            self.digit_bits,
        )
    }

    /// Canonical limbs of a value `< 2m` given in digits: subtracts `m` once if needed.
    pub fn canonical(&self, d: &[u64]) -> Vec<u64> {
        let mut x = from_digits(d, self.limbs.len() + 1, self.digit_bits);
        let mut m = self.limbs.clone();
        m.push(0);
        sub_if_ge(&mut x, &m);
        x.truncate(self.limbs.len());
        x
    }
}

/// Wiped when dropped: the form of a secret modulus (an RSA-CRT prime, [`ModulusDigits::new`])
/// holds the prime in three encodings.
impl Drop for ModulusDigits {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.limbs.zeroize();
        self.m.zeroize();
        self.one.zeroize();
        self.r2.zeroize();
        self.minv.zeroize();
    }
}

/// Subtraction constant `c·p` (`c = 2^t`) with "borrowed" digits: every digit but the top one
/// is in `[2^(b+1) − 2, 2^(b+1) + 2^b)`, so it dominates any digit of a subtrahend whose digits
/// are below `2^(b+1) − 2` (normalised, or almost normalised as in the 28-bit kernel), and
/// `a + C − b` never goes negative in a lane.
#[derive(Clone, Debug)]
pub struct SubConst {
    pub c: u64,
    /// Largest subtrahend bound `k_b` this constant covers (its top digit dominates).
    pub max_kb: u64,
    pub digits: Vec<u64>,
}

/// Scalar description of a curve field for an `N`-digit lazy-reduction kernel (built once per
/// process): every lane holds the same prime, elements carry a public bound `k` (value
/// `< k·p`), sums add bounds, differences add a multiple of `p` first ([`SubConst`]).
#[derive(Clone, Debug)]
pub struct FieldConsts {
    pub digit_bits: usize,
    pub n: usize,
    pub p: Vec<u64>,
    pub minv: u64,
    /// Largest `k_a·k_b` for a product to come back below `2p`: `2^(b·N − bits(p))`.
    pub max_prod: u64,
    pub subs: Vec<SubConst>,
    /// `R mod p`, `R² mod p`, `b·R mod p` in digits.
    pub one: Vec<u64>,
    pub r2: Vec<u64>,
    pub b: Vec<u64>,
}

impl FieldConsts {
    /// `p` canonical limbs, `b` canonical limbs, `n` digits of `digit_bits` bits; at least
    /// 20 bits of room above `p`.
    pub fn new(p: &[u64], b: &[u64], n: usize, digit_bits: usize) -> Self {
        let md = ModulusDigits::new(p, n, digit_bits).expect("curve primes are valid moduli");
        let bits = bits_vartime(p);
        let slack = digit_bits * n - bits;
        assert!(slack >= 20, "too little room for lazy reduction");
        let top = digit_bits * (n - 1);
        // p / 2^top as a float, rounded up a little.
        let p_top = (0..p.len()).fold(0f64, |acc, i| {
            acc + (p[i] as f64) * 2f64.powi(64 * i as i32 - top as i32)
        }) * (1.0 + 1e-12);
        let mut subs = Vec::new();
        for t in 0..slack.min(40) {
            let c = 1u64 << t;
            let x = to_digits(&shl_limbs(p, t), n, digit_bits);
            let x_top = x[n - 1];
            if x_top < 3 {
                continue;
            }
            // b's top digit is ≤ ⌊k_b·p / 2^top⌋; it must not exceed x_top − 2.
            let max_kb = ((x_top - 1) as f64 / p_top).floor() as u64;
            let max_kb = max_kb.saturating_sub(1);
            if max_kb == 0 {
                continue;
            }
            // Lend 2^(b+1) to every digit below the top from the digit above (2 units of 2^b).
            let mut digits = x.clone();
            for i in 0..n - 1 {
                digits[i] = x[i] + (1 << (digit_bits + 1)) - if i > 0 { 2 } else { 0 };
            }
            digits[n - 1] = x_top - 2;
            subs.push(SubConst { c, max_kb, digits });
        }
        Self {
            digit_bits,
            n,
            p: md.m.clone(),
            minv: md.minv,
            max_prod: 1u64 << slack.min(62),
            subs,
            one: md.one.clone(),
            r2: md.r2.clone(),
            b: md.to_monty_digits(b),
        }
    }
}

fn shl_limbs(x: &[u64], t: usize) -> Vec<u64> {
    let mut v = vec![0u64; x.len() + 1];
    for (i, &xi) in x.iter().enumerate() {
        v[i] |= xi << t;
        if t != 0 {
            v[i + 1] |= xi >> (64 - t);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn digits_round_trip() {
        let mut rng = rand::rng();
        for bits in [28usize, 52] {
            for limbs in [1usize, 4, 9, 16] {
                let x: Vec<u64> = (0..limbs).map(|_| rng.random()).collect();
                let n = (64 * limbs).div_ceil(bits);
                let d = to_digits(&x, n, bits);
                assert!(d.iter().all(|&v| v <= digit_mask(bits)));
                assert_eq!(from_digits(&d, limbs, bits), x);
                // non-normalised digits carry exactly: move 2^bits from digit 1 into digit 0
                if d[1] > 0 {
                    let mut e = d.clone();
                    e[1] -= 1;
                    e[0] += 1 << bits;
                    assert_eq!(from_digits(&e, limbs, bits), x);
                }
            }
        }
    }

    #[test]
    fn neg_inv_and_sub() {
        for bits in [28usize, 52] {
            for m0 in [1u64, 3, 0xffff_ffff_ffff_ffff, 0x1234_5678_9abc_def1] {
                assert_eq!(
                    m0.wrapping_mul(neg_inv_digit(m0, bits)).wrapping_add(1) & digit_mask(bits),
                    0
                );
            }
        }
        let mut x = vec![5u64, 1];
        sub_if_ge(&mut x, &[6, 0]);
        assert_eq!(x, vec![u64::MAX, 0]);
        let mut y = vec![5u64, 0];
        sub_if_ge(&mut y, &[6, 0]);
        assert_eq!(y, vec![5, 0]);
    }

    /// `ModulusDigits::new_vartime` gives `new`'s constants, for both digit sizes and every
    /// RSA-relevant width, on random and edge moduli.
    #[test]
    fn vartime_constants_match_constant_time() {
        use crate::num::rand_big::RandBigInt;
        use num_bigint::BigUint;
        let mut rng = rand::rng();
        let one = || BigUint::from(1u8);
        for bits in [
            3usize, 127, 256, 521, 1024, 1536, 2048, 2049, 3072, 4096, 4097, 7680,
        ] {
            let ms = [
                rng.gen_biguint(bits as u64) | one() | (one() << (bits - 1)),
                (one() << bits) - 1u8,
                (one() << (bits - 1)) + 1u8,
            ];
            for m in ms {
                let ml = m.to_u64_digits();
                for digit_bits in [28usize, 52] {
                    // the tight width and a wider one
                    let tight = digits_for_bits(bits, digit_bits);
                    for n in [tight, tight + 7] {
                        let ct = ModulusDigits::new(&ml, n, digit_bits).unwrap();
                        let vt = ModulusDigits::new_vartime(&ml, n, digit_bits).unwrap();
                        let what = format!("{bits} bits, {digit_bits}-bit digits, n = {n}");
                        assert_eq!(vt.limbs, ct.limbs, "{what}");
                        assert_eq!(vt.m, ct.m, "{what}");
                        assert_eq!(vt.minv, ct.minv, "{what}");
                        assert_eq!(vt.one, ct.one, "{what}");
                        assert_eq!(vt.r2, ct.r2, "{what}");
                        assert_eq!(vt.n, ct.n, "{what}");
                        // the lazily built scalar constants, through what they compute
                        let x: Vec<u64> = (0..3 * ml.len()).map(|i| i as u64 * 0x9e37).collect();
                        assert_eq!(vt.dyn_monty().reduce(&x), ct.dyn_monty().reduce(&x));
                        assert_eq!(vt.to_monty_digits(&[5]), ct.to_monty_digits(&[5]));
                    }
                }
            }
        }
    }

    #[test]
    fn modulus_constants() {
        // m = 2^127 − 1 (odd); R = 2^(52·3)
        let m = [u64::MAX, u64::MAX >> 1];
        let md = ModulusDigits::new(&m, 3, 52).unwrap();
        let dm = DynMonty::new(&m).unwrap();
        assert_eq!(from_digits(&md.one, 2, 52), shl_mod(&dm, &[1], 156));
        assert_eq!(md.canonical(&md.m), vec![0, 0]);
        assert_eq!(
            (m[0].wrapping_mul(md.minv).wrapping_add(1)) & digit_mask(52),
            0
        );
    }
}
