// scalar_mul.wgsl: batched k·G, k·Q and u₁·G + u₂·Q, one invocation per job, in several
// dispatches.
//
// Buffers (u32 words, little-endian limbs; LIMBS, WINDOWS and WG come from the prelude):
//   moduli    the curve: p, R mod p (1 in Montgomery form), b (Montgomery), −p⁻¹ mod 2^32
//   jobs      per job JOB_STRIDE words: k_G[LIMBS], k_Q[LIMBS] (canonical scalars < n),
//             Q = X, Y, Z (Montgomery form, the identity as (0 : 1 : 0))
//   base_table the fixed-base table, built once per curve: for window i < WINDOWS and digit
//             d < 16 the point d·16^i·G (projective, Montgomery form; d = 0 the identity) at
//             word ((i·16 + d)·3 + coordinate)·LIMBS
//   results   per job 3·LIMBS words: k_G·G + k_Q·Q, projective, Montgomery form
//   scratch   the slots below, interleaved across jobs (montgomery.wgsl)
// R = 2^(32·LIMBS). The host validates every job (scalars < n, Q on the curve).
//
// Sequence (the host sizes params.steps so each dispatch stays under llvmpipe's loop budget):
//   ec_load                 b, both accumulators = O; with params.first = 1 also the
//                           Q table's first entries T[0] = O, T[1] = Q
//   ec_table × k            T[j] = T[j−1] + Q for j = params.first …   (k·Q only)
//   ec_windows × k          k_Q·Q: unsigned 4-bit windows from the top, each 4 doublings,
//                           a scan of the whole table and one addition: 5 steps per window
//   ec_base × k             k_G·G: one scan of window i of `base` and one addition per i
//   ec_finish               acc_Q + acc_G into `results`
//
// Constant-time in the scalars and Q: digits come from shifts and masks, every table scan
// reads all 16 entries and keeps one with `select`, point formulas are complete (no branch
// on the identity or on P = Q); branches depend only on the public step counters.

struct Params {
    count: u32,
    unused: u32,
    first: u32,
    steps: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> moduli: array<u32>;
@group(0) @binding(2) var<storage, read> jobs: array<u32>;
@group(0) @binding(3) var<storage, read> base_table: array<u32>;
@group(0) @binding(4) var<storage, read_write> results: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;

// the curve record in `moduli`
const M_P: u32 = 0u;
const M_ONE: u32 = LIMBS;
const M_B: u32 = 2u * LIMBS;
const M_N0INV: u32 = 3u * LIMBS;

// a job in `jobs`
const J_KG: u32 = 0u;
const J_KQ: u32 = LIMBS;
const J_Q: u32 = 2u * LIMBS;
const JOB_STRIDE: u32 = 5u * LIMBS;

// scratch slots
const S_B: u32 = 0u;      // b
const S_T: u32 = 1u;      // CIOS accumulator, field temporary
const S_O: u32 = 2u;      // point_run output (3 slots)
const S_TMP: u32 = 5u;    // point_run temporaries t0 … t4 (5 slots)
const S_ACC: u32 = 10u;   // k_Q·Q accumulator (3 slots)
const S_ACC_G: u32 = 13u; // k_G·G accumulator (3 slots)
const S_SEL: u32 = 16u;   // the table entry picked for this window (3 slots)
const S_TAB: u32 = 19u;   // T[j] = j·Q, j < 16 (48 slots): only when the batch has a Q
// SLOTS_BASE = 19 and SLOTS_POINT = 67: the host sizes `scratch` by them (ecc.rs)

// Sets lane/lanes; false for the padding invocations of the last workgroup.
fn enter(gid: vec3<u32>) -> bool {
    lane = gid.x;
    lanes = params.count;
    return lane < lanes;
}

// 4-bit digit `w` of the scalar at word `off` of this job (w < WINDOWS, 4·WINDOWS ≤ 32·LIMBS).
fn digit(off: u32, w: u32) -> u32 {
    let bit = 4u * w;
    return (jobs[lane * JOB_STRIDE + off + bit / 32u] >> (bit % 32u)) & 15u;
}

// S_SEL = T[d], reading all 16 entries: every entry is loaded and ANDed with a mask that is
// all ones only at d, and the results ORed together (no select around a load).
fn select_from_table(d: u32) {
    //#unroll J 0
    scratch[at(S_SEL, J)] = 0u;
    scratch[at(S_SEL + 1u, J)] = 0u;
    scratch[at(S_SEL + 2u, J)] = 0u;
    //#end
    for (var j = 0u; j < 16u; j = j + 1u) {
        let mask = select(0u, 0xffffffffu, j == d);
        let e = S_TAB + 3u * j;
        //#unroll J 0
        scratch[at(S_SEL, J)] |= scratch[at(e, J)] & mask;
        scratch[at(S_SEL + 1u, J)] |= scratch[at(e + 1u, J)] & mask;
        scratch[at(S_SEL + 2u, J)] |= scratch[at(e + 2u, J)] & mask;
        //#end
    }
}

// S_SEL = d·16^w·G from `base`, reading all 16 entries of window w (masked, as above).
fn select_from_base(w: u32, d: u32) {
    //#unroll J 0
    scratch[at(S_SEL, J)] = 0u;
    scratch[at(S_SEL + 1u, J)] = 0u;
    scratch[at(S_SEL + 2u, J)] = 0u;
    //#end
    for (var j = 0u; j < 16u; j = j + 1u) {
        let mask = select(0u, 0xffffffffu, j == d);
        let e = (w * 16u + j) * 3u * LIMBS;
        //#unroll J 0
        scratch[at(S_SEL, J)] |= base_table[e + J] & mask;
        scratch[at(S_SEL + 1u, J)] |= base_table[e + LIMBS + J] & mask;
        scratch[at(S_SEL + 2u, J)] |= base_table[e + 2u * LIMBS + J] & mask;
        //#end
    }
}

@compute @workgroup_size(WG)
fn ec_load(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    //#unroll J 0
    scratch[at(S_B, J)] = moduli[M_B + J];
    //#end
    point_set_identity(S_ACC);
    point_set_identity(S_ACC_G);
    if (params.first == 1u) {
        point_set_identity(S_TAB);
        let q = lane * JOB_STRIDE + J_Q;
        //#unroll J 0
        scratch[at(S_TAB + 3u, J)] = jobs[q + J];
        scratch[at(S_TAB + 4u, J)] = jobs[q + LIMBS + J];
        scratch[at(S_TAB + 5u, J)] = jobs[q + 2u * LIMBS + J];
        //#end
    }
}

// T[j] = T[j − 1] + T[1] for j = params.first … params.first + params.steps − 1 (j ≥ 2).
@compute @workgroup_size(WG)
fn ec_table(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    for (var j = params.first; j < params.first + params.steps; j = j + 1u) {
        point_add(S_TAB + 3u * j, S_TAB + 3u * (j - 1u), S_TAB + 3u);
    }
}

// Steps params.first … of k_Q·Q: step s is in window WINDOWS − 1 − s/5 (from the top);
// phases 0–3 double the accumulator (Algorithm 6), phase 4 adds the window's table entry.
@compute @workgroup_size(WG)
fn ec_windows(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        let add = s % 5u == 4u;
        if (add) {
            // the branch is on the public step counter
            select_from_table(digit(J_KQ, WINDOWS - 1u - s / 5u));
        }
        // one call site for both (see point.wgsl)
        point_run(S_ACC, S_ACC, S_SEL, !add);
    }
}

// Windows params.first … of k_G·G: acc_G += d_i·16^i·G.
@compute @workgroup_size(WG)
fn ec_base(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    for (var w = params.first; w < params.first + params.steps; w = w + 1u) {
        select_from_base(w, digit(J_KG, w));
        point_add(S_ACC_G, S_ACC_G, S_SEL);
    }
}

@compute @workgroup_size(WG)
fn ec_finish(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    point_add(S_O, S_ACC, S_ACC_G);
    let ro = lane * 3u * LIMBS;
    //#unroll J 0
    results[ro + J] = scratch[at(S_O, J)];
    results[ro + LIMBS + J] = scratch[at(S_O + 1u, J)];
    results[ro + 2u * LIMBS + J] = scratch[at(S_O + 2u, J)];
    //#end
}
