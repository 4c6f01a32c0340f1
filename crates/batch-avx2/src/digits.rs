//! The 28-bit digit representation: batch-core's [`batch_core::num::digits`] at `b = 28`.
//!
//! Representation: a number is `N` digits `d_i` with value `Σ d_i·2^(28·i)`; "normalised"
//! means every `d_i < 2^28`. The vector code keeps digits *almost* normalised
//! (`d_i < 2^28 + 2^9`), which `from_digits` carries exactly.

use batch_core::num::digits;
pub use batch_core::num::digits::{sub_if_ge, ModulusDigits};

/// Bits per digit.
pub const DIGIT_BITS: usize = 28;
/// `2^28 − 1`.
pub const DIGIT_MASK: u64 = digits::digit_mask(DIGIT_BITS);

/// The `n` normalised digits of `x`; `x` must be below `2^(28·n)`.
pub fn to_digits(x: &[u64], n: usize) -> Vec<u64> {
    digits::to_digits(x, n, DIGIT_BITS)
}

/// `limbs` little-endian limbs of `Σ d_i·2^(28·i)`; bits above `64·limbs` are dropped.
pub fn from_digits(d: &[u64], limbs: usize) -> Vec<u64> {
    digits::from_digits(d, limbs, DIGIT_BITS)
}

/// Prepares an odd modulus `> 1` (already validated) for an `n`-digit kernel.
pub fn modulus_digits(m: &[u64], n: usize) -> Result<ModulusDigits, batch_core::Error> {
    ModulusDigits::new(m, n, DIGIT_BITS)
}

/// [`modulus_digits`] for a **public** modulus (`modexp_vartime`): variable-time setup.
pub fn modulus_digits_vartime(m: &[u64], n: usize) -> Result<ModulusDigits, batch_core::Error> {
    ModulusDigits::new_vartime(m, n, DIGIT_BITS)
}
