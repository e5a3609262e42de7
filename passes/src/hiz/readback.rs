//! Pyramid levels back on the CPU ([`read_levels`], for tests comparing
//! the GPU build with [`reduce_level`](super::reduce_level)), and the probe
//! that runs the GPU `hiz_sphere_test` on chosen spheres
//! (`probe_sphere_tests`, tests).

#[cfg(test)]
use glam::Mat4;
#[cfg(test)]
use sward_engine::bind;

#[cfg(test)]
use super::HiZ;
use super::{level_count, level_size, Level};

/// Reads every level of `texture` (an [`HIZ_FORMAT`](super::HIZ_FORMAT)
/// pyramid with level 0 of `size`) back to the CPU (tests).
pub fn read_levels(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    size: [u32; 2],
) -> Vec<Level> {
    (0..level_count(size))
        .map(|l| {
            let [width, height] = level_size(size, l);
            let row = (width * 4).div_ceil(256) * 256;
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("hiz.readback"),
                size: u64::from(row * height),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let mut encoder = device.create_command_encoder(&Default::default());
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: l,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
            queue.submit([encoder.finish()]);
            let slice = buffer.slice(..);
            slice.map_async(wgpu::MapMode::Read, |_| {});
            let _ = device.poll(wgpu::PollType::wait_indefinitely());
            let data = slice.get_mapped_range();
            let mut depth = Vec::with_capacity((width * height) as usize);
            for y in 0..height {
                let start = (y * row) as usize;
                let texels: &[f32] =
                    bytemuck::cast_slice(&data[start..start + (width * 4) as usize]);
                depth.extend_from_slice(texels);
            }
            Level {
                depth,
                width,
                height,
            }
        })
        .collect()
}

/// Runs `probe_hiz.wgsl` (the GPU `hiz_sphere_test`) on `spheres` (centre,
/// radius) against `hiz`'s pyramid (tests).
#[cfg(test)]
pub(crate) fn probe_sphere_tests(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    hiz: &HiZ,
    view_proj: Mat4,
    spheres: &[[f32; 4]],
) -> Vec<[f32; 4]> {
    use wgpu::util::DeviceExt;
    let (pixels, _, levels) = hiz.shape().expect("pyramid made");
    let shader =
        sward_engine::shader::create_shader(device, sward_wgsl::modules::PROBE_HIZ).unwrap();
    // Its layout derived from the shader (`bind` builds pipelines over
    // explicit layouts only).
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("probe.hiz"),
        layout: None,
        module: &shader,
        entry_point: Some("probe_main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut uniform = view_proj.to_cols_array().to_vec();
    uniform.extend_from_slice(&[pixels[0] as f32, pixels[1] as f32, levels as f32, 0.0]);
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.hiz.uniform"),
        contents: bytemuck::cast_slice(&uniform),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.hiz.spheres"),
        contents: bytemuck::cast_slice(spheres),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out_size = (spheres.len() * 16) as u64;
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe.hiz.out"),
        size: out_size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let group = bind::group(
        device,
        "probe.hiz",
        &pipeline.get_bind_group_layout(0),
        &[
            wgpu::BindingResource::TextureView(hiz.view().unwrap()), // probe_pyramid
            uniform.as_entire_binding(),                             // probe
            input.as_entire_binding(),                               // probe_spheres
            out.as_entire_binding(),                                 // probe_out
        ],
    );
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((spheres.len() as u32).div_ceil(64), 1, 1);
    }
    queue.submit([encoder.finish()]);
    let bytes = sward_engine::targets::read_buffer(device, queue, &out, out_size).unwrap();
    bytemuck::pod_collect_to_vec(&bytes)
}
