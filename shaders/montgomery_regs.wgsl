// montgomery_regs.wgsl: Montgomery multiplication modulo an odd n < R = 2^(32·LIMBS), on
// numbers in function-scope arrays (`Limbs`), for the variants small enough to keep their
// working set out of storage memory (LIMBS ≤ 64: RSA CRT halves up to 2048 bits).
//
// On llvmpipe a storage access is a per-lane gather or scatter with a bounds check; a
// function-scope array indexed by constants becomes SSA values, and one indexed by a loop
// counter becomes vector loads of a stack array. So the limb loops here are unrolled fully by
// the host (`//#unroll J s` … `//#end` with J = s … LIMBS−1 written out), every `t[J]`,
// `a[J]`, `rn[J]` has a constant index, and the only variable index is the outer loop's
// `b[i]`. A product costs LIMBS loop iterations of llvmpipe's 65,535-iteration budget.
//
// Limbs are `Word`s (regs_int64.wgsl: u64 holding 32-bit values; regs_portable.wgsl: u32),
// converted at the scratch and result boundaries (to_word, from_word). The modulus is loaded
// once per dispatch into `rn` / `rn0` (load_modulus).
//
// CIOS (Koç, Acar, Kaliski 1996, §3.2) as in montgomery.wgsl. Pre: a, b < n, n odd,
// rn0 = −n⁻¹ mod 2^32. Post: a·b·R⁻¹ mod n, fully reduced (< n). Constant-time: loop bounds
// depend only on LIMBS; the final subtraction is a `select`.

alias Limbs = array<Word, LIMBS>;

var<private> rn: Limbs;   // the modulus of this invocation's job
var<private> rn0: Word;   // −n⁻¹ mod 2^32

// rn, rn0 from the modulus record at word offset `no` of `moduli` (n[LIMBS] first, n0inv at
// 3·LIMBS).
fn load_modulus(no: u32) {
    //#unroll J 0
    rn[J] = to_word(moduli[no + J]);
    //#end
    rn0 = to_word(moduli[no + 3u * LIMBS]);
}

// a·b·R⁻¹ mod n. Costs LIMBS loop iterations.
fn mont_mul_regs(a_in: Limbs, b_in: Limbs) -> Limbs {
    let a = a_in;
    var b = b_in;   // a var: b[i] is indexed by the loop counter
    let zero = to_word(0u);
    // t = t[0..LIMBS] + t_hi·2^(32·LIMBS)
    var t: Limbs;
    var t_hi = zero;
    for (var i = 0u; i < LIMBS; i = i + 1u) {
        // t += a·b[i]
        let bi = b[i];
        var c = zero;
        //#unroll J 0
        let x = mac_w(t[J], a[J], bi, c);
        t[J] = pair_lo(x);
        c = pair_hi(x);
        //#end
        let s = add_w(t_hi, c);
        // t = (t + m·n) / 2^32, m chosen so that the low limb cancels
        let m = mul_lo_w(t[0], rn0);
        c = pair_hi(mac_w(t[0], m, rn[0], zero));
        //#unroll J 1
        let x = mac_w(t[J], m, rn[J], c);
        t[J - 1u] = pair_lo(x);
        c = pair_hi(x);
        //#end
        let s2 = add_w(pair_lo(s), c);
        t[LIMBS - 1u] = pair_lo(s2);
        t_hi = pair_hi(s) + pair_hi(s2);
    }
    // t < 2n: subtract n when t ≥ n, branch-free
    var d: Limbs;
    var borrow = zero;
    //#unroll J 0
    let y = sub_w(t[J], rn[J], borrow);
    d[J] = pair_lo(y);
    borrow = pair_borrow(y);
    //#end
    // t < n exactly when nothing spilled above LIMBS limbs and the subtraction borrowed
    let keep_t = (t_hi == zero) & (borrow == to_word(1u));
    //#unroll J 0
    d[J] = select(d[J], t[J], keep_t);
    //#end
    return d;
}
