//! What one soak sample reads of the process: its resident set, the live
//! Rust heap, and wgpu's own count of the objects it holds, in two places:
//! the handles the application keeps ([`WgpuObjects::handles`], from
//! `Instance::generate_report`) and the objects wgpu's device layer has
//! created and not yet destroyed ([`WgpuObjects::device`], from
//! `Device::get_internal_counters`, wgpu's `counters` feature). A resource
//! the application dropped but wgpu still keeps alive (a bind group that
//! holds it, a submission it has not seen finish) shows in the second and
//! not in the first; what the Vulkan driver keeps beyond both shows only in
//! the resident set.

use sward_engine::GpuContext;

/// Counts of live wgpu objects of one kind each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ObjectCounts {
    /// Buffers.
    pub buffers: u64,
    /// Textures.
    pub textures: u64,
    /// Texture views.
    pub texture_views: u64,
    /// Bind groups.
    pub bind_groups: u64,
    /// Samplers.
    pub samplers: u64,
    /// Render and compute pipelines.
    pub pipelines: u64,
    /// Query sets (timestamps, pipeline statistics).
    pub query_sets: u64,
}

impl ObjectCounts {
    /// Every count with its name, in a fixed order (the summary's rows).
    pub fn named(&self) -> [(&'static str, u64); 7] {
        [
            ("buffers", self.buffers),
            ("textures", self.textures),
            ("texture_views", self.texture_views),
            ("bind_groups", self.bind_groups),
            ("samplers", self.samplers),
            ("pipelines", self.pipelines),
            ("query_sets", self.query_sets),
        ]
    }
}

/// wgpu's own view of what the process holds on the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct WgpuObjects {
    /// Handles the application holds (wgpu-core's registries: every
    /// `wgpu::Buffer`, `wgpu::BindGroup`, ... not yet dropped).
    pub handles: ObjectCounts,
    /// Objects wgpu's device layer (wgpu-hal) holds: the handles above,
    /// what wgpu-core keeps alive after the application dropped it (until
    /// the submissions using it are done and the device is polled), and
    /// wgpu's own internal objects.
    pub device: ObjectCounts,
    /// Bytes of the buffers wgpu-hal holds.
    pub buffer_memory: u64,
    /// Bytes of the textures wgpu-hal holds.
    pub texture_memory: u64,
    /// Device memory blocks wgpu's allocator holds (it keeps or frees
    /// blocks by its own policy, so this is reported, not checked).
    pub memory_blocks: u64,
}

/// Reads wgpu's counts for `gpu` (`None` when wgpu does not run on
/// wgpu-core, e.g. on the web, and keeps no registries to report).
pub fn wgpu_objects(gpu: &GpuContext) -> Option<WgpuObjects> {
    let report = gpu.instance.generate_report()?;
    let hub = report.hub_report();
    let handles = ObjectCounts {
        buffers: hub.buffers.num_kept_from_user as u64,
        textures: hub.textures.num_kept_from_user as u64,
        texture_views: hub.texture_views.num_kept_from_user as u64,
        bind_groups: hub.bind_groups.num_kept_from_user as u64,
        samplers: hub.samplers.num_kept_from_user as u64,
        pipelines: (hub.render_pipelines.num_kept_from_user
            + hub.compute_pipelines.num_kept_from_user) as u64,
        query_sets: hub.query_sets.num_kept_from_user as u64,
    };
    let hal = gpu.device.get_internal_counters().hal;
    // A counter never goes below zero; `max` keeps a miscount from wrapping.
    let n = |count: isize| count.max(0) as u64;
    let device = ObjectCounts {
        buffers: n(hal.buffers.read()),
        textures: n(hal.textures.read()),
        texture_views: n(hal.texture_views.read()),
        bind_groups: n(hal.bind_groups.read()),
        samplers: n(hal.samplers.read()),
        pipelines: n(hal.render_pipelines.read()) + n(hal.compute_pipelines.read()),
        query_sets: n(hal.query_sets.read()),
    };
    Some(WgpuObjects {
        handles,
        device,
        buffer_memory: n(hal.buffer_memory.read()),
        texture_memory: n(hal.texture_memory.read()),
        memory_blocks: n(hal.memory_allocations.read()),
    })
}

/// The process's resident set size from `/proc/self/status` (Linux).
pub fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgpu_counts_follow_a_buffer_and_a_bind_group_made_and_dropped() {
        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        gpu.wait_idle();
        let before = wgpu_objects(&gpu).expect("wgpu-core reports its registries");
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test.soak_probe"),
            size: 4096,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: false,
        });
        let layout = sward_engine::bind::layout(
            &gpu.device,
            "test.soak_probe",
            &[sward_engine::bind::entry(
                0,
                wgpu::ShaderStages::VERTEX,
                sward_engine::bind::Slot::Uniform,
            )],
        );
        let group = sward_engine::bind::group(
            &gpu.device,
            "test.soak_probe",
            &layout,
            &[buffer.as_entire_binding()],
        );
        let held = wgpu_objects(&gpu).unwrap();
        assert_eq!(held.handles.buffers, before.handles.buffers + 1);
        assert_eq!(held.handles.bind_groups, before.handles.bind_groups + 1);
        assert_eq!(held.device.buffers, before.device.buffers + 1);
        assert_eq!(held.buffer_memory, before.buffer_memory + 4096);
        // The application drops its buffer handle; the bind group still
        // holds the buffer, so wgpu's device layer keeps it.
        drop(buffer);
        let bound = wgpu_objects(&gpu).unwrap();
        assert_eq!(bound.handles.buffers, before.handles.buffers);
        assert_eq!(bound.device.buffers, before.device.buffers + 1);
        drop(group);
        drop(layout);
        gpu.wait_idle();
        assert_eq!(wgpu_objects(&gpu).unwrap(), before);
    }

    #[test]
    fn rss_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(rss_bytes().is_some_and(|b| b > 0));
        }
    }
}
