// bigint.wgsl: multi-precision integers on 32-bit limbs.
//
// Limb-level primitives for little-endian u32 limbs: additions with carry and subtractions
// with borrow. The products (mul_wide, mac) come from one of two pieces composed before this
// one: mul_portable.wgsl (16×16-bit partial products; WGSL's core has no u64 and no
// multiply-high) or mul_int64.wgsl (u64 arithmetic, where the adapter has SHADER_INT64).
// Everything here is branch-free: carries and borrows come from comparisons and `select`,
// never from `if`.

// a + b + c as (sum, carry); carry ≤ 2.
fn adc(a: u32, b: u32, c: u32) -> vec2<u32> {
    let s1 = a + b;
    let c1 = select(0u, 1u, s1 < a);
    let s2 = s1 + c;
    let c2 = select(0u, 1u, s2 < c);
    return vec2<u32>(s2, c1 + c2);
}

// a − b − borrow (borrow ∈ {0, 1}) as (difference, borrow out ∈ {0, 1}).
fn sbb(a: u32, b: u32, borrow: u32) -> vec2<u32> {
    let d1 = a - b;
    let b1 = select(0u, 1u, a < b);
    let d2 = d1 - borrow;
    let b2 = select(0u, 1u, d1 < borrow);
    return vec2<u32>(d2, b1 | b2);
}
