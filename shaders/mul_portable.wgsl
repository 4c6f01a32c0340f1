// mul_portable.wgsl: 32×32→64-bit products from 16×16-bit partial products, for adapters
// without SHADER_INT64 (WGSL's core has no u64 and no multiply-high). Branch-free.

// a·b as (lo, hi).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    // middle column: p01 + p10 < 2^33, its carry is worth 2^48 = 2^16 in the high word
    let mid = p01 + p10;
    let mid_carry = select(0u, 0x10000u, mid < p01);
    let lo = p00 + (mid << 16u);
    let lo_carry = select(0u, 1u, lo < p00);
    let hi = p11 + (mid >> 16u) + mid_carry + lo_carry;
    return vec2<u32>(lo, hi);
}

// t + a·b + c as (lo, hi); at most (2^32−1)² + 2(2^32−1) = 2^64 − 1, so it never overflows.
fn mac(t: u32, a: u32, b: u32, c: u32) -> vec2<u32> {
    let p = mul_wide(a, b);
    let s1 = p.x + t;
    let c1 = select(0u, 1u, s1 < t);
    let s2 = s1 + c;
    let c2 = select(0u, 1u, s2 < c);
    return vec2<u32>(s2, p.y + c1 + c2);
}

