// modexp_regs.wgsl: the exponentiation steps with the working set in function-scope arrays
// (montgomery_regs.wgsl), for LIMBS ≤ 64. Same entry points, parameters and scratch layout as
// modexp.wgsl (see modexp_io.wgsl), so the host's dispatch sequence is unchanged; only the
// costs differ. State crosses dispatches through `scratch`: each dispatch loads the running
// power (and the table) into function-scope arrays at its start and stores the running power
// at its end. The modulus is loaded once per dispatch (load_modulus).
//
// Loop iterations per invocation (llvmpipe's budget, see shaders.rs): a product costs LIMBS,
// a table load or scan TABLE, every other limb loop is written out. The host's plan
// (`dispatch_plan` in modexp.rs) counts the same.

// Number `slot` of this job from scratch.
fn load_slot(slot: u32) -> Limbs {
    var x: Limbs;
    //#unroll J 0
    x[J] = to_word(scratch[at(slot, J)]);
    //#end
    return x;
}

fn store_slot(slot: u32, x: Limbs) {
    //#unroll J 0
    scratch[at(slot, J)] = from_word(x[J]);
    //#end
}

// Table entries k = params.first … params.first + params.steps − 1 (k ≥ 1): k = 1 puts the
// base into Montgomery form (base·R²/R), k ≥ 2 is T[k] = T[k−1]·T[1]. One call site keeps
// the product compiled once. Costs steps·(LIMBS + 1) iterations.
@compute @workgroup_size(WG)
fn modexp_table(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    load_modulus(modulus_offset());
    // slot 1 holds the raw base until entry 1 is written, base·R mod n after
    var t1 = load_slot(S_TABLE + 1u);
    var prev = load_slot(S_TABLE + params.first - 1u);
    let r2 = load_slot(S_TMP);
    for (var k = params.first; k < params.first + params.steps; k = k + 1u) {
        let first = k == 1u;
        var a: Limbs;
        var b: Limbs;
        //#unroll J 0
        a[J] = select(prev[J], t1[J], first);
        b[J] = select(t1[J], r2[J], first);
        //#end
        prev = mont_mul_regs(a, b);
        store_slot(S_TABLE + k, prev);
        //#unroll J 0
        t1[J] = select(t1[J], prev[J], first);
        //#end
    }
}

// Constant-time in base and exponent: every window costs WINDOW squarings, a scan of the
// whole table and one multiplication, as WINDOW + 1 steps; this dispatch runs steps
// params.first … params.first + params.steps − 1 (the host starts dispatches on window
// boundaries, but any split is correct). The table index `idx` is the only secret-dependent
// value and it only feeds the masks of the scan: all TABLE entries are loaded, each is ANDed
// with an all-ones or all-zeros mask and ORed in, so the loads, their addresses and the
// instruction stream are the same for every exponent. The branch on `phase` is on the
// public step count. Costs TABLE (the table load) + steps·(LIMBS + 1) + TABLE per window
// scanned.
@compute @workgroup_size(WG)
fn modexp_windows(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    load_modulus(modulus_offset());
    let eo = lane * params.exp_words;
    let windows = params.exp_words * (32u / WINDOW);
    var table: array<Limbs, TABLE>;
    for (var k = 0u; k < TABLE; k = k + 1u) {
        table[k] = load_slot(S_TABLE + k);
    }
    var acc = load_slot(S_ACC);
    for (var step = params.first; step < params.first + params.steps; step = step + 1u) {
        let phase = step % (WINDOW + 1u);
        var b = acc;
        if (phase == WINDOW) {
            let w = windows - step / (WINDOW + 1u);
            let bit = (w - 1u) * WINDOW;
            let idx = (exps[eo + bit / 32u] >> (bit % 32u)) & (TABLE - 1u);
            var sel: Limbs;
            for (var k = 0u; k < TABLE; k = k + 1u) {
                // every entry loaded, masked to zero unless it is entry idx, ORed in
                let mask = mask_w(k == idx);
                //#unroll J 0
                sel[J] |= table[k][J] & mask;
                //#end
            }
            b = sel;
        }
        acc = mont_mul_regs(acc, b);
    }
    store_slot(S_ACC, acc);
}

// NOTE: variable-time in the exponent (square-and-multiply from the top set bit, branching on
// each bit). For public exponents only: RSA verification. Costs exp_words +
// steps·(2·LIMBS + 1).
@compute @workgroup_size(WG)
fn modexp_bits_vartime(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    load_modulus(modulus_offset());
    let eo = lane * params.exp_words;
    let bits = params.exp_words * 32u;
    // the top set bit (a zero exponent never multiplies)
    let top = exponent_top_bit_vartime(eo);
    let base = load_slot(S_TABLE + 1u);
    var acc = load_slot(S_ACC);
    for (var s = 0u; s < params.steps; s = s + 1u) {
        let i = bits - 1u - (params.first + s);
        if (i < top) {
            acc = mont_mul_regs(acc, acc);
        }
        if (((exps[eo + i / 32u] >> (i % 32u)) & 1u) == 1u) {
            acc = mont_mul_regs(acc, base);
        }
    }
    store_slot(S_ACC, acc);
}

// The running power out of Montgomery form into `results`. Costs LIMBS.
@compute @workgroup_size(WG)
fn modexp_finish(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    load_modulus(modulus_offset());
    var one: Limbs;
    one[0] = to_word(1u);
    let r = mont_mul_regs(load_slot(S_ACC), one);
    let ro = lane * LIMBS;
    //#unroll J 0
    results[ro + J] = from_word(r[J]);
    //#end
}
