//! Prime generation for RSA keys: random candidates with the top two bits set, trial
//! division, then Miller–Rabin with random bases (FIPS 186-5 B.3.1, table B.1 rounds).
//!
//! Timing: a rejected candidate is discarded, so leaking why it was rejected is harmless; the
//! accepted prime must not leak. Trial division stops at the first small factor (only rejected
//! candidates stop early). Miller–Rabin is constant-time in the candidate apart from its
//! per-round verdict: `s = v₂(c − 1)` and `d` are found with masks, and every round runs the
//! same number of squarings (`64·limbs − 1`, not `s − 1`, with no early `break`), so the time
//! of an accepted prime does not reveal `v₂(p − 1)`.
// NOTE: trial division (`nat::div_rem_small`) uses hardware division on the secret candidate,
// whose latency may depend on the operands on some CPUs (all 2048 divisions run for the
// accepted prime). RustCrypto's crypto-primes would replace the sieve and Miller–Rabin, but its
// releases for crypto-bigint 0.5 work on fixed-size integers only (one monomorphisation per
// prime size) and were not measured here; left as is.

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
            if v.iter().take_while(|&&p| p * p <= c).all(|&p| !c.is_multiple_of(p)) {
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
        if small_primes()
            .iter()
            .any(|&p| nat::div_rem_small(&c, p).1 == 0)
        {
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

/// Miller–Rabin with `rounds` random bases in `[2, c − 2]`. Constant-time in `c` and the
/// bases except for each round's verdict (see the module header).
fn miller_rabin(rng: &mut impl CryptoRngCore, c: &[u64], rounds: usize) -> bool {
    use batch_core::ct::{declassify_mask, eq_mask, is_zero_mask};
    use batch_core::num::{mask_from_bit, sbb};
    let m = DynMonty::new(c).expect("odd candidate");
    let cm1 = nat::sub(c, &[1]);
    let (s, d) = split_twos_ct(&cm1);
    let one = nat::resize(vec![1], c.len());
    for _ in 0..rounds {
        let mut a: Vec<u64> = (0..c.len()).map(|_| rng.next_u64()).collect();
        a = m.reduce(&a);
        // a ∈ {0, 1} is no base (probability ~2⁻¹⁰²³); skipping it reveals only that.
        if declassify_mask(is_zero_mask(&a[1..]) & mask_from_bit(sbb(a[0], 2, 0).1)) {
            continue;
        }
        let mut x = m.pow(&a, &d);
        let mut probable = eq_mask(&x, &one) | eq_mask(&x, &cm1);
        for j in 1..64 * c.len() as u64 {
            x = m.mul(&x, &x);
            let before_s = mask_from_bit(sbb(j, s, 0).1); // j < s
            probable |= eq_mask(&x, &cm1) & before_s;
        }
        if !declassify_mask(probable) {
            return false;
        }
    }
    true
}

/// `(s, d)` with `x = d·2^s`, `d` odd, for an even `x > 0`; constant-time in `x` (`s` by masks,
/// the shift as a sequence of conditional shifts by powers of two).
fn split_twos_ct(x: &[u64]) -> (u64, Vec<u64>) {
    use batch_core::num::{ct_eq_mask, mask_from_bit};
    let (mut s, mut found) = (0u64, 0u64);
    for (i, &w) in x.iter().enumerate() {
        let take = !ct_eq_mask(w, 0) & !found;
        s |= (64 * i as u64 + w.trailing_zeros() as u64) & take;
        found |= take;
    }
    let mut d = x.to_vec();
    let mut b = 0;
    while (1usize << b) < 64 * x.len() {
        let shifted = shr(&d, 1 << b);
        let mask = mask_from_bit((s >> b) & 1);
        for (dw, sw) in d.iter_mut().zip(&shifted) {
            *dw ^= (*dw ^ sw) & mask;
        }
        b += 1;
    }
    (s, d)
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
    fn split_twos_matches_trailing_zeros() {
        for x in [
            vec![2u64],
            vec![0x8000_0000_0000_0000],
            vec![0, 6],
            vec![0, 0, 1 << 63],
            vec![12, 5, 7],
        ] {
            let s = to_big(&x).trailing_zeros().expect("non-zero");
            let (got_s, d) = split_twos_ct(&x);
            assert_eq!(got_s, s, "{x:?}");
            assert_eq!(to_big(&d), to_big(&x) >> s, "{x:?}");
        }
    }

    #[test]
    fn inverse_of_e() {
        let m = vec![0x1234_5678_9abc_def0u64, 0xfeed_beef];
        let d = inv_small_e(&m, 65537);
        assert_eq!((to_big(&d) * 65537u32) % to_big(&m), BigUint::from(1u8));
    }
}
