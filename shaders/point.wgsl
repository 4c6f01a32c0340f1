// point.wgsl: points of y² = x³ − 3x + b in homogeneous projective coordinates (X : Y : Z),
// Montgomery form, held in registers (three `Fe`s); the identity is (0 : 1 : 0).
//
// The point formulas themselves are not written here: the composer appends `pt_add`
// (complete addition, RCB15 Algorithm 4), `pt_add_affine` (mixed addition, Algorithm 5, the
// second operand affine and not the identity) and `pt_dbl` (doubling, Algorithm 6) as
// straight-line code generated from the one description every backend expands,
// `batch_core::rcb` (batch-wgpu `ecc/formulas.rs`). They call fe_mul, fe_sqr, fe_add and
// fe_sub and read CURVE_B; complete on prime-order curves, so nothing branches on a point.

struct Pt {
    x: Fe,
    y: Fe,
    z: Fe,
}

fn pt_identity() -> Pt {
    return Pt(Fe(), ONE, Fe());
}

// a where `pick_a`, else b: every limb of both read and blended with a mask (constant-time
// in `pick_a`).
fn pt_select(a: Pt, b: Pt, pick_a: bool) -> Pt {
    let m = mask_w(pick_a);
    var r: Pt;
    //#unroll J 0
    r.x[J] = (a.x[J] & m) | (b.x[J] & ~m);
    r.y[J] = (a.y[J] & m) | (b.y[J] & ~m);
    r.z[J] = (a.z[J] & m) | (b.z[J] & ~m);
    //#end
    return r;
}
