//! Shared by the AVX-512 test files: the backend in each register form, or a loud skip.
use batch_avx512::{Avx512Backend, Lanes};
use batch_core::{Availability, Backend};

/// The IFMA backend in each register form (8 lanes `zmm` with products for squarings or the
/// squaring kernel, 4 lanes `ymm`; the default `Measured` uses one of them per width) if this CPU has
/// AVX-512 IFMA. Otherwise prints one `skipped: no AVX-512 IFMA on this CPU` line, or panics
/// when `BATCHSIG_REQUIRE_AVX512` is set. (On a CPU with IFMA these tests always run, CI or
/// not; a CI machine without it cannot run them, so `CI=true` alone does not fail them.)
pub fn ifma_or_skip(what: &str) -> Option<[Avx512Backend; 3]> {
    let b = Avx512Backend::with_threads(2).expect("thread pool");
    match b.availability() {
        Availability::Available => Some([
            b.clone().with_lanes(Lanes::Eight),
            b.clone().with_lanes(Lanes::EightSquare),
            b.with_lanes(Lanes::Four),
        ]),
        Availability::Unavailable(why) => {
            if std::env::var("BATCHSIG_REQUIRE_AVX512").is_ok() {
                panic!("{what}: AVX-512 backend unavailable ({why}); required because BATCHSIG_REQUIRE_AVX512 is set");
            }
            eprintln!("skipped: no AVX-512 IFMA on this CPU ({what}: {why})");
            // Without IFMA every call must fail for the batch, never compute.
            let err = b.modexp(&[], &[]).unwrap_err();
            assert!(matches!(err, batch_core::Error::Unavailable(_)), "{err:?}");
            None
        }
    }
}

/// [`ifma_or_skip`]'s backends in the register forms the curve code distinguishes (`zmm`,
/// `ymm`: the squaring choice is the exponentiation's only).
#[allow(dead_code)] // used by some of the test files that include this module
pub fn ifma_curves_or_skip(what: &str) -> Option<[Avx512Backend; 2]> {
    ifma_or_skip(what).map(|[eight, _, four]| [eight, four])
}
