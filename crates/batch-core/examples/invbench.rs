//! Times modular inversion three ways at the curve and RSA widths: Fermat (`a^(m−2)`, the
//! constant-time exponentiation; prime moduli only), safegcd constant-time
//! ([`MontyParams::inv`]) and safegcd variable-time ([`MontyParams::inv_vartime`]), plus the
//! constant-time Montgomery setup ([`MontyParams::new_ct`]) against the doubling one. Each
//! figure is the fastest of several runs (µs per operation). The RSA-size rows use fixed odd
//! composites, not primes: Fermat's figure there is the cost of the exponentiation (its result
//! is not an inverse), and the variable-time column, which stops early when the input shares a
//! factor with the modulus, is meaningful for the curve rows only.
//!
//! `cargo run --release -p batch-core --example invbench`
use batch_core::num::{MontyParams, Uint};
use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 5;

fn best(iters: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
    }
    best
}

fn row<const L: usize>(name: &str, m: Uint<L>, iters: usize) {
    let p = MontyParams::new_ct(&m);
    // A fixed input (a chain a ↦ a⁻¹ could reach a value sharing a factor with a composite
    // m, which the variable-time inversion then handles at once).
    let a = p.to_monty(&Uint([0x1234_5678_9abc_def1; L]));
    let fermat = best(iters, || {
        black_box(p.inv_prime(black_box(&a)));
    });
    let ct = best(iters, || {
        black_box(p.inv(black_box(&a)));
    });
    let vt = best(iters, || {
        black_box(p.inv_vartime(black_box(&a)));
    });
    let setup_dbl = best(iters.div_ceil(4), || {
        black_box(MontyParams::new_unchecked(black_box(m)));
    });
    let setup_ct = best(iters, || {
        black_box(MontyParams::new_ct(black_box(&m)));
    });
    println!(
        "{name:<10} {fermat:>10.2} {ct:>10.2} {vt:>10.2} {:>9.1}× {setup_dbl:>10.2} {setup_ct:>10.2}",
        fermat / ct
    );
}

/// A fixed odd `bits`-bit number (a prime where the width is a curve's).
fn odd<const L: usize>(bits: usize) -> Uint<L> {
    let mut m = Uint::<L>([0x9e37_79b9_7f4a_7c15; L]);
    for i in bits..64 * L {
        m.0[i / 64] &= !(1 << (i % 64));
    }
    m.0[(bits - 1) / 64] |= 1 << ((bits - 1) % 64);
    m.0[0] |= 1;
    m
}

fn main() {
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}   (µs)",
        "width", "Fermat", "safegcd", "sg vartime", "Fermat/sg", "setup dbl", "setup new"
    );
    let c = batch_core::curve::P256.p.modulus();
    row::<4>("P-256 p", *c, 4000);
    row::<4>("P-256 n", *batch_core::curve::P256.n.modulus(), 4000);
    row::<6>("P-384 p", *batch_core::curve::P384.p.modulus(), 2000);
    row::<9>("P-521 p", *batch_core::curve::P521.p.modulus(), 1000);
    row::<16>("1024-bit", odd::<16>(1024), 200);
    row::<24>("1536-bit", odd::<24>(1536), 100);
    row::<32>("2048-bit", odd::<32>(2048), 50);
}
