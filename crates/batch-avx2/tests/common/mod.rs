//! Shared by the AVX2 test files: the backend, or a loud skip (a failure under `CI=true`).
use batch_avx2::Avx2Backend;
use batch_core::{Availability, Backend};

/// The AVX2 backend if this CPU has AVX2. Otherwise prints why the test did not run, or
/// panics when `CI=true` (or `BATCHSIG_REQUIRE_AVX2` is set): CI must not pass by skipping.
pub fn avx2_or_skip(what: &str) -> Option<Avx2Backend> {
    let b = Avx2Backend::with_threads(2).expect("thread pool");
    match b.availability() {
        Availability::Available => Some(b),
        Availability::Unavailable(why) => {
            let ci = std::env::var("CI")
                .map(|v| v == "true" || v == "1")
                .unwrap_or(false);
            if ci || std::env::var("BATCHSIG_REQUIRE_AVX2").is_ok() {
                panic!("{what}: AVX2 backend unavailable ({why}); required because CI=true or BATCHSIG_REQUIRE_AVX2 is set");
            }
            eprintln!("SKIPPED {what}: AVX2 backend unavailable ({why}); set BATCHSIG_REQUIRE_AVX2=1 to make this a failure");
            // Without AVX2 every call must fail for the batch, never compute.
            let err = b.mul_base(batch_core::Curve::P256, &[]).unwrap_err();
            assert!(matches!(err, batch_core::Error::Unavailable(_)), "{err:?}");
            None
        }
    }
}
