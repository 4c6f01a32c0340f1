// mul_int64.wgsl: 32×32→64-bit products in u64 arithmetic, for adapters with SHADER_INT64
// (the host composes this piece instead of mul_portable.wgsl and enables the feature).
// Same functions, same results; branch-free.

// a·b as (lo, hi).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let p = u64(a) * u64(b);
    return vec2<u32>(u32(p & 0xfffffffflu), u32(p >> 32u));
}

// t + a·b + c as (lo, hi); at most (2^32−1)² + 2(2^32−1) = 2^64 − 1, so it never overflows.
fn mac(t: u32, a: u32, b: u32, c: u32) -> vec2<u32> {
    let p = u64(a) * u64(b) + u64(t) + u64(c);
    return vec2<u32>(u32(p & 0xfffffffflu), u32(p >> 32u));
}
