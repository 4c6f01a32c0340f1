//! Batch-aware verification on the wgpu backend: `u₁·G + u₂·Q` batches in which keys repeat,
//! so that some jobs run on a table for their shared point (`ec_double_shared_vartime`), the
//! rest on the distinct-point path, against the scalar backend on the same batch. Each batch
//! mixes groups at, above and just below the threshold (G among the shared points), keys
//! seen once, edge scalars in the groups (u₂ = 0, 1, 2, n−1, (n−1)/2, u₁ = 0, n−1, a sum
//! that is the identity), out-of-range scalars in a group, and an off-curve point and the
//! identity repeated past the threshold (never grouped: their jobs fail, or give u₁·G, on the
//! distinct path), in a shuffled order. P-256 also runs with other thresholds (2, 8), with
//! small chunks (groups cut across chunks, several tables a chunk), with a tiny loop budget
//! (the accumulator through `scratch` between dispatches) and with a small storage binding
//! (few tables a chunk); P-384 and P-521 run at their thresholds (on llvmpipe they are cut into
//! dispatches anyway). Cold (no Mesa shader cache) the file takes about 85 s on lavapipe, two
//! vCPUs, most of it compiling P-521's and P-384's pipelines.
mod common;

use batch_core::dev::{ec_scalars, rng, to_big};
use batch_core::num::Uint;
use batch_core::{AffinePoint, Backend, Curve, EcUint};
use batch_scalar::ScalarBackend;
use batch_wgpu::{WgpuBackend, WgpuOptions};
use rand::seq::SliceRandom;

fn scalar() -> ScalarBackend {
    ScalarBackend::with_threads(1).unwrap()
}

fn big_to_uint(v: &num_bigint::BigUint) -> EcUint {
    Uint::from_limbs(&v.to_u64_digits()).expect("fits")
}

/// The jobs `(u₁, u₂, Q)` of one batch, for groups of `min` jobs a point and around it.
fn batch(curve: Curve, min: usize, seed: u64) -> Vec<(EcUint, EcUint, AffinePoint)> {
    let mut r = rng(seed);
    let s = scalar();
    let n = to_big(&curve.order().0);
    let keys: Vec<AffinePoint> = s
        .mul_base(curve, &ec_scalars(&mut r, curve, 16)[6..])
        .unwrap()
        .into_iter()
        .map(|p| p.unwrap())
        .collect();
    let g = curve.generator();
    let mut off = keys[9];
    off.y = off.x; // not on the curve
    let random = ec_scalars(&mut r, curve, 64 + 4 * min);
    let mut next = 6; // past the edge values ec_scalars starts with
    let mut pick = || {
        next += 1;
        random[next % random.len()]
    };
    let edges = &random[..6]; // 0, 1, 2, n−1, n−2, (n−1)/2
    let mut jobs = Vec::new();
    // keys[0]: a group of exactly `min`, the edge scalars as u₂ and as u₁
    for i in 0..min.max(edges.len() + 2) {
        let (a, b) = match i {
            i if i < edges.len() => (pick(), edges[i]),
            6 => (edges[0], pick()),
            7 => (edges[3], pick()),
            _ => (pick(), pick()),
        };
        jobs.push((a, b, keys[0]));
    }
    // keys[1]: above the threshold, with out-of-range scalars and u₁ = u₂ = 0 (the identity)
    for i in 0..min + 5 {
        let (a, b) = match i {
            0 => (curve.order(), pick()),
            1 => (pick(), curve.order()),
            2 => (pick(), big_to_uint(&(&n + 1u8))),
            3 => (edges[0], edges[0]),
            _ => (pick(), pick()),
        };
        jobs.push((a, b, keys[1]));
    }
    // G shared: u₁·G + (n − u₁)·G = O, and u₂ = n − 1
    for i in 0..min {
        let a = pick();
        let b = match i {
            0 => big_to_uint(&(&n - to_big(&a.0))),
            1 => edges[3],
            _ => pick(),
        };
        jobs.push((a, b, g));
    }
    // keys[2]: one short of the threshold (the distinct path)
    for _ in 0..min.saturating_sub(1) {
        jobs.push((pick(), pick(), keys[2]));
    }
    // keys seen once, an off-curve point and the identity past the threshold
    for k in &keys[3..9] {
        jobs.push((pick(), pick(), *k));
    }
    for _ in 0..min + 1 {
        jobs.push((pick(), pick(), off));
        jobs.push((pick(), pick(), AffinePoint::IDENTITY));
    }
    jobs.shuffle(&mut r);
    jobs
}

/// The batch on `b` against the scalar backend.
fn check(b: &WgpuBackend, curve: Curve, min: usize, seed: u64) {
    let jobs = batch(curve, min, seed);
    let u1: Vec<EcUint> = jobs.iter().map(|j| j.0).collect();
    let u2: Vec<EcUint> = jobs.iter().map(|j| j.1).collect();
    let pts: Vec<AffinePoint> = jobs.iter().map(|j| j.2).collect();
    let got = b.mul_double_vartime(curve, &u1, &u2, &pts).expect("batch");
    let want = scalar()
        .mul_double_vartime(curve, &u1, &u2, &pts)
        .expect("batch");
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{curve} job {i} of {}: {:?}", jobs.len(), jobs[i]);
    }
    // the batch has errors, identities and ordinary points
    assert!(got.iter().any(|r| r.is_err()));
    assert!(got.iter().any(|r| r.as_ref().is_ok_and(|p| p.infinity)));
    assert!(got.iter().any(|r| r.as_ref().is_ok_and(|p| !p.infinity)));
}

#[test]
fn shared_vs_scalar_p256() {
    let Some(b) = common::wgpu_or_skip("shared_vs_scalar_p256") else {
        return;
    };
    let min = batch_wgpu::ecc::shared_point_min(Curve::P256);
    check(&b, Curve::P256, min, 31);
    // groups from two jobs a point, and from eight (the G group and one key below it)
    check(&b.with_shared_point_min(2), Curve::P256, 2, 32);
    check(&b.with_shared_point_min(8), Curve::P256, 8, 38);
    // chunks of 5: groups cut across chunks, several groups' tables in one chunk
    check(
        &b.with_shared_point_min(3).with_max_chunk_jobs(5),
        Curve::P256,
        3,
        33,
    );
    // the accumulator through `scratch` between many dispatches
    check(
        &b.with_shared_point_min(3).with_loop_budget(400),
        Curve::P256,
        3,
        34,
    );
}

/// A device whose storage bindings hold two P-256 tables (22 KiB each): chunks are cut by
/// tables as well as by jobs.
#[test]
fn shared_vs_scalar_p256_small_binding() {
    if common::wgpu_or_skip("shared_vs_scalar_p256_small_binding").is_none() {
        return;
    }
    let b = WgpuBackend::with_options(WgpuOptions {
        max_storage_binding: Some(48 << 10),
        ..WgpuOptions::from_env()
    });
    check(&b.with_shared_point_min(3), Curve::P256, 3, 35);
}

#[test]
fn shared_vs_scalar_p384() {
    let Some(b) = common::wgpu_or_skip("shared_vs_scalar_p384") else {
        return;
    };
    check(
        &b,
        Curve::P384,
        batch_wgpu::ecc::shared_point_min(Curve::P384),
        36,
    );
}

#[test]
fn shared_vs_scalar_p521() {
    let Some(b) = common::wgpu_or_skip("shared_vs_scalar_p521") else {
        return;
    };
    check(
        &b,
        Curve::P521,
        batch_wgpu::ecc::shared_point_min(Curve::P521),
        37,
    );
}
