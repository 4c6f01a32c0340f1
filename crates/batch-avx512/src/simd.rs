//! The only place with `unsafe`: run-time AVX-512 IFMA detection, the lane types whose
//! methods wrap the intrinsics, and the calls into the `#[target_feature]` kernels.
//!
//! [`Ifma`] is a zero-sized proof that the CPU has AVX-512F, AVX-512 IFMA and AVX-512VL:
//! [`detect`] is its only constructor. The lane types [`Z8`] (eight 64-bit lanes in a `zmm`
//! register) and [`Y4`] (four in a `ymm`, the form OpenSSL uses to avoid frequency drops on
//! some Intel parts) are proofs too — only an [`Ifma`] hands them out — so a [`Lanes`] method,
//! which takes its proof as `self`, can only run on a CPU that has the instructions. The
//! methods are `#[inline(always)]` and are meant to be called from the kernels in `field`
//! and `modexp`, which are `#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]`
//! functions: inlined there, each becomes one instruction.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// Proof that AVX-512F, AVX-512 IFMA and AVX-512VL are available on this CPU.
#[derive(Clone, Copy, Debug)]
pub struct Ifma(());

/// Eight lanes in a 512-bit register (proof type, see the module header).
#[derive(Clone, Copy, Debug)]
pub struct Z8(());

/// Four lanes in a 256-bit register (proof type, see the module header).
#[derive(Clone, Copy, Debug)]
pub struct Y4(());

impl Ifma {
    pub fn z8(self) -> Z8 {
        Z8(())
    }
    pub fn y4(self) -> Y4 {
        Y4(())
    }
}

/// `Ok` if this CPU has AVX-512F + IFMA + VL (and the `force-fallback` feature is off).
pub fn detect() -> Result<Ifma, String> {
    if cfg!(feature = "force-fallback") {
        return Err("disabled by the `force-fallback` feature".into());
    }
    let has = |f: &str| match f {
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512ifma" => std::arch::is_x86_feature_detected!("avx512ifma"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        _ => false,
    };
    let missing: Vec<&str> = ["avx512f", "avx512ifma", "avx512vl"]
        .into_iter()
        .filter(|f| !has(f))
        .collect();
    if missing.is_empty() {
        Ok(Ifma(()))
    } else {
        Err(format!(
            "no AVX-512 IFMA on this CPU (missing {})",
            missing.join(", ")
        ))
    }
}

/// One register of independent 64-bit lanes and the operations the kernels use. Lane values
/// never choose a branch or an address: selections go through lane masks.
pub trait Lanes: Copy + Send + Sync + core::fmt::Debug + 'static {
    /// The register.
    type V: Copy + core::fmt::Debug + bytemuck::Pod;
    /// A per-lane mask (`__mmask8`).
    type M: Copy;
    /// Lanes per register.
    const LANES: usize;
    /// Short name for descriptions (`zmm`, `ymm`).
    const NAME: &'static str;

    fn zero(self) -> Self::V;
    fn splat(self, x: u64) -> Self::V;
    /// Lane `l` from `x[l]`; `x.len() == LANES`. (`self` is the zero-sized lane form.)
    #[allow(clippy::wrong_self_convention)]
    fn from_lanes(self, x: &[u64]) -> Self::V;
    /// Writes lane `l` to `out[l]`; `out.len() == LANES`.
    fn to_lanes(self, v: Self::V, out: &mut [u64]);
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a − b` per lane (wrapping).
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    fn or(self, a: Self::V, b: Self::V) -> Self::V;
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a >> 52` per lane.
    fn shr52(self, a: Self::V) -> Self::V;
    /// `a >> 52` per lane, arithmetic (sign-extending).
    fn sar52(self, a: Self::V) -> Self::V;
    /// `a >> 1` per lane.
    fn shr1(self, a: Self::V) -> Self::V;
    /// `a << 51` per lane.
    fn shl51(self, a: Self::V) -> Self::V;
    /// `acc + lo52(a[51:0]·b[51:0])` per lane (`vpmadd52luq`).
    fn madd_lo(self, acc: Self::V, a: Self::V, b: Self::V) -> Self::V;
    /// `acc + hi52(a[51:0]·b[51:0])` per lane (`vpmadd52huq`).
    fn madd_hi(self, acc: Self::V, a: Self::V, b: Self::V) -> Self::V;
    /// Lanes where `a == b`.
    fn eq(self, a: Self::V, b: Self::V) -> Self::M;
    /// `b` in the lanes of `m`, `a` elsewhere.
    fn select(self, a: Self::V, b: Self::V, m: Self::M) -> Self::V;
    /// `v`, as a register value the compiler cannot see through (an empty `asm!`). For a
    /// selection whose result overwrites one of its operands in memory: without it, LLVM
    /// stores only the lanes that changed (a *masked store*), and the next load of the value
    /// then waits on store forwarding, which the core grants or refuses by the mask — a
    /// timing difference where the mask is secret (docs/SECURITY.md, "Masked stores";
    /// `scripts/masked-store-check.sh` checks the built code for them).
    fn opaque(self, v: Self::V) -> Self::V;
}

// SAFETY (every `unsafe` block below): `self` is a `Z8`/`Y4`, which only `Ifma` — built by
// `detect` after seeing AVX-512F, IFMA and VL — hands out, so the instructions exist; slices
// are length-checked before the unaligned loads and stores.
impl Lanes for Z8 {
    type V = __m512i;
    type M = __mmask8;
    const LANES: usize = 8;
    const NAME: &'static str = "zmm";

    #[inline(always)]
    fn zero(self) -> __m512i {
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn splat(self, x: u64) -> __m512i {
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    fn from_lanes(self, x: &[u64]) -> __m512i {
        assert_eq!(x.len(), 8);
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
    }
    #[inline(always)]
    fn to_lanes(self, v: __m512i, out: &mut [u64]) {
        assert_eq!(out.len(), 8);
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_sub_epi64(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn or(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_or_si512(a, b) }
    }
    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    fn sar52(self, a: __m512i) -> __m512i {
        unsafe { _mm512_srai_epi64::<52>(a) }
    }
    #[inline(always)]
    fn shr52(self, a: __m512i) -> __m512i {
        unsafe { _mm512_srli_epi64::<52>(a) }
    }
    #[inline(always)]
    fn shr1(self, a: __m512i) -> __m512i {
        unsafe { _mm512_srli_epi64::<1>(a) }
    }
    #[inline(always)]
    fn shl51(self, a: __m512i) -> __m512i {
        unsafe { _mm512_slli_epi64::<51>(a) }
    }
    #[inline(always)]
    fn madd_lo(self, acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_madd52lo_epu64(acc, a, b) }
    }
    #[inline(always)]
    fn madd_hi(self, acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
        unsafe { _mm512_madd52hi_epu64(acc, a, b) }
    }
    #[inline(always)]
    fn eq(self, a: __m512i, b: __m512i) -> __mmask8 {
        unsafe { _mm512_cmpeq_epi64_mask(a, b) }
    }
    #[inline(always)]
    fn select(self, a: __m512i, b: __m512i, m: __mmask8) -> __m512i {
        unsafe { _mm512_mask_mov_epi64(a, m, b) }
    }
    #[inline(always)]
    fn opaque(self, v: __m512i) -> __m512i {
        unsafe { opaque_zmm(v) }
    }
}

impl Lanes for Y4 {
    type V = __m256i;
    type M = __mmask8;
    const LANES: usize = 4;
    const NAME: &'static str = "ymm";

    #[inline(always)]
    fn zero(self) -> __m256i {
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn splat(self, x: u64) -> __m256i {
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    fn from_lanes(self, x: &[u64]) -> __m256i {
        assert_eq!(x.len(), 4);
        unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
    }
    #[inline(always)]
    fn to_lanes(self, v: __m256i, out: &mut [u64]) {
        assert_eq!(out.len(), 4);
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_sub_epi64(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_or_si256(a, b) }
    }
    #[inline(always)]
    fn xor(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    fn sar52(self, a: __m256i) -> __m256i {
        unsafe { _mm256_srai_epi64::<52>(a) }
    }
    #[inline(always)]
    fn shr52(self, a: __m256i) -> __m256i {
        unsafe { _mm256_srli_epi64::<52>(a) }
    }
    #[inline(always)]
    fn shr1(self, a: __m256i) -> __m256i {
        unsafe { _mm256_srli_epi64::<1>(a) }
    }
    #[inline(always)]
    fn shl51(self, a: __m256i) -> __m256i {
        unsafe { _mm256_slli_epi64::<51>(a) }
    }
    #[inline(always)]
    fn madd_lo(self, acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_madd52lo_epu64(acc, a, b) }
    }
    #[inline(always)]
    fn madd_hi(self, acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
        unsafe { _mm256_madd52hi_epu64(acc, a, b) }
    }
    #[inline(always)]
    fn eq(self, a: __m256i, b: __m256i) -> __mmask8 {
        unsafe { _mm256_cmpeq_epi64_mask(a, b) }
    }
    #[inline(always)]
    fn select(self, a: __m256i, b: __m256i, m: __mmask8) -> __m256i {
        unsafe { _mm256_mask_mov_epi64(a, m, b) }
    }
    #[inline(always)]
    fn opaque(self, v: __m256i) -> __m256i {
        unsafe { opaque_ymm(v) }
    }
}

/// [`Lanes::opaque`] for a `zmm` register.
#[target_feature(enable = "avx512f")]
#[inline]
fn opaque_zmm(mut v: __m512i) -> __m512i {
    // SAFETY: an empty template; the register is its only operand.
    unsafe {
        core::arch::asm!("/* {0} */", inout(zmm_reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// [`opaque_zmm`] for a `ymm` register.
#[target_feature(enable = "avx")]
#[inline]
fn opaque_ymm(mut v: __m256i) -> __m256i {
    // SAFETY: as in `opaque_zmm`.
    unsafe {
        core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// `x`, as a general register value the compiler cannot see through (an empty `asm!`): keeps
/// scalar bit-mask arithmetic scalar. Without it LLVM's SLP vectoriser pairs the horizontal
/// form's two carry-mask gatherings (`horizontal::normalise`) into vector inserts and shifts
/// on every product's critical path (measured: a 1024-bit CRT pair 3 % slower, docs/PERF.md).
#[inline]
pub(crate) fn opaque_u64(mut x: u64) -> u64 {
    // SAFETY: an empty template; the register is its only operand.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Cross-lane operations of the horizontal form (`crate::horizontal`: one number's digits
/// along a register's lanes), in both widths.
pub trait Across: Lanes<M = __mmask8> {
    /// `[lo[1], …, lo[L−1], hi[0]]`: the pair shifted down by one lane (`valignq $1`).
    fn shift_down(self, hi: Self::V, lo: Self::V) -> Self::V;
    /// `[lo[L−1], hi[0], …, hi[L−2]]`: the pair shifted up by one lane (`valignq $(L−1)`).
    fn shift_up(self, hi: Self::V, lo: Self::V) -> Self::V;
    /// Lane 0 (`vmovq`).
    fn lane0(self, v: Self::V) -> u64;
    /// `v` with lane 0 replaced by `x`.
    fn with_lane0(self, v: Self::V, x: u64) -> Self::V;
    /// Lanes where `a > b` (unsigned), as a bit mask.
    fn gt(self, a: Self::V, b: Self::V) -> __mmask8;
    /// `a − b` in the lanes of `m`, `a` elsewhere.
    fn sub_in(self, a: Self::V, m: __mmask8, b: Self::V) -> Self::V;
}

impl Across for Z8 {
    #[inline(always)]
    fn shift_down(self, hi: __m512i, lo: __m512i) -> __m512i {
        unsafe { _mm512_alignr_epi64::<1>(hi, lo) }
    }
    #[inline(always)]
    fn shift_up(self, hi: __m512i, lo: __m512i) -> __m512i {
        unsafe { _mm512_alignr_epi64::<7>(hi, lo) }
    }
    #[inline(always)]
    fn lane0(self, v: __m512i) -> u64 {
        unsafe { _mm_cvtsi128_si64(_mm512_castsi512_si128(v)) as u64 }
    }
    #[inline(always)]
    fn with_lane0(self, v: __m512i, x: u64) -> __m512i {
        unsafe { _mm512_mask_set1_epi64(v, 1, x as i64) }
    }
    #[inline(always)]
    fn gt(self, a: __m512i, b: __m512i) -> __mmask8 {
        unsafe { _mm512_cmpgt_epu64_mask(a, b) }
    }
    #[inline(always)]
    fn sub_in(self, a: __m512i, m: __mmask8, b: __m512i) -> __m512i {
        unsafe { _mm512_mask_sub_epi64(a, m, a, b) }
    }
}

impl Across for Y4 {
    #[inline(always)]
    fn shift_down(self, hi: __m256i, lo: __m256i) -> __m256i {
        unsafe { _mm256_alignr_epi64::<1>(hi, lo) }
    }
    #[inline(always)]
    fn shift_up(self, hi: __m256i, lo: __m256i) -> __m256i {
        unsafe { _mm256_alignr_epi64::<3>(hi, lo) }
    }
    #[inline(always)]
    fn lane0(self, v: __m256i) -> u64 {
        unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(v)) as u64 }
    }
    #[inline(always)]
    fn with_lane0(self, v: __m256i, x: u64) -> __m256i {
        unsafe { _mm256_mask_set1_epi64(v, 1, x as i64) }
    }
    #[inline(always)]
    fn gt(self, a: __m256i, b: __m256i) -> __mmask8 {
        unsafe { _mm256_cmpgt_epu64_mask(a, b) }
    }
    #[inline(always)]
    fn sub_in(self, a: __m256i, m: __mmask8, b: __m256i) -> __m256i {
        unsafe { _mm256_mask_sub_epi64(a, m, a, b) }
    }
}

/// [`crate::horizontal::modexp_few_ifma`] behind the proof.
pub fn modexp_few<S: Across, const R: usize>(
    s: S,
    n: usize,
    mods: &[&batch_core::num::digits::ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    // SAFETY: a `Z8` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe { crate::horizontal::modexp_few_ifma::<S, R>(s, n, mods, bases, exps, vartime) }
}

/// [`crate::field::CurveField::half`] behind the proof, on a field built for the call, for
/// its test.
#[cfg(test)]
pub(crate) fn half_for_test<S: Lanes, const N: usize>(
    s: S,
    c: &crate::field::FieldConsts,
    a: &crate::field::Fe<S, N>,
) -> crate::field::Fe<S, N> {
    // SAFETY: a `Z8` or `Y4` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe { crate::field::CurveField::<S, N>::new(s, c).half(a) }
}

/// `crate::horizontal`'s carry propagation on four registers behind the proof, for its test.
#[cfg(test)]
pub(crate) fn normalise_for_test<S: Across, const R: usize>(s: S, v: &[S::V; R]) -> Vec<u64> {
    // SAFETY: a `Z8` or `Y4` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    let r = unsafe { crate::horizontal::normalise::<S, R>(s, v) };
    let mut out = vec![0u64; S::LANES * R];
    for (j, &x) in r.iter().enumerate() {
        s.to_lanes(x, &mut out[S::LANES * j..S::LANES * (j + 1)]);
    }
    out
}

/// [`crate::modexp::modexp_group_ifma`] behind the proof.
pub fn modexp_group<S: Lanes, const N: usize>(
    s: S,
    sqr: bool,
    mods: &[&batch_core::num::digits::ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    // SAFETY: an `S` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe { crate::modexp::modexp_group_ifma::<S, N>(s, sqr, mods, bases, exps, vartime) }
}

/// [`crate::ecc::ec_chunk_ifma`] behind the proof.
pub fn ec_chunk<S: Lanes, const N: usize>(
    s: S,
    cc: &crate::ecc::CurveConsts,
    op: crate::ecc::Op<'_>,
    inputs: &[crate::ecc::EcJob],
) -> Vec<batch_core::AffinePoint> {
    // SAFETY: an `S` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe { crate::ecc::ec_chunk_ifma::<S, N>(s, cc, op, inputs) }
}

/// [`crate::field::amm_ifma`] behind the proof. This wrapper has no target features, so the
/// kernel cannot be inlined into it: every caller runs the one standalone copy.
#[inline(never)]
pub fn amm<S: Lanes, const N: usize>(
    s: S,
    a: &[S::V; N],
    b: &[S::V; N],
    m: &crate::field::Moduli<S, N>,
) -> [S::V; N] {
    // SAFETY: as above.
    unsafe { crate::field::amm_ifma::<S, N>(s, a, b, m) }
}

/// [`crate::field::amm_curve_ifma`] behind the proof, out of line like [`amm`], for the
/// reduction `red` (which [`crate::field::Reduction::of`] chose for this prime).
#[inline(never)]
pub fn amm_curve<S: Lanes, const N: usize>(
    s: S,
    red: crate::field::Reduction,
    a: &[S::V; N],
    b: &[S::V; N],
    m: &crate::field::Moduli<S, N>,
) -> [S::V; N] {
    use crate::field::{amm_curve_ifma, Reduction};
    // SAFETY: an `S` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe {
        match red {
            Reduction::Generic => amm_curve_ifma::<S, N, 0>(s, a, b, m),
            Reduction::P256 => amm_curve_ifma::<S, N, 1>(s, a, b, m),
            Reduction::P521 => amm_curve_ifma::<S, N, 2>(s, a, b, m),
        }
    }
}

/// [`crate::field::ams_curve_ifma`] behind the proof, as [`amm_curve`].
#[inline(never)]
pub fn ams_curve<S: Lanes, const N: usize>(
    s: S,
    red: crate::field::Reduction,
    a: &[S::V; N],
    m: &crate::field::Moduli<S, N>,
) -> [S::V; N] {
    use crate::field::{ams_curve_ifma, Reduction};
    // SAFETY: an `S` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe {
        match red {
            Reduction::Generic => ams_curve_ifma::<S, N, 0>(s, a, m),
            Reduction::P256 => ams_curve_ifma::<S, N, 1>(s, a, m),
            Reduction::P521 => ams_curve_ifma::<S, N, 2>(s, a, m),
        }
    }
}

/// [`crate::field::ams_ifma`] behind the proof, out of line like [`amm`].
#[inline(never)]
pub fn ams<S: Lanes, const N: usize>(
    s: S,
    a: &[S::V; N],
    m: &crate::field::Moduli<S, N>,
) -> [S::V; N] {
    // SAFETY: an `S` exists only after `detect` saw AVX-512F, IFMA and VL on this CPU.
    unsafe { crate::field::ams_ifma::<S, N>(s, a, m) }
}

/// Seconds for `reps` rounds of `squares` chained squarings and `products` products on one register
/// group of width `n` in `shape` (squarings as the exponentiation runs them,
/// `modexp::square`). Inputs are arbitrary normalised digits: the kernels are constant-time.
/// Used by `modexp::measured_shape` and `examples/ifmabench.rs`.
pub fn chain_seconds(
    t: Ifma,
    shape: crate::modexp::Shape,
    n: usize,
    reps: usize,
    (squares, products): (usize, usize),
) -> f64 {
    fn run<S: Lanes, const N: usize>(s: S, sqr: bool, reps: usize, ops: (usize, usize)) -> f64 {
        let digits: Vec<u64> = (0..N as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 12) | 1)
            .collect();
        let lanes = vec![digits.as_slice(); S::LANES];
        let x = crate::field::load::<S, N>(s, &lanes);
        let md = crate::field::Moduli::<S, N> {
            m: x,
            k0: s.splat(0x3_0000_0001),
        };
        let y = core::hint::black_box(x);
        let mut x = x;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            for _ in 0..ops.0 {
                x = crate::modexp::square(s, sqr, &x, &md);
            }
            for _ in 0..ops.1 {
                x = amm(s, &x, &y, &md);
            }
        }
        let el = t.elapsed().as_secs_f64();
        core::hint::black_box(x);
        el
    }
    let sqr = shape.squares();
    crate::modexp::by_width!(n, N => match shape {
        crate::modexp::Shape::Four => run::<Y4, N>(t.y4(), sqr, reps, (squares, products)),
        _ => run::<Z8, N>(t.z8(), sqr, reps, (squares, products)),
    })
}
