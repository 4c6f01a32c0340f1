// modexp.wgsl: batched modular exponentiation, one invocation per job, in several dispatches.
//
// Buffers (u32 words, little-endian limbs; LIMBS, WINDOW, TABLE and WG come from the prelude):
//   moduli  per modulus MOD_STRIDE words: n[LIMBS], R² mod n [LIMBS], R mod n [LIMBS], n0inv
//   jobs    per job JOB_STRIDE words: base[LIMBS] (canonical, < n), modulus index
//   exps    per job params.exp_words words: the exponent, zero-padded to the batch's width
//   results per job LIMBS words: base^exp mod n, canonical
//   scratch SLOTS slots per job, interleaved across jobs (see montgomery.wgsl)
// R = 2^(32·LIMBS). The host validates every job (base < n, modulus index in range, n odd).
//
// Sequence (the host sizes params.steps so each dispatch stays under llvmpipe's loop budget):
//   modexp_load                 acc = 1, the base and R² into scratch
//   modexp_table × k            table entries params.first … (entry 1: the base in Montgomery
//                               form, all the variable-time path needs; up to TABLE − 1)
//   modexp_windows × k          constant-time: params.steps steps (WINDOW + 1 per window)
//   modexp_bits_vartime × k     variable-time: params.steps bits from bit params.first
//   modexp_finish               acc out of Montgomery form into `results`
// Windows and bits are counted from the most significant end.

struct Params {
    count: u32,
    exp_words: u32,
    first: u32,
    steps: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> moduli: array<u32>;
@group(0) @binding(2) var<storage, read> jobs: array<u32>;
@group(0) @binding(3) var<storage, read> exps: array<u32>;
@group(0) @binding(4) var<storage, read_write> results: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;

const MOD_STRIDE: u32 = 3u * LIMBS + 1u;
const JOB_STRIDE: u32 = LIMBS + 1u;

// scratch slots
const S_TABLE: u32 = 0u;          // TABLE slots: base^k in Montgomery form (S_TABLE + 1: base)
const S_ACC: u32 = TABLE;         // the running power
const S_SEL: u32 = TABLE + 1u;    // the table entry picked for this window
const S_T: u32 = TABLE + 2u;      // CIOS accumulator
const S_TMP: u32 = TABLE + 3u;    // R² mod n, then 1
const SLOTS: u32 = TABLE + 4u;

// Sets lane/lanes; false for the padding invocations of the last workgroup.
fn enter(gid: vec3<u32>) -> bool {
    lane = gid.x;
    lanes = params.count;
    return lane < lanes;
}

// Word offset of this job's modulus record in `moduli`.
fn modulus_offset() -> u32 {
    return jobs[lane * JOB_STRIDE + LIMBS] * MOD_STRIDE;
}

// S_TABLE = S_ACC = R mod n (1 in Montgomery form), S_TABLE + 1 = base, S_TMP = R² mod n.
@compute @workgroup_size(WG)
fn modexp_load(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    let jo = lane * JOB_STRIDE;
    let mo = modulus_offset();
    //#unroll J 0
    scratch[at(S_TABLE, J)] = moduli[mo + 2u * LIMBS + J];
    scratch[at(S_ACC, J)] = moduli[mo + 2u * LIMBS + J];
    scratch[at(S_TABLE + 1u, J)] = jobs[jo + J];
    scratch[at(S_TMP, J)] = moduli[mo + LIMBS + J];
    //#end
}

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
    var top = 0u;
    for (var i = 0u; i < params.exp_words; i = i + 1u) {
        let word = exps[eo + i];
        if (word != 0u) {
            top = 32u * i + 31u - countLeadingZeros(word);
        }
    }
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
