//! Times the Montgomery kernels (ns per multiplication and per squaring) at the curve and RSA
//! CRT-half widths. Each figure is the fastest of several runs, which filters out most of the
//! noise of a shared machine.
//!
//! `cargo run --release -p batch-core --example montbench`            all widths
//! `cargo run --release -p batch-core --example montbench -- 16 sqr`   one loop only (e.g. under
//! `valgrind --tool=callgrind`), optionally followed by an iteration count.
//! `cargo run --release -p batch-core --example montbench -- p256|p384|p521 [sqr] [iters]`   a
//! curve's field through its constant parameters (`batch_core::curve::P256.p`, …), as the
//! curve code calls it: the modulus is a compile-time constant there.
use batch_core::num::{MontyParams, Uint};
use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 7;

fn setup<const L: usize>() -> (MontyParams<L>, Uint<L>, Uint<L>) {
    let mut m = Uint::<L>([0x9e37_79b9_7f4a_7c15; L]);
    m.0[0] |= 1;
    m.0[L - 1] |= 1 << 63;
    let p = MontyParams::new(m);
    let a = p.to_monty(&Uint([0x1234_5678_9abc_def1; L]));
    let b = p.to_monty(&Uint([0x0fed_cba9_8765_4321; L]));
    (p, a, b)
}

/// Runs `iters` dependent operations; `sqr` picks squaring over multiplication.
#[inline(never)]
fn run<const L: usize>(
    p: &MontyParams<L>,
    mut a: Uint<L>,
    b: &Uint<L>,
    sqr: bool,
    iters: usize,
) -> Uint<L> {
    if sqr {
        for _ in 0..iters {
            a = p.square(&a);
        }
    } else {
        for _ in 0..iters {
            a = p.mul(&a, b);
        }
    }
    a
}

fn best_ns<const L: usize>(sqr: bool) -> f64 {
    let (p, a, b) = setup::<L>();
    let iters = (400_000 / (L * L)).max(200);
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let t = Instant::now();
        black_box(run(black_box(&p), black_box(a), &b, sqr, iters));
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    best
}

fn bench<const L: usize>() {
    let mul = best_ns::<L>(false);
    let sqr = best_ns::<L>(true);
    println!(
        "L={L:>3} ({:>5} bits): mul {mul:>9.1} ns  square {sqr:>9.1} ns",
        64 * L
    );
}

fn one<const L: usize>(sqr: bool, iters: usize) {
    let (p, a, b) = setup::<L>();
    let r = run(black_box(&p), black_box(a), &b, sqr, iters);
    println!(
        "L={L} {} x{iters}: {:016x}",
        if sqr { "sqr" } else { "mul" },
        r.0[0]
    );
}

/// [`run`] on a curve's constant field parameters, so the modulus folds as it does in the
/// curve code.
#[inline(never)]
fn run_curve<const L: usize>(
    c: &'static batch_core::curve::CurveDef<L>,
    mut a: Uint<L>,
    b: &Uint<L>,
    sqr: bool,
    iters: usize,
) -> Uint<L> {
    let p = &c.p;
    if sqr {
        for _ in 0..iters {
            a = p.square(&a);
        }
    } else {
        for _ in 0..iters {
            a = p.mul(&a, b);
        }
    }
    a
}

fn curve<const L: usize>(c: &'static batch_core::curve::CurveDef<L>, sqr: bool, iters: usize) {
    let p = &c.p;
    let a = p.to_monty(&Uint([0x1234_5678_9abc_def1; L]));
    let b = p.to_monty(&Uint([0x0fed_cba9_8765_4321; L]));
    let mut best = f64::INFINITY;
    let mut r = a;
    for _ in 0..RUNS {
        let t = Instant::now();
        r = black_box(run_curve(c, black_box(a), &b, sqr, iters));
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    println!(
        "{:?} {} x{iters}: {:016x}, {best:.1} ns",
        c.curve,
        if sqr { "sqr" } else { "mul" },
        r.0[0]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(l) = args.first() {
        let sqr = args.get(1).is_some_and(|s| s == "sqr");
        let iters = args
            .get(2)
            .map_or(10_000, |s| s.parse().expect("iteration count"));
        match l.as_str() {
            "p256" => curve(&batch_core::curve::P256, sqr, iters),
            "p384" => curve(&batch_core::curve::P384, sqr, iters),
            "p521" => curve(&batch_core::curve::P521, sqr, iters),
            "4" => one::<4>(sqr, iters),
            "6" => one::<6>(sqr, iters),
            "9" => one::<9>(sqr, iters),
            "16" => one::<16>(sqr, iters),
            "24" => one::<24>(sqr, iters),
            "32" => one::<32>(sqr, iters),
            "60" => one::<60>(sqr, iters),
            "120" => one::<120>(sqr, iters),
            _ => panic!("width must be one of 4 6 9 16 24 32 60 120"),
        }
        return;
    }
    bench::<4>();
    bench::<6>();
    bench::<9>();
    bench::<16>();
    bench::<24>();
    bench::<32>();
    bench::<60>();
    bench::<120>();
}
