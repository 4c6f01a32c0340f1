//! The GPU context, built once per backend: instance, adapter, device, queue, the bind-group
//! layout shared by every shader (a uniform, three read-only inputs, results, scratch), the
//! compute pipelines, compiled on first use and cached per modexp variant and per curve, and
//! each curve's fixed-base table, uploaded once. [`GpuContext::run_chunks`] runs a batch's
//! chunks, submitting each before the previous one is read back.
//!
//! Adapter choice follows wgpu's environment variables: `WGPU_BACKEND` (e.g. `vulkan`, `gl`)
//! restricts the backends, `WGPU_ADAPTER_NAME` picks the first adapter whose name contains it
//! (case-insensitive), `WGPU_POWER_PREF` steers the default choice. Nothing here panics on a
//! missing or failing device: every failure is a `String` reason the caller turns into an
//! [`batch_core::Error`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::shaders;

/// How to find an adapter and size the work. [`WgpuOptions::from_env`] reads wgpu's environment variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgpuOptions {
    /// Backends to consider (`WGPU_BACKEND`, default: all compiled in).
    pub backends: wgpu::Backends,
    /// Substring of the adapter name to require (`WGPU_ADAPTER_NAME`).
    pub adapter_name: Option<String>,
    /// How long one submission may run before the batch fails with a timeout.
    pub timeout: Duration,
    /// Use u64 products where the adapter offers `SHADER_INT64` (default; `BATCHSIG_WGPU_INT64=0`
    /// turns it off). `false` forces the portable 16×16-bit path, which every adapter runs.
    pub int64: bool,
    /// Open the device with at most this storage-binding size (bytes) instead of the
    /// adapter's: a smaller device, so tests reach the device-limit split with small batches.
    pub max_storage_binding: Option<u32>,
    /// Where EC results are made affine (`BATCHSIG_WGPU_NORMALIZE=gpu` or `host`); `None`
    /// chooses by adapter ([`Normalize::for_device_type`]).
    pub normalize: Option<Normalize>,
}

/// Where the projective results of an EC chunk are made affine: on the host (one inversion
/// per `ecc::NORMALIZE_CHUNK` results, in parallel over rayon, while the GPU runs the next
/// chunk) or on the GPU (`shaders/normalize.wgsl`: one more dispatch per chunk, one
/// inversion per workgroup). Either way the host checks every result on the curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Normalize {
    Host,
    Gpu,
}

impl Normalize {
    /// The default for an adapter of type `t`: the host where the adapter is a CPU (on
    /// llvmpipe the GPU's work is the host's cores' work, and the host's normalisation
    /// measured cheaper there: docs/PERF.md), the GPU otherwise, where it takes the host's
    /// share of the work off the cores that also run the schemes.
    pub fn for_device_type(t: wgpu::DeviceType) -> Self {
        if t == wgpu::DeviceType::Cpu {
            Normalize::Host
        } else {
            Normalize::Gpu
        }
    }

    /// `gpu` or `host` (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "gpu" => Some(Normalize::Gpu),
            "host" => Some(Normalize::Host),
            _ => None,
        }
    }
}

impl Default for WgpuOptions {
    fn default() -> Self {
        Self {
            backends: wgpu::Backends::all(),
            adapter_name: None,
            timeout: Duration::from_secs(600),
            int64: true,
            max_storage_binding: None,
            normalize: None,
        }
    }
}

impl WgpuOptions {
    /// Options from `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `BATCHSIG_WGPU_INT64` and
    /// `BATCHSIG_WGPU_NORMALIZE` (an unknown value is ignored).
    pub fn from_env() -> Self {
        Self {
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all()),
            adapter_name: std::env::var("WGPU_ADAPTER_NAME")
                .ok()
                .filter(|s| !s.is_empty()),
            int64: std::env::var("BATCHSIG_WGPU_INT64").map_or(true, |v| v != "0" && v != "false"),
            normalize: std::env::var("BATCHSIG_WGPU_NORMALIZE")
                .ok()
                .and_then(|v| Normalize::parse(&v)),
            ..Self::default()
        }
    }
}

/// The entry points of one modexp variant (`shaders/modexp.wgsl`).
#[derive(Debug)]
pub(crate) struct ModexpPipelines {
    pub load: wgpu::ComputePipeline,
    pub table: wgpu::ComputePipeline,
    pub windows: wgpu::ComputePipeline,
    pub bits_vartime: wgpu::ComputePipeline,
    pub finish: wgpu::ComputePipeline,
}

/// The entry points of one curve's shader (`shaders/scalar_mul.wgsl`) and its fixed-base
/// table. The shared-point and normalisation entry points are compiled on first use
/// ([`GpuContext::ec_extra_pipeline`]): a batch without a repeated key never pays for the
/// first, a host that normalises never for the second.
#[derive(Debug)]
pub(crate) struct EcPipelines {
    pub base: wgpu::ComputePipeline,
    pub point: wgpu::ComputePipeline,
    pub double: wgpu::ComputePipeline,
    pub base_table: wgpu::Buffer,
    shared: Mutex<Option<wgpu::ComputePipeline>>,
    normalize: Mutex<Option<wgpu::ComputePipeline>>,
}

/// The entry points of an EC shader compiled on first use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EcExtra {
    /// `ec_double_shared_vartime`
    Shared,
    /// `ec_normalize`
    Normalize,
}

/// One dispatch of a chunk: the pipeline, the `first` and `steps` of its uniform, and the
/// invocations per workgroup of its entry point.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dispatch<'a> {
    pub pipeline: &'a wgpu::ComputePipeline,
    pub first: usize,
    pub steps: usize,
    pub group: usize,
}

/// A submitted chunk: its readback buffer, mapped once the submission completes, and the
/// pooled buffers it uses, given back to the pool once it has.
pub(crate) struct Pending {
    readback: Pooled,
    result_bytes: u64,
    buffers: Vec<Pooled>,
    submission: wgpu::SubmissionIndex,
    rx: std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

/// The uniform each dispatch reads (`struct Params` in `modexp_io.wgsl` and
/// `scalar_mul.wgsl`): the chunk's job count, a kernel-specific word (exponent words, or the
/// total number of steps), and the dispatch's first step and step count.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub count: u32,
    pub word1: u32,
    pub first: u32,
    pub steps: u32,
}

/// A buffer from [`BufferPool`]: its usage and size class travel with it.
pub(crate) struct Pooled {
    usage: wgpu::BufferUsages,
    class: u64,
    buffer: wgpu::Buffer,
}

/// Buffers kept between chunks and batches instead of being created for each: size classes
/// are powers of two (at least 256 bytes), at most [`BufferPool::KEEP`] free buffers and
/// [`BufferPool::KEEP_BYTES`] in all are kept. A buffer goes back only after the submission that used it has completed, so no
/// two chunks in flight share one; what it held is stale, so results and scratch are
/// cleared on the GPU before each use (a job the GPU did not write must read as zeros —
/// the fault checks rely on it — not as an earlier chunk's result).
#[derive(Debug, Default)]
struct BufferPool {
    free: Mutex<Vec<(wgpu::BufferUsages, u64, wgpu::Buffer)>>,
}

impl BufferPool {
    const KEEP: usize = 32;
    const KEEP_BYTES: u64 = 1 << 30;

    /// The power of two that holds `bytes`, or `bytes` itself (rounded to 256) where that
    /// power of two would pass the device's buffer-size limit `max`.
    fn class(bytes: u64, max: u64) -> u64 {
        let p = bytes.max(256).next_power_of_two();
        if p <= max {
            p
        } else {
            bytes.next_multiple_of(256)
        }
    }

    fn take(
        &self,
        device: &wgpu::Device,
        label: &str,
        usage: wgpu::BufferUsages,
        bytes: u64,
    ) -> Pooled {
        let class = Self::class(bytes, device.limits().max_buffer_size);
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = free.iter().position(|(u, c, _)| *u == usage && *c == class) {
            let (_, _, buffer) = free.swap_remove(i);
            return Pooled {
                usage,
                class,
                buffer,
            };
        }
        drop(free);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: class,
            usage,
            mapped_at_creation: false,
        });
        Pooled {
            usage,
            class,
            buffer,
        }
    }

    fn give(&self, p: Pooled) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let held: u64 = free.iter().map(|f| f.1).sum();
        if free.len() < Self::KEEP && held + p.class <= Self::KEEP_BYTES {
            free.push((p.usage, p.class, p.buffer));
        }
    }
}

/// Binding `binding` over the first `bytes` of `buffer` (all of it when `bytes` is 0).
fn binding_of(binding: u32, buffer: &wgpu::Buffer, bytes: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: std::num::NonZeroU64::new(bytes),
        }),
    }
}

/// A read-only input of [`GpuContext::submit_plan`]: words to upload, or a buffer already there.
pub(crate) enum Input<'a> {
    Words(&'a [u32]),
    Buffer(&'a wgpu::Buffer),
}

/// Everything built once.
#[derive(Debug)]
pub(crate) struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub timeout: Duration,
    /// The product path every shader of this device is composed with.
    pub arith: shaders::Arith,
    /// Where EC results are made affine.
    pub normalize: Normalize,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    modexp_pipelines: Mutex<HashMap<usize, Arc<ModexpPipelines>>>,
    ec_pipelines: Mutex<HashMap<batch_core::Curve, Arc<EcPipelines>>>,
    lost: Arc<AtomicBool>,
    lost_reason: Arc<Mutex<String>>,
    pool: BufferPool,
    /// Held for every use of the device: one batch at a time. wgpu's GL backend panics when
    /// a thread waits more than a moment for its context lock, which another thread's slow
    /// shader compilation (seconds on llvmpipe) would otherwise hold.
    serial: Mutex<()>,
}

/// `read_only` storage or read-write storage binding `i`.
fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Whether Mesa's software adapter was told to skip LLVM's optimisation passes
/// (`GALLIVM_PERF` holding `nopt`, as `.ci/run` sets it for the tests): its shaders then
/// compile in about half the time and run slower, so figures measured so must say it.
fn llvm_unoptimised() -> bool {
    std::env::var("GALLIVM_PERF").is_ok_and(|v| gallivm_perf_has_nopt(&v))
}

/// Whether a `GALLIVM_PERF` value turns `nopt` on (Mesa reads it as a list of flag names, or
/// `all`).
fn gallivm_perf_has_nopt(v: &str) -> bool {
    v.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|f| f == "nopt" || f == "all")
}

/// Why the adapter the default search found is not used: Mesa's software rasterizer through
/// GL (llvmpipe, picked when no Vulkan driver is installed) compiles the curve shaders into
/// more memory than a 24 GiB machine has — `backend_signatures`' wgpu ECDSA test was killed
/// by the OOM killer at 24 GB after 227 s (2026-12-07, Zen 4, Mesa 22.3.6, even with
/// `GALLIVM_PERF=nopt`), where the same shaders on lavapipe (Mesa's Vulkan software driver,
/// same LLVM) pass in seconds with 1.1 GB. So it is refused, with the way out, unless asked
/// for by name: `WGPU_BACKEND=gl` (backends exactly GL) or `WGPU_ADAPTER_NAME`. GL on a
/// hardware GPU is not affected.
fn refuse_software_gl(
    backend: wgpu::Backend,
    device_type: wgpu::DeviceType,
    opts: &WgpuOptions,
) -> Option<String> {
    let asked = opts.adapter_name.is_some() || opts.backends == wgpu::Backends::GL;
    (backend == wgpu::Backend::Gl && device_type == wgpu::DeviceType::Cpu && !asked).then(|| {
        "the software GL rasterizer (llvmpipe) is not used by default: compiling the curve \
         shaders through it takes tens of GB; install Mesa's Vulkan driver (Debian: \
         mesa-vulkan-drivers, lavapipe), or set WGPU_BACKEND=gl to use it anyway"
            .to_string()
    })
}

fn device_type_word(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::Cpu => "software (CPU)",
        wgpu::DeviceType::DiscreteGpu => "hardware, discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "hardware, integrated GPU",
        wgpu::DeviceType::VirtualGpu => "hardware, virtual GPU",
        wgpu::DeviceType::Other => "unknown device type",
    }
}

impl GpuContext {
    /// Finds an adapter and opens a device; `Err` says why not.
    pub fn new(opts: &WgpuOptions) -> Result<Self, String> {
        pollster::block_on(Self::new_async(opts))
    }

    async fn new_async(opts: &WgpuOptions) -> Result<Self, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = opts.backends;
        let instance = wgpu::Instance::new(desc);
        let adapter = match &opts.adapter_name {
            Some(want) => {
                let adapters = instance.enumerate_adapters(opts.backends).await;
                let names: Vec<String> = adapters
                    .iter()
                    .map(|a| format!("{} ({:?})", a.get_info().name, a.get_info().backend))
                    .collect();
                let want_lc = want.to_lowercase();
                adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&want_lc))
                    .ok_or_else(|| {
                        format!(
                            "no adapter matches WGPU_ADAPTER_NAME={want:?} among [{}]",
                            names.join(", ")
                        )
                    })?
            }
            None => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::from_env()
                        .unwrap_or(wgpu::PowerPreference::HighPerformance),
                    force_fallback_adapter: false,
                    compatible_surface: None,
                    apply_limit_buckets: false,
                })
                .await
                .map_err(|e| format!("no GPU adapter for backends {:?}: {e}", opts.backends))?,
        };
        let info = adapter.get_info();
        if let Some(why) = refuse_software_gl(info.backend, info.device_type, opts) {
            return Err(format!("adapter {}: {why}", info.name));
        }
        let downlevel = adapter.get_downlevel_capabilities();
        if !downlevel
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            return Err(format!(
                "adapter {} ({:?}) has no compute shaders",
                info.name, info.backend
            ));
        }
        let mut limits = adapter.limits();
        if let Some(cap) = opts.max_storage_binding {
            limits.max_storage_buffer_binding_size =
                limits.max_storage_buffer_binding_size.min(cap.into());
        }
        let int64 = opts.int64 && adapter.features().contains(wgpu::Features::SHADER_INT64);
        let arith = if int64 {
            shaders::Arith::Int64
        } else {
            shaders::Arith::Portable
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("batch-wgpu"),
                required_features: if int64 {
                    wgpu::Features::SHADER_INT64
                } else {
                    wgpu::Features::empty()
                },
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| {
                format!(
                    "adapter {} ({:?}): cannot open a device: {e}",
                    info.name, info.backend
                )
            })?;

        let lost = Arc::new(AtomicBool::new(false));
        let lost_reason = Arc::new(Mutex::new(String::new()));
        {
            let (lost, why) = (lost.clone(), lost_reason.clone());
            device.set_device_lost_callback(move |reason, msg| {
                if let Ok(mut w) = why.lock() {
                    *w = format!("{reason:?}: {msg}");
                }
                lost.store(true, Ordering::SeqCst);
            });
        }
        // Uncaptured errors would otherwise panic inside wgpu; every submission runs inside
        // an error scope, so these are only logged.
        device.on_uncaptured_error(Arc::new(|e| {
            eprintln!("batch-wgpu: uncaptured wgpu error: {e}")
        }));

        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("batch-wgpu"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, true),
                storage_entry(4, false),
                storage_entry(5, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("batch-wgpu"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let normalize = opts
            .normalize
            .unwrap_or_else(|| Normalize::for_device_type(info.device_type));
        Ok(Self {
            device,
            queue,
            info,
            limits,
            timeout: opts.timeout,
            arith,
            normalize,
            layout,
            pipeline_layout,
            modexp_pipelines: Mutex::new(HashMap::new()),
            ec_pipelines: Mutex::new(HashMap::new()),
            lost,
            lost_reason,
            pool: BufferPool::default(),
            serial: Mutex::new(()),
        })
    }

    /// One line naming the adapter: name, backend API, software or hardware, driver.
    pub fn describe_adapter(&self) -> String {
        let i = &self.info;
        let driver = if i.driver.is_empty() {
            String::new()
        } else {
            format!(", driver {} {}", i.driver, i.driver_info)
        };
        format!(
            "{} ({:?}, {}{}{}); {}",
            i.name,
            i.backend,
            device_type_word(i.device_type),
            driver.trim_end(),
            if i.device_type == wgpu::DeviceType::Cpu && llvm_unoptimised() {
                "; shaders compiled without LLVM's optimisation passes (GALLIVM_PERF=nopt)"
            } else {
                ""
            },
            self.arith.describe()
        )
    }

    /// Exclusive use of the device for one batch (a poisoned lock is still usable: the
    /// guarded state is `()`; the batch that panicked already reported its error).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.serial.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes one storage binding may hold: the binding and buffer limits, capped at 1 GiB
    /// (word indices in the shaders are `u32`, and no chunk needs more).
    pub fn max_binding_bytes(&self) -> usize {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(1 << 30) as usize
    }

    /// Jobs one dispatch can cover: one invocation per job, at most 65,535 workgroups (WebGPU's
    /// `maxComputeWorkgroupsPerDimension`) or the device's own limit.
    pub fn max_jobs_per_dispatch(&self) -> usize {
        (self.limits.max_compute_workgroups_per_dimension as usize).min(65_535)
            * shaders::WORKGROUP_SIZE
    }

    /// Destroys the device, as a driver reset or a removed GPU would.
    /// wgpu reports the loss through the callback only when it next polls, so the flag is
    /// set here too.
    pub fn destroy(&self) {
        let _device = self.lock();
        self.device.destroy();
        if let Ok(mut w) = self.lost_reason.lock() {
            *w = "destroyed".into();
        }
        self.lost.store(true, Ordering::SeqCst);
    }

    /// `Err` once the device is lost.
    pub fn check_alive(&self) -> Result<(), String> {
        if self.lost.load(Ordering::SeqCst) {
            let why = self
                .lost_reason
                .lock()
                .map(|s| s.clone())
                .unwrap_or_default();
            return Err(format!("GPU device lost ({why})"));
        }
        Ok(())
    }

    /// Compiles `src` and makes one pipeline per entry point, in order.
    fn compile<const N: usize>(
        &self,
        what: &str,
        src: String,
        entries: [&str; N],
    ) -> Result<[wgpu::ComputePipeline; N], String> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(what),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            });
        let pipelines = entries.map(|entry| {
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&self.pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("{what}: {e}"));
        }
        Ok(pipelines)
    }

    /// The pipelines for `limbs`, compiled on first use.
    pub fn modexp_pipelines(&self, limbs: usize) -> Result<Arc<ModexpPipelines>, String> {
        self.check_alive()?;
        let mut cache = self
            .modexp_pipelines
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&limbs) {
            return Ok(p.clone());
        }
        let what = format!("modexp shader for {limbs} limbs");
        let [load, table, windows, bits_vartime, finish] = self.compile(
            &what,
            shaders::modexp_source(limbs, self.arith),
            shaders::MODEXP_ENTRY_POINTS,
        )?;
        let p = Arc::new(ModexpPipelines {
            load,
            table,
            windows,
            bits_vartime,
            finish,
        });
        cache.insert(limbs, p.clone());
        Ok(p)
    }

    /// The pipelines and the fixed-base table for `curve`, built on first use; `table` gives
    /// the table's words.
    pub fn ec_pipelines(
        &self,
        curve: batch_core::Curve,
        table: impl FnOnce() -> Vec<u32>,
    ) -> Result<Arc<EcPipelines>, String> {
        use wgpu::util::DeviceExt;
        self.check_alive()?;
        let mut cache = self.ec_pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&curve) {
            return Ok(p.clone());
        }
        let what = format!("EC shader for {curve}");
        let [base, point, double, ..] = shaders::EC_ENTRY_POINTS;
        let [base, point, double] = self.compile(
            &what,
            shaders::ec_source(curve, self.arith),
            [base, point, double],
        )?;
        let base_words = table();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let upload = |label: &str, words: &[u32]| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytemuck::cast_slice(words),
                    usage: wgpu::BufferUsages::STORAGE,
                })
        };
        let base_table = upload("fixed-base table", &base_words);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("{curve} constants: {e}"));
        }
        let p = Arc::new(EcPipelines {
            base,
            point,
            double,
            base_table,
            shared: Mutex::new(None),
            normalize: Mutex::new(None),
        });
        cache.insert(curve, p.clone());
        Ok(p)
    }

    /// The `which` entry point for `curve` (whose other pipelines are `pipelines`), compiled
    /// on first use.
    pub fn ec_extra_pipeline(
        &self,
        curve: batch_core::Curve,
        pipelines: &EcPipelines,
        which: EcExtra,
    ) -> Result<wgpu::ComputePipeline, String> {
        self.check_alive()?;
        let (slot, entry, what) = match which {
            EcExtra::Shared => (
                &pipelines.shared,
                shaders::EC_ENTRY_POINTS[3],
                "shared point",
            ),
            EcExtra::Normalize => (
                &pipelines.normalize,
                shaders::EC_ENTRY_POINTS[4],
                "normalisation",
            ),
        };
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let [pipeline] = self.compile(
            &format!("EC shader for {curve}, {what}"),
            shaders::ec_source(curve, self.arith),
            [entry],
        )?;
        *slot = Some(pipeline.clone());
        Ok(pipeline)
    }

    /// Runs `items` (chunks) through `submit`, which uploads and submits one and returns its
    /// [`Pending`] readback, and `done`, which takes an item's result words. The next chunk is
    /// submitted before the previous one is read back and post-processed, so the GPU computes
    /// chunk k + 1 while the host reads, converts and checks chunk k. The first error ends the
    /// batch.
    pub fn run_chunks<T>(
        &self,
        items: impl IntoIterator<Item = T>,
        mut submit: impl FnMut(&T) -> Result<Pending, String>,
        mut done: impl FnMut(T, Vec<u32>),
    ) -> Result<(), String> {
        let mut in_flight: Option<(T, Pending)> = None;
        for item in items {
            let pending = submit(&item)?;
            if let Some((prev, p)) = in_flight.replace((item, pending)) {
                done(prev, self.collect(p)?);
            }
        }
        if let Some((prev, p)) = in_flight {
            done(prev, self.collect(p)?);
        }
        Ok(())
    }

    /// Uploads and submits one chunk of `count` jobs: `plan` is the dispatches in order (each
    /// gets the uniform `count, word1, first, steps`, and enough workgroups of its `group`
    /// invocations for `count`), `inputs`
    /// are bindings 1–3, `result_words` the words read back from binding 4, `scratch_words`
    /// the size of binding 5. [`GpuContext::collect`] waits for the results. Validation errors
    /// and out-of-memory are an `Err` here; device loss and timeouts in `collect`.
    #[allow(clippy::too_many_arguments)]
    pub fn submit_plan(
        &self,
        label: &str,
        plan: &[Dispatch<'_>],
        count: usize,
        word1: u32,
        inputs: [Input<'_>; 3],
        result_words: usize,
        scratch_words: usize,
    ) -> Result<Pending, String> {
        self.check_alive()?;
        let device = &self.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let mut buffers: Vec<Pooled> = Vec::with_capacity(6);
        // Inputs to upload: a pooled buffer each, written through the queue (staged before
        // this chunk's commands run).
        let mut input_sizes = [0u64; 3];
        let mut uploaded = [None, None, None];
        for (i, input) in inputs.iter().enumerate() {
            if let Input::Words(w) = input {
                let bytes = std::mem::size_of_val(*w) as u64;
                let b = self.pool.take(device, label, storage, bytes);
                if bytes > 0 {
                    self.queue
                        .write_buffer(&b.buffer, 0, bytemuck::cast_slice(w));
                }
                input_sizes[i] = bytes;
                uploaded[i] = Some(buffers.len());
                buffers.push(b);
            }
        }
        let result_bytes = (result_words * 4) as u64;
        let scratch_bytes = (scratch_words * 4) as u64;
        let results_at = buffers.len();
        buffers.push(self.pool.take(
            device,
            "results",
            storage | wgpu::BufferUsages::COPY_SRC,
            result_bytes,
        ));
        buffers.push(self.pool.take(device, "scratch", storage, scratch_bytes));
        let readback = self.pool.take(
            device,
            "readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            result_bytes,
        );
        // Every dispatch's uniform in one buffer, a slot per dispatch at the device's offset
        // alignment; only `first` and `steps` differ between them.
        let stride = (std::mem::size_of::<Params>() as u64)
            .next_multiple_of(u64::from(self.limits.min_uniform_buffer_offset_alignment));
        let mut uniform = vec![0u8; (stride as usize) * plan.len().max(1)];
        for (slot, d) in uniform.chunks_exact_mut(stride as usize).zip(plan) {
            let p = Params {
                count: count as u32,
                word1,
                first: d.first as u32,
                steps: d.steps as u32,
            };
            slot[..std::mem::size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&p));
        }
        let params = self.pool.take(
            device,
            "params",
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            uniform.len() as u64,
        );
        self.queue.write_buffer(&params.buffer, 0, &uniform);
        let input_binding = |i: usize| -> wgpu::BindGroupEntry<'_> {
            let binding = i as u32 + 1;
            match (&inputs[i], uploaded[i]) {
                (Input::Buffer(b), _) => wgpu::BindGroupEntry {
                    binding,
                    resource: b.as_entire_binding(),
                },
                (Input::Words(_), Some(at)) => {
                    binding_of(binding, &buffers[at].buffer, input_sizes[i])
                }
                (Input::Words(_), None) => unreachable!("uploaded above"),
            }
        };
        let bind = |slot: usize| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &params.buffer,
                            offset: slot as u64 * stride,
                            size: std::num::NonZeroU64::new(std::mem::size_of::<Params>() as u64),
                        }),
                    },
                    input_binding(0),
                    input_binding(1),
                    input_binding(2),
                    binding_of(4, &buffers[results_at].buffer, result_bytes),
                    binding_of(5, &buffers[results_at + 1].buffer, scratch_bytes),
                ],
            })
        };
        let mut enc =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        // Pooled buffers hold an earlier chunk's words: zero them, as fresh ones would be.
        enc.clear_buffer(&buffers[results_at].buffer, 0, None);
        enc.clear_buffer(&buffers[results_at + 1].buffer, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: None,
            });
            for (slot, d) in plan.iter().enumerate() {
                pass.set_pipeline(d.pipeline);
                pass.set_bind_group(0, &bind(slot), &[]);
                pass.dispatch_workgroups(count.div_ceil(d.group) as u32, 1, 1);
            }
        }
        enc.copy_buffer_to_buffer(
            &buffers[results_at].buffer,
            0,
            &readback.buffer,
            0,
            result_bytes,
        );
        buffers.push(params);
        let submission = self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        readback
            .buffer
            .map_async(wgpu::MapMode::Read, ..result_bytes, move |r| {
                let _ = tx.send(r);
            });
        let validation_err = pollster::block_on(validation.pop());
        let oom_err = pollster::block_on(oom.pop());
        if let Some(e) = validation_err.or(oom_err) {
            return Err(format!("wgpu error: {e}"));
        }
        Ok(Pending {
            readback,
            result_bytes,
            buffers,
            submission,
            rx,
        })
    }

    /// Waits for a submitted chunk and reads its results back; its buffers go back to the
    /// pool.
    pub fn collect(&self, pending: Pending) -> Result<Vec<u32>, String> {
        let Pending {
            readback,
            result_bytes,
            buffers,
            submission,
            rx,
        } = pending;
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: Some(self.timeout),
            })
            .map_err(|e| format!("waiting for the GPU: {e}"))?;
        self.check_alive()?;
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("reading results back: {e}")),
            Err(_) => return Err("reading results back: the mapping never completed".into()),
        }
        let words: Vec<u32> = {
            let view = readback
                .buffer
                .get_mapped_range(..result_bytes)
                .map_err(|e| format!("reading results back: {e}"))?;
            bytemuck::pod_collect_to_vec(&view)
        };
        readback.buffer.unmap();
        // The submission has completed: nothing in flight uses these any more.
        self.pool.give(readback);
        for b in buffers {
            self.pool.give(b);
        }
        Ok(words)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Only software GL found by the default search is refused; asked for by name, or on
    /// any other backend or device type, an adapter is used.
    #[test]
    fn software_gl_refused_unless_asked_for() {
        use wgpu::{Backend, Backends, DeviceType};
        let default = WgpuOptions::default();
        let why = refuse_software_gl(Backend::Gl, DeviceType::Cpu, &default);
        assert!(why.is_some_and(|w| w.contains("mesa-vulkan-drivers")));
        let gl_only = WgpuOptions {
            backends: Backends::GL,
            ..WgpuOptions::default()
        };
        assert_eq!(
            refuse_software_gl(Backend::Gl, DeviceType::Cpu, &gl_only),
            None
        );
        let named = WgpuOptions {
            adapter_name: Some("llvmpipe".into()),
            ..WgpuOptions::default()
        };
        assert_eq!(
            refuse_software_gl(Backend::Gl, DeviceType::Cpu, &named),
            None
        );
        for t in [
            DeviceType::DiscreteGpu,
            DeviceType::IntegratedGpu,
            DeviceType::VirtualGpu,
            DeviceType::Other,
        ] {
            assert_eq!(refuse_software_gl(Backend::Gl, t, &default), None, "{t:?}");
        }
        for b in [Backend::Vulkan, Backend::Metal, Backend::Dx12] {
            assert_eq!(
                refuse_software_gl(b, DeviceType::Cpu, &default),
                None,
                "{b:?}"
            );
        }
    }

    #[test]
    fn gallivm_perf_flags_are_read_as_mesa_lists_them() {
        for on in ["nopt", "brilinear,nopt", "nopt, rho_approx", "all"] {
            assert!(gallivm_perf_has_nopt(on), "{on}");
        }
        for off in ["", "brilinear", "no_quad_lod,rho_approx", "noptx", "xnopt"] {
            assert!(!gallivm_perf_has_nopt(off), "{off}");
        }
    }

    #[test]
    fn size_classes_stay_under_the_buffer_limit() {
        assert_eq!(BufferPool::class(0, 1 << 30), 256);
        assert_eq!(BufferPool::class(257, 1 << 30), 512);
        assert_eq!(BufferPool::class(1 << 20, 1 << 30), 1 << 20);
        // A limit that is not a power of two: the exact size (to 256) above the last class.
        let max = 3 << 28;
        assert_eq!(BufferPool::class((1 << 29) + 4, max), (1 << 29) + 256);
        assert_eq!(BufferPool::class(1 << 29, max), 1 << 29);
    }

    /// Writes `results[i] = a[i] + scratch[i]` and then `scratch[i] = 7` when `word1 == 1`,
    /// and nothing otherwise; `b` and `c` are bound but unused.
    const PROBE: &str = r#"
struct Params { count: u32, word1: u32, first: u32, steps: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read> c: array<u32>;
@group(0) @binding(4) var<storage, read_write> results: array<u32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;
@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < params.count && params.word1 == 1u) {
        results[i] = a[i] + scratch[i] + params.first * 1000u + params.steps * 100000u;
        scratch[i] = 7u;
    }
}
"#;

    pub(crate) fn context_or_skip(what: &str) -> Option<GpuContext> {
        match GpuContext::new(&WgpuOptions::from_env()) {
            Ok(c) => Some(c),
            Err(why) => {
                let required = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
                    || std::env::var("BATCHSIG_REQUIRE_GPU").is_ok();
                assert!(!required, "{what}: no wgpu adapter ({why}), required by CI");
                eprintln!("SKIPPED {what}: no wgpu adapter ({why})");
                None
            }
        }
    }

    /// Pooled buffers come back holding an earlier chunk's words; results and scratch must
    /// read as a fresh buffer's zeros (a job the GPU did not write has to fail its fault
    /// check, not return another chunk's result), the per-dispatch uniforms must reach their
    /// dispatch, and a second chunk of the same shape must reuse the first one's buffers.
    #[test]
    fn pooled_buffers_are_cleared_and_reused() {
        let Some(ctx) = context_or_skip("pooled_buffers_are_cleared_and_reused") else {
            return;
        };
        let [probe] = ctx
            .compile("pool probe", PROBE.to_owned(), ["probe"])
            .expect("probe shader");
        let n = 100usize;
        let a: Vec<u32> = (1..=n as u32).collect();
        let table = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unused"),
                contents: bytemuck::cast_slice(&[0u32; 4]),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let run = |word1: u32, plan: &[(usize, usize)]| {
            let plan: Vec<Dispatch<'_>> = plan
                .iter()
                .map(|&(first, steps)| Dispatch {
                    pipeline: &probe,
                    first,
                    steps,
                    group: shaders::WORKGROUP_SIZE,
                })
                .collect();
            let pending = ctx
                .submit_plan(
                    "pool probe",
                    &plan,
                    n,
                    word1,
                    [
                        Input::Words(&a),
                        Input::Buffer(&table),
                        Input::Words(&a[..3]),
                    ],
                    n,
                    n,
                )
                .expect("submit");
            ctx.collect(pending).expect("collect")
        };
        let held = || ctx.pool.free.lock().unwrap().len();
        use wgpu::util::DeviceExt;
        // One dispatch, first 0, steps 2: results = a + 0 + 200000.
        let first = run(1, &[(0, 2)]);
        assert_eq!(first, a.iter().map(|x| x + 200_000).collect::<Vec<_>>());
        let after_first = held();
        assert!(after_first >= 5, "buffers went back to the pool");
        // Same shape again: scratch (7 after the first chunk) must be zero again.
        let second = run(1, &[(0, 2)]);
        assert_eq!(second, first, "scratch cleared");
        assert_eq!(
            held(),
            after_first,
            "the second chunk reused the first's buffers"
        );
        // A chunk whose shader writes nothing reads back zeros, not the previous results.
        let third = run(0, &[(0, 2)]);
        assert!(third.iter().all(|&w| w == 0), "results cleared: {third:?}");
        // Two dispatches, each with its own uniform slot: the second sees scratch = 7 from
        // the first and its own `first`/`steps`.
        let fourth = run(1, &[(0, 1), (1, 3)]);
        assert_eq!(
            fourth,
            a.iter().map(|x| x + 7 + 1000 + 300_000).collect::<Vec<_>>()
        );
    }
}
