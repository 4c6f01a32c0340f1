//! Elliptic-curve batches on P-224, P-256, P-384 and P-521: validation, dispatch, affine results.
//!
//! Inputs and outputs are seam types ([`EcUint`] canonical little-endian, [`AffinePoint`]);
//! inside, everything is `L`-limb Montgomery form for the curve's `L` (4, 4, 6, 9), through
//! [`CurveDef`]. Each job is validated alone (scalar `< n`, point on the curve; a bad job gets
//! its error and computes nothing). The batch is cut into chunks of [`CHUNK`] jobs spread over
//! rayon; a chunk computes projective results, then makes them affine with one inversion
//! ([`point::batch_normalize`]). Results are canonical; the identity is
//! [`AffinePoint::IDENTITY`].
//!
//! - [`comb`]: `k·G`, signed windows over a per-process table, additions only; constant-time.
//! - [`varbase`]: `k·Q`, fixed signed window over a per-job table; constant-time.
//! - [`straus`]: `u₁·G + u₂·Q`, interleaved wNAF in Jacobian coordinates; variable-time.
//! - [`point`]: complete Renes–Costello–Batina formulas, batch normalisation.
//!
//! Jobs are checked in argument order: `k·Q` checks the scalar, then the point;
//! `u₁·G + u₂·Q` checks `u₁`, `u₂`, then `Q` (the first failure is the job's error).
//!
//! Comb widths were chosen by measuring `k·G` for w = 5 … 9 on one core: w = 7 was fastest on
//! P-384 and P-521 and tied with w = 6 on P-256 (64 entries per window; tables of 148 KiB,
//! 330 KiB and 675 KiB). Verification's `u₁` has a table of its own, `G`'s 1 024 odd
//! multiples ([`straus::OddMultiples`], 64–144 KiB).

pub mod comb;
pub mod point;
pub mod recoding;
pub mod straus;
pub mod varbase;

use batch_core::backend::{check_double_job, check_point_job, check_scalar};
use batch_core::curve::{CurveArith, CurveDef, P224, P256, P384, P521};
use batch_core::num::{mask_from_bit, Uint};
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use rayon::prelude::*;

use comb::CombTable;
use point::{batch_normalize, AffineMonty, ProjectivePoint};
use straus::DoubleJob;

/// Jobs per chunk: one field inversion is shared by this many results.
pub const CHUNK: usize = 32;

/// A curve fixed at compile time, and the arithmetic its point code runs on. Kernels are
/// called with `c = S::arith()` inside each chunk's closure, so after inlining `c` is the
/// address of a constant static and LLVM folds the modulus, `m0inv` and `b` into the generic
/// field code: measured 20 % fewer instructions per P-256 doubling, 40 % fewer for a P-521
/// `k·Q`, than with `c` read from memory. Hot loops below are therefore plain loops: a
/// closure that captured `c` would hide the constant.
///
/// This crate's specs run on the portable field (`CurveDef`'s [`MontyParams`]); a backend
/// with a faster field for one curve (batch-avx2's `mulx`/`adcx`/`adox` P-256) implements its
/// own spec and calls [`mul_base_with`], [`mul_point_with`] and [`mul_double_with_vartime`].
///
/// [`MontyParams`]: batch_core::num::MontyParams
pub trait CurveSpec<const L: usize>: 'static {
    /// The point code's arithmetic.
    type Arith: CurveArith<L>;
    fn arith() -> &'static Self::Arith;
    /// The curve's `k·G` table (the same points whatever the arithmetic: Montgomery form
    /// modulo `p` with `R = 2^(64·L)`).
    fn table() -> &'static CombTable<L>;
    /// `G`'s odd multiples for verification's `u₁` ([`straus`]; the same points whatever the
    /// arithmetic).
    fn g_odd() -> &'static straus::OddMultiples<L>;
    /// `u₁·G + u₂·Q` for a chunk of verification jobs: one job at a time
    /// ([`straus::mul_double_chunk_vartime`]) unless the spec pairs them
    /// ([`straus::mul_double_chunk_paired_vartime`]), chosen per field by measurement (Zen 4,
    /// `avx2bench`, distinct-key `u₁·G + u₂·Q`): paired for P-256 and P-384 on `mulx`
    /// (1.14×, 1.04×); not for P-521 (`mulx` 0.86×, portable 0.91×), portable P-384 (0.94×),
    /// P-224 (0.99×) and portable P-256 (1.02×, not worth it: LLVM spent 110 s of the crate's
    /// build optimising that one loop, every build, docs/PERF.md).
    #[inline(always)]
    fn mul_double_chunk(jobs: &[straus::DoubleJob<L>]) -> Vec<ProjectivePoint<L>> {
        straus::mul_double_chunk_vartime(Self::arith(), Self::g_odd(), jobs)
    }
}

#[derive(Debug)]
pub struct SpecP224;
#[derive(Debug)]
pub struct SpecP256;
#[derive(Debug)]
pub struct SpecP384;
#[derive(Debug)]
pub struct SpecP521;

impl CurveSpec<4> for SpecP224 {
    type Arith = CurveDef<4>;
    #[inline(always)]
    fn arith() -> &'static CurveDef<4> {
        &P224
    }
    fn table() -> &'static CombTable<4> {
        comb::table_p224()
    }
    fn g_odd() -> &'static straus::OddMultiples<4> {
        straus::g_odd_p224()
    }
}

impl CurveSpec<4> for SpecP256 {
    type Arith = CurveDef<4>;
    #[inline(always)]
    fn arith() -> &'static CurveDef<4> {
        &P256
    }
    fn table() -> &'static CombTable<4> {
        comb::table_p256()
    }
    fn g_odd() -> &'static straus::OddMultiples<4> {
        straus::g_odd_p256()
    }
}

impl CurveSpec<6> for SpecP384 {
    type Arith = CurveDef<6>;
    #[inline(always)]
    fn arith() -> &'static CurveDef<6> {
        &P384
    }
    fn table() -> &'static CombTable<6> {
        comb::table_p384()
    }
    fn g_odd() -> &'static straus::OddMultiples<6> {
        straus::g_odd_p384()
    }
}

impl CurveSpec<9> for SpecP521 {
    type Arith = CurveDef<9>;
    #[inline(always)]
    fn arith() -> &'static CurveDef<9> {
        &P521
    }
    fn table() -> &'static CombTable<9> {
        comb::table_p521()
    }
    fn g_odd() -> &'static straus::OddMultiples<9> {
        straus::g_odd_p521()
    }
}

/// `k·G` for each scalar; constant-time in the scalars.
pub fn mul_base(curve: Curve, scalars: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    match curve {
        Curve::P224 => mul_base_with::<4, SpecP224>(scalars),
        Curve::P256 => mul_base_with::<4, SpecP256>(scalars),
        Curve::P384 => mul_base_with::<6, SpecP384>(scalars),
        Curve::P521 => mul_base_with::<9, SpecP521>(scalars),
    }
}

/// `k·Q` for each pair; constant-time in the scalars and points.
pub fn mul_point(
    curve: Curve,
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    match curve {
        Curve::P224 => mul_point_with::<4, SpecP224>(points, scalars),
        Curve::P256 => mul_point_with::<4, SpecP256>(points, scalars),
        Curve::P384 => mul_point_with::<6, SpecP384>(points, scalars),
        Curve::P521 => mul_point_with::<9, SpecP521>(points, scalars),
    }
}

/// `u₁·G + u₂·Q` for each triple; variable-time (public inputs only).
pub fn mul_double_vartime(
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    match curve {
        Curve::P224 => mul_double_with_vartime::<4, SpecP224>(u1, u2, points),
        Curve::P256 => mul_double_with_vartime::<4, SpecP256>(u1, u2, points),
        Curve::P384 => mul_double_with_vartime::<6, SpecP384>(u1, u2, points),
        Curve::P521 => mul_double_with_vartime::<9, SpecP521>(u1, u2, points),
    }
}

/// Seam scalar to `L` limbs; only for scalars that passed [`check_scalar`] (`< n`, so it fits).
fn scalar<const L: usize>(k: &EcUint) -> Uint<L> {
    k.truncate() // constant-time: the limbs above `L` are zero (k < n)
}

/// Seam point to Montgomery form and an identity mask; only for points that passed
/// [`batch_core::backend::check_point`]. Constant-time in the coordinates and the `infinity` flag.
fn point_in<const L: usize>(c: &impl CurveArith<L>, q: &AffinePoint) -> (AffineMonty<L>, u64) {
    // constant-time: the limbs above `L` are zero (coordinates below p)
    let (x, y) = (q.x.truncate(), q.y.truncate());
    (
        AffineMonty {
            x: c.def().p.to_monty(&x),
            y: c.def().p.to_monty(&y),
        },
        mask_from_bit(q.infinity as u64),
    )
}

/// Affine seam results for one chunk: `pts[i]` where `checks[i]` is `Ok`, the error otherwise
/// (the matching `pts[i]` is ignored). One inversion for the chunk, in variable time where
/// `vartime` (public points: verification's `u₁·G + u₂·Q`).
fn finish<const L: usize>(
    c: &impl CurveArith<L>,
    pts: &[ProjectivePoint<L>],
    checks: Vec<Result<(), Error>>,
    vartime: bool,
) -> Vec<JobResult<AffinePoint>> {
    let affine = if vartime {
        point::batch_normalize_vartime(c, pts)
    } else {
        batch_normalize(c, pts)
    };
    checks
        .into_iter()
        .zip(affine)
        .map(|(ok, (a, id))| {
            ok.map(|()| AffinePoint {
                x: c.def().fe_to_seam(&a.x),
                y: c.def().fe_to_seam(&a.y),
                // NOTE: the seam type tells the identity apart with a bool: whether a result
                // is the identity (k = 0 or Q = O, as k < n) is visible to the caller anyway,
                // so it is declassified (the Result around the point may keep its tag there).
                infinity: batch_core::ct::declassify_mask(id),
            })
        })
        .collect()
}

pub fn mul_base_with<const L: usize, S: CurveSpec<L>>(
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    let table = S::table(); // built here, before the parallel part
    scalars
        .par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            let c = S::arith();
            // `check_scalar` is constant-time: only its verdict is public. (A variable-time
            // comparison would exit early unless k's top limb equals n's: on P-521 that
            // happens for 1 nonce in 512 and reveals its top 9 bits, a lattice attack's input.)
            let checks: Vec<Result<(), Error>> = chunk
                .iter()
                .map(|k| check_scalar(c.def().curve, k))
                .collect();
            // A plain loop, not a closure: `c` must stay a compile-time constant here.
            let mut pts = Vec::with_capacity(chunk.len());
            for (k, ok) in chunk.iter().zip(&checks) {
                pts.push(match ok {
                    Ok(()) => table.mul(c, &scalar(k)),
                    Err(_) => ProjectivePoint::identity(c),
                });
            }
            finish(c, &pts, checks, false)
        })
        .collect()
}

pub fn mul_point_with<const L: usize, S: CurveSpec<L>>(
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    points
        .par_chunks(CHUNK)
        .zip(scalars.par_chunks(CHUNK))
        .flat_map_iter(|(qs, ks)| {
            let c = S::arith();
            // Validation is constant-time in k and Q (batch-core's `check_point_job`): only
            // each job's verdict is public.
            let checks: Vec<Result<(), Error>> = qs
                .iter()
                .zip(ks)
                .map(|(q, k)| check_point_job(c.def().curve, k, q))
                .collect();
            let mut pts = Vec::with_capacity(qs.len());
            for ((q, k), ok) in qs.iter().zip(ks).zip(&checks) {
                pts.push(match ok {
                    Ok(()) => {
                        let (qm, q_identity) = point_in(c, q);
                        varbase::mul(c, &qm, q_identity, &scalar(k))
                    }
                    Err(_) => ProjectivePoint::identity(c),
                });
            }
            finish(c, &pts, checks, false)
        })
        .collect()
}

/// Jobs under one point from which a verification batch builds a comb table for that point
/// (`batch_core::shared`): a table of `w = 3` costs about 344 additions, and saves about 180
/// per job against interleaved wNAF on P-256; measured (`batch-avx512`'s `ecbench`, Intel
/// Xeon, Sapphire Rapids class) about even at 8 jobs a point, 0.7× at 4, 1.4× at 16.
pub const SHARED_POINT_MIN: usize = 8;

pub fn mul_double_with_vartime<const L: usize, S: CurveSpec<L>>(
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    let c = S::arith();
    let split = batch_core::shared::split_vartime(c.def().curve, points, SHARED_POINT_MIN);
    if split.groups.is_empty() {
        return mul_double_distinct_vartime::<L, S>(u1, u2, points);
    }
    use batch_core::shared::gather;
    batch_core::shared::run_split(
        u1.len(),
        &split,
        |idx| {
            mul_double_distinct_vartime::<L, S>(
                &gather(u1, idx),
                &gather(u2, idx),
                &gather(points, idx),
            )
        },
        |q, idx| mul_double_shared_vartime::<L, S>(q, &gather(u1, idx), &gather(u2, idx)),
    )
}

/// `u₁·G + u₂·Q` under one valid, non-identity `Q`: a comb table for `Q` built once (its
/// width from the group size), then two combs per job, additions only.
fn mul_double_shared_vartime<const L: usize, S: CurveSpec<L>>(
    q: &AffinePoint,
    u1: &[EcUint],
    u2: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    let c = S::arith();
    let table = S::table();
    let w = batch_core::shared::comb_width(c.def().curve.bits(), u1.len(), comb::MAX_W, 1);
    let table_q = CombTable::for_point_vartime(c, &point_in(c, q).0, w);
    u1.par_chunks(CHUNK)
        .zip(u2.par_chunks(CHUNK))
        .flat_map_iter(|(a, b)| {
            let c = S::arith();
            let checks: Vec<Result<(), Error>> = a
                .iter()
                .zip(b)
                .map(|(a, b)| {
                    check_scalar(c.def().curve, a).and_then(|()| check_scalar(c.def().curve, b))
                })
                .collect();
            let mut pts = Vec::with_capacity(a.len());
            for ((a, b), ok) in a.iter().zip(b).zip(&checks) {
                pts.push(match ok {
                    Ok(()) => table
                        .mul_vartime(c, &scalar(a))
                        .add(&table_q.mul_vartime(c, &scalar(b)), c),
                    Err(_) => ProjectivePoint::identity(c),
                });
            }
            finish(c, &pts, checks, true)
        })
        .collect()
}

fn mul_double_distinct_vartime<const L: usize, S: CurveSpec<L>>(
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    u1.par_chunks(CHUNK)
        .zip(u2.par_chunks(CHUNK))
        .zip(points.par_chunks(CHUNK))
        .flat_map_iter(|((a, b), qs)| {
            let c = S::arith();
            let checks: Vec<Result<(), Error>> = a
                .iter()
                .zip(b)
                .zip(qs)
                .map(|((a, b), q)| check_double_job(c.def().curve, a, b, q))
                .collect();
            let jobs: Vec<DoubleJob<L>> = a
                .iter()
                .zip(b)
                .zip(qs)
                .zip(&checks)
                .map(|(((a, b), q), ok)| match ok {
                    Ok(()) => DoubleJob {
                        u1: scalar(a),
                        u2: scalar(b),
                        q: (!q.infinity).then(|| point_in(c, q).0),
                    },
                    Err(_) => DoubleJob {
                        u1: Uint::ZERO,
                        u2: Uint::ZERO,
                        q: None,
                    },
                })
                .collect();
            let pts = S::mul_double_chunk(&jobs);
            finish(c, &pts, checks, true)
        })
        .collect()
}
