//! Rust mirrors of the `camera_grid` / `grass_camera_grid` WGSL structs
//! ([`GridUniform`], [`GridEffectGpu`], [`GridDraw`]; layouts checked against
//! naga) and the bind group layouts of group 2 (render and compute flavours).

use glam::Vec4;
use sward_engine::bind::{self, Slot};
use sward_scenes::effects::ResolvedEffect;

use crate::atlas::HeightAtlas;

/// WGSL `GRID_NO_MODEL`: an empty doodad slot.
pub const NO_MODEL: u32 = u32::MAX;
/// WGSL `GRID_POLICY_WEIGHTED`.
pub const POLICY_WEIGHTED: u32 = 0;
/// WGSL `GRID_POLICY_ROTATION`.
pub const POLICY_ROTATION: u32 = 1;
/// Stride of the per-draw dynamic uniform records.
pub const DRAW_STRIDE: u64 = 256;

/// Per-frame grid uniforms (WGSL `GridUniform`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GridUniform {
    /// World slot of the camera's slot.
    pub camera_slot: [i32; 2],
    /// Global MCNK coordinate of the index window's first texel.
    pub chunk_origin: [i32; 2],
    /// Slots per axis.
    pub side: u32,
    /// Candidates per slot.
    pub candidates: u32,
    /// Slot spacing in terrain cells.
    pub spacing_cells: f32,
    /// `spacing_cells^2 / candidates`.
    pub keep_scale: f32,
    /// Largest per-blade wind phase offset (radians).
    pub phase_spread: f32,
    /// [`POLICY_WEIGHTED`] or [`POLICY_ROTATION`].
    pub policy: u32,
    /// Models drawable by index.
    pub model_count: u32,
    /// Compaction culls by the frustum (1/0).
    pub frustum_cull: u32,
    /// Eye (xyz) and draw distance (w).
    pub eye: Vec4,
    /// Largest model radius (x) and sway (y).
    pub bounds: Vec4,
    /// Wind phase per world unit (xy).
    pub wind_phase: Vec4,
    /// Frustum planes.
    pub frustum: [Vec4; 6],
}

/// One effect of the table (WGSL `GridEffect`, 48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GridEffectGpu {
    /// Model index per doodad slot, [`NO_MODEL`] when empty.
    pub models: [u32; 4],
    /// Weight per slot.
    pub weights: [u32; 4],
    /// Sum of the weights.
    pub total: u32,
    /// Effective density.
    pub density: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
}

impl GridEffectGpu {
    /// The record of a resolved effect.
    pub fn new(e: &ResolvedEffect) -> Self {
        GridEffectGpu {
            models: e.slots.map(|s| s.map_or(NO_MODEL, u32::from)),
            weights: e.weights,
            total: e.total_weight(),
            density: e.density,
            pad0: 0,
            pad1: 0,
        }
    }
}

/// Per-draw record (WGSL `GridDraw`), one per model at [`DRAW_STRIDE`]. The
/// model's region of the compacted list is laid out on the GPU each frame
/// (the regions buffer), so the record only names the model.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GridDraw {
    /// Model drawn.
    pub model: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
}

/// Group 2 layout: 0 grid uniform, 2 control texture, 3 effects, 6..=9 the
/// height atlas; the render flavour adds 1 (per-draw, dynamic), 4
/// (compacted list) and 10 (the regions: where each model's records start),
/// read-only; the compute flavour 4, 10, 5 (indirect args) and 11 (the
/// candidates' tags), read-write.
pub fn group2_layout(device: &wgpu::Device, compute: bool) -> wgpu::BindGroupLayout {
    let vis = if compute {
        wgpu::ShaderStages::COMPUTE
    } else {
        wgpu::ShaderStages::VERTEX
    };
    let mut entries = vec![
        bind::entry(0, vis, Slot::Uniform),
        bind::entry(2, vis, Slot::uint_texture(wgpu::TextureViewDimension::D2)),
        bind::entry(3, vis, Slot::STORAGE_READ),
    ];
    entries.extend(HeightAtlas::layout_entries(6, vis));
    if compute {
        entries.push(bind::entry(4, vis, Slot::STORAGE_RW));
        entries.push(bind::entry(5, vis, Slot::STORAGE_RW));
        entries.push(bind::entry(10, vis, Slot::STORAGE_RW));
        entries.push(bind::entry(11, vis, Slot::STORAGE_RW));
    } else {
        entries.push(bind::entry(1, vis, Slot::UniformDynamic));
        entries.push(bind::entry(4, vis, Slot::STORAGE_READ));
        entries.push(bind::entry(10, vis, Slot::STORAGE_READ));
    }
    let label = if compute {
        "grass.grid.compute"
    } else {
        "grass.grid.render"
    };
    bind::layout(device, label, &entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_match_wgsl_layout() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::GRASS_CAMERA_GRID,
            "GridUniform" => GridUniform {
                camera_slot, chunk_origin, side, candidates, spacing_cells, keep_scale,
                phase_spread, policy, model_count, frustum_cull, eye, bounds, wind_phase, frustum
            },
            "GridEffect" => GridEffectGpu { models, weights, total, density, pad0, pad1 },
            "GridDraw" => GridDraw { model, pad0, pad1, pad2 },
        );
    }
}
