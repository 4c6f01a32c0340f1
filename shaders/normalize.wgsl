// normalize.wgsl: the results of a scalar-multiplication chunk made affine on the GPU, in
// place, as the chunk's last dispatch: (X : Y : Z) becomes (X/Z, Y/Z, ONE), the identity
// (0 : Y : 0) becomes (0, ONE, 0) and anything else with Z = 0 (no point) (0, 0, 0), which the
// host's check fails; Montgomery form throughout (`results` as in scalar_mul.wgsl).
//
// One invocation per job, NWG jobs per workgroup sharing one field inversion (Montgomery's
// trick, spread over the workgroup): the products z_0 ⋯ z_l and z_l ⋯ z_{NWG−1} come from two
// scans in workgroup memory (log2(NWG) steps each, one product per step), one invocation
// inverts the workgroup's product, and each job's 1/z is that inverse times the products
// before and after it. Per job that is 2·log2(NWG) + 4 products, and one inversion per
// workgroup (bits(p) squarings and a product per set bit of p − 2), where inverting every Z
// alone would cost each job the whole inversion. The identity's Z (and a padding
// invocation's) enters the products as ONE.
//
// The prelude gives NWG (a power of two) and the exponent p − 2 as P_MINUS_2 (32-bit words)
// with INV_BITS, its length in bits. Constant-time: the branches of the inversion are the
// public exponent's, those of the scans the invocation's index; every value is blended with
// masks.

var<workgroup> wg_scan: array<array<u32, LIMBS>, NWG>;
var<workgroup> wg_inv: array<u32, LIMBS>;

fn wg_load(i: u32) -> Fe {
    var r: Fe;
    //#unroll J 0
    r[J] = to_word(wg_scan[i][J]);
    //#end
    return r;
}

fn wg_store(i: u32, a: Fe) {
    //#unroll J 0
    wg_scan[i][J] = from_word(a[J]);
    //#end
}

// a where `pick_a`, else b (masks, constant-time in pick_a).
fn fe_select(a: Fe, b: Fe, pick_a: bool) -> Fe {
    let m = mask_w(pick_a);
    var r: Fe;
    //#unroll J 0
    r[J] = (a[J] & m) | (b[J] & ~m);
    //#end
    return r;
}

fn fe_is_zero(a: Fe) -> bool {
    var acc = to_word(0u);
    //#unroll J 0
    acc |= a[J];
    //#end
    return acc == to_word(0u);
}

// a^(p−2) = a⁻¹ (Fermat; 0 for a = 0): square and multiply over the public exponent's bits
// from the top. No window table: the inversion runs once per workgroup, where a 4-bit
// table's saving (a third of P-521's products) comes to under three products a job.
fn fe_inv(a: Fe) -> Fe {
    var e = P_MINUS_2;
    var r = a; // the top bit
    for (var i = INV_BITS - 1u; i > 0u; i = i - 1u) {
        let bit = i - 1u;
        r = fe_sqr(r);
        // the bit is the public exponent's
        if (((e[bit / 32u] >> (bit % 32u)) & 1u) != 0u) {
            r = fe_mul(r, a);
        }
    }
    return r;
}

// Every invocation passes v and its slot `at` (a permutation of 0 … NWG−1 over the
// workgroup); afterwards slot s of wg_scan holds the product of the v of slots 0 … s
// (Hillis–Steele: step d multiplies in the value d slots below). Called by every invocation
// of the workgroup (it has barriers).
fn wg_scan_products(at: u32, v: Fe) {
    var acc = v;
    wg_store(at, acc);
    workgroupBarrier();
    for (var d = 1u; d < NWG; d = d << 1u) {
        var below = acc;
        if (at >= d) {
            below = wg_load(at - d);
        }
        workgroupBarrier();
        if (at >= d) {
            acc = fe_mul(below, acc);
            wg_store(at, acc);
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(NWG)
fn ec_normalize(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let l = lid.x;
    let live = gid.x < params.count;
    let o = gid.x * 3u * LIMBS;
    var x: Fe;
    var y: Fe;
    var z = ONE; // a padding invocation's factor
    if (live) {
        //#unroll J 0
        x[J] = to_word(results[o + J]);
        y[J] = to_word(results[o + LIMBS + J]);
        z[J] = to_word(results[o + 2u * LIMBS + J]);
        //#end
    }
    // the identity is (0 : Y : 0) with Y ≠ 0; any other Z = 0 is no point (an unwritten
    // result reads (0 : 0 : 0)) and goes back as (0, 0, 0), which the host's check fails
    let id = fe_is_zero(z);
    let no_point = id & !(fe_is_zero(x) & !fe_is_zero(y));
    z = fe_select(ONE, z, id);

    // z_0 ⋯ z_l at slot l: the product before this job, and the workgroup's
    wg_scan_products(l, z);
    let before = fe_select(ONE, wg_load(max(l, 1u) - 1u), l == 0u);
    let all = wg_load(NWG - 1u);
    if (l == 0u) {
        let inv = fe_inv(all);
        //#unroll J 0
        wg_inv[J] = from_word(inv[J]);
        //#end
    }
    workgroupBarrier();
    // z_l ⋯ z_{NWG−1} at slot NWG−1−l: the product after this job
    wg_scan_products(NWG - 1u - l, z);
    let after = fe_select(ONE, wg_load(max(NWG - 1u - l, 1u) - 1u), l == NWG - 1u);
    var inv: Fe;
    //#unroll J 0
    inv[J] = to_word(wg_inv[J]);
    //#end
    let zinv = fe_mul(fe_mul(inv, before), after);
    let ax = fe_select(Fe(), fe_mul(x, zinv), id);
    let ay = fe_select(fe_select(Fe(), ONE, no_point), fe_mul(y, zinv), id);
    let az = fe_select(Fe(), ONE, id);
    if (live) {
        //#unroll J 0
        results[o + J] = from_word(ax[J]);
        results[o + LIMBS + J] = from_word(ay[J]);
        results[o + 2u * LIMBS + J] = from_word(az[J]);
        //#end
    }
}
