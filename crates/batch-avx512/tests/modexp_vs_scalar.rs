//! Modular exponentiation on the IFMA backend, every register form (zmm, zmm with the
//! squaring kernel, ymm), against num-bigint (the shared helper: edges 0, 1, m−1, m−2,
//! exponents 0/1/all-ones, two moduli per batch, bad jobs) and against the scalar backend at every RSA size, constant-time and `_vartime`.
mod common;

use batch_core::dev::{
    check_backend_vs_reference, check_modexp_vs_num_bigint, modexp_bases, random_modulus, rng,
    to_big,
};
use batch_core::{Backend, ModexpJob};
use batch_scalar::ScalarBackend;

#[test]
fn modexp_vs_num_bigint_small_and_curve_sizes() {
    let Some(bs) = common::ifma_or_skip("modexp_vs_num_bigint_small_and_curve_sizes") else {
        return;
    };
    for b in &bs {
        // every kernel width up to 11 digits, odd sizes at the edges of a width
        check_modexp_vs_num_bigint(
            b,
            &[3, 64, 200, 256, 258, 259, 384, 414, 415, 521, 570],
            &[0, 1, 7, 8, 9],
            1,
        );
    }
}

#[test]
fn modexp_vs_num_bigint_rsa_halves() {
    let Some(bs) = common::ifma_or_skip("modexp_vs_num_bigint_rsa_halves") else {
        return;
    };
    for b in &bs {
        check_modexp_vs_num_bigint(b, &[1024], &[1, 3, 4, 5, 7, 8, 9, 17], 2);
        check_modexp_vs_num_bigint(b, &[1038, 1039, 1536, 2048], &[1, 9], 3);
        check_modexp_vs_num_bigint(b, &[3840], &[8], 4);
    }
}

#[test]
fn modexp_vs_scalar_rsa_sizes() {
    let Some(bs) = common::ifma_or_skip("modexp_vs_scalar_rsa_sizes") else {
        return;
    };
    let s = ScalarBackend::new();
    // RSA-2048 (1024-bit halves) over batch sizes around both lane counts and one large batch
    check_backend_vs_reference(
        &s,
        &bs[0],
        &[],
        &[2048],
        &[0, 1, 3, 4, 5, 7, 8, 9, 16, 17, 1023],
        5,
    );
    check_backend_vs_reference(&s, &bs[1], &[], &[2048], &[3, 4, 5, 9], 5);
    for b in &bs {
        check_backend_vs_reference(&s, b, &[], &[3072, 4096, 7680], &[1, 8, 9], 6);
    }
    // RSA-15360: 7680-bit halves, once, one full group
    check_backend_vs_reference(&s, &bs[0], &[], &[15360], &[8], 7);
}

/// Verification-style `_vartime` on full moduli (2048 … 15360 bits), eight different moduli
/// of mixed sizes in one batch, exponents e = 65537, e = 3 with a leading zero limb, and a
/// long one; plus the constant-time path on the same batch up to 4096 bits.
#[test]
fn modexp_vartime_vs_scalar_mixed_full_moduli() {
    let Some(bs) = common::ifma_or_skip("modexp_vartime_vs_scalar_mixed_full_moduli") else {
        return;
    };
    let s = ScalarBackend::new();
    let mut r = rng(8);
    let sizes = [
        2048usize, 2048, 2047, 3072, 4096, 7680, 15360, 2048, 3071, 4095,
    ];
    let moduli: Vec<Vec<u64>> = sizes
        .iter()
        .map(|&bits| random_modulus(&mut r, bits))
        .collect();
    let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
    let e65537 = [65537u64];
    let e3 = [3u64, 0];
    let long = [u64::MAX, 0x1234_5678];
    let n_jobs = 3 * moduli.len();
    let bases: Vec<Vec<u64>> = (0..n_jobs)
        .map(|i| {
            modexp_bases(&mut r, &moduli[i % moduli.len()], 6)
                .pop()
                .unwrap()
        })
        .collect();
    let jobs: Vec<ModexpJob<'_>> = (0..n_jobs)
        .map(|i| ModexpJob {
            base: &bases[i],
            exponent: match i % 3 {
                0 => &e65537[..],
                1 => &e3[..],
                _ => &long[..],
            },
            modulus: i % moduli.len(),
        })
        .collect();
    let want_vt = s.modexp_vartime(&mrefs, &jobs).unwrap();
    let small: Vec<ModexpJob<'_>> = jobs
        .iter()
        .copied()
        .filter(|j| sizes[j.modulus] <= 4096)
        .collect();
    let want_ct = s.modexp(&mrefs, &small).unwrap();
    for b in &bs {
        assert_eq!(
            b.modexp_vartime(&mrefs, &jobs).unwrap(),
            want_vt,
            "{}",
            b.description()
        );
        assert_eq!(
            b.modexp(&mrefs, &small).unwrap(),
            want_ct,
            "{}",
            b.description()
        );
    }
}

/// Constant-time exponents with leading zero limbs and exponents of different limb counts in
/// one batch (different buckets), base m − 1 and all-ones exponents, against num-bigint.
#[test]
fn modexp_exponent_shapes_vs_num_bigint() {
    let Some(bs) = common::ifma_or_skip("modexp_exponent_shapes_vs_num_bigint") else {
        return;
    };
    let mut r = rng(9);
    let m = random_modulus(&mut r, 1024);
    let mut m_minus_1 = m.clone();
    m_minus_1[0] -= 1;
    let lead_zero = [0x8000_0000_0000_0001u64, 0, 0, 0];
    let ones = [u64::MAX; 16];
    let short = [7u64];
    let exps: [&[u64]; 3] = [&lead_zero, &ones, &short];
    let bases: Vec<Vec<u64>> = (0..27)
        .map(|i| {
            if i % 4 == 0 {
                m_minus_1.clone()
            } else {
                modexp_bases(&mut r, &m, 6).pop().unwrap()
            }
        })
        .collect();
    let jobs: Vec<ModexpJob<'_>> = (0..27)
        .map(|i| ModexpJob {
            base: &bases[i],
            exponent: exps[i % 3],
            modulus: 0,
        })
        .collect();
    for b in &bs {
        for vartime in [false, true] {
            let got = if vartime {
                b.modexp_vartime(&[&m], &jobs)
            } else {
                b.modexp(&[&m], &jobs)
            }
            .unwrap();
            for (i, (j, g)) in jobs.iter().zip(&got).enumerate() {
                let want = to_big(j.base).modpow(&to_big(j.exponent), &to_big(&m));
                assert_eq!(
                    to_big(g.as_ref().unwrap()),
                    want,
                    "{} job {i} vartime {vartime}",
                    b.description()
                );
            }
        }
    }
}

/// The default register form, `Lanes::Measured` (each width's shape timed on this CPU at first
/// use), against num-bigint at widths of each kind: curve-sized, CRT halves that have a
/// squaring kernel, full moduli that do not; batch sizes around both lane counts.
#[test]
fn measured_form_vs_num_bigint() {
    let Some([eight, _, _]) = common::ifma_or_skip("measured_form_vs_num_bigint") else {
        return;
    };
    let b = eight.with_lanes(batch_avx512::Lanes::Measured);
    check_modexp_vs_num_bigint(&b, &[256, 1024, 1536, 2048, 3072], &[1, 3, 4, 5, 8, 9], 11);
    eprintln!("{}", b.description());
}

/// The horizontal form (`batch_avx512::horizontal`: one number along a register, what a batch's
/// leftover jobs run on) directly, at every width it serves (5 … 80 digits, one to ten
/// registers; 20 digits in `ymm` too), one job, interleaved pairs and quadruples (one to six jobs
/// a call), constant-time and `_vartime`, against num-bigint; bases 0, 1, m−1 and random, exponents empty, zero, one,
/// all-ones and random of different lengths within a call.
#[test]
fn horizontal_form_vs_num_bigint() {
    use batch_avx512::digits::{modulus_digits, modulus_digits_vartime};
    use batch_avx512::modexp::{kernel_digits, modexp_few_form, FEW_MAX_DIGITS, FEW_YMM_DIGITS};
    if common::ifma_or_skip("horizontal_form_vs_num_bigint").is_none() {
        return;
    }
    let t = batch_avx512::simd::detect().expect("checked");
    let mut r = rng(12);
    let mut widths_seen = Vec::new();
    // every width, with moduli at the top of each width (the largest it holds: the result's
    // top digit and carries at their largest) and below it
    for bits in [
        3, 64, 258, 256, 259, 414, 415, 521, 570, 1024, 1038, 1039, 1536, 1558, 2048, 2078, 3072,
        3118, 3840, 3846, 4094, 4158,
    ] {
        let n = kernel_digits(bits);
        assert!(n <= FEW_MAX_DIGITS, "{bits} bits: {n} digits");
        widths_seen.push(n);
        let mods: Vec<Vec<u64>> = (0..6).map(|_| random_modulus(&mut r, bits)).collect();
        let limbs = mods[0].len();
        let mut bases: Vec<Vec<u64>> = mods
            .iter()
            .map(|m| modexp_bases(&mut r, m, 1).pop().unwrap())
            .collect();
        let mut m1 = mods[1].clone();
        m1[0] -= 1;
        let edge_bases = [
            vec![0u64; limbs],
            m1,
            vec![1u64],
            vec![0u64; 1],
            vec![1u64],
            vec![0u64; limbs],
        ];
        let ones = vec![u64::MAX; limbs];
        let short = vec![0x1_0001u64];
        let long: Vec<u64> = modexp_bases(&mut r, &mods[2], 1).pop().unwrap();
        let exp_sets: [[&[u64]; 6]; 3] = [
            [&long, &short, &ones, &short, &long, &ones],
            [&[], &[0, 0], &[1], &[1], &[], &[0]],
            [&ones, &long, &short, &long, &ones, &short],
        ];
        for (round, exps) in exp_sets.iter().enumerate() {
            if round == 1 {
                bases = edge_bases.to_vec();
            }
            for vartime in [false, true] {
                let md: Vec<_> = mods
                    .iter()
                    .map(|m| {
                        if vartime {
                            modulus_digits_vartime(m, n)
                        } else {
                            modulus_digits(m, n)
                        }
                        .unwrap()
                    })
                    .collect();
                let mdr: Vec<_> = md.iter().collect();
                let br: Vec<&[u64]> = bases.iter().map(Vec::as_slice).collect();
                // one to six jobs: single, pair, pair + single, quadruple (up to four registers a
                // number) or two pairs, and so on
                for k in 1..=6 {
                    // constant-time calls take exponents of one limb count; in the edge
                    // round (bases 0, m−1, 1) a full-length one, so the edges meet a real power
                    let ex: Vec<&[u64]> = if vartime {
                        exps[..k].to_vec()
                    } else if round == 1 {
                        vec![&long; k]
                    } else {
                        vec![exps[0]; k]
                    };
                    // both register forms where the width has a ymm one
                    for ymm in [false, true] {
                        if ymm && n != FEW_YMM_DIGITS {
                            continue;
                        }
                        let got = modexp_few_form(t, ymm, n, &mdr[..k], &br[..k], &ex, vartime);
                        for j in 0..k {
                            let want = to_big(br[j]).modpow(&to_big(ex[j]), &to_big(&mods[j]));
                            assert_eq!(
                                to_big(&got[j]),
                                want,
                                "{bits} bits, {n} digits, ymm {ymm}, round {round}, vartime {vartime}, {k} jobs, job {j}"
                            );
                            assert_eq!(got[j].len(), mods[j].len());
                        }
                    }
                }
            }
        }
    }
    widths_seen.sort();
    widths_seen.dedup();
    assert_eq!(widths_seen, [5, 8, 11, 20, 30, 40, 60, 74, 80]);
}

/// Per-key caches of the prepared moduli (`modexp_vartime_cached`): the same results as the
/// uncached call, cold and warm, from several threads at once, in every register form.
#[test]
fn cached_moduli_vs_uncached() {
    let Some(bs) = common::ifma_or_skip("cached_moduli_vs_uncached") else {
        return;
    };
    for b in &bs {
        batch_core::dev::check_modexp_cached(b, 13, true);
    }
}

/// Secret-modulus caches (`modexp_cached`, what a private key keeps for its CRT primes): the
/// same results as the uncached constant-time call, cold, warm, with other moduli's caches,
/// from several threads, in every register form; public caches are not used there.
#[test]
fn cached_secret_moduli_vs_uncached() {
    let Some(bs) = common::ifma_or_skip("cached_secret_moduli_vs_uncached") else {
        return;
    };
    for b in &bs {
        batch_core::dev::check_modexp_cached_secret(b, 14, true);
    }
}

/// The leftover paths through the backend on one thread, where a leftover of three or four
/// constant-time jobs of 20, 30 or 40 digits is one 4-lane `ymm` group (two threads split it
/// into pairs), one or two (and `_vartime` ones) horizontal calls: RSA-2048 halves in
/// batches of 1 … 7 and 9 … 12 jobs (leftovers of 1 … 4 beside a full group), RSA-3072 and
/// RSA-4096 halves in threes and fours, every register form, against num-bigint.
#[test]
fn leftovers_on_one_thread_vs_num_bigint() {
    let Some(bs) = common::ifma_or_skip("leftovers_on_one_thread_vs_num_bigint") else {
        return;
    };
    let one = batch_avx512::Avx512Backend::with_threads(1).expect("pool");
    for b in &bs {
        let b = one.clone().with_lanes(b.lanes());
        check_modexp_vs_num_bigint(&b, &[1024], &[1, 2, 3, 4, 5, 7, 9, 10, 11, 12], 14);
        check_modexp_vs_num_bigint(&b, &[2048], &[1, 3, 4, 12], 15);
        check_modexp_vs_num_bigint(&b, &[1536], &[3, 4], 16);
    }
}
