//! Kernel measurement for the IFMA backend: one thread, constant-time modexp on RSA CRT-half
//! sizes (batch of 256 jobs, two moduli), ops/s for scalar, avx2 and avx512 in both register
//! forms, best of `REPS` runs; then the raw kernel rate (lane products per second) and the
//! IFMA instruction rate it implies (4·N² `vpmadd52` per `N`-digit product per register).
//!
//! `cargo run --release -p batch-avx512 --example ifmabench [bits…]`
use std::time::Instant;

use batch_avx512::{Avx512Backend, Lanes};
use batch_core::dev::{modexp_bases, modexp_exponents, random_modulus, rng};
use batch_core::{Backend, ModexpJob};

const REPS: usize = 5;

fn rate(b: &dyn Backend, moduli: &[&[u64]], jobs: &[ModexpJob<'_>]) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..REPS {
        let t = Instant::now();
        let r = b.modexp(moduli, jobs).expect("batch");
        best = best.min(t.elapsed().as_secs_f64());
        assert!(r.iter().all(|x| x.is_ok()));
    }
    jobs.len() as f64 / best
}

fn main() {
    kernel_rates();
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if args.is_empty() {
        vec![1024, 1536, 2048]
    } else {
        args
    };
    let scalar = batch_scalar::ScalarBackend::with_threads(1).unwrap();
    let avx2 = batch_avx2::Avx2Backend::with_threads(1).unwrap();
    let z8 = Avx512Backend::with_threads(1)
        .unwrap()
        .with_lanes(Lanes::Eight);
    let y4 = Avx512Backend::with_threads(1)
        .unwrap()
        .with_lanes(Lanes::Four);
    let z8s = Avx512Backend::with_threads(1)
        .unwrap()
        .with_lanes(Lanes::EightSquare);
    let mut r = rng(1);
    for bits in sizes {
        let moduli = [random_modulus(&mut r, bits), random_modulus(&mut r, bits)];
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let n = 256;
        let bases: Vec<Vec<u64>> = (0..n)
            .map(|i| modexp_bases(&mut r, &moduli[i % 2], 8).pop().unwrap())
            .collect();
        let exps = modexp_exponents(&mut r, bits / 64, 8);
        let jobs: Vec<ModexpJob<'_>> = (0..n)
            .map(|i| ModexpJob {
                base: &bases[i],
                exponent: &exps[3 + i % 5],
                modulus: i % 2,
            })
            .collect();
        let s = rate(&scalar, &mrefs, &jobs);
        let a = rate(&avx2, &mrefs, &jobs);
        let zr = rate(&z8, &mrefs, &jobs);
        let yr = rate(&y4, &mrefs, &jobs);
        let zsr = rate(&z8s, &mrefs, &jobs);
        let nd = batch_avx512::modexp::kernel_digits(bits);
        // products per exponentiation: squarings + window products + table (window_for)
        let ebits = 64 * (bits / 64);
        let w = batch_core::num::dyn_monty::window_for(ebits);
        let products = ebits + ebits.div_ceil(w) + (1 << w) + 2;
        let ifma_per_s =
            |ops: f64, lanes: f64| ops * products as f64 * 4.0 * (nd * nd) as f64 / lanes;
        println!(
            "{bits:>5}-bit modexp/s: scalar {s:>8.0}  avx2 {a:>8.0} ({:.2}x)  avx512 zmm {zr:>8.0} ({:.2}x)  ymm {yr:>8.0} ({:.2}x)  \
             zmm+sqr {zsr:>8.0} ({:.2}x)   IFMA instr/s (product count): zmm {:.2e} ymm {:.2e}",
            a / s,
            zr / s,
            yr / s,
            zsr / s,
            ifma_per_s(zr, 8.0),
            ifma_per_s(yr, 4.0)
        );
    }
}

/// Raw kernels: 2000 chained products, then 2000 chained squarings, of one register group per
/// width and form; then the shape `Lanes::Measured` chose for the width on this CPU.
pub fn kernel_rates() {
    use batch_avx512::modexp::{kernel_digits, measured_shape, Shape};
    use batch_avx512::simd::{chain_seconds, detect};
    let Ok(t) = detect() else {
        return;
    };
    for bits in [1024usize, 1536, 2048, 3072, 3840, 4096] {
        let n = kernel_digits(bits);
        let time = |shape, ops| chain_seconds(t, shape, n, 2000, ops);
        let (z, y) = (time(Shape::Eight, (0, 1)), time(Shape::Four, (0, 1)));
        let (zs, ys) = (time(Shape::EightSquare, (1, 0)), time(Shape::Four, (1, 0)));
        let per_lane = |secs: f64, lanes: f64| secs / 2000.0 / lanes * 1e9;
        let ifma = |secs: f64| 4.0 * (n * n) as f64 * 2000.0 / secs;
        println!(
            "{bits:>5}-bit (N = {n:>3}) product: zmm {:>6.1} ns/lane ({:.2e} IFMA/s)  ymm {:>6.1} ns/lane ({:.2e} IFMA/s); \
             squaring: zmm {:>6.1} ns/lane, ymm {:>6.1} ns/lane; measured shape: {}",
            per_lane(z, 8.0),
            ifma(z),
            per_lane(y, 4.0),
            ifma(y),
            per_lane(zs, 8.0),
            per_lane(ys, 4.0),
            measured_shape(t, n).name()
        );
    }
}
