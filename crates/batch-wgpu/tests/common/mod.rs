//! Shared by the wgpu test files: the backend, or a loud skip (a failure under `CI=true`).
#![allow(dead_code)]
use batch_core::{Availability, Backend};
use batch_wgpu::{WgpuBackend, WgpuOptions};

/// The wgpu backend on the adapter wgpu's environment variables choose, if there is one.
/// Otherwise prints why the test did not run, or panics when `CI=true` (or
/// `BATCHSIG_REQUIRE_GPU` is set): CI must not pass by skipping.
/// Tests in one binary share one backend, so each shader variant is compiled once (on
/// lavapipe a variant's pipelines take seconds to build).
pub fn wgpu_or_skip(what: &str) -> Option<WgpuBackend> {
    static SHARED: std::sync::OnceLock<WgpuBackend> = std::sync::OnceLock::new();
    let b = SHARED
        .get_or_init(|| WgpuBackend::with_options(WgpuOptions::from_env()))
        .clone();
    check(what, b)
}

/// The same adapter with the portable 16×16-bit product path forced (`int64: false`): the
/// path every adapter without `SHADER_INT64` runs. Shared like [`wgpu_or_skip`].
pub fn wgpu_portable_or_skip(what: &str) -> Option<WgpuBackend> {
    static SHARED: std::sync::OnceLock<WgpuBackend> = std::sync::OnceLock::new();
    let b = SHARED
        .get_or_init(|| {
            WgpuBackend::with_options(WgpuOptions {
                int64: false,
                ..WgpuOptions::from_env()
            })
        })
        .clone();
    check(what, b)
}

/// Whether CI (or `BATCHSIG_REQUIRE_GPU`) demands the GPU tests run.
pub fn required() -> bool {
    std::env::var("CI")
        .map(|v| v == "true" || v == "1")
        .unwrap_or(false)
        || std::env::var("BATCHSIG_REQUIRE_GPU").is_ok()
}

fn check(what: &str, b: WgpuBackend) -> Option<WgpuBackend> {
    match b.availability() {
        Availability::Available => {
            eprintln!("{what}: running on {}", b.description());
            Some(b)
        }
        Availability::Unavailable(why) => {
            if required() {
                panic!(
                    "{what}: wgpu backend unavailable ({why}); required because CI=true or BATCHSIG_REQUIRE_GPU is set \
                     (install Mesa's software adapter: apt-get install mesa-vulkan-drivers)"
                );
            }
            eprintln!(
                "SKIPPED {what}: wgpu backend unavailable ({why}); install mesa-vulkan-drivers for the software \
                 adapter, set BATCHSIG_REQUIRE_GPU=1 to make this a failure"
            );
            None
        }
    }
}
