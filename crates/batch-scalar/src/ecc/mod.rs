//! Elliptic-curve batches on P-256, P-384 and P-521: validation, dispatch, affine results.
//!
//! Inputs and outputs are seam types ([`EcUint`] canonical little-endian, [`AffinePoint`]);
//! inside, everything is `L`-limb Montgomery form for the curve's `L` (4, 6, 9), through
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
//! Comb widths were chosen by measurement (single core, `cargo test --release -- --ignored`):
//! w = 7 for every curve.

pub mod comb;
pub mod point;
pub mod straus;
pub mod varbase;

use batch_core::backend::{check_point, check_scalar};
use batch_core::curve::{CurveDef, P256, P384, P521};
use batch_core::num::{mask_from_bit, Uint};
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};
use rayon::prelude::*;

use comb::CombTable;
use point::{batch_normalize, AffineMonty, ProjectivePoint};
use straus::DoubleJob;

/// Jobs per chunk: one field inversion is shared by this many results.
pub const CHUNK: usize = 32;

/// `k·G` for each scalar; constant-time in the scalars.
pub fn mul_base(curve: Curve, scalars: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    match curve {
        Curve::P256 => mul_base_with(&P256, comb::table_p256(), scalars),
        Curve::P384 => mul_base_with(&P384, comb::table_p384(), scalars),
        Curve::P521 => mul_base_with(&P521, comb::table_p521(), scalars),
    }
}

/// `k·Q` for each pair; constant-time in the scalars and points.
pub fn mul_point(curve: Curve, points: &[AffinePoint], scalars: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    match curve {
        Curve::P256 => mul_point_with(&P256, points, scalars),
        Curve::P384 => mul_point_with(&P384, points, scalars),
        Curve::P521 => mul_point_with(&P521, points, scalars),
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
        Curve::P256 => mul_double_with_vartime(&P256, comb::table_p256(), u1, u2, points),
        Curve::P384 => mul_double_with_vartime(&P384, comb::table_p384(), u1, u2, points),
        Curve::P521 => mul_double_with_vartime(&P521, comb::table_p521(), u1, u2, points),
    }
}

/// Seam scalar to `L` limbs; only for scalars that passed [`check_scalar`] (`< n`, so it fits).
fn scalar<const L: usize>(k: &EcUint) -> Uint<L> {
    k.resize().expect("a scalar below n fits the curve width")
}

/// Seam point to Montgomery form and an identity mask; only for points that passed
/// [`check_point`]. Constant-time in the coordinates.
// NOTE: the caller branches on `infinity` only through `check_point`; here it becomes a mask.
fn point_in<const L: usize>(c: &CurveDef<L>, q: &AffinePoint) -> (AffineMonty<L>, u64) {
    let x = q.x.resize().expect("a coordinate below p fits the curve width");
    let y = q.y.resize().expect("a coordinate below p fits the curve width");
    (AffineMonty { x: c.p.to_monty(&x), y: c.p.to_monty(&y) }, mask_from_bit(q.infinity as u64))
}

/// Affine seam results for one chunk: `pts[i]` where `checks[i]` is `Ok`, the error otherwise
/// (the matching `pts[i]` is ignored). One inversion for the chunk.
fn finish<const L: usize>(
    c: &CurveDef<L>,
    pts: &[ProjectivePoint<L>],
    checks: Vec<Result<(), Error>>,
) -> Vec<JobResult<AffinePoint>> {
    let affine = batch_normalize(c, pts);
    checks
        .into_iter()
        .zip(affine)
        .map(|(ok, (a, id))| {
            ok.map(|()| AffinePoint {
                x: c.fe_to_seam(&a.x),
                y: c.fe_to_seam(&a.y),
                // NOTE: the seam type tells the identity apart with a bool: whether a result
                // is the identity (k = 0 or Q = O, as k < n) is visible to the caller anyway.
                infinity: id != 0,
            })
        })
        .collect()
}

fn mul_base_with<const L: usize>(
    c: &'static CurveDef<L>,
    table: &'static CombTable<L>,
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    scalars
        .par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            // NOTE: `check_scalar` compares with variable time: it leaks (the position of the
            // first limb where k differs from n), which says nothing useful about a k < n.
            let checks: Vec<Result<(), Error>> = chunk.iter().map(|k| check_scalar(c.curve, k)).collect();
            let pts: Vec<ProjectivePoint<L>> = chunk
                .iter()
                .zip(&checks)
                .map(|(k, ok)| match ok {
                    Ok(()) => table.mul(c, &scalar(k)),
                    Err(_) => ProjectivePoint::identity(c),
                })
                .collect();
            finish(c, &pts, checks)
        })
        .collect()
}

fn mul_point_with<const L: usize>(
    c: &'static CurveDef<L>,
    points: &[AffinePoint],
    scalars: &[EcUint],
) -> Vec<JobResult<AffinePoint>> {
    points
        .par_chunks(CHUNK)
        .zip(scalars.par_chunks(CHUNK))
        .flat_map_iter(|(qs, ks)| {
            // NOTE: validation is variable-time (batch-core's `check_scalar`, `check_point`):
            // besides validity, it leaks how many top limbs of k (of Q's coordinates) equal
            // those of n (of p), and whether Q is the identity.
            let checks: Vec<Result<(), Error>> = qs
                .iter()
                .zip(ks)
                .map(|(q, k)| check_scalar(c.curve, k).and_then(|()| check_point(c.curve, q)))
                .collect();
            let pts: Vec<ProjectivePoint<L>> = qs
                .iter()
                .zip(ks)
                .zip(&checks)
                .map(|((q, k), ok)| match ok {
                    Ok(()) => {
                        let (qm, q_identity) = point_in(c, q);
                        varbase::mul(c, &qm, q_identity, &scalar(k))
                    }
                    Err(_) => ProjectivePoint::identity(c),
                })
                .collect();
            finish(c, &pts, checks)
        })
        .collect()
}

fn mul_double_with_vartime<const L: usize>(
    c: &'static CurveDef<L>,
    table: &'static CombTable<L>,
    u1: &[EcUint],
    u2: &[EcUint],
    points: &[AffinePoint],
) -> Vec<JobResult<AffinePoint>> {
    u1.par_chunks(CHUNK)
        .zip(u2.par_chunks(CHUNK))
        .zip(points.par_chunks(CHUNK))
        .flat_map_iter(|((a, b), qs)| {
            let checks: Vec<Result<(), Error>> = a
                .iter()
                .zip(b)
                .zip(qs)
                .map(|((a, b), q)| {
                    check_scalar(c.curve, a)
                        .and_then(|()| check_scalar(c.curve, b))
                        .and_then(|()| check_point(c.curve, q))
                })
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
                    Err(_) => DoubleJob { u1: Uint::ZERO, u2: Uint::ZERO, q: None },
                })
                .collect();
            let pts = straus::mul_double_chunk_vartime(c, table, &jobs);
            finish(c, &pts, checks)
        })
        .collect()
}
