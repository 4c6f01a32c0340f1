//! Prime generation for RSA keys: random candidates with the top two bits set, trial
//! division, then Miller–Rabin with random bases (FIPS 186-5 B.3.1, table B.1 rounds).
// NOTE: trial division and the Miller–Rabin loop exit early on composites; this reveals
// which rejected candidates were composite, never bits of the accepted prime.

use batch_core::num::DynMonty;
use rand_core::CryptoRngCore;

use super::nat;

const SMALL_PRIMES: usize = 2048;

fn small_primes() -> &'static [u64] {
    static PRIMES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    PRIMES.get_or_init(|| {
        let mut v = Vec::with_capacity(SMALL_PRIMES);
        let mut c = 3u64;
        while v.len() < SMALL_PRIMES {
            if v.iter().take_while(|&&p| p * p <= c).all(|&p| c % p != 0) {
                v.push(c);
            }
            c += 2;
        }
        v
    })
}

/// A random prime of exactly `bits` bits (top two bits set) with `p − 1` coprime to the
/// prime `e`.
pub(crate) fn random_prime(rng: &mut impl CryptoRngCore, bits: usize, e: u64) -> Vec<u64> {
    let limbs = bits.div_ceil(64);
    let rounds = if bits >= 1536 { 4 } else { 5 };
    loop {
        let mut c: Vec<u64> = (0..limbs).map(|_| rng.next_u64()).collect();
        let top = bits - 64 * (limbs - 1);
        if top < 64 {
            c[limbs - 1] &= (1u64 << top) - 1;
        }
        c[limbs - 1] |= 3u64 << (top - 2);
        c[0] |= 1;
        if small_primes().iter().any(|&p| nat::div_rem_small(&c, p).1 == 0) {
            continue;
        }
        if nat::div_rem_small(&c, e).1 == 1 {
            continue;
        }
        if miller_rabin(rng, &c, rounds) {
            return c;
        }
    }
}

/// Miller–Rabin with `rounds` random bases in `[2, c − 2]`.
fn miller_rabin(rng: &mut impl CryptoRngCore, c: &[u64], rounds: usize) -> bool {
    let m = DynMonty::new(c).expect("odd candidate");
    let cm1 = nat::sub(c, &[1]);
    let s = cm1.iter().enumerate().find(|(_, &w)| w != 0).map(|(i, w)| 64 * i + w.trailing_zeros() as usize).expect("c > 1");
    let d = shr(&cm1, s);
    let one = nat::resize(vec![1], c.len());
    for _ in 0..rounds {
        let mut a: Vec<u64> = (0..c.len()).map(|_| rng.next_u64()).collect();
        a = m.reduce(&a);
        if a.iter().skip(1).all(|&w| w == 0) && a[0] < 2 {
            continue;
        }
        let mut x = m.pow(&a, &d);
        if nat::eq_vartime(&x, &one) || nat::eq_vartime(&x, &cm1) {
            continue;
        }
        let mut witness = true;
        for _ in 1..s {
            x = m.mul(&x, &x);
            if nat::eq_vartime(&x, &cm1) {
                witness = false;
                break;
            }
        }
        if witness {
            return false;
        }
    }
    true
}

fn shr(a: &[u64], s: usize) -> Vec<u64> {
    let (limbs, bits) = (s / 64, s % 64);
    let mut out = vec![0u64; a.len()];
    for i in 0..a.len() - limbs {
        out[i] = a[i + limbs] >> bits;
        if bits > 0 && i + limbs + 1 < a.len() {
            out[i] |= a[i + limbs + 1] << (64 - bits);
        }
    }
    out
}

/// `e⁻¹ mod m` for a small prime `e` coprime to `m`: `(1 + k·m) / e` with `k ≡ −m⁻¹ (mod e)`.
pub(crate) fn inv_small_e(m: &[u64], e: u64) -> Vec<u64> {
    let r = nat::div_rem_small(m, e).1;
    // m⁻¹ mod e by Fermat (e prime), then negate.
    let mut inv = 1u128;
    let (mut b, mut x) = (r as u128, e - 2);
    while x > 0 {
        if x & 1 == 1 {
            inv = inv * b % e as u128;
        }
        b = b * b % e as u128;
        x >>= 1;
    }
    let k = (e as u128 - inv) % e as u128;
    let t = nat::mul_small_add(m, k as u64, 1);
    let (q, rem) = nat::div_rem_small(&t, e);
    debug_assert_eq!(rem, 0);
    nat::trim(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::dev::to_big;
    use num_bigint::BigUint;

    #[test]
    fn miller_rabin_separates_primes_from_composites() {
        let mut rng = rand::thread_rng();
        // 2^127 − 1 is prime; 2^128 + 1 = 59649589127497217 · 5704689200685129054721 is not.
        let m127 = vec![u64::MAX, u64::MAX >> 1];
        assert!(miller_rabin(&mut rng, &m127, 8));
        let f7 = vec![1u64, 0, 1];
        assert!(!miller_rabin(&mut rng, &f7, 8));
        // Carmichael number 561.
        assert!(!miller_rabin(&mut rng, &[561], 8));
    }

    #[test]
    fn inverse_of_e() {
        let m = vec![0x1234_5678_9abc_def0u64, 0xfeed_beef];
        let d = inv_small_e(&m, 65537);
        assert_eq!((to_big(&d) * 65537u32) % to_big(&m), BigUint::from(1u8));
    }
}
