//! The only place with `unsafe`: run-time AVX2 detection and the calls into the
//! `#[target_feature(enable = "avx2")]` kernels.
//!
//! [`Avx2`] is a zero-sized proof that the CPU has AVX2: [`detect`] is its only constructor
//! and builds it after `is_x86_feature_detected!("avx2")` (cached by std) returned true.
//! Every wrapper below takes one, so safe code can only reach AVX2 instructions on a CPU that
//! has them. The kernels themselves are safe `#[target_feature]` functions (intrinsics are
//! safe to call inside them); calling one from code compiled without AVX2 is what needs the
//! proof, hence the `unsafe` blocks here.
#![allow(unsafe_code)]

/// Proof that AVX2 is available on this CPU.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

/// `Some` if this CPU has AVX2 (and the `force-fallback` feature is off).
pub fn detect() -> Result<Avx2, String> {
    if cfg!(feature = "force-fallback") {
        return Err("disabled by the `force-fallback` feature".into());
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        Ok(Avx2(()))
    } else {
        Err("this CPU does not support AVX2".into())
    }
}

use crate::digits::ModulusDigits;

/// [`crate::modexp::modexp_group_avx2`] behind the proof.
pub fn modexp_group<const N: usize>(
    _t: Avx2,
    mods: [&ModulusDigits; 4],
    bases: [&[u64]; 4],
    exps: [&[u64]; 4],
    vartime: bool,
) -> [Vec<u64>; 4] {
    // SAFETY: an `Avx2` exists only after `detect` saw AVX2 on this CPU.
    unsafe { crate::modexp::modexp_group_avx2::<N>(mods, bases, exps, vartime) }
}

/// [`crate::ecc::ec_chunk_avx2`] behind the proof.
pub fn ec_chunk<const N: usize>(
    _t: Avx2,
    cc: &crate::ecc::CurveConsts,
    op: crate::ecc::Op<'_>,
    inputs: &[crate::ecc::EcJob],
) -> Vec<batch_core::AffinePoint> {
    // SAFETY: an `Avx2` exists only after `detect` saw AVX2 on this CPU.
    unsafe { crate::ecc::ec_chunk_avx2::<N>(cc, op, inputs) }
}
