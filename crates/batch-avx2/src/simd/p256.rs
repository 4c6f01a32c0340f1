//! P-256's base field on `mulx`/`adcx`/`adox`: [`P256Adx`], the arithmetic batch-scalar's point
//! code runs on where the CPU has BMI2 and ADX (`batch_scalar::ecc::CurveSpec`).
//!
//! Same representation as the portable field (`batch_core::curve::P256.p`): four 64-bit
//! limbs, Montgomery form with `R = 2^256`, fully reduced (`< p`) on entry and exit, so the
//! comb tables, the point formulas and every result are shared with the portable code, and
//! the tests hold each operation to it.
//!
//! The product is CIOS with the reduction by the prime's shape (`p = 2^256 − 2^224 + 2^192 +
//! 2^96 − 1`, as batch-core's `redc_p256`): `−p⁻¹ ≡ 1 (mod 2^64)`, so a row's quotient digit
//! `u` is its lowest word, and adding `u·p` clears that word and adds `u·2^32` across the next
//! two words plus `u·p₃` above them — one `mulx` per row where generic CIOS has four. Each
//! row's `a·bᵢ` runs on two carry chains (low words on CF with `adcx`, high words on OF with
//! `adox`), which portable Rust cannot express. Bounds (operands `< p`): before a row the
//! accumulator is `< 2p < 2^257`; adding `a·bᵢ ≤ (p − 1)(2^64 − 1)` keeps it below `2^320`
//! (five words: the OF chain's carry out of the fifth word is zero), adding `u·p` below `2^321`
//! (a sixth word of one bit), and the shifted result is `< 2p` again. One conditional
//! subtraction of `p` (by `cmov`) ends it.
//!
//! Constant-time: straight-line code, no branch, every address fixed; the final selection is
//! `cmovc` on the borrow.

use std::arch::asm;

use batch_core::curve::{CurveArith, CurveDef, P256};
use batch_core::num::Uint;

use super::Adx;

/// `p₃`, the top limb of P-256's prime (`p₀ = 2^64 − 1`, `p₁ = 2^32 − 1`, `p₂ = 0`).
const P3: u64 = 0xffff_ffff_0000_0001;

/// P-256's field on `mulx`/`adcx`/`adox`; exists only with the [`Adx`] proof. Its comb
/// lookups scan on AVX2 where the CPU has it (`avx2`).
#[derive(Clone, Copy, Debug)]
pub struct P256Adx {
    pub(crate) _adx: Adx,
    pub(crate) avx2: Option<super::Avx2>,
}

impl CurveArith<4> for P256Adx {
    /// Chained on Zen 4: 114 ns a doubling against 121 (docs/PERF.md).
    const DOUBLE_CRITICAL_FIRST: bool = true;

    #[inline(always)]
    fn def(&self) -> &CurveDef<4> {
        &P256
    }

    #[inline(always)]
    fn mul(&self, a: &Uint<4>, b: &Uint<4>) -> Uint<4> {
        Uint(mul(&a.0, &b.0))
    }

    #[inline(always)]
    fn square(&self, a: &Uint<4>) -> Uint<4> {
        Uint(square(&a.0))
    }

    #[inline(always)]
    fn add(&self, a: &Uint<4>, b: &Uint<4>) -> Uint<4> {
        Uint(add(&a.0, &b.0))
    }

    #[inline(always)]
    fn sub(&self, a: &Uint<4>, b: &Uint<4>) -> Uint<4> {
        Uint(sub(&a.0, &b.0))
    }

    #[inline(always)]
    fn half(&self, a: &Uint<4>) -> Uint<4> {
        Uint(half(&a.0))
    }

    /// On AVX2 where present ([`super::select_entry`]: an entry in two 256-bit loads; the
    /// comb reads 64 entries a window), else the portable scan.
    #[inline(always)]
    fn select_entry<const C: usize>(&self, table: &[[Uint<4>; C]], mag: u64) -> [Uint<4>; C] {
        super::select_entry(self.avx2, table, mag)
    }
}

/// One row of `a·bᵢ` into the five accumulator words `s0..s4` (two carry chains), then its
/// reduction by `u = s0` with `t` as the new top word; the next row's accumulator is
/// `s1, s2, s3, s4, t`. The caller has put `bᵢ` in `rdx` and cleared CF and OF.
#[rustfmt::skip]
macro_rules! row {
    ($s0:literal, $s1:literal, $s2:literal, $s3:literal, $s4:literal, $t:literal) => {
        concat!(
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
            "adc {", $s4, "}, 0\n",
            reduce!($s0, $s1, $s2, $s3, $s4, $t),
        )
    };
}

/// Adds `u·p` for `u = s0` (clearing `s0`'s word): `u·2^32` on `s1, s2`, `u·p₃` on `s3, s4`,
/// the carry into the new top word `t`. Leaves `s0` as `u >> 32` (discarded afterwards).
#[rustfmt::skip]
macro_rules! reduce {
    ($s0:literal, $s1:literal, $s2:literal, $s3:literal, $s4:literal, $t:literal) => {
        concat!(
            "mov rdx, {", $s0, "}\n",
            "mulx {hi}, {lo}, {p3}\n",
            "xor {", $t, ":e}, {", $t, ":e}\n",
            "shl rdx, 32\n",
            "shr {", $s0, "}, 32\n",
            "add {", $s1, "}, rdx\n",
            "adc {", $s2, "}, {", $s0, "}\n",
            "adc {", $s3, "}, {lo}\n",
            "adc {", $s4, "}, {hi}\n",
            "adc {", $t, "}, 0\n",
        )
    };
}

/// `(r0, r1, r2, r3, top) < 2p` reduced below `p`: `d = r − p` into `d0..d3` (`p1` a scratch
/// register for `p₁ = 2^32 − 1`, `p1e` its 32-bit name), then `r` kept by `cmovc` where the
/// subtraction borrowed. Operands are whole asm operand strings (`"{x}"`, `"rdx"`).
#[rustfmt::skip]
macro_rules! sub_p {
    ($r0:literal, $r1:literal, $r2:literal, $r3:literal, $top:literal,
     $d0:literal, $d1:literal, $d2:literal, $d3:literal, $p1:literal, $p1e:literal) => {
        concat!(
            "mov ", $d0, ", ", $r0, "\n",
            "mov ", $d1, ", ", $r1, "\n",
            "mov ", $d2, ", ", $r2, "\n",
            "mov ", $d3, ", ", $r3, "\n",
            "mov ", $p1e, ", 0xffffffff\n",
            "sub ", $d0, ", -1\n",
            "sbb ", $d1, ", ", $p1, "\n",
            "sbb ", $d2, ", 0\n",
            "sbb ", $d3, ", {p3}\n",
            "sbb ", $top, ", 0\n",
            "cmovc ", $d0, ", ", $r0, "\n",
            "cmovc ", $d1, ", ", $r1, "\n",
            "cmovc ", $d2, ", ", $r2, "\n",
            "cmovc ", $d3, ", ", $r3, "\n",
        )
    };
}

/// `a·b·2^−256 mod p` for `a, b < p`.
#[inline(always)]
fn mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: reads a[0..4] and b[0..4] (fixed-size arrays) and nothing else; no stack use.
    // BMI2 and ADX are present: `P256Adx` holds the `Adx` proof.
    unsafe {
        asm!(
            // row 0: (A, B, C, D, E) = a·b₀
            "mov rdx, [{b}]",
            "mulx {sB}, {sA}, [{a}]",
            "mulx {sC}, {lo}, [{a} + 8]",
            "add {sB}, {lo}",
            "mulx {sD}, {hi}, [{a} + 16]",
            "adc {sC}, {hi}",
            "mulx {sE}, {lo}, [{a} + 24]",
            "adc {sD}, {lo}",
            "adc {sE}, 0",
            reduce!("sA", "sB", "sC", "sD", "sE", "sF"),
            "mov rdx, [{b} + 8]",
            "xor {lo:e}, {lo:e}",
            row!("sB", "sC", "sD", "sE", "sF", "sA"),
            "mov rdx, [{b} + 16]",
            "xor {lo:e}, {lo:e}",
            row!("sC", "sD", "sE", "sF", "sA", "sB"),
            "mov rdx, [{b} + 24]",
            "xor {lo:e}, {lo:e}",
            row!("sD", "sE", "sF", "sA", "sB", "sC"),
            // (E, F, A, B, C) < 2p: subtract p, keep the difference unless it borrowed
            sub_p!("{sE}", "{sF}", "{sA}", "{sB}", "{sC}", "{sD}", "{lo}", "{hi}", "rdx", "{b}", "{b:e}"),
            a = in(reg) a.as_ptr(),
            b = inout(reg) b.as_ptr() => _,
            p3 = in(reg) P3,
            sA = out(reg) _,
            sB = out(reg) _,
            sC = out(reg) _,
            sD = out(reg) r0,
            sE = out(reg) _,
            sF = out(reg) _,
            lo = out(reg) r1,
            hi = out(reg) r2,
            out("rdx") r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// One step of the low half's reduction: adds `u·p` for `u = s0` to the window
/// `s0, s1, s2, s3` (clearing `s0`'s word), the word above it coming out in `x` (`u·p₃`'s high
/// word plus the carry: the window's value stays below `p + 2^192 < 2^256`, so nothing
/// carries out of `x`). `s0` is free afterwards.
#[rustfmt::skip]
macro_rules! reduce_low {
    ($s0:literal, $s1:literal, $s2:literal, $s3:literal, $x:literal) => {
        concat!(
            "mov rdx, {", $s0, "}\n",
            "mulx {", $x, "}, {lo}, {p3}\n",
            "shl rdx, 32\n",
            "shr {", $s0, "}, 32\n",
            "add {", $s1, "}, rdx\n",
            "adc {", $s2, "}, {", $s0, "}\n",
            "adc {", $s3, "}, {lo}\n",
            "adc {", $x, "}, 0\n",
        )
    };
}

/// `a²·2^−256 mod p` for `a < p`: the six products `aᵢ·aⱼ` (`i < j`) once, doubled, plus
/// the four squares (ten `mulx` where the product has sixteen), then the low half `L`
/// reduced alone, `(L + m·p)/2^256 ≤ p`, plus the high half `H < p`: below `2p`, one
/// conditional subtraction.
#[inline(always)]
fn square(a: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: reads a[0..4] and nothing else; no stack use. BMI2 and ADX are present:
    // `P256Adx` holds the `Adx` proof.
    unsafe {
        asm!(
            // the triangle: w1..w6 = Σ_{i<j} aᵢ·aⱼ·2^(64(i+j))
            "mov rdx, [{a}]",
            "mulx {w2}, {w1}, [{a} + 8]",
            "mulx {w3}, {lo}, [{a} + 16]",
            "add {w2}, {lo}",
            "mulx {w4}, {lo}, [{a} + 24]",
            "adc {w3}, {lo}",
            "adc {w4}, 0",
            "mov rdx, [{a} + 8]",
            "mulx {hi}, {lo}, [{a} + 16]",
            "mulx {w5}, {w6}, [{a} + 24]",
            "add {w3}, {lo}",
            "adc {w4}, {hi}",
            "adc {w5}, 0",
            "add {w4}, {w6}",
            "adc {w5}, 0",
            "mov rdx, [{a} + 16]",
            "mulx {w6}, {lo}, [{a} + 24]",
            "add {w5}, {lo}",
            "adc {w6}, 0",
            // doubled into w1..w7
            "xor {w7:e}, {w7:e}",
            "add {w1}, {w1}",
            "adc {w2}, {w2}",
            "adc {w3}, {w3}",
            "adc {w4}, {w4}",
            "adc {w5}, {w5}",
            "adc {w6}, {w6}",
            "adc {w7}, 0",
            // plus aᵢ² at words 2i, 2i+1 (one carry chain: mov and mulx leave the flags)
            "mov rdx, [{a}]",
            "mulx {hi}, {w0}, rdx",
            "add {w1}, {hi}",
            "mov rdx, [{a} + 8]",
            "mulx {hi}, {lo}, rdx",
            "adc {w2}, {lo}",
            "adc {w3}, {hi}",
            "mov rdx, [{a} + 16]",
            "mulx {hi}, {lo}, rdx",
            "adc {w4}, {lo}",
            "adc {w5}, {hi}",
            "mov rdx, [{a} + 24]",
            "mulx {hi}, {lo}, rdx",
            "adc {w6}, {lo}",
            "adc {w7}, {hi}",
            // the low half reduced: (hi, w0, w1, w2) = (L + m·p)/2^256
            reduce_low!("w0", "w1", "w2", "w3", "hi"),
            reduce_low!("w1", "w2", "w3", "hi", "w0"),
            reduce_low!("w2", "w3", "hi", "w0", "w1"),
            reduce_low!("w3", "hi", "w0", "w1", "w2"),
            // plus the high half, carry in w3
            "xor {w3:e}, {w3:e}",
            "add {hi}, {w4}",
            "adc {w0}, {w5}",
            "adc {w1}, {w6}",
            "adc {w2}, {w7}",
            "adc {w3}, 0",
            // (hi, w0, w1, w2, w3) < 2p: subtract p, keep the difference unless it borrowed
            sub_p!("{hi}", "{w0}", "{w1}", "{w2}", "{w3}", "{w4}", "{w5}", "{w6}", "{w7}", "{lo}", "{lo:e}"),
            a = in(reg) a.as_ptr(),
            p3 = in(reg) P3,
            w0 = out(reg) _,
            w1 = out(reg) _,
            w2 = out(reg) _,
            w3 = out(reg) _,
            w4 = out(reg) r0,
            w5 = out(reg) r1,
            w6 = out(reg) r2,
            w7 = out(reg) r3,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a + b mod p` for `a, b < p`.
#[inline(always)]
fn add(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: reads a[0..4] and b[0..4] and nothing else; no stack use.
    unsafe {
        asm!(
            "mov {s0}, [{a}]",
            "mov {s1}, [{a} + 8]",
            "mov {s2}, [{a} + 16]",
            "mov {s3}, [{a} + 24]",
            "xor {t:e}, {t:e}",
            "add {s0}, [{b}]",
            "adc {s1}, [{b} + 8]",
            "adc {s2}, [{b} + 16]",
            "adc {s3}, [{b} + 24]",
            "adc {t}, 0",
            sub_p!("{s0}", "{s1}", "{s2}", "{s3}", "{t}", "{d0}", "{d1}", "{d2}", "{d3}", "{a}", "{a:e}"),
            a = inout(reg) a.as_ptr() => _,
            b = in(reg) b.as_ptr(),
            p3 = in(reg) P3,
            s0 = out(reg) _,
            s1 = out(reg) _,
            s2 = out(reg) _,
            s3 = out(reg) _,
            t = out(reg) _,
            d0 = out(reg) r0,
            d1 = out(reg) r1,
            d2 = out(reg) r2,
            d3 = out(reg) r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a − b mod p` for `a, b < p`: the difference, plus `p` masked by the borrow.
#[inline(always)]
fn sub(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: reads a[0..4] and b[0..4] and nothing else; no stack use.
    unsafe {
        asm!(
            "mov {d0}, [{a}]",
            "mov {d1}, [{a} + 8]",
            "mov {d2}, [{a} + 16]",
            "mov {d3}, [{a} + 24]",
            "sub {d0}, [{b}]",
            "sbb {d1}, [{b} + 8]",
            "sbb {d2}, [{b} + 16]",
            "sbb {d3}, [{b} + 24]",
            // m = all-ones on a borrow: add back p & m = (m, m & (2^32 − 1), 0, p₃ & m)
            "sbb {m}, {m}",
            "mov {m1:e}, {m:e}",
            "and {m3}, {m}",
            "add {d0}, {m}",
            "adc {d1}, {m1}",
            "adc {d2}, 0",
            "adc {d3}, {m3}",
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            m = out(reg) _,
            m1 = out(reg) _,
            m3 = inout(reg) P3 => _,
            d0 = out(reg) r0,
            d1 = out(reg) r1,
            d2 = out(reg) r2,
            d3 = out(reg) r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `a/2 mod p` for `a < p`: `p` added under the low bit's mask (`p & m = (m, m & (2^32 − 1),
/// 0, p₃ & m)`), then the five-word sum shifted right by one.
#[inline(always)]
fn half(a: &[u64; 4]) -> [u64; 4] {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: reads a[0..4] and nothing else; no stack use.
    unsafe {
        asm!(
            "mov {d0}, [{a}]",
            "mov {d1}, [{a} + 8]",
            "mov {d2}, [{a} + 16]",
            "mov {d3}, [{a} + 24]",
            // m = all-ones where a is odd
            "mov {m}, {d0}",
            "and {m}, 1",
            "neg {m}",
            "mov {m1:e}, {m:e}",
            "and {m3}, {m}",
            "xor {t:e}, {t:e}",
            "add {d0}, {m}",
            "adc {d1}, {m1}",
            "adc {d2}, 0",
            "adc {d3}, {m3}",
            "adc {t}, 0",
            "shrd {d0}, {d1}, 1",
            "shrd {d1}, {d2}, 1",
            "shrd {d2}, {d3}, 1",
            "shrd {d3}, {t}, 1",
            a = in(reg) a.as_ptr(),
            m = out(reg) _,
            m1 = out(reg) _,
            m3 = inout(reg) P3 => _,
            t = out(reg) _,
            d0 = out(reg) r0,
            d1 = out(reg) r1,
            d2 = out(reg) r2,
            d3 = out(reg) r3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation equals the portable field's (`batch_core::curve::P256.p`, whose P-256
    /// reduction is itself tested against generic CIOS and num-bigint): the shared edges, and
    /// `2^255`, words of all ones, a top word one below `p₃`.
    #[test]
    fn p256_adx_matches_portable_field() {
        let Some(adx) = crate::simd::adx_or_skip("p256_adx_matches_portable_field") else {
            return;
        };
        let edges = [
            Uint([0, 0, 0, 1 << 63]),
            Uint([u64::MAX, u64::MAX, u64::MAX, P3 - 1]),
            Uint([u64::MAX, 0, u64::MAX, 0]),
            Uint([0, u64::MAX, 0, P3 - 1]),
        ];
        crate::simd::check_field_against_portable(&adx.p256(), &P256, &edges, 256);
    }
}
