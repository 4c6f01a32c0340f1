//! Batched modular exponentiation, four jobs per register.
//!
//! Representation: each modulus is prepared once per batch ([`ModulusDigits`]: 28-bit digits,
//! `−m⁻¹ mod 2^28`, `R mod m`, `R² mod m` for the smallest kernel width `N` in
//! [`KERNEL_DIGITS`] with `2^(28·N) > 4m`). batch-core's `groups` driver buckets valid jobs
//! by kernel width and exponent length (both public), four at a time; the lanes of a group
//! may have different moduli, bases and exponents. Groups run in parallel on the current
//! rayon pool.
//!
//! Tails (measured, one core, CRT halves of 1024–3840 bits): a 4-lane group costs about as
//! much as 2.3–2.9 scalar exponentiations (the AVX2 kernel is 1.4–1.75× the scalar one per
//! job), so a group of three is padded (with copies of its last job, whose lanes are
//! dropped) while a tail of one or two jobs — a single RSA signature is two — runs on the
//! scalar kernel.
//!
//! Constant-time jobs use a fixed window over every bit of the (zero-padded) exponent limbs;
//! the lookup reads every table entry and keeps one per lane with compare masks. `_vartime`
//! jobs square-and-multiply over the significant bits of the longest exponent in the group,
//! multiplying all lanes and keeping the product where a lane's bit is set.
//! Results are canonical, with the modulus's limb count; invalid jobs get the same errors as
//! the scalar backend, in the same order of checks.

use batch_core::groups::{modexp_in_groups, LaneKernel};
use batch_core::num::{bits_vartime, window};
use batch_core::{JobResult, ModexpJob, ModulusCache};

use crate::digits::{to_digits, ModulusDigits};
use crate::field::{blend, from_lanes, load, lookup, mont_mul, mont_sqr, unit, Modulus4, V};
use crate::simd::{Adx, Avx2};

/// A group of at most this many jobs (the tail of a bucket) runs on the scalar kernel
/// (`batch-core`'s `DynMonty`, what `batch-scalar` runs) instead of a padded 4-lane group.
pub const SCALAR_TAIL_MAX: usize = 2;

/// Kernel widths in digits: the curve fields (10, 15, 20), CRT halves of RSA-2048 … 15360
/// (37, 55, 74, 138, 275), full moduli of RSA-2048 … 15360 for verification (74, 110, 147,
/// 275, 549), and a few sizes between. A modulus runs on the smallest that holds it.
pub const KERNEL_DIGITS: [usize; 13] = [10, 15, 20, 37, 55, 74, 110, 138, 147, 184, 275, 366, 549];

/// The kernel width for a modulus of `bits` bits.
pub fn kernel_digits(bits: usize) -> usize {
    batch_core::num::digits::kernel_width(&KERNEL_DIGITS, bits, crate::digits::DIGIT_BITS)
}

/// The batch on the current rayon pool, through batch-core's lane-group driver.
pub fn modexp_batch(
    t: Avx2,
    moduli: &[&[u64]],
    caches: Option<&[&ModulusCache]>,
    jobs: &[ModexpJob<'_>],
    vartime: bool,
) -> Vec<JobResult<Vec<u64>>> {
    modexp_in_groups(&Avx2Kernel(t, *crate::adx()), moduli, caches, jobs, vartime)
}

/// The AVX2 proof, and the `mulx`/`adx` one for the scalar tail where the CPU has it.
struct Avx2Kernel(Avx2, Option<Adx>);

impl LaneKernel for Avx2Kernel {
    fn width(&self, bits: usize) -> usize {
        kernel_digits(bits)
    }
    fn prepare(
        &self,
        m: &[u64],
        digits: usize,
        vartime: bool,
    ) -> Result<ModulusDigits, batch_core::Error> {
        if vartime {
            crate::digits::modulus_digits_vartime(m, digits)
        } else {
            crate::digits::modulus_digits(m, digits)
        }
    }
    fn digit_bits(&self) -> usize {
        crate::digits::DIGIT_BITS
    }
    fn lanes(&self, _digits: usize) -> usize {
        4
    }
    fn scalar_tail_max(&self, _lanes: usize) -> usize {
        SCALAR_TAIL_MAX
    }
    fn tail_kernel(&self) -> Option<&dyn batch_core::num::MontKernel> {
        self.1
            .as_ref()
            .map(|k| k as &dyn batch_core::num::MontKernel)
    }
    fn run_group(
        &self,
        n: usize,
        mods: &[&ModulusDigits],
        bases: &[&[u64]],
        exps: &[&[u64]],
        vartime: bool,
    ) -> Vec<Vec<u64>> {
        fn four<'a>(x: &[&'a [u64]]) -> [&'a [u64]; 4] {
            [x[0], x[1], x[2], x[3]]
        }
        run_group(
            self.0,
            n,
            [mods[0], mods[1], mods[2], mods[3]],
            four(bases),
            four(exps),
            vartime,
        )
        .into()
    }
}

macro_rules! by_width {
    ($n:expr, $f:ident::<N>($($arg:expr),*)) => {
        match $n {
            10 => $f::<10>($($arg),*),
            15 => $f::<15>($($arg),*),
            20 => $f::<20>($($arg),*),
            37 => $f::<37>($($arg),*),
            55 => $f::<55>($($arg),*),
            74 => $f::<74>($($arg),*),
            110 => $f::<110>($($arg),*),
            138 => $f::<138>($($arg),*),
            147 => $f::<147>($($arg),*),
            184 => $f::<184>($($arg),*),
            275 => $f::<275>($($arg),*),
            366 => $f::<366>($($arg),*),
            549 => $f::<549>($($arg),*),
            _ => unreachable!("widths come from KERNEL_DIGITS"),
        }
    };
}

fn run_group(
    t: Avx2,
    n: usize,
    mods: [&ModulusDigits; 4],
    bases: [&[u64]; 4],
    exps: [&[u64]; 4],
    vartime: bool,
) -> [Vec<u64>; 4] {
    use crate::simd::modexp_group;
    by_width!(n, modexp_group::<N>(t, mods, bases, exps, vartime))
}

/// One group of four: `bases[l]^exps[l] mod mods[l]`, canonical limbs per lane.
/// Constant-time in bases and exponent values unless `vartime`.
#[target_feature(enable = "avx2")]
pub fn modexp_group_avx2<const N: usize>(
    mods: [&ModulusDigits; 4],
    bases: [&[u64]; 4],
    exps: [&[u64]; 4],
    vartime: bool,
) -> [Vec<u64>; 4] {
    let md = Modulus4::<N> {
        m: load([&mods[0].m, &mods[1].m, &mods[2].m, &mods[3].m]),
        minv: from_lanes([mods[0].minv, mods[1].minv, mods[2].minv, mods[3].minv]),
    };
    let one: [V; N] = load([&mods[0].one, &mods[1].one, &mods[2].one, &mods[3].one]);
    let r2: [V; N] = load([&mods[0].r2, &mods[1].r2, &mods[2].r2, &mods[3].r2]);
    let bd = [
        to_digits(bases[0], N),
        to_digits(bases[1], N),
        to_digits(bases[2], N),
        to_digits(bases[3], N),
    ];
    // base·R mod m, < 2m
    let bp = load([&bd[0], &bd[1], &bd[2], &bd[3]]);
    let b = mont_mul(&bp, &r2, &md);
    let out = if vartime {
        pow_vartime(&b, &bp, &one, exps, &md)
    } else {
        mont_mul(&pow(&b, &one, exps, &md), &unit(), &md)
    };
    let out = crate::field::store(&out);
    [
        mods[0].canonical(&out[0]),
        mods[1].canonical(&out[1]),
        mods[2].canonical(&out[2]),
        mods[3].canonical(&out[3]),
    ]
}

/// Fixed-window exponentiation over every bit of the exponent limbs (lane exponents may
/// differ; their limb count is public). `b`, `one` in Montgomery form.
#[target_feature(enable = "avx2")]
fn pow<const N: usize>(b: &[V; N], one: &[V; N], exps: [&[u64]; 4], md: &Modulus4<N>) -> [V; N] {
    let limbs = exps.iter().map(|e| e.len()).max().unwrap_or(0);
    let bits = 64 * limbs;
    // Same window table as the scalar backend.
    let w = batch_core::num::dyn_monty::window_for(bits);
    let mut table: Vec<[V; N]> = Vec::with_capacity(1 << w);
    table.push(*one);
    table.push(*b);
    for i in 2..1 << w {
        let next = mont_mul(&table[i - 1], b, md);
        table.push(next);
    }
    let windows = bits.div_ceil(w);
    let mut acc = *one;
    for k in (0..windows).rev() {
        let idx = from_lanes(exps.map(|e| window(e, k * w, w)));
        let entry = lookup(&table, idx);
        if k == windows - 1 {
            acc = entry; // acc is one: skip the squarings and the product
        } else {
            for _ in 0..w {
                acc = mont_sqr(&acc, md);
            }
            acc = mont_mul(&acc, &entry, md);
        }
    }
    acc
}

/// Left-to-right square-and-multiply over the longest exponent's significant bits; a lane
/// keeps the product only where its bit is set. `b` is the base in Montgomery form, `bp` the
/// base itself; the result is **out of** Montgomery form (< 2m): the last bit's product by
/// `bp` leaves it, so an RSA verification (`e = 65537`) takes 16 squarings and 2 products
/// (the conversion in and the last bit) instead of 16 and 4. Variable-time in the exponents.
#[target_feature(enable = "avx2")]
fn pow_vartime<const N: usize>(
    b: &[V; N],
    bp: &[V; N],
    one: &[V; N],
    exps: [&[u64]; 4],
    md: &Modulus4<N>,
) -> [V; N] {
    let bits = exps.iter().map(|e| bits_vartime(e)).max().unwrap_or(0);
    let bit = |i: usize| exps.map(|e| window(e, i, 1));
    if bits == 0 {
        return mont_mul(one, &unit(), md);
    }
    // the top bit: b in the lanes that have it, 1 in the others (no product by 1)
    let mut acc = select(one, b, bit(bits - 1));
    for i in (1..bits - 1).rev() {
        acc = mont_sqr(&acc, md);
        let lane_bits = bit(i);
        if lane_bits == [0; 4] {
            continue;
        }
        acc = select(&acc, &mont_mul(&acc, b, md), lane_bits);
    }
    if bits == 1 {
        return mont_mul(&acc, &unit(), md);
    }
    // bit 0 leaves Montgomery form: × b itself (`x·R · b / R`) where it is set, × 1 elsewhere
    acc = mont_sqr(&acc, md);
    mont_mul(&acc, &select(&unit(), bp, bit(0)), md)
}

/// `a` in the lanes whose bit is 0, `b` in those whose bit is 1 (`bits` public).
#[target_feature(enable = "avx2")]
fn select<const N: usize>(a: &[V; N], b: &[V; N], bits: [u64; 4]) -> [V; N] {
    match bits {
        [0, 0, 0, 0] => *a,
        [1, 1, 1, 1] => *b,
        _ => {
            let mask = from_lanes(bits.map(|x| x.wrapping_neg()));
            core::array::from_fn(|j| blend(a[j], b[j], mask))
        }
    }
}
