//! Statistical constant-time check (dudect: Reparaz, Balasch, Verbauwhede, "Dude, is my code
//! constant time?", DATE 2017) for the backends Valgrind cannot run: AVX-512 above all
//! (`scripts/ct-check.sh` covers scalar and AVX2 with memcheck taint; Valgrind does not emulate
//! AVX-512).
//!
//! For each constant-time operation, two classes of secret input are timed in random order
//! through the `Backend` trait, one batch of 8 jobs (one `zmm` group) per measurement: a
//! *fixed* secret with the most structure we could think of (the scalar 1: one non-zero digit;
//! the exponent `2^(b−1) + 1`; the base 1; the point `G`) against fresh *random* secrets —
//! in every job of the batch, and (the `one …` cases) in the first job only, beside random
//! ones, so that lane masks are mixed, as a masked store's timing needs to show. A
//! Welch t-test compares the two timing distributions, uncropped and cropped at several
//! percentiles (long tails from interrupts hide small differences). |t| above 4.5 is the usual
//! "probably leaks" line, above 10 "certainly". Two controls — variable-time operations fed the
//! same classes — must be flagged, or the run has no power and fails.
//!
//! ```text
//! cargo bench -p batch-bench --bench dudect                       # avx512, 20 000 samples a case
//! cargo bench -p batch-bench --bench dudect -- --backend scalar --samples 5000
//! cargo bench -p batch-bench --bench dudect -- --only "P-521 k·G"   # cases whose name has this
//! ```
//!
//! Exit status 1 if a constant-time case is flagged or a control is not. A skipped backend
//! (not available on this CPU) prints why and exits 0.

use std::hint::black_box;
use std::time::Instant;

use batch_core::dev::{ec_scalars, random_modulus, rng};
use batch_core::{AffinePoint, Backend, Curve, EcUint, ModexpJob};
use rand::{Rng, RngExt};

/// Jobs per measured call: one `zmm` group on avx512, two `ymm`/avx2 groups.
const JOBS: usize = 8;
/// |t| above this flags a difference.
const T_FLAG: f64 = 4.5;

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Fixed,
    Random,
}

/// One case: prepares the inputs of a measurement for a class (untimed), then runs it (timed).
struct Case<'a> {
    name: String,
    /// A control: variable-time on purpose; the test must flag it.
    control: bool,
    prepare: Box<dyn FnMut(Class) -> Box<dyn FnOnce() + 'a> + 'a>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    // One thread: the backends use rayon's global pool; more threads only add noise here.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("global pool");
    let samples: usize = arg("--samples").map_or(20_000, |s| s.parse().expect("--samples N"));
    let backend_name = arg("--backend").unwrap_or_else(|| "avx512".into());
    let b = batchsig::backend::by_name(&backend_name)
        .unwrap_or_else(|| panic!("no backend named {backend_name}"));
    if let batch_core::backend::Availability::Unavailable(why) = b.availability() {
        println!("dudect: skipped: backend {backend_name} unavailable here: {why}");
        return;
    }
    println!(
        "dudect on backend {backend_name}: {samples} samples a case, {JOBS} jobs a sample (\"×N\": N), |t| > {T_FLAG} flags"
    );
    let b: &dyn Backend = b.as_ref();
    let mut cases = Vec::new();
    for &curve in b.curves() {
        cases.extend(ec_cases(b, curve));
    }
    cases.extend(modexp_cases(b, 1024, JOBS));
    cases.extend(modexp_cases(b, 1536, JOBS));
    // Fewer jobs than a group: what a single RSA signature runs (two CRT halves; on avx512 the
    // horizontal form, one number along a register, two interleaved), two signatures (four
    // interleaved), and one job alone.
    cases.extend(modexp_cases(b, 1024, 2));
    cases.extend(modexp_cases(b, 1024, 4));
    cases.extend(modexp_cases(b, 1536, 1));

    if let Some(only) = arg("--only") {
        cases.retain(|c| c.name.contains(&only));
    }
    println!(
        "{:<34} {:>9} {:>9} {:>8} {:>7}  verdict",
        "case", "fixed µs", "random µs", "max |t|", "crop"
    );
    let mut failed = false;
    for mut case in cases {
        let (tmax, crop, m0, m1) = run_case(&mut case, samples);
        let flagged = tmax > T_FLAG;
        let verdict = match (case.control, flagged) {
            (false, false) => "no leak found",
            (false, true) => "LEAK?",
            (true, true) => "control flagged (expected)",
            (true, false) => "CONTROL NOT FLAGGED: no power",
        };
        failed |= flagged != case.control;
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>8.2} {:>7}  {verdict}",
            case.name,
            m0 / 1e3,
            m1 / 1e3,
            tmax,
            crop
        );
    }
    if failed {
        std::process::exit(1);
    }
}

/// Timings in random class order; returns the largest |t| over the crops, its crop, and the
/// uncropped means (ns) of the fixed and random classes.
fn run_case(case: &mut Case<'_>, samples: usize) -> (f64, String, f64, f64) {
    let mut r = rng(0xd0d0);
    let warmup = samples / 50;
    // Every input is prepared before the first measurement (as dudect does): preparing a
    // random input right before its measurement would leave the caches and predictors in a
    // class-dependent state, which the t-test duly reports.
    let runs: Vec<(Class, Box<dyn FnOnce() + '_>)> = (0..warmup + samples)
        .map(|_| {
            let class = if r.random::<bool>() {
                Class::Fixed
            } else {
                Class::Random
            };
            (class, (case.prepare)(class))
        })
        .collect();
    let mut t: Vec<(Class, f64)> = Vec::with_capacity(samples);
    for (i, (class, run)) in runs.into_iter().enumerate() {
        let start = Instant::now();
        run();
        let ns = start.elapsed().as_nanos() as f64;
        if i >= warmup {
            t.push((class, ns));
        }
    }
    let mut pooled: Vec<f64> = t.iter().map(|&(_, x)| x).collect();
    pooled.sort_by(f64::total_cmp);
    let mut best = (0.0, String::new());
    let mut means = (0.0, 0.0);
    for pct in [100.0, 99.0, 95.0, 90.0, 75.0, 50.0] {
        let cut = pooled[((pooled.len() - 1) as f64 * pct / 100.0) as usize];
        let (tv, m0, m1) = welch(t.iter().filter(|&&(_, x)| x <= cut).copied());
        if pct == 100.0 {
            means = (m0, m1);
        }
        if tv.abs() > best.0 {
            best = (tv.abs(), format!("p{pct}"));
        }
    }
    (best.0, best.1, means.0, means.1)
}

/// Welch's t statistic between the classes, and the two means.
fn welch(xs: impl Iterator<Item = (Class, f64)>) -> (f64, f64, f64) {
    // per class: count, sum, sum of squares (ns are at most ~1e8: f64 keeps the precision)
    let mut acc = [(0f64, 0f64, 0f64); 2];
    for (c, x) in xs {
        let a = &mut acc[(c == Class::Random) as usize];
        a.0 += 1.0;
        a.1 += x;
        a.2 += x * x;
    }
    let stat = |(n, s, q): (f64, f64, f64)| {
        let m = s / n;
        (m, (q / n - m * m) * n / (n - 1.0))
    };
    let ((m0, v0), (m1, v1)) = (stat(acc[0]), stat(acc[1]));
    let t = (m0 - m1) / (v0 / acc[0].0 + v1 / acc[1].0).sqrt();
    (t, m0, m1)
}

fn random_scalars(r: &mut impl Rng, curve: Curve, count: usize) -> Vec<EcUint> {
    // ec_scalars puts six edge values first
    ec_scalars(r, curve, count + 6).split_off(6)
}

/// A timed `k·Q` batch over prepared inputs.
fn mul_point_run<'a>(
    b: &'a dyn Backend,
    curve: Curve,
    q: Vec<AffinePoint>,
    k: Vec<EcUint>,
) -> Box<dyn FnOnce() + 'a> {
    Box::new(move || {
        black_box(
            b.mul_point(curve, black_box(&q), black_box(&k))
                .expect("batch"),
        );
    })
}

fn ec_cases<'a>(b: &'a dyn Backend, curve: Curve) -> Vec<Case<'a>> {
    let name = curve.name();
    let one = EcUint::from_limbs(&[1]).expect("1 fits");
    let g = curve.generator();
    // a pool of random valid points, made once (untimed)
    let mut r = rng(11);
    let pool: Vec<AffinePoint> = b
        .mul_base(curve, &random_scalars(&mut r, curve, 64))
        .expect("batch")
        .into_iter()
        .map(|p| p.expect("point"))
        .collect();
    // Both classes' inputs are made by the same code (the fixed class overwrites random
    // ones): inputs made differently sit differently on the heap, and with every input
    // prepared before the first measurement, each is read from memory through a page walk
    // whose cost follows that placement.
    let scalars = move |r: &mut rand_chacha::ChaCha20Rng, class| {
        let mut k = random_scalars(r, curve, JOBS);
        if class == Class::Fixed {
            k.fill(one);
        }
        k
    };
    let mut r1 = rng(1);
    let mut r2 = rng(2);
    let mut r3 = rng(3);
    let mut r4 = rng(4);
    let mut r5 = rng(5);
    let pool2 = pool.clone();
    let pool3 = pool.clone();
    vec![
        Case {
            name: format!("{name} k·G, k = 1 vs random"),
            control: false,
            prepare: Box::new(move |class| {
                let k = scalars(&mut r1, class);
                Box::new(move || {
                    black_box(b.mul_base(curve, black_box(&k)).expect("batch"));
                })
            }),
        },
        Case {
            name: format!("{name} k·Q, k = 1 vs random"),
            control: false,
            prepare: Box::new(move |class| {
                let k = scalars(&mut r2, class);
                let q: Vec<AffinePoint> = (0..JOBS)
                    .map(|_| pool[r2.random_range(0..pool.len())])
                    .collect();
                mul_point_run(b, curve, q, k)
            }),
        },
        // k = 1 in the first job only: its lane's digits are zero while the others' are not,
        // so every lane mask is mixed, which the all-equal classes above never make. This is
        // the case that found selections compiled to masked stores (docs/SECURITY.md).
        Case {
            name: format!("{name} k·Q, one k = 1 vs random"),
            control: false,
            prepare: Box::new(move |class| {
                let mut k = random_scalars(&mut r5, curve, JOBS);
                if class == Class::Fixed {
                    k[0] = one;
                }
                let q: Vec<AffinePoint> = (0..JOBS)
                    .map(|_| pool3[r5.random_range(0..pool3.len())])
                    .collect();
                mul_point_run(b, curve, q, k)
            }),
        },
        Case {
            name: format!("{name} k·Q, Q = G vs random"),
            control: false,
            prepare: Box::new(move |class| {
                let k = random_scalars(&mut r3, curve, JOBS);
                // made as the random class's, then overwritten (see `scalars`)
                let mut q: Vec<AffinePoint> = (0..JOBS)
                    .map(|_| pool2[r3.random_range(0..pool2.len())])
                    .collect();
                if class == Class::Fixed {
                    q.fill(g);
                }
                mul_point_run(b, curve, q, k)
            }),
        },
        Case {
            name: format!("{name} u₁·G+u₂·Q vartime (control)"),
            control: true,
            prepare: Box::new(move |class| {
                let u1 = scalars(&mut r4, class);
                let u2 = scalars(&mut r4, class);
                Box::new(move || {
                    black_box(
                        b.mul_double_vartime(curve, black_box(&u1), black_box(&u2), &vec![g; JOBS])
                            .expect("batch"),
                    );
                })
            }),
        },
    ]
}

fn modexp_cases<'a>(b: &'a dyn Backend, bits: usize, jobs: usize) -> Vec<Case<'a>> {
    let tag = if jobs == JOBS {
        String::new()
    } else {
        format!(" ×{jobs}")
    };
    let mut r = rng(bits as u64);
    let m = random_modulus(&mut r, bits);
    let limbs = m.len();
    let below_m = move |r: &mut rand_chacha::ChaCha20Rng| {
        let mut x: Vec<u64> = (0..limbs).map(|_| r.random()).collect();
        x[limbs - 1] &= (1u64 << 62) - 1; // m's top limb has its top bit set (bits % 64 == 0)
        x
    };
    let fixed_exp = {
        let mut e = vec![0u64; limbs];
        e[0] = 1;
        e[limbs - 1] = 1 << 63;
        e
    };
    let random_exp = move |r: &mut rand_chacha::ChaCha20Rng| {
        let mut e: Vec<u64> = (0..limbs).map(|_| r.random()).collect();
        e[limbs - 1] |= 1 << 63;
        e
    };
    // The fixed class's bases and exponents are made as the random class's and then
    // overwritten in place, so both classes' inputs sit alike on the heap (see `ec_cases`).
    let fixed = move |mut x: Vec<u64>, value: &[u64], class: Class| {
        if class == Class::Fixed {
            x.copy_from_slice(value);
        }
        x
    };
    let mut one = vec![0u64; limbs];
    one[0] = 1;
    let (m1, m2, m3, m4) = (m.clone(), m.clone(), m.clone(), m);
    let (mut r1, mut r2, mut r3, mut r4) = (rng(5), rng(6), rng(7), rng(8));
    let fe = fixed_exp.clone();
    let fe1 = fixed_exp.clone();
    let run = move |b: &'a dyn Backend,
                    m: Vec<u64>,
                    bases: Vec<Vec<u64>>,
                    exps: Vec<Vec<u64>>,
                    vartime: bool| {
        Box::new(move || {
            let jobs: Vec<ModexpJob<'_>> = bases
                .iter()
                .zip(&exps)
                .map(|(base, exponent)| ModexpJob {
                    base,
                    exponent,
                    modulus: 0,
                })
                .collect();
            let moduli = [m.as_slice()];
            let out = if vartime {
                b.modexp_vartime(&moduli, black_box(&jobs))
            } else {
                b.modexp(&moduli, black_box(&jobs))
            };
            black_box(out.expect("batch"));
        }) as Box<dyn FnOnce() + 'a>
    };
    let mut cases = vec![
        Case {
            name: format!("modexp {bits}{tag}, e = 2^{}+1 vs random", bits - 1),
            control: false,
            prepare: Box::new(move |class| {
                let bases = (0..jobs).map(|_| below_m(&mut r1)).collect();
                let exps = (0..jobs)
                    .map(|_| fixed(random_exp(&mut r1), &fixed_exp, class))
                    .collect();
                run(b, m1.clone(), bases, exps, false)
            }),
        },
        Case {
            name: format!("modexp {bits}{tag}, base = 1 vs random"),
            control: false,
            prepare: Box::new(move |class| {
                let bases = (0..jobs)
                    .map(|_| fixed(below_m(&mut r2), &one, class))
                    .collect();
                let exps = (0..jobs).map(|_| random_exp(&mut r2)).collect();
                run(b, m2.clone(), bases, exps, false)
            }),
        },
        Case {
            name: format!("modexp {bits}{tag} vartime (control)"),
            control: true,
            prepare: Box::new(move |class| {
                let bases = (0..jobs).map(|_| below_m(&mut r3)).collect();
                let exps = (0..jobs)
                    .map(|_| fixed(random_exp(&mut r3), &fe, class))
                    .collect();
                run(b, m3.clone(), bases, exps, true)
            }),
        },
    ];
    if jobs > 1 {
        // The fixed exponent in the first job only: mixed lane masks in every lookup (see
        // the `k·Q, one k = 1` case).
        cases.push(Case {
            name: format!("modexp {bits}{tag}, one e = 2^{}+1 vs random", bits - 1),
            control: false,
            prepare: Box::new(move |class| {
                let bases = (0..jobs).map(|_| below_m(&mut r4)).collect();
                let mut exps: Vec<Vec<u64>> = (0..jobs).map(|_| random_exp(&mut r4)).collect();
                exps[0] = fixed(std::mem::take(&mut exps[0]), &fe1, class);
                run(b, m4.clone(), bases, exps, false)
            }),
        });
    }
    cases
}
