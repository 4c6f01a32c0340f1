// regs_int64.wgsl: the limb words of the register kernels (montgomery_regs.wgsl) for adapters
// with SHADER_INT64. A limb (< 2^32) is held in a u64, so a product and its carry need no
// widening or narrowing: on llvmpipe a u64 vector operation handles half the lanes of a u32
// one, and converting 8×u32 to 2×4×u64 and back around every product cost more than that
// (measured, docs/PERF.md). Same functions and results as regs_portable.wgsl; branch-free.

alias Word = u64;   // one limb, < 2^32
alias Pair = u64;   // a two-limb result: low limb, then carry or borrow

const WORD_MASK: u64 = 0xfffffffflu;

fn to_word(x: u32) -> Word {
    return u64(x);
}

fn from_word(x: Word) -> u32 {
    return u32(x & WORD_MASK);
}

// All ones (the limb's 32 bits) when c, else zero.
fn mask_w(c: bool) -> Word {
    return select(0lu, WORD_MASK, c);
}

// t + a·b + c; at most (2^32−1)² + 2(2^32−1) = 2^64 − 1, so it never overflows. The masks
// let LLVM use 32×32→64-bit multiplies (vpmuludq).
fn mac_w(t: Word, a: Word, b: Word, c: Word) -> Pair {
    return (a & WORD_MASK) * (b & WORD_MASK) + t + c;
}

fn add_w(a: Word, b: Word) -> Pair {
    return a + b;
}

// a + b + c (c a carry, ≤ 2)
fn adc_w(a: Word, b: Word, c: Word) -> Pair {
    return a + b + c;
}

// a − b − borrow, wrapping below zero (bit 63 is then the borrow out).
fn sub_w(a: Word, b: Word, borrow: Word) -> Pair {
    return a - b - borrow;
}

// a·b mod 2^32
fn mul_lo_w(a: Word, b: Word) -> Word {
    return u64(u32(a) * u32(b));
}

fn pair_lo(p: Pair) -> Word {
    return p & WORD_MASK;
}

// the carry of mac_w or add_w
fn pair_hi(p: Pair) -> Word {
    return p >> 32u;
}

// the borrow out of sub_w (0 or 1)
fn pair_borrow(p: Pair) -> Word {
    return p >> 63u;
}
