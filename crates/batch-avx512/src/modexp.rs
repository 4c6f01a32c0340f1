//! Batched modular exponentiation, eight (or four) jobs per register.
//!
//! Representation: each modulus is prepared once per batch ([`ModulusDigits`]: 52-bit digits,
//! `−m⁻¹ mod 2^52`, `R mod m`, `R² mod m` for the smallest kernel width `N` in
//! [`KERNEL_DIGITS`] with `2^(52·N) > 4m`). batch-core's `groups` driver buckets valid jobs
//! by kernel width and exponent length (both public) into groups of 4 or 8 (the register
//! form per width); the lanes of a group may have different moduli, bases and exponents.
//! A leftover of at most [`few_max`] jobs (widths up to [`FEW_MAX_DIGITS`]) runs in the
//! horizontal form instead (`crate::horizontal`: one number along a register, so one job fills
//! it; a single RSA-2048 signature 2 355 → 4 020/s, a single verification 41 k → 103 k/s on
//! Sapphire Rapids), except three or four constant-time jobs of 20, 30 or 40 digits, one
//! 4-lane `ymm` group ([`QUAD_IN_LANES`]); above that width a leftover of at most
//! [`scalar_tail_max`] jobs runs on the scalar kernel instead of a padded group — see there
//! for the measurement.
//!
//! Constant-time jobs use a fixed window over every bit of the (zero-padded) exponent limbs;
//! the lookup reads every table entry and keeps one per lane by mask. `_vartime` jobs
//! square-and-multiply over the significant bits of the longest exponent in the group,
//! multiplying all lanes and keeping the product where a lane's bit is set.
//! Results are canonical, with the modulus's limb count; invalid jobs get the same errors as
//! the scalar backend, in the same order of checks.

use std::sync::OnceLock;

use batch_core::groups::{modexp_in_groups, LaneKernel};
use batch_core::num::{bits_vartime, window};
use batch_core::{Error, JobResult, ModexpJob, ModulusCache};

use crate::digits::{modulus_digits, modulus_digits_vartime, to_digits, ModulusDigits};
use crate::field::{load, lookup, store, unit, Moduli, GENERATED_SQUARING};
use crate::simd::{amm, ams};
use crate::simd::{Ifma, Lanes, Y4, Z8};

/// A group of at most this many jobs (the tail of a bucket) runs on the scalar kernel
/// instead of a padded SIMD group. Measured on Zen 4 (`examples/ifmabench.rs`, one thread):
/// a lane costs about a sixth of a scalar exponentiation in either form, so a 4-lane group
/// (≈ 0.65 scalar jobs) beats scalar even for one job, and an 8-lane group (≈ 1.3) from two.
pub fn scalar_tail_max(lanes: usize) -> usize {
    if lanes <= 4 {
        0
    } else {
        1
    }
}

/// The widest kernel the horizontal form (`crate::horizontal`) serves: 80 digits, ten `zmm`
/// registers a number (RSA-4096 verification, the halves of RSA-8192).
pub const FEW_MAX_DIGITS: usize = 80;

/// A leftover of at most this many jobs at kernel width `digits` runs in the horizontal form
/// (`crate::horizontal`, one number along a register) instead of a padded group of `lanes`;
/// `BATCHSIG_AVX512_FEW=k` sets it (0: never).
///
/// Measured on Sapphire Rapids, one thread (docs/PERF.md): a job in the horizontal form costs
/// about a quarter of an 8-lane group at 20 digits (its word-serial chain is latency-bound
/// there), a fifth at 30, and about an eighth — as much as its lane — from 40 digits on, where
/// two interleaved jobs fill the IFMA units.
pub fn few_max(digits: usize, lanes: usize) -> usize {
    static ENV: OnceLock<Option<usize>> = OnceLock::new();
    let env = ENV.get_or_init(|| std::env::var("BATCHSIG_AVX512_FEW").ok()?.parse().ok());
    if digits > FEW_MAX_DIGITS {
        return 0;
    }
    let measured = match digits {
        0..=20 => lanes / 2,
        21..=30 => lanes * 5 / 8,
        _ => lanes - 1,
    };
    env.unwrap_or(measured).min(lanes - 1)
}

/// The kernel width whose horizontal form runs in `ymm` registers: 20 digits (RSA-2048's CRT
/// halves) fill five `ymm` exactly, where three `zmm` carry four padding digits through every
/// product, and an IFMA on a `ymm` costs half of one on a `zmm` on Zen 4 and Intel's
/// AVX-512 cores alike. Zen 4, one signature at a time: 3 050 → 3 400/s (docs/PERF.md). The
/// other widths waste no more than a digit or two a register, so they stay in `zmm`, whose
/// four-job interleave fits the register file (five `ymm` a number do not: measured slower).
pub const FEW_YMM_DIGITS: usize = 20;
const _: () = assert!(FEW_YMM_DIGITS.is_multiple_of(4));

/// How the few-job form runs: by default three or four constant-time jobs at a width with a
/// squaring kernel as one 4-lane `ymm` group ([`QUAD_IN_LANES`]), the rest in the horizontal
/// form, in `ymm` at [`FEW_YMM_DIGITS`]; `BATCHSIG_AVX512_FEW_FORM=pairs` keeps every few-job
/// call horizontal, `=zmm` also runs [`FEW_YMM_DIGITS`] in `zmm` (both for before/after
/// measurements).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FewForm {
    Default,
    Pairs,
    Zmm,
}

fn few_form() -> FewForm {
    static ENV: OnceLock<FewForm> = OnceLock::new();
    *ENV.get_or_init(
        || match std::env::var("BATCHSIG_AVX512_FEW_FORM").as_deref() {
            Ok("zmm") => FewForm::Zmm,
            Ok("pairs") => FewForm::Pairs,
            _ => FewForm::Default,
        },
    )
}

/// Three or four constant-time jobs at a width with a generated squaring kernel
/// ([`GENERATED_SQUARING`]: 20, 30, 40 digits, the CRT halves of RSA-2048, -3072, -4096) run as
/// one 4-lane `ymm` group (padded with copies of the last job) rather than horizontally. On
/// Zen 4 a lane of a `ymm` group costs 54 ns a squaring and 62 ns a product at 20 digits
/// (`examples/ifmabench.rs`), a job in a horizontal pair about 89 ns a product (one pair's
/// product 178 ns): four jobs cost about 0.6 of two pairs, three about 0.8, two in four lanes
/// more than a pair. Two signatures at a time, Zen 4 (docs/PERF.md): RSA-2048 ~3 500 →
/// ~5 300/s, RSA-3072 1 334 → 1 924, RSA-4096 626 → 778. `_vartime` jobs stay horizontal:
/// RSA-2048 verifications (40 digits) three or four at a time measured slower in the group.
pub const QUAD_IN_LANES: core::ops::RangeInclusive<usize> = 3..=4;

/// `bases[j]^exps[j] mod mods[j]` for a few jobs of kernel width `n` ≤ [`FEW_MAX_DIGITS`] in
/// the horizontal form, four or two at a time (`crate::horizontal`; `ymm` registers at
/// [`FEW_YMM_DIGITS`], `zmm` otherwise) — except [`QUAD_IN_LANES`] constant-time jobs at the
/// squaring kernel's widths, one 4-lane group; canonical limbs.
pub fn modexp_few(
    t: Ifma,
    n: usize,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    let form = few_form();
    if !vartime
        && GENERATED_SQUARING.contains(&n)
        && form == FewForm::Default
        && QUAD_IN_LANES.contains(&mods.len())
    {
        // padded as the group driver pads a short group: copies of the last job
        let pad = |k: usize| k.min(mods.len() - 1);
        let m: Vec<&ModulusDigits> = (0..4).map(|k| mods[pad(k)]).collect();
        let b: Vec<&[u64]> = (0..4).map(|k| bases[pad(k)]).collect();
        let e: Vec<&[u64]> = (0..4).map(|k| exps[pad(k)]).collect();
        let mut out = run_group(Form::Y4(t.y4()), true, n, &m, &b, &e, vartime);
        out.truncate(mods.len());
        return out;
    }
    let ymm = n == FEW_YMM_DIGITS && form != FewForm::Zmm;
    modexp_few_form(t, ymm, n, mods, bases, exps, vartime)
}

/// [`modexp_few`] in the register form asked for: `ymm` (only at [`FEW_YMM_DIGITS`]) or `zmm`.
pub fn modexp_few_form(
    t: Ifma,
    ymm: bool,
    n: usize,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    use crate::simd::modexp_few as few;
    if ymm {
        assert_eq!(
            n, FEW_YMM_DIGITS,
            "the ymm horizontal form is built for one width"
        );
        // four digits a `ymm` register
        return few::<_, { FEW_YMM_DIGITS / 4 }>(t.y4(), n, mods, bases, exps, vartime);
    }
    let s = t.z8();
    match n.div_ceil(8) {
        1 => few::<_, 1>(s, n, mods, bases, exps, vartime),
        2 => few::<_, 2>(s, n, mods, bases, exps, vartime),
        3 => few::<_, 3>(s, n, mods, bases, exps, vartime),
        4 => few::<_, 4>(s, n, mods, bases, exps, vartime),
        5 => few::<_, 5>(s, n, mods, bases, exps, vartime),
        8 => few::<_, 8>(s, n, mods, bases, exps, vartime),
        10 => few::<_, 10>(s, n, mods, bases, exps, vartime),
        _ => unreachable!("widths up to FEW_MAX_DIGITS come from KERNEL_DIGITS"),
    }
}

/// Kernel widths in digits: the curve fields (5, 8, 11), CRT halves of RSA-2048 … 15360
/// (20, 30, 40, 74, 148), full moduli of RSA-2048 … 15360 for verification (40, 60, 80,
/// 148, 296), and a few sizes between. A modulus runs on the smallest that holds it.
pub const KERNEL_DIGITS: [usize; 13] = [5, 8, 11, 20, 30, 40, 60, 74, 80, 100, 148, 200, 296];

/// The kernel width for a modulus of `bits` bits.
pub fn kernel_digits(bits: usize) -> usize {
    batch_core::num::digits::kernel_width(&KERNEL_DIGITS, bits, crate::digits::DIGIT_BITS)
}

/// Which register form a batch runs in.
#[derive(Clone, Copy, Debug)]
pub enum Form {
    Z8(Z8),
    Y4(Y4),
}

impl Form {
    pub fn lanes(self) -> usize {
        match self {
            Form::Z8(_) => Z8::LANES,
            Form::Y4(_) => Y4::LANES,
        }
    }
}

/// How one kernel width runs: the register form, and whether squarings take the generated
/// squaring kernel ([`GENERATED_SQUARING`] widths only; the product elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Four lanes in `ymm`, generated squaring.
    Four,
    /// Eight lanes in `zmm`, squarings by the product kernel.
    Eight,
    /// Eight lanes in `zmm`, generated squaring.
    EightSquare,
}

impl Shape {
    pub fn lanes(self) -> usize {
        match self {
            Shape::Four => 4,
            Shape::Eight | Shape::EightSquare => 8,
        }
    }

    /// Whether squarings run the dedicated kernel (where the width has one).
    pub fn squares(self) -> bool {
        !matches!(self, Shape::Eight)
    }

    /// For descriptions: `ymm`, `zmm`, `zmm+sqr`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Four => "ymm",
            Shape::Eight => "zmm",
            Shape::EightSquare => "zmm+sqr",
        }
    }

    fn form(self, t: Ifma) -> Form {
        match self {
            Shape::Four => Form::Y4(t.y4()),
            Shape::Eight | Shape::EightSquare => Form::Z8(t.z8()),
        }
    }
}

/// The shape [`crate::Lanes::Measured`] runs width `n` in: the fastest of the candidates on
/// this CPU, measured the first time the width is asked for and cached for the process.
///
/// Which form wins depends on the core: Zen 4 issues one `zmm` or two `ymm` IFMA per cycle
/// (the same lane throughput) and its `zmm` squaring spills, so `ymm` wins up to 40 digits;
/// Sapphire Rapids issues two `zmm` IFMA per cycle, so `zmm` with the squaring kernel runs
/// about 1.5× faster than `ymm` there (docs/PERF.md). A table keyed by CPU model would miss
/// the next core; a measurement does not. The measurement is a chain of four squarings and
/// a product per repetition (an exponentiation's mix), each candidate timed three times,
/// alternated, best time per lane kept: about 1 ms per width (a few at the widest). Every
/// shape computes the same results, so a measurement disturbed by load costs speed, never
/// correctness.
pub fn measured_shape(t: Ifma, n: usize) -> Shape {
    static CACHE: [OnceLock<Shape>; KERNEL_DIGITS.len()] =
        [const { OnceLock::new() }; KERNEL_DIGITS.len()];
    let i = KERNEL_DIGITS
        .iter()
        .position(|&d| d == n)
        .expect("widths come from KERNEL_DIGITS");
    *CACHE[i].get_or_init(|| measure_shape(t, n))
}

fn measure_shape(t: Ifma, n: usize) -> Shape {
    let candidates: &[Shape] = if GENERATED_SQUARING.contains(&n) {
        &[Shape::Four, Shape::Eight, Shape::EightSquare]
    } else {
        // without a squaring kernel EightSquare is Eight
        &[Shape::Four, Shape::Eight]
    };
    // about 4·10^5 multiply-adds a trial: ~0.1 ms here, a few ms a width at the widest
    let reps = (20_000 / (n * n)).max(2);
    let mut best = [f64::MAX; 3];
    for _ in 0..3 {
        for (b, &sh) in best.iter_mut().zip(candidates) {
            let secs = crate::simd::chain_seconds(t, sh, n, reps, (4, 1));
            *b = b.min(secs / sh.lanes() as f64);
        }
    }
    let (i, _) = best[..candidates.len()]
        .iter()
        .enumerate()
        .fold(
            (0, f64::MAX),
            |acc, (i, &x)| if x < acc.1 { (i, x) } else { acc },
        );
    candidates[i]
}

/// The batch on the current rayon pool, through batch-core's lane-group driver; `lanes`
/// chooses the register form per kernel width.
pub fn modexp_batch(
    t: Ifma,
    lanes: crate::Lanes,
    moduli: &[&[u64]],
    caches: Option<&[&ModulusCache]>,
    jobs: &[ModexpJob<'_>],
    vartime: bool,
) -> Vec<JobResult<Vec<u64>>> {
    modexp_in_groups(&IfmaKernel { t, lanes }, moduli, caches, jobs, vartime)
}

struct IfmaKernel {
    t: Ifma,
    lanes: crate::Lanes,
}

impl IfmaKernel {
    fn shape(&self, digits: usize) -> Shape {
        match self.lanes {
            crate::Lanes::Four => Shape::Four,
            crate::Lanes::Eight => Shape::Eight,
            crate::Lanes::EightSquare => Shape::EightSquare,
            crate::Lanes::Measured => measured_shape(self.t, digits),
        }
    }
}

impl LaneKernel for IfmaKernel {
    fn width(&self, bits: usize) -> usize {
        kernel_digits(bits)
    }
    fn prepare(&self, m: &[u64], digits: usize, vartime: bool) -> Result<ModulusDigits, Error> {
        if vartime {
            modulus_digits_vartime(m, digits)
        } else {
            modulus_digits(m, digits)
        }
    }
    fn digit_bits(&self) -> usize {
        crate::digits::DIGIT_BITS
    }
    fn lanes(&self, digits: usize) -> usize {
        self.shape(digits).lanes()
    }
    fn scalar_tail_max(&self, lanes: usize) -> usize {
        scalar_tail_max(lanes)
    }
    fn few_max(&self, digits: usize, lanes: usize) -> usize {
        few_max(digits, lanes)
    }
    fn run_few(
        &self,
        n: usize,
        mods: &[&ModulusDigits],
        bases: &[&[u64]],
        exps: &[&[u64]],
        vartime: bool,
    ) -> Vec<Vec<u64>> {
        modexp_few(self.t, n, mods, bases, exps, vartime)
    }
    fn run_group(
        &self,
        n: usize,
        mods: &[&ModulusDigits],
        bases: &[&[u64]],
        exps: &[&[u64]],
        vartime: bool,
    ) -> Vec<Vec<u64>> {
        let shape = self.shape(n);
        run_group(
            shape.form(self.t),
            shape.squares(),
            n,
            mods,
            bases,
            exps,
            vartime,
        )
    }
}

/// Expands `$body` with the const `N` bound to the kernel width `$n` (one of
/// [`KERNEL_DIGITS`]).
macro_rules! by_width {
    ($n:expr, $N:ident => $body:expr) => {
        match $n {
            5 => {
                const $N: usize = 5;
                $body
            }
            8 => {
                const $N: usize = 8;
                $body
            }
            11 => {
                const $N: usize = 11;
                $body
            }
            20 => {
                const $N: usize = 20;
                $body
            }
            30 => {
                const $N: usize = 30;
                $body
            }
            40 => {
                const $N: usize = 40;
                $body
            }
            60 => {
                const $N: usize = 60;
                $body
            }
            74 => {
                const $N: usize = 74;
                $body
            }
            80 => {
                const $N: usize = 80;
                $body
            }
            100 => {
                const $N: usize = 100;
                $body
            }
            148 => {
                const $N: usize = 148;
                $body
            }
            200 => {
                const $N: usize = 200;
                $body
            }
            296 => {
                const $N: usize = 296;
                $body
            }
            _ => unreachable!("widths come from KERNEL_DIGITS"),
        }
    };
}
pub(crate) use by_width;

fn run_group(
    form: Form,
    sqr: bool,
    n: usize,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    use crate::simd::modexp_group;
    by_width!(n, N => match form {
        Form::Z8(s) => modexp_group::<Z8, N>(s, sqr, mods, bases, exps, vartime),
        Form::Y4(s) => modexp_group::<Y4, N>(s, sqr, mods, bases, exps, vartime),
    })
}

/// One group: `bases[l]^exps[l] mod mods[l]`, canonical limbs per lane.
/// Constant-time in bases and exponent values unless `vartime`. `sqr`: squarings by the
/// generated squaring kernel where the width has one.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn modexp_group_ifma<S: Lanes, const N: usize>(
    s: S,
    sqr: bool,
    mods: &[&ModulusDigits],
    bases: &[&[u64]],
    exps: &[&[u64]],
    vartime: bool,
) -> Vec<Vec<u64>> {
    let ms: Vec<&[u64]> = mods.iter().map(|m| m.m.as_slice()).collect();
    let k0: Vec<u64> = mods.iter().map(|m| m.minv).collect();
    let md = Moduli::<S, N> {
        m: load(s, &ms),
        k0: s.from_lanes(&k0),
    };
    let one: [S::V; N] = load(
        s,
        &mods.iter().map(|m| m.one.as_slice()).collect::<Vec<_>>(),
    );
    let r2: [S::V; N] = load(s, &mods.iter().map(|m| m.r2.as_slice()).collect::<Vec<_>>());
    let bd: Vec<Vec<u64>> = bases.iter().map(|b| to_digits(b, N)).collect();
    let plain = load(s, &bd.iter().map(|d| d.as_slice()).collect::<Vec<_>>());
    // base·R mod m, < 2m
    let b = amm(s, &plain, &r2, &md);
    let out = if vartime {
        pow_vartime(s, sqr, &b, &plain, &one, exps, &md)
    } else {
        amm(s, &pow(s, sqr, &b, &one, exps, &md), &unit(s), &md)
    };
    let out = store(s, &out);
    mods.iter().zip(&out).map(|(m, d)| m.canonical(d)).collect()
}

/// `a²·R⁻¹`: the generated squaring kernel if `sqr` and the width has one, else the product
/// (which of the two is faster depends on the CPU and the register form: [`measured_shape`]).
#[inline(always)]
pub(crate) fn square<S: Lanes, const N: usize>(
    s: S,
    sqr: bool,
    a: &[S::V; N],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    if sqr && GENERATED_SQUARING.contains(&N) {
        ams(s, a, md)
    } else {
        amm(s, a, a, md)
    }
}

/// Fixed-window exponentiation over every bit of the exponent limbs (lane exponents may
/// differ; their limb count is public). `b`, `one` in Montgomery form.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn pow<S: Lanes, const N: usize>(
    s: S,
    sqr: bool,
    b: &[S::V; N],
    one: &[S::V; N],
    exps: &[&[u64]],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    let limbs = exps.iter().map(|e| e.len()).max().unwrap_or(0);
    let bits = 64 * limbs;
    // Same window table as the scalar backend.
    let w = batch_core::num::dyn_monty::window_for(bits);
    let mut table: Vec<[S::V; N]> = Vec::with_capacity(1 << w);
    table.push(*one);
    table.push(*b);
    for i in 2..1 << w {
        let next = amm(s, &table[i - 1], b, md);
        table.push(next);
    }
    let windows = bits.div_ceil(w);
    let mut acc = *one;
    let mut idx = [0u64; 8];
    for k in (0..windows).rev() {
        for (x, e) in idx.iter_mut().zip(exps) {
            *x = window(e, k * w, w);
        }
        let entry = lookup(s, &table, s.from_lanes(&idx[..S::LANES]));
        if k == windows - 1 {
            acc = entry; // acc is one: skip the squarings and the product
        } else {
            for _ in 0..w {
                acc = square(s, sqr, &acc, md);
            }
            acc = amm(s, &acc, &entry, md);
        }
    }
    acc
}

/// Left-to-right square-and-multiply over the longest exponent's significant bits; a lane
/// keeps the product only where its bit is set. Variable-time in the exponents. Returns the
/// power out of Montgomery form (below `2m`): no product by 1 at the top bit, and the last
/// bit's product, by the plain base `bp` (`x·R · b / R`) or by 1, is also the conversion out.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn pow_vartime<S: Lanes, const N: usize>(
    s: S,
    sqr: bool,
    b: &[S::V; N],
    bp: &[S::V; N],
    one: &[S::V; N],
    exps: &[&[u64]],
    md: &Moduli<S, N>,
) -> [S::V; N] {
    let bits = exps.iter().map(|e| bits_vartime(e)).max().unwrap_or(0);
    let bit = |i: usize| {
        let mut lane_bits = [0u64; 8];
        for (x, e) in lane_bits.iter_mut().zip(exps) {
            *x = window(e, i, 1);
        }
        lane_bits
    };
    if bits == 0 {
        return amm(s, one, &unit(s), md);
    }
    // the top bit: b in the lanes that have it, 1 in the others (no product by 1)
    let mut acc = select_bits(s, one, b, &bit(bits - 1)[..S::LANES]);
    for i in (1..bits - 1).rev() {
        acc = square(s, sqr, &acc, md);
        let lb = bit(i);
        if lb[..S::LANES].iter().all(|&x| x == 0) {
            continue;
        }
        let t = amm(s, &acc, b, md);
        acc = select_bits(s, &acc, &t, &lb[..S::LANES]);
    }
    if bits == 1 {
        return amm(s, &acc, &unit(s), md);
    }
    // bit 0 leaves Montgomery form: × the plain base where it is set, × 1 elsewhere
    acc = square(s, sqr, &acc, md);
    amm(
        s,
        &acc,
        &select_bits(s, &unit(s), bp, &bit(0)[..S::LANES]),
        md,
    )
}

/// `a` in the lanes whose (public) bit is 0, `b` in those whose bit is 1.
#[inline(always)]
fn select_bits<S: Lanes, const N: usize>(
    s: S,
    a: &[S::V; N],
    b: &[S::V; N],
    lane_bits: &[u64],
) -> [S::V; N] {
    if lane_bits.iter().all(|&x| x == 0) {
        return *a;
    }
    if lane_bits.iter().all(|&x| x == 1) {
        return *b;
    }
    let hit = s.eq(s.from_lanes(lane_bits), s.splat(1));
    // public bits, but `opaque` all the same: this is inlined into the kernel that also runs
    // the constant-time path, whose built code `scripts/masked-store-check.sh` checks for
    // masked stores
    core::array::from_fn(|j| s.opaque(s.select(a[j], b[j], hit)))
}
