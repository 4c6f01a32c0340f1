//! Criterion: sign, verify (distinct keys, as `batch-speed` makes them) and verify-one-key
//! per backend × algorithm over [`BENCH_BATCH_SIZES`], in operations per second
//! (`Throughput::Elements` = jobs in the batch).
//!
//! `cargo bench -p batch-bench --bench backends` runs everything; filter by group and id, e.g.
//! `-- ecdsap256-sign` or `-- 'rsa2048-verify/avx2'`. Every cell is measured, 4096-job batches
//! included: before a backend's cells, a probe warms it up (tables, GPU pipelines, per-key
//! state) and times growing batches (8, 32, 128, … up to [`PROBE_MAX`] jobs, until one takes
//! [`PROBE_SECS`]); a cell whose batch is estimated above [`SLOW_BATCH_SECS`] gets criterion's
//! minimum of 10 one-batch samples (flat sampling) and a measurement time to fit them, the
//! others 2 s. The probe's estimate of each group's time is printed to stderr before it runs;
//! `BATCHSIG_BENCH_ESTIMATE=1` prints the estimates only (probes, no measurement) and the total.
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

/// A probe stops growing its batch once one batch takes this long ...
const PROBE_SECS: f64 = 0.2;
/// ... or reaches this many jobs.
const PROBE_MAX: usize = 512;
/// Above this estimated time per batch a cell runs the minimum of samples, one batch each.
const SLOW_BATCH_SECS: f64 = 0.2;
/// Criterion's minimum sample count.
const MIN_SAMPLES: usize = 10;
/// Measurement time of a fast cell.
const FAST_CELL_SECS: f64 = 2.0;
const WARM_UP_SECS: f64 = 0.5;

/// Ops/s of `run` on a warm backend: one untimed batch of 8 jobs, then batches of 8, 32,
/// 128, … (each made by `prepare` before its timing) until one takes [`PROBE_SECS`] or has
/// [`PROBE_MAX`] jobs; the last batch's rate (a batch-oriented backend's rate at 8 jobs says
/// little about 4096).
fn probe_rate<T>(prepare: impl Fn(usize) -> T, run: impl Fn(&T)) -> f64 {
    run(&prepare(8));
    let mut n = 8;
    loop {
        let input = prepare(n);
        let t = Instant::now();
        run(&input);
        let secs = t.elapsed().as_secs_f64().max(1e-9);
        if secs >= PROBE_SECS || n >= PROBE_MAX {
            return n as f64 / secs;
        }
        n *= 4;
    }
}

/// Criterion's measurement time for a cell whose batch takes `batch_secs`, and the wall time
/// the cell is expected to take (warm-up included).
fn cell_plan(batch_secs: f64) -> (Duration, f64) {
    if batch_secs > SLOW_BATCH_SECS {
        // Flat sampling with one batch per sample: MIN_SAMPLES batches, plus one warm-up.
        let measure = batch_secs * MIN_SAMPLES as f64 * 1.05;
        (Duration::from_secs_f64(measure), measure + batch_secs)
    } else {
        (
            Duration::from_secs_f64(FAST_CELL_SECS),
            FAST_CELL_SECS + WARM_UP_SECS,
        )
    }
}

fn bench(c: &mut Criterion) {
    // a backend on an emulation of its hardware (wgpu on llvmpipe) is left out, as in batch-speed
    let backends: Vec<_> = batchsig::backend::all_backends()
        .into_iter()
        .filter(|b| b.availability().is_available() && !b.is_emulated())
        .collect();
    let reference = batch_scalar::ScalarBackend::new();
    let estimate_only = std::env::var_os("BATCHSIG_BENCH_ESTIMATE").is_some_and(|v| v == "1");
    let started = Instant::now();
    let mut total_secs = 0.0;
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
                .sample_size(MIN_SAMPLES)
                .warm_up_time(Duration::from_secs_f64(WARM_UP_SECS));
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
                let rate = match op {
                    Op::Sign => probe_rate(messages, |m| drop(work.sign(b.as_ref(), m))),
                    Op::Verify | Op::VerifyOneKey => {
                        probe_rate(|n| verify_batch(op, n), |vb| drop(vb.verify(b.as_ref())))
                    }
                };
                let plans: Vec<(Duration, f64)> = BENCH_BATCH_SIZES
                    .iter()
                    .map(|&n| cell_plan(n as f64 / rate))
                    .collect();
                let expected: f64 = plans.iter().map(|p| p.1).sum();
                total_secs += expected;
                eprintln!(
                    "{}-{}/{}: ≈ {rate:.0} ops/s, its {} cells ≈ {expected:.0} s",
                    alg.name(),
                    op.name(),
                    b.name(),
                    plans.len()
                );
                if estimate_only {
                    continue;
                }
                for (&n, (measure, _)) in BENCH_BATCH_SIZES.iter().zip(&plans) {
                    group.throughput(Throughput::Elements(n as u64));
                    group.measurement_time(*measure);
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
    eprintln!(
        "backends bench: cells estimated at {:.0} min in all; {:.0} min so far (keys and probes \
         included)",
        total_secs / 60.0,
        started.elapsed().as_secs_f64() / 60.0
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
