//! batch-wgpu: a GPU backend through wgpu's compute pipelines (Vulkan, GL, and — with the
//! matching wgpu features — Metal and DX12).
//!
//! - [`modexp`]: batched modular exponentiation in WGSL (`shaders/bigint.wgsl`,
//!   `modexp_io.wgsl`, then `montgomery_regs.wgsl` + `modexp_regs.wgsl` up to 64 limbs, or
//!   `montgomery.wgsl` + `modexp.wgsl` above): 32-bit limbs, Montgomery CIOS, one invocation
//!   per job, fixed 4-bit windows with full-table masked scans for the constant-time path.
//!   Up to 2048-bit moduli (RSA CRT halves to RSA-4096, full RSA-2048 moduli for
//!   verification) the working set (operands, accumulator, running power, window table) is
//!   in function-scope arrays with every limb loop written out; larger moduli keep their
//!   numbers in a storage buffer. Each batch chunk runs as a short sequence of dispatches.
//! - Products ([`shaders::Arith`]): u64 arithmetic where the adapter offers `SHADER_INT64`
//!   (`shaders/mul_int64.wgsl`), else 16×16-bit partial products (`mul_portable.wgsl`; WGSL's
//!   core has no u64 and no multiply-high). `WgpuOptions::int64 = false` forces the portable one.
//! - [`ecc`]: `k·G`, `k·Q` and `u₁·G + u₂·Q` on P-224/256/384/521 in WGSL (`shaders/field.wgsl`,
//!   `point.wgsl`, `scalar_mul.wgsl`): field elements in registers (function-scope arrays,
//!   every limb loop written out, the curve's constants composed in), complete
//!   Renes–Costello–Batina formulas generated from `batch_core::rcb` ([`ecc::formulas`]),
//!   signed 3-bit windows over an affine fixed-base table for `k·G` and 4-bit windows over a
//!   per-job table for `k·Q`, full-table scans; one dispatch per chunk (cut into several on
//!   llvmpipe, whose loop limit a P-384/P-521 product loop would pass); results made affine
//!   on the GPU by one more dispatch (`shaders/normalize.wgsl`, one inversion per workgroup)
//!   or on the host ([`Normalize`]; the host on a CPU adapter), and checked on the host.
//!
//! The GPU context (instance, adapter, device, pipelines, per-curve constant buffers) is built
//! on first use and reused; without an adapter the backend reports itself unavailable with the
//! reason and every call fails for the batch — it never panics. A batch is split into chunks
//! that fit the device's limits; each chunk is submitted before the previous one is read back
//! and checked.
//!
//! ```no_run
//! use batch_core::{Backend, Curve, EcUint};
//! let gpu = batch_wgpu::WgpuBackend::new(); // WGPU_BACKEND / WGPU_ADAPTER_NAME choose the adapter
//! if gpu.availability().is_available() {
//!     let points = gpu.mul_base(Curve::P256, &[EcUint::ONE; 1000]).unwrap();
//!     assert_eq!(points[0], Ok(Curve::P256.generator()));
//! }
//! ```
#![forbid(unsafe_code)]

mod context;
pub mod ecc;
pub mod modexp;
pub mod shaders;

use std::sync::{Arc, OnceLock};

use batch_core::backend::check_batch;
use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob};

use context::GpuContext;
pub use context::{Normalize, WgpuOptions};
/// The wgpu version this backend is built with (for [`WgpuOptions::backends`]).
pub use wgpu;

/// The wgpu backend. Cheap to create; the device is opened on first use.
#[derive(Clone)]
pub struct WgpuBackend {
    options: WgpuOptions,
    context: Arc<OnceLock<Result<Arc<GpuContext>, String>>>,
    max_chunk_jobs: Option<usize>,
    loop_budget: Option<usize>,
    shared_point_min: Option<usize>,
    normalize: Option<Normalize>,
}

impl core::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WgpuBackend")
            .field("options", &self.options)
            .field("context", &self.context.get())
            .field("max_chunk_jobs", &self.max_chunk_jobs)
            .field("loop_budget", &self.loop_budget)
            .field("shared_point_min", &self.shared_point_min)
            .field("normalize", &self.normalize)
            .finish()
    }
}

impl Default for WgpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl WgpuBackend {
    /// Adapter chosen by wgpu's environment variables (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`,
    /// `WGPU_POWER_PREF`) or wgpu's default.
    pub fn new() -> Self {
        Self::with_options(WgpuOptions::from_env())
    }

    /// Explicit options (tests force backends, adapter names and small chunks).
    pub fn with_options(options: WgpuOptions) -> Self {
        Self {
            options,
            context: Arc::new(OnceLock::new()),
            max_chunk_jobs: None,
            loop_budget: None,
            shared_point_min: None,
            normalize: None,
        }
    }

    /// The same backend and device, with at most `jobs` jobs per dispatch below the device's
    /// own limits (tests force small chunks to exercise the split path).
    pub fn with_max_chunk_jobs(&self, jobs: usize) -> Self {
        Self {
            max_chunk_jobs: Some(jobs.max(1)),
            ..self.clone()
        }
    }

    /// The same backend and device, with EC scalar multiplications cut into dispatches of at
    /// most `iterations` loop iterations per invocation, as on llvmpipe but tighter (tests
    /// exercise the state kept between dispatches on the curve that otherwise needs one).
    pub fn with_loop_budget(&self, iterations: usize) -> Self {
        Self {
            loop_budget: Some(iterations),
            ..self.clone()
        }
    }

    /// The same backend and device, with verification jobs under one point run on a table
    /// for that point from `jobs` jobs a point instead of [`ecc::shared_point_min`]
    /// (`usize::MAX`: never). For tests and for measuring the threshold.
    pub fn with_shared_point_min(&self, jobs: usize) -> Self {
        Self {
            shared_point_min: Some(jobs),
            ..self.clone()
        }
    }

    /// The same backend and device, with EC results made affine where `normalize` says
    /// instead of where the device's default ([`Normalize::for_device_type`], or
    /// `BATCHSIG_WGPU_NORMALIZE`) does. For tests and for measuring both.
    pub fn with_normalize(&self, normalize: Normalize) -> Self {
        Self {
            normalize: Some(normalize),
            ..self.clone()
        }
    }

    fn ec_limits(&self) -> ecc::Limits {
        ecc::Limits {
            max_chunk_jobs: self.max_chunk_jobs,
            loop_budget: self.loop_budget,
            shared_point_min: self.shared_point_min,
            normalize: self.normalize,
        }
    }

    /// Destroys this backend's device, as a driver reset or a removed GPU would: every later
    /// call fails its batch with an error. For tests of the device-loss path.
    pub fn destroy_device(&self) {
        if let Ok(ctx) = self.context() {
            ctx.destroy();
        }
    }

    fn context(&self) -> Result<&Arc<GpuContext>, Error> {
        self.context
            .get_or_init(|| {
                no_panic(|| GpuContext::new(&self.options).map_err(Error::Unavailable))
                    .map_err(|e| match e {
                        Error::Unavailable(why) => why,
                        other => other.to_string(),
                    })
                    .map(Arc::new)
            })
            .as_ref()
            .map_err(|why| Error::Unavailable(format!("wgpu: {why}")))
    }
}

/// Runs `f`, turning a panic inside wgpu (its GL backend panics on a context-lock timeout, for
/// one) into an error for the batch: a backend failure must never take the caller down.
fn no_panic<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Error::Backend(format!("wgpu panicked: {why}")))
    })
}

impl Backend for WgpuBackend {
    fn name(&self) -> &'static str {
        "wgpu"
    }

    fn description(&self) -> String {
        match self.context() {
            Ok(ctx) => format!(
                "GPU via wgpu: {}; 32-bit limbs, Montgomery CIOS, one invocation per job; \
                 EC results made affine on the {}",
                ctx.describe_adapter(),
                match self.normalize.unwrap_or(ctx.normalize) {
                    Normalize::Gpu => "GPU",
                    Normalize::Host => "host",
                }
            ),
            Err(e) => format!("GPU via wgpu: {e}"),
        }
    }

    fn availability(&self) -> Availability {
        match self.context() {
            Ok(_) => Availability::Available,
            Err(Error::Unavailable(why)) => Availability::Unavailable(why),
            Err(e) => Availability::Unavailable(e.to_string()),
        }
    }

    fn is_emulated(&self) -> bool {
        self.context()
            .is_ok_and(|ctx| ctx.info.device_type == wgpu::DeviceType::Cpu)
    }

    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let ctx = self.context()?;
        check_batch(jobs.len(), &[])?;
        no_panic(|| modexp::modexp_batch(ctx, moduli, jobs, false, self.max_chunk_jobs))
    }

    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let ctx = self.context()?;
        check_batch(jobs.len(), &[])?;
        no_panic(|| modexp::modexp_batch(ctx, moduli, jobs, true, self.max_chunk_jobs))
    }

    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let ctx = self.context()?;
        check_batch(scalars.len(), &[])?;
        no_panic(|| ecc::mul_base(ctx, curve, scalars, self.ec_limits()))
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let ctx = self.context()?;
        check_batch(scalars.len(), &[("points", points.len())])?;
        no_panic(|| ecc::mul_point(ctx, curve, points, scalars, self.ec_limits()))
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let ctx = self.context()?;
        check_batch(u1.len(), &[("u2", u2.len()), ("points", points.len())])?;
        no_panic(|| ecc::mul_double_vartime(ctx, curve, u1, u2, points, self.ec_limits()))
    }
}
