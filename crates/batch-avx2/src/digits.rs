//! Scalar (one-lane) helpers for the 28-bit digit representation.
//!
//! Representation: a number is `N` digits `d_i` with value `Σ d_i·2^(28·i)`; "normalised"
//! means every `d_i < 2^28`. The vector code keeps digits *almost* normalised
//! (`d_i < 2^28 + 2^9`), so [`from_digits`] accepts any digits below `2^32` and carries
//! exactly. Limbs are the seam's little-endian `u64`s.
//!
//! Everything here is constant-time in the values (lengths are public) except functions
//! ending in `_vartime`.

use batch_core::num::{mask_from_bit, sbb, DynMonty};

/// Bits per digit.
pub const DIGIT_BITS: usize = 28;
/// `2^28 − 1`.
pub const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;

/// Digits needed so that `R = 2^(28·N)` is above `4·m` for an `bits`-bit modulus (the
/// almost-Montgomery bound, see `field`).
pub const fn digits_for_bits(bits: usize) -> usize {
    (bits + 2).div_ceil(DIGIT_BITS)
}

/// The `n` normalised digits of `x`; `x` must be below `2^(28·n)` (checked).
pub fn to_digits(x: &[u64], n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    for (i, d) in out.iter_mut().enumerate() {
        *d = batch_core::num::window(x, DIGIT_BITS * i, DIGIT_BITS);
    }
    debug_assert!(
        batch_core::num::bits_vartime(x) <= DIGIT_BITS * n,
        "value wider than {n} digits"
    );
    out
}

/// `limbs` little-endian limbs of `Σ d_i·2^(28·i)`, for digits below `2^32`; bits above
/// `64·limbs` are dropped.
pub fn from_digits(d: &[u64], limbs: usize) -> Vec<u64> {
    let mut out = vec![0u64; limbs];
    let mut acc: u128 = 0; // bits not yet written, starting at bit `64·w`
    let mut acc_bits = 0usize; // position of the next digit inside `acc`
    let mut w = 0usize;
    for &di in d {
        acc += (di as u128) << acc_bits;
        acc_bits += DIGIT_BITS;
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

/// `−m⁻¹ mod 2^28` for odd `m0` (the low limb of `m`).
pub fn neg_inv_digit(m0: u64) -> u64 {
    // Newton: each step doubles the correct low bits (m0·m0 ≡ 1 mod 8 to start).
    let mut inv = m0;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    debug_assert_eq!(m0.wrapping_mul(inv), 1);
    inv.wrapping_neg() & DIGIT_MASK
}

/// `x·2^shift mod m` for canonical results (`m.limbs()` limbs).
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

/// Everything the vector Montgomery code needs about one modulus, in normalised digits.
#[derive(Clone, Debug)]
pub struct ModulusDigits {
    /// The modulus, canonical limbs.
    pub limbs: Vec<u64>,
    /// Digit count `N` of the kernel (`2^(28·N) > 4m`).
    pub n: usize,
    /// `m` in digits.
    pub m: Vec<u64>,
    /// `−m⁻¹ mod 2^28`.
    pub minv: u64,
    /// `R mod m`, `R = 2^(28·N)`: one in Montgomery form.
    pub one: Vec<u64>,
    /// `R² mod m`: multiplying by it enters Montgomery form.
    pub r2: Vec<u64>,
    /// Scalar arithmetic on the same modulus (reductions of constants).
    pub dyn_monty: DynMonty,
}

impl ModulusDigits {
    /// Prepares an odd modulus `> 1` (already validated) for an `n`-digit kernel.
    pub fn new(m: &[u64], n: usize) -> Result<Self, batch_core::Error> {
        let dm = DynMonty::new(m)?;
        let limbs = dm.modulus();
        debug_assert!(digits_for_bits(batch_core::num::bits_vartime(&limbs)) <= n);
        let one = shl_mod(&dm, &[1], DIGIT_BITS * n);
        let r2 = shl_mod(&dm, &[1], 2 * DIGIT_BITS * n);
        Ok(Self {
            m: to_digits(&limbs, n),
            minv: neg_inv_digit(limbs[0]),
            one: to_digits(&one, n),
            r2: to_digits(&r2, n),
            n,
            limbs,
            dyn_monty: dm,
        })
    }

    /// `x·R mod m` in digits (constants only: scalar and slow).
    pub fn to_monty_digits(&self, x: &[u64]) -> Vec<u64> {
        to_digits(&shl_mod(&self.dyn_monty, x, DIGIT_BITS * self.n), self.n)
    }

    /// Canonical limbs of a value `≤ m` given in digits: subtracts `m` once if needed.
    pub fn canonical(&self, d: &[u64]) -> Vec<u64> {
        let mut x = from_digits(d, self.limbs.len() + 1);
        let mut m = self.limbs.clone();
        m.push(0);
        sub_if_ge(&mut x, &m);
        x.truncate(self.limbs.len());
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn digits_round_trip() {
        let mut rng = rand::thread_rng();
        for limbs in [1usize, 4, 9, 16] {
            let x: Vec<u64> = (0..limbs).map(|_| rng.gen()).collect();
            let n = (64 * limbs).div_ceil(DIGIT_BITS);
            let d = to_digits(&x, n);
            assert!(d.iter().all(|&v| v <= DIGIT_MASK));
            assert_eq!(from_digits(&d, limbs), x);
            // non-normalised digits carry exactly: move 2^28 from digit 1 into digit 0
            if d[1] > 0 {
                let mut e = d.clone();
                e[1] -= 1;
                e[0] += 1 << DIGIT_BITS;
                assert_eq!(from_digits(&e, limbs), x);
            }
        }
    }

    #[test]
    fn neg_inv_and_sub() {
        for m0 in [1u64, 3, 0xffff_ffff_ffff_ffff, 0x1234_5678_9abc_def1] {
            assert_eq!(m0.wrapping_mul(neg_inv_digit(m0)).wrapping_add(1) & DIGIT_MASK, 0);
        }
        let mut x = vec![5u64, 1];
        sub_if_ge(&mut x, &[6, 0]);
        assert_eq!(x, vec![u64::MAX, 0]);
        let mut y = vec![5u64, 0];
        sub_if_ge(&mut y, &[6, 0]);
        assert_eq!(y, vec![5, 0]);
    }
}
