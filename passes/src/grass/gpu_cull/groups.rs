//! The bind groups of a [`GpuCull`] over its buffers: the cull's (patch
//! or per-instance), the draw's group 2, the stand-in pyramid group with
//! occlusion off, and [`GpuCull::rebind`], which remakes them when a pool
//! grows.

use sward_engine::GpuContext;

use super::draw::{self, CullPipelines, InstancePipelines};
use super::{Compaction, GpuCull};
use crate::atlas::HeightAtlas;

fn bind(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// Group 1 of the per-instance cull with occlusion off: a 1x1 stand-in
/// pyramid.
pub(super) fn no_hiz_group(device: &wgpu::Device, pipelines: &InstancePipelines) -> wgpu::BindGroup {
    let stand_in = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("grass.hiz.off"),
        size: wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: crate::hiz::HIZ_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    crate::hiz::pyramid_group(
        device,
        &pipelines.hiz,
        &stand_in.create_view(&Default::default()),
    )
}

/// Group 0 of the patch cull: uniforms, entries, models, args, counts.
pub(super) fn patch_group(
    device: &wgpu::Device,
    pipelines: &CullPipelines,
    [uniform, entries, models, args, counts]: [&wgpu::Buffer; 5],
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, args),
            bind(4, counts),
        ],
    })
}

/// The per-instance cull's groups: `cull_patches`' group 0,
/// `cull_instances`' group 0 and its group 2 (roots).
pub(super) fn instance_groups(
    device: &wgpu::Device,
    pipelines: &InstancePipelines,
    [uniform, entries, models, state, dispatch, visible]: [&wgpu::Buffer; 6],
    [descriptors, patches]: [&wgpu::Buffer; 2],
    atlas: &HeightAtlas,
) -> [wgpu::BindGroup; 3] {
    let patch_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.patch_layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, state),
            bind(5, dispatch),
        ],
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, state),
            bind(4, visible),
        ],
    });
    let [c0, c1, c2, c3] = atlas.bind_entries(2);
    let roots_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("grass.cull.roots"),
        layout: &pipelines.roots,
        entries: &[bind(0, descriptors), bind(1, patches), c0, c1, c2, c3],
    });
    [patch_group, bind_group, roots_group]
}

/// Group 2 of the draw: descriptors, patch table, atlas, the visible list
/// (per-instance culling) and the cull uniforms.
pub(super) fn draw_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    [descriptors, patches]: [&wgpu::Buffer; 2],
    atlas: &HeightAtlas,
    visible: Option<&wgpu::Buffer>,
    cull_uniform: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let [a0, a1, a2, a3] = atlas.bind_entries(2);
    let mut entries = vec![bind(0, descriptors), bind(1, patches), a0, a1, a2, a3];
    if let Some(v) = visible {
        entries.push(bind(6, v));
    }
    entries.push(bind(7, cull_uniform));
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("grass.gpu-cull.draw"),
        layout,
        entries: &entries,
    })
}

impl GpuCull {
    /// Remakes every bind group over the current buffers.
    pub(super) fn rebind(&mut self, gpu: &GpuContext, atlas: &HeightAtlas) {
        let device = &gpu.device;
        let visible = match &mut self.compaction {
            Compaction::Patches {
                args,
                counts,
                pipelines,
                bind_group,
            } => {
                *bind_group = patch_group(
                    device,
                    pipelines,
                    [
                        &self.cull_uniform,
                        &self.entries,
                        &self.cull_models,
                        args,
                        counts,
                    ],
                );
                None
            }
            Compaction::Instances {
                state,
                dispatch,
                patch_group,
                visible,
                pipelines,
                bind_group,
                roots_group,
                ..
            } => {
                [*patch_group, *bind_group, *roots_group] = instance_groups(
                    device,
                    pipelines,
                    [
                        &self.cull_uniform,
                        &self.entries,
                        &self.cull_models,
                        state,
                        dispatch,
                        visible,
                    ],
                    [&self.descriptors, &self.patches],
                    atlas,
                );
                Some(&*visible)
            }
        };
        self.draw_bind_group = draw_group(
            device,
            &self.group2,
            [&self.descriptors, &self.patches],
            atlas,
            visible,
            &self.cull_uniform,
        );
    }
}
