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
}

impl Default for WgpuOptions {
    fn default() -> Self {
        Self {
            backends: wgpu::Backends::all(),
            adapter_name: None,
            timeout: Duration::from_secs(600),
            int64: true,
            max_storage_binding: None,
        }
    }
}

impl WgpuOptions {
    /// Options from `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and `BATCHSIG_WGPU_INT64`.
    pub fn from_env() -> Self {
        Self {
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all()),
            adapter_name: std::env::var("WGPU_ADAPTER_NAME")
                .ok()
                .filter(|s| !s.is_empty()),
            int64: std::env::var("BATCHSIG_WGPU_INT64").map_or(true, |v| v != "0" && v != "false"),
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
/// table.
#[derive(Debug)]
pub(crate) struct EcPipelines {
    pub base: wgpu::ComputePipeline,
    pub point: wgpu::ComputePipeline,
    pub double: wgpu::ComputePipeline,
    pub base_table: wgpu::Buffer,
}

/// A submitted chunk: its readback buffer, mapped once the submission completes.
pub(crate) struct Pending {
    readback: wgpu::Buffer,
    submission: wgpu::SubmissionIndex,
    rx: std::sync::mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
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
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    modexp_pipelines: Mutex<HashMap<usize, Arc<ModexpPipelines>>>,
    ec_pipelines: Mutex<HashMap<batch_core::Curve, Arc<EcPipelines>>>,
    lost: Arc<AtomicBool>,
    lost_reason: Arc<Mutex<String>>,
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
        Ok(Self {
            device,
            queue,
            info,
            limits,
            timeout: opts.timeout,
            arith,
            layout,
            pipeline_layout,
            modexp_pipelines: Mutex::new(HashMap::new()),
            ec_pipelines: Mutex::new(HashMap::new()),
            lost,
            lost_reason,
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
            "{} ({:?}, {}{}); {}",
            i.name,
            i.backend,
            device_type_word(i.device_type),
            driver.trim_end(),
            self.arith.describe()
        )
    }

    /// Exclusive use of the device for one batch (a poisoned lock is still usable: the
    /// guarded state is `()`; the batch that panicked already reported its error).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.serial.lock().unwrap_or_else(|p| p.into_inner())
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
        let [base, point, double] = self.compile(
            &what,
            shaders::ec_source(curve, self.arith),
            shaders::EC_ENTRY_POINTS,
        )?;
        let base_words = table();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let upload = |label: &str, words: &[u32]| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: &bytes_of(words),
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
        });
        cache.insert(curve, p.clone());
        Ok(p)
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

    /// Uploads and submits one chunk of `count` jobs: `plan` is the dispatches `(pipeline,
    /// first, steps)` in order (each gets the uniform `count, word1, first, steps`), `inputs`
    /// are bindings 1–3, `result_words` the words read back from binding 4, `scratch_words`
    /// the size of binding 5. [`GpuContext::collect`] waits for the results. Validation errors
    /// and out-of-memory are an `Err` here; device loss and timeouts in `collect`.
    #[allow(clippy::too_many_arguments)]
    pub fn submit_plan(
        &self,
        label: &str,
        plan: &[(&wgpu::ComputePipeline, usize, usize)],
        count: usize,
        word1: u32,
        inputs: [Input<'_>; 3],
        result_words: usize,
        scratch_words: usize,
    ) -> Result<Pending, String> {
        use wgpu::util::DeviceExt;
        self.check_alive()?;
        let device = &self.device;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let init = |label: &str, words: &[u32], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &bytes_of(words),
                usage,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let uploaded: Vec<Option<wgpu::Buffer>> = inputs
            .iter()
            .map(|i| match i {
                Input::Words(w) => Some(init(label, w, storage)),
                Input::Buffer(_) => None,
            })
            .collect();
        let input_bufs: Vec<&wgpu::Buffer> = inputs
            .iter()
            .zip(&uploaded)
            .map(|(i, u)| match (i, u) {
                (Input::Buffer(b), _) => *b,
                (Input::Words(_), Some(b)) => b,
                (Input::Words(_), None) => unreachable!("uploaded above"),
            })
            .collect();
        let result_bytes = (result_words * 4) as u64;
        let results_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("results"),
            size: result_bytes,
            usage: storage | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let scratch_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scratch"),
            size: (scratch_words * 4) as u64,
            usage: storage,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: result_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // one bind group per dispatch: only the uniform `first`/`steps` differ
        let bind = |first: usize, steps: usize| {
            let params = init(
                "params",
                &[count as u32, word1, first as u32, steps as u32],
                wgpu::BufferUsages::UNIFORM,
            );
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: input_bufs[0].as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: input_bufs[1].as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: input_bufs[2].as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: results_buf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: scratch_buf.as_entire_binding(),
                    },
                ],
            })
        };
        let workgroups = count.div_ceil(shaders::WORKGROUP_SIZE) as u32;
        let mut enc =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: None,
            });
            for &(pipeline, first, steps) in plan {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind(first, steps), &[]);
                pass.dispatch_workgroups(workgroups, 1, 1);
            }
        }
        enc.copy_buffer_to_buffer(&results_buf, 0, &readback, 0, result_bytes);
        let submission = self.queue.submit([enc.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        let validation_err = pollster::block_on(validation.pop());
        let oom_err = pollster::block_on(oom.pop());
        if let Some(e) = validation_err.or(oom_err) {
            return Err(format!("wgpu error: {e}"));
        }
        Ok(Pending {
            readback,
            submission,
            rx,
        })
    }

    /// Waits for a submitted chunk and reads its results back.
    pub fn collect(&self, pending: Pending) -> Result<Vec<u32>, String> {
        let Pending {
            readback,
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
                .get_mapped_range(..)
                .map_err(|e| format!("reading results back: {e}"))?;
            view.chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        readback.unmap();
        Ok(words)
    }
}

pub(crate) fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
