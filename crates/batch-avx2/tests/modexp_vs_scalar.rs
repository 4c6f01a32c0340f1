//! Modular exponentiation on the AVX2 backend against num-bigint (the shared helper: edges
//! 0, 1, m−1, m−2, exponents 0/1/all-ones, two moduli per batch, bad jobs) and against the
//! scalar backend at every RSA CRT-half size, constant-time and `_vartime`.
mod common;

use batch_core::dev::{
    check_backend_vs_reference, check_modexp_vs_num_bigint, random_modulus, rng,
};
use batch_core::{Backend, ModexpJob};
use batch_scalar::ScalarBackend;

#[test]
fn modexp_vs_num_bigint_small_and_curve_sizes() {
    let Some(b) = common::avx2_or_skip("modexp_vs_num_bigint_small_and_curve_sizes") else {
        return;
    };
    // every kernel width up to 20 digits, odd sizes at the edges of a width
    check_modexp_vs_num_bigint(
        &b,
        &[3, 64, 200, 256, 278, 279, 384, 521, 558],
        &[0, 1, 3, 4, 5, 9],
        1,
    );
}

#[test]
fn modexp_vs_num_bigint_rsa_halves() {
    let Some(b) = common::avx2_or_skip("modexp_vs_num_bigint_rsa_halves") else {
        return;
    };
    check_modexp_vs_num_bigint(&b, &[1024], &[0, 1, 3, 4, 5, 63, 64, 65, 257], 2);
    check_modexp_vs_num_bigint(&b, &[1536, 2048], &[1, 3, 4, 5, 9], 3);
    check_modexp_vs_num_bigint(&b, &[3840], &[1, 5], 4);
}

#[test]
fn modexp_vs_scalar_rsa_sizes() {
    let Some(b) = common::avx2_or_skip("modexp_vs_scalar_rsa_sizes") else {
        return;
    };
    let s = ScalarBackend::new();
    // RSA-2048 (1024-bit halves) over the batch sizes around four lanes and one large batch
    check_backend_vs_reference(&s, &b, &[], &[2048], &[0, 1, 3, 4, 5, 7, 8, 9, 1023], 5);
    check_backend_vs_reference(&s, &b, &[], &[3072, 4096, 7680], &[1, 3, 4, 5], 6);
    // RSA-15360: 7680-bit halves, once, small batch
    check_backend_vs_reference(&s, &b, &[], &[15360], &[5], 7);
}

/// Verification-style `_vartime` on full moduli (2048 … 15360 bits, e = 65537 and e = 3),
/// four different moduli in one group, plus a group with unequal exponent lengths.
#[test]
fn modexp_vartime_vs_scalar_full_moduli() {
    let Some(b) = common::avx2_or_skip("modexp_vartime_vs_scalar_full_moduli") else {
        return;
    };
    let s = ScalarBackend::new();
    let mut r = rng(8);
    for bits in [2048usize, 3072, 4096, 7680, 15360] {
        let moduli: Vec<Vec<u64>> = (0..4).map(|_| random_modulus(&mut r, bits)).collect();
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let bases: Vec<Vec<u64>> = (0..6)
            .map(|i| {
                batch_core::dev::modexp_bases(&mut r, &moduli[i % 4], 6)
                    .pop()
                    .unwrap()
            })
            .collect();
        let e65537 = [65537u64];
        let e3 = [3u64, 0];
        let long = [u64::MAX, 0x1234_5678];
        let jobs: Vec<ModexpJob<'_>> = (0..6)
            .map(|i| ModexpJob {
                base: &bases[i],
                exponent: match i % 3 {
                    0 => &e65537[..],
                    1 => &e3[..],
                    _ => &long[..],
                },
                modulus: i % 4,
            })
            .collect();
        assert_eq!(
            b.modexp_vartime(&mrefs, &jobs).unwrap(),
            s.modexp_vartime(&mrefs, &jobs).unwrap(),
            "{bits}"
        );
        if bits <= 4096 {
            assert_eq!(
                b.modexp(&mrefs, &jobs).unwrap(),
                s.modexp(&mrefs, &jobs).unwrap(),
                "{bits}"
            );
        }
    }
}

/// Per-key caches of the prepared moduli (`modexp_vartime_cached`): the same results as the
/// uncached call, cold and warm, from several threads at once; and the scalar backend's
/// default (it ignores the caches) agrees too.
#[test]
fn cached_moduli_vs_uncached() {
    batch_core::dev::check_modexp_cached(&batch_scalar::ScalarBackend::new(), 13, false);
    let Some(b) = common::avx2_or_skip("cached_moduli_vs_uncached") else {
        return;
    };
    batch_core::dev::check_modexp_cached(&b, 13, true);
}

/// Secret-modulus caches (`modexp_cached`, what a private key keeps for its CRT primes): the
/// same results as the uncached constant-time call, cold, warm, with other moduli's caches,
/// from several threads; public caches are not used there; the scalar default agrees.
#[test]
fn cached_secret_moduli_vs_uncached() {
    batch_core::dev::check_modexp_cached_secret(&batch_scalar::ScalarBackend::new(), 14, false);
    let Some(b) = common::avx2_or_skip("cached_secret_moduli_vs_uncached") else {
        return;
    };
    batch_core::dev::check_modexp_cached_secret(&b, 14, true);
}
