//! Rough EC throughput of the wgpu backend on whatever adapter wgpu picks (set
//! `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`): `k·G`, `k·Q` and `u₁·G + u₂·Q` on one curve, with
//! the results checked against the scalar backend. The first call of each operation (a
//! one-job batch) is timed separately: it compiles that operation's pipeline.
//!
//! `cargo run --release -p batch-wgpu --example ec_rate -- [p256|p384|p521] [batch] [budget]`
//! (defaults p256, 1024; a third argument forces a loop budget per dispatch)
use std::time::Instant;

use batch_core::dev::{ec_scalars, rng};
use batch_core::{Availability, Backend, Curve};

fn main() {
    let mut args = std::env::args().skip(1);
    let curve = match args.next().as_deref() {
        None | Some("p256") => Curve::P256,
        Some("p384") => Curve::P384,
        Some("p521") => Curve::P521,
        Some(other) => panic!("unknown curve {other:?}: p256, p384 or p521"),
    };
    let batch: usize = args.next().map_or(1024, |a| a.parse().expect("a number"));
    let b = batch_wgpu::WgpuBackend::new();
    // a third argument forces a loop budget per dispatch (see `with_loop_budget`)
    let b = match args.next() {
        Some(n) => b.with_loop_budget(n.parse().expect("a number")),
        None => b,
    };
    if let Availability::Unavailable(why) = b.availability() {
        eprintln!("wgpu backend unavailable: {why}");
        std::process::exit(1);
    }
    println!("{}", b.description());
    let scalar = batch_scalar::ScalarBackend::with_threads(1).unwrap();
    let mut r = rng(1);
    let k1 = ec_scalars(&mut r, curve, batch);
    let k2 = ec_scalars(&mut r, curve, batch);
    let q: Vec<_> = scalar
        .mul_base(curve, &ec_scalars(&mut r, curve, batch))
        .unwrap()
        .into_iter()
        .map(|p| p.unwrap())
        .collect();
    type Op<'a> = Box<
        dyn Fn(&dyn Backend, usize) -> Vec<batch_core::JobResult<batch_core::AffinePoint>> + 'a,
    >;
    let ops: [(&str, Op<'_>); 3] = [
        (
            "k·G",
            Box::new(|be: &dyn Backend, n| be.mul_base(curve, &k1[..n]).unwrap()),
        ),
        (
            "k·Q",
            Box::new(|be: &dyn Backend, n| be.mul_point(curve, &q[..n], &k1[..n]).unwrap()),
        ),
        (
            "u₁·G + u₂·Q",
            Box::new(|be: &dyn Backend, n| {
                be.mul_double_vartime(curve, &k1[..n], &k2[..n], &q[..n])
                    .unwrap()
            }),
        ),
    ];
    for (name, op) in &ops {
        let t = Instant::now();
        op(&b, 1);
        let warm = t.elapsed();
        let t = Instant::now();
        let out = op(&b, batch);
        let dt = t.elapsed();
        let want = op(&scalar, batch);
        let wrong = out.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert!(
            wrong == 0,
            "{name}: {wrong} of {batch} results differ from scalar's, e.g. {:?}",
            out.iter().zip(&want).find(|(a, b)| a != b)
        );
        println!(
            "{curve} {name}: first call (compilation + 1 job) {warm:.2?}; batch {batch}: {dt:.2?}, {:.0} ops/s",
            batch as f64 / dt.as_secs_f64()
        );
    }
}
