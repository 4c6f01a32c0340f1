//! Rough EC throughput of the wgpu backend on whatever adapter wgpu picks (set
//! `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`): `k·G`, `k·Q` and `u₁·G + u₂·Q` on one curve, with
//! the results checked against the scalar backend. The first call of each operation (a
//! one-job batch) is timed separately: it compiles that operation's pipeline.
//!
//! `cargo run --release -p batch-wgpu --example ec_rate -- [p256|p384|p521] [batch] [budget]`
//! (defaults p256, 1024; a third argument forces a loop budget per dispatch)
//!
//! Shared-key mode, `… -- p256 1024 shared=1,4,16,64`: `u₁·G + u₂·Q` on batches whose keys
//! repeat, each key for that many consecutive jobs, run once on the distinct-key path (no
//! grouping), once on the shared-point path (every repeated key grouped, whatever the
//! threshold) and once with the backend's own threshold; best of three runs each, after a
//! warm-up call that compiles both pipelines.
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
    // a third argument forces a loop budget per dispatch (see `with_loop_budget`), or asks
    // for the shared-key mode
    let mut shared_sizes = None;
    let b = match args.next() {
        Some(a) if a.starts_with("shared=") => {
            let sizes: Vec<usize> = a["shared=".len()..]
                .split(',')
                .map(|n| n.parse().expect("group sizes: numbers, comma-separated"))
                .collect();
            shared_sizes = Some(sizes);
            b
        }
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
    if let Some(sizes) = shared_sizes {
        // keys from random scalars (ec_scalars starts with 0, 1, 2, n−1, …: 0·G is the
        // identity, which never groups)
        let keys: Vec<_> = scalar
            .mul_base(curve, &ec_scalars(&mut r, curve, batch + 6)[6..])
            .unwrap()
            .into_iter()
            .map(|p| p.unwrap())
            .collect();
        shared_keys(&b, &scalar, curve, &k1, &k2, &keys, &sizes);
        return;
    }
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

/// The shared-key mode: for each group size, the same batch on the distinct-key path, on the
/// shared-point path and with the backend's threshold.
fn shared_keys(
    b: &batch_wgpu::WgpuBackend,
    scalar: &dyn Backend,
    curve: Curve,
    k1: &[batch_core::EcUint],
    k2: &[batch_core::EcUint],
    q: &[batch_core::AffinePoint],
    sizes: &[usize],
) {
    let batch = k1.len();
    let paths = [
        ("distinct", b.with_shared_point_min(usize::MAX)),
        ("shared", b.with_shared_point_min(1)),
        ("threshold", b.clone()),
    ];
    for (name, be) in &paths {
        let t = Instant::now();
        be.mul_double_vartime(curve, &k1[..2], &k2[..2], &[q[0], q[0]])
            .unwrap();
        println!("{curve} warm-up {name}: {:.2?}", t.elapsed());
    }
    println!(
        "{curve} u₁·G + u₂·Q, batch {batch}, keys repeated g times; verifications/s, best of 3"
    );
    println!(
        "| g | keys | distinct | shared | shared ÷ distinct | threshold ({}) |",
        batch_wgpu::ecc::shared_point_min(curve)
    );
    println!("|---|---|---|---|---|---|");
    for &g in sizes {
        let pts: Vec<_> = (0..batch).map(|i| q[i / g.max(1)]).collect();
        let want = scalar.mul_double_vartime(curve, k1, k2, &pts).unwrap();
        let mut rates = Vec::new();
        for (name, be) in &paths {
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t = Instant::now();
                let out = be.mul_double_vartime(curve, k1, k2, &pts).unwrap();
                best = best.min(t.elapsed().as_secs_f64());
                assert!(out == want, "{name}, g = {g}: results differ from scalar's");
            }
            rates.push(batch as f64 / best);
        }
        println!(
            "| {g} | {} | {:.0} | {:.0} | {:.2} | {:.0} |",
            batch.div_ceil(g.max(1)),
            rates[0],
            rates[1],
            rates[1] / rates[0],
            rates[2]
        );
    }
}
