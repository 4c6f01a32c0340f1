//! The only place with `unsafe`: run-time AVX2 detection and the calls into the
//! `#[target_feature(enable = "avx2")]` kernels.
//!
//! [`Avx2`] is a zero-sized proof that the CPU has AVX2: [`detect`] is its only constructor
//! and builds it after `is_x86_feature_detected!("avx2")` (cached by std) returned true.
//! Every wrapper below takes one, so safe code can only reach AVX2 instructions on a CPU that
//! has them. The kernels themselves are safe `#[target_feature]` functions (intrinsics are
//! safe to call inside them); calling one from code compiled without AVX2 is what needs the
//! proof, hence the `unsafe` blocks here.
//!
//! [`Adx`] is the same kind of proof for BMI2 and ADX, and carries the scalar tail's
//! Montgomery kernel: inline `mulx`/`adcx`/`adox` assembly (`core::arch::asm!`), whose
//! `unsafe` is about memory: each block's pointer ranges are checked by the safe function
//! that calls it. The kernel is tested against batch-core's portable one at every kernel
//! width (`tests::adx_kernel_matches_portable_at_every_width`) and through every tail of the
//! backend's modexp tests; `ct-check`'s dudect runs cover it as part of RSA signing.
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

use batch_core::num::Uint;

use crate::digits::ModulusDigits;

pub mod p256;
pub mod p384;
pub mod p521;
mod square;

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

/// Proof that this CPU has BMI2 (`mulx`) and ADX (`adcx`, `adox`): the instructions of
/// [`Adx`]'s Montgomery kernel, which the backend's scalar path (the tail of one or two jobs,
/// hence a single RSA signature or verification) runs on.
#[derive(Clone, Copy, Debug)]
pub struct Adx(());

/// `Ok` if this CPU has BMI2 and ADX (and the `force-fallback` feature is off).
///
/// Valgrind's virtual CPU runs these instructions but hides ADX from `cpuid`, so the
/// constant-time check (`scripts/ct-check.sh`, memcheck) would never reach this kernel; the
/// script sets `BATCHSIG_ASSUME_ADX=1` when the host's `/proc/cpuinfo` lists `bmi2` and
/// `adx`, and this trusts it. Set on a CPU without them, the kernel stops at its first
/// `adcx` with an illegal-instruction fault: no wrong result, no memory access out of bounds.
pub fn detect_adx() -> Result<Adx, String> {
    if cfg!(feature = "force-fallback") {
        return Err("disabled by the `force-fallback` feature".into());
    }
    let assumed = std::env::var_os("BATCHSIG_ASSUME_ADX").is_some_and(|v| v == "1");
    if assumed
        || std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("adx")
    {
        Ok(Adx(()))
    } else {
        Err("this CPU does not support BMI2 and ADX".into())
    }
}

impl Adx {
    /// P-256's field on this proof's instructions.
    pub fn p256(self) -> p256::P256Adx {
        p256::P256Adx {
            _adx: self,
            avx2: detect().ok(),
        }
    }

    /// P-384's field on this proof's instructions.
    pub fn p384(self) -> p384::P384Adx {
        p384::P384Adx {
            _adx: self,
            avx2: detect().ok(),
        }
    }

    /// P-521's field with its product on this proof's instructions.
    pub fn p521(self) -> p521::P521Adx {
        p521::P521Adx {
            _adx: self,
            avx2: detect().ok(),
        }
    }
}

/// The constant-time table lookup ([`batch_core::num::select_entry`]: the comb's `(x, y)`
/// entries, `k·Q`'s `(X, Y, Z, Z², Z³)`) on AVX2 where `avx2` is present, else the portable
/// scan: entry `mag` (from 1) of `table`, zeros for `mag = 0`.
#[inline(always)]
pub(crate) fn select_entry<const L: usize, const C: usize>(
    avx2: Option<Avx2>,
    table: &[[Uint<L>; C]],
    mag: u64,
) -> [Uint<L>; C] {
    match avx2 {
        // SAFETY: the `Avx2` proof exists only where the CPU has AVX2.
        Some(_) => unsafe { select_entry_avx2(table, mag) },
        None => batch_core::num::select_entry(table, mag),
    }
}

/// [`batch_core::num::select_entry`] on vector registers: each coordinate's limbs four to a
/// 256-bit register (then two, then one, for P-384's 6 and P-521's 9), and the masks made in
/// a register too, by comparing a running index with `mag` (the portable scan's masks came
/// from scalar arithmetic, a block of 16 hidden behind a `black_box`, and were broadcast one
/// at a time: 28 % slower a 64-entry P-256 window). The coordinates go in groups whose
/// accumulators fit in eight registers (all five of a P-256 Jacobian entry, four of P-384's,
/// two of P-521's), one pass over the table a group. Every entry is read and the same
/// instructions run for every `mag`.
#[target_feature(enable = "avx2")]
fn select_entry_avx2<const L: usize, const C: usize>(
    table: &[[Uint<L>; C]],
    mag: u64,
) -> [Uint<L>; C] {
    use std::arch::x86_64::*;
    // Up to three 4-limb registers per coordinate (P-521's 9 limbs: 4 + 4 + 1).
    const MAX4: usize = 3;
    const REGS: usize = 8;
    let (n4, two, one) = (L / 4, L % 4 >= 2, L % 2 == 1);
    assert!(n4 <= MAX4, "select_entry_avx2 covers up to 15 limbs");
    let per_coord = n4 + usize::from(two) + usize::from(one);
    let group = (REGS / per_coord).max(1);
    let target = _mm256_set1_epi64x(mag as i64);
    let step = _mm256_set1_epi64x(1);
    let mut out = [Uint::<L>::ZERO; C];
    for first in (0..C).step_by(group) {
        let coords = first..C.min(first + group);
        let mut wide = [[_mm256_setzero_si256(); MAX4]; REGS];
        let mut narrow = [[_mm_setzero_si128(); 2]; REGS]; // the 2-limb and the 1-limb tails
        let mut index = step; // entries count from 1
        for e in table {
            let m = _mm256_cmpeq_epi64(index, target);
            let m2 = _mm256_castsi256_si128(m);
            index = _mm256_add_epi64(index, step);
            for (g, c) in coords.clone().enumerate() {
                let p = e[c].0.as_ptr();
                for (k, a) in wide[g].iter_mut().enumerate().take(n4) {
                    // SAFETY: limbs 4k..4k+4 of an L-limb coordinate (k < L/4); unaligned.
                    let v = unsafe { _mm256_loadu_si256(p.add(4 * k).cast()) };
                    *a = _mm256_or_si256(*a, _mm256_and_si256(v, m));
                }
                if two {
                    // SAFETY: limbs 4·n4 and 4·n4 + 1 exist (L mod 4 ≥ 2).
                    let v = unsafe { _mm_loadu_si128(p.add(4 * n4).cast()) };
                    narrow[g][0] = _mm_or_si128(narrow[g][0], _mm_and_si128(v, m2));
                }
                if one {
                    // SAFETY: the last limb, L − 1 (8 bytes; the upper lane is zeroed).
                    let v = unsafe { _mm_loadl_epi64(p.add(L - 1).cast()) };
                    narrow[g][1] = _mm_or_si128(narrow[g][1], _mm_and_si128(v, m2));
                }
            }
        }
        for (g, c) in coords.enumerate() {
            let p = out[c].0.as_mut_ptr();
            for (k, a) in wide[g].iter().enumerate().take(n4) {
                // SAFETY: as for the loads, into the output's limbs.
                unsafe { _mm256_storeu_si256(p.add(4 * k).cast(), *a) };
            }
            if two {
                // SAFETY: as above.
                unsafe { _mm_storeu_si128(p.add(4 * n4).cast(), narrow[g][0]) };
            }
            if one {
                // SAFETY: as above (8 bytes).
                unsafe { _mm_storel_epi64(p.add(L - 1).cast(), narrow[g][1]) };
            }
        }
    }
    out
}

/// The ADX proof for a test, or `None` after printing the test's skip line where the CPU
/// lacks BMI2/ADX (a failure under `CI=true`).
#[cfg(test)]
pub(crate) fn adx_or_skip(test: &str) -> Option<Adx> {
    proof_or_skip(test, "BMI2/ADX", detect_adx())
}

/// [`adx_or_skip`] for the AVX2 proof.
#[cfg(test)]
pub(crate) fn avx2_or_skip(test: &str) -> Option<Avx2> {
    proof_or_skip(test, "AVX2", detect())
}

#[cfg(test)]
fn proof_or_skip<T>(test: &str, needs: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(k) => Some(k),
        Err(why) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(!ci, "{needs} required under CI=true: {why}");
            eprintln!("SKIPPED {test}: {why}");
            None
        }
    }
}

/// Scratch words on the stack for moduli up to this many limbs (RSA-4096 verification);
/// wider ones (7680, 15360 bits) take a heap buffer, one allocation per product of ≥ 20 µs.
const STACK_LIMBS: usize = 64;

/// The Montgomery product of `batch_core::num::MontKernel` in `mulx`/`adcx`/`adox` assembly:
/// CIOS (one row per limb of `b`), each row in two passes over the limbs, eight limbs per
/// loop iteration (four where the count is not a multiple of 8). A pass keeps two carry
/// chains in flight, which the portable kernel cannot express: the row's product `a·bᵢ` (or
/// `u·m`) is assembled from `mulx`'s low and high words on the OF chain (`adox`) while it is
/// added into the accumulator on the CF chain (`adcx`). As in OpenSSL's `mulx4x`, each
/// iteration closes the OF chain into the last high word (which cannot overflow: a high
/// product word is at most `2^64 − 2`), so the loop's `dec` (which leaves CF alone, and
/// writes OF = 0 here) and `jnz` do not disturb the chains. Measured on Zen 3, against
/// `jrcxz` (slow there: 1.7× the loop's time) and `loop` (slow on Intel) for the control,
/// and within 10 % of a fully unrolled row. The instruction sequence and every address
/// depend on the limb count only: constant-time in the operand values.
impl batch_core::num::MontKernel for Adx {
    fn mul(&self, t: &mut [u64], a: &[u64], b: &[u64], m: &[u64], m0inv: u64) -> u64 {
        let l = a.len();
        assert!(
            l >= 4 && l.is_multiple_of(4),
            "limb count {l}: a multiple of 4 is needed"
        );
        assert!(
            b.len() == l && m.len() == l && t.len() == l,
            "operand lengths differ"
        );
        // w[0] takes the discarded low word of each reduction pass, w[1..] is the
        // accumulator t[0..=L+1].
        let mut stack = [0u64; STACK_LIMBS + 3];
        let mut heap = Vec::new();
        let w: &mut [u64] = if l <= STACK_LIMBS {
            &mut stack[..l + 3]
        } else {
            heap.resize(l + 3, 0);
            &mut heap
        };
        let wp = w[1..].as_mut_ptr();
        for &bi in b {
            // SAFETY: the asm reads a[0..l] and m[0..l] and reads and writes w[0..l+3]
            // (through wp = &w[1], offsets −1..=l+1 limbs): in bounds of the slices above,
            // whose lengths were checked. It uses no stack and restores nothing it does not
            // declare as clobbered.
            unsafe {
                if l.is_multiple_of(8) {
                    row8(wp, a.as_ptr(), m.as_ptr(), l / 8, bi, m0inv)
                } else {
                    row4(wp, a.as_ptr(), m.as_ptr(), l / 4, bi, m0inv)
                }
            }
        }
        t.copy_from_slice(&w[1..=l]);
        w[1 + l]
    }

    /// A dedicated square (measured faster than [`Self::mul`] with `b = a` from 16 limbs:
    /// `examples/adxbench.rs`, docs/PERF.md): the off-diagonal triangle `Σ_{i<j} a_i·a_j` row
    /// by row, doubled with the diagonal added, then `L` Montgomery reduction rows (each
    /// unrolled, in a loop: `simd/square.rs`): about `1.5·L²` `mulx` against the product's
    /// `2·L²`. At 16, 24 and 32 limbs the triangle and the doubling are one unrolled block.
    /// From 48: triangle row `i` runs over a copy of `a` whose limbs `0..=i` are zeroed, from
    /// limb `s = 4⌊(i+1)/4⌋`, so every row's length is a multiple of 4 (at most 3 products by
    /// zero per row; lengths and offsets are public), and batch-core's portable
    /// `double_plus_squares` doubles it. Below 16 limbs and at widths without reduction rows
    /// (none of batch-core's `KERNEL_LIMBS`), the product.
    fn square(&self, t: &mut [u64], a: &[u64], m: &[u64], m0inv: u64) -> u64 {
        let l = a.len();
        assert!(m.len() == l && t.len() == l, "operand lengths differ");
        if !square::REDC_LIMBS.contains(&l) {
            // below 16 limbs the product measured faster (and no caller uses the kernel there)
            return self.mul(t, a, a, m, m0inv);
        }
        // the unrolled blocks, on a buffer of the width's size (zeroing costs)
        let unrolled = match l {
            16 => square_unrolled::<32>(t, a, m, m0inv),
            24 => square_unrolled::<48>(t, a, m, m0inv),
            32 => square_unrolled::<64>(t, a, m, m0inv),
            _ => None,
        };
        if let Some(top) = unrolled {
            return top;
        }
        assert!(
            l >= 4 && l.is_multiple_of(4),
            "limb count {l}: a multiple of 4 is needed"
        );
        let (mut w_stack, mut az_stack) = ([0u64; 2 * STACK_LIMBS], [0u64; STACK_LIMBS]);
        let (mut w_heap, mut az_heap) = (Vec::new(), Vec::new());
        let (w, az): (&mut [u64], &mut [u64]) = if l <= STACK_LIMBS {
            (&mut w_stack[..2 * l], &mut az_stack[..l])
        } else {
            w_heap.resize(2 * l, 0);
            az_heap.resize(l, 0);
            (&mut w_heap, &mut az_heap)
        };
        az.copy_from_slice(a);
        for i in 0..l - 1 {
            az[i] = 0;
            let s = (i + 1) / 4 * 4;
            let n = l - s; // ≥ 4: s ≤ i + 1 ≤ l − 1
                           // SAFETY: reads az[s..l], reads and writes w[i+s..=i+l] (i + l ≤ 2l − 2): in
                           // bounds; no stack, clobbers declared.
            unsafe {
                let (wp, ap) = (w.as_mut_ptr().add(i + s), az.as_ptr().add(s));
                if n.is_multiple_of(8) {
                    tri_row8(wp, ap, n / 8, a[i])
                } else {
                    tri_row4(wp, ap, n / 4, a[i])
                }
            }
        }
        batch_core::num::monty::double_plus_squares(w, a);
        let top = square::redc_wide(w, m, m0inv).expect("a width of REDC_LIMBS");
        t.copy_from_slice(&w[l..]);
        top
    }

    /// Measured (`examples/adxbench.rs`, Zen 3): 0.5× the portable kernel at 4 limbs, 0.9×
    /// at 8, 1.25× at 16, 1.5–2× from 24 on.
    fn min_limbs(&self) -> usize {
        16
    }
}

/// The square of [`batch_core::num::MontKernel::square`] by `simd/square.rs`'s unrolled
/// triangle block and its reduction rows, on a buffer of `W = 2·a.len()` words; `None` where
/// the width has no unrolled block.
fn square_unrolled<const W: usize>(t: &mut [u64], a: &[u64], m: &[u64], m0inv: u64) -> Option<u64> {
    let mut w = [0u64; W];
    if !square::square_wide(&mut w, a) {
        return None;
    }
    let top = square::redc_wide(&mut w, m, m0inv)?;
    t.copy_from_slice(&w[a.len()..]);
    Some(top)
}

/// Pass 1 on one limb at byte offset `$off`: `t[j] += lo(a[j]·bi) + hi(a[j−1]·bi)`, the sum
/// of the two product words on the OF chain, the addition into `t` on the CF chain. `$hn`
/// receives this limb's high word, `$hp` holds the previous one.
macro_rules! p1 {
    ($hn:literal, $hp:literal, $off:literal) => {
        concat!(
            "mulx {",
            $hn,
            "}, {lo}, qword ptr [{a} + ",
            $off,
            "]\n",
            "adox {lo}, {",
            $hp,
            "}\n",
            "adcx {lo}, qword ptr [{tp} + ",
            $off,
            "]\n",
            "mov qword ptr [{tp} + ",
            $off,
            "], {lo}\n",
        )
    };
}

/// Pass 2 on one limb: the same with `m` and `u`, the sum stored one limb down (`$st` is
/// `$off − 8`).
macro_rules! p2 {
    ($hn:literal, $hp:literal, $off:literal, $st:literal) => {
        concat!(
            "mulx {",
            $hn,
            "}, {lo}, qword ptr [{m} + ",
            $off,
            "]\n",
            "adox {lo}, {",
            $hp,
            "}\n",
            "adcx {lo}, qword ptr [{tp} + ",
            $off,
            "]\n",
            "mov qword ptr [{tp} + ",
            $st,
            "], {lo}\n",
        )
    };
}

/// One CIOS row on the accumulator `t[0..=L+1]` (with `t[−1]` writable scratch): `t += a·bi`,
/// then `t = (t + u·m) / 2^64` with `u = t[0]·m0inv mod 2^64`. `$iters` loop iterations of
/// pass 1 (`acc_loop!` over the limb steps `$p1`) and the `$p2` steps of pass 2 cover the `L`
/// limbs of `a` and `m`; `$step` is their bytes.
macro_rules! cios_row {
    ($name:ident, $step:literal, $p1:ident, [$($p2:expr),*]) => {
        #[inline(always)]
        unsafe fn $name(t: *mut u64, a: *const u64, m: *const u64, iters: usize, bi: u64, m0inv: u64) {
            // SAFETY: the caller's.
            unsafe {
                core::arch::asm!(
                    "mov {tp}, {t}",
                    "mov {n}, {iters}",
                    // pass 1: the row's top word into t[L], its carry into t[L+1]
                    acc_loop!($step, $p1),
                    "mov qword ptr [{tp}], {h0}",
                    "mov {h1}, qword ptr [{tp} + 8]",
                    "adcx {h1}, {z}",
                    "mov qword ptr [{tp} + 8], {h1}",
                    // pass 2: u = t[0]·m0inv; each sum one limb down (the first, zero by the
                    // choice of u, into t[−1])
                    "mov rdx, qword ptr [{t}]",
                    "imul rdx, {m0inv}",
                    "xor {h0:e}, {h0:e}",
                    "mov {tp}, {t}",
                    "mov {n}, {iters}",
                    "3:",
                    $($p2,)*
                    "adox {h0}, {z}",
                    concat!("lea {m}, [{m} + ", $step, "]"),
                    concat!("lea {tp}, [{tp} + ", $step, "]"),
                    "dec {n}",
                    "jnz 3b",
                    "adcx {h0}, qword ptr [{tp}]",
                    "mov qword ptr [{tp} - 8], {h0}",
                    "mov {h1}, qword ptr [{tp} + 8]",
                    "adcx {h1}, {z}",
                    "mov qword ptr [{tp}], {h1}",
                    "mov qword ptr [{tp} + 8], 0",
                    t = in(reg) t,
                    a = inout(reg) a => _,
                    m = inout(reg) m => _,
                    iters = in(reg) iters,
                    m0inv = in(reg) m0inv,
                    tp = out(reg) _,
                    n = out(reg) _,
                    z = out(reg) _,
                    lo = out(reg) _,
                    h0 = out(reg) _,
                    h1 = out(reg) _,
                    inout("rdx") bi => _,
                    options(nostack),
                );
            }
        }
    };
}

/// The eight- and four-limb steps of a pass-1 loop.
macro_rules! p1_8 {
    () => {
        concat!(
            p1!("h1", "h0", "0"),
            p1!("h0", "h1", "8"),
            p1!("h1", "h0", "16"),
            p1!("h0", "h1", "24"),
            p1!("h1", "h0", "32"),
            p1!("h0", "h1", "40"),
            p1!("h1", "h0", "48"),
            p1!("h0", "h1", "56"),
        )
    };
}

/// A row `w[0..=n] += a[0..n]·x`: pass 1 of [`cios_row`] in place, whose top word goes into
/// `w[n]`; the square's looped triangle rows (from 48 limbs, `x = aᵢ` in `rdx`), which find
/// `w[n] = 0` and cannot carry out of it.
macro_rules! acc_loop {
    ($step:literal, $steps:ident) => {
        concat!(
            "xor {z:e}, {z:e}\n",
            "xor {h0:e}, {h0:e}\n",
            "2:\n",
            $steps!(),
            "adox {h0}, {z}\n",
            "lea {a}, [{a} + ",
            $step,
            "]\n",
            "lea {tp}, [{tp} + ",
            $step,
            "]\n",
            "dec {n}\n",
            "jnz 2b\n",
            "adcx {h0}, qword ptr [{tp}]\n",
        )
    };
}

macro_rules! tri_row {
    ($name:ident, $step:literal, $steps:ident) => {
        #[inline(always)]
        unsafe fn $name(w: *mut u64, a: *const u64, iters: usize, ai: u64) {
            // SAFETY: the caller's.
            unsafe {
                core::arch::asm!(
                    acc_loop!($step, $steps),
                    "mov qword ptr [{tp}], {h0}",
                    tp = inout(reg) w => _,
                    a = inout(reg) a => _,
                    n = inout(reg) iters => _,
                    z = out(reg) _,
                    lo = out(reg) _,
                    h0 = out(reg) _,
                    h1 = out(reg) _,
                    in("rdx") ai,
                    options(nostack),
                );
            }
        }
    };
}

/// The four-limb steps of a pass-1 loop.
macro_rules! p1_4 {
    () => {
        concat!(
            p1!("h1", "h0", "0"),
            p1!("h0", "h1", "8"),
            p1!("h1", "h0", "16"),
            p1!("h0", "h1", "24"),
        )
    };
}

tri_row!(tri_row8, "64", p1_8);
tri_row!(tri_row4, "32", p1_4);

cios_row!(
    row8,
    "64",
    p1_8,
    [
        p2!("h1", "h0", "0", "-8"),
        p2!("h0", "h1", "8", "0"),
        p2!("h1", "h0", "16", "8"),
        p2!("h0", "h1", "24", "16"),
        p2!("h1", "h0", "32", "24"),
        p2!("h0", "h1", "40", "32"),
        p2!("h1", "h0", "48", "40"),
        p2!("h0", "h1", "56", "48")
    ]
);

cios_row!(
    row4,
    "32",
    p1_4,
    [
        p2!("h1", "h0", "0", "-8"),
        p2!("h0", "h1", "8", "0"),
        p2!("h1", "h0", "16", "8"),
        p2!("h0", "h1", "24", "16")
    ]
);

/// Holds a field of this crate (`f`) to the portable one (`c.p`): `mul`, `square`, `add`,
/// `sub`, `neg` and `half` on the edges every prime shares — 0, 1, 2, `p − 1`, `p − 2`,
/// `R mod p` — plus the curve's own (`edges`, each below `p`) and six random elements, on
/// every pair of them, then on 20 000 random pairs below `p` (drawn from `seed`).
#[cfg(test)]
pub(crate) fn check_field_against_portable<const L: usize>(
    f: &impl batch_core::curve::CurveArith<L>,
    c: &batch_core::curve::CurveDef<L>,
    edges: &[batch_core::num::Uint<L>],
    seed: u64,
) {
    use batch_core::curve::CurveArith;
    use batch_core::num::Uint;
    use rand::{RngExt, SeedableRng};
    let p = *c.p.modulus();
    let bits = c.curve.bits();
    let sub_small = |k: u64| p.sbb(&Uint::from_limbs(&[k]).unwrap()).0;
    let mut xs = vec![
        Uint::ZERO,
        Uint::ONE,
        Uint::from_limbs(&[2]).unwrap(),
        sub_small(1),
        sub_small(2),
        *c.p.one(),
    ];
    xs.extend_from_slice(edges);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut random = || loop {
        let mut x = Uint::<L>(core::array::from_fn(|_| rng.random()));
        if !bits.is_multiple_of(64) {
            x.0[L - 1] &= (1 << (bits % 64)) - 1;
        }
        if x.ct_lt_mask(&p) == u64::MAX {
            return x;
        }
    };
    for _ in 0..6 {
        xs.push(random());
    }
    let check = |a: &Uint<L>, b: &Uint<L>| {
        assert_eq!(f.mul(a, b), c.p.mul(a, b), "mul {a:?} {b:?}");
        assert_eq!(f.add(a, b), c.p.add(a, b), "add {a:?} {b:?}");
        assert_eq!(f.sub(a, b), c.p.sub(a, b), "sub {a:?} {b:?}");
    };
    for a in &xs {
        assert!(a.ct_lt_mask(&p) == u64::MAX, "edge below p: {a:?}");
        assert_eq!(f.square(a), c.p.square(a), "square {a:?}");
        assert_eq!(f.neg(a), c.p.neg(a), "neg {a:?}");
        assert_eq!(f.half(a), CurveArith::half(c, a), "half {a:?}");
        for b in &xs {
            check(a, b);
        }
    }
    for _ in 0..20_000 {
        let (a, b) = (random(), random());
        check(&a, &b);
        assert_eq!(f.square(&a), c.p.square(&a), "square {a:?}");
        assert_eq!(f.half(&a), CurveArith::half(c, &a), "half {a:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::num::{MontyParams, Uint};
    use rand::{Rng, RngExt, SeedableRng};

    /// `hi·R + t` reduced below `m` (it is `< 2m`), for comparing the raw kernel.
    fn reduced<const L: usize>(t: [u64; L], hi: u64, m: &Uint<L>) -> Uint<L> {
        let (d, borrow) = Uint(t).sbb(m);
        if hi == 1 || borrow == 0 {
            d
        } else {
            Uint(t)
        }
    }

    /// The kernel's products and squares (called directly, so at every width, also those
    /// below `min_limbs` where `MontyParams` keeps the portable kernel) equal the portable
    /// kernel's at width `L`, for random moduli and the edge ones (all ones,
    /// `2^(64L−1) + 1`, a small top limb) and operands 0, 1, `m − 1`, `R − 1` (the
    /// `to_monty` input range) and random values; so do exponentiations through `pow_in`.
    fn agrees<const L: usize>(k: &Adx, rng: &mut impl Rng) {
        use batch_core::num::MontKernel;
        let mut moduli = vec![Uint::<L>([u64::MAX; L])];
        let mut half = Uint::<L>([0; L]);
        half.0[0] = 1;
        half.0[L - 1] = 1 << 63;
        moduli.push(half);
        for top in [1u64, u64::MAX] {
            let mut m = Uint::<L>(core::array::from_fn(|_| rng.random()));
            m.0[0] |= 1;
            m.0[L - 1] = top;
            moduli.push(m);
        }
        for m in moduli {
            let p = MontyParams::new(m);
            let mut inv = m.0[0];
            for _ in 0..6 {
                inv = inv.wrapping_mul(2u64.wrapping_sub(m.0[0].wrapping_mul(inv)));
            }
            let m0inv = inv.wrapping_neg();
            let mul = |a: &Uint<L>, b: &Uint<L>| {
                let mut t = [0u64; L];
                let hi = k.mul(&mut t, &a.0, &b.0, &m.0, m0inv);
                reduced(t, hi, &m)
            };
            let (m1, _) = m.sbb(&Uint::ONE);
            let mut xs = vec![Uint::ZERO, Uint::ONE, m1];
            for _ in 0..4 {
                let x = Uint::<L>(core::array::from_fn(|_| rng.random()));
                xs.push(p.reduce_limbs(&x.0));
            }
            for a in &xs {
                let mut t = [0u64; L];
                let hi = k.square(&mut t, &a.0, &m.0, m0inv);
                assert_eq!(reduced(t, hi, &m), p.square(a), "{L} limbs, square");
                for b in &xs {
                    assert_eq!(mul(a, b), p.mul(a, b), "{L} limbs");
                }
                // a < R (not reduced) times b < m: what to_monty computes
                let all_ones = Uint::<L>([u64::MAX; L]);
                assert_eq!(mul(&all_ones, a), p.mul(&all_ones, a));
            }
            let e: Vec<u64> = (0..L.min(8)).map(|_| rng.random()).collect();
            let a = xs[4];
            assert_eq!(p.pow_in(Some(k), &a, &e, 5), p.pow(&a, &e, 5));
            assert_eq!(p.pow_vartime_in(Some(k), &a, &e), p.pow_vartime(&a, &e));
        }
    }

    /// The vector scan against the portable one for every `mag` (0 included) at the curves'
    /// limb counts and one that has both tails (7 = 4 + 2 + 1), for the comb's two
    /// coordinates an entry (64 entries) and `k·Q`'s five (16 entries).
    #[test]
    fn select_entry_avx2_matches_portable() {
        fn agree<const L: usize, const C: usize>(avx2: Avx2, entries: u64, rng: &mut impl Rng) {
            let table: Vec<[Uint<L>; C]> = (0..entries)
                .map(|_| core::array::from_fn(|_| Uint(rng.random())))
                .collect();
            for mag in 0..=entries + 1 {
                assert_eq!(
                    select_entry(Some(avx2), &table, mag),
                    batch_core::num::select_entry(&table, mag),
                    "L = {L}, C = {C}, mag = {mag}"
                );
            }
        }
        let Some(avx2) = avx2_or_skip("select_entry_avx2_matches_portable") else {
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        agree::<4, 2>(avx2, 64, &mut rng);
        agree::<6, 2>(avx2, 64, &mut rng);
        agree::<7, 2>(avx2, 64, &mut rng);
        agree::<9, 2>(avx2, 64, &mut rng);
        agree::<4, 5>(avx2, 16, &mut rng);
        agree::<6, 5>(avx2, 16, &mut rng);
        agree::<7, 5>(avx2, 16, &mut rng);
        agree::<9, 5>(avx2, 16, &mut rng);
    }

    #[test]
    fn adx_kernel_matches_portable_at_every_width() {
        let Some(k) = adx_or_skip("adx_kernel_matches_portable_at_every_width") else {
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        agrees::<4>(&k, &mut rng);
        agrees::<8>(&k, &mut rng);
        agrees::<16>(&k, &mut rng);
        agrees::<24>(&k, &mut rng);
        agrees::<32>(&k, &mut rng);
        agrees::<48>(&k, &mut rng);
        agrees::<60>(&k, &mut rng);
        agrees::<64>(&k, &mut rng);
        agrees::<120>(&k, &mut rng);
        agrees::<240>(&k, &mut rng);
    }

    /// `DynMonty::mul_in`, `mont_mul_in`, `to_monty_in` and `reduce_in` on this kernel (what
    /// batchsig's RSA blinding, CRT reductions and recombination run on) against the portable
    /// path, and a Montgomery product by a Montgomery form against the plain product, at RSA's
    /// widths (halves and moduli of 1024 … 4096 bits, and one not a kernel width), operands 0,
    /// 1, m − 1 and random, inputs to reduce of every length up to twice the modulus and the
    /// all-ones value.
    #[test]
    fn dyn_monty_on_adx_matches_portable() {
        use batch_core::num::DynMonty;
        let Some(k) = adx_or_skip("dyn_monty_on_adx_matches_portable") else {
            return;
        };
        let k: &dyn batch_core::num::MontKernel = &k;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for limbs in [16usize, 24, 32, 48, 64, 29] {
            let mut m: Vec<u64> = (0..limbs).map(|_| rng.random()).collect();
            m[0] |= 1;
            m[limbs - 1] |= 1 << 63;
            let d = DynMonty::new(&m).expect("odd modulus");
            let mut m1 = m.clone();
            m1[0] -= 1;
            let mut one = vec![0u64; limbs];
            one[0] = 1;
            let mut xs = vec![vec![0u64; limbs], one, m1];
            for _ in 0..3 {
                let x: Vec<u64> = (0..limbs).map(|_| rng.random()).collect();
                xs.push(d.reduce(&x));
            }
            for a in &xs {
                let am = d.to_monty_in(Some(k), a);
                assert_eq!(am, d.to_monty_in(None, a), "{limbs} limbs");
                for b in &xs {
                    let ab = d.mul(a, b);
                    assert_eq!(d.mul_in(Some(k), a, b), ab, "{limbs} limbs");
                    let mm = d.mont_mul_in(Some(k), a, b);
                    assert_eq!(mm, d.mont_mul_in(None, a, b), "{limbs} limbs");
                    // with one factor in Montgomery form, the plain product
                    assert_eq!(d.mont_mul_in(Some(k), b, &am), ab, "{limbs} limbs");
                }
            }
            for len in [0usize, 1, limbs - 1, limbs, limbs + 1, 2 * limbs] {
                let x: Vec<u64> = (0..len).map(|_| rng.random()).collect();
                assert_eq!(
                    d.reduce_in(Some(k), &x),
                    d.reduce(&x),
                    "{limbs} limbs, {len}"
                );
            }
            let ones = vec![u64::MAX; 2 * limbs];
            assert_eq!(
                d.reduce_in(Some(k), &ones),
                d.reduce(&ones),
                "{limbs} limbs"
            );
        }
    }
}
