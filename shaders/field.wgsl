// field.wgsl: arithmetic modulo the curve prime p on field elements held in registers.
//
// A field element is `Fe`, LIMBS little-endian u32 limbs in a function-scope array, passed
// and returned by value; the composer unrolls every limb loop completely (`//#unroll` with
// one copy per limb), so each limb is indexed by a constant and lives in a register, never
// in storage memory. The one exception is the row loop of fe_mul (its rows per
// iteration, chosen per curve by the host): unrolled completely it is the fastest code, but
// LLVM's compile time grows faster than the code, so the wide curves keep it a loop and
// read b's limb by the loop counter. The prelude gives the curve as constants: P (the prime), N0INV
// (−p⁻¹ mod 2^32), ONE (R mod p) and CURVE_B (b·R mod p), R = 2^(32·LIMBS); with the prime
// a constant, products by its zero and one limbs fold away (P-256, P-521).
//
// Every value is canonical (< p) on entry and exit. Branch-free: carries, borrows and the
// final corrections are `select`s and masks, and no loop has a data-dependent bound, so the
// code is constant-time in every value.

alias Fe = array<u32, LIMBS>;

// a + b mod p.
fn fe_add(a: Fe, b: Fe) -> Fe {
    var r: Fe;
    var c = 0u;
    //#unroll J 0
    let s = adc(a[J], b[J], c);
    r[J] = s.x;
    c = s.y;
    //#end
    // a + b < 2p: subtract p unless the sum is already below it
    var d: Fe;
    var borrow = 0u;
    //#unroll J 0
    let e = sbb(r[J], P[J], borrow);
    d[J] = e.x;
    borrow = e.y;
    //#end
    let keep = (c == 0u) & (borrow == 1u);
    //#unroll J 0
    r[J] = select(d[J], r[J], keep);
    //#end
    return r;
}

// a − b mod p.
fn fe_sub(a: Fe, b: Fe) -> Fe {
    var r: Fe;
    var borrow = 0u;
    //#unroll J 0
    let d = sbb(a[J], b[J], borrow);
    r[J] = d.x;
    borrow = d.y;
    //#end
    // add p back where the subtraction borrowed (mask all-ones), 0 otherwise
    let mask = 0u - borrow;
    var c = 0u;
    //#unroll J 0
    let s = adc(r[J], P[J] & mask, c);
    r[J] = s.x;
    c = s.y;
    //#end
    return r;
}

// a·b·R⁻¹ mod p (Montgomery form): CIOS (Koç, Acar, Kaliski 1996, §3.2) as in
// montgomery.wgsl, on registers: t = t[0..LIMBS] + t_hi·2^(32·LIMBS), one row per limb of b,
// each row multiply-accumulating a·b[I] and then adding m·p with m chosen so that the low
// limb cancels, shifted down one limb. t < 2p at the end; one masked subtraction.
fn fe_mul(a: Fe, b: Fe) -> Fe {
    var t: Fe;
    var t_hi = 0u;
    //#unroll I 0 @ROWS
    let bi = b[I];
    var c = 0u;
    //#unroll J 0
    let x = mac(t[J], a[J], bi, c);
    t[J] = x.x;
    c = x.y;
    //#end
    let s = adc(t_hi, c, 0u);
    let t_top = s.y;
    let m = t[0] * N0INV;
    c = mac(t[0], m, P[0], 0u).y;
    //#unroll J 1
    let y = mac(t[J], m, P[J], c);
    t[J - 1u] = y.x;
    c = y.y;
    //#end
    let s2 = adc(s.x, c, 0u);
    t[LIMBS - 1u] = s2.x;
    t_hi = t_top + s2.y;
    //#end
    // t < 2p: subtract p unless t is already below it
    var d: Fe;
    var borrow = 0u;
    //#unroll J 0
    let e = sbb(t[J], P[J], borrow);
    d[J] = e.x;
    borrow = e.y;
    //#end
    let keep = (t_hi == 0u) & (borrow == 1u);
    //#unroll J 0
    t[J] = select(d[J], t[J], keep);
    //#end
    return t;
}

// a² (Montgomery form). The generated point formulas call it for their squarings.
fn fe_sqr(a: Fe) -> Fe {
    return fe_mul(a, a);
}
