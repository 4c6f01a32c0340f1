//! Batch-aware verification: `u₁·G + u₂·Q` batches where many jobs share one public point.
//!
//! A verification batch under one key (tokens from one issuer, a log's entries) repeats `Q`.
//! A backend that can precompute a table for a point once and reuse it for every job under
//! that point (a comb for `Q`, as for `G`: additions only, no doublings) splits its batch with
//! [`split_vartime`] and [`run_split`]: groups of at least `min` jobs under one valid,
//! non-identity point go to its shared-point code, everything else to its ordinary path, and
//! results come back in job order. The detection lives in the backend (DESIGN-NOTES.md, "Batch
//! -aware verification"): only a backend knows what a table costs it, so the threshold is its
//! own; a backend without a shared-point path needs nothing, and the scheme layer stays one
//! batch call per verification batch.
//!
//! Everything here is variable-time: points in a verification batch are public keys.

use std::collections::HashMap;

use crate::backend::{check_point, check_scalar};
use crate::curve::{AffinePoint, Curve, EcUint};
use crate::error::{Error, JobResult};

/// A batch split by shared points.
#[derive(Debug, Default)]
pub struct Split {
    /// `(Q, job indices)`, each with at least `min` jobs, in first-seen order.
    pub groups: Vec<(AffinePoint, Vec<usize>)>,
    /// Every other job index, in order.
    pub rest: Vec<usize>,
}

/// Groups the jobs of `points` by equal point. Identity and off-curve points never form a
/// group (their jobs keep the ordinary path and its errors). Variable-time.
pub fn split_vartime(curve: Curve, points: &[AffinePoint], min: usize) -> Split {
    if points.len() < min.max(1) {
        // No group can reach `min` jobs (a single verification, a small batch): skip the map.
        return Split {
            groups: Vec::new(),
            rest: (0..points.len()).collect(),
        };
    }
    let mut by_point: HashMap<(EcUint, EcUint, bool), Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (i, q) in points.iter().enumerate() {
        let key = (q.x, q.y, q.infinity);
        by_point
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(i);
    }
    let mut split = Split::default();
    let mut shared = vec![false; points.len()];
    for key in order {
        let idx = &by_point[&key];
        let q = points[idx[0]];
        if idx.len() >= min.max(1) && !q.infinity && check_point(curve, &q).is_ok() {
            for &i in idx {
                shared[i] = true;
            }
            split.groups.push((q, idx.clone()));
        }
    }
    split.rest = (0..points.len()).filter(|&i| !shared[i]).collect();
    split
}

/// Runs a split batch: `rest(indices)` once for the ungrouped jobs (skipped when there are
/// none), `group(Q, indices)` per group; each returns one result per index given, in that
/// order. Results in job order.
pub fn run_split<T: Clone>(
    len: usize,
    split: &Split,
    rest: impl FnOnce(&[usize]) -> Vec<JobResult<T>>,
    mut group: impl FnMut(&AffinePoint, &[usize]) -> Vec<JobResult<T>>,
) -> Vec<JobResult<T>> {
    let mut out: Vec<Option<JobResult<T>>> = vec![None; len];
    let mut place = |idx: &[usize], res: Vec<JobResult<T>>| {
        assert_eq!(idx.len(), res.len(), "one result per job");
        for (&i, r) in idx.iter().zip(res) {
            out[i] = Some(r);
        }
    };
    if !split.rest.is_empty() {
        place(&split.rest, rest(&split.rest));
    }
    for (q, idx) in &split.groups {
        place(idx, group(q, idx));
    }
    out.into_iter()
        .map(|r| r.expect("every job has a result"))
        .collect()
}

/// `(u₁, u₂)` of each job of a group, each scalar checked (`u₁` first, as on the
/// distinct-point path; the group's point was checked by [`split_vartime`]). Variable-time.
pub fn group_scalars_vartime(
    curve: Curve,
    u1: &[EcUint],
    u2: &[EcUint],
    idx: &[usize],
) -> Vec<Result<(EcUint, EcUint), Error>> {
    idx.iter()
        .map(|&i| {
            check_scalar(curve, &u1[i])
                .and_then(|()| check_scalar(curve, &u2[i]))
                .map(|()| (u1[i], u2[i]))
        })
        .collect()
}

/// `v[i]` for each index.
pub fn gather<T: Copy>(v: &[T], idx: &[usize]) -> Vec<T> {
    idx.iter().map(|&i| v[i]).collect()
}

/// The comb width for a shared-point table serving `jobs` jobs: the `w` that minimises
/// table entries plus additions, `⌈(bits+1)/w⌉·(entry_cost·2^(w−1) + jobs)`, between 2 and
/// `max_w`. `entry_cost` is what building one entry costs in the backend's per-job additions:
/// about 1 where both are scalar code, more where the table is built by scalar code for a
/// SIMD backend whose additions are shared between lanes.
pub fn comb_width(bits: usize, jobs: usize, max_w: usize, entry_cost: usize) -> usize {
    (2..=max_w)
        .min_by_key(|&w| (bits + 1).div_ceil(w) * (entry_cost * (1usize << (w - 1)) + jobs))
        .expect("max_w ≥ 2")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn split_groups_repeated_valid_points_only() {
        let g = Curve::P256.generator();
        let mut off = g;
        off.y = EcUint::from_limbs(&[5]).unwrap();
        let id = AffinePoint::IDENTITY;
        // G ×3, off-curve ×3, identity ×3
        let pts = [g, off, id, g, off, id, g, off, id];
        let s = split_vartime(Curve::P256, &pts, 3);
        assert_eq!(s.groups.len(), 1);
        assert_eq!(s.groups[0].1, vec![0, 3, 6]);
        assert_eq!(s.rest, vec![1, 2, 4, 5, 7, 8]);
        let s = split_vartime(Curve::P256, &pts, 4);
        assert!(s.groups.is_empty());
        assert_eq!(s.rest.len(), 9);
        // fewer jobs than `min` (the early return) and exactly `min`
        let s = split_vartime(Curve::P256, &[g, g, g], 4);
        assert!(s.groups.is_empty());
        assert_eq!(s.rest, vec![0, 1, 2]);
        let s = split_vartime(Curve::P256, &[g, g, g], 3);
        assert_eq!(s.groups.len(), 1);
        assert!(s.rest.is_empty());
        let s = split_vartime(Curve::P256, &[g], 0);
        assert_eq!(s.groups.len(), 1);
        // results come back in job order
        let s = split_vartime(Curve::P256, &pts, 3);
        let res = run_split(
            pts.len(),
            &s,
            |idx| idx.iter().map(|&i| Ok(i)).collect(),
            |_, idx| {
                idx.iter()
                    .map(|&i| {
                        if i == 3 {
                            Err(Error::BaseOutOfRange)
                        } else {
                            Ok(i + 100)
                        }
                    })
                    .collect()
            },
        );
        let want: Vec<JobResult<usize>> = (0..9)
            .map(|i| match i {
                3 => Err(Error::BaseOutOfRange),
                0 | 6 => Ok(i + 100),
                _ => Ok(i),
            })
            .collect();
        assert_eq!(res, want);
    }

    #[test]
    fn comb_width_grows_with_the_group() {
        assert!(comb_width(256, 1, 8, 1) <= 3);
        assert_eq!(comb_width(256, 100_000, 8, 1), 8);
        let ws: Vec<usize> = [4, 16, 64, 256, 1024]
            .iter()
            .map(|&j| comb_width(256, j, 8, 1))
            .collect();
        assert!(ws.windows(2).all(|p| p[0] <= p[1]), "{ws:?}");
    }
}
