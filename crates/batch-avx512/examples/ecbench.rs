//! Curve-operation measurement for the IFMA backend: one thread, batch of 1024 jobs per
//! curve, operations per second for scalar, avx2 and avx512 in both register forms (best of
//! `REPS` runs): `k·G` (signing), `k·Q` (ECDH) and `u₁·G + u₂·Q` (verification, one point
//! per job).
//!
//! `cargo run --release -p batch-avx512 --example ecbench [p256|p384|p521…]`
use std::time::Instant;

use batch_avx512::{Avx512Backend, Lanes};
use batch_core::dev::{ec_scalars, rng};
use batch_core::{Backend, Curve};

const REPS: usize = 3;
const BATCH: usize = 1024;

fn best(f: impl Fn()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..REPS {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    BATCH as f64 / best
}

fn main() {
    let want: Vec<String> = std::env::args().skip(1).collect();
    let curves: Vec<Curve> = batch_avx512::ecc::CURVES
        .into_iter()
        .filter(|c| {
            want.is_empty()
                || want
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(&c.name().replace('-', "")))
        })
        .collect();
    let ifma = Avx512Backend::with_threads(1).expect("pool");
    let backends: Vec<(String, Box<dyn Backend>)> = vec![
        (
            "scalar".into(),
            Box::new(batch_scalar::ScalarBackend::with_threads(1).expect("pool")),
        ),
        (
            "avx2".into(),
            Box::new(batch_avx2::Avx2Backend::with_threads(1).expect("pool")),
        ),
        (
            "avx512 ymm".into(),
            Box::new(ifma.clone().with_lanes(Lanes::Four)),
        ),
        ("avx512 zmm".into(), Box::new(ifma.with_lanes(Lanes::Eight))),
    ];
    println!(
        "{:<8} {:<11} {:>12} {:>12} {:>14} {:>14}",
        "curve", "backend", "k·G /s", "k·Q /s", "u1·G+u2·Q /s", "one Q /s"
    );
    for curve in curves {
        let mut r = rng(7);
        let k = ec_scalars(&mut r, curve, BATCH);
        let k2 = ec_scalars(&mut r, curve, BATCH);
        let q = batch_scalar::ScalarBackend::new()
            .mul_base(curve, &k2)
            .expect("batch");
        let q: Vec<_> = q.into_iter().map(|p| p.expect("point")).collect();
        for (name, b) in &backends {
            if !b.availability().is_available() {
                println!("{:<8} {:<11} unavailable", curve.name(), name);
                continue;
            }
            let base = best(|| {
                b.mul_base(curve, &k).expect("batch");
            });
            let point = best(|| {
                b.mul_point(curve, &q, &k).expect("batch");
            });
            let double = best(|| {
                b.mul_double_vartime(curve, &k, &k2, &q).expect("batch");
            });
            let one = vec![q[6]; BATCH]; // q[0] is k2[0]·G = O (edge scalars first)
            let shared = best(|| {
                b.mul_double_vartime(curve, &k, &k2, &one).expect("batch");
            });
            println!(
                "{:<8} {:<11} {base:>12.0} {point:>12.0} {double:>14.0} {shared:>14.0}",
                curve.name(),
                name
            );
        }
        // A batch of BATCH jobs in groups of `per` jobs under one point each.
        print!("{:<8} jobs/point:", curve.name());
        for per in [8usize, 16, 24, 32, 48, 64, 128] {
            let pts: Vec<_> = (0..BATCH).map(|i| q[6 + i / per]).collect();
            print!(" {per}:");
            for (name, b) in &backends {
                if !matches!(name.as_str(), "scalar" | "avx512 zmm")
                    || !b.availability().is_available()
                {
                    continue;
                }
                let r = best(|| {
                    b.mul_double_vartime(curve, &k, &k2, &pts).expect("batch");
                });
                print!(" {}={r:.0}", &name[name.len() - 3..]);
            }
        }
        println!();
    }
}
