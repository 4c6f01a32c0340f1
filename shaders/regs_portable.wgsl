// regs_portable.wgsl: the limb words of the register kernels (montgomery_regs.wgsl) on any
// adapter: u32 limbs, products from mul_portable.wgsl's mac, carries from bigint.wgsl. Same
// functions and results as regs_int64.wgsl; branch-free.

alias Word = u32;         // one limb
alias Pair = vec2<u32>;   // low limb, then carry or borrow

fn to_word(x: u32) -> Word {
    return x;
}

fn from_word(x: Word) -> u32 {
    return x;
}

// All ones when c, else zero.
fn mask_w(c: bool) -> Word {
    return select(0u, 0xffffffffu, c);
}

// t + a·b + c as (lo, hi); never overflows.
fn mac_w(t: Word, a: Word, b: Word, c: Word) -> Pair {
    return mac(t, a, b, c);
}

fn add_w(a: Word, b: Word) -> Pair {
    return adc(a, b, 0u);
}

// a + b + c (c a carry, ≤ 2)
fn adc_w(a: Word, b: Word, c: Word) -> Pair {
    return adc(a, b, c);
}

// a − b − borrow as (difference, borrow out).
fn sub_w(a: Word, b: Word, borrow: Word) -> Pair {
    return sbb(a, b, borrow);
}

// a·b mod 2^32
fn mul_lo_w(a: Word, b: Word) -> Word {
    return a * b;
}

fn pair_lo(p: Pair) -> Word {
    return p.x;
}

fn pair_hi(p: Pair) -> Word {
    return p.y;
}

fn pair_borrow(p: Pair) -> Word {
    return p.y;
}
