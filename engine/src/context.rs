//! The headless GPU context: instance, adapter choice, device and queue, the
//! capabilities detected once at creation, and a printable adapter summary.
//!
//! Adapter choice: `GpuOptions::adapter` (a case-insensitive name substring or an
//! index into [`list_adapters`]) wins; otherwise hardware is preferred over
//! software. Backends: `WGPU_BACKEND` when set, otherwise wgpu's primary ones
//! (Vulkan, Metal, DX12; `wgpu::Backends::PRIMARY`), so GL/EGL is not probed by
//! default.

use crate::caps::{Caps, KeyLimits};

/// How to create a [`GpuContext`].
#[derive(Debug, Clone)]
pub struct GpuOptions {
    /// Adapter selector: a case-insensitive substring of the adapter name or an
    /// index from [`list_adapters`]. `None` picks the best adapter.
    pub adapter: Option<String>,
    /// Backends to consider; `None` reads `WGPU_BACKEND` (the primary backends,
    /// Vulkan, Metal and DX12, if unset).
    pub backends: Option<wgpu::Backends>,
    /// Keep wgpu's injected validation of indirect draw/dispatch arguments
    /// (`InstanceFlags::VALIDATION_INDIRECT_CALL`). Benchmarks record this because
    /// it adds a compute pass per indirect call.
    pub validate_indirect_calls: bool,
}

impl Default for GpuOptions {
    /// Best adapter, backends from `WGPU_BACKEND`, indirect-call validation on
    /// unless `WGPU_VALIDATION_INDIRECT_CALL=0`.
    fn default() -> Self {
        let validate_indirect_calls =
            std::env::var("WGPU_VALIDATION_INDIRECT_CALL").map_or(true, |v| v != "0");
        GpuOptions {
            adapter: None,
            backends: None,
            validate_indirect_calls,
        }
    }
}

/// Why a context could not be created.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// No adapter at all on the selected backends.
    #[error(
        "no GPU adapter found on backends {backends}. Install a GPU driver, or a CPU Vulkan \
         driver with `apt-get install mesa-vulkan-drivers libvulkan1`"
    )]
    NoAdapter {
        /// The backends that were searched.
        backends: String,
    },
    /// `--adapter` matched nothing.
    #[error("no adapter matches `{selector}`; available: {available}")]
    NoMatch {
        /// The selector that was given.
        selector: String,
        /// The adapters that exist, `index: name (backend)`.
        available: String,
    },
    /// The adapter refused the device request.
    #[error("adapter `{adapter}` refused to create a device: {source}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's reason.
        source: wgpu::RequestDeviceError,
    },
}

/// A printable, serialisable description of the adapter and device in use.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AdapterSummary {
    /// Adapter name.
    pub name: String,
    /// Backend (`vulkan`, `metal`, ...).
    pub backend: String,
    /// `discrete-gpu`, `integrated-gpu`, `virtual-gpu`, `cpu` or `other`.
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version/info string.
    pub driver_info: String,
    /// Whether wgpu validates indirect call arguments with an injected pass.
    pub validate_indirect_calls: bool,
    /// Features enabled on the device (wgpu names).
    pub features: Vec<String>,
    /// Limits that matter.
    pub limits: KeyLimits,
}

/// One adapter found by [`list_adapters`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct AdapterEntry {
    /// Index usable with `--adapter`.
    pub index: usize,
    /// Adapter name.
    pub name: String,
    /// Backend name.
    pub backend: String,
    /// Device type name.
    pub device_type: String,
}

/// The device everything renders on. Cloning shares the same device; tests
/// clone it to run with reduced [`Caps`].
#[derive(Clone)]
pub struct GpuContext {
    /// The wgpu instance.
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// The queue.
    pub queue: wgpu::Queue,
    /// Capabilities detected at creation.
    pub caps: Caps,
    /// Adapter summary (for `sward info` and reports).
    pub summary: AdapterSummary,
    /// The copies and staged writes recorded outside a frame
    /// ([`Self::record_copies`], [`Self::write_buffer_staged`],
    /// [`Self::write_texture_staged`]) since the last submission, submitted
    /// ahead of the next frame's commands. Shared by clones (same device).
    pending: std::sync::Arc<std::sync::Mutex<crate::uploads::PendingUploads>>,
}

/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` connects to
/// Wayland to find the default GPU whenever the instance enables the Wayland
/// surface extension (wgpu always does), and libwayland prints
/// `XDG_RUNTIME_DIR is invalid or not set` once per call when that variable is
/// missing (headless machines, containers). sward orders adapters itself, so
/// in that case the layer is switched off with its documented
/// `NODEVICE_SELECT=1`, unless the user set that variable. Runs once, before the
/// first instance exists.
fn quiet_mesa_device_select() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let runtime_dir_ok =
            std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
        if !runtime_dir_ok && std::env::var_os("NODEVICE_SELECT").is_none() {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

fn instance(opts: &GpuOptions) -> (wgpu::Instance, wgpu::Backends) {
    quiet_mesa_device_select();
    let backends = opts
        .backends
        .unwrap_or_else(|| wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY));
    let mut flags = wgpu::InstanceFlags::from_build_config().with_env();
    // Vulkan validation layers are slow and usually absent; opt in with WGPU_VALIDATION=1.
    if std::env::var_os("WGPU_VALIDATION").is_none() {
        flags.remove(wgpu::InstanceFlags::VALIDATION);
    }
    flags.set(
        wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL,
        opts.validate_indirect_calls,
    );
    let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor {
        backends,
        flags,
        ..wgpu::InstanceDescriptor::from_env_or_default()
    });
    (instance, backends)
}

fn type_rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Kebab-case name of a device type.
pub fn device_type_name(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete-gpu",
        wgpu::DeviceType::IntegratedGpu => "integrated-gpu",
        wgpu::DeviceType::VirtualGpu => "virtual-gpu",
        wgpu::DeviceType::Other => "other",
        wgpu::DeviceType::Cpu => "cpu",
    }
}

fn entry(index: usize, a: &wgpu::Adapter) -> AdapterEntry {
    let info = a.get_info();
    AdapterEntry {
        index,
        name: info.name,
        backend: info.backend.to_str().to_owned(),
        device_type: device_type_name(info.device_type).to_owned(),
    }
}

/// Lists the adapters on the backends `opts` selects, in `--adapter` index order.
pub fn list_adapters(opts: &GpuOptions) -> Vec<AdapterEntry> {
    let (instance, backends) = instance(opts);
    instance
        .enumerate_adapters(backends)
        .iter()
        .enumerate()
        .map(|(i, a)| entry(i, a))
        .collect()
}

fn pick_adapter(
    adapters: Vec<wgpu::Adapter>,
    selector: Option<&str>,
    backends: wgpu::Backends,
) -> Result<wgpu::Adapter, ContextError> {
    if adapters.is_empty() {
        return Err(ContextError::NoAdapter {
            backends: format!("{backends:?}"),
        });
    }
    let Some(sel) = selector else {
        let mut adapters = adapters;
        // Stable sort keeps enumeration order among equals.
        adapters.sort_by_key(|a| type_rank(a.get_info().device_type));
        return Ok(adapters.swap_remove(0));
    };
    let available = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let e = entry(i, a);
            format!("{}: {} ({})", e.index, e.name, e.backend)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let sel_lower = sel.trim().to_lowercase();
    let found = match sel_lower.parse::<usize>() {
        Ok(i) if i < adapters.len() => Some(i),
        _ => adapters
            .iter()
            .position(|a| a.get_info().name.to_lowercase().contains(&sel_lower)),
    };
    match found {
        Some(i) => Ok(adapters.into_iter().nth(i).ok_or(ContextError::NoMatch {
            selector: sel.to_owned(),
            available: available.clone(),
        })?),
        None => Err(ContextError::NoMatch {
            selector: sel.to_owned(),
            available,
        }),
    }
}

impl GpuContext {
    /// Creates a headless context: picks an adapter, requests the features sward
    /// wants that the adapter has (and all of its limits), detects [`Caps`].
    pub fn new(opts: &GpuOptions) -> Result<Self, ContextError> {
        let (instance, backends) = instance(opts);
        let adapters = instance.enumerate_adapters(backends);
        let adapter = pick_adapter(adapters, opts.adapter.as_deref(), backends)?;
        let info = adapter.get_info();
        let features = adapter.features() & Caps::WANTED_FEATURES;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sward.device"),
            required_features: features,
            required_limits: limits.clone(),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        }))
        .map_err(|source| ContextError::RequestDevice {
            adapter: info.name.clone(),
            source,
        })?;
        let caps = Caps::detect(&adapter, device.features(), &device.limits());
        let summary = AdapterSummary {
            name: info.name.clone(),
            backend: info.backend.to_str().to_owned(),
            device_type: device_type_name(info.device_type).to_owned(),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            validate_indirect_calls: opts.validate_indirect_calls,
            features: device
                .features()
                .iter_names()
                .map(|(n, _)| n.to_owned())
                .collect(),
            limits: caps.limits,
        };
        log::info!(
            "sward: using adapter {} ({})",
            summary.name,
            summary.backend
        );
        Ok(GpuContext {
            instance,
            adapter,
            device,
            queue,
            caps,
            summary,
            pending: Default::default(),
        })
    }

    /// The pending uploads, locked.
    fn pending(&self) -> std::sync::MutexGuard<'_, crate::uploads::PendingUploads> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records GPU copies (staged tile data into live resources, say) that
    /// must land before the next frame draws: `record` appends them, in a
    /// debug group named `label`, to the one pending copy encoder (opened by
    /// the first copy after a submission), which the next submission
    /// through [`Self::submit`] (the frame executor's, say) finishes and
    /// sends ahead of its own commands. A change therefore costs no submit
    /// and no encoder of its own: a streamed tile's few copies from several
    /// techniques share one.
    /// Queue writes made in the same frame still run before these copies
    /// (wgpu submits pending writes first): a region must not be both
    /// written and copied to between two frames.
    pub fn record_copies(&self, label: &str, record: impl FnOnce(&mut wgpu::CommandEncoder)) {
        self.pending().record(&self.device, label, record);
    }

    /// Writes `data` into `target` at `offset` with the next submission, in
    /// order with [`Self::record_copies`]: the bytes go through a staging
    /// belt of reused host-visible chunks instead of a staging buffer made
    /// and destroyed per write ([`crate::uploads`]). For writes between
    /// frames (a residency change) into regions no queue write of the same
    /// frame touches (queue writes land first). `offset` and the length
    /// must be multiples of 4.
    pub fn write_buffer_staged(
        &self,
        label: &str,
        target: &wgpu::Buffer,
        offset: u64,
        data: &[u8],
    ) {
        self.pending()
            .write_buffer(&self.device, label, target, offset, data);
    }

    /// [`Self::write_buffer_staged`] for a texture region: `data` holds
    /// `size.height` rows of `row_bytes` (tightly packed) per layer.
    pub fn write_texture_staged(
        &self,
        label: &str,
        destination: wgpu::TexelCopyTextureInfo<'_>,
        data: &[u8],
        row_bytes: u32,
        size: wgpu::Extent3d,
    ) {
        self.pending()
            .write_texture(&self.device, label, destination, data, row_bytes, size);
    }

    /// Submits `commands` after the copies recorded since the last
    /// submission ([`Self::record_copies`]), in recording order. Work that
    /// reads or copies what those copies fill (the frame, a pool copied
    /// into a larger buffer) goes through here, so it never runs ahead of
    /// them.
    pub fn submit(&self, commands: impl IntoIterator<Item = wgpu::CommandBuffer>) {
        // Held through the submission, so nothing is staged between closing
        // the belt's chunks and handing them back.
        let mut pending = self.pending();
        let copies = pending.take();
        let mut commands = commands.into_iter().peekable();
        if copies.is_none() && commands.peek().is_none() {
            return;
        }
        self.queue.submit(copies.into_iter().chain(commands));
        pending.after_submit();
    }

    /// Submits the recorded copies now (for work outside [`Self::submit`]:
    /// readbacks through the queue, tests).
    pub fn flush_copies(&self) {
        self.submit([]);
    }

    /// Blocks until all submitted GPU work (and any recorded copies) has
    /// finished.
    pub fn wait_idle(&self) {
        self.flush_copies();
        // A lost device surfaces on the next call that uses it; nothing to do here.
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Nanoseconds per timestamp tick.
    pub fn timestamp_period(&self) -> f32 {
        self.queue.get_timestamp_period()
    }
}
