//! Criterion: P-256 scalar multiplication by recoding method — the seed paper's Table 2
//! (double-and-add, NAF, wNAF, fixed window, comb), all on the scalar backend's complete
//! projective formulas so only the recoding differs. One thread, 64 seeded scalars per
//! iteration, `k·G` (the comb uses its precomputed table of `G`; the others start from `G`).
//!
//! `cargo bench -p batch-bench --bench recoding` (about a minute).

use std::time::Duration;

use batch_core::curve::P256;
use batch_core::Curve;
use batch_scalar::ecc::comb::table_p256;
use batch_scalar::ecc::point::AffineMonty;
use batch_scalar::ecc::recoding::Method;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SCALARS: usize = 64;

fn bench(c: &mut Criterion) {
    let mut rng = batch_core::dev::rng(2015);
    let scalars: Vec<_> = batch_core::dev::ec_scalars(&mut rng, Curve::P256, SCALARS)
        .iter()
        .map(|k| k.resize::<4>().expect("P-256 scalars fit 4 limbs"))
        .collect();
    let g = AffineMonty {
        x: P256.gx,
        y: P256.gy,
    };
    let table = table_p256();
    let mut group = c.benchmark_group("p256-mul-by-recoding");
    group.throughput(Throughput::Elements(SCALARS as u64));
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for m in Method::ALL {
        group.bench_with_input(BenchmarkId::new(m.name(), "P-256"), &m, |b, &m| {
            b.iter(|| {
                for k in &scalars {
                    black_box(m.mul(&P256, &g, table, black_box(k)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
