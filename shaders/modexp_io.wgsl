// modexp_io.wgsl: batched modular exponentiation, one invocation per job, in several dispatches:
// the buffers, the scratch layout and the load step, shared by the storage kernels
// (modexp.wgsl) and the register kernels (modexp_regs.wgsl).
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
// Windows and bits are counted from the most significant end. The step entry points come
// from modexp_regs.wgsl (LIMBS ≤ 64: numbers in function-scope arrays, state loaded from and
// stored to scratch at each dispatch's ends) or modexp.wgsl (numbers in scratch throughout).

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

// NOTE: variable-time in the exponent. The index of the exponent's top set bit (0 for a
// zero exponent), the exponent at word `eo` of `exps`; for the public exponents of
// modexp_bits_vartime only.
fn exponent_top_bit_vartime(eo: u32) -> u32 {
    var top = 0u;
    for (var i = 0u; i < params.exp_words; i = i + 1u) {
        let word = exps[eo + i];
        if (word != 0u) {
            top = 32u * i + 31u - countLeadingZeros(word);
        }
    }
    return top;
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

