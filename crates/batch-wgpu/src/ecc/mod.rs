//! Elliptic-curve batches on the GPU (`shaders/field.wgsl`, `point.wgsl`, `scalar_mul.wgsl`):
//! validation, the per-curve constants, dispatch plans, affine results.
//!
//! Representation: a field element is `LIMBS = 2·L` little-endian `u32` words for the curve's
//! `L` 64-bit limbs (8, 12, 18), so the shader's Montgomery radix `2^(32·LIMBS)` equals the
//! host's `2^(64·L)` and Montgomery-form values cross the seam unchanged. Points are
//! homogeneous projective `(X : Y : Z)`, the identity `(0 : 1 : 0)`.
//!
//! - `k·G`: unsigned 4-bit windows over a fixed-base table `d·16^i·G` (`d < 16`, every window
//!   `i`), built once per curve on the host with batch-scalar's formulas and kept in a storage
//!   buffer: one table scan and one complete addition per window, no doubling.
//! - `k·Q`: a per-job table `j·Q` (`j < 16`) in scratch memory, then 4 doublings, a scan and
//!   an addition per window, from the top.
//! - `u₁·G + u₂·Q`: both of the above into two accumulators, added at the end. The GPU code is
//!   constant-time; a variable-time (wNAF) version could skip work but would diverge across
//!   the lanes of a workgroup.
//!
//! Each job is validated alone, in the scalar backend's order (`k·Q`: scalar, then point;
//! `u₁·G + u₂·Q`: `u₁`, `u₂`, `Q`); a bad job gets its error and is not sent to the GPU. The
//! valid jobs are split into chunks that fit the device's limits; each chunk's projective
//! results come back and are made affine on the host with one inversion per
//! [`NORMALIZE_CHUNK`] results (Montgomery's trick, batch-scalar's `batch_normalize`, in
//! parallel over rayon). Every result is checked before it is returned: coordinates below `p`
//! and the point on the curve, else the job fails with [`Error::FaultDetected`].
//!
//! Constant-time: the GPU work of a chunk depends only on the operation, the curve and the
//! number of jobs; the host's conversions, normalisation and checks are batch-core's
//! constant-time field arithmetic and masks; validation (batch-core's `check_*` functions) is
//! constant-time too, as in the other backends (only each job's verdict is public).

use batch_core::backend::{check_double_job, check_point_job, check_scalar};
use batch_core::curve::{CurveDef, P256, P384, P521};
use batch_core::num::Uint;
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use batch_scalar::ecc::point::{batch_normalize, AffineMonty, ProjectivePoint};
use rayon::prelude::*;

use crate::context::{EcPipelines, GpuContext, Input};
use crate::modexp::{from_words, neg_inv_u32, push_words};
use crate::shaders::{self, LOOP_BUDGET};

/// Entries per window of both tables (unsigned 4-bit digits).
pub const DIGITS: usize = 16;

/// Scratch slots per job (`shaders/scalar_mul.wgsl`): without and with the `k·Q` table.
const SLOTS_BASE: usize = 19;
const SLOTS_POINT: usize = SLOTS_BASE + 3 * DIGITS;

/// Words per job in the `jobs` buffer: `k_G`, `k_Q`, `X`, `Y`, `Z`.
const JOB_FIELDS: usize = 5;

/// Results made affine with one field inversion.
pub const NORMALIZE_CHUNK: usize = 256;

/// Which scalar multiplication a batch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Base,
    Point,
    DoubleVartime,
}

/// A validated job: `k_G·G + k_Q·Q` (unused parts zero, `Q` the identity).
#[derive(Clone, Copy, Debug)]
struct EcJob {
    kg: EcUint,
    kq: EcUint,
    q: AffinePoint,
}

const ZERO_JOB: EcJob = EcJob {
    kg: EcUint::ZERO,
    kq: EcUint::ZERO,
    q: AffinePoint::IDENTITY,
};

/// `k·G` for each scalar.
pub(crate) fn mul_base(
    ctx: &GpuContext,
    curve: Curve,
    scalars: &[EcUint],
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    // `check_scalar` is constant-time in k: only its verdict is public.
    let jobs = scalars
        .iter()
        .map(|k| check_scalar(curve, k).map(|()| EcJob { kg: *k, ..ZERO_JOB }))
        .collect();
    run(ctx, curve, Op::Base, jobs, max_chunk_jobs)
}

/// `k·Q` for each pair.
pub(crate) fn mul_point(
    ctx: &GpuContext,
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    let jobs = points
        .iter()
        .zip(scalars)
        .map(|(q, k)| {
            check_point_job(curve, k, q).map(|()| EcJob {
                kq: *k,
                q: *q,
                ..ZERO_JOB
            })
        })
        .collect();
    run(ctx, curve, Op::Point, jobs, max_chunk_jobs)
}

/// `u₁·G + u₂·Q` for each triple.
pub(crate) fn mul_double_vartime(
    ctx: &GpuContext,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    let jobs = u1
        .iter()
        .zip(u2)
        .zip(points)
        .map(|((a, b), q)| {
            check_double_job(curve, a, b, q).map(|()| EcJob {
                kg: *a,
                kq: *b,
                q: *q,
            })
        })
        .collect();
    run(ctx, curve, Op::DoubleVartime, jobs, max_chunk_jobs)
}

fn run(
    ctx: &GpuContext,
    curve: Curve,
    op: Op,
    jobs: Vec<Result<EcJob, Error>>,
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    match curve {
        Curve::P256 => run_curve(ctx, &P256, op, jobs, max_chunk_jobs),
        Curve::P384 => run_curve(ctx, &P384, op, jobs, max_chunk_jobs),
        Curve::P521 => run_curve(ctx, &P521, op, jobs, max_chunk_jobs),
    }
}

/// `L` limbs from `2·L` words.
fn uint_of<const L: usize>(words: &[u32]) -> Uint<L> {
    let mut u = Uint::<L>::ZERO;
    u.0.copy_from_slice(&from_words(words));
    u
}

/// The curve record (`p`, `R mod p`, `b`, `−p⁻¹ mod 2^32`) and the fixed-base table
/// (`d·16^i·G`, projective, Montgomery form) as the shader reads them.
fn curve_constants<const L: usize>(c: &CurveDef<L>) -> (Vec<u32>, Vec<u32>) {
    let limbs = 2 * L;
    let p = c.p.modulus();
    let mut record = Vec::with_capacity(3 * limbs + 1);
    push_words(&mut record, &p.0, limbs);
    push_words(&mut record, &c.p.one().0, limbs);
    push_words(&mut record, &c.b.0, limbs);
    record.push(neg_inv_u32(p.0[0] as u32));
    let windows = shaders::ec_windows(c.curve);
    let mut table = Vec::with_capacity(windows * DIGITS * 3 * limbs);
    let mut b = ProjectivePoint::from_affine(&AffineMonty { x: c.gx, y: c.gy }, c);
    for _ in 0..windows {
        let mut acc = ProjectivePoint::identity(c);
        for _ in 0..DIGITS {
            for coord in [&acc.x, &acc.y, &acc.z] {
                push_words(&mut table, &coord.0, limbs);
            }
            acc = acc.add(&b, c);
        }
        b = acc; // 16·b
    }
    (record, table)
}

/// Loop iterations of one `point_add` (`shaders/point.wgsl`): the 43-step program, 14 field
/// multiplications of LIMBS iterations each (limb loops are unrolled), with margin.
fn add_cost(limbs: usize) -> usize {
    43 + 14 * (limbs + 1) + 8
}

/// The dispatches of one chunk: `(pipeline, first, steps)`, each under [`LOOP_BUDGET`] loop
/// iterations per invocation.
fn dispatch_plan(
    p: &EcPipelines,
    curve: Curve,
    op: Op,
) -> Vec<(&wgpu::ComputePipeline, usize, usize)> {
    let limbs = shaders::ec_limbs(curve);
    let windows = shaders::ec_windows(curve);
    let add = add_cost(limbs);
    // a window step: one addition, a 16-entry scan, the loop's own iteration
    let step = add + DIGITS + 1;
    let split = |pipeline, from: usize, to: usize, per: usize| {
        let per = per.max(1);
        (from..to)
            .step_by(per)
            .map(move |first| (pipeline, first, per.min(to - first)))
    };
    // ec_load with first = 1 also loads Q into the table
    let mut plan = vec![(&p.load, usize::from(op != Op::Base), 0)];
    if op != Op::Base {
        plan.extend(split(&p.table, 2, DIGITS, LOOP_BUDGET / (add + 1)));
        plan.extend(split(&p.windows, 0, 5 * windows, LOOP_BUDGET / step));
    }
    if op != Op::Point {
        plan.extend(split(&p.base, 0, windows, LOOP_BUDGET / step));
    }
    plan.push((&p.finish, 0, 0));
    plan
}

/// Jobs per chunk: the scratch binding must fit the storage-binding and buffer limits, the
/// workgroup count one dimension.
fn chunk_cap(ctx: &GpuContext, limbs: usize, slots: usize, max_chunk_jobs: Option<usize>) -> usize {
    let widest_words = slots.max(JOB_FIELDS) * limbs;
    let max_binding = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size)
        .min(1 << 30) as usize;
    let by_memory = (max_binding / (4 * widest_words)).max(1);
    let by_dispatch = ctx.max_jobs_per_dispatch();
    let cap = by_memory.min(by_dispatch);
    max_chunk_jobs.map_or(cap, |c| cap.min(c.max(1)))
}

fn run_curve<const L: usize>(
    ctx: &GpuContext,
    c: &'static CurveDef<L>,
    op: Op,
    jobs: Vec<Result<EcJob, Error>>,
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    let limbs = 2 * L;
    let mut out: Vec<JobResult<AffinePoint>> = jobs
        .iter()
        .map(|j| {
            j.as_ref()
                .map(|_| AffinePoint::IDENTITY)
                .map_err(Clone::clone)
        })
        .collect();
    let valid: Vec<(usize, EcJob)> = jobs
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.as_ref().ok().map(|j| (i, *j)))
        .collect();
    if valid.is_empty() {
        return Ok(out);
    }
    let _device = ctx.lock();
    let pipelines = ctx
        .ec_pipelines(c.curve, || curve_constants(c))
        .map_err(Error::Backend)?;
    let plan = dispatch_plan(&pipelines, c.curve, op);
    let slots = if op == Op::Base {
        SLOTS_BASE
    } else {
        SLOTS_POINT
    };
    let one = *c.p.one();
    // each chunk's words are built just before it is submitted (the iterator is lazy), while
    // the previous chunk runs
    let items = valid
        .chunks(chunk_cap(ctx, limbs, slots, max_chunk_jobs))
        .map(|chunk| {
            let mut words = Vec::with_capacity(chunk.len() * JOB_FIELDS * limbs);
            for (_, job) in chunk {
                push_words(&mut words, &job.kg.0[..L], limbs);
                push_words(&mut words, &job.kq.0[..L], limbs);
                // Q was checked on the curve, so its coordinates are below p
                let x = c.fe_from_seam(&job.q.x).unwrap_or(Uint::ZERO);
                let y = c.fe_from_seam(&job.q.y).unwrap_or(one);
                let id = (job.q.infinity as u64).wrapping_neg();
                let (x, y, z) = (
                    Uint::select(&x, &Uint::ZERO, id),
                    Uint::select(&y, &one, id),
                    Uint::select(&one, &Uint::ZERO, id),
                );
                for coord in [x, y, z] {
                    push_words(&mut words, &coord.0, limbs);
                }
            }
            (chunk, words)
        });
    ctx.run_chunks(
        items,
        |(chunk, words)| {
            let inputs = [
                Input::Buffer(&pipelines.curve_record),
                Input::Words(words),
                Input::Buffer(&pipelines.base_table),
            ];
            let n = chunk.len();
            ctx.submit_plan(
                "scalar_mul",
                &plan,
                n,
                0,
                inputs,
                n * 3 * limbs,
                n * slots * limbs,
            )
        },
        |(chunk, _), result| {
            for ((i, _), r) in chunk.iter().zip(affine_results(c, &result)) {
                out[*i] = r;
            }
        },
    )
    .map_err(Error::Backend)?;
    Ok(out)
}

/// Projective results (`3·LIMBS` words each) to checked affine seam points.
fn affine_results<const L: usize>(c: &CurveDef<L>, words: &[u32]) -> Vec<JobResult<AffinePoint>> {
    let limbs = 2 * L;
    let pts: Vec<(ProjectivePoint<L>, u64)> = words
        .chunks_exact(3 * limbs)
        .map(|w| {
            let pt = ProjectivePoint {
                x: uint_of(&w[..limbs]),
                y: uint_of(&w[limbs..2 * limbs]),
                z: uint_of(&w[2 * limbs..]),
            };
            // all-ones when every coordinate is below p (the subtraction borrows)
            let canonical = [&pt.x, &pt.y, &pt.z]
                .iter()
                .fold(u64::MAX, |m, v| m & v.sbb(c.p.modulus()).1.wrapping_neg());
            (pt, canonical)
        })
        .collect();
    pts.par_chunks(NORMALIZE_CHUNK)
        .flat_map_iter(|chunk| {
            let proj: Vec<ProjectivePoint<L>> = chunk.iter().map(|(p, _)| *p).collect();
            let affine = batch_normalize(c, &proj);
            chunk
                .iter()
                .zip(affine)
                .map(|((_, canonical), (a, id))| {
                    let ok = canonical & (c.on_curve_mask(&a.x, &a.y) | id);
                    if ok != u64::MAX {
                        return Err(Error::FaultDetected("wgpu: EC result not on the curve"));
                    }
                    Ok(AffinePoint {
                        x: c.fe_to_seam(&a.x),
                        y: c.fe_to_seam(&a.y),
                        infinity: id != 0,
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-base table holds `d·16^i·G` (checked against `k·G` from batch-scalar for a
    /// few windows), and the curve record matches its definition.
    #[test]
    fn curve_constants_match_their_definitions() {
        let c = &P256;
        let (record, table) = curve_constants(c);
        let limbs = 8;
        assert_eq!(record.len(), 3 * limbs + 1);
        assert_eq!(uint_of::<4>(&record[..limbs]), *c.p.modulus());
        assert_eq!(record[3 * limbs].wrapping_mul(record[0]), u32::MAX);
        assert_eq!(table.len(), 64 * DIGITS * 3 * limbs);
        for (i, d) in [(0usize, 0usize), (0, 1), (0, 15), (1, 3), (37, 9), (63, 15)] {
            let at = (i * DIGITS + d) * 3 * limbs;
            let w = &table[at..at + 3 * limbs];
            let pt = ProjectivePoint::<4> {
                x: uint_of(&w[..8]),
                y: uint_of(&w[8..16]),
                z: uint_of(&w[16..]),
            };
            let (a, id) = batch_normalize(c, &[pt])[0];
            // d·16^i as a scalar
            let mut k = EcUint::ZERO;
            k.0[(4 * i) / 64] = (d as u64) << ((4 * i) % 64);
            let want = batch_scalar::ecc::mul_base(Curve::P256, &[k])
                .pop()
                .unwrap()
                .unwrap();
            assert_eq!(id != 0, want.infinity, "({i}, {d})");
            assert_eq!(c.fe_to_seam(&a.x), want.x, "({i}, {d})");
            assert_eq!(c.fe_to_seam(&a.y), want.y, "({i}, {d})");
        }
    }

    #[test]
    fn words_round_trip() {
        let v = Uint::<4>([1, u64::MAX, 0x0123_4567_89ab_cdef, 7]);
        let mut w = Vec::new();
        push_words(&mut w, &v.0, 8);
        assert_eq!(w.len(), 8);
        assert_eq!(uint_of::<4>(&w), v);
        let mut five = vec![9];
        push_words(&mut five, &[5], 4);
        assert_eq!(five[1..], [5, 0, 0, 0]);
    }
}
