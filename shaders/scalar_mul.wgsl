// scalar_mul.wgsl: batched k·G, k·Q and u₁·G + u₂·Q, one invocation per job, every
// intermediate in registers (field.wgsl, point.wgsl).
//
// Buffers (u32 words, little-endian limbs; LIMBS, WINDOWS, DIGITS and WG come from the
// prelude, and so do the curve's constants):
//   base_table the fixed-base table, built once per curve: for window i < BASE_WINDOWS and
//              1 ≤ d ≤ BASE_DIGITS the affine point d·2^(BASE_W·i)·G (Montgomery form) at
//              word ((i·BASE_DIGITS + d − 1)·2 + coordinate)·LIMBS
//   jobs       per job JOB_STRIDE words: k_G[LIMBS], k_Q[LIMBS] (canonical scalars < n),
//              Q = X, Y, Z (Montgomery form, the identity as (0 : 1 : 0)); for
//              ec_double_shared_vartime the first word of X is instead where the job's
//              point table starts in `point_tables` (a word index), the rest unused
//   point_tables (ec_double_shared_vartime only) per shared point Q a table laid out as
//              base_table with SHARED_W-bit windows: for window i < SHARED_WINDOWS and
//              1 ≤ d ≤ SHARED_DIGITS the affine d·2^(SHARED_W·i)·Q at word
//              ((i·SHARED_DIGITS + d − 1)·2 + coordinate)·LIMBS from the table's start
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
//   u₁·G + u₂·Q under a shared Q (ec_double_shared_vartime, verification only)
//                BASE_WINDOWS shared steps over base_table for u₁, then SHARED_WINDOWS over
//                the job's point table for u₂, all into one accumulator: each step loads
//                the digit's entry by its index (no scan) and adds it, no doublings
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
// constants and the public step counter. The exception is ec_double_shared_vartime
// (verification, public scalars and points): its table loads are addressed by the digits.

struct Params {
    count: u32,
    total: u32,
    first: u32,
    steps: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> base_table: array<u32>;
@group(0) @binding(2) var<storage, read> jobs: array<u32>;
@group(0) @binding(3) var<storage, read> point_tables: array<u32>;
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
var<private> acc: Pt;   // k·Q (and at the end u₁·G + u₂·Q; all of it when Q is shared)
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

// The signed digit i of `w` bits of the scalar at word `off`, as (|d|, all-ones where
// d < 0): Booth recoding of bits [w·i − 1, w·i + w) (bit −1 is 0), as in OpenSSL's
// ecp_nistz256 (there with 7 bits), branch-free; w ≤ 7, |d| ≤ 2^(w − 1).
fn booth_digit(off: u32, i: u32, w: u32) -> vec2<u32> {
    var raw = 0u;
    if (i == 0u) {
        raw = bits8(off, 0u) << 1u;
    } else {
        raw = bits8(off, w * i - 1u);
    }
    raw &= (2u << w) - 1u; // w + 1 bits
    let neg = 0u - (raw >> w); // all-ones for a negative digit
    let flipped = (1u << (w + 1u)) - raw - 1u;
    let t = (flipped & neg) | (raw & ~neg);
    return vec2<u32>((t >> 1u) + (t & 1u), neg);
}

// Base step i: acc_G += d·2^(BASE_W·i)·G, d the signed digit i of the scalar at word `off`.
fn base_step(off: u32, i: u32) {
    let digit = booth_digit(off, i, BASE_W);
    let d = digit.x;
    let neg = digit.y;
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

// Step s of u₁·G + u₂·Q under a shared Q: acc += d·2^(w·i)·P, for s < BASE_WINDOWS the
// digit i = s of u₁ (w = BASE_W) and P = G from base_table, after that the digit
// i = s − BASE_WINDOWS of u₂ (w = SHARED_W) and P = Q from the job's point table. The entry
// is loaded at the digit's address, not found by a scan: variable-time in the scalars,
// which verification makes public. The digit 0 (no entry: entry 1 is loaded and dropped)
// is a select, not a branch, so the lanes of a workgroup stay together; one mixed addition
// serves both tables.
fn shared_step_vartime(s: u32) {
    var x: Fe;
    var y: Fe;
    var digit: vec2<u32>;
    // the branch is on the public step counter
    if (s < BASE_WINDOWS) {
        digit = booth_digit(J_KG, s, BASE_W);
        let e = (s * BASE_DIGITS + max(digit.x, 1u) - 1u) * 2u * LIMBS;
        //#unroll J 0
        x[J] = to_word(base_table[e + J]);
        y[J] = to_word(base_table[e + LIMBS + J]);
        //#end
    } else {
        let i = s - BASE_WINDOWS;
        digit = booth_digit(J_KQ, i, SHARED_W);
        let start = jobs[lane * JOB_STRIDE + J_Q];
        let e = start + (i * SHARED_DIGITS + max(digit.x, 1u) - 1u) * 2u * LIMBS;
        //#unroll J 0
        x[J] = to_word(point_tables[e + J]);
        y[J] = to_word(point_tables[e + LIMBS + J]);
        //#end
    }
    let ny = fe_sub(Fe(), y);
    let negw = mask_w(digit.y != 0u);
    //#unroll J 0
    y[J] = (ny[J] & negw) | (y[J] & ~negw);
    //#end
    acc = pt_select(acc, pt_add_affine(acc, x, y), digit.x == 0u);
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

// Sets lane and the state: fresh for the first dispatch, else from `scratch` (acc only where
// `full` is false: ec_double_shared_vartime keeps nothing else; `full` is a constant at
// every call). False for the padding invocations of the last workgroup.
fn enter(gid: vec3<u32>, full: bool) -> bool {
    lane = gid.x;
    if (lane >= params.count) {
        return false;
    }
    if (params.first == 0u) {
        acc = pt_identity();
        if (full) {
            acc_g = pt_identity();
            tab[0] = pt_identity();
            tab[1] = Pt(job_fe(J_Q), job_fe(J_Q + LIMBS), job_fe(J_Q + 2u * LIMBS));
        }
    } else {
        acc = load_pt(0u);
        if (full) {
            acc_g = load_pt(3u);
            for (var j = 0u; j < DIGITS; j = j + 1u) {
                tab[j] = load_pt(6u + 3u * j);
            }
        }
    }
    return true;
}

// After the dispatch's steps: the result into `results` after the last step, else the
// state into `scratch` (acc only where `full` is false, as for enter).
fn leave(result: Pt, full: bool) {
    if (params.first + params.steps < params.total) {
        save_pt(0u, acc);
        if (full) {
            save_pt(3u, acc_g);
            for (var j = 0u; j < DIGITS; j = j + 1u) {
                save_pt(6u + 3u * j, tab[j]);
            }
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
    if (!enter(gid, true)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        base_step(J_KG, s);
    }
    leave(acc_g, true);
}

// k·Q: TABLE_STEPS + WINDOWS point steps.
@compute @workgroup_size(WG)
fn ec_point(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid, true)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        point_step(J_KQ, s);
    }
    leave(acc, true);
}

// u₁·G + u₂·Q: BASE_WINDOWS base steps, then TABLE_STEPS + WINDOWS + 1 point steps.
@compute @workgroup_size(WG)
fn ec_double(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid, true)) {
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
    leave(acc, true);
}

// u₁·G + u₂·Q under a shared Q (verification; variable-time, see shared_step_vartime):
// BASE_WINDOWS + SHARED_WINDOWS shared steps.
@compute @workgroup_size(WG)
fn ec_double_shared_vartime(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!enter(gid, false)) {
        return;
    }
    for (var s = params.first; s < params.first + params.steps; s = s + 1u) {
        shared_step_vartime(s);
    }
    leave(acc, false);
}
