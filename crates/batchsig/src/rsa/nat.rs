//! Plain (non-modular) arithmetic on little-endian `u64` limb vectors, for CRT recombination
//! and key generation. Schoolbook, no data-dependent branches except where named `_vartime`.

use batch_core::num::{adc, mac, sbb};

/// `a · b`, `a.len() + b.len()` limbs.
pub fn mul(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for (i, &bi) in b.iter().enumerate() {
        let mut carry = 0;
        for (j, &aj) in a.iter().enumerate() {
            (out[i + j], carry) = mac(out[i + j], aj, bi, carry);
        }
        out[i + a.len()] = carry;
    }
    out
}

/// `a + b`, `max(len) + 1` limbs.
pub fn add(a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len().max(b.len());
    let mut out = vec![0u64; n + 1];
    let mut carry = 0;
    for i in 0..n {
        (out[i], carry) = adc(
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
            carry,
        );
    }
    out[n] = carry;
    out
}

/// `a − b` for `a ≥ b`, `a.len()` limbs; panics if it would underflow. Constant-time in the
/// values (`b`'s limbs above `a.len()` are checked by a branch: pass `b` no longer than `a`).
pub fn sub(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len()];
    let mut borrow = 0;
    for i in 0..a.len() {
        (out[i], borrow) = sbb(a[i], b.get(i).copied().unwrap_or(0), borrow);
    }
    // The borrow is 0 for every valid input, so the bug check reveals nothing: declassified.
    assert!(
        !batch_core::ct::declassify_mask(batch_core::num::mask_from_bit(borrow))
            && b.iter().skip(a.len()).all(|&w| w == 0),
        "nat::sub underflow"
    );
    out
}

/// `a · s + t` for small `s`, `t`.
pub fn mul_small_add(a: &[u64], s: u64, t: u64) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + 1];
    let mut carry = t;
    for i in 0..a.len() {
        (out[i], carry) = mac(0, a[i], s, carry);
    }
    out[a.len()] = carry;
    out
}

/// Drops high zero limbs (keeps at least one). Variable-time in the length only.
pub fn trim(mut a: Vec<u64>) -> Vec<u64> {
    while a.len() > 1 && *a.last().expect("non-empty") == 0 {
        a.pop();
    }
    a
}

/// Resizes to `n` limbs; panics if a non-zero limb would be dropped.
pub fn resize(mut a: Vec<u64>, n: usize) -> Vec<u64> {
    assert!(
        a.iter().skip(n).all(|&w| w == 0),
        "nat::resize would truncate"
    );
    a.resize(n, 0);
    a
}

/// The low `n` limbs (zero-extended): drops the limbs above `n` without looking at them.
/// Constant-time; for values known to fit.
pub fn truncate(mut a: Vec<u64>, n: usize) -> Vec<u64> {
    a.resize(n, 0);
    a
}

/// Whether two values are equal, whatever their lengths. Variable-time.
pub fn eq_vartime(a: &[u64], b: &[u64]) -> bool {
    batch_core::num::cmp_limbs_vartime(a, b) == core::cmp::Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::dev::{from_big, to_big};
    use num_bigint::BigUint;

    #[test]
    fn matches_num_bigint() {
        let a = vec![u64::MAX, 7, u64::MAX];
        let b = vec![3, u64::MAX];
        assert_eq!(to_big(&mul(&a, &b)), to_big(&a) * to_big(&b));
        assert_eq!(to_big(&add(&a, &b)), to_big(&a) + to_big(&b));
        assert_eq!(to_big(&sub(&a, &b)), to_big(&a) - to_big(&b));
        assert_eq!(
            to_big(&mul_small_add(&a, 65537, 9)),
            to_big(&a) * 65537u32 + 9u32
        );
        assert_eq!(trim(from_big(&BigUint::from(5u8), 4)), vec![5]);
    }
}
