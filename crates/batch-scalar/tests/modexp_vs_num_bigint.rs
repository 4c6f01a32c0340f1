//! The scalar backend's modular exponentiation against num-bigint, through the shared helper.
use batch_core::dev::{check_modexp_vs_num_bigint, BATCH_SIZES};
use batch_scalar::ScalarBackend;

#[test]
fn small_and_crt_half_sizes() {
    let b = ScalarBackend::new();
    check_modexp_vs_num_bigint(&b, &[64, 127, 256, 1024], &BATCH_SIZES[..8], 1);
    check_modexp_vs_num_bigint(&b, &[1536, 2048], &[0, 1, 5], 2);
}

#[test]
fn odd_widths_use_wider_kernels() {
    // Moduli that are not a whole number of limbs, or fall between kernel widths.
    check_modexp_vs_num_bigint(
        &ScalarBackend::with_threads(1).unwrap(),
        &[1000, 2047, 3000, 3840, 4096],
        &[2],
        3,
    );
}

#[test]
fn large_sizes() {
    check_modexp_vs_num_bigint(&ScalarBackend::new(), &[7680], &[2], 4);
}
