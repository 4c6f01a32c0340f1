//! P-521's base field with its product on `mulx`/`adcx`/`adox`: [`P521Adx`], the arithmetic
//! batch-scalar's point code runs on where the CPU has BMI2 and ADX, as [`super::p256`] and
//! [`super::p384`] are for their curves.
//!
//! Same representation as the portable field (`batch_core::curve::P521.p`): nine 64-bit
//! limbs, Montgomery form with `R = 2^576`, fully reduced (`< p`) on entry and exit, so the
//! comb tables, the point formulas and every result are shared with the portable code, and
//! the tests hold each operation to it.
//!
//! Both operations form the full `a·b` (seventeen words: `a·b < 2^1042`) on two carry chains
//! (low words on CF with `adcx`, high words on OF with `adox`) and reduce it with no
//! multiplication (`p = 2^521 − 1`; batch-core's `redc_p521`: `H | (L mod 2^55)·2^466`, plus
//! `⌊L/2^55⌋` plus 1 on one carry chain, then `1 − bit 521` subtracted). The product takes the
//! low eight words of each operand first, a row per `bⱼ` over a nine-word window (a row over
//! all nine words would keep ten live, more than the registers `mulx` leaves), then the two
//! rows of the top words (below `2^9`), and reduces in registers, returning the nine words
//! (50.7 → 42.4 ns a product one after another, 47.5 → 41.3 interleaved, against the two
//! passes over `a₀…a₄` and `a₅…a₈` it replaced; `avx2bench` verification and `k·Q` moved by
//! no more than this machine's noise, 2026-12-06). The square forms each off-diagonal product
//! once (36 `mulx`, rows of a triangle whose window shrinks by a word a row), doubles the sum
//! and adds the nine squares, then takes `MontyParams::redc_wide_p521`: 45 `mulx`, measured
//! 1.3× faster than the portable square (`avx2bench`, Zen 4: `k·Q` 1.12×, verification 1.08×
//! over the portable square).
//!
//! Constant-time: straight-line code, no branch, every address fixed.

use std::arch::asm;

use batch_core::curve::{CurveArith, CurveDef, P521};
use batch_core::num::Uint;

use super::Adx;

/// P-521's field with its product on `mulx`/`adcx`/`adox`; exists only with the [`Adx`] proof.
/// Its comb lookups scan on AVX2 where the CPU has it (`avx2`).
#[derive(Clone, Copy, Debug)]
pub struct P521Adx {
    pub(crate) _adx: Adx,
    pub(crate) avx2: Option<super::Avx2>,
}

impl CurveArith<9> for P521Adx {
    #[inline(always)]
    fn def(&self) -> &CurveDef<9> {
        &P521
    }

    #[inline(always)]
    fn mul(&self, a: &Uint<9>, b: &Uint<9>) -> Uint<9> {
        Uint(mul(&a.0, &b.0))
    }

    #[inline(always)]
    fn square(&self, a: &Uint<9>) -> Uint<9> {
        P521.p.redc_wide_p521(wide_square(&a.0))
    }

    #[inline(always)]
    fn add(&self, a: &Uint<9>, b: &Uint<9>) -> Uint<9> {
        P521.p.add(a, b)
    }

    #[inline(always)]
    fn sub(&self, a: &Uint<9>, b: &Uint<9>) -> Uint<9> {
        P521.p.sub(a, b)
    }

    /// On AVX2 where present ([`super::select_entry`]), else the portable scan.
    #[inline(always)]
    fn select_entry<const C: usize>(&self, table: &[[Uint<9>; C]], mag: u64) -> [Uint<9>; C] {
        super::select_entry(self.avx2, table, mag)
    }
}

/// One product of a row: `rdx` times the word at `$src` (a memory operand), its low half
/// added into `$lo` on CF and its high half into `$hi` on OF (whole operand strings, as
/// `"{w0}"`).
#[rustfmt::skip]
macro_rules! mac2 {
    ($src:literal, $lo:literal, $hi:literal) => {
        concat!(
            "mulx {hi}, {lo}, ", $src, "\n",
            "adcx ", $lo, ", {lo}\n",
            "adox ", $hi, ", {hi}\n",
        )
    };
}

/// Word `$w` of `⌊L/2^55⌋` in place of `L`'s word at byte offset `$w`, from it and the next
/// (`$n`): `(L_w >> 55) | (L_{w+1} << 9)`.
#[rustfmt::skip]
macro_rules! lhi {
    ($w:literal, $n:literal) => {
        concat!(
            "mov {lo}, [{p} + ", $w, "]\n",
            "mov {hi}, [{p} + ", $n, "]\n",
            "shrd {lo}, {hi}, 55\n",
            "mov [{p} + ", $w, "], {lo}\n",
        )
    };
}

/// `a·b·2^−576 mod p` for `a, b < p`, whose top words are below
/// `2^9`: `A·B` for the low eight words of each, one row per `bⱼ` over a nine-word window (each
/// row's first seven products on the two chains, OF then gone into the new top word and the
/// eighth product on CF alone, so a row closes with no extra instruction; its finished lowest
/// word stored), then `a₈·(b₀…b₇)` and `b₈·(a₀…a₇)` as two more rows into words 8 … 16, and
/// `a₈·b₈ < 2^18` into word 16: 81 products, as nine rows of nine would be, but over nine
/// live words instead of ten. Nine words and `mulx`'s three registers leave one of the
/// thirteen allocatable registers for addresses, so `a`, `b` and the product share one local
/// array (`a` at word 0, `b` at 9, the product's low words at 18). No carry leaves a row:
/// `A·(b₀…bⱼ) < 2^(64·(j + 9))`, and every partial sum stays below `a·b < 2^1042` (word 17 is
/// zero). The reduction is `redc_p521`'s, the low nine words `L` read back from memory (word 8
/// still in a register) and `⌊L/2^55⌋` written over them before the carry chain, whose
/// `adc`s take them as memory operands.
#[inline(always)]
fn mul(a: &[u64; 9], b: &[u64; 9]) -> [u64; 9] {
    let mut r = [0u64; 9];
    let mut buf = [0u64; 27];
    buf[..9].copy_from_slice(a);
    buf[9..18].copy_from_slice(b);
    // SAFETY: reads buf[0..18], reads and writes buf[18..26] (a local array), nothing else;
    // no stack use. BMI2 and ADX are present: the caller holds the `Adx` proof.
    unsafe {
        asm!(
            // A·B, row 0: b₀·(a₀…a₇) into words 0 … 8, one carry chain (every word new)
            "mov rdx, [{p} + 72]",
            "mulx {w1}, {w0}, [{p}]",
            "mulx {w2}, {lo}, [{p} + 8]",
            "add {w1}, {lo}",
            "mulx {w3}, {lo}, [{p} + 16]",
            "adc {w2}, {lo}",
            "mulx {w4}, {lo}, [{p} + 24]",
            "adc {w3}, {lo}",
            "mulx {w5}, {lo}, [{p} + 32]",
            "adc {w4}, {lo}",
            "mulx {w6}, {lo}, [{p} + 40]",
            "adc {w5}, {lo}",
            "mulx {w7}, {lo}, [{p} + 48]",
            "adc {w6}, {lo}",
            "mulx {w8}, {lo}, [{p} + 56]",
            "adc {w7}, {lo}",
            "adc {w8}, 0",
            "mov [{p} + 144], {w0}",
            // row 1: b1·(a₀…a₇) into words 1 … 9
            "mov rdx, [{p} + 80]",
            "xor {w0:e}, {w0:e}",
            mac2!("[{p}]", "{w1}", "{w2}"),
            mac2!("[{p} + 8]", "{w2}", "{w3}"),
            mac2!("[{p} + 16]", "{w3}", "{w4}"),
            mac2!("[{p} + 24]", "{w4}", "{w5}"),
            mac2!("[{p} + 32]", "{w5}", "{w6}"),
            mac2!("[{p} + 40]", "{w6}", "{w7}"),
            mac2!("[{p} + 48]", "{w7}", "{w8}"),
            "adox {w0}, {w0}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w8}, {lo}",
            "adc {w0}, {hi}",
            "mov [{p} + 152], {w1}",
            // row 2: b2·(a₀…a₇) into words 2 … 10
            "mov rdx, [{p} + 88]",
            "xor {w1:e}, {w1:e}",
            mac2!("[{p}]", "{w2}", "{w3}"),
            mac2!("[{p} + 8]", "{w3}", "{w4}"),
            mac2!("[{p} + 16]", "{w4}", "{w5}"),
            mac2!("[{p} + 24]", "{w5}", "{w6}"),
            mac2!("[{p} + 32]", "{w6}", "{w7}"),
            mac2!("[{p} + 40]", "{w7}", "{w8}"),
            mac2!("[{p} + 48]", "{w8}", "{w0}"),
            "adox {w1}, {w1}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w0}, {lo}",
            "adc {w1}, {hi}",
            "mov [{p} + 160], {w2}",
            // row 3: b3·(a₀…a₇) into words 3 … 11
            "mov rdx, [{p} + 96]",
            "xor {w2:e}, {w2:e}",
            mac2!("[{p}]", "{w3}", "{w4}"),
            mac2!("[{p} + 8]", "{w4}", "{w5}"),
            mac2!("[{p} + 16]", "{w5}", "{w6}"),
            mac2!("[{p} + 24]", "{w6}", "{w7}"),
            mac2!("[{p} + 32]", "{w7}", "{w8}"),
            mac2!("[{p} + 40]", "{w8}", "{w0}"),
            mac2!("[{p} + 48]", "{w0}", "{w1}"),
            "adox {w2}, {w2}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w1}, {lo}",
            "adc {w2}, {hi}",
            "mov [{p} + 168], {w3}",
            // row 4: b4·(a₀…a₇) into words 4 … 12
            "mov rdx, [{p} + 104]",
            "xor {w3:e}, {w3:e}",
            mac2!("[{p}]", "{w4}", "{w5}"),
            mac2!("[{p} + 8]", "{w5}", "{w6}"),
            mac2!("[{p} + 16]", "{w6}", "{w7}"),
            mac2!("[{p} + 24]", "{w7}", "{w8}"),
            mac2!("[{p} + 32]", "{w8}", "{w0}"),
            mac2!("[{p} + 40]", "{w0}", "{w1}"),
            mac2!("[{p} + 48]", "{w1}", "{w2}"),
            "adox {w3}, {w3}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w2}, {lo}",
            "adc {w3}, {hi}",
            "mov [{p} + 176], {w4}",
            // row 5: b5·(a₀…a₇) into words 5 … 13
            "mov rdx, [{p} + 112]",
            "xor {w4:e}, {w4:e}",
            mac2!("[{p}]", "{w5}", "{w6}"),
            mac2!("[{p} + 8]", "{w6}", "{w7}"),
            mac2!("[{p} + 16]", "{w7}", "{w8}"),
            mac2!("[{p} + 24]", "{w8}", "{w0}"),
            mac2!("[{p} + 32]", "{w0}", "{w1}"),
            mac2!("[{p} + 40]", "{w1}", "{w2}"),
            mac2!("[{p} + 48]", "{w2}", "{w3}"),
            "adox {w4}, {w4}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w3}, {lo}",
            "adc {w4}, {hi}",
            "mov [{p} + 184], {w5}",
            // row 6: b6·(a₀…a₇) into words 6 … 14
            "mov rdx, [{p} + 120]",
            "xor {w5:e}, {w5:e}",
            mac2!("[{p}]", "{w6}", "{w7}"),
            mac2!("[{p} + 8]", "{w7}", "{w8}"),
            mac2!("[{p} + 16]", "{w8}", "{w0}"),
            mac2!("[{p} + 24]", "{w0}", "{w1}"),
            mac2!("[{p} + 32]", "{w1}", "{w2}"),
            mac2!("[{p} + 40]", "{w2}", "{w3}"),
            mac2!("[{p} + 48]", "{w3}", "{w4}"),
            "adox {w5}, {w5}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w4}, {lo}",
            "adc {w5}, {hi}",
            "mov [{p} + 192], {w6}",
            // row 7: b7·(a₀…a₇) into words 7 … 15
            "mov rdx, [{p} + 128]",
            "xor {w6:e}, {w6:e}",
            mac2!("[{p}]", "{w7}", "{w8}"),
            mac2!("[{p} + 8]", "{w8}", "{w0}"),
            mac2!("[{p} + 16]", "{w0}", "{w1}"),
            mac2!("[{p} + 24]", "{w1}", "{w2}"),
            mac2!("[{p} + 32]", "{w2}", "{w3}"),
            mac2!("[{p} + 40]", "{w3}", "{w4}"),
            mac2!("[{p} + 48]", "{w4}", "{w5}"),
            "adox {w6}, {w6}",
            "mulx {hi}, {lo}, [{p} + 56]",
            "adc {w5}, {lo}",
            "adc {w6}, {hi}",
            "mov [{p} + 200], {w7}",
            // a₈·(b₀…b₇) into words 8 … 16
            "mov rdx, [{p} + 64]",
            "xor {w7:e}, {w7:e}",
            mac2!("[{p} + 72]", "{w8}", "{w0}"),
            mac2!("[{p} + 80]", "{w0}", "{w1}"),
            mac2!("[{p} + 88]", "{w1}", "{w2}"),
            mac2!("[{p} + 96]", "{w2}", "{w3}"),
            mac2!("[{p} + 104]", "{w3}", "{w4}"),
            mac2!("[{p} + 112]", "{w4}", "{w5}"),
            mac2!("[{p} + 120]", "{w5}", "{w6}"),
            "adox {w7}, {w7}",
            "mulx {hi}, {lo}, [{p} + 128]",
            "adc {w6}, {lo}",
            "adc {w7}, {hi}",
            // b₈·(a₀…a₇) into words 8 … 16 (16 already there: the last carry closes by hand)
            "mov rdx, [{p} + 136]",
            "xor {lo:e}, {lo:e}",
            mac2!("[{p}]", "{w8}", "{w0}"),
            mac2!("[{p} + 8]", "{w0}", "{w1}"),
            mac2!("[{p} + 16]", "{w1}", "{w2}"),
            mac2!("[{p} + 24]", "{w2}", "{w3}"),
            mac2!("[{p} + 32]", "{w3}", "{w4}"),
            mac2!("[{p} + 40]", "{w4}", "{w5}"),
            mac2!("[{p} + 48]", "{w5}", "{w6}"),
            mac2!("[{p} + 56]", "{w6}", "{w7}"),
            "mov {lo:e}, 0",
            "adcx {w7}, {lo}",
            // a₈·b₈ (below 2^18) at word 16
            "mov rdx, [{p} + 64]",
            "imul rdx, [{p} + 136]",
            "add {w7}, rdx",
            // reduction (batch-core's `redc_p521`, in registers): L = words 0 … 8 (0 … 7 in
            // memory, 8 in w8), H = words 9 … 16 (w0 … w7; H < 2^466, word 17 zero).
            // H' = H | (L mod 2^55)·2^466: bits 18 … 63 into w7, the top nine bits into rdx
            "mov rdx, [{p} + 144]",
            "shl rdx, 9",
            "mov {lo}, rdx",
            "shl {lo}, 9",
            "or {w7}, {lo}",
            "shr rdx, 55",
            // ⌊L/2^55⌋: words 0 … 7 in place, word 8 in w8
            lhi!("144", "152"),
            lhi!("152", "160"),
            lhi!("160", "168"),
            lhi!("168", "176"),
            lhi!("176", "184"),
            lhi!("184", "192"),
            lhi!("192", "200"),
            "mov {lo}, [{p} + 200]",
            "shrd {lo}, {w8}, 55",
            "mov [{p} + 200], {lo}",
            "shr {w8}, 55",
            // t = H' + ⌊L/2^55⌋ + 1 (below 2^522)
            "stc",
            "adc {w0}, [{p} + 144]",
            "adc {w1}, [{p} + 152]",
            "adc {w2}, [{p} + 160]",
            "adc {w3}, [{p} + 168]",
            "adc {w4}, [{p} + 176]",
            "adc {w5}, [{p} + 184]",
            "adc {w6}, [{p} + 192]",
            "adc {w7}, [{p} + 200]",
            "adc rdx, {w8}",
            // minus 1 − (bit 521), bit 521 masked off
            "mov {lo}, rdx",
            "shr {lo}, 9",
            "xor {lo}, 1",
            "sub {w0}, {lo}",
            "sbb {w1}, 0",
            "sbb {w2}, 0",
            "sbb {w3}, 0",
            "sbb {w4}, 0",
            "sbb {w5}, 0",
            "sbb {w6}, 0",
            "sbb {w7}, 0",
            "sbb rdx, 0",
            "and rdx, 0x1ff",
            p = in(reg) buf.as_mut_ptr(),
            w0 = out(reg) r[0],
            w1 = out(reg) r[1],
            w2 = out(reg) r[2],
            w3 = out(reg) r[3],
            w4 = out(reg) r[4],
            w5 = out(reg) r[5],
            w6 = out(reg) r[6],
            w7 = out(reg) r[7],
            w8 = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") r[8],
            options(nostack),
        );
    }
    r
}

/// One product of a row of the square's triangle: `rdx·a_j` (`a_j` at byte offset `$aj`)
/// added into the words in registers `$lo` (low half, on CF) and `$hi` (high half, on OF).
#[rustfmt::skip]
macro_rules! tri {
    ($aj:literal, $lo:literal, $hi:literal) => {
        concat!(
            "mulx {hi}, {lo}, [{a} + ", $aj, "]\n",
            "adcx {", $lo, "}, {lo}\n",
            "adox {", $hi, "}, {hi}\n",
        )
    };
}

/// Words `$w0` and `$w0 + 8` (byte offsets into `out`) of `2·triangle + a_i²` (`a_i` at byte
/// offset `$ai`): each word doubled on CF (`adcx x, x`), the square's half added on OF.
#[rustfmt::skip]
macro_rules! diag {
    ($ai:literal, $w0:literal, $w1:literal) => {
        concat!(
            "mov rdx, [{a} + ", $ai, "]\n",
            "mulx {hi}, {lo}, rdx\n",
            "mov {w0}, [{out} + ", $w0, "]\n",
            "adcx {w0}, {w0}\n",
            "adox {w0}, {lo}\n",
            "mov [{out} + ", $w0, "], {w0}\n",
            "mov {w1}, [{out} + ", $w1, "]\n",
            "adcx {w1}, {w1}\n",
            "adox {w1}, {hi}\n",
            "mov [{out} + ", $w1, "], {w1}\n",
        )
    };
}

/// `a²` as `[low nine words, high nine words]` for `a < p`: the 36 off-diagonal products
/// `a_i·a_j` (`i < j`) once, row `i` adding `a_i·(a_{i+1}…a₈)` at word `2i + 1`, then the sum
/// doubled and the nine squares `a_i²` added, 45 `mulx` where the product has 81. Row 0 makes
/// words 1 … 9 on one carry chain; row `i ≥ 1` adds into words `2i + 1 … i + 8` on the two
/// chains with word `i + 9` new, after which words `2i + 1` and `2i + 2` are finished (row
/// `i + 1` starts at `2i + 3`) and stored, so at most eight words are live. No carry leaves a
/// row's top word: after row `i` the sum is below `2^(64·(i + 10))`. The doubling pass reads
/// the stored words back; it cannot carry out of word 17 since `a² < 2^1042`.
#[inline(always)]
fn wide_square(a: &[u64; 9]) -> [[u64; 9]; 2] {
    let mut out = [0u64; 18];
    // SAFETY: reads a[0..9], reads and writes out[0..18] (a local array), nothing else; no
    // stack use. BMI2 and ADX are present: the caller holds the `Adx` proof.
    unsafe {
        asm!(
            // row 0: a₀·(a₁…a₈) into words 1 … 9, one carry chain (every word new)
            "mov rdx, [{a}]",
            "mulx {w0}, {lo}, [{a} + 8]",
            "mov [{out} + 8], {lo}",
            "mulx {w1}, {lo}, [{a} + 16]",
            "add {w0}, {lo}",
            "mulx {w2}, {lo}, [{a} + 24]",
            "adc {w1}, {lo}",
            "mulx {w3}, {lo}, [{a} + 32]",
            "adc {w2}, {lo}",
            "mulx {w4}, {lo}, [{a} + 40]",
            "adc {w3}, {lo}",
            "mulx {w5}, {lo}, [{a} + 48]",
            "adc {w4}, {lo}",
            "mulx {w6}, {lo}, [{a} + 56]",
            "adc {w5}, {lo}",
            "mulx {w7}, {lo}, [{a} + 64]",
            "adc {w6}, {lo}",
            "adc {w7}, 0",
            "mov [{out} + 16], {w0}",
            // row 1: a₁·(a₂…a₈) into words 3 … 10 (w1 … w7, w0)
            "mov rdx, [{a} + 8]",
            "xor {w0:e}, {w0:e}",
            tri!("16", "w1", "w2"),
            tri!("24", "w2", "w3"),
            tri!("32", "w3", "w4"),
            tri!("40", "w4", "w5"),
            tri!("48", "w5", "w6"),
            tri!("56", "w6", "w7"),
            tri!("64", "w7", "w0"),
            "mov {lo:e}, 0",
            "adcx {w0}, {lo}",
            "mov [{out} + 24], {w1}",
            "mov [{out} + 32], {w2}",
            // row 2: a₂·(a₃…a₈) into words 5 … 11 (w3 … w7, w0, w1)
            "mov rdx, [{a} + 16]",
            "xor {w1:e}, {w1:e}",
            tri!("24", "w3", "w4"),
            tri!("32", "w4", "w5"),
            tri!("40", "w5", "w6"),
            tri!("48", "w6", "w7"),
            tri!("56", "w7", "w0"),
            tri!("64", "w0", "w1"),
            "mov {lo:e}, 0",
            "adcx {w1}, {lo}",
            "mov [{out} + 40], {w3}",
            "mov [{out} + 48], {w4}",
            // row 3: a₃·(a₄…a₈) into words 7 … 12 (w5 … w7, w0 … w2)
            "mov rdx, [{a} + 24]",
            "xor {w2:e}, {w2:e}",
            tri!("32", "w5", "w6"),
            tri!("40", "w6", "w7"),
            tri!("48", "w7", "w0"),
            tri!("56", "w0", "w1"),
            tri!("64", "w1", "w2"),
            "mov {lo:e}, 0",
            "adcx {w2}, {lo}",
            "mov [{out} + 56], {w5}",
            "mov [{out} + 64], {w6}",
            // row 4: a₄·(a₅…a₈) into words 9 … 13 (w7, w0 … w3)
            "mov rdx, [{a} + 32]",
            "xor {w3:e}, {w3:e}",
            tri!("40", "w7", "w0"),
            tri!("48", "w0", "w1"),
            tri!("56", "w1", "w2"),
            tri!("64", "w2", "w3"),
            "mov {lo:e}, 0",
            "adcx {w3}, {lo}",
            "mov [{out} + 72], {w7}",
            "mov [{out} + 80], {w0}",
            // row 5: a₅·(a₆…a₈) into words 11 … 14 (w1 … w4)
            "mov rdx, [{a} + 40]",
            "xor {w4:e}, {w4:e}",
            tri!("48", "w1", "w2"),
            tri!("56", "w2", "w3"),
            tri!("64", "w3", "w4"),
            "mov {lo:e}, 0",
            "adcx {w4}, {lo}",
            "mov [{out} + 88], {w1}",
            "mov [{out} + 96], {w2}",
            // row 6: a₆·(a₇, a₈) into words 13 … 15 (w3 … w5)
            "mov rdx, [{a} + 48]",
            "xor {w5:e}, {w5:e}",
            tri!("56", "w3", "w4"),
            tri!("64", "w4", "w5"),
            "mov {lo:e}, 0",
            "adcx {w5}, {lo}",
            "mov [{out} + 104], {w3}",
            "mov [{out} + 112], {w4}",
            // row 7: a₇·a₈ into words 15, 16 (w5, w6)
            "mov rdx, [{a} + 56]",
            "xor {w6:e}, {w6:e}",
            tri!("64", "w5", "w6"),
            "mov {lo:e}, 0",
            "adcx {w6}, {lo}",
            "mov [{out} + 120], {w5}",
            "mov [{out} + 128], {w6}",
            // 2·triangle + a_i², words 0 … 17 (word 0 and 17 of the triangle are zero)
            "xor {lo:e}, {lo:e}",
            diag!("0", "0", "8"),
            diag!("8", "16", "24"),
            diag!("16", "32", "40"),
            diag!("24", "48", "56"),
            diag!("32", "64", "72"),
            diag!("40", "80", "88"),
            diag!("48", "96", "104"),
            diag!("56", "112", "120"),
            diag!("64", "128", "136"),
            a = in(reg) a.as_ptr(),
            out = in(reg) out.as_mut_ptr(),
            w0 = out(reg) _,
            w1 = out(reg) _,
            w2 = out(reg) _,
            w3 = out(reg) _,
            w4 = out(reg) _,
            w5 = out(reg) _,
            w6 = out(reg) _,
            w7 = out(reg) _,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }
    [
        core::array::from_fn(|i| out[i]),
        core::array::from_fn(|i| out[9 + i]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation equals the portable field's (`batch_core::curve::P521.p`, CIOS for the
    /// product): the shared edges, and `2^520`, runs of all-ones words below `p`.
    #[test]
    fn p521_adx_matches_portable_field() {
        let Some(adx) = crate::simd::adx_or_skip("p521_adx_matches_portable_field") else {
            return;
        };
        let edges = [
            Uint([0, 0, 0, 0, 0, 0, 0, 0, 1 << 8]),
            Uint([u64::MAX, u64::MAX, u64::MAX, u64::MAX, 0, 0, 0, 0, 0]),
            Uint([0, 0, 0, 0, 0, u64::MAX, u64::MAX, u64::MAX, 0xff]),
            Uint([u64::MAX, 0, u64::MAX, 0, u64::MAX, 0, u64::MAX, 0, 0x1fe]),
        ];
        crate::simd::check_field_against_portable(&adx.p521(), &P521, &edges, 521);
    }
}
