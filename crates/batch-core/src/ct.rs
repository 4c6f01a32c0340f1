//! Constant-time helpers on limb slices, and the declassification hook of the Valgrind
//! constant-time check (`scripts/ct-check.sh`, see docs/SECURITY.md).
//!
//! The check runs signing under memcheck with every secret marked *undefined*; memcheck then
//! reports each branch and memory address computed from a secret. Values that are public by
//! design although computed from secrets (a signature, `r = x(k·G)`, the verdict of a
//! validity check) are passed to [`declassify`] where they become public: a no-op unless the
//! check binary installed a hook ([`set_declassify_hook`]), which then marks them defined.
//! This keeps `unsafe` (the Valgrind client request) out of the library crates.
//!
//! Masks are all-ones / all-zeros `u64`s, as in [`crate::num`].

use std::sync::OnceLock;

use crate::num::{ct_eq_mask, mask_from_bit, sbb};

/// Marks `len` bytes at the address as public (defined), for the constant-time check.
pub type DeclassifyHook = fn(*mut u8, usize);

static HOOK: OnceLock<DeclassifyHook> = OnceLock::new();

/// Installs the hook [`declassify`] calls. Only the constant-time check binary does this; the
/// first hook installed stays.
pub fn set_declassify_hook(hook: DeclassifyHook) {
    let _ = HOOK.set(hook);
}

/// Marks `v` as public from here on: its value may be branched on. A no-op without a hook.
/// Takes `&mut` so the compiler reloads `v` from memory after the call.
#[inline]
pub fn declassify<T: ?Sized>(v: &mut T) {
    if let Some(hook) = HOOK.get() {
        hook(v as *mut T as *mut u8, core::mem::size_of_val(v));
    }
}

/// `mask != 0` as a public `bool`: for the combined verdict of a constant-time check.
#[inline]
pub fn declassify_mask(mask: u64) -> bool {
    let mut m = core::hint::black_box(mask);
    declassify(&mut m);
    m != 0
}

/// All-ones if `a < b`, for little-endian limb slices of any lengths. Constant-time in the
/// values (the lengths are public).
pub fn lt_mask(a: &[u64], b: &[u64]) -> u64 {
    let n = a.len().max(b.len());
    let mut borrow = 0;
    for i in 0..n {
        (_, borrow) = sbb(
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
            borrow,
        );
    }
    mask_from_bit(borrow)
}

/// All-ones if `a == b`, for limb slices of any lengths. Constant-time in the values.
pub fn eq_mask(a: &[u64], b: &[u64]) -> u64 {
    let n = a.len().max(b.len());
    let mut acc = 0;
    for i in 0..n {
        acc |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    ct_eq_mask(acc, 0)
}

/// All-ones if every limb is zero. Constant-time.
pub fn is_zero_mask(a: &[u64]) -> u64 {
    ct_eq_mask(a.iter().fold(0, |acc, &w| acc | w), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_the_vartime_comparison() {
        let vals: [&[u64]; 6] = [&[], &[0], &[5], &[5, 0, 0], &[0, 1], &[u64::MAX, u64::MAX]];
        for a in vals {
            for b in vals {
                let ord = crate::num::cmp_limbs_vartime(a, b);
                assert_eq!(lt_mask(a, b) == u64::MAX, ord.is_lt(), "{a:?} < {b:?}");
                assert_eq!(eq_mask(a, b) == u64::MAX, ord.is_eq(), "{a:?} == {b:?}");
            }
            assert_eq!(is_zero_mask(a) == u64::MAX, a.iter().all(|&w| w == 0));
        }
        assert!(declassify_mask(u64::MAX));
        assert!(!declassify_mask(0));
    }
}
