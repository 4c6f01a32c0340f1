// point.wgsl: points of y² = x³ − 3x + b in homogeneous projective coordinates (X : Y : Z),
// Montgomery form, three consecutive slots per point; the identity is (0 : 1 : 0).
//
// point_run adds or doubles with the complete Renes–Costello–Batina formulas for a = −3
// (eprint 2015/1060): Algorithm 4, addition, 12M + 2m_b + 29a, and Algorithm 6, doubling,
// 8M + 3S + 2m_b + 21a; the formulas batch-scalar's `ecc/point.rs` implements, with the same
// step numbers. Complete on prime-order curves: the identity, P = Q and P = −Q need no special
// case, and nothing branches on a point.
//
// The steps run as small programs (ADD_PROGRAM, DBL_PROGRAM below), one loop iteration per
// step in one loop (point_run), so the field multiplication has one call site: llvmpipe
// inlines every call, and 14 inlined unrolled multiplications would make compilation slow.
// The step sequence is public.

// Step encoding: kind << 24 | destination << 16 | a << 8 | b, over these registers:
const R_X1: u32 = 0u;  // first input, X Y Z
const R_Y1: u32 = 1u;
const R_Z1: u32 = 2u;
const R_X2: u32 = 3u;  // second input
const R_Y2: u32 = 4u;
const R_Z2: u32 = 5u;
const R_X3: u32 = 6u;  // output (slots S_O …)
const R_Y3: u32 = 7u;
const R_Z3: u32 = 8u;
const R_T0: u32 = 9u;  // temporaries (slots S_TMP …)
const R_T1: u32 = 10u;
const R_T2: u32 = 11u;
const R_T3: u32 = 12u;
const R_T4: u32 = 13u;
const R_B: u32 = 14u;  // the curve's b (slot S_B)

const K_MUL: u32 = 0x0000000u;
const K_ADD: u32 = 0x1000000u;
const K_SUB: u32 = 0x2000000u;
const D: u32 = 0x10000u;   // destination multiplier
const A: u32 = 0x100u;     // first operand multiplier

const ADD_STEPS: u32 = 43u;
var<private> ADD_PROGRAM: array<u32, 43> = array<u32, 43>(
    K_MUL + D * R_T0 + A * R_X1 + R_X2,  //  1 t0 = X1·X2
    K_MUL + D * R_T1 + A * R_Y1 + R_Y2,  //  2 t1 = Y1·Y2
    K_MUL + D * R_T2 + A * R_Z1 + R_Z2,  //  3 t2 = Z1·Z2
    K_ADD + D * R_T3 + A * R_X1 + R_Y1,  //  4 t3 = X1 + Y1
    K_ADD + D * R_T4 + A * R_X2 + R_Y2,  //  5 t4 = X2 + Y2
    K_MUL + D * R_T3 + A * R_T3 + R_T4,  //  6 t3 = t3·t4
    K_ADD + D * R_T4 + A * R_T0 + R_T1,  //  7 t4 = t0 + t1
    K_SUB + D * R_T3 + A * R_T3 + R_T4,  //  8 t3 = t3 − t4
    K_ADD + D * R_T4 + A * R_Y1 + R_Z1,  //  9 t4 = Y1 + Z1
    K_ADD + D * R_X3 + A * R_Y2 + R_Z2,  // 10 X3 = Y2 + Z2
    K_MUL + D * R_T4 + A * R_T4 + R_X3,  // 11 t4 = t4·X3
    K_ADD + D * R_X3 + A * R_T1 + R_T2,  // 12 X3 = t1 + t2
    K_SUB + D * R_T4 + A * R_T4 + R_X3,  // 13 t4 = t4 − X3
    K_ADD + D * R_X3 + A * R_X1 + R_Z1,  // 14 X3 = X1 + Z1
    K_ADD + D * R_Y3 + A * R_X2 + R_Z2,  // 15 Y3 = X2 + Z2
    K_MUL + D * R_X3 + A * R_X3 + R_Y3,  // 16 X3 = X3·Y3
    K_ADD + D * R_Y3 + A * R_T0 + R_T2,  // 17 Y3 = t0 + t2
    K_SUB + D * R_Y3 + A * R_X3 + R_Y3,  // 18 Y3 = X3 − Y3
    K_MUL + D * R_Z3 + A * R_B + R_T2,   // 19 Z3 = b·t2
    K_SUB + D * R_X3 + A * R_Y3 + R_Z3,  // 20 X3 = Y3 − Z3
    K_ADD + D * R_Z3 + A * R_X3 + R_X3,  // 21 Z3 = X3 + X3
    K_ADD + D * R_X3 + A * R_X3 + R_Z3,  // 22 X3 = X3 + Z3
    K_SUB + D * R_Z3 + A * R_T1 + R_X3,  // 23 Z3 = t1 − X3
    K_ADD + D * R_X3 + A * R_T1 + R_X3,  // 24 X3 = t1 + X3
    K_MUL + D * R_Y3 + A * R_B + R_Y3,   // 25 Y3 = b·Y3
    K_ADD + D * R_T1 + A * R_T2 + R_T2,  // 26 t1 = t2 + t2
    K_ADD + D * R_T2 + A * R_T1 + R_T2,  // 27 t2 = t1 + t2
    K_SUB + D * R_Y3 + A * R_Y3 + R_T2,  // 28 Y3 = Y3 − t2
    K_SUB + D * R_Y3 + A * R_Y3 + R_T0,  // 29 Y3 = Y3 − t0
    K_ADD + D * R_T1 + A * R_Y3 + R_Y3,  // 30 t1 = Y3 + Y3
    K_ADD + D * R_Y3 + A * R_T1 + R_Y3,  // 31 Y3 = t1 + Y3
    K_ADD + D * R_T1 + A * R_T0 + R_T0,  // 32 t1 = t0 + t0
    K_ADD + D * R_T0 + A * R_T1 + R_T0,  // 33 t0 = t1 + t0
    K_SUB + D * R_T0 + A * R_T0 + R_T2,  // 34 t0 = t0 − t2
    K_MUL + D * R_T1 + A * R_T4 + R_Y3,  // 35 t1 = t4·Y3
    K_MUL + D * R_T2 + A * R_T0 + R_Y3,  // 36 t2 = t0·Y3
    K_MUL + D * R_Y3 + A * R_X3 + R_Z3,  // 37 Y3 = X3·Z3
    K_ADD + D * R_Y3 + A * R_Y3 + R_T2,  // 38 Y3 = Y3 + t2
    K_MUL + D * R_X3 + A * R_X3 + R_T3,  // 39 X3 = X3·t3
    K_SUB + D * R_X3 + A * R_X3 + R_T1,  // 40 X3 = X3 − t1
    K_MUL + D * R_Z3 + A * R_Z3 + R_T4,  // 41 Z3 = Z3·t4
    K_MUL + D * R_T1 + A * R_T3 + R_T0,  // 42 t1 = t3·t0
    K_ADD + D * R_Z3 + A * R_Z3 + R_T1,  // 43 Z3 = Z3 + t1
);

// The slot of register `reg` when the inputs are the points at slots p1 and p2.
fn reg_slot(reg: u32, p1: u32, p2: u32) -> u32 {
    return select(
        select(select(S_B, S_TMP + reg - R_T0, reg < R_B), S_O + reg - R_X3, reg < R_T0),
        select(p2 + reg - R_X2, p1 + reg, reg < R_X2),
        reg < R_X3,
    );
}

const DBL_STEPS: u32 = 34u;
var<private> DBL_PROGRAM: array<u32, 34> = array<u32, 34>(
    K_MUL + D * R_T0 + A * R_X1 + R_X1,  //  1 t0 = X·X
    K_MUL + D * R_T1 + A * R_Y1 + R_Y1,  //  2 t1 = Y·Y
    K_MUL + D * R_T2 + A * R_Z1 + R_Z1,  //  3 t2 = Z·Z
    K_MUL + D * R_T3 + A * R_X1 + R_Y1,  //  4 t3 = X·Y
    K_ADD + D * R_T3 + A * R_T3 + R_T3,  //  5 t3 = t3 + t3
    K_MUL + D * R_Z3 + A * R_X1 + R_Z1,  //  6 Z3 = X·Z
    K_ADD + D * R_Z3 + A * R_Z3 + R_Z3,  //  7 Z3 = Z3 + Z3
    K_MUL + D * R_Y3 + A * R_B + R_T2,   //  8 Y3 = b·t2
    K_SUB + D * R_Y3 + A * R_Y3 + R_Z3,  //  9 Y3 = Y3 − Z3
    K_ADD + D * R_X3 + A * R_Y3 + R_Y3,  // 10 X3 = Y3 + Y3
    K_ADD + D * R_Y3 + A * R_X3 + R_Y3,  // 11 Y3 = X3 + Y3
    K_SUB + D * R_X3 + A * R_T1 + R_Y3,  // 12 X3 = t1 − Y3
    K_ADD + D * R_Y3 + A * R_T1 + R_Y3,  // 13 Y3 = t1 + Y3
    K_MUL + D * R_Y3 + A * R_X3 + R_Y3,  // 14 Y3 = X3·Y3
    K_MUL + D * R_X3 + A * R_X3 + R_T3,  // 15 X3 = X3·t3
    K_ADD + D * R_T3 + A * R_T2 + R_T2,  // 16 t3 = t2 + t2
    K_ADD + D * R_T2 + A * R_T2 + R_T3,  // 17 t2 = t2 + t3
    K_MUL + D * R_Z3 + A * R_B + R_Z3,   // 18 Z3 = b·Z3
    K_SUB + D * R_Z3 + A * R_Z3 + R_T2,  // 19 Z3 = Z3 − t2
    K_SUB + D * R_Z3 + A * R_Z3 + R_T0,  // 20 Z3 = Z3 − t0
    K_ADD + D * R_T3 + A * R_Z3 + R_Z3,  // 21 t3 = Z3 + Z3
    K_ADD + D * R_Z3 + A * R_Z3 + R_T3,  // 22 Z3 = Z3 + t3
    K_ADD + D * R_T3 + A * R_T0 + R_T0,  // 23 t3 = t0 + t0
    K_ADD + D * R_T0 + A * R_T3 + R_T0,  // 24 t0 = t3 + t0
    K_SUB + D * R_T0 + A * R_T0 + R_T2,  // 25 t0 = t0 − t2
    K_MUL + D * R_T0 + A * R_T0 + R_Z3,  // 26 t0 = t0·Z3
    K_ADD + D * R_Y3 + A * R_Y3 + R_T0,  // 27 Y3 = Y3 + t0
    K_MUL + D * R_T0 + A * R_Y1 + R_Z1,  // 28 t0 = Y·Z
    K_ADD + D * R_T0 + A * R_T0 + R_T0,  // 29 t0 = t0 + t0
    K_MUL + D * R_Z3 + A * R_T0 + R_Z3,  // 30 Z3 = t0·Z3
    K_SUB + D * R_X3 + A * R_X3 + R_Z3,  // 31 X3 = X3 − Z3
    K_MUL + D * R_Z3 + A * R_T0 + R_T1,  // 32 Z3 = t0·t1
    K_ADD + D * R_Z3 + A * R_Z3 + R_Z3,  // 33 Z3 = Z3 + Z3
    K_ADD + D * R_Z3 + A * R_Z3 + R_Z3,  // 34 Z3 = Z3 + Z3
);

// dst = p1 + p2, or dst = 2·p1 when `dbl` (p2 is then ignored). Any of the slots may be
// the same point (the result is built in S_O and copied last). Costs at most ADD_STEPS + 14
// multiplications' LIMBS loop iterations: see `ecc/mod.rs` (add_cost).
fn point_run(dst: u32, p1: u32, p2: u32, dbl: bool) {
    let steps = select(ADD_STEPS, DBL_STEPS, dbl);
    for (var i = 0u; i < steps; i = i + 1u) {
        let step = select(ADD_PROGRAM[i], DBL_PROGRAM[min(i, DBL_STEPS - 1u)], dbl);
        let r = reg_slot((step >> 16u) & 0xffu, p1, p2);
        let a = reg_slot((step >> 8u) & 0xffu, p1, p2);
        let b = reg_slot(step & 0xffu, p1, p2);
        switch (step >> 24u) {
            case 0u: {
                fe_mul(r, a, b);
            }
            case 1u: {
                fe_add(r, a, b);
            }
            default: {
                fe_sub(r, a, b);
            }
        }
    }
    point_copy(dst, S_O);
}

// dst = p1 + p2.
fn point_add(dst: u32, p1: u32, p2: u32) {
    point_run(dst, p1, p2, false);
}

// dst = src (three slots).
fn point_copy(dst: u32, src: u32) {
    if (dst == src) {
        return;
    }
    //#unroll J 0
    scratch[at(dst, J)] = scratch[at(src, J)];
    scratch[at(dst + 1u, J)] = scratch[at(src + 1u, J)];
    scratch[at(dst + 2u, J)] = scratch[at(src + 2u, J)];
    //#end
}

// dst = (0 : 1 : 0), with 1 in Montgomery form from `moduli`.
fn point_set_identity(dst: u32) {
    //#unroll J 0
    scratch[at(dst, J)] = 0u;
    scratch[at(dst + 1u, J)] = moduli[M_ONE + J];
    scratch[at(dst + 2u, J)] = 0u;
    //#end
}
