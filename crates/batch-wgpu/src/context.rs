//! The GPU context, built once per backend: instance, adapter, device, queue, the bind-group
//! layout shared by every modexp variant, and the compute pipelines, compiled on first use
//! and cached per shader variant.
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
}

impl Default for WgpuOptions {
    fn default() -> Self {
        Self {
            backends: wgpu::Backends::all(),
            adapter_name: None,
            timeout: Duration::from_secs(600),
        }
    }
}

impl WgpuOptions {
    /// Options from `WGPU_BACKEND` and `WGPU_ADAPTER_NAME`.
    pub fn from_env() -> Self {
        Self {
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all()),
            adapter_name: std::env::var("WGPU_ADAPTER_NAME").ok().filter(|s| !s.is_empty()),
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

/// Everything built once.
#[derive(Debug)]
pub(crate) struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub timeout: Duration,
    pub modexp_layout: wgpu::BindGroupLayout,
    modexp_pipeline_layout: wgpu::PipelineLayout,
    modexp_pipelines: Mutex<HashMap<usize, Arc<ModexpPipelines>>>,
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
                let names: Vec<String> =
                    adapters.iter().map(|a| format!("{} ({:?})", a.get_info().name, a.get_info().backend)).collect();
                let want_lc = want.to_lowercase();
                adapters.into_iter().find(|a| a.get_info().name.to_lowercase().contains(&want_lc)).ok_or_else(
                    || format!("no adapter matches WGPU_ADAPTER_NAME={want:?} among [{}]", names.join(", ")),
                )?
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
        if !downlevel.flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
            return Err(format!("adapter {} ({:?}) has no compute shaders", info.name, info.backend));
        }
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("batch-wgpu"),
                required_features: wgpu::Features::empty(),
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| format!("adapter {} ({:?}): cannot open a device: {e}", info.name, info.backend))?;

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
        device.on_uncaptured_error(Arc::new(|e| eprintln!("batch-wgpu: uncaptured wgpu error: {e}")));

        let modexp_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("modexp"),
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
        let modexp_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("modexp"),
            bind_group_layouts: &[Some(&modexp_layout)],
            immediate_size: 0,
        });
        Ok(Self {
            device,
            queue,
            info,
            limits,
            timeout: opts.timeout,
            modexp_layout,
            modexp_pipeline_layout,
            modexp_pipelines: Mutex::new(HashMap::new()),
            lost,
            lost_reason,
            serial: Mutex::new(()),
        })
    }

    /// One line naming the adapter: name, backend API, software or hardware, driver.
    pub fn describe_adapter(&self) -> String {
        let i = &self.info;
        let driver = if i.driver.is_empty() { String::new() } else { format!(", driver {} {}", i.driver, i.driver_info) };
        format!("{} ({:?}, {}{})", i.name, i.backend, device_type_word(i.device_type), driver.trim_end())
    }

    /// Exclusive use of the device for one batch (a poisoned lock is still usable: the
    /// guarded state is `()`; the batch that panicked already reported its error).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.serial.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `Err` once the device is lost.
    pub fn check_alive(&self) -> Result<(), String> {
        if self.lost.load(Ordering::SeqCst) {
            let why = self.lost_reason.lock().map(|s| s.clone()).unwrap_or_default();
            return Err(format!("GPU device lost ({why})"));
        }
        Ok(())
    }

    /// The pipelines for `limbs`, compiled on first use.
    pub fn modexp_pipelines(&self, limbs: usize) -> Result<Arc<ModexpPipelines>, String> {
        let mut cache = self.modexp_pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&limbs) {
            return Ok(p.clone());
        }
        let src = shaders::modexp_source(limbs);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("modexp"),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        let make = |entry: &str| {
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&self.modexp_pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let [load, table, windows, bits_vartime, finish] = shaders::MODEXP_ENTRY_POINTS;
        let p = Arc::new(ModexpPipelines {
            load: make(load),
            table: make(table),
            windows: make(windows),
            bits_vartime: make(bits_vartime),
            finish: make(finish),
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("modexp shader for {limbs} limbs: {e}"));
        }
        cache.insert(limbs, p.clone());
        Ok(p)
    }
}
