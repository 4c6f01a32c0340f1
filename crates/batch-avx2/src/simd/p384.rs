//! P-384's base field on `mulx`/`adcx`/`adox`: [`P384Adx`], the arithmetic batch-scalar's point
//! code runs on where the CPU has BMI2 and ADX (`batch_scalar::ecc::CurveSpec`), as
//! [`super::p256`] is for P-256.
//!
//! Same representation as the portable field (`batch_core::curve::P384.p`): six 64-bit
//! limbs, Montgomery form with `R = 2^384`, fully reduced (`< p`) on entry and exit, so the
//! comb tables, the point formulas and every result are shared with the portable code, and
//! the tests hold each operation to it.
//!
//! The product is CIOS: six rows, each adding `a·bᵢ` on two carry chains (low words on CF
//! with `adcx`, high words on OF with `adox`), which portable Rust cannot express, then
//! clearing the lowest word by the prime's shape rather than by six more products. The
//! quotient digit needs no multiplication: `−p⁻¹ ≡ 2^32 + 1 (mod 2^64)` (`p₀ = 2^32 − 1`),
//! so `u = s₀ + (s₀ << 32)`; and `u·p = u·2^384 − u·c` with `c = 2^384 − p` three words long
//! (`2^128 + 2^96 − 2^32 + 1`), so two `mulx` and a subtraction chain take the place of six
//! `mulx` on two chains. Measured (`avx2bench`, Zen 4): 39 → 32 ns a product one after
//! another, 36 → 28 ns interleaved, verification 1.19× and `k·Q` 1.18× faster than CIOS with
//! the full `u·p` rows (2026-12-06). Each row ends in a single carry into the new top word
//! (the sixth product of `a·bᵢ` on CF alone, after OF has gone into the top): in a loop of
//! such rows on Zen 4, each instruction closing the chains cost about three cycles a row.
//! `c` and the prime are read from statics RIP-relative, which leaves the thirteen allocatable
//! registers to the eight accumulator words, the two operand pointers and `mulx`'s three.
//! Bounds (operands `< p`): before a row the accumulator is `< 2p < 2^385` (seven words, the
//! top one at most 1); adding `a·bᵢ < 2^448` and `u·p < 2^448` keeps it below `2^450` (eight
//! words), and the shifted result is `< 2p` again. One conditional subtraction of `p` (by
//! `cmov`) ends it. The square is the product with `b = a` (a dedicated square, 57 `mulx`,
//! measured 1–4 % slower with the earlier rows).
//!
//! Constant-time: straight-line code, no branch, every address fixed; the final selection is
//! `cmovc` on the borrow. Addition, subtraction and halving are the portable field's.

use std::arch::asm;

use batch_core::curve::{CurveArith, CurveDef, P384};
use batch_core::num::Uint;

use super::Adx;

/// P-384's prime, read by the assembly (`2^384 − 2^128 − 2^96 + 2^32 − 1`).
static P384_P: [u64; 6] = [
    0x0000_0000_ffff_ffff,
    0xffff_ffff_0000_0000,
    0xffff_ffff_ffff_fffe,
    u64::MAX,
    u64::MAX,
    u64::MAX,
];

/// P-384's field on `mulx`/`adcx`/`adox`; exists only with the [`Adx`] proof. Its comb
/// lookups scan on AVX2 where the CPU has it (`avx2`).
#[derive(Clone, Copy, Debug)]
pub struct P384Adx {
    pub(crate) _adx: Adx,
    pub(crate) avx2: Option<super::Avx2>,
}

impl CurveArith<6> for P384Adx {
    #[inline(always)]
    fn def(&self) -> &CurveDef<6> {
        &P384
    }

    #[inline(always)]
    fn mul(&self, a: &Uint<6>, b: &Uint<6>) -> Uint<6> {
        Uint(mul(&a.0, &b.0))
    }

    #[inline(always)]
    fn square(&self, a: &Uint<6>) -> Uint<6> {
        Uint(mul(&a.0, &a.0))
    }

    #[inline(always)]
    fn add(&self, a: &Uint<6>, b: &Uint<6>) -> Uint<6> {
        P384.p.add(a, b)
    }

    #[inline(always)]
    fn sub(&self, a: &Uint<6>, b: &Uint<6>) -> Uint<6> {
        P384.p.sub(a, b)
    }

    /// On AVX2 where present ([`super::select_entry`]), else the portable scan.
    #[inline(always)]
    fn select_entry<const C: usize>(&self, table: &[[Uint<6>; C]], mag: u64) -> [Uint<6>; C] {
        super::select_entry(self.avx2, table, mag)
    }
}

/// `2^384 − p = 2^128 + 2^96 − 2^32 + 1` below word 2 (whose word is 1): the two constants
/// the reduction multiplies its quotient digit by.
static P384_C: [u64; 2] = [0xffff_ffff_0000_0001, 0x0000_0000_ffff_ffff];

/// One row: `a·bᵢ` (`bᵢ` at byte offset `$b` of `b`) added into the accumulator words
/// `s0..s6`, with `t` the new top word: five products on the two chains, the sixth's halves
/// on CF alone after OF has gone into `s6`, so the row ends in one carry into `t`. Then the
/// reduction by the prime's shape, which clears `s0`: with `u = s0·(2^32 + 1) mod 2^64`,
/// `u·p = u·2^384 − u·c` for `c = 2^384 − p = [0xffffffff00000001, 0xffffffff, 1]`, and
/// `u·c`'s low word equals `s0`, so only its words 1 … 3 (two `mulx` and `u` itself) are
/// subtracted from `s1 … s3` (the borrow running to `s5`), and `u`, less that borrow, is
/// added at `s6`, the carry into `t`. The next row's accumulator is `s1..s6, t`, and `s0`
/// its new top.
#[rustfmt::skip]
macro_rules! row {
    ($b:literal, $s0:literal, $s1:literal, $s2:literal, $s3:literal, $s4:literal, $s5:literal,
     $s6:literal, $t:literal) => {
        concat!(
            "mov rdx, [{b} + ", $b, "]\n",
            "xor {", $t, ":e}, {", $t, ":e}\n",
            "mulx {hi}, {lo}, [{a}]\n",
            "adcx {", $s0, "}, {lo}\n",
            "adox {", $s1, "}, {hi}\n",
            "mulx {hi}, {lo}, [{a} + 8]\n",
            "adcx {", $s1, "}, {lo}\n",
            "adox {", $s2, "}, {hi}\n",
            "mulx {hi}, {lo}, [{a} + 16]\n",
            "adcx {", $s2, "}, {lo}\n",
            "adox {", $s3, "}, {hi}\n",
            "mulx {hi}, {lo}, [{a} + 24]\n",
            "adcx {", $s3, "}, {lo}\n",
            "adox {", $s4, "}, {hi}\n",
            "mulx {hi}, {lo}, [{a} + 32]\n",
            "adcx {", $s4, "}, {lo}\n",
            "adox {", $s5, "}, {hi}\n",
            "adox {", $s6, "}, {", $t, "}\n",
            "mulx {hi}, {lo}, [{a} + 40]\n",
            "adc {", $s5, "}, {lo}\n",
            "adc {", $s6, "}, {hi}\n",
            "adc {", $t, "}, {", $t, "}\n",
            // u = s0·(2^32 + 1) mod 2^64
            "mov rdx, {", $s0, "}\n",
            "shl rdx, 32\n",
            "add rdx, {", $s0, "}\n",
            // u·c's words 1 … 3 into hi, s0, lo (its word 0 is s0, dropped)
            "mulx {hi}, {lo}, [rip + {c}]\n",
            "mulx {", $s0, "}, {lo}, [rip + {c} + 8]\n",
            "add {hi}, {lo}\n",
            "adc {", $s0, "}, rdx\n",
            "mov {lo:e}, 0\n",
            "adc {lo}, 0\n",
            "sub {", $s1, "}, {hi}\n",
            "sbb {", $s2, "}, {", $s0, "}\n",
            "sbb {", $s3, "}, {lo}\n",
            "sbb {", $s4, "}, 0\n",
            "sbb {", $s5, "}, 0\n",
            "sbb rdx, 0\n",
            "add {", $s6, "}, rdx\n",
            "adc {", $t, "}, 0\n",
        )
    };
}

/// `a·b·2^−384 mod p` for `a, b < p`.
#[inline(always)]
fn mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
    // SAFETY: reads a[0..6], b[0..6] (fixed-size arrays) and the static `P384_P`, nothing
    // else; no stack use. BMI2 and ADX are present: `P384Adx` holds the `Adx` proof.
    unsafe {
        asm!(
            "xor {wA:e}, {wA:e}",
            "xor {wB:e}, {wB:e}",
            "xor {wC:e}, {wC:e}",
            "xor {wD:e}, {wD:e}",
            "xor {wE:e}, {wE:e}",
            "xor {wF:e}, {wF:e}",
            "xor {wG:e}, {wG:e}",
            row!("0", "wA", "wB", "wC", "wD", "wE", "wF", "wG", "wH"),
            row!("8", "wB", "wC", "wD", "wE", "wF", "wG", "wH", "wA"),
            row!("16", "wC", "wD", "wE", "wF", "wG", "wH", "wA", "wB"),
            row!("24", "wD", "wE", "wF", "wG", "wH", "wA", "wB", "wC"),
            row!("32", "wE", "wF", "wG", "wH", "wA", "wB", "wC", "wD"),
            row!("40", "wF", "wG", "wH", "wA", "wB", "wC", "wD", "wE"),
            // (G, H, A, B, C, D; top E) < 2p: subtract p into (F, lo, hi, rdx, a, b), keep
            // the accumulator where the subtraction borrowed
            "mov {wF}, {wG}",
            "sub {wF}, [rip + {p}]",
            "mov {lo}, {wH}",
            "sbb {lo}, [rip + {p} + 8]",
            "mov {hi}, {wA}",
            "sbb {hi}, [rip + {p} + 16]",
            "mov rdx, {wB}",
            "sbb rdx, [rip + {p} + 24]",
            "mov {a}, {wC}",
            "sbb {a}, [rip + {p} + 32]",
            "mov {b}, {wD}",
            "sbb {b}, [rip + {p} + 40]",
            "sbb {wE}, 0",
            "cmovc {wF}, {wG}",
            "cmovc {lo}, {wH}",
            "cmovc {hi}, {wA}",
            "cmovc rdx, {wB}",
            "cmovc {a}, {wC}",
            "cmovc {b}, {wD}",
            p = sym P384_P,
            c = sym P384_C,
            a = inout(reg) a.as_ptr() => r4,
            b = inout(reg) b.as_ptr() => r5,
            wA = out(reg) _,
            wB = out(reg) _,
            wC = out(reg) _,
            wD = out(reg) _,
            wE = out(reg) _,
            wF = out(reg) r0,
            wG = out(reg) _,
            wH = out(reg) _,
            lo = out(reg) r1,
            hi = out(reg) r2,
            out("rdx") r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3, r4, r5]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation equals the portable field's (`batch_core::curve::P384.p`, generic
    /// CIOS): the shared edges, and `2^383`, words of all ones below `p`, a low word at `p₀`.
    #[test]
    fn p384_adx_matches_portable_field() {
        let Some(adx) = crate::simd::adx_or_skip("p384_adx_matches_portable_field") else {
            return;
        };
        assert_eq!(P384.p.modulus().0, P384_P, "P384_P is batch-core's prime");
        let edges = [
            Uint([0, 0, 0, 0, 0, 1 << 63]),
            Uint([u64::MAX, 0, u64::MAX - 1, u64::MAX, u64::MAX, u64::MAX]),
            Uint([u64::MAX, u64::MAX, 0, u64::MAX, 0, u64::MAX]),
            Uint([0xffff_ffff, 0, 0, 0, 0, 0]),
        ];
        crate::simd::check_field_against_portable(&adx.p384(), &P384, &edges, 384);
    }
}
