// scalar_mul.wgsl: batched k·G, k·Q and u₁·G + u₂·Q, one invocation per job, every
// intermediate in registers (field.wgsl, point.wgsl).
//
// Buffers (u32 words, little-endian limbs; LIMBS, WINDOWS, DIGITS and WG come from the
// prelude, and so do the curve's constants):
//   base_table the fixed-base table, built once per curve: for window i < BASE_WINDOWS and
//              1 ≤ d ≤ BASE_DIGITS the affine point d·2^(BASE_W·i)·G (Montgomery form) at
//              word ((i·BASE_DIGITS + d − 1)·2 + coordinate)·LIMBS
//   jobs       per job JOB_STRIDE words: k_G[LIMBS], k_Q[LIMBS] (canonical scalars < n),
//              Q = X, Y, Z (Montgomery form, the identity as (0 : 1 : 0))
//   results    per job 3·LIMBS words: the result, projective, Montgomery form
//   scratch    the state between dispatches (below), STATE field elements per job,
//              interleaved across jobs: word j of element f of this job at
//              (f·LIMBS + j)·count + lane
// The host validates every job (scalars < n, Q on the curve).
//
// Each operation is a sequence of steps:
//   k·G          BASE_WINDOWS base steps: acc_G += d_i·2^(BASE_W·i)·G for the signed
//                (Booth) digits d_i of k, |d_i| ≤ BASE_DIGITS: a scan of the window's affine
//                entries for |d_i|, y negated where d_i < 0, and one mixed addition, kept
//                only where d_i ≠ 0
//   k·Q          DIGITS − 2 table steps T[j] = T[j−1] + Q (T[0] = O, T[1] = Q), then
//                WINDOWS window steps from the top: four doublings, a scan of the whole
//                table and one addition
//   u₁·G + u₂·Q  the base steps for u₁, the k·Q steps for u₂, and one last step acc + acc_G
// Digits come from the scalar's bits; window positions are public, so the reads of the
// words that hold them are plain loads.
// One dispatch runs steps params.first … params.first + params.steps − 1 of params.unused
// (the total, renamed `total` below). Where the adapter has no loop limit the host runs
// all steps in one dispatch; on llvmpipe, which ends every loop of an invocation silently
// after 65,535 iterations in all, it cuts the sequence into dispatches that stay under that,
// and the state (acc, acc_G, the table) goes through `scratch` from one to the next.
//
// Constant-time in the scalars and Q: digits come from shifts and masks, every table scan
// reads all entries and keeps one with masks, the digit 0 of k·G (no table entry) is a
// masked select, point formulas are complete; loop bounds and branches depend only on
// constants and the public step counter.

struct Params {
    count: u32,
    total: u32,
    first: u32,
    steps: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> base_table: array<u32>;
@group(0) @binding(2) var<storage, read> jobs: array<u32>;
@group(0) @binding(4) var<storage, read_write> results: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;

// a job in `jobs`
const J_KG: u32 = 0u;
const J_KQ: u32 = LIMBS;
const J_Q: u32 = 2u * LIMBS;
const JOB_STRIDE: u32 = 5u * LIMBS;

const TABLE_STEPS: u32 = DIGITS - 2u;
// field elements of the state in `scratch`: acc, acc_G, the table
const STATE: u32 = 3u * (DIGITS + 2u);

var<private> lane: u32; // this invocation's job within the dispatch
var<private> acc: Pt;   // k·Q (and at the end u₁·G + u₂·Q)
var<private> acc_g: Pt; // k·G
var<private> tab: array<Pt, DIGITS>; // T[j] = j·Q

// 4-bit digit `w` of the scalar at word `off` of this job (w < WINDOWS, 4·WINDOWS ≤ 32·LIMBS).
fn digit(off: u32, w: u32) -> u32 {
    let bit = 4u * w;
    return (jobs[lane * JOB_STRIDE + off + bit / 32u] >> (bit % 32u)) & 15u;
}

fn job_fe(off: u32) -> Fe {
    let o = lane * JOB_STRIDE + off;
    var r: Fe;
    //#unroll J 0
    r[J] = to_word(jobs[o + J]);
    //#end
    return r;
}

// Bits [start, start + 8) of the scalar at word `off` (zero above 32·LIMBS).
fn bits8(off: u32, start: u32) -> u32 {
    let o = lane * JOB_STRIDE + off;
    let w = start / 32u;
    let sh = start % 32u;
    var v = 0u;
    // the branches are on the public bit position
    if (w < LIMBS) {
        v = jobs[o + w] >> sh;
        if (sh > 24u && w + 1u < LIMBS) {
            v |= jobs[o + w + 1u] << (32u - sh);
        }
    }
    return v & 0xffu;
}

// Base step i: acc_G += d·2^(BASE_W·i)·G, d the signed digit i of the scalar at word `off`:
// Booth recoding of bits [BASE_W·i − 1, BASE_W·i + BASE_W) (bit −1 is 0), as in
// OpenSSL's ecp_nistz256 (there with 7 bits), branch-free; BASE_W ≤ 7.
fn base_step(off: u32, i: u32) {
    var raw = 0u;
    if (i == 0u) {
        raw = bits8(off, 0u) << 1u;
    } else {
        raw = bits8(off, BASE_W * i - 1u);
    }
    raw &= (2u << BASE_W) - 1u; // BASE_W + 1 bits
    let neg = 0u - (raw >> BASE_W); // all-ones for a negative digit
    let flipped = (1u << (BASE_W + 1u)) - raw - 1u;
    let t = (flipped & neg) | (raw & ~neg);
    let d = (t >> 1u) + (t & 1u); // |digit| ≤ BASE_DIGITS
    var sx: Fe;
    var sy: Fe;
    for (var j = 1u; j <= BASE_DIGITS; j = j + 1u) {
        // every entry loaded, masked to zero unless it is entry d, ORed in
        let mask = mask_w(j == d);
        let e = (i * BASE_DIGITS + j - 1u) * 2u * LIMBS;
        //#unroll J 0
        sx[J] |= to_word(base_table[e + J]) & mask;
        sy[J] |= to_word(base_table[e + LIMBS + J]) & mask;
        //#end
    }
    // −(x, y) = (x, p − y), selected by mask
    let ny = fe_sub(Fe(), sy);
    let negw = mask_w(neg != 0u);
    //#unroll J 0
    sy[J] = (ny[J] & negw) | (sy[J] & ~negw);
    //#end
    acc_g = pt_select(acc_g, pt_add_affine(acc_g, sx, sy), d == 0u);
}

// Step s of k·Q (scalar at word `off`): a table step, a window step, or (s = TABLE_STEPS +
// WINDOWS) the last addition acc + acc_G. One pt_add serves all three, so the formulas are
// compiled once; the branches are on the public step counter (on llvmpipe a table step
// also pays a few loop iterations for the window branch it skips: see ecc::step_costs).
fn point_step(off: u32, s: u32) {
    var a = acc;
    var b = acc_g;
    if (s < TABLE_STEPS) {
        a = tab[s + 1u];
        b = tab[1];
    } else if (s < TABLE_STEPS + WINDOWS) {
        for (var i = 0u; i < 4u; i = i + 1u) {
            a = pt_dbl(a);
        }
        let d = digit(off, TABLE_STEPS + WINDOWS - 1u - s);
        var sel: Pt;
        for (var j = 0u; j < DIGITS; j = j + 1u) {
            let mask = mask_w(j == d);
            //#unroll J 0
            sel.x[J] |= tab[j].x[J] & mask;
            sel.y[J] |= tab[j].y[J] & mask;
            sel.z[J] |= tab[j].z[J] & mask;
            //#end
        }
        b = sel;
    }
    let r = pt_add(a, b);
    if (s < TABLE_STEPS) {
        tab[s + 2u] = r;
    } else {
        acc = r;
    }
}

fn state_at(f: u32, j: u32) -> u32 {
    return (f * LIMBS + j) * params.count + lane;
}

fn save_pt(f: u32, p: Pt) {
    //#unroll J 0
    scratch[state_at(f, J)] = from_word(p.x[J]);
    scratch[state_at(f + 1u, J)] = from_word(p.y[J]);
    scratch[state_at(f + 2u, J)] = from_word(p.z[J]);
    //#end
}

fn load_pt(f: u32) -> Pt {
    var p: Pt;
    //#unroll J 0
    p.x[J] = to_word(scratch[state_at(f, J)]);
    p.y[J] = to_word(scratch[state_at(f + 1u, J)]);
    p.z[J] = to_word(scratch[state_at(f + 2u, J)]);
    //#end
    return p;
}

// Sets lane and the state: fresh for the first dispatch, else from `scratch`. False for the
// padding invocations of the last workgroup.
fn enter(gid: vec3<u32>) -> bool {
    lane = gid.x;
    if (lane >= params.count) {
        return false;
    }
    if (params.first == 0u) {
        acc = pt_identity();
        acc_g = pt_identity();
        tab[0] = pt_identity();
        tab[1] = Pt(job_fe(J_Q), job_fe(J_Q + LIMBS), job_fe(J_Q + 2u * LIMBS));
    } else {
        acc = load_pt(0u);
        acc_g = load_pt(3u);
        for (var j = 0u; j < DIGITS; j = j + 1u) {
            tab[j] = load_pt(6u + 3u * j);
        }
    }
    return true;
}

// After the dispatch's steps: the result into `results` after the last step, else the
// state into `scratch`.
fn leave(result: Pt) {
    if (params.first + params.steps < params.total) {
        save_pt(0u, acc);
        save_pt(3u, acc_g);
        for (var j = 0u; j < DIGITS; j = j + 1u) {
            save_pt(6u + 3u * j, tab[j]);
        }
        return;
    }
    let o = lane * 3u * LIMBS;
    //#unroll J 0
    results[o + J] = from_word(result.x[J]);
    results[o + LIMBS + J] = from_word(result.y[J]);
    results[o + 2u * LIMBS + J] = from_word(result.z[J]);
    //#end
}

// k·G: BASE_WINDOWS base steps.
@compute @workgroup_size(WG)
fn ec_base(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        base_step(J_KG, s);
    }
    leave(acc_g);
}

// k·Q: TABLE_STEPS + WINDOWS point steps.
@compute @workgroup_size(WG)
fn ec_point(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        point_step(J_KQ, s);
    }
    leave(acc);
}

// u₁·G + u₂·Q: BASE_WINDOWS base steps, then TABLE_STEPS + WINDOWS + 1 point steps.
@compute @workgroup_size(WG)
fn ec_double(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid)) {
        return;
    }
    // two loops rather than a branch per step: llvmpipe runs a branch its lanes do not take
    // with their mask off, and every loop in it still costs iterations of the loop budget
    let end = params.first + params.steps;
    for (var s = params.first; s < min(end, BASE_WINDOWS); s = s + 1u) {
        base_step(J_KG, s);
    }
    for (var s = max(params.first, BASE_WINDOWS); s < end; s = s + 1u) {
        point_step(J_KQ, s - BASE_WINDOWS);
    }
    leave(acc);
}
