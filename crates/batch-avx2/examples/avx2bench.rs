//! Per-core comparison of the AVX2 and scalar backends, same process, same inputs:
//! `cargo run --release -p batch-avx2 --example avx2bench [batch] [rounds] [filter]`
//! (only figures whose label contains `filter`, e.g. `1024` or `P-256`; `=LABEL` for one).
//!
//! Prints operations per second on one thread for modexp (RSA CRT halves, constant-time;
//! RSA verification, `_vartime`), `k·G`, `k·Q`, `u₁·G + u₂·Q` (one point per job, and
//! shared points: one per 8 … 128 jobs), and whole RSA-2048 / P-256 /
//! P-384 signatures through batchsig. Each figure is the best of `rounds` runs, timed in CPU
//! seconds of the process (one worker thread per backend), so a busy machine skews it less.
use std::time::Instant;

use batch_avx2::Avx2Backend;
use batch_core::dev::{ec_scalars, modexp_bases, random_modulus, rng};
use batch_core::{Backend, Curve, ModexpJob};
use batch_scalar::ScalarBackend;
use batchsig::ecdsa::{EcdsaSignJob, NonceMode};
use batchsig::rsa::{RsaScheme, RsaSignJob};
use batchsig::{test_keys, HashAlg};
use rand::RngExt;

/// CPU seconds used by this process's threads so far (Linux: `/proc/self/task/*/schedstat`,
/// nanoseconds on the CPU), or `None` elsewhere. On a shared machine CPU time is far less
/// noisy than wall-clock time: waiting for a core is not counted.
fn cpu_secs() -> Option<f64> {
    let mut ns = 0u64;
    for t in std::fs::read_dir("/proc/self/task").ok()? {
        let s = std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok()?;
        ns += s.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 * 1e-9)
}

/// Best of `rounds` runs of `f`, in CPU seconds where available, else wall-clock seconds.
fn best(rounds: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let (c, t) = (cpu_secs(), Instant::now());
            f();
            match (c, cpu_secs()) {
                (Some(a), Some(b)) => b - a,
                _ => t.elapsed().as_secs_f64(),
            }
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let filter = std::env::args()
        .skip(1)
        .find(|a| a.parse::<usize>().is_err())
        .unwrap_or_default();
    // `=LABEL` asks for that figure only.
    let want = |label: &str| match filter.strip_prefix('=') {
        Some(exact) => label == exact,
        None => label.contains(filter.as_str()),
    };
    let batch = args.first().copied().unwrap_or(256);
    let rounds = args.get(1).copied().unwrap_or(3);
    let scalar = ScalarBackend::with_threads(1).unwrap();
    let avx2 = Avx2Backend::with_threads(1).unwrap();
    let backends: [&dyn Backend; 2] = [&scalar, &avx2];
    println!(
        "batch {batch}, best of {rounds}, one thread, {} time; ops/s (avx2/scalar)",
        if cpu_secs().is_some() {
            "CPU"
        } else {
            "wall-clock"
        }
    );
    let mut r = rng(42);

    let line = |what: &str, secs: [f64; 2], n: usize| {
        let ops = secs.map(|s| n as f64 / s);
        println!(
            "{what:<34} scalar {:>10.0}/s  avx2 {:>10.0}/s  ratio {:.2}",
            ops[0],
            ops[1],
            ops[1] / ops[0]
        );
    };

    for bits in [1024usize, 1536, 2048, 3840] {
        let moduli = [random_modulus(&mut r, bits), random_modulus(&mut r, bits)];
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let bases: Vec<Vec<u64>> = (0..batch)
            .map(|i| modexp_bases(&mut r, &moduli[i % 2], 5).pop().unwrap())
            .collect();
        let exps: Vec<Vec<u64>> = (0..batch)
            .map(|_| (0..bits / 64).map(|_| r.random()).collect())
            .collect();
        let jobs: Vec<ModexpJob<'_>> = (0..batch)
            .map(|i| ModexpJob {
                base: &bases[i],
                exponent: &exps[i],
                modulus: i % 2,
            })
            .collect();
        let n = if bits > 2048 { batch.min(32) } else { batch };
        if !want(&format!("modexp {bits}-bit")) {
            continue;
        }
        let secs = backends.map(|b| best(rounds, || drop(b.modexp(&mrefs, &jobs[..n]).unwrap())));
        line(&format!("modexp {bits}-bit, {bits}-bit exp"), secs, n);
    }
    for bits in [2048usize, 4096] {
        let m = [random_modulus(&mut r, bits)];
        let mrefs: Vec<&[u64]> = m.iter().map(|m| m.as_slice()).collect();
        let bases: Vec<Vec<u64>> = (0..batch)
            .map(|_| modexp_bases(&mut r, &m[0], 5).pop().unwrap())
            .collect();
        let e = [65537u64];
        let jobs: Vec<ModexpJob<'_>> = bases
            .iter()
            .map(|b| ModexpJob {
                base: b,
                exponent: &e,
                modulus: 0,
            })
            .collect();
        if !want(&format!("modexp_vartime {bits}-bit")) {
            continue;
        }
        let secs =
            backends.map(|b| best(rounds, || drop(b.modexp_vartime(&mrefs, &jobs).unwrap())));
        line(&format!("modexp_vartime {bits}-bit, e=65537"), secs, batch);
    }
    for curve in Curve::ALL {
        let k = ec_scalars(&mut r, curve, batch);
        let k2 = ec_scalars(&mut r, curve, batch + 7)[7..].to_vec();
        let q = scalar
            .mul_base(curve, &k2)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect::<Vec<_>>();
        let row = |label: String, f: &dyn Fn(&dyn Backend)| {
            if want(&label) {
                line(&label, backends.map(|b| best(rounds, || f(b))), batch);
            }
        };
        row(format!("{curve} k·G"), &|b| {
            drop(b.mul_base(curve, &k).unwrap())
        });
        row(format!("{curve} k·Q"), &|b| {
            drop(b.mul_point(curve, &q, &k).unwrap())
        });
        row(format!("{curve} u1·G+u2·Q"), &|b| {
            drop(b.mul_double_vartime(curve, &k, &k2, &q).unwrap())
        });
        // Verification under shared keys: one point per `per` consecutive jobs.
        for per in [4usize, 8, 12, 16, 32, 128] {
            let qs: Vec<_> = (0..batch).map(|i| q[i / per]).collect();
            row(format!("{curve} u1·G+u2·Q, {per} jobs/Q"), &|b| {
                drop(b.mul_double_vartime(curve, &k, &k2, &qs).unwrap())
            });
        }
    }
    // Whole signatures (hashing, padding, blinding, CRT, verification on the CPU included).
    let key = test_keys::rsa(2048);
    let digests: Vec<Vec<u8>> = (0..batch)
        .map(|i| HashAlg::Sha256.digest(format!("m{i}").as_bytes()))
        .collect();
    let jobs: Vec<RsaSignJob<'_>> = digests
        .iter()
        .map(|d| RsaSignJob {
            key: &key,
            digest: d,
        })
        .collect();
    let secs = backends.map(|b| {
        if !want("RSA-2048 sign") {
            return f64::NAN;
        }
        best(rounds, || {
            let mut g = rand_chacha::ChaCha20Rng::seed_from_u64(1);
            drop(
                batchsig::rsa::sign_batch(b, RsaScheme::pkcs1v15(HashAlg::Sha256), &jobs, &mut g)
                    .unwrap(),
            )
        })
    });
    if want("RSA-2048 sign") {
        line("RSA-2048 sign (batchsig)", secs, batch);
    }
    for curve in [Curve::P256, Curve::P384] {
        let key = test_keys::ecdsa(curve);
        let hash = batchsig::ecdsa::curve_hash(curve);
        let digests: Vec<Vec<u8>> = (0..batch)
            .map(|i| hash.digest(format!("m{i}").as_bytes()))
            .collect();
        let jobs: Vec<EcdsaSignJob<'_>> = digests
            .iter()
            .map(|d| EcdsaSignJob {
                key: &key,
                digest: d,
            })
            .collect();
        if !want(&format!("{curve} ECDSA sign")) {
            continue;
        }
        let secs = backends.map(|b| {
            best(rounds, || {
                let mut g = rand_chacha::ChaCha20Rng::seed_from_u64(1);
                drop(
                    batchsig::ecdsa::sign_batch(b, hash, &jobs, NonceMode::Hedged, &mut g).unwrap(),
                )
            })
        });
        line(&format!("{curve} ECDSA sign (batchsig)"), secs, batch);
    }
}

use rand::SeedableRng;
