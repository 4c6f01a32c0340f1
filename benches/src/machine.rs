//! What the figures were measured on: CPU, cores, SIMD units, GPU adapter, OpenSSL.

use std::sync::Arc;

use batch_core::Backend;
use serde::Serialize;

/// The machine section of the report (printed as the header and written to the JSON).
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cpu: String,
    /// Logical CPUs the process may use.
    pub cores: usize,
    /// SIMD and bignum-relevant extensions present (x86-64: avx2, bmi2, adx, avx512*).
    pub simd: Vec<&'static str>,
    /// The GPU adapter as the GPU backend describes it (name, API, software or hardware),
    /// or why there is none.
    pub gpu: String,
    pub os: String,
    pub openssl: String,
}

/// The CPU model name (`/proc/cpuinfo` on Linux), or the architecture.
pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Extensions detected at run time.
pub fn simd_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($f:tt),*) => { $( if std::is_x86_feature_detected!($f) { out.push($f); } )* };
        }
        probe!(
            "sse4.2",
            "avx",
            "avx2",
            "bmi2",
            "adx",
            "avx512f",
            "avx512ifma",
            "avx512vl",
            "vpclmulqdq"
        );
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            out.push("neon");
        }
    }
    out
}

/// Describes this machine; `backends` supplies the GPU adapter line.
pub fn describe(backends: &[Arc<dyn Backend>]) -> Machine {
    let gpu = match backends.iter().find(|b| b.name() == "wgpu") {
        Some(b) => match b.availability() {
            batch_core::Availability::Available => b.description(),
            batch_core::Availability::Unavailable(why) => format!("none ({why})"),
        },
        None => "none (this build has no GPU backend)".to_string(),
    };
    Machine {
        cpu: cpu_name(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        simd: simd_features(),
        gpu,
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        openssl: crate::openssl::version().unwrap_or_else(|e| format!("n/a ({e})")),
    }
}
