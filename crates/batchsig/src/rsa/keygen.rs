//! Prime generation for RSA keys: random candidates with the top two bits set, trial
//! division, then Miller–Rabin with random bases (FIPS 186-5 B.3.1, table B.1 rounds).
//!
//! Timing: a rejected candidate is discarded, so leaking *that* it was rejected is harmless,
//! but nothing of the accepted prime may leak, and a candidate's work must not depend on its
//! value before its verdict is known. So every candidate gets the same work, and only the
//! combined verdict of each stage is declassified:
//! - trial division computes the candidate's residue modulo all 2048 small primes (and `e`)
//!   with multiplications only — no hardware division on the secret, no early exit at the
//!   first factor ([`Sieve`]);
//! - Miller–Rabin finds `s = v₂(c − 1)` and `d` with masks, and every round runs the same
//!   number of squarings (`64·limbs − 1`, not `s − 1`, with no early `break`), so the time of
//!   an accepted prime does not reveal `v₂(p − 1)`.
//!
//! The whole of RSA key generation runs under the constant-time check (`scripts/ct-check.sh`,
//! section `keygen`). RustCrypto's crypto-primes was considered and not used: its sieve and
//! its Miller–Rabin branch on the candidate's value (early exits, an incremental sieve that
//! skips by the residues), which this check would reject.

use batch_core::ct::{declassify_mask, eq_mask, is_zero_mask};
use batch_core::num::{ct_eq_mask, mask_from_bit, sbb, DynMonty};
use rand_core::CryptoRng;

use super::nat;

const SMALL_PRIMES: usize = 2048;

fn small_primes() -> &'static [u64] {
    static PRIMES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    PRIMES.get_or_init(|| {
        let mut v = Vec::with_capacity(SMALL_PRIMES);
        let mut c = 3u64;
        while v.len() < SMALL_PRIMES {
            if v.iter()
                .take_while(|&&p| p * p <= c)
                .all(|&p| !c.is_multiple_of(p))
            {
                v.push(c);
            }
            c += 2;
        }
        v
    })
}

/// A public odd modulus `s < 2³¹`, `⌊2⁶⁴ / s⌋` for reducing secrets without division, and
/// `2³² mod s`, `2⁶⁴ mod s`.
#[derive(Clone, Copy)]
struct SmallModulus {
    s: u64,
    barrett: u64,
    r32: u64,
    r64: u64,
}

impl SmallModulus {
    const MAX: u64 = 1 << 31;

    fn new(s: u64) -> Self {
        assert!(s > 2 && s % 2 == 1 && s < Self::MAX, "small odd modulus");
        // ⌊(2⁶⁴ − 1) / s⌋ = ⌊2⁶⁴ / s⌋ since s (odd, > 1) does not divide 2⁶⁴.
        Self {
            s,
            barrett: u64::MAX / s,
            r32: (1 << 32) % s,
            r64: ((1u128 << 64) % s as u128) as u64,
        }
    }

    /// `x mod s` for `x < 2⁶³`, constant-time: the quotient estimate `⌊x·⌊2⁶⁴/s⌋ / 2⁶⁴⌋` is
    /// `⌊x/s⌋` or one less (its error is below `x/2⁶⁴ < 1/2` plus the floor), so one masked
    /// subtraction finishes.
    fn reduce(&self, x: u64) -> u64 {
        debug_assert!(x < 1 << 63);
        let q = ((x as u128 * self.barrett as u128) >> 64) as u64;
        let r = x - q * self.s; // < 2s
        let (t, borrow) = sbb(r, self.s, 0);
        t ^ ((t ^ r) & mask_from_bit(borrow))
    }

    /// `a · b mod s` for `a, b < s`.
    fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce(a * b)
    }
}

/// Moduli of one pass of [`Sieve`]: their product (below 2³¹) and the moduli themselves.
struct Group {
    product: SmallModulus,
    factors: Vec<SmallModulus>,
}

/// Residues of secret integers of a fixed size modulo public small moduli, with
/// multiplications only. Moduli are paired into products below 2³¹ (halving the passes over
/// `x`); for each product `P`, `x = Σ xⱼ·2⁶⁴ʲ ≡ Σ xⱼ·(2⁶⁴ʲ mod P)`, the 128-bit sum (each
/// term below 2⁹⁵) is folded to below 2⁶³ and reduced, then reduced by each factor. Every
/// residue costs the same whatever `x` is.
struct Sieve {
    groups: Vec<Group>,
    /// `2⁶⁴ʲ mod P` for each group (row) and limb `j` (column).
    weights: Vec<u64>,
    limbs: usize,
}

impl Sieve {
    fn new(moduli: impl IntoIterator<Item = u64>, limbs: usize) -> Self {
        // The 128-bit sum of `limbs` terms below 2⁹⁵ must not overflow.
        assert!(limbs <= 1 << 9, "Sieve: at most 512 limbs");
        let mut groups: Vec<Group> = Vec::new();
        for s in moduli {
            let f = SmallModulus::new(s);
            match groups.last_mut() {
                Some(g) if g.factors.len() == 1 && g.product.s * s < SmallModulus::MAX => {
                    g.product = SmallModulus::new(g.product.s * s);
                    g.factors.push(f);
                }
                _ => groups.push(Group {
                    product: f,
                    factors: vec![f],
                }),
            }
        }
        let mut weights = Vec::with_capacity(groups.len() * limbs);
        for g in &groups {
            let m = g.product;
            let mut w = 1 % m.s; // public: plain division is fine
            for _ in 0..limbs {
                weights.push(w);
                w = w * m.r64 % m.s;
            }
        }
        Self {
            groups,
            weights,
            limbs,
        }
    }

    /// `x mod s` for every modulus, in the order given to [`Sieve::new`]. Constant-time in `x`.
    fn residues<'a>(&'a self, x: &'a [u64]) -> impl Iterator<Item = u64> + 'a {
        assert!(x.len() <= self.limbs, "Sieve: value too long");
        self.groups
            .iter()
            .zip(self.weights.chunks_exact(self.limbs))
            .flat_map(move |(g, row)| {
                let sum: u128 = row
                    .iter()
                    .zip(x)
                    .map(|(&w, &x)| w as u128 * x as u128)
                    .sum();
                // sum = hi·2⁶⁴ + mid·2³² + lo with hi < 2⁴⁰: (hi mod P)·(2⁶⁴ mod P) < 2⁶²,
                // plus (mid·(2³² mod P) mod P) < 2³¹, plus lo < 2³², stays below 2⁶³.
                let m = g.product;
                let (hi, mid, lo) = ((sum >> 64) as u64, (sum >> 32) as u32, sum as u32);
                let folded = m.reduce(hi) * m.r64 + m.reduce(mid as u64 * m.r32) + lo as u64;
                let r = m.reduce(folded);
                g.factors.iter().map(move |f| f.reduce(r))
            })
    }
}

/// A random prime of exactly `bits` bits (top two bits set) with `p − 1` coprime to the
/// prime `e` (`2 < e < 2³¹`).
pub(crate) fn random_prime(rng: &mut impl CryptoRng, bits: usize, e: u64) -> Vec<u64> {
    let limbs = bits.div_ceil(64);
    let rounds = if bits >= 1536 { 4 } else { 5 };
    // The last modulus is `e`: a candidate ≡ 1 (mod e) has e | p − 1.
    let sieve = Sieve::new(small_primes().iter().copied().chain([e]), limbs);
    loop {
        let mut c: Vec<u64> = (0..limbs).map(|_| rng.next_u64()).collect();
        let top = bits - 64 * (limbs - 1);
        if top < 64 {
            c[limbs - 1] &= (1u64 << top) - 1;
        }
        c[limbs - 1] |= 3u64 << (top - 2);
        c[0] |= 1;
        let mut reject = 0u64;
        for (i, r) in sieve.residues(&c).enumerate() {
            let bad = if i < SMALL_PRIMES { 0 } else { 1 };
            reject |= ct_eq_mask(r, bad);
        }
        if declassify_mask(reject) {
            continue;
        }
        if miller_rabin(rng, &c, rounds) {
            return c;
        }
    }
}

/// Miller–Rabin with `rounds` random bases in `[2, c − 2]`. Constant-time in `c` and the
/// bases except for each round's verdict (see the module header).
fn miller_rabin(rng: &mut impl CryptoRng, c: &[u64], rounds: usize) -> bool {
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

/// `e⁻¹ mod m` for a small prime `e` (`2 < e < 2³¹`) coprime to `m`: `(1 + k·m) / e` with
/// `k ≡ −m⁻¹ (mod e)`, `m.len()` limbs. Constant-time in `m` (the secret `φ(n)`, `p − 1`,
/// `q − 1`): the residue by [`Sieve`], `m⁻¹ mod e` by Fermat with a public exponent, and the
/// exact division by `e` as a multiplication by `e⁻¹ mod 2⁶⁴`.
pub(crate) fn inv_small_e(m: &[u64], e: u64) -> Vec<u64> {
    let em = SmallModulus::new(e);
    let r = Sieve::new([e], m.len())
        .residues(m)
        .next()
        .expect("one modulus");
    // m⁻¹ mod e = r^(e−2) (e prime); the exponent is public.
    let (mut inv, mut b) = (1u64, r);
    let mut x = e - 2;
    while x > 0 {
        if x & 1 == 1 {
            inv = em.mul(inv, b);
        }
        b = em.mul(b, b);
        x >>= 1;
    }
    // k = e − inv ∈ [1, e − 1] (inv ≠ 0 since gcd(m, e) = 1); then t = k·m + 1 ≡ 0 (mod e).
    let t = nat::mul_small_add(m, e - inv, 1);
    nat::truncate(div_exact_small(&t, e), m.len())
}

/// `t / e` for an odd `e` that divides `t` exactly, without division (Hensel's exact
/// division, as GMP's `mpn_divexact_1`): limb by limb from the bottom, `qᵢ = (tᵢ − c)·e⁻¹ mod
/// 2⁶⁴`, where `c` carries the high half of `qᵢ·e` and the borrow. Constant-time.
fn div_exact_small(t: &[u64], e: u64) -> Vec<u64> {
    // e⁻¹ mod 2⁶⁴ by Newton's iteration (each step doubles the correct low bits; e·e ≡ 1
    // mod 8 for odd e gives 3 to start).
    let mut einv = e;
    for _ in 0..5 {
        einv = einv.wrapping_mul(2u64.wrapping_sub(e.wrapping_mul(einv)));
    }
    debug_assert_eq!(e.wrapping_mul(einv), 1);
    let mut carry = 0u64;
    t.iter()
        .map(|&ti| {
            let (s, borrow) = sbb(ti, carry, 0);
            let q = s.wrapping_mul(einv);
            carry = ((q as u128 * e as u128) >> 64) as u64 + borrow;
            q
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::dev::to_big;
    use num_bigint::BigUint;
    use rand::Rng;

    #[test]
    fn miller_rabin_separates_primes_from_composites() {
        let mut rng = rand::rng();
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
        let mut rng = rand::rng();
        let mut ms = vec![
            vec![0x1234_5678_9abc_def0u64, 0xfeed_beef],
            vec![2],
            vec![u64::MAX; 3],
            vec![0, 0, 0, 1],
        ];
        // Random even and odd values of 1 to 64 limbs, with leading zero limbs too.
        for len in [1usize, 2, 5, 16, 32, 64] {
            for _ in 0..8 {
                let mut m: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
                m[len - 1] >>= rng.next_u32() % 64;
                ms.push(m);
            }
        }
        for e in [3u64, 17, 65537, (1 << 31) - 1] {
            for m in &ms {
                if to_big(m) <= BigUint::from(1u8) || (to_big(m) % e).bits() == 0 {
                    continue;
                }
                let d = inv_small_e(m, e);
                assert_eq!(d.len(), m.len());
                assert!(to_big(&d) < to_big(m), "{m:?} {e}");
                assert_eq!(
                    (to_big(&d) * e) % to_big(m),
                    BigUint::from(1u8),
                    "{m:?} {e}"
                );
            }
        }
    }

    #[test]
    fn sieve_residues_match_num_bigint() {
        let mut rng = rand::rng();
        let moduli: Vec<u64> = small_primes()
            .iter()
            .copied()
            .chain([65537, (1 << 31) - 1, 3, (1 << 16) + 1])
            .collect();
        for limbs in [1usize, 8, 16, 64] {
            let sieve = Sieve::new(moduli.iter().copied(), limbs);
            let mut xs = vec![vec![0u64; limbs], vec![u64::MAX; limbs], vec![1]];
            for _ in 0..4 {
                xs.push((0..limbs).map(|_| rng.next_u64()).collect());
            }
            for x in &xs {
                let got: Vec<u64> = sieve.residues(x).collect();
                let want: Vec<u64> = moduli
                    .iter()
                    .map(|&s| (to_big(x) % s).iter_u64_digits().next().unwrap_or(0))
                    .collect();
                assert_eq!(got, want, "{limbs} limbs");
            }
        }
        // The reduction itself at its bounds.
        for s in [3u64, 5, 17863, 65537, (1 << 31) - 1] {
            let m = SmallModulus::new(s);
            for x in [
                0,
                1,
                s - 1,
                s,
                s + 1,
                2 * s - 1,
                (1 << 63) - 1,
                (1 << 62) + 12345,
            ] {
                assert_eq!(m.reduce(x), x % s, "{x} mod {s}");
            }
        }
    }

    #[test]
    fn random_primes_are_prime_and_avoid_e() {
        let mut rng = rand::rng();
        for bits in [256usize, 512, 1000] {
            let p = random_prime(&mut rng, bits, 65537);
            let big = to_big(&p);
            assert_eq!(big.bits() as usize, bits);
            assert!(big.bit(bits as u64 - 2), "top two bits set");
            assert_ne!(&big % 65537u32, BigUint::from(1u8));
            // An independent probable-prime test: Fermat to base 2 and 3 with num-bigint.
            let pm1 = &big - 1u8;
            for a in [2u8, 3] {
                assert_eq!(BigUint::from(a).modpow(&pm1, &big), BigUint::from(1u8));
            }
            assert!(small_primes().iter().all(|&s| (&big % s).bits() != 0));
        }
    }
}
