//! Criterion: sign, verify (distinct keys, as `batch-speed` makes them) and verify-one-key
//! per backend × algorithm over [`BENCH_BATCH_SIZES`], in operations per second
//! (`Throughput::Elements` = jobs in the batch).
//!
//! `cargo bench -p batch-bench --bench backends` runs everything (~10 min per backend on
//! 2 cores); filter by group and id, e.g. `-- ecdsap256-sign` or `-- 'rsa2048-verify/avx2'`.
//! A size whose one batch would take more than [`MAX_BATCH_SECS`] (estimated from a probe
//! at start-up) is left out and named on stderr — RSA-4096 signing 4096 jobs takes seconds.
//! Backends are built (GPU device, tables) and keys made before timing starts; inputs are
//! fixed messages.

use std::time::{Duration, Instant};

use batch_bench::alg::Alg;
use batch_bench::keys::{self, KeyPool};
use batch_bench::measure::{messages, Op, VerifyBatch, Workload};
use batch_bench::BENCH_BATCH_SIZES;
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};

const MAX_BATCH_SECS: f64 = 0.3;

fn bench(c: &mut Criterion) {
    // a backend on an emulation of its hardware (wgpu on llvmpipe) is left out, as in batch-speed
    let backends: Vec<_> = batchsig::backend::all_backends()
        .into_iter()
        .filter(|b| b.availability().is_available() && !b.is_emulated())
        .collect();
    let reference = batch_scalar::ScalarBackend::new();
    for alg in Alg::common() {
        let work = Workload::new(alg);
        let largest = *BENCH_BATCH_SIZES.iter().max().unwrap_or(&1);
        let sigs = work
            .sign(&reference, &messages(largest.min(256)))
            .expect("reference signing");
        let cache = keys::default_cache_dir();
        let pool = KeyPool::new(alg, &reference, largest, cache.as_deref(), &|_| {})
            .expect("distinct verify keys");
        // The verify batch of `n` jobs for `op` (built before timing).
        let verify_batch = |op: Op, n: usize| -> VerifyBatch {
            if op == Op::Verify {
                pool.batch(n)
            } else {
                let msgs: Vec<Vec<u8>> = (0..n)
                    .map(|i| batch_bench::measure::message(i % sigs.len()))
                    .collect();
                work.one_key_batch(&msgs, &sigs.cycle_to(n))
            }
        };
        for op in Op::ALL {
            let mut group = c.benchmark_group(format!("{}-{}", alg.name(), op.name()));
            group
                .sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500));
            group.measurement_time(Duration::from_secs(2));
            for b in &backends {
                if let Alg::Ecdsa(curve) = alg {
                    if !b.curves().contains(&curve) {
                        eprintln!(
                            "{}-{}/{}: left out ({} does not implement {curve} yet)",
                            alg.name(),
                            op.name(),
                            b.name(),
                            b.name()
                        );
                        continue;
                    }
                }
                // Probe: ops/s at a small batch, to leave out sizes that would take too long.
                let probe = messages(8);
                let t = Instant::now();
                match op {
                    Op::Sign => drop(work.sign(b.as_ref(), &probe)),
                    Op::Verify | Op::VerifyOneKey => drop(verify_batch(op, 8).verify(b.as_ref())),
                }
                let rate = 8.0 / t.elapsed().as_secs_f64();
                for &n in &BENCH_BATCH_SIZES {
                    if n as f64 / rate > MAX_BATCH_SECS {
                        eprintln!(
                            "{}-{}/{}/{n}: left out (one batch ≈ {:.1} s)",
                            alg.name(),
                            op.name(),
                            b.name(),
                            n as f64 / rate
                        );
                        continue;
                    }
                    group.throughput(Throughput::Elements(n as u64));
                    let msgs = messages(n);
                    let vb = verify_batch(op, n);
                    group.bench_with_input(BenchmarkId::new(b.name(), n), &n, |bch, _| match op {
                        Op::Sign => bch.iter(|| work.sign(b.as_ref(), &msgs).expect("sign")),
                        Op::Verify | Op::VerifyOneKey => {
                            bch.iter(|| vb.verify(b.as_ref()).expect("verify"))
                        }
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
