//! A fixed curve workload for profilers (`perf record`, callgrind): `u₁·G + u₂·Q` (or `k·G`,
//! `k·Q`) over 1024 jobs with a point per job, one thread.
//!
//! `cargo run --release -p batch-avx512 --example ecprof -- [double|base|point] [rounds] [p256|p384|p521] [8|4]`
use batch_avx512::{Avx512Backend, Lanes};
use batch_core::dev::{ec_scalars, rng};
use batch_core::{Backend, Curve};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map(String::as_str).unwrap_or("double");
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let curve = match args.get(3).map(String::as_str) {
        Some("p384") => Curve::P384,
        Some("p521") => Curve::P521,
        _ => Curve::P256,
    };
    let lanes = match args.get(4).map(String::as_str) {
        Some("4") => Lanes::Four,
        _ => Lanes::Eight,
    };
    let b = Avx512Backend::with_threads(1)
        .expect("pool")
        .with_lanes(lanes);
    let mut r = rng(7);
    let k = ec_scalars(&mut r, curve, 1024);
    let k2 = ec_scalars(&mut r, curve, 1024);
    let q: Vec<_> = batch_scalar::ScalarBackend::new()
        .mul_base(curve, &k2)
        .expect("batch")
        .into_iter()
        .map(|p| p.expect("point"))
        .collect();
    let t = std::time::Instant::now();
    for _ in 0..rounds {
        let out = match op {
            "base" => b.mul_base(curve, &k),
            "point" => b.mul_point(curve, &q, &k),
            _ => b.mul_double_vartime(curve, &k, &k2, &q),
        }
        .expect("batch");
        assert_eq!(out.len(), 1024);
    }
    let el = t.elapsed().as_secs_f64();
    println!("{curve} {op}: {:.0} jobs/s", 1024.0 * rounds as f64 / el);
}
