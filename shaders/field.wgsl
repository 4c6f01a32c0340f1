// field.wgsl: arithmetic modulo the curve prime p on field elements held in registers.
//
// A field element is `Fe`, LIMBS little-endian limbs in a function-scope array of `Word`s
// (regs_int64.wgsl: u64 holding 32-bit values, so products need no widening; or
// regs_portable.wgsl: u32), passed and returned by value; the composer unrolls every limb
// loop completely (`//#unroll` with one copy per limb), so each limb is indexed by a
// constant and lives in a register, never in storage memory. The one exception is the row
// loop of fe_mul (its rows per iteration chosen per curve by the host): unrolled completely
// it is the fastest code, but LLVM's compile time grows faster than the code, so the wide
// curves keep it a loop and read b's limb by the loop counter. The prelude gives the curve
// as constants: P (the prime), N0INV (−p⁻¹ mod 2^32), ONE (R mod p) and CURVE_B
// (b·R mod p), R = 2^(32·LIMBS); with the prime a constant, products by its zero and one
// limbs fold away (P-256, P-521).
//
// Every value is canonical (< p) on entry and exit. Branch-free: carries, borrows and the
// final corrections are `select`s and masks, and no loop has a data-dependent bound, so the
// code is constant-time in every value.

alias Fe = array<Word, LIMBS>;

// a + b mod p.
fn fe_add(a: Fe, b: Fe) -> Fe {
    var r: Fe;
    var c = to_word(0u);
    //#unroll J 0
    let s = adc_w(a[J], b[J], c);
    r[J] = pair_lo(s);
    c = pair_hi(s);
    //#end
    // a + b < 2p: subtract p unless the sum is already below it
    var d: Fe;
    var borrow = to_word(0u);
    //#unroll J 0
    let e = sub_w(r[J], P[J], borrow);
    d[J] = pair_lo(e);
    borrow = pair_borrow(e);
    //#end
    let keep = (c == to_word(0u)) & (borrow == to_word(1u));
    //#unroll J 0
    r[J] = select(d[J], r[J], keep);
    //#end
    return r;
}

// a − b mod p.
fn fe_sub(a: Fe, b: Fe) -> Fe {
    var r: Fe;
    var borrow = to_word(0u);
    //#unroll J 0
    let d = sub_w(a[J], b[J], borrow);
    r[J] = pair_lo(d);
    borrow = pair_borrow(d);
    //#end
    // add p back where the subtraction borrowed
    let mask = mask_w(borrow == to_word(1u));
    var c = to_word(0u);
    //#unroll J 0
    let s = adc_w(r[J], P[J] & mask, c);
    r[J] = pair_lo(s);
    c = pair_hi(s);
    //#end
    return r;
}

// a·b·R⁻¹ mod p (Montgomery form): CIOS (Koç, Acar, Kaliski 1996, §3.2) as in
// montgomery_regs.wgsl, with the prime a constant: t = t[0..LIMBS] + t_hi·2^(32·LIMBS), one
// row per limb of b, each row multiply-accumulating a·b[I] and then adding m·p with m
// chosen so that the low limb cancels, shifted down one limb. t < 2p at the end; one
// masked subtraction.
fn fe_mul(a: Fe, b: Fe) -> Fe {
    let zero = to_word(0u);
    var t: Fe;
    var t_hi = zero;
    //#unroll I 0 @ROWS
    let bi = b[I];
    var c = zero;
    //#unroll J 0
    let x = mac_w(t[J], a[J], bi, c);
    t[J] = pair_lo(x);
    c = pair_hi(x);
    //#end
    let s = add_w(t_hi, c);
    let m = mul_lo_w(t[0], N0INV);
    c = pair_hi(mac_w(t[0], m, P[0], zero));
    //#unroll J 1
    let y = mac_w(t[J], m, P[J], c);
    t[J - 1u] = pair_lo(y);
    c = pair_hi(y);
    //#end
    let s2 = add_w(pair_lo(s), c);
    t[LIMBS - 1u] = pair_lo(s2);
    t_hi = pair_hi(s) + pair_hi(s2);
    //#end
    // t < 2p: subtract p unless t is already below it
    var d: Fe;
    var borrow = zero;
    //#unroll J 0
    let e = sub_w(t[J], P[J], borrow);
    d[J] = pair_lo(e);
    borrow = pair_borrow(e);
    //#end
    let keep = (t_hi == zero) & (borrow == to_word(1u));
    //#unroll J 0
    t[J] = select(d[J], t[J], keep);
    //#end
    return t;
}

// a² (Montgomery form). The generated point formulas call it for their squarings.
fn fe_sqr(a: Fe) -> Fe {
    return fe_mul(a, a);
}
