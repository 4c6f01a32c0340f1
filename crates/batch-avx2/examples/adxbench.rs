//! Times the scalar tail's Montgomery kernels: batch-core's portable one against the
//! `mulx`/`adcx`/`adox` assembly (`batch_avx2::adx_kernel`), ns per multiplication and per
//! squaring, fastest of several runs, same process and inputs. The assembly is timed through
//! `MontKernel::mul` directly (without the final subtraction, a few ns), so the widths below
//! its `min_limbs`, where `MontyParams::mul_in` keeps the portable kernel, show why.
//!
//! `cargo run --release -p batch-avx2 --example adxbench`
use batch_core::num::{MontKernel, MontyParams, Uint};
use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 9;

fn best_ns<const L: usize>(k: Option<&dyn MontKernel>, sqr: bool) -> f64 {
    let mut m = Uint::<L>([0x9e37_79b9_7f4a_7c15; L]);
    m.0[0] |= 1;
    m.0[L - 1] |= 1 << 63;
    let p = MontyParams::new(m);
    let b = p.to_monty(&Uint([0x0fed_cba9_8765_4321; L]));
    let iters = (400_000 / (L * L)).max(200);
    // −m⁻¹ mod 2^64 by Newton's iteration
    let mut inv = m.0[0];
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m.0[0].wrapping_mul(inv)));
    }
    let m0inv = inv.wrapping_neg();
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let mut a = p.to_monty(&Uint([0x1234_5678_9abc_def1; L]));
        let t = Instant::now();
        for _ in 0..iters {
            a = match (k, sqr) {
                (None, true) => p.square(&a),
                (None, false) => p.mul(&a, &b),
                (Some(k), true) => {
                    let mut t = [0u64; L];
                    k.square(&mut t, &a.0, &m.0, m0inv);
                    Uint(t)
                }
                (Some(k), false) => {
                    let mut t = [0u64; L];
                    k.mul(&mut t, &a.0, &b.0, &m.0, m0inv);
                    Uint(t)
                }
            };
        }
        black_box(a);
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    best
}

fn bench<const L: usize>(k: &dyn MontKernel) {
    let (pm, ps) = (best_ns::<L>(None, false), best_ns::<L>(None, true));
    let (am, asq) = (best_ns::<L>(Some(k), false), best_ns::<L>(Some(k), true));
    println!(
        "L={L:>3} ({:>5} bits)  mul: portable {pm:>8.1} ns, adx {am:>8.1} ns ({:.2}x)  \
         square: portable {ps:>8.1} ns, adx {asq:>8.1} ns ({:.2}x)",
        64 * L,
        pm / am,
        ps / asq
    );
}

fn main() {
    let Some(k) = batch_avx2::adx_kernel() else {
        println!("skipped: this CPU lacks BMI2/ADX (or the force-fallback feature is on)");
        return;
    };
    bench::<4>(k);
    bench::<8>(k);
    bench::<16>(k);
    bench::<24>(k);
    bench::<32>(k);
    bench::<48>(k);
    bench::<64>(k);
    bench::<120>(k);
}
