//! The `terrain.cull` compute pass's data and its CPU reference: the
//! uniforms ([`TerrainCullUniforms`], WGSL mirror in `terrain_cull.wgsl`),
//! the indexed indirect draw record ([`DrawIndexedArgs`]) and
//! [`cull_reference`], which keeps exactly the MCNKs the shader keeps (same
//! bounds, same frustum plane test, same nearest-point distance), in slot
//! order.

use glam::Vec3;
use sward_engine::Frustum;

use crate::atlas::AtlasChunkGpu;
use crate::terrain::atlas_instanced::record_bounds;
use crate::terrain::cull::chunk_visible;
use crate::terrain::template::TEMPLATE_INDICES;

/// Uniforms of `terrain.cull` (WGSL `TerrainCullUniforms`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainCullUniforms {
    /// Frustum planes of the frame.
    pub frustum: Frustum,
    /// Eye position.
    pub eye: [f32; 3],
    /// Terrain draw distance (nearest point of an MCNK's box).
    pub max_distance: f32,
    /// Atlas slots to test (`0..chunk_count`, live or free).
    pub chunk_count: u32,
    /// Indices of one template instance.
    pub index_count: u32,
    /// Padding to 16 bytes.
    pub _pad: [u32; 2],
}

impl TerrainCullUniforms {
    /// The uniforms for a frustum, eye and distance over `chunk_count` MCNKs.
    pub fn new(frustum: Frustum, eye: Vec3, max_distance: f32, chunk_count: u32) -> Self {
        TerrainCullUniforms {
            frustum,
            eye: eye.to_array(),
            max_distance,
            chunk_count,
            index_count: TEMPLATE_INDICES,
            _pad: [0; 2],
        }
    }
}

/// One indexed indirect draw (WGSL `DrawIndexedArgs`, the layout
/// `draw_indexed_indirect` reads).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawIndexedArgs {
    /// Indices per instance (the template's 768).
    pub index_count: u32,
    /// Instances (1 for a kept MCNK, 0 for a cleared entry).
    pub instance_count: u32,
    /// First index (0).
    pub first_index: u32,
    /// Base vertex (0).
    pub base_vertex: i32,
    /// First instance = the MCNK's atlas slot.
    pub first_instance: u32,
}

/// The CPU reference of `terrain.cull`: slots of `records` whose bounds touch
/// `frustum` and lie within `max_distance` of `eye`, in increasing order.
pub fn cull_reference(
    records: &[AtlasChunkGpu],
    frustum: &Frustum,
    eye: Vec3,
    max_distance: f32,
) -> Vec<u32> {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| chunk_visible(frustum, eye, max_distance, &record_bounds(r)))
        .map(|(s, _)| s as u32)
        .collect()
}

/// How close (world units) a record's bounds are to a culling boundary:
/// the smallest of the frustum plane margin and the distance margin, in
/// absolute value. Tests use it to tell f32 ties from real disagreements.
pub fn boundary_margin(r: &AtlasChunkGpu, frustum: &Frustum, eye: Vec3, max_distance: f32) -> f32 {
    let b = record_bounds(r);
    let planes = frustum.aabb_margin(b.min, b.max).abs();
    let dist = (crate::terrain::cull::nearest_distance(eye, &b) - max_distance).abs();
    planes.min(dist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_match_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::TERRAIN_CULL,
            "TerrainCullUniforms" => TerrainCullUniforms {
                frustum, eye, max_distance, chunk_count, index_count, _pad
            },
            "DrawIndexedArgs" => DrawIndexedArgs {
                index_count, instance_count, first_index, base_vertex, first_instance
            },
        );
        // The layout wgpu's indirect draws read.
        assert_eq!(std::mem::size_of::<DrawIndexedArgs>(), 20);
    }
}
