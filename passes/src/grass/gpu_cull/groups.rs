//! The bind groups of a [`GpuCull`] over its buffers: the cull's (patch
//! or per-instance), the draw's group 2, the stand-in pyramid group with
//! occlusion off, and [`GpuCull::rebind`], which remakes them when a pool
//! grows.

use sward_engine::{bind, GpuContext};

use super::draw::{self, CullPipelines, InstancePipelines};
use super::{Compaction, GpuCull};
use crate::atlas::HeightAtlas;

/// The height atlas's bindings from `first` on (chunk table, heights,
/// normals, index), as `(binding, resource)` pairs.
pub(super) fn atlas_at(atlas: &HeightAtlas, first: u32) -> [(u32, wgpu::BindingResource<'_>); 4] {
    atlas.bind_entries(first).map(|e| (e.binding, e.resource))
}

/// Group 1 of the per-instance cull with occlusion off: a 1x1 stand-in
/// pyramid.
pub(super) fn no_hiz_group(
    device: &wgpu::Device,
    pipelines: &InstancePipelines,
) -> wgpu::BindGroup {
    let stand_in = device.create_texture(&wgpu::TextureDescriptor {
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        ..crate::atlas::sampled_texture("grass.hiz.off", [1, 1], crate::hiz::HIZ_FORMAT)
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
    bind::buffer_group(
        device,
        draw::PASS_CULL,
        &pipelines.layout,
        &[uniform, entries, models, args, counts],
    )
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
    let patch_group = bind::group_at(
        device,
        draw::PASS_CULL,
        &pipelines.patch_layout,
        &[
            (0, uniform.as_entire_binding()),
            (1, entries.as_entire_binding()),
            (2, models.as_entire_binding()),
            (3, state.as_entire_binding()),
            (5, dispatch.as_entire_binding()),
        ],
    );
    let bind_group = bind::buffer_group(
        device,
        draw::PASS_CULL,
        &pipelines.layout,
        &[uniform, entries, models, state, visible],
    );
    let mut roots = vec![
        (0, descriptors.as_entire_binding()),
        (1, patches.as_entire_binding()),
    ];
    roots.extend(atlas_at(atlas, 2));
    let roots_group = bind::group_at(device, "grass.cull.roots", &pipelines.roots, &roots);
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
    let mut entries = vec![
        (0, descriptors.as_entire_binding()),
        (1, patches.as_entire_binding()),
    ];
    entries.extend(atlas_at(atlas, 2));
    if let Some(v) = visible {
        entries.push((6, v.as_entire_binding()));
    }
    entries.push((7, cull_uniform.as_entire_binding()));
    bind::group_at(device, "grass.gpu-cull.draw", layout, &entries)
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
        self.rebind_generation(gpu, atlas);
    }
}
