//! Runs the shared equivalence helper (what the AVX2 and wgpu backends will be checked with)
//! on the scalar backend itself: one thread against the global pool. This checks the helper's
//! edge cases and bad-job handling end to end, and that splitting a batch across threads and
//! chunks never changes a result.
use batch_core::dev::{check_backend_vs_reference, BATCH_SIZES};
use batch_core::Curve;
use batch_scalar::ScalarBackend;

#[test]
fn scalar_single_thread_matches_thread_pool() {
    let one = ScalarBackend::with_threads(1).unwrap();
    let pool = ScalarBackend::new();
    check_backend_vs_reference(&pool, &one, &Curve::ALL, &[2048], &BATCH_SIZES[..9], 7);
}
