// montgomery.wgsl: Montgomery multiplication modulo an odd n < R = 2^(32·LIMBS), on numbers
// kept in storage memory.
//
// Numbers live in `scratch` (declared by the including shader) in slots of LIMBS words,
// interleaved across the dispatch's jobs so that neighbouring invocations touch neighbouring
// words: word j of slot s of this invocation's job is scratch[(s·LIMBS + j)·lanes + lane].
// The modulus is read from `moduli` at word offset `no`. Numbers stay in storage rather than
// in function-scope arrays: 7680-bit numbers do not fit in registers, and state in storage
// lets one exponentiation span several dispatches (below).
//
// Loops over limbs are unrolled when the host composes the shader (`//#unroll J s` … `//#end`
// repeats the block for J = s … LIMBS−1): llvmpipe, the software adapter CI runs on, stops
// every loop of an invocation silently after 65,535 iterations in all (a shared
// LP_MAX_TGSI_LOOP_ITERATIONS), so a multiplication may only cost LIMBS loop iterations and
// the host splits an exponentiation into dispatches that stay under that budget.
//
// CIOS (coarsely integrated operand scanning; Koç, Acar, Kaliski 1996, §3.2) on 32-bit limbs,
// as in batch-core's 64-bit kernel. Pre: a, b < n, n odd, n0inv = −n⁻¹ mod 2^32. Post: slot r
// holds a·b·R⁻¹ mod n, fully reduced (< n). Constant-time: loop bounds depend only on LIMBS;
// the final subtraction is a `select`.

var<private> lane: u32;   // this invocation's job within the dispatch
var<private> lanes: u32;  // jobs in the dispatch

fn at(slot: u32, j: u32) -> u32 {
    return (slot * LIMBS + j) * lanes + lane;
}

// r = a·b·R⁻¹ mod n, using slot t as the accumulator. r may equal a or b (both are read
// before r is written); t must differ from r, a and b. Costs LIMBS loop iterations.
fn mont_mul(r: u32, a: u32, b: u32, t: u32, no: u32, n0inv: u32) {
    // t = t[0..LIMBS] + t_hi·2^(32·LIMBS)
    //#unroll J 0
    scratch[at(t, J)] = 0u;
    //#end
    var t_hi = 0u;
    for (var i = 0u; i < LIMBS; i = i + 1u) {
        // t += a·b[i]
        let bi = scratch[at(b, i)];
        var c = 0u;
        //#unroll J 0
        let x = mac(scratch[at(t, J)], scratch[at(a, J)], bi, c);
        scratch[at(t, J)] = x.x;
        c = x.y;
        //#end
        let s = adc(t_hi, c, 0u);
        let t_top = s.y;
        // t = (t + m·n) / 2^32, m chosen so that the low limb cancels
        let t0 = scratch[at(t, 0u)];
        let m = t0 * n0inv;
        c = mac(t0, m, moduli[no], 0u).y;
        //#unroll J 1
        let x = mac(scratch[at(t, J)], m, moduli[no + J], c);
        scratch[at(t, J - 1u)] = x.x;
        c = x.y;
        //#end
        let s2 = adc(s.x, c, 0u);
        scratch[at(t, LIMBS - 1u)] = s2.x;
        t_hi = t_top + s2.y;
    }
    // t < 2n: subtract n when t ≥ n, branch-free. First pass: does t − n borrow?
    var borrow = 0u;
    //#unroll J 0
    borrow = sbb(scratch[at(t, J)], moduli[no + J], borrow).y;
    //#end
    // t < n exactly when nothing spilled above LIMBS limbs and the subtraction borrowed
    let keep_t = (t_hi == 0u) & (borrow == 1u);
    borrow = 0u;
    //#unroll J 0
    let tj = scratch[at(t, J)];
    let d = sbb(tj, moduli[no + J], borrow);
    borrow = d.y;
    scratch[at(r, J)] = select(d.x, tj, keep_t);
    //#end
}
