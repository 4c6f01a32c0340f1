//! The 52-bit digit representation: batch-core's [`batch_core::num::digits`] at `b = 52`.
//!
//! Representation: a number is `N` digits `d_i < 2^52` with value `Σ d_i·2^(52·i)`; the
//! kernels keep every digit normalised (IFMA reads only the low 52 bits of a multiplicand).

use batch_core::num::digits;
pub use batch_core::num::digits::ModulusDigits;

pub use crate::field::DIGIT_BITS;

/// The `n` normalised digits of `x`; `x` must be below `2^(52·n)`.
pub fn to_digits(x: &[u64], n: usize) -> Vec<u64> {
    digits::to_digits(x, n, DIGIT_BITS)
}

/// Prepares an odd modulus `> 1` (already validated) for an `n`-digit kernel.
pub fn modulus_digits(m: &[u64], n: usize) -> Result<ModulusDigits, batch_core::Error> {
    ModulusDigits::new(m, n, DIGIT_BITS)
}

/// [`modulus_digits`] for a **public** modulus (`modexp_vartime`): variable-time setup.
pub fn modulus_digits_vartime(m: &[u64], n: usize) -> Result<ModulusDigits, batch_core::Error> {
    ModulusDigits::new_vartime(m, n, DIGIT_BITS)
}
