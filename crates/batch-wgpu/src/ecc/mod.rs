//! Elliptic-curve batches on the GPU (`shaders/field.wgsl`, `point.wgsl`, `scalar_mul.wgsl`):
//! validation, the per-curve constants, dispatch plans, affine results.
//!
//! Representation: a field element is `LIMBS = 2·L` little-endian `u32` words for the curve's
//! `L` 64-bit limbs (8, 12, 18), so the shader's Montgomery radix `2^(32·LIMBS)` equals the
//! host's `2^(64·L)` and Montgomery-form values cross the seam unchanged; in the shader it
//! is a function-scope array with every limb loop written out, so it lives in registers.
//! Points are homogeneous projective `(X : Y : Z)`, the identity `(0 : 1 : 0)`; the formulas
//! are generated from `batch_core::rcb` ([`formulas`]).
//!
//! - `k·G`: signed 3-bit (Booth) windows over an affine fixed-base table `d·2^(3i)·G`
//!   (`1 ≤ d ≤ 4`, every window `i`), built once per curve on the host with batch-scalar's
//!   formulas and kept in a storage buffer: one table scan and one mixed addition per
//!   window, no doubling.
//! - `k·Q`: a per-job table `j·Q` (`j < 16`) in registers, then 4 doublings, a scan and an
//!   addition per window, from the top.
//! - `u₁·G + u₂·Q`: both of the above into two accumulators, added at the end. The GPU code is
//!   constant-time; a variable-time (wNAF) version could skip work but would diverge across
//!   the lanes of a workgroup.
//! - `u₁·G + u₂·Q` where at least [`shared_point_min`] jobs of a batch share one `Q`
//!   (`batch_core::shared`): a table for that `Q` laid out like `G`'s ([`SHARED_W`]-bit
//!   signed windows, every window's multiples, affine), built on the host with batch-scalar's
//!   formulas ([`point_table`]) and uploaded with the chunk; the jobs then run both
//!   multiplications as table additions into one accumulator, no doublings
//!   (`ec_double_shared_vartime`). Its loads are addressed by the digits (variable-time: the
//!   scalars and points of verification are public); every other job keeps the path above.
//!
//! Each operation is a sequence of steps (`step_costs`): one dispatch per chunk runs them
//! all, except on llvmpipe, whose loop limit the wide curves' product loops would pass; there
//! the sequence is cut into dispatches under [`shaders::LOOP_BUDGET`] iterations with the
//! state kept in `scratch` between them.
//!
//! Each job is validated alone, in the scalar backend's order (`k·Q`: scalar, then point;
//! `u₁·G + u₂·Q`: `u₁`, `u₂`, `Q`); a bad job gets its error and is not sent to the GPU. The
//! valid jobs are split into chunks that fit the device's limits. Each chunk's results are
//! made affine where [`Normalize`] says (by default on the GPU, on the host where the adapter
//! is a CPU):
//! - on the GPU, by one more dispatch (`ec_normalize`, `shaders/normalize.wgsl`): one field
//!   inversion per workgroup of [`shaders::ec_normalize_wg`] jobs (Montgomery's trick over
//!   two scans in workgroup memory); the results come back as `(x, y, 1)` or `(0, 1, 0)`;
//! - on the host, with one inversion per [`NORMALIZE_CHUNK`] results (batch-scalar's
//!   `batch_normalize`, in parallel over rayon), while the GPU runs the next chunk.
//!
//! Every result is checked before it is returned: coordinates below `p` and the point on the
//! curve or the identity (never `(0 : 0 : 0)`, which is what a result the GPU never wrote
//! reads as, nor a projective point where the GPU was to normalise), else the job fails with
//! [`Error::FaultDetected`].
//!
//! Constant-time: the GPU work of a chunk depends only on the operation, the curve and the
//! number of jobs; the host's conversions, normalisation and checks are batch-core's
//! constant-time field arithmetic and masks, and so is `ec_normalize` (its only data-dependent
//! branches are on the public exponent's bits); validation (batch-core's `check_*` functions) is
//! constant-time too, as in the other backends (only each job's verdict is public).

use batch_core::backend::{check_double_job, check_point_job, check_scalar};
use batch_core::curve::{CurveDef, P224, P256, P384, P521};
use batch_core::num::Uint;
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use batch_scalar::ecc::point::{batch_normalize, AffineMonty, ProjectivePoint};
use rayon::prelude::*;

use crate::context::{Dispatch, EcExtra, GpuContext, Input, Normalize};
use crate::modexp::{from_words, neg_inv_u32, push_words};
use crate::shaders;

pub mod formulas;

/// Entries per window of the `k·Q` table (unsigned 4-bit digits, `0 … 15`).
pub const DIGITS: usize = 16;

/// Bits per signed window of `k·G` (Booth digits `−4 … 4`). On lavapipe the scans' table
/// loads cost more than the additions (each load is a per-lane gather), so narrow windows
/// win: P-256 `k·G` ran 1.4× faster on 3-bit windows (86 additions, 4-entry scans) than on
/// 5-bit ones (52 additions, 16-entry scans), 2-bit and 4-bit ones in between, 7-bit ones at
/// half the 5-bit rate (docs/PERF.md). On a GPU, with cheap uniform loads, wider windows
/// would pay: measure there.
pub const BASE_W: usize = 3;

/// Entries per window of the fixed-base table: `|d| = 1 … 2^(BASE_W − 1)`.
pub const BASE_DIGITS: usize = 1 << (BASE_W - 1);

/// Bits per signed window of a shared point's table (`u₂·Q` under a shared `Q`). The table
/// is built on the host, so its size (`2^(SHARED_W − 1)` entries a window) is paid once per
/// group and the additions (one a window) once per job; the loads are by index, one entry a
/// window whatever the width. On lavapipe (docs/PERF.md) 5-bit windows ran 1.2–1.3× faster
/// than 3-bit ones at 1024 jobs a key but lost below about 8 (0.4–0.9× at 2–4): 3 kept, for
/// the low threshold; a width per group (`batch_core::shared::comb_width`) would take both.
pub const SHARED_W: usize = 3;

/// Entries per window of a shared point's table: `|d| = 1 … 2^(SHARED_W − 1)`.
pub const SHARED_DIGITS: usize = 1 << (SHARED_W - 1);

/// Jobs under one point from which a verification batch runs them on a table for that point
/// (see [`SHARED_W`]). Measured on lavapipe (`examples/ec_rate` shared-key mode, 2 vCPUs,
/// docs/PERF.md), shared ÷ distinct at 1 / 2 / 3 / 4 / 1024 jobs a key: P-256 0.5–0.6 /
/// 0.8–1.05 / 1.2–1.4 / 1.3–1.8 / 2.5–3.3; P-384 1.7 / 1.9 / 2.2 / 2.4 / 3.3 and P-521
/// 1.45 / 1.6 / – / 2.5 / 3.1, where a table built by the host's scalar code beats the
/// software adapter's doublings even for one job. P-224 (not measured) takes P-256's. On a
/// GPU, whose doublings are cheap against the host's table, the break-even will be higher:
/// measure there.
pub fn shared_point_min(curve: Curve) -> usize {
    match curve {
        Curve::P224 | Curve::P256 => 3,
        // a key seen twice; the table paid even for one job (see above)
        Curve::P384 | Curve::P521 => 2,
    }
}

/// Words per job in the `jobs` buffer: `k_G`, `k_Q`, `X`, `Y`, `Z`.
const JOB_FIELDS: usize = 5;

/// Results made affine with one field inversion.
pub const NORMALIZE_CHUNK: usize = 256;

/// Forced limits below the device's (tests).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    /// Jobs per chunk.
    pub max_chunk_jobs: Option<usize>,
    /// Loop iterations per invocation and dispatch.
    pub loop_budget: Option<usize>,
    /// Jobs under one point from which they run on a table for it (`usize::MAX`: never).
    pub shared_point_min: Option<usize>,
    /// Where results are made affine, instead of the device's choice.
    pub normalize: Option<Normalize>,
}

/// Which scalar multiplication a batch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Base,
    Point,
    DoubleVartime,
    DoubleSharedVartime,
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
    limits: Limits,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    // `check_scalar` is constant-time in k: only its verdict is public.
    let jobs = scalars
        .iter()
        .map(|k| check_scalar(curve, k).map(|()| EcJob { kg: *k, ..ZERO_JOB }))
        .collect();
    run(ctx, curve, Op::Base, jobs, limits)
}

/// `k·Q` for each pair.
pub(crate) fn mul_point(
    ctx: &GpuContext,
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
    limits: Limits,
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
    run(ctx, curve, Op::Point, jobs, limits)
}

/// `u₁·G + u₂·Q` for each triple; jobs under a point that at least [`shared_point_min`] of
/// them share run on a table for that point ([`run_shared_vartime`]), the others one by one.
pub(crate) fn mul_double_vartime(
    ctx: &GpuContext,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
    limits: Limits,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    use batch_core::shared::{gather, run_split, split_vartime};
    let min = limits
        .shared_point_min
        .unwrap_or_else(|| shared_point_min(curve));
    let split = split_vartime(curve, points, min);
    if split.groups.is_empty() {
        return mul_double_distinct_vartime(ctx, curve, u1, u2, points, limits);
    }
    // Both paths run before the results are placed: the shared one serves every group in one
    // GPU call, and either may fail the whole batch.
    let rest = if split.rest.is_empty() {
        Vec::new()
    } else {
        let idx = &split.rest;
        mul_double_distinct_vartime(
            ctx,
            curve,
            &gather(u1, idx),
            &gather(u2, idx),
            &gather(points, idx),
            limits,
        )?
    };
    let shared = match curve {
        Curve::P224 => run_shared_vartime(ctx, &P224, &split.groups, u1, u2, limits),
        Curve::P256 => run_shared_vartime(ctx, &P256, &split.groups, u1, u2, limits),
        Curve::P384 => run_shared_vartime(ctx, &P384, &split.groups, u1, u2, limits),
        Curve::P521 => run_shared_vartime(ctx, &P521, &split.groups, u1, u2, limits),
    }?;
    // in group order, as run_split asks for them
    let mut shared = shared.into_iter();
    Ok(run_split(
        points.len(),
        &split,
        |_| rest,
        |_, idx| shared.by_ref().take(idx.len()).collect(),
    ))
}

/// `u₁·G + u₂·Q` for each triple, each job with its own `Q`.
fn mul_double_distinct_vartime(
    ctx: &GpuContext,
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
    limits: Limits,
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
    run(ctx, curve, Op::DoubleVartime, jobs, limits)
}

fn run(
    ctx: &GpuContext,
    curve: Curve,
    op: Op,
    jobs: Vec<Result<EcJob, Error>>,
    limits: Limits,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    match curve {
        Curve::P224 => run_curve(ctx, &P224, op, jobs, limits),
        Curve::P256 => run_curve(ctx, &P256, op, jobs, limits),
        Curve::P384 => run_curve(ctx, &P384, op, jobs, limits),
        Curve::P521 => run_curve(ctx, &P521, op, jobs, limits),
    }
}

/// `L` limbs from `2·L` words.
fn uint_of<const L: usize>(words: &[u32]) -> Uint<L> {
    let mut u = Uint::<L>::ZERO;
    u.0.copy_from_slice(&from_words(words));
    u
}

/// The curve as WGSL constants for the shader's prelude: `P`, `N0INV` (`−p⁻¹ mod 2^32`),
/// `ONE` (`R mod p`) and `CURVE_B` (`b·R mod p`), `R = 2^(32·LIMBS)`, as `Word`s of
/// `arith`'s limb words (`shaders/regs_*.wgsl`); and the inversion's exponent `p − 2` as
/// `u32` words `P_MINUS_2`, with `INV_BITS` its length in bits (`shaders/normalize.wgsl`).
pub(crate) fn wgsl_constants(curve: Curve, arith: shaders::Arith) -> String {
    let suffix = match arith {
        shaders::Arith::Int64 => "lu",
        shaders::Arith::Portable => "u",
    };
    match curve {
        Curve::P224 => constants_of(&P224, suffix),
        Curve::P256 => constants_of(&P256, suffix),
        Curve::P384 => constants_of(&P384, suffix),
        Curve::P521 => constants_of(&P521, suffix),
    }
}

fn constants_of<const L: usize>(c: &CurveDef<L>, suffix: &str) -> String {
    let limbs = 2 * L;
    let array = |v: &Uint<L>| {
        let mut w = Vec::with_capacity(limbs);
        push_words(&mut w, &v.0, limbs);
        let lits: Vec<String> = w.iter().map(|x| format!("0x{x:08x}{suffix}")).collect();
        format!("array<Word, {limbs}>({})", lits.join(", "))
    };
    let p = c.p.modulus();
    let mut two = Uint::<L>::ZERO;
    two.0[0] = 2;
    let (p_minus_2, _) = p.sbb(&two);
    let mut e = Vec::with_capacity(limbs);
    push_words(&mut e, &p_minus_2.0, limbs);
    let e: Vec<String> = e.iter().map(|x| format!("0x{x:08x}u")).collect();
    format!(
        "const P = {};\nconst N0INV: Word = 0x{:08x}{suffix};\nconst ONE = {};\nconst CURVE_B = {};\n\
         const P_MINUS_2 = array<u32, {limbs}>({});\nconst INV_BITS: u32 = {}u;\n",
        array(p),
        neg_inv_u32(p.0[0] as u32),
        array(c.p.one()),
        array(&c.b),
        e.join(", "),
        p_minus_2.bits_vartime(),
    )
}

/// The fixed-base table as the shader reads it: [`point_table`] for `G` and [`BASE_W`].
fn base_table<const L: usize>(c: &CurveDef<L>) -> Vec<u32> {
    point_table(
        c,
        &AffineMonty { x: c.gx, y: c.gy },
        BASE_W,
        shaders::ec_base_windows(c.curve),
    )
}

/// A fixed-base table for `b` (affine, Montgomery form, not the identity) as the shader reads
/// it: for every signed window `i < windows` of `w` bits and `1 ≤ d ≤ 2^(w−1)` the affine
/// point `d·2^(w·i)·b` (Montgomery form), `x` then `y`. In each window the even multiples are
/// doublings of the half multiples, the odd ones one addition of the window's base, and the
/// next window's base doubles the top entry (`2·2^(w−1) = 2^w`): `2^(w−1)` formulas a window.
/// None is the identity: `d·2^(w·i)` is never a multiple of the prime order `n > 2^w`.
fn point_table<const L: usize>(
    c: &CurveDef<L>,
    b: &AffineMonty<L>,
    w: usize,
    windows: usize,
) -> Vec<u32> {
    let limbs = 2 * L;
    let digits = 1 << (w - 1);
    let mut proj = Vec::with_capacity(windows * digits);
    let mut base = ProjectivePoint::from_affine(b, c);
    for _ in 0..windows {
        let at = proj.len();
        proj.push(base);
        for d in 2..=digits {
            let e = if d % 2 == 0 {
                proj[at + d / 2 - 1].double(c)
            } else {
                proj[at + d - 2].add(&base, c)
            };
            proj.push(e);
        }
        base = proj[at + digits - 1].double(c);
    }
    let mut table = Vec::with_capacity(proj.len() * 2 * limbs);
    for (a, _) in batch_normalize(c, &proj) {
        push_words(&mut table, &a.x.0, limbs);
        push_words(&mut table, &a.y.0, limbs);
    }
    table
}

/// Loop iterations of each step of `op` (`shaders/scalar_mul.wgsl`), in order: the step
/// loop's own iteration, the table scans, the doublings' loop, and per field product the
/// row loop's iterations (none where the rows are unrolled). Products per formula: mixed
/// addition 13, addition 14, doubling 13 (RCB15, products by `b` included). llvmpipe runs a
/// branch that no lane takes with its mask off, and each loop in it still costs an
/// iteration or two: the table steps and the last step skip the window branch (its
/// doublings' loop, the loops of the first doubling's products, its scan) and pay for it.
fn step_costs(curve: Curve, op: Op) -> Vec<usize> {
    let limbs = shaders::ec_limbs(curve);
    let rows = shaders::ec_rows(curve);
    let (m, loops_per_product) = if rows == limbs {
        (0, 0)
    } else {
        (limbs / rows, 1)
    };
    let windows = shaders::ec_windows(curve);
    let skipped_window = 2 * (1 + 13 * loops_per_product + 1);
    let base = 1 + BASE_DIGITS + 13 * m;
    let table = 1 + 14 * m + skipped_window;
    let window = 1 + 4 + 4 * 13 * m + DIGITS + 14 * m;
    let mut costs = Vec::new();
    if op == Op::DoubleSharedVartime {
        // an entry loaded by index (no scan loop) and one mixed addition a window
        let windows = shaders::ec_base_windows(curve) + shaders::ec_shared_windows(curve);
        return vec![1 + 13 * m; windows];
    }
    if op != Op::Point {
        costs.extend(std::iter::repeat_n(base, shaders::ec_base_windows(curve)));
    }
    if op != Op::Base {
        costs.extend(std::iter::repeat_n(table, DIGITS - 2));
        costs.extend(std::iter::repeat_n(window, windows));
    }
    if op == Op::DoubleVartime {
        costs.push(table); // acc + acc_G, past the window branch like a table step
    }
    costs
}

/// Loop iterations of a dispatch besides its steps: loading and saving the state (two loops
/// over the table), entering the step loops, with margin.
const DISPATCH_OVERHEAD: usize = 2 * DIGITS + 32;

/// The dispatches of `op` as `(first, steps)` and the total number of steps: all in one
/// where the adapter has no loop limit, else cut so that each stays under `budget` loop
/// iterations per invocation.
fn dispatch_plan(curve: Curve, op: Op, budget: Option<usize>) -> (Vec<(usize, usize)>, usize) {
    let costs = step_costs(curve, op);
    let total = costs.len();
    let Some(budget) = budget else {
        return (vec![(0, total)], total);
    };
    let budget = budget - DISPATCH_OVERHEAD;
    let mut plan = Vec::new();
    let (mut first, mut used) = (0, 0);
    for (s, &c) in costs.iter().enumerate() {
        assert!(
            c <= budget,
            "one step of {curve} {op:?} exceeds the loop budget"
        );
        if used + c > budget {
            plan.push((first, s - first));
            (first, used) = (s, 0);
        }
        used += c;
    }
    plan.push((first, total - first));
    (plan, total)
}

/// llvmpipe's loop limit ([`shaders::LOOP_BUDGET`]) where the adapter is a CPU; none on a
/// GPU.
fn loop_budget(ctx: &GpuContext) -> Option<usize> {
    (ctx.info.device_type == wgpu::DeviceType::Cpu).then_some(shaders::LOOP_BUDGET)
}

/// The loop budget a dispatch must stay under: llvmpipe's, or a tighter one forced by tests.
fn budget(ctx: &GpuContext, limits: Limits) -> Option<usize> {
    match (limits.loop_budget, loop_budget(ctx)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Field elements of a job's state between dispatches (`STATE` in `scalar_mul.wgsl`).
const STATE: usize = 3 * (DIGITS + 2);

/// Jobs per chunk: the jobs and results bindings must fit the storage-binding and buffer
/// limits, the workgroup count one dimension.
fn chunk_cap(ctx: &GpuContext, limbs: usize, split: bool, max_chunk_jobs: Option<usize>) -> usize {
    let widest_words = if split { STATE } else { JOB_FIELDS } * limbs;

    let max_binding = ctx.max_binding_bytes();
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
    limits: Limits,
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
        .ec_pipelines(c.curve, || base_table(c))
        .map_err(Error::Backend)?;
    let pipeline = match op {
        Op::Base => &pipelines.base,
        Op::Point => &pipelines.point,
        Op::DoubleVartime => &pipelines.double,
        Op::DoubleSharedVartime => unreachable!("run_shared_vartime"),
    };
    let (steps, total) = dispatch_plan(c.curve, op, budget(ctx, limits));
    let split = steps.len() > 1;
    let normalize = normalize_pipeline(ctx, c.curve, &pipelines, limits)?;
    let plan = chunk_plan(c.curve, pipeline, &steps, normalize.as_ref());
    let one = *c.p.one();
    // each chunk's words are built just before it is submitted (the iterator is lazy), while
    // the previous chunk runs
    let items = valid
        .chunks(chunk_cap(ctx, limbs, split, limits.max_chunk_jobs))
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
            // binding 3 is not used by the EC shader, nor is `scratch` in a single dispatch
            let inputs = [
                Input::Buffer(&pipelines.base_table),
                Input::Words(words),
                Input::Words(&[0]),
            ];
            let n = chunk.len();
            ctx.submit_plan(
                "scalar_mul",
                &plan,
                n,
                total as u32,
                inputs,
                n * 3 * limbs,
                if split { n * STATE * limbs } else { 1 },
            )
        },
        |(chunk, _), result| {
            for ((i, _), r) in chunk
                .iter()
                .zip(checked_results(c, &result, normalize.is_some()))
            {
                out[*i] = r;
            }
        },
    )
    .map_err(Error::Backend)?;
    Ok(out)
}

/// `u₁·G + u₂·Q` for the jobs of `groups` (each a valid, non-identity `Q` and its job
/// indices into `u1`, `u2`), results in the groups' order. Each group's scalars are checked
/// (`u₁`, then `u₂`, as on the distinct path; its point was checked by `split_vartime`); the
/// valid jobs are cut into chunks that fit the device's limits, each chunk with the tables of
/// the groups it holds (built in parallel on the host as the chunk is prepared, while the
/// previous chunk runs) in one `point_tables` buffer, each job pointing at its group's.
fn run_shared_vartime<const L: usize>(
    ctx: &GpuContext,
    c: &'static CurveDef<L>,
    groups: &[(AffinePoint, Vec<usize>)],
    u1: &[EcUint],
    u2: &[EcUint],
    limits: Limits,
) -> Result<Vec<JobResult<AffinePoint>>, Error> {
    use batch_core::shared::group_scalars_vartime;
    let limbs = 2 * L;
    // (group, scalars) of each job, in the groups' order
    type Scalars = Result<(EcUint, EcUint), Error>;
    let jobs: Vec<(usize, Scalars)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, (_, idx))| {
            group_scalars_vartime(c.curve, u1, u2, idx)
                .into_iter()
                .map(move |r| (g, r))
        })
        .collect();
    let mut out: Vec<JobResult<AffinePoint>> = jobs
        .iter()
        .map(|(_, r)| {
            r.as_ref()
                .map(|_| AffinePoint::IDENTITY)
                .map_err(Clone::clone)
        })
        .collect();
    // (position in `out`, group, u₁, u₂)
    let valid: Vec<(usize, usize, EcUint, EcUint)> = jobs
        .iter()
        .enumerate()
        .filter_map(|(i, (g, r))| r.as_ref().ok().map(|&(a, b)| (i, *g, a, b)))
        .collect();
    if valid.is_empty() {
        return Ok(out);
    }
    // the groups' points in Montgomery form (checked on the curve, so below p)
    let points: Vec<AffineMonty<L>> = groups
        .iter()
        .map(|(q, _)| {
            Some(AffineMonty {
                x: c.fe_from_seam(&q.x)?,
                y: c.fe_from_seam(&q.y)?,
            })
        })
        .collect::<Option<_>>()
        .ok_or(Error::PointNotOnCurve { curve: c.curve })?;
    let _device = ctx.lock();
    let pipelines = ctx
        .ec_pipelines(c.curve, || base_table(c))
        .map_err(Error::Backend)?;
    let pipeline = ctx
        .ec_extra_pipeline(c.curve, &pipelines, EcExtra::Shared)
        .map_err(Error::Backend)?;
    let (steps, total) = dispatch_plan(c.curve, Op::DoubleSharedVartime, budget(ctx, limits));
    let split = steps.len() > 1;
    let normalize = normalize_pipeline(ctx, c.curve, &pipelines, limits)?;
    let plan = chunk_plan(c.curve, &pipeline, &steps, normalize.as_ref());
    // chunks: at most `cap` jobs, and tables that fit one binding
    let windows = shaders::ec_shared_windows(c.curve);
    let table_words = windows * SHARED_DIGITS * 2 * limbs;

    let max_binding = ctx.max_binding_bytes();
    let max_tables = (max_binding / (4 * table_words)).max(1);
    let cap = chunk_cap(ctx, limbs, split, limits.max_chunk_jobs);
    let mut chunks: Vec<Vec<(usize, usize, EcUint, EcUint)>> = Vec::new();
    let mut tables = 0;
    for job in valid {
        let same_group = chunks
            .last()
            .and_then(|ch| ch.last())
            .is_some_and(|l| l.1 == job.1);
        let full =
            chunks.last().is_none_or(|ch| ch.len() == cap) || (!same_group && tables == max_tables);
        if full {
            chunks.push(Vec::new());
            tables = 0;
        }
        if full || !same_group {
            tables += 1;
        }
        chunks.last_mut().expect("a chunk").push(job);
    }
    let items = chunks.iter().map(|chunk| {
        // the chunk's groups, in order, and each one's table
        let mut in_chunk: Vec<usize> = chunk.iter().map(|j| j.1).collect();
        in_chunk.dedup();
        let built: Vec<Vec<u32>> = in_chunk
            .par_iter()
            .map(|&g| point_table(c, &points[g], SHARED_W, windows))
            .collect();
        let tables = built.concat();
        let mut words = Vec::with_capacity(chunk.len() * JOB_FIELDS * limbs);
        let mut slot = 0;
        for (k, &(_, g, a, b)) in chunk.iter().enumerate() {
            if k > 0 && chunk[k - 1].1 != g {
                slot += 1;
            }
            push_words(&mut words, &a.0[..L], limbs);
            push_words(&mut words, &b.0[..L], limbs);
            // J_Q: where the group's table starts, in words
            words.push((slot * table_words) as u32);
            words.resize(words.len() + 3 * limbs - 1, 0);
        }
        (chunk, words, tables)
    });
    ctx.run_chunks(
        items,
        |(chunk, words, tables)| {
            let inputs = [
                Input::Buffer(&pipelines.base_table),
                Input::Words(words),
                Input::Words(tables),
            ];
            let n = chunk.len();
            ctx.submit_plan(
                "scalar_mul shared",
                &plan,
                n,
                total as u32,
                inputs,
                n * 3 * limbs,
                if split { n * 3 * limbs } else { 1 },
            )
        },
        |(chunk, _, _), result| {
            for (&(i, ..), r) in chunk
                .iter()
                .zip(checked_results(c, &result, normalize.is_some()))
            {
                out[i] = r;
            }
        },
    )
    .map_err(Error::Backend)?;
    Ok(out)
}

/// `ec_normalize` where the results are to be made affine on the GPU (compiled on first
/// use), else `None`.
fn normalize_pipeline(
    ctx: &GpuContext,
    curve: Curve,
    pipelines: &crate::context::EcPipelines,
    limits: Limits,
) -> Result<Option<wgpu::ComputePipeline>, Error> {
    match limits.normalize.unwrap_or(ctx.normalize) {
        Normalize::Host => Ok(None),
        Normalize::Gpu => ctx
            .ec_extra_pipeline(curve, pipelines, EcExtra::Normalize)
            .map(Some)
            .map_err(Error::Backend),
    }
}

/// A chunk's dispatches: `steps` (`(first, steps)`) of `pipeline`, then `ec_normalize` where
/// the GPU makes the results affine.
fn chunk_plan<'a>(
    curve: Curve,
    pipeline: &'a wgpu::ComputePipeline,
    steps: &[(usize, usize)],
    normalize: Option<&'a wgpu::ComputePipeline>,
) -> Vec<Dispatch<'a>> {
    let mut plan: Vec<Dispatch<'a>> = steps
        .iter()
        .map(|&(first, steps)| Dispatch {
            pipeline,
            first,
            steps,
            group: shaders::WORKGROUP_SIZE,
        })
        .collect();
    if let Some(pipeline) = normalize {
        plan.push(Dispatch {
            pipeline,
            first: 0,
            steps: 0,
            group: shaders::ec_normalize_wg(curve),
        });
    }
    plan
}

/// A chunk's results (`3·LIMBS` words each) to checked affine seam points: made affine here
/// ([`affine_results`]) unless `ec_normalize` ran (`on_gpu`, [`normalized_results`]).
fn checked_results<const L: usize>(
    c: &CurveDef<L>,
    words: &[u32],
    on_gpu: bool,
) -> Vec<JobResult<AffinePoint>> {
    if on_gpu {
        normalized_results(c, words)
    } else {
        affine_results(c, words)
    }
}

/// `ec_normalize`'s results (`(x, y, ONE)`, the identity `(0, ONE, 0)`) to checked affine seam
/// points: every coordinate below `p`, and the point on the curve with `z = ONE`, or the
/// identity exactly as written; else [`Error::FaultDetected`] (an unwritten result reads
/// `(0, 0, 0)`, which is neither).
fn normalized_results<const L: usize>(
    c: &CurveDef<L>,
    words: &[u32],
) -> Vec<JobResult<AffinePoint>> {
    let limbs = 2 * L;
    let one = c.p.one();
    words
        .par_chunks_exact(3 * limbs)
        .map(|w| {
            let (x, y, z): (Uint<L>, Uint<L>, Uint<L>) = (
                uint_of(&w[..limbs]),
                uint_of(&w[limbs..2 * limbs]),
                uint_of(&w[2 * limbs..]),
            );
            let canonical = below_p_mask(c, &[&x, &y]);
            let affine = z.ct_eq_mask(one) & c.on_curve_mask(&x, &y);
            let id = z.is_zero_mask() & x.is_zero_mask() & y.ct_eq_mask(one);
            if canonical & (affine | id) != u64::MAX {
                return Err(Error::FaultDetected("wgpu: EC result not on the curve"));
            }
            // the seam's identity is (0, 0)
            let y = Uint::select(&y, &Uint::ZERO, id);
            Ok(AffinePoint {
                x: c.fe_to_seam(&x),
                y: c.fe_to_seam(&y),
                infinity: id != 0,
            })
        })
        .collect()
}

/// All-ones when every one of `vs` is below `p` (each subtraction of `p` borrows).
fn below_p_mask<const L: usize>(c: &CurveDef<L>, vs: &[&Uint<L>]) -> u64 {
    vs.iter()
        .fold(u64::MAX, |m, v| m & v.sbb(c.p.modulus()).1.wrapping_neg())
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
            // all-ones when every coordinate is below p and, where Z = 0, the point is the
            // identity (0 : Y : 0) with Y ≠ 0: not (0 : 0 : 0), which is what an unwritten
            // result reads as, nor (X ≠ 0 : Y : 0), which is no point
            let canonical = below_p_mask(c, &[&pt.x, &pt.y, &pt.z]);
            let some_point = !pt.z.is_zero_mask() | (pt.x.is_zero_mask() & !pt.y.is_zero_mask());
            (pt, canonical & some_point)
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
    /// few windows), and the constants name the curve.
    #[test]
    fn base_table_and_constants_match_their_definitions() {
        let c = &P256;
        let table = base_table(c);
        let limbs = 8;
        let windows = shaders::ec_base_windows(Curve::P256);
        assert_eq!(windows, 86);
        assert_eq!(table.len(), windows * BASE_DIGITS * 2 * limbs);
        for (i, d) in [(0usize, 1u64), (0, 4), (1, 3), (20, 2), (84, 2), (85, 1)] {
            let at = (i * BASE_DIGITS + d as usize - 1) * 2 * limbs;
            let (x, y) = (
                uint_of::<4>(&table[at..][..8]),
                uint_of::<4>(&table[at + 8..][..8]),
            );
            // d·2^(BASE_W·i) as a scalar
            let mut k = EcUint::ZERO;
            for bit in 0..BASE_W {
                let at = BASE_W * i + bit;
                k.0[at / 64] |= ((d >> bit) & 1) << (at % 64);
            }
            let want = batch_scalar::ecc::mul_base(Curve::P256, &[k])
                .pop()
                .unwrap()
                .unwrap();
            assert_eq!(c.fe_to_seam(&x), want.x, "({i}, {d})");
            assert_eq!(c.fe_to_seam(&y), want.y, "({i}, {d})");
        }
        let consts = wgsl_constants(Curve::P256, shaders::Arith::Portable);
        assert!(consts.contains(
            "const P = array<Word, 8>(0xffffffffu, 0xffffffffu, 0xffffffffu, 0x00000000u, \
             0x00000000u, 0x00000000u, 0x00000001u, 0xffffffffu);"
        ));
        assert!(
            consts.contains("const N0INV: Word = 0x00000001u;"),
            "{consts}"
        );
        assert!(wgsl_constants(Curve::P521, shaders::Arith::Int64)
            .contains("0x000001fflu, 0x00000000lu);"));
    }

    /// Dispatch plans cover every step once, in order, each dispatch under the budget; no
    /// budget means one dispatch.
    #[test]
    fn dispatch_plans_cover_every_step_under_the_budget() {
        let ops = [
            Op::Base,
            Op::Point,
            Op::DoubleVartime,
            Op::DoubleSharedVartime,
        ];
        for curve in Curve::ALL {
            for op in ops {
                let costs = step_costs(curve, op);
                let (one, total) = dispatch_plan(curve, op, None);
                assert_eq!((one, total), (vec![(0, costs.len())], costs.len()));
                for budget in [400, 5_000, shaders::LOOP_BUDGET] {
                    if costs.iter().any(|&c| c + DISPATCH_OVERHEAD > budget) {
                        continue;
                    }
                    let (plan, total) = dispatch_plan(curve, op, Some(budget));
                    let mut next = 0;
                    for &(first, steps) in &plan {
                        assert_eq!(first, next, "{curve} {op:?}");
                        assert!(steps > 0);
                        let used: usize = costs[first..first + steps].iter().sum();
                        assert!(
                            used + DISPATCH_OVERHEAD <= budget,
                            "{curve} {op:?} {budget}"
                        );
                        next = first + steps;
                    }
                    assert_eq!(next, total);
                }
            }
        }
        // the curve with unrolled products runs in one dispatch even on llvmpipe
        for op in ops {
            let (plan, _) = dispatch_plan(Curve::P256, op, Some(shaders::LOOP_BUDGET));
            assert_eq!(plan.len(), 1, "{op:?}");
        }
    }

    /// A shared point's table holds `d·2^(SHARED_W·i)·Q` (checked against `k·Q` from
    /// batch-scalar for a few entries, the top window's included) on P-256 and P-521.
    #[test]
    fn point_tables_match_scalar_multiples() {
        fn check<const L: usize>(c: &'static CurveDef<L>) {
            let curve = c.curve;
            let q = batch_scalar::ecc::mul_base(curve, &[EcUint::from_limbs(&[12345]).unwrap()])
                .pop()
                .unwrap()
                .unwrap();
            let qm = AffineMonty {
                x: c.fe_from_seam(&q.x).unwrap(),
                y: c.fe_from_seam(&q.y).unwrap(),
            };
            let windows = shaders::ec_shared_windows(curve);
            let table = point_table(c, &qm, SHARED_W, windows);
            let limbs = 2 * L;
            assert_eq!(table.len(), windows * SHARED_DIGITS * 2 * limbs);
            for (i, d) in [
                (0usize, 1u64),
                (0, SHARED_DIGITS as u64),
                (1, 3),
                (windows / 2, 2),
                (windows - 1, 1),
                (windows - 1, SHARED_DIGITS as u64 - 1),
            ] {
                let at = (i * SHARED_DIGITS + d as usize - 1) * 2 * limbs;
                let (x, y) = (
                    uint_of::<L>(&table[at..][..limbs]),
                    uint_of::<L>(&table[at + limbs..][..limbs]),
                );
                let mut k = EcUint::ZERO;
                for bit in 0..SHARED_W {
                    let at = SHARED_W * i + bit;
                    k.0[at / 64] |= ((d >> bit) & 1) << (at % 64);
                }
                // the top window's larger multiples may pass n; k·Q only takes k < n
                let k = if k.ct_lt_mask(&curve.order()) == u64::MAX {
                    k
                } else {
                    continue;
                };
                let want = batch_scalar::ecc::mul_point(curve, &[q], &[k])
                    .pop()
                    .unwrap()
                    .unwrap();
                assert_eq!(c.fe_to_seam(&x), want.x, "{curve} ({i}, {d})");
                assert_eq!(c.fe_to_seam(&y), want.y, "{curve} ({i}, {d})");
            }
        }
        check(&P256);
        check(&P521);
    }

    /// A P-256 result as the GPU writes it: `x`, `y`, `z` in words.
    fn words(x: &Uint<4>, y: &Uint<4>, z: &Uint<4>) -> Vec<u32> {
        let mut w = Vec::new();
        for v in [x, y, z] {
            push_words(&mut w, &v.0, 8);
        }
        w
    }

    /// Each case's words through `check` (one result): the point, or a fault where `None`.
    fn expect_results(
        check: impl Fn(&[u32]) -> Vec<JobResult<AffinePoint>>,
        cases: &[(Vec<u32>, Option<AffinePoint>)],
    ) {
        for (i, (w, want)) in cases.iter().enumerate() {
            let got = check(w).pop().expect("one result");
            match want {
                Some(p) => assert_eq!(got.as_ref(), Ok(p), "case {i}"),
                None => assert!(
                    matches!(got, Err(Error::FaultDetected(_))),
                    "case {i}: {got:?}"
                ),
            }
        }
    }

    /// What the host accepts from `ec_normalize`: an affine point with `z = ONE` on the
    /// curve, or the identity as `(0, ONE, 0)`; not `(0, 0, 0)` (unwritten), a point off the
    /// curve, a coordinate not below `p`, or a projective `z`.
    #[test]
    fn normalized_results_are_checked() {
        let c = &P256;
        let one = *c.p.one();
        let (gx, gy) = (c.gx, c.gy);
        let two = c.p.add(&one, &one);
        let gy_off = c.p.add(&gy, &one);
        let cases = [
            (words(&gx, &gy, &one), Some(Curve::P256.generator())),
            (
                words(&Uint::ZERO, &one, &Uint::ZERO),
                Some(AffinePoint::IDENTITY),
            ),
            (words(&Uint::ZERO, &Uint::ZERO, &Uint::ZERO), None),
            (words(&gx, &gy_off, &one), None),
            (words(&gx, &gy, &two), None),
            (words(&Uint::ZERO, &two, &Uint::ZERO), None),
            (words(c.p.modulus(), &gy, &one), None),
        ];
        expect_results(|w| normalized_results(c, w), &cases);
    }

    /// What the host accepts from a projective result it makes affine: a point on the curve
    /// in any scaling, or the identity `(0 : Y : 0)` with `Y ≠ 0`; not `(0 : 0 : 0)`
    /// (unwritten) nor `(X ≠ 0 : Y : 0)`.
    #[test]
    fn projective_results_are_checked() {
        let c = &P256;
        let one = *c.p.one();
        let two = c.p.add(&one, &one);
        let (gx2, gy2) = (c.p.mul(&c.gx, &two), c.p.mul(&c.gy, &two));
        let cases = [
            (words(&gx2, &gy2, &two), Some(Curve::P256.generator())),
            (
                words(&Uint::ZERO, &two, &Uint::ZERO),
                Some(AffinePoint::IDENTITY),
            ),
            (words(&Uint::ZERO, &Uint::ZERO, &Uint::ZERO), None),
            (words(&one, &two, &Uint::ZERO), None),
            (words(&gx2, &gy2, &one), None),
        ];
        expect_results(|w| affine_results(c, w), &cases);
    }

    /// A chunk whose multiplication never wrote its results (here only `ec_normalize` runs,
    /// over the cleared results buffer) comes back as faults, not as identities.
    #[test]
    fn unwritten_results_fail_after_gpu_normalisation() {
        let Some(ctx) = crate::context::tests::context_or_skip(
            "unwritten_results_fail_after_gpu_normalisation",
        ) else {
            return;
        };
        let c = &P256;
        let pipelines = ctx
            .ec_pipelines(Curve::P256, || base_table(c))
            .expect("pipelines");
        let normalize = ctx
            .ec_extra_pipeline(Curve::P256, &pipelines, EcExtra::Normalize)
            .expect("ec_normalize");
        let plan = chunk_plan(Curve::P256, &normalize, &[], Some(&normalize));
        assert_eq!(plan.len(), 1, "ec_normalize alone");
        let n = 300; // two workgroups, the second partly padding
        let jobs = vec![0u32; n * JOB_FIELDS * 8];
        let pending = ctx
            .submit_plan(
                "unwritten",
                &plan,
                n,
                0,
                [
                    Input::Buffer(&pipelines.base_table),
                    Input::Words(&jobs),
                    Input::Words(&[0]),
                ],
                n * 3 * 8,
                1,
            )
            .expect("submit");
        let words = ctx.collect(pending).expect("collect");
        assert!(words.iter().all(|&w| w == 0), "(0, 0, 0) stays (0, 0, 0)");
        let results = normalized_results(c, &words);
        assert_eq!(results.len(), n);
        assert!(results
            .iter()
            .all(|r| matches!(r, Err(Error::FaultDetected(_)))));
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
