//! Criterion: sign and verify per backend × algorithm over [`BENCH_BATCH_SIZES`], in
//! operations per second (`Throughput::Elements` = jobs in the batch).
//!
//! `cargo bench -p batch-bench --bench backends` runs everything (~10 min per backend on
//! 2 cores); filter by group and id, e.g. `-- ecdsap256-sign` or `-- 'rsa2048-verify/avx2'`.
//! A size whose one batch would take more than [`MAX_BATCH_SECS`] (estimated from a probe
//! at start-up) is left out and named on stderr — RSA-4096 signing 4096 jobs takes seconds.
//! Backends are built (GPU device, tables) before timing starts; inputs are fixed messages.

use std::time::{Duration, Instant};

use batch_bench::alg::Alg;
use batch_bench::measure::{messages, Op, Workload};
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
        for op in Op::BOTH {
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
                    Op::Verify => drop(work.verify(b.as_ref(), &probe, &sigs_for(&sigs, 8))),
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
                    let msgs: Vec<Vec<u8>> = (0..n)
                        .map(|i| batch_bench::measure::message(i % sigs.len()))
                        .collect();
                    let vsigs = sigs_for(&sigs, n);
                    group.bench_with_input(BenchmarkId::new(b.name(), n), &n, |bch, _| match op {
                        Op::Sign => bch.iter(|| work.sign(b.as_ref(), &msgs).expect("sign")),
                        Op::Verify => {
                            bch.iter(|| work.verify(b.as_ref(), &msgs, &vsigs).expect("verify"))
                        }
                    });
                }
            }
            group.finish();
        }
    }
}

/// `n` signatures cycling through `sigs` (signatures of `message(0..)`).
fn sigs_for(sigs: &batch_bench::measure::Signatures, n: usize) -> batch_bench::measure::Signatures {
    sigs.cycle_to(n)
}

criterion_group!(benches, bench);
criterion_main!(benches);
