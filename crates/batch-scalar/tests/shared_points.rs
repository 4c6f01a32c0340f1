//! Verification batches with repeated public points take the shared-point path (a comb table
//! per point); each job must come out exactly as when it runs alone (the interleaved wNAF
//! path, itself checked against RustCrypto in `ecc_vs_rustcrypto.rs`), at group sizes around
//! the threshold and well past it.
use batch_core::dev::check_shared_points_vs_reference;
use batch_scalar::ecc::SHARED_POINT_MIN;
use batch_scalar::ScalarBackend;

#[test]
fn shared_points_match_single_jobs() {
    let b = ScalarBackend::new();
    for (i, per_key) in [SHARED_POINT_MIN - 1, SHARED_POINT_MIN, 40]
        .into_iter()
        .enumerate()
    {
        check_shared_points_vs_reference(&b, &b, per_key, 31 + i as u64);
    }
}
