//! Elliptic-curve batches on P-224, P-256, P-384 and P-521: validation, grouping, affine results.
//!
//! Inputs and outputs are seam types; inside, each curve field is an `N`-digit 4-lane
//! Montgomery field ([`Field4`]: `N` = 9, 10, 15, 20, chosen so `2^(28·N)` leaves at least 20
//! bits of room above `p` for lazy reduction). Each job is validated alone, in the scalar
//! backend's order (`k·Q`: scalar, then point; `u₁·G + u₂·Q`: `u₁`, `u₂`, `Q`); a bad job gets
//! its error and its lane computes a harmless stand-in (`k = 0`, `Q = O`). The batch is cut
//! into chunks of [`CHUNK`] jobs spread over rayon; a chunk runs groups of four lanes (a last
//! group of three padded with stand-ins), then makes every result affine with one inversion
//! per lane. A remainder of one or two jobs goes to `batch-scalar`'s code instead: on P-256 a
//! 4-lane group measured about as costly as four scalar jobs, so padding would waste time.
//!
//! - [`comb`]: `k·G`, signed windows over a per-process table; constant-time.
//! - [`varbase`]: `k·Q`, fixed signed window over a per-group table; constant-time.
//! - [`straus`]: `u₁·G + u₂·Q`, the comb plus fixed windows, summed (see there why).
//! - [`point`]: complete Renes–Costello–Batina formulas, batch normalisation.

pub mod comb;
pub mod point;
pub mod scalar;
pub mod straus;
pub mod varbase;

use std::sync::OnceLock;

use batch_core::backend::{check_double_job, check_point_job, check_scalar};
use batch_core::curve::{CurveDef, P224, P256, P384, P521};
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use rayon::prelude::*;

use crate::digits::{to_digits, ModulusDigits};
use crate::field::{from_lanes, load, Field4, FieldConsts};
use crate::simd::Avx2;
use point::{batch_normalize, Affine4};

/// Jobs per chunk (a multiple of four): one inversion per lane is shared by this many results.
pub const CHUNK: usize = 64;

/// Comb window width (the lookup reads `2^(w−1)` entries per window on every lane).
pub const COMB_W: usize = 6;

/// One curve's constants for the 4-lane code, built once per process.
pub use batch_scalar::ecc::comb::CombDigits;

#[derive(Debug)]
pub struct CurveConsts {
    pub curve: Curve,
    pub n: usize,
    pub field: FieldConsts,
    pub p: ModulusDigits,
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
        let p = crate::digits::modulus_digits(&p_limbs, n).expect("curve primes are valid moduli");
        let comb = CombDigits::new(c, &p, &batch_scalar::ecc::comb::CombTable::new(c, COMB_W));
        // a full subtraction: P-224's low limb is 1
        let two = batch_core::num::Uint::from_limbs(&[2]).expect("fits");
        let (p_minus_2, _) = c.p.modulus().sbb(&two);
        Self {
            curve: c.curve,
            n,
            field: FieldConsts::new(&p_limbs, &b, n, crate::digits::DIGIT_BITS),
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

pub fn consts(curve: Curve) -> &'static CurveConsts {
    static C224: OnceLock<CurveConsts> = OnceLock::new();
    static C256: OnceLock<CurveConsts> = OnceLock::new();
    static C384: OnceLock<CurveConsts> = OnceLock::new();
    static C521: OnceLock<CurveConsts> = OnceLock::new();
    match curve {
        Curve::P224 => C224.get_or_init(|| {
            CurveConsts::new(&P224, 9, |q, w, p| {
                CombDigits::for_point_vartime(&P224, p, q, w)
            })
        }),
        Curve::P256 => C256.get_or_init(|| {
            CurveConsts::new(&P256, 10, |q, w, p| {
                CombDigits::for_point_vartime(&P256, p, q, w)
            })
        }),
        Curve::P384 => C384.get_or_init(|| {
            CurveConsts::new(&P384, 15, |q, w, p| {
                CombDigits::for_point_vartime(&P384, p, q, w)
            })
        }),
        Curve::P521 => C521.get_or_init(|| {
            CurveConsts::new(&P521, 20, |q, w, p| {
                CombDigits::for_point_vartime(&P521, p, q, w)
            })
        }),
    }
}

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
    /// `u₁·G + u₂·Q` with every job's `Q` the table's point.
    DoubleShared(&'a CombDigits),
}

/// Jobs at the end of a batch that go to the scalar code: a remainder of one or two (a
/// padded 4-lane group would cost about as much as three or four scalar jobs); a remainder
/// of three runs as a padded group.
fn scalar_tail(len: usize) -> usize {
    match len % 4 {
        r @ (1 | 2) => r,
        _ => 0,
    }
}

/// `k·G` for each scalar; constant-time in the scalars. On the scalar point code where it has
/// a `mulx`/`adx` field for the curve, unless `lanes_only`.
pub fn mul_base(
    t: Avx2,
    curve: Curve,
    scalars: &[EcUint],
    lanes_only: bool,
) -> Vec<JobResult<AffinePoint>> {
    if !lanes_only && scalar::has_fast_field(curve) {
        return scalar::mul_base(curve, scalars);
    }
    let (scalars, tail) = scalars.split_at(scalars.len() - scalar_tail(scalars.len()));
    let mut out = mul_base_avx2(t, curve, scalars);
    out.extend(scalar::mul_base(curve, tail));
    out
}

/// `k·Q` for each pair; constant-time in the scalars and points.
pub fn mul_point(
    t: Avx2,
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
    lanes_only: bool,
) -> Vec<JobResult<AffinePoint>> {
    if !lanes_only && scalar::has_fast_field(curve) {
        return scalar::mul_point(curve, points, scalars);
    }
    let head = scalars.len() - scalar_tail(scalars.len());
    let mut out = mul_point_avx2(t, curve, &points[..head], &scalars[..head]);
    out.extend(scalar::mul_point(curve, &points[head..], &scalars[head..]));
    out
}

/// `u₁·G + u₂·Q` for each triple; variable-time (public inputs only).
use crate::SHARED_POINT_MIN;

/// A shared-point table entry (scalar addition, normalisation, conversion) costs about this
/// many of this backend's per-job additions ([`batch_core::shared::comb_width`]).
const TABLE_ENTRY_COST: usize = 4;

/// Jobs under one P-384 point from which the lanes' comb over that point beats the scalar
/// point code on the `mulx`/`adx` field (its own shared-point comb): `avx2bench`, Zen 4, one
/// thread, jobs/s `mulx` ÷ lanes 1.05–1.29 at 32 jobs a point, 0.97–1.30 at 128; and
/// `batch-speed`'s one-key verification (4 096 jobs, one key) 15 380–15 417/s on the `mulx`
/// comb against 16 144–16 624/s on the lanes (2026-12-06, docs/PERF.md). P-521's `mulx` comb
/// wins at every size measured (1.06–1.16× at 32, 1.01–1.10× at 128, and 7 695–8 079 against
/// 7 200–7 416/s at 4 096).
const LANES_SHARED_MIN_P384: usize = 128;

/// `u₁·G + u₂·Q` for each triple; variable-time (public inputs only). With BMI2 and ADX every
/// curve runs on the scalar point code's `mulx`/`adx` field (its own shared-point comb
/// included), except P-384 groups of at least [`LANES_SHARED_MIN_P384`] jobs a point, which
/// take the lanes' comb. Otherwise jobs sharing a point in groups of at least
/// [`SHARED_POINT_MIN`] run on the lanes' comb table for that point. `lanes_only` keeps every
/// curve on the lanes (`Avx2Backend::lanes_only`).
pub fn mul_double_vartime(
    t: Avx2,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
    lanes_only: bool,
) -> Vec<JobResult<AffinePoint>> {
    use batch_core::shared::{comb_width, gather, group_scalars_vartime, run_split, split_vartime};
    let adx = !lanes_only && scalar::has_fast_field(curve);
    if adx && curve != Curve::P384 {
        return scalar::mul_double_vartime(curve, u1, u2, points);
    }
    let distinct = |u1: &[EcUint], u2: &[EcUint], points: &[AffinePoint]| {
        if adx {
            scalar::mul_double_vartime(curve, u1, u2, points)
        } else {
            mul_double_distinct_vartime(t, curve, u1, u2, points)
        }
    };
    let min = if adx {
        LANES_SHARED_MIN_P384
    } else {
        SHARED_POINT_MIN
    };
    let split = split_vartime(curve, points, min);
    if split.groups.is_empty() {
        return distinct(u1, u2, points);
    }
    let cc = consts(curve);
    run_split(
        u1.len(),
        &split,
        |idx| distinct(&gather(u1, idx), &gather(u2, idx), &gather(points, idx)),
        |q, idx| {
            let w = comb_width(
                curve.bits(),
                idx.len(),
                batch_scalar::ecc::comb::MAX_W,
                TABLE_ENTRY_COST,
            );
            let table = cc.table_for(q, w);
            let jobs = group_scalars_vartime(curve, u1, u2, idx)
                .into_iter()
                .map(|r| r.map(|(k1, k2)| EcJob { k1, k2, q: *q }))
                .collect();
            run(t, cc, Op::DoubleShared(&table), jobs)
        },
    )
}

fn mul_double_distinct_vartime(
    t: Avx2,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    let head = u1.len() - scalar_tail(u1.len());
    let mut out = mul_double_avx2_vartime(t, curve, &u1[..head], &u2[..head], &points[..head]);
    out.extend(scalar::mul_double_vartime(
        curve,
        &u1[head..],
        &u2[head..],
        &points[head..],
    ));
    out
}

fn mul_base_avx2(t: Avx2, curve: Curve, scalars: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    let cc = consts(curve); // built here, before the parallel part
                            // `check_scalar` is constant-time in k: only its verdict is public.
    let jobs: Vec<Result<EcJob, Error>> = scalars
        .iter()
        .map(|k| check_scalar(curve, k).map(|()| EcJob { k1: *k, ..STAND_IN }))
        .collect();
    run(t, cc, Op::Base, jobs)
}

fn mul_point_avx2(
    t: Avx2,
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    let cc = consts(curve);
    // Validation is constant-time in k and Q (batch-core's checks), as in batch-scalar.
    let jobs = points
        .iter()
        .zip(scalars)
        .map(|(q, k)| {
            check_point_job(curve, k, q).map(|()| EcJob {
                k1: *k,
                q: *q,
                ..STAND_IN
            })
        })
        .collect();
    run(t, cc, Op::Point, jobs)
}

fn mul_double_avx2_vartime(
    t: Avx2,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    let cc = consts(curve);
    let jobs = u1
        .iter()
        .zip(u2)
        .zip(points)
        .map(|((a, b), q)| {
            check_double_job(curve, a, b, q).map(|()| EcJob {
                k1: *a,
                k2: *b,
                q: *q,
            })
        })
        .collect();
    run(t, cc, Op::DoubleVartime, jobs)
}

fn run(
    t: Avx2,
    cc: &'static CurveConsts,
    op: Op<'_>,
    jobs: Vec<Result<EcJob, Error>>,
) -> Vec<JobResult<AffinePoint>> {
    jobs.par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            let mut inputs: Vec<EcJob> = chunk
                .iter()
                .map(|j| *j.as_ref().unwrap_or(&STAND_IN))
                .collect();
            inputs.resize(inputs.len().next_multiple_of(4), STAND_IN);
            let pts = match cc.n {
                9 => crate::simd::ec_chunk::<9>(t, cc, op, &inputs),
                10 => crate::simd::ec_chunk::<10>(t, cc, op, &inputs),
                15 => crate::simd::ec_chunk::<15>(t, cc, op, &inputs),
                20 => crate::simd::ec_chunk::<20>(t, cc, op, &inputs),
                _ => unreachable!("curve widths are 9, 10, 15, 20"),
            };
            chunk
                .iter()
                .zip(pts)
                .map(|(j, p)| j.as_ref().map(|_| p).map_err(Clone::clone))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One chunk (`inputs.len()` a multiple of four): affine results, one per input.
#[target_feature(enable = "avx2")]
pub fn ec_chunk_avx2<const N: usize>(
    cc: &CurveConsts,
    op: Op<'_>,
    inputs: &[EcJob],
) -> Vec<AffinePoint> {
    let f = Field4::<N>::new(&cc.field);
    let mut pts = Vec::with_capacity(inputs.len() / 4);
    for g in inputs.chunks_exact(4) {
        let lanes = [&g[0], &g[1], &g[2], &g[3]];
        let k1 = lanes.map(|j| &j.k1);
        let pt = match op {
            Op::Base => comb::mul(&cc.comb, cc.curve.bits(), &f, k1),
            Op::DoubleShared(table) => {
                let k2 = lanes.map(|j| &j.k2);
                let a = comb::mul_vartime(&cc.comb, cc.curve.bits(), &f, k1);
                a.add(&comb::mul_vartime(table, cc.curve.bits(), &f, k2), &f)
            }
            Op::Point | Op::DoubleVartime => {
                // Q per lane into Montgomery form; identity lanes carry (0, 0) and a mask.
                let xs = lanes.map(|j| to_digits(&j.q.x.0, N));
                let ys = lanes.map(|j| to_digits(&j.q.y.0, N));
                let q = Affine4 {
                    x: f.to_monty(&load([&xs[0], &xs[1], &xs[2], &xs[3]])),
                    y: f.to_monty(&load([&ys[0], &ys[1], &ys[2], &ys[3]])),
                };
                let q_id = from_lanes(lanes.map(|j| (j.q.infinity as u64).wrapping_neg()));
                if matches!(op, Op::Point) {
                    varbase::mul(&f, cc.curve.bits(), &q, q_id, k1)
                } else {
                    straus::mul_double_vartime(cc, &f, k1, lanes.map(|j| &j.k2), &q, q_id)
                }
            }
        };
        pts.push(pt);
    }
    batch_normalize(&f, &cc.p, &cc.p_minus_2, &pts)
}
