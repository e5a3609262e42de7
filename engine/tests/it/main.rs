//! GPU integration tests of the engine on a real headless device (lavapipe in
//! CI). Each test takes the shared context from `sward_engine::gpu_or_skip!`
//! and skips only when no adapter exists and `SWARD_REQUIRE_GPU` is unset.

mod graph_exec;
mod probes;
mod scene;

/// A `MAP_READ | COPY_DST` buffer of `size` bytes.
pub fn readback_buffer(gpu: &sward_engine::GpuContext, label: &str, size: u64) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
