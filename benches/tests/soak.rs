//! The short soak: four threads share each available backend (not one that only emulates its
//! hardware here) for about a second and a half of mixed valid, invalid and malformed jobs;
//! every result must be the right one and resident memory must not grow past the bound of
//! `SoakReport::passed`. The long run is `batch-speed --soak SECONDS`.

use std::time::Duration;

#[test]
fn soak_every_backend_briefly() {
    let mut soaked = 0;
    for b in batchsig::backend::all_backends() {
        if let batch_core::Availability::Unavailable(why) = b.availability() {
            eprintln!("soak: skipped on {}: {why}", b.name());
            continue;
        }
        if b.is_emulated() {
            // wgpu on a software adapter: one round of four threads takes about a minute
            // there; its results are checked by its own tests, the soak by `--soak` on a GPU.
            eprintln!(
                "soak: skipped on {}: emulated here ({})",
                b.name(),
                b.description()
            );
            continue;
        }
        let r = batch_bench::soak::soak(b, 4, Duration::from_millis(1500));
        eprintln!("soak: {r:?}");
        assert!(r.rounds >= 8, "{}: only {} rounds", r.backend, r.rounds);
        assert!(r.passed(), "{r:#?}");
        soaked += 1;
    }
    assert!(soaked >= 1, "no backend available to soak");
}

/// The soak's checks can fail: a backend whose every `k·G` is off the curve (caught by the
/// scheme as a fault, so its signatures are errors) must be reported, not soaked quietly.
#[test]
fn soak_reports_a_broken_backend() {
    use batch_core::{AffinePoint, Backend, Curve, EcUint, Error, Forward, JobResult};

    #[derive(Debug)]
    struct OffCurve(batch_scalar::ScalarBackend);
    impl Forward for OffCurve {
        fn inner(&self) -> &dyn Backend {
            &self.0
        }
        fn name(&self) -> &'static str {
            "off-curve"
        }
        fn description(&self) -> String {
            "scalar with every k·G moved off the curve".into()
        }
        fn mul_base(&self, c: Curve, k: &[EcUint]) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            let mut r = self.0.mul_base(c, k)?;
            for p in r.iter_mut().flatten() {
                p.y.0[0] ^= 1;
            }
            Ok(r)
        }
    }
    let r = batch_bench::soak::soak(
        std::sync::Arc::new(OffCurve(batch_scalar::ScalarBackend::new())),
        2,
        Duration::from_millis(100),
    );
    assert!(!r.passed(), "{r:#?}");
    assert!(
        r.failures.iter().any(|f| f.contains("signature")),
        "{:#?}",
        r.failures
    );
}
