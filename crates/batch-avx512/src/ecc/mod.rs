//! Elliptic-curve batches on P-224, P-256, P-384 and P-521: validation, grouping, affine
//! results.
//!
//! Inputs and outputs are seam types; inside, each curve field is an `N`-digit Montgomery
//! field on 52-bit digits ([`CurveField`]: `N` = 5, 6, 8, 11, chosen so `2^(52·N)` leaves at
//! least 20 bits of room above `p` for lazy reduction), one job per lane of a `zmm` (8) or
//! `ymm` (4) register. Each job is validated alone, in the scalar backend's order (`k·Q`:
//! scalar, then point; `u₁·G + u₂·Q`: `u₁`, `u₂`, `Q`); a bad job gets its error and its lane
//! computes a harmless stand-in (`k = 0`, `Q = O`). The batch is cut into chunks of [`CHUNK`]
//! jobs spread over the pool; a chunk runs its lane groups (a last partial group padded with
//! stand-ins), then makes every result affine with one inversion per lane. A remainder too
//! small to fill a quarter of a group goes to `batch-scalar`'s point code instead, on
//! `batch_avx2::scalar_ecc`'s field (P-256 on `mulx`/`adcx`/`adox` where the CPU has them).
//!
//! - [`comb`]: `k·G`, signed windows over a per-process table; constant-time.
//! - [`varbase`]: `k·Q`, fixed signed window over a per-group table; constant-time.
//! - [`straus`]: `u₁·G + u₂·Q`, the comb plus fixed windows, summed.
//! - [`point`]: `batch_core::rcb`'s complete formulas on lanes, batch normalisation.

pub mod comb;
pub mod point;
pub mod straus;
pub mod varbase;

use std::sync::OnceLock;

use batch_core::backend::{check_double_job, check_point_job, check_scalar};
use batch_core::curve::{CurveDef, P224, P256, P384, P521};
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use rayon::prelude::*;

use crate::digits::{modulus_digits, to_digits, ModulusDigits, DIGIT_BITS};
use crate::field::{load, CurveField, FieldConsts};
use crate::simd::{Ifma, Lanes, Y4, Z8};
use point::{batch_normalize, mask_from_words, Affine};

/// Jobs per chunk (a multiple of eight): one inversion per lane is shared by this many results.
pub const CHUNK: usize = 64;

/// Comb window width (the lookup reads `2^(w−1)` entries per window on every lane).
pub const COMB_W: usize = 6;

pub use batch_scalar::ecc::comb::CombDigits;

/// One curve's constants for the IFMA code, built once per process.
#[derive(Debug)]
pub struct CurveConsts {
    pub curve: Curve,
    /// Digits per field element.
    pub n: usize,
    pub field: FieldConsts,
    /// `p` for canonical conversions.
    pub p: ModulusDigits,
    /// `p − 2`, the Fermat inversion exponent.
    pub p_minus_2: Vec<u64>,
    /// The comb for `G`.
    pub comb: CombDigits,
    /// The curve in `batch-scalar`'s form, for the shared-point tables.
    shared_table: fn(&AffinePoint, usize, &ModulusDigits) -> CombDigits,
}

impl CurveConsts {
    fn new<const L: usize>(
        c: &CurveDef<L>,
        n: usize,
        shared_table: fn(&AffinePoint, usize, &ModulusDigits) -> CombDigits,
    ) -> Self {
        let p_limbs = c.p.modulus().0.to_vec();
        let b = c.p.from_monty(&c.b).0.to_vec();
        let p = modulus_digits(&p_limbs, n).expect("curve primes are valid moduli");
        let comb = CombDigits::new(c, &p, &batch_scalar::ecc::comb::CombTable::new(c, COMB_W));
        // a full subtraction: P-224's low limb is 1
        let two = batch_core::num::Uint::from_limbs(&[2]).expect("fits");
        let (p_minus_2, _) = c.p.modulus().sbb(&two);
        Self {
            curve: c.curve,
            n,
            field: FieldConsts::new(&p_limbs, &b, n, DIGIT_BITS),
            p,
            p_minus_2: p_minus_2.0.to_vec(),
            comb,
            shared_table,
        }
    }

    /// A comb of width `w` for a public point `q` (valid, not the identity).
    pub fn table_for(&self, q: &AffinePoint, w: usize) -> CombDigits {
        (self.shared_table)(q, w, &self.p)
    }
}

/// `batch-scalar`'s comb for `q` on curve `c`, converted.
fn shared_table<const L: usize>(
    c: &'static CurveDef<L>,
    q: &AffinePoint,
    w: usize,
    p: &ModulusDigits,
) -> CombDigits {
    CombDigits::for_point_vartime(c, p, q, w)
}

/// The curves implemented here: every curve of the seam. (P-224 at five digits, with the
/// generic reduction rows.)
pub const CURVES: [Curve; 4] = [Curve::P224, Curve::P256, Curve::P384, Curve::P521];

/// The constants for `curve`, built on first use.
pub fn consts(curve: Curve) -> &'static CurveConsts {
    static C224: OnceLock<CurveConsts> = OnceLock::new();
    static C256: OnceLock<CurveConsts> = OnceLock::new();
    static C384: OnceLock<CurveConsts> = OnceLock::new();
    static C521: OnceLock<CurveConsts> = OnceLock::new();
    match curve {
        Curve::P224 => {
            C224.get_or_init(|| CurveConsts::new(&P224, 5, |q, w, p| shared_table(&P224, q, w, p)))
        }
        Curve::P256 => {
            C256.get_or_init(|| CurveConsts::new(&P256, 6, |q, w, p| shared_table(&P256, q, w, p)))
        }
        Curve::P384 => {
            C384.get_or_init(|| CurveConsts::new(&P384, 8, |q, w, p| shared_table(&P384, q, w, p)))
        }
        Curve::P521 => {
            C521.get_or_init(|| CurveConsts::new(&P521, 11, |q, w, p| shared_table(&P521, q, w, p)))
        }
    }
}

/// A job's inputs after validation (stand-ins for invalid jobs).
#[derive(Clone, Copy, Debug)]
pub struct EcJob {
    pub k1: EcUint,
    pub k2: EcUint,
    pub q: AffinePoint,
}

const STAND_IN: EcJob = EcJob {
    k1: EcUint::ZERO,
    k2: EcUint::ZERO,
    q: AffinePoint::IDENTITY,
};

/// Which operation a chunk runs.
#[derive(Clone, Copy, Debug)]
pub enum Op<'a> {
    Base,
    Point,
    DoubleVartime,
    /// `u₁·G + u₂·Q` with every job under the `Q` of this comb table.
    DoubleShared(&'a CombDigits),
}

/// Register form of the curve code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Z8,
    Y4,
}

impl Form {
    pub fn lanes(self) -> usize {
        match self {
            Form::Z8 => 8,
            Form::Y4 => 4,
        }
    }
}

/// Jobs at the end of a batch that go to the scalar code: a remainder below a quarter of a
/// group plus one (1–2 of 8, 1 of 4, as batch-avx2 measured for its 4 lanes: a padded group
/// then costs about as much as the scalar jobs).
fn scalar_tail(len: usize, lanes: usize) -> usize {
    let r = len % lanes;
    if r <= lanes / 4 {
        r
    } else {
        0
    }
}

/// `k·G` for each scalar; constant-time in the scalars.
pub fn mul_base(
    t: Ifma,
    form: Form,
    curve: Curve,
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    let (head, tail) = scalars.split_at(scalars.len() - scalar_tail(scalars.len(), form.lanes()));
    let cc = consts(curve); // built here, before the parallel part
                            // `check_scalar` is constant-time in k: only its verdict is public.
    let jobs = head
        .iter()
        .map(|k| check_scalar(curve, k).map(|()| EcJob { k1: *k, ..STAND_IN }))
        .collect();
    let mut out = run(t, form, cc, Op::Base, jobs);
    out.extend(batch_avx2::scalar_ecc::mul_base(curve, tail));
    out
}

/// `k·Q` for each pair; constant-time in the scalars and points.
pub fn mul_point(
    t: Ifma,
    form: Form,
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    let head = scalars.len() - scalar_tail(scalars.len(), form.lanes());
    let cc = consts(curve);
    // Validation is constant-time in k and Q (batch-core's checks), as in batch-scalar.
    let jobs = points[..head]
        .iter()
        .zip(&scalars[..head])
        .map(|(q, k)| {
            check_point_job(curve, k, q).map(|()| EcJob {
                k1: *k,
                q: *q,
                ..STAND_IN
            })
        })
        .collect();
    let mut out = run(t, form, cc, Op::Point, jobs);
    out.extend(batch_avx2::scalar_ecc::mul_point(
        curve,
        &points[head..],
        &scalars[head..],
    ));
    out
}

/// Jobs under one point from which a verification batch builds a comb table for that point
/// (`batch_core::shared`; the table is built by scalar code, so it takes more jobs to pay off
/// than on the scalar backend, and more on the curves whose distinct-point path is fastest
/// against scalar code). Measured (`examples/ecbench.rs`, Intel Xeon, Sapphire Rapids class,
/// zmm, after the Jacobian distinct-point path) against distinct points, at 16 / 24 / 32 / 48
/// jobs a point: P-256 0.88 / 1.07 / 1.25 / 1.43×, P-384 0.78 / 1.02 / 1.12 / 1.31×, P-521
/// 0.63 / 0.82 / 0.95 / 1.13×. P-224 (not measured) takes P-256's: the same code at one digit
/// fewer.
pub fn shared_point_min(curve: Curve) -> usize {
    match curve {
        Curve::P224 | Curve::P256 => 24,
        Curve::P384 => 32,
        _ => 48,
    }
}

/// A shared-point table entry (scalar addition, normalisation, conversion) costs about this
/// many of this backend's per-job additions ([`batch_core::shared::comb_width`]).
const TABLE_ENTRY_COST: usize = 6;

/// `u₁·G + u₂·Q` for each triple; variable-time (public inputs only). Jobs sharing a point
/// in groups of at least [`shared_point_min`] run on a comb table for that point.
pub fn mul_double_vartime(
    t: Ifma,
    form: Form,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    use batch_core::shared::{comb_width, gather, group_scalars_vartime, run_split, split_vartime};
    let split = split_vartime(curve, points, shared_point_min(curve));
    if split.groups.is_empty() {
        return mul_double_distinct_vartime(t, form, curve, u1, u2, points);
    }
    let cc = consts(curve);
    run_split(
        u1.len(),
        &split,
        |idx| {
            mul_double_distinct_vartime(
                t,
                form,
                curve,
                &gather(u1, idx),
                &gather(u2, idx),
                &gather(points, idx),
            )
        },
        |q, idx| {
            let table = cc.table_for(
                q,
                comb_width(
                    curve.bits(),
                    idx.len(),
                    batch_scalar::ecc::comb::MAX_W,
                    TABLE_ENTRY_COST,
                ),
            );
            let jobs = group_scalars_vartime(curve, u1, u2, idx)
                .into_iter()
                .map(|r| r.map(|(k1, k2)| EcJob { k1, k2, q: *q }))
                .collect();
            run(t, form, cc, Op::DoubleShared(&table), jobs)
        },
    )
}

fn mul_double_distinct_vartime(
    t: Ifma,
    form: Form,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    let head = u1.len() - scalar_tail(u1.len(), form.lanes());
    let cc = consts(curve);
    let jobs = u1[..head]
        .iter()
        .zip(&u2[..head])
        .zip(&points[..head])
        .map(|((a, b), q)| {
            check_double_job(curve, a, b, q).map(|()| EcJob {
                k1: *a,
                k2: *b,
                q: *q,
            })
        })
        .collect();
    let mut out = run(t, form, cc, Op::DoubleVartime, jobs);
    out.extend(batch_avx2::scalar_ecc::mul_double_vartime(
        curve,
        &u1[head..],
        &u2[head..],
        &points[head..],
    ));
    out
}

fn run(
    t: Ifma,
    form: Form,
    cc: &'static CurveConsts,
    op: Op<'_>,
    jobs: Vec<Result<EcJob, Error>>,
) -> Vec<JobResult<AffinePoint>> {
    let lanes = form.lanes();
    jobs.par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            let mut inputs: Vec<EcJob> = chunk
                .iter()
                .map(|j| *j.as_ref().unwrap_or(&STAND_IN))
                .collect();
            inputs.resize(inputs.len().next_multiple_of(lanes), STAND_IN);
            let pts = match (form, cc.n) {
                (Form::Z8, 5) => crate::simd::ec_chunk::<Z8, 5>(t.z8(), cc, op, &inputs),
                (Form::Z8, 6) => crate::simd::ec_chunk::<Z8, 6>(t.z8(), cc, op, &inputs),
                (Form::Z8, 8) => crate::simd::ec_chunk::<Z8, 8>(t.z8(), cc, op, &inputs),
                (Form::Z8, 11) => crate::simd::ec_chunk::<Z8, 11>(t.z8(), cc, op, &inputs),
                (Form::Y4, 5) => crate::simd::ec_chunk::<Y4, 5>(t.y4(), cc, op, &inputs),
                (Form::Y4, 6) => crate::simd::ec_chunk::<Y4, 6>(t.y4(), cc, op, &inputs),
                (Form::Y4, 8) => crate::simd::ec_chunk::<Y4, 8>(t.y4(), cc, op, &inputs),
                (Form::Y4, 11) => crate::simd::ec_chunk::<Y4, 11>(t.y4(), cc, op, &inputs),
                _ => unreachable!("curve widths are 5, 6, 8, 11"),
            };
            chunk
                .iter()
                .zip(pts)
                .map(|(j, p)| j.as_ref().map(|_| p).map_err(Clone::clone))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One chunk (`inputs.len()` a multiple of `S::LANES`): affine results, one per input.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn ec_chunk_ifma<S: Lanes, const N: usize>(
    s: S,
    cc: &CurveConsts,
    op: Op<'_>,
    inputs: &[EcJob],
) -> Vec<AffinePoint> {
    let f = CurveField::<S, N>::new(s, &cc.field);
    let mut pts = Vec::with_capacity(inputs.len() / S::LANES);
    for g in inputs.chunks_exact(S::LANES) {
        let k1: Vec<&EcUint> = g.iter().map(|j| &j.k1).collect();
        let pt = match op {
            Op::Base => comb::mul(&cc.comb, cc.curve.bits(), &f, &k1),
            Op::DoubleShared(table) => {
                let k2: Vec<&EcUint> = g.iter().map(|j| &j.k2).collect();
                let a = comb::mul_vartime(&cc.comb, cc.curve.bits(), &f, &k1);
                a.add(&comb::mul_vartime(table, cc.curve.bits(), &f, &k2), &f)
            }
            Op::Point | Op::DoubleVartime => {
                // Q per lane into Montgomery form; identity lanes carry (0, 0) and a mask.
                let xs: Vec<Vec<u64>> = g.iter().map(|j| to_digits(&j.q.x.0, N)).collect();
                let ys: Vec<Vec<u64>> = g.iter().map(|j| to_digits(&j.q.y.0, N)).collect();
                let (xs, ys): (Vec<&[u64]>, Vec<&[u64]>) = (
                    xs.iter().map(|v| &v[..]).collect(),
                    ys.iter().map(|v| &v[..]).collect(),
                );
                let q = Affine {
                    x: f.to_monty(&load(s, &xs)),
                    y: f.to_monty(&load(s, &ys)),
                };
                let ids: Vec<u64> = g
                    .iter()
                    .map(|j| (j.q.infinity as u64).wrapping_neg())
                    .collect();
                let q_id = mask_from_words(s, &ids);
                if matches!(op, Op::Point) {
                    varbase::mul(&f, cc.curve.bits(), &q, q_id, &k1)
                } else {
                    let k2: Vec<&EcUint> = g.iter().map(|j| &j.k2).collect();
                    straus::mul_double_vartime(cc, &f, &k1, &k2, &q, q_id)
                }
            }
        };
        pts.push(pt);
    }
    batch_normalize(&f, &cc.p, &cc.p_minus_2, &pts)
}
