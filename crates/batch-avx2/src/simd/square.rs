//! The `mulx` square's blocks at the RSA widths (`simd.rs`'s `MontKernel::square`).
//!
//! - `w = a²` at 16, 24 and 32 limbs (the CRT halves of RSA-2048 and RSA-3072, the RSA-2048
//!   modulus of a verification) in one straight-line block: the off-diagonal triangle
//!   `Σ_{i<j} aᵢ·aⱼ·2^(64(i+j))` row by row, each row exactly `L − 1 − i` products long, then
//!   doubled with the diagonal squares added on two carry chains.
//! - The `L` Montgomery reduction rows at every kernel width from 16 limbs, each row unrolled
//!   inside a loop over the rows.
//!
//! Measured on Zen 3 (`examples/adxbench.rs`, docs/PERF.md): the looped triangle rows of
//! `simd.rs` (padded to multiples of four limbs, entered once per row from Rust) took 2.1–2.5
//! cycles a `mulx` step against the product's 1.5, about this core's floor for a
//! `mulx`/`adox`/`adcx` step, so below 32 limbs squares ran on the product. The rows here are
//! unrolled by the assembler (`.rept`, with `.set` counters: row and column are
//! assembly-time constants, so every address is a constant offset), two steps at a time so
//! that the high words alternate between two registers (no `mov` a step; 3 % off the 32-limb
//! square). The reduction rows fully unrolled too measured no faster at 16 limbs and, at 24,
//! made the square no faster than the product (0.74 of it with the loop).
//!
//! The instruction sequence and every address depend on `L` only: constant-time in the
//! operand values.

/// `w[0..2L] = a[0..L]²` for `$l` limbs; `w` must be zero on entry (the triangle rows add into
/// it and store each row's top word into the first word no earlier row reached).
macro_rules! square_wide {
    ($name:ident, $l:literal) => {
        /// `w = a²` (`w` zeroed, `2·L` words; `a`, `L` words): see the module's documentation.
        ///
        /// # Safety
        /// `w` points to `2·$l` writable words, zero, and `a` to `$l` readable words.
        #[inline(always)]
        pub(super) unsafe fn $name(w: *mut u64, a: *const u64) {
            // SAFETY: the caller's: every address is `a` plus a constant below `8·$l` or `w`
            // plus a constant below `16·$l`.
            unsafe {
                core::arch::asm!(
                    // the triangle: row i adds aᵢ·a[i+1..L] at w[2i+1..i+L] and its top
                    // word at w[i+L], which no earlier row reached (row i − 1 ended at
                    // w[i+L−1])
                    "xor {z:e}, {z:e}",
                    ".set bsq_i, 0",
                    ".rept {L} - 1",
                    "mov rdx, qword ptr [{a} + 8*bsq_i]",
                    "xor {hp:e}, {hp:e}", // and CF = OF = 0
                    ".set bsq_j, bsq_i + 1",
                    ".rept ({L} - 1 - bsq_i) / 2",
                    "mulx {hn}, {lo}, qword ptr [{a} + 8*bsq_j]",
                    "adox {lo}, {hp}",
                    "adcx {lo}, qword ptr [{w} + 8*(bsq_i + bsq_j)]",
                    "mov qword ptr [{w} + 8*(bsq_i + bsq_j)], {lo}",
                    "mulx {hp}, {lo}, qword ptr [{a} + 8*bsq_j + 8]",
                    "adox {lo}, {hn}",
                    "adcx {lo}, qword ptr [{w} + 8*(bsq_i + bsq_j) + 8]",
                    "mov qword ptr [{w} + 8*(bsq_i + bsq_j) + 8], {lo}",
                    ".set bsq_j, bsq_j + 2",
                    ".endr",
                    ".if ({L} - 1 - bsq_i) % 2",
                    "mulx {hn}, {lo}, qword ptr [{a} + 8*bsq_j]",
                    "adox {lo}, {hp}",
                    "adcx {lo}, qword ptr [{w} + 8*(bsq_i + bsq_j)]",
                    "mov qword ptr [{w} + 8*(bsq_i + bsq_j)], {lo}",
                    "mov {hp}, {hn}",
                    ".endif",
                    // the row's top word plus both carries: below 2^64, since the row's
                    // words and it are exactly w[..i+L] + aᵢ·a[i+1..]·2^(64(2i+1))
                    "adox {hp}, {z}",
                    "adcx {hp}, {z}",
                    "mov qword ptr [{w} + 8*(bsq_i + {L})], {hp}",
                    ".set bsq_i, bsq_i + 1",
                    ".endr",
                    // w = 2w + Σ aᵢ²·2^(128i): the doubling on CF (`adcx x, x` is 2x plus
                    // the bit shifted out below), the squares on OF; neither carries out of
                    // the top word, as the result is a² < 2^(128L)
                    "xor {z:e}, {z:e}",
                    ".set bsq_i, 0",
                    ".rept {L}",
                    "mov rdx, qword ptr [{a} + 8*bsq_i]",
                    "mulx {hn}, {lo}, rdx",
                    "mov {hp}, qword ptr [{w} + 16*bsq_i]",
                    "mov {x}, qword ptr [{w} + 16*bsq_i + 8]",
                    "adcx {hp}, {hp}",
                    "adcx {x}, {x}",
                    "adox {hp}, {lo}",
                    "adox {x}, {hn}",
                    "mov qword ptr [{w} + 16*bsq_i], {hp}",
                    "mov qword ptr [{w} + 16*bsq_i + 8], {x}",
                    ".set bsq_i, bsq_i + 1",
                    ".endr",
                    w = in(reg) w,
                    a = in(reg) a,
                    L = const $l,
                    z = out(reg) _,
                    hp = out(reg) _,
                    hn = out(reg) _,
                    lo = out(reg) _,
                    x = out(reg) _,
                    out("rdx") _,
                    options(nostack),
                );
            }
        }
    };
}

/// One Montgomery reduction row on the words at `$w` (an address expression): `u = w[0]·m0inv`,
/// `w[0..L] += u·m` (clearing `w[0]`), two steps at a time, then `w[L]` += the row's top word,
/// its two carries and the carry `{top}` the row before left there; `{top}` takes this row's
/// (at most 2).
macro_rules! redc_row {
    ($w:literal) => {
        concat!(
            "mov rdx, qword ptr [",
            $w,
            "]\n",
            "imul rdx, {m0inv}\n",
            "xor {hp:e}, {hp:e}\n", // and CF = OF = 0
            ".set bsq_j, 0\n",
            ".rept {L} / 2\n",
            "mulx {hn}, {lo}, qword ptr [{m} + 8*bsq_j]\n",
            "adox {lo}, {hp}\n",
            "adcx {lo}, qword ptr [",
            $w,
            " + 8*bsq_j]\n",
            "mov qword ptr [",
            $w,
            " + 8*bsq_j], {lo}\n",
            "mulx {hp}, {lo}, qword ptr [{m} + 8*bsq_j + 8]\n",
            "adox {lo}, {hn}\n",
            "adcx {lo}, qword ptr [",
            $w,
            " + 8*bsq_j + 8]\n",
            "mov qword ptr [",
            $w,
            " + 8*bsq_j + 8], {lo}\n",
            ".set bsq_j, bsq_j + 2\n",
            ".endr\n",
            "adox {hp}, {z}\n",
            "adcx {hp}, qword ptr [",
            $w,
            " + 8*{L}]\n",
            "adox {hp}, {top}\n",
            "mov qword ptr [",
            $w,
            " + 8*{L}], {hp}\n",
            "mov {top:e}, 0\n",
            "adcx {top}, {z}\n",
            "adox {top}, {z}\n",
        )
    };
}

/// The `$l` Montgomery reduction rows on `w = a²` (`2·$l` words): row `i` ([`redc_row`] at
/// `w + 8i`) clears `w[i]`; returns the top word, with `w[$l..]`, of
/// `(w + Σ uᵢ·m·2^(64i))/R`. The row is unrolled inside a loop over the rows (`w` advancing
/// a word a row): see the module's notes for the fully unrolled form.
macro_rules! redc_rows {
    ($name:ident, $l:literal) => {
        /// # Safety
        /// `w` points to `2·$l` writable words and `m` to `$l` readable ones.
        #[inline(always)]
        pub(super) unsafe fn $name(w: *mut u64, m: *const u64, m0inv: u64) -> u64 {
            let top: u64;
            // SAFETY: the caller's: row `i` (of `$l`) addresses `w + 8i` plus a constant up to
            // `8·$l`, and `m` plus a constant below `8·$l`.
            unsafe {
                core::arch::asm!(
                    "xor {z:e}, {z:e}",
                    "xor {top:e}, {top:e}",
                    "2:",
                    redc_row!("{w}"),
                    "lea {w}, [{w} + 8]",
                    "dec {n}",
                    "jnz 2b",
                    w = inout(reg) w => _,
                    m = in(reg) m,
                    m0inv = in(reg) m0inv,
                    n = inout(reg) $l as u64 => _,
                    L = const $l,
                    top = out(reg) top,
                    z = out(reg) _,
                    hp = out(reg) _,
                    hn = out(reg) _,
                    lo = out(reg) _,
                    out("rdx") _,
                    options(nostack),
                );
            }
            top
        }
    };
}

redc_rows!(redc16, 16);
redc_rows!(redc24, 24);
redc_rows!(redc32, 32);
redc_rows!(redc48, 48);
redc_rows!(redc64, 64);
redc_rows!(redc60, 60);
redc_rows!(redc120, 120);
redc_rows!(redc240, 240);

/// The widths [`redc_wide`] has reduction rows for: every width of batch-core's
/// `KERNEL_LIMBS` from 16 limbs.
pub(super) const REDC_LIMBS: [usize; 8] = [16, 24, 32, 48, 60, 64, 120, 240];

/// The reduction rows of [`redc_rows`] at the widths of [`REDC_LIMBS`] (`w` twice `m`'s
/// length); `None` at other widths.
pub(super) fn redc_wide(w: &mut [u64], m: &[u64], m0inv: u64) -> Option<u64> {
    assert_eq!(w.len(), 2 * m.len(), "w holds the square");
    let (wp, mp) = (w.as_mut_ptr(), m.as_ptr());
    // SAFETY (each arm): `w` has twice `m`'s length, and that length is the block's `L`.
    match m.len() {
        16 => Some(unsafe { redc16(wp, mp, m0inv) }),
        24 => Some(unsafe { redc24(wp, mp, m0inv) }),
        32 => Some(unsafe { redc32(wp, mp, m0inv) }),
        48 => Some(unsafe { redc48(wp, mp, m0inv) }),
        64 => Some(unsafe { redc64(wp, mp, m0inv) }),
        60 => Some(unsafe { redc60(wp, mp, m0inv) }),
        120 => Some(unsafe { redc120(wp, mp, m0inv) }),
        240 => Some(unsafe { redc240(wp, mp, m0inv) }),
        _ => None,
    }
}

square_wide!(square16, 16);
square_wide!(square24, 24);
square_wide!(square32, 32);

/// `w = a²` at 16, 24 or 32 limbs (`w` zero, twice `a`'s length); `false` (and `w`
/// untouched) at other widths.
pub(super) fn square_wide(w: &mut [u64], a: &[u64]) -> bool {
    assert_eq!(w.len(), 2 * a.len(), "w holds the square");
    let (wp, ap) = (w.as_mut_ptr(), a.as_ptr());
    // SAFETY (each arm): `w` has twice `a`'s length, and that length is the block's `L`.
    match a.len() {
        16 => unsafe { square16(wp, ap) },
        24 => unsafe { square24(wp, ap) },
        32 => unsafe { square32(wp, ap) },
        _ => return false,
    }
    true
}
