// modexp.wgsl: the exponentiation steps on numbers kept in `scratch` (montgomery.wgsl's
// mont_mul), for the variants too large for modexp_regs.wgsl. Buffers, scratch layout and the
// dispatch sequence: modexp_io.wgsl.

// Table entries k = params.first … params.first + params.steps − 1 (k ≥ 1): k = 1 puts the
// base into Montgomery form (base·R²/R), k ≥ 2 is T[k] = T[k−1]·T[1]. One call site keeps
// the multiplication compiled once.
@compute @workgroup_size(WG)
fn modexp_table(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    let mo = modulus_offset();
    let n0inv = moduli[mo + 3u * LIMBS];
    for (var k = params.first; k < params.first + params.steps; k = k + 1u) {
        let first = k == 1u;
        mont_mul(S_TABLE + k, select(S_TABLE + k - 1u, S_TABLE + 1u, first), select(S_TABLE + 1u, S_TMP, first), S_T, mo, n0inv);
    }
}

// Constant-time in base and exponent: every window costs WINDOW squarings, a scan of the
// whole table and one multiplication, as WINDOW + 1 steps; this dispatch runs steps
// params.first … params.first + params.steps − 1. The table index is the only secret-dependent
// value and it only feeds `select`.
@compute @workgroup_size(WG)
fn modexp_windows(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    let mo = modulus_offset();
    let n0inv = moduli[mo + 3u * LIMBS];
    let eo = lane * params.exp_words;
    let windows = params.exp_words * (32u / WINDOW);
    for (var step = params.first; step < params.first + params.steps; step = step + 1u) {
        let phase = step % (WINDOW + 1u);
        if (phase == WINDOW) {
            // full-table scan for this window (the branch is on the public step count)
            let w = windows - step / (WINDOW + 1u);
            let bit = (w - 1u) * WINDOW;
            let idx = (exps[eo + bit / 32u] >> (bit % 32u)) & (TABLE - 1u);
            //#unroll J 0
            scratch[at(S_SEL, J)] = 0u;
            //#end
            for (var k = 0u; k < TABLE; k = k + 1u) {
                // every entry loaded, masked to zero unless it is entry idx, ORed in
                let mask = select(0u, 0xffffffffu, k == idx);
                //#unroll J 0
                scratch[at(S_SEL, J)] |= scratch[at(S_TABLE + k, J)] & mask;
                //#end
            }
        }
        mont_mul(S_ACC, S_ACC, select(S_ACC, S_SEL, phase == WINDOW), S_T, mo, n0inv);
    }
}

// NOTE: variable-time in the exponent (square-and-multiply from the top set bit, branching on
// each bit). For public exponents only: RSA verification.
@compute @workgroup_size(WG)
fn modexp_bits_vartime(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    let mo = modulus_offset();
    let n0inv = moduli[mo + 3u * LIMBS];
    let eo = lane * params.exp_words;
    let bits = params.exp_words * 32u;
    // the top set bit (a zero exponent never multiplies)
    let top = exponent_top_bit_vartime(eo);
    for (var s = 0u; s < params.steps; s = s + 1u) {
        let i = bits - 1u - (params.first + s);
        if (i < top) {
            mont_mul(S_ACC, S_ACC, S_ACC, S_T, mo, n0inv);
        }
        if (((exps[eo + i / 32u] >> (i % 32u)) & 1u) == 1u) {
            mont_mul(S_ACC, S_ACC, S_TABLE + 1u, S_T, mo, n0inv);
        }
    }
}

@compute @workgroup_size(WG)
fn modexp_finish(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    let mo = modulus_offset();
    //#unroll J 0
    scratch[at(S_TMP, J)] = select(0u, 1u, J == 0u);
    //#end
    mont_mul(S_ACC, S_ACC, S_TMP, S_T, mo, moduli[mo + 3u * LIMBS]);
    let ro = lane * LIMBS;
    //#unroll J 0
    results[ro + J] = scratch[at(S_ACC, J)];
    //#end
}
