//! Modular exponentiation on the wgpu backend against num-bigint (the shared helper: edges
//! 0, 1, m−1, m−2, exponents 0/1/all-ones, two moduli per batch, bad jobs that fail alone) and
//! against the scalar backend. Sizes are kept small: on the software adapter (lavapipe, two
//! cores) one 1024-bit exponentiation takes milliseconds, a 3840-bit one much longer.
mod common;

use batch_core::dev::{
    check_backend_vs_reference, check_modexp_vs_num_bigint, modexp_bases, random_modulus, rng,
};
use batch_core::{Backend, ModexpJob};
use batch_scalar::ScalarBackend;

/// 1024-bit moduli (RSA-2048 CRT halves) around the workgroup size of 64, and small
/// moduli on the smallest variant.
#[test]
fn modexp_vs_num_bigint_1024() {
    let Some(b) = common::wgpu_or_skip("modexp_vs_num_bigint_1024") else {
        return;
    };
    check_modexp_vs_num_bigint(&b, &[1024], &[0, 1, 63, 64, 65], 1);
    check_modexp_vs_num_bigint(&b, &[3, 64, 200, 511], &[1, 5], 2);
}

/// The portable product path (16×16-bit partial products) on the same adapter, 1024-bit and
/// small moduli; the default path above is u64 products where the adapter has SHADER_INT64.
#[test]
fn modexp_portable_path_vs_num_bigint() {
    let Some(b) = common::wgpu_portable_or_skip("modexp_portable_path_vs_num_bigint") else {
        return;
    };
    assert!(
        b.description().contains("16×16-bit partial products"),
        "{}",
        b.description()
    );
    check_modexp_vs_num_bigint(&b, &[1024], &[1, 65], 8);
    check_modexp_vs_num_bigint(&b, &[3, 511], &[5], 9);
}

/// Under CI the default path must be the u64 one (lavapipe's Vulkan driver has SHADER_INT64),
/// so that both product paths are tested; elsewhere this only reports which path runs.
#[test]
fn default_path_uses_int64_where_offered() {
    let Some(b) = common::wgpu_or_skip("default_path_uses_int64_where_offered") else {
        return;
    };
    let d = b.description();
    if !d.contains("SHADER_INT64") {
        assert!(
            !common::required(),
            "CI must test the SHADER_INT64 path, but the adapter runs: {d}"
        );
        eprintln!("the adapter has no SHADER_INT64: only the portable path is tested here ({d})");
    }
}

/// 2048-bit moduli (RSA-4096 halves) and one small 3840-bit batch (RSA-7680 halves).
#[test]
fn modexp_vs_num_bigint_2048_and_3840() {
    let Some(b) = common::wgpu_or_skip("modexp_vs_num_bigint_2048_and_3840") else {
        return;
    };
    check_modexp_vs_num_bigint(&b, &[2048], &[1, 5], 3);
    check_modexp_vs_num_bigint(&b, &[3840], &[2], 4);
}

/// Batches split into chunks of 7 jobs (forced below the device limits) give the same
/// results as one dispatch would: the split path, with mixed variants in one batch.
#[test]
fn modexp_split_into_chunks_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("modexp_split_into_chunks_vs_scalar") else {
        return;
    };
    let b = b.with_max_chunk_jobs(7);
    let s = ScalarBackend::with_threads(1).unwrap();
    check_backend_vs_reference(&s, &b, &[], &[2048], &[0, 1, 6, 7, 8, 30], 5);
    // one batch mixing moduli of three variants (512, 1024 and 1536 bits) and exponent lengths
    let mut r = rng(6);
    let moduli: Vec<Vec<u64>> = [512usize, 1024, 1536, 1000]
        .iter()
        .map(|&bits| random_modulus(&mut r, bits))
        .collect();
    let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
    let bases: Vec<Vec<u64>> = (0..23)
        .map(|i| {
            modexp_bases(&mut r, &moduli[i % 4], 4 + i % 3)
                .pop()
                .unwrap()
        })
        .collect();
    let exps: [&[u64]; 3] = [&[65537], &[u64::MAX, 3], &[0x0123_4567_89ab_cdef; 8]];
    let jobs: Vec<ModexpJob<'_>> = (0..23)
        .map(|i| ModexpJob {
            base: &bases[i],
            exponent: exps[i % 3],
            modulus: (i * 7) % 4,
        })
        .collect();
    assert_eq!(
        b.modexp(&mrefs, &jobs).unwrap(),
        s.modexp(&mrefs, &jobs).unwrap()
    );
    assert_eq!(
        b.modexp_vartime(&mrefs, &jobs).unwrap(),
        s.modexp_vartime(&mrefs, &jobs).unwrap()
    );
}

/// Verification-style `_vartime` on full RSA-2048 … RSA-15360 moduli (e = 65537 and e = 3),
/// three moduli in one batch; the constant-time path on the same short exponents reaches the
/// widest variants (240 and 480 limbs) cheaply.
#[test]
fn modexp_full_moduli_short_exponents_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("modexp_full_moduli_short_exponents_vs_scalar") else {
        return;
    };
    let s = ScalarBackend::with_threads(1).unwrap();
    let mut r = rng(7);
    for bits in [2048usize, 4096, 7680, 15360] {
        let moduli: Vec<Vec<u64>> = (0..3).map(|_| random_modulus(&mut r, bits)).collect();
        let mrefs: Vec<&[u64]> = moduli.iter().map(|m| m.as_slice()).collect();
        let bases: Vec<Vec<u64>> = (0..6)
            .map(|i| modexp_bases(&mut r, &moduli[i % 3], 6).pop().unwrap())
            .collect();
        let jobs: Vec<ModexpJob<'_>> = (0..6)
            .map(|i| ModexpJob {
                base: &bases[i],
                exponent: if i % 2 == 0 { &[65537] } else { &[3, 0] },
                modulus: i % 3,
            })
            .collect();
        assert_eq!(
            b.modexp_vartime(&mrefs, &jobs).unwrap(),
            s.modexp_vartime(&mrefs, &jobs).unwrap(),
            "{bits}"
        );
        assert_eq!(
            b.modexp(&mrefs, &jobs).unwrap(),
            s.modexp(&mrefs, &jobs).unwrap(),
            "{bits}"
        );
    }
}

/// The register kernels' dispatch splits (`dispatch_plan` in `src/modexp.rs`): on 1536- and
/// 2048-bit moduli (48 and 64 limbs) a constant-time dispatch runs 229 and 175 whole windows,
/// a `_vartime` one about 618 and 465 bits, so exponents of 11, 15, 22 and 24 limbs end a
/// dispatch one window after a split, or mid-way, and 32 limbs is an RSA-4096 half. Each batch
/// pads to its longest exponent: random, all-ones, top bit only, 1 and 0, on random
/// bases and on 0, 1, m−1, m−2.
#[test]
fn modexp_register_split_points_vs_scalar() {
    let Some(b) = common::wgpu_or_skip("modexp_register_split_points_vs_scalar") else {
        return;
    };
    let s = ScalarBackend::with_threads(1).unwrap();
    let mut r = rng(8);
    for (bits, exp_limbs) in [
        (1536usize, 15usize),
        (1536, 24),
        (2048, 11),
        (2048, 22),
        (2048, 32),
    ] {
        let m = random_modulus(&mut r, bits);
        // 0, 1, m−1, m−2, then random
        let bases = modexp_bases(&mut r, &m, 8);
        let mut top = vec![0u64; exp_limbs];
        top[exp_limbs - 1] = 1 << 63;
        let exps = [
            batch_core::dev::modexp_exponents(&mut r, exp_limbs, 4)
                .pop()
                .unwrap(),
            vec![u64::MAX; exp_limbs],
            top,
            vec![1],
            vec![0],
        ];
        // (base, exponent) pairs: random bases with every exponent, edge bases with some
        let pairs = [
            (4, 0),
            (5, 1),
            (6, 2),
            (7, 3),
            (4, 4),
            (2, 0),
            (3, 1),
            (0, 4),
            (1, 2),
        ];
        let jobs: Vec<ModexpJob<'_>> = pairs
            .iter()
            .map(|&(i, e)| ModexpJob {
                base: &bases[i],
                exponent: &exps[e],
                modulus: 0,
            })
            .collect();
        let what = format!("{bits}-bit modulus, {exp_limbs}-limb exponents");
        assert_eq!(
            b.modexp(&[&m], &jobs).unwrap(),
            s.modexp(&[&m], &jobs).unwrap(),
            "{what}"
        );
        assert_eq!(
            b.modexp_vartime(&[&m], &jobs).unwrap(),
            s.modexp_vartime(&[&m], &jobs).unwrap(),
            "{what}, vartime"
        );
    }
}
