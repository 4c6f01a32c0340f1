// field.wgsl: arithmetic modulo the curve prime p on numbers kept in storage slots.
//
// Numbers are LIMBS-word slots of `scratch` (see montgomery.wgsl for the interleaved layout);
// p is read from `moduli` at word offset M_P (declared by the including shader), and S_T is a
// scratch slot these functions may clobber (the CIOS accumulator of mont_mul). Every value
// is canonical (< p) on entry and exit; r may equal a or b. Branch-free: carries, borrows
// and the final correction are `select`s and masks, loop bounds depend only on LIMBS.

// r = a + b mod p.
fn fe_add(r: u32, a: u32, b: u32) {
    var c = 0u;
    //#unroll J 0
    let s = adc(scratch[at(a, J)], scratch[at(b, J)], c);
    scratch[at(r, J)] = s.x;
    c = s.y;
    //#end
    // a + b < 2p: subtract p unless the sum is already below it
    var borrow = 0u;
    //#unroll J 0
    let d = sbb(scratch[at(r, J)], moduli[M_P + J], borrow);
    scratch[at(S_T, J)] = d.x;
    borrow = d.y;
    //#end
    let keep = (c == 0u) & (borrow == 1u);
    //#unroll J 0
    scratch[at(r, J)] = select(scratch[at(S_T, J)], scratch[at(r, J)], keep);
    //#end
}

// r = a − b mod p.
fn fe_sub(r: u32, a: u32, b: u32) {
    var borrow = 0u;
    //#unroll J 0
    let d = sbb(scratch[at(a, J)], scratch[at(b, J)], borrow);
    scratch[at(r, J)] = d.x;
    borrow = d.y;
    //#end
    // add p back where the subtraction borrowed (mask all-ones), 0 otherwise
    let mask = 0u - borrow;
    var c = 0u;
    //#unroll J 0
    let s = adc(scratch[at(r, J)], moduli[M_P + J] & mask, c);
    scratch[at(r, J)] = s.x;
    c = s.y;
    //#end
}

// r = a·b mod p (Montgomery form), through montgomery.wgsl's CIOS.
fn fe_mul(r: u32, a: u32, b: u32) {
    mont_mul(r, a, b, S_T, M_P, moduli[M_N0INV]);
}
