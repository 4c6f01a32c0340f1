//! Remainders by schoolbook long division, for **public** operands only.
//!
//! Knuth's Algorithm D (TAOCP vol. 2, §4.3.1) on 64-bit limbs: normalise the divisor so its
//! top bit is set, estimate each quotient limb from the top two limbs of the running
//! remainder and the top limb of the divisor (corrected with the second limb, so it is at
//! most one too large), multiply-subtract, add back in the rare case it was. Every branch and
//! the running time depend on the values: public moduli (RSA verification keys) only. Secret
//! moduli get their constants from the constant-time paths ([`super::MontyParams::new`]).

use super::{adc, bits_vartime};

/// `x mod m`, as `m.len()` little-endian limbs. Variable-time in both values.
/// Panics if `m` is zero.
pub fn rem_vartime(x: &[u64], m: &[u64]) -> Vec<u64> {
    let n = bits_vartime(m).div_ceil(64);
    assert!(n > 0, "division by zero");
    let xl = bits_vartime(x).div_ceil(64);
    let mut out = vec![0u64; m.len()];
    if xl < n {
        out[..xl].copy_from_slice(&x[..xl]);
        return out;
    }
    if n == 1 {
        let d = m[0] as u128;
        let r = x[..xl]
            .iter()
            .rev()
            .fold(0u128, |r, &w| ((r << 64) | w as u128) % d);
        out[0] = r as u64;
        return out;
    }
    // Normalise: v = m·2^s with its top bit set; u = x·2^s, one limb longer.
    let s = m[n - 1].leading_zeros();
    let v = shl(&m[..n], s, n);
    let mut u = shl(&x[..xl], s, xl + 1);
    let (v1, v2) = (v[n - 1] as u128, v[n - 2] as u128);
    const B: u128 = 1 << 64;
    for j in (0..=xl - n).rev() {
        // Invariant: u[j+n..] < v, so u[j+n] ≤ v[n-1] and the estimate is at most B + 1.
        let top = ((u[j + n] as u128) << 64) | u[j + n - 1] as u128;
        let mut qhat = top / v1;
        let mut rhat = top % v1;
        while qhat >= B || qhat * v2 > ((rhat << 64) | u[j + n - 2] as u128) {
            qhat -= 1;
            rhat += v1;
            if rhat >= B {
                break;
            }
        }
        debug_assert!(qhat < B);
        let q = qhat as u64;
        // u[j..=j+n] -= q·v, one chain: `carry` is the high word of the product plus the
        // borrow of the subtraction (q·v_i + carry ≤ 2^128 − 2^64, so a high word of
        // 2^64 − 1 comes with a zero low word and no borrow: the sum fits).
        let uj = &mut u[j..=j + n];
        let mut carry = 0u64;
        for (ui, &vi) in uj.iter_mut().zip(&v) {
            let p = (q as u128) * (vi as u128) + carry as u128;
            let (d, b) = ui.overflowing_sub(p as u64);
            *ui = d;
            carry = ((p >> 64) as u64) + b as u64;
        }
        let (d, b) = uj[n].overflowing_sub(carry);
        uj[n] = d;
        if b {
            // q was one too large: add v back (the carry out cancels the borrow).
            #[cfg(test)]
            tests::ADD_BACKS.with(|c| c.set(c.get() + 1));
            let mut c = 0;
            for (ui, &vi) in uj.iter_mut().zip(&v) {
                (*ui, c) = adc(*ui, vi, c);
            }
            uj[n] = uj[n].wrapping_add(c);
        }
        debug_assert_eq!(u[j + n], 0);
    }
    // The remainder is u[..n] / 2^s.
    for i in 0..n {
        out[i] = if s == 0 {
            u[i]
        } else {
            (u[i] >> s) | (u[i + 1] << (64 - s))
        };
    }
    out
}

/// `2^k mod m`, as `m.len()` limbs. Variable-time; panics if `m` is zero.
pub fn pow2_rem_vartime(k: usize, m: &[u64]) -> Vec<u64> {
    let mut x = vec![0u64; k / 64 + 1];
    x[k / 64] = 1 << (k % 64);
    rem_vartime(&x, m)
}

/// `x·2^s` (`s < 64`) in `len` limbs (`len ≥ x.len()`; bits above are dropped).
fn shl(x: &[u64], s: u32, len: usize) -> Vec<u64> {
    let mut out = vec![0u64; len];
    for (i, &w) in x.iter().enumerate() {
        out[i] |= w << s;
        if s != 0 && i + 1 < len {
            out[i + 1] |= w >> (64 - s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    thread_local! {
        /// Add-back steps taken on this thread (a test only counts its own).
        pub(super) static ADD_BACKS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    }

    fn big(x: &[u64]) -> BigUint {
        BigUint::from_slice(
            &x.iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn check(x: &[u64], m: &[u64]) -> Result<(), TestCaseError> {
        prop_assume!(m.iter().any(|&w| w != 0));
        let r = rem_vartime(x, m);
        prop_assert_eq!(r.len(), m.len());
        prop_assert_eq!(big(&r), big(x) % big(m));
        Ok(())
    }

    /// Limbs drawn mostly from boundary values (0, 1, all ones, top bit only, …) so that the
    /// estimate corrections and the add-back step, rare on uniform input, are exercised.
    fn limb() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            Just(1u64),
            Just(u64::MAX),
            Just(u64::MAX - 1),
            Just(1u64 << 63),
            Just((1u64 << 63) - 1),
            Just((1u64 << 63) + 1),
            Just(u64::MAX >> 32),
            Just(u64::MAX << 32),
            any::<u64>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn rem_matches_num_bigint_on_boundary_limbs(
            x in prop::collection::vec(limb(), 0..12),
            m in prop::collection::vec(limb(), 1..8),
        ) {
            check(&x, &m)?;
        }

        #[test]
        fn rem_matches_num_bigint_on_random_limbs(
            x in prop::collection::vec(any::<u64>(), 0..80),
            m in prop::collection::vec(any::<u64>(), 1..40),
            shift in 0u32..64,
        ) {
            // `shift` clears top bits of the divisor, so every normalisation shift occurs.
            let mut m = m;
            let last = m.len() - 1;
            m[last] >>= shift;
            check(&x, &m)?;
        }
    }

    #[test]
    fn add_back_is_exercised_and_correct() {
        // The add-back step runs with probability about 2/2^64 on uniform limbs; boundary
        // limbs hit it often. Count the hits so this test cannot pass without taking it.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let pick = |rng: &mut rand::rngs::StdRng| -> u64 {
            const EDGE: [u64; 8] = [
                0,
                1,
                u64::MAX,
                u64::MAX - 1,
                1 << 63,
                (1 << 63) - 1,
                (1 << 63) + 1,
                2,
            ];
            if rng.random_bool(0.8) {
                EDGE[rng.random_range(0..EDGE.len())]
            } else {
                rng.random()
            }
        };
        ADD_BACKS.with(|c| c.set(0));
        for _ in 0..20_000 {
            let n = rng.random_range(2..6);
            let m: Vec<u64> = (0..n).map(|_| pick(&mut rng)).collect();
            if m.iter().all(|&w| w == 0) {
                continue;
            }
            let x: Vec<u64> = (0..rng.random_range(n..n + 6))
                .map(|_| pick(&mut rng))
                .collect();
            assert_eq!(
                big(&rem_vartime(&x, &m)),
                big(&x) % big(&m),
                "{x:x?} mod {m:x?}"
            );
        }
        assert!(
            ADD_BACKS.with(|c| c.get()) > 0,
            "no input took the add-back step"
        );
    }

    #[test]
    fn powers_of_two() {
        for m in [
            vec![3u64],
            vec![u64::MAX],
            vec![1, 1],       // 2^64 + 1
            vec![1, 0, 0, 1], // 2^192 + 1
            vec![u64::MAX; 5],
            vec![0x1234_5678_9abc_def1, 0x42],
        ] {
            for k in [0usize, 1, 63, 64, 65, 127, 128, 200, 640, 1000] {
                let r = pow2_rem_vartime(k, &m);
                assert_eq!(
                    big(&r),
                    (BigUint::from(1u8) << k) % big(&m),
                    "2^{k} mod {m:x?}"
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "division by zero")]
    fn zero_divisor_panics() {
        rem_vartime(&[1], &[0, 0]);
    }
}
