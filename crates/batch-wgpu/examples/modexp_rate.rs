//! Rough modexp throughput of the wgpu backend on whatever adapter wgpu picks (set
//! `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`): RSA CRT-half exponentiations, modulus of `bits`
//! bits with an exponent as long as the modulus, one modulus per batch (one RSA key).
//! Pipeline compilation is timed separately (a warm-up batch).
//!
//! `cargo run -p batch-wgpu --example modexp_rate -- [bits] [batch]` (defaults 1024, 256)
use std::time::Instant;

use batch_core::dev::{modexp_bases, modexp_exponents, random_modulus, rng};
use batch_core::{Availability, Backend, ModexpJob};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let bits = args.next().unwrap_or(1024);
    let batch = args.next().unwrap_or(256);
    let b = batch_wgpu::WgpuBackend::new();
    if let Availability::Unavailable(why) = b.availability() {
        eprintln!("wgpu backend unavailable: {why}");
        std::process::exit(1);
    }
    println!("{}", b.description());
    let mut r = rng(1);
    let m = random_modulus(&mut r, bits);
    let bases = modexp_bases(&mut r, &m, batch + 4);
    let exps = modexp_exponents(&mut r, bits.div_ceil(64), batch + 3);
    let jobs: Vec<ModexpJob<'_>> = (0..batch)
        .map(|i| ModexpJob {
            base: &bases[i + 4],
            exponent: &exps[i + 3],
            modulus: 0,
        })
        .collect();
    let t = Instant::now();
    b.modexp(&[&m], &jobs[..1]).expect("warm-up");
    println!(
        "warm-up (pipeline compilation + 1 job): {:.2?}",
        t.elapsed()
    );
    let t = Instant::now();
    let out = b.modexp(&[&m], &jobs).expect("batch");
    let dt = t.elapsed();
    assert!(out.iter().all(|r| r.is_ok()));
    println!(
        "{bits}-bit modexp (constant-time), batch {batch}: {dt:.2?}, {:.1} ops/s",
        batch as f64 / dt.as_secs_f64()
    );
}
