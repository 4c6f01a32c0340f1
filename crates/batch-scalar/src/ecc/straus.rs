//! `u₁·G + u₂·Q`, variable-time: interleaved wNAF (Straus–Shamir) for public inputs only.
//!
//! Representation: `u₁, u₂ < n` canonical; `Q` affine in Montgomery form (or absent for the
//! identity). `u₁` is recoded as a width-[`W_G`] wNAF over a per-process table of `G`'s odd
//! multiples ([`OddMultiples`], `G, 3G, …, 2047·G`), so an addition for `G` comes every
//! `W_G + 1` bits on average; `u₂` as a width-[`W_Q`] wNAF over a per-job table of
//! `Q, 3Q, …, 15Q`, whose entries for a whole chunk are made affine together with one
//! inversion. The shared double-and-add loop runs in Jacobian coordinates (`x = X/Z²`,
//! `y = Y/Z³`; `batch_core::jacobian`'s formulas, 8 multiplications per doubling with
//! `a = −3`, 11 per mixed addition), which are not complete: exceptional cases are branched on.
//! Post-condition: a homogeneous projective point per job, the identity where the sum is `O`.
//!
//! Everything here branches and indexes on its inputs: never call it with secrets.

use std::sync::OnceLock;

use batch_core::curve::{CurveArith, P224, P256, P384, P521};
use batch_core::num::Uint;

use super::point::{
    batch_normalize, batch_normalize_vartime, AffineMonty, JacobianPoint, ProjectivePoint,
};

/// wNAF width for `Q`: 8 odd multiples per job.
pub const W_Q: usize = 5;
const Q_ENTRIES: usize = 1 << (W_Q - 2);

/// wNAF width for `u₁` over [`OddMultiples`] of `G`: 1 024 entries (64 KiB for P-256,
/// 144 KiB for P-521, within L2), an addition every 13 bits on average where the comb's
/// window 0 (`w = 7`, 64 entries) gave one every 8. Measured (`avx2bench`, Zen 4,
/// 2026-12-06) against width 7: see docs/PERF.md.
pub const W_G: usize = 12;

/// A point's odd multiples `B, 3B, …, (2^(w−1) − 1)·B`, affine (Montgomery form, the same
/// points whatever the arithmetic): a width-`w` wNAF digit `d` indexes `(|d| − 1)/2`.
#[derive(Debug)]
pub struct OddMultiples<const L: usize> {
    w: usize,
    entries: Vec<AffineMonty<L>>,
}

impl<const L: usize> OddMultiples<L> {
    /// The table for `c`'s generator: `2^(w−2) − 1` complete additions of `2G`, one inversion.
    pub fn new(c: &impl CurveArith<L>, w: usize) -> Self {
        assert!((2..=16).contains(&w), "wNAF width");
        let b = ProjectivePoint::from_affine(
            &AffineMonty {
                x: c.def().gx,
                y: c.def().gy,
            },
            c,
        );
        let two = b.double(c);
        let mut proj = Vec::with_capacity(1 << (w - 2));
        let mut acc = b;
        proj.push(acc);
        for _ in 1..1 << (w - 2) {
            acc = acc.add(&two, c);
            proj.push(acc);
        }
        let entries = batch_normalize(c, &proj)
            .into_iter()
            .map(|(a, id)| {
                assert_eq!(id, 0, "odd multiples below n of a point of order n");
                a
            })
            .collect();
        Self { w, entries }
    }

    pub fn width(&self) -> usize {
        self.w
    }

    /// `B, 3B, …`: entry `(|d| − 1)/2` is `|d|·B`.
    pub fn entries(&self) -> &[AffineMonty<L>] {
        &self.entries
    }

    /// `d·B` for an odd digit `|d| < 2^(w−1)`.
    #[inline(always)]
    fn signed_vartime(&self, c: &impl CurveArith<L>, d: i32) -> AffineMonty<L> {
        let e = &self.entries[((d.unsigned_abs() - 1) / 2) as usize];
        signed_entry_vartime(c, e, d)
    }
}

/// The P-224 table of [`OddMultiples`] of `G` (width [`W_G`]), built on first use.
pub fn g_odd_p224() -> &'static OddMultiples<4> {
    static T: OnceLock<OddMultiples<4>> = OnceLock::new();
    T.get_or_init(|| OddMultiples::new(&P224, W_G))
}

/// The P-256 table of [`OddMultiples`] of `G`, built on first use.
pub fn g_odd_p256() -> &'static OddMultiples<4> {
    static T: OnceLock<OddMultiples<4>> = OnceLock::new();
    T.get_or_init(|| OddMultiples::new(&P256, W_G))
}

/// The P-384 table of [`OddMultiples`] of `G`, built on first use.
pub fn g_odd_p384() -> &'static OddMultiples<6> {
    static T: OnceLock<OddMultiples<6>> = OnceLock::new();
    T.get_or_init(|| OddMultiples::new(&P384, W_G))
}

/// The P-521 table of [`OddMultiples`] of `G`, built on first use.
pub fn g_odd_p521() -> &'static OddMultiples<9> {
    static T: OnceLock<OddMultiples<9>> = OnceLock::new();
    T.get_or_init(|| OddMultiples::new(&P521, W_G))
}

/// One job: `u₁·G + u₂·Q`, with `q = None` for `Q = O`.
#[derive(Clone, Copy, Debug)]
pub struct DoubleJob<const L: usize> {
    pub u1: Uint<L>,
    pub u2: Uint<L>,
    pub q: Option<AffineMonty<L>>,
}

/// Width-`w` non-adjacent form of `k < 2^bits`, `bits + 1` digits, least significant first:
/// every non-zero digit is odd, `|d| < 2^(w−1)`, and any `w` consecutive digits hold at most
/// one non-zero.
pub fn wnaf_vartime<const L: usize>(k: &Uint<L>, w: usize, bits: usize) -> Vec<i32> {
    assert!((2..=31).contains(&w));
    let width = 1u64 << w;
    let mut naf = vec![0i32; bits + 1];
    let mut carry = 0u64;
    let mut pos = 0;
    while pos <= bits {
        let window = carry + k.window(pos, w);
        if window & 1 == 0 {
            // An even window keeps the carry: carry 1 here means the bit at `pos` was 1.
            pos += 1;
            continue;
        }
        if window < width / 2 {
            carry = 0;
            naf[pos] = window as i32;
        } else {
            carry = 1;
            naf[pos] = window as i32 - width as i32;
        }
        pos += w;
    }
    debug_assert_eq!(carry, 0, "k must be below 2^bits");
    naf
}

/// `d·P` from a table of odd multiples, `d` odd and non-zero: `table[(|d|−1)/2]`, negated for
/// `d < 0`.
#[inline(always)]
fn signed_entry_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    e: &AffineMonty<L>,
    d: i32,
) -> AffineMonty<L> {
    if d > 0 {
        *e
    } else {
        AffineMonty {
            x: e.x,
            y: c.neg(&e.y),
        }
    }
}

/// `u₁·G + u₂·Q` for each job of a chunk, one job after another.
/// Inlined so that a compile-time `c` folds into the field arithmetic (see `ecc::CurveSpec`).
#[inline(always)]
pub fn mul_double_chunk_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    g: &OddMultiples<L>,
    jobs: &[DoubleJob<L>],
) -> Vec<ProjectivePoint<L>> {
    let (q_tables, affine) = q_tables(c, jobs);
    // Plain loops, no closures: `c` must stay a compile-time constant (see `ecc::CurveSpec`).
    let mut out = Vec::with_capacity(jobs.len());
    for (job, &qt) in jobs.iter().zip(&q_tables) {
        out.push(one_job(c, g, job, qt, &affine));
    }
    out
}

/// [`mul_double_chunk_vartime`] with jobs two at a time: their doublings interleaved
/// ([`JacobianPoint::double_pair`]), each job's additions on its own; the same results.
/// A curve's `ecc::CurveSpec` picks one of the two (`CurveSpec::mul_double_chunk`), so that
/// no spec compiles both loops.
#[inline(always)]
pub fn mul_double_chunk_paired_vartime<const L: usize>(
    c: &impl CurveArith<L>,
    g: &OddMultiples<L>,
    jobs: &[DoubleJob<L>],
) -> Vec<ProjectivePoint<L>> {
    let (bits, wg) = (c.def().curve.bits(), g.width());
    let (q_tables, affine) = q_tables(c, jobs);
    let mut out = Vec::with_capacity(jobs.len());
    let mut k = 0;
    while k + 1 < jobs.len() {
        let (j0, j1) = (&jobs[k], &jobs[k + 1]);
        let d0 = JobDigits::new(j0, q_tables[k], &affine, wg, bits);
        let d1 = JobDigits::new(j1, q_tables[k + 1], &affine, wg, bits);
        let mut acc = [JacobianPoint::identity(c); 2];
        for i in (0..d0.len.max(d1.len)).rev() {
            // complete: an identity accumulator (a job whose digits start lower) stays one
            acc = JacobianPoint::double_pair(&acc, c);
            d0.add_at(c, &mut acc[0], i, g);
            d1.add_at(c, &mut acc[1], i, g);
        }
        out.push(acc[0].to_projective(c));
        out.push(acc[1].to_projective(c));
        k += 2;
    }
    if k < jobs.len() {
        out.push(one_job(c, g, &jobs[k], q_tables[k], &affine));
    }
    out
}

/// Odd multiples `3Q … 15Q` of every job that needs `Q`, made affine in one batch: where
/// each job's entries start (`None` without a table), and the entries.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn q_tables<const L: usize>(
    c: &impl CurveArith<L>,
    jobs: &[DoubleJob<L>],
) -> (Vec<Option<usize>>, Vec<(AffineMonty<L>, u64)>) {
    let mut proj = Vec::new();
    let mut starts = Vec::with_capacity(jobs.len());
    for job in jobs {
        match job.q {
            Some(q) if !job.u2.is_zero_vartime() => {
                starts.push(Some(proj.len()));
                let q1 = ProjectivePoint::from_affine(&q, c);
                let q2 = q1.double(c);
                let mut acc = q1;
                for _ in 1..Q_ENTRIES {
                    acc = acc.add(&q2, c);
                    proj.push(acc);
                }
            }
            _ => starts.push(None),
        }
    }
    (starts, batch_normalize_vartime(c, &proj))
}

/// One job's `u₁·G + u₂·Q`, its table at `qt` in `affine`.
#[inline(always)]
fn one_job<const L: usize>(
    c: &impl CurveArith<L>,
    g: &OddMultiples<L>,
    job: &DoubleJob<L>,
    qt: Option<usize>,
    affine: &[(AffineMonty<L>, u64)],
) -> ProjectivePoint<L> {
    let d = JobDigits::new(job, qt, affine, g.width(), c.def().curve.bits());
    let mut acc = JacobianPoint::identity(c);
    for i in (0..d.len).rev() {
        acc = acc.double_vartime(c);
        d.add_at(c, &mut acc, i, g);
    }
    acc.to_projective(c)
}

/// A job's wNAF digits: `u₁`'s over `G`'s odd multiples, `u₂`'s over `Q`, `3Q … 15Q` (all
/// zero without a table); how many positions hold a non-zero digit of either at or below the
/// top; and the job's `Q` and its affine `3Q … 15Q`.
struct JobDigits<'a, const L: usize> {
    naf1: Vec<i32>,
    naf2: Vec<i32>,
    len: usize,
    q: Option<AffineMonty<L>>,
    q_odd: &'a [(AffineMonty<L>, u64)],
}

impl<'a, const L: usize> JobDigits<'a, L> {
    /// `qt`: where the job's entries start in `affine` (`None` without a table).
    fn new(
        job: &DoubleJob<L>,
        qt: Option<usize>,
        affine: &'a [(AffineMonty<L>, u64)],
        wg: usize,
        bits: usize,
    ) -> Self {
        let naf1 = wnaf_vartime(&job.u1, wg, bits);
        let (naf2, q_odd) = match qt {
            Some(off) => (
                wnaf_vartime(&job.u2, W_Q, bits),
                &affine[off..off + Q_ENTRIES - 1],
            ),
            None => (vec![0; bits + 1], &affine[..0]),
        };
        // digits up to the highest non-zero one of either scalar
        let len = (0..=bits)
            .rev()
            .find(|&i| naf1[i] != 0 || naf2[i] != 0)
            .map_or(0, |top| top + 1);
        Self {
            naf1,
            naf2,
            len,
            q: job.q,
            q_odd,
        }
    }

    /// `acc` plus position `i`'s digits: `d₁·G` and `d₂·Q`.
    #[inline(always)]
    fn add_at(
        &self,
        c: &impl CurveArith<L>,
        acc: &mut JacobianPoint<L>,
        i: usize,
        g: &OddMultiples<L>,
    ) {
        let d1 = self.naf1[i];
        if d1 != 0 {
            *acc = acc.add_affine_vartime(&g.signed_vartime(c, d1), c);
        }
        let d2 = self.naf2[i];
        if d2 != 0 {
            // |d2| = 2·idx + 1: Q itself, or entry idx − 1 of this job's affine table
            // (u₂ has digits only where Q has a table)
            let idx = ((d2.unsigned_abs() - 1) / 2) as usize;
            let e = match idx {
                0 => self.q.expect("u₂ has digits only where Q is given"),
                _ => self.q_odd[idx - 1].0,
            };
            *acc = acc.add_affine_vartime(&signed_entry_vartime(c, &e, d2), c);
        }
    }
}
