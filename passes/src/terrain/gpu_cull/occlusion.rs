//! Two-phase Hi-Z occlusion culling of terrain MCNKs (`gpu-cull:occlusion=on`
//! for terrain; `terrain_cull_occlusion.wgsl`).
//!
//! Terrain hides terrain, and the cull that decides what to draw is the one
//! drawing the occluders, so the pyramid it tests against can only be last
//! frame's. Phase one tests each in-view MCNK's box against last frame's
//! pyramid (projected with this frame's view) and draws the visible ones;
//! their depth builds this frame's pyramid (`terrain.hiz`); phase two
//! re-tests the MCNKs phase one rejected against it and draws those that
//! turn out visible (what a camera move uncovered). An MCNK is therefore
//! never missing from a frame because of a stale pyramid: at worst it is
//! drawn one phase later.

use crate::atlas::AtlasChunkGpu;
use crate::frame::FrameView;
use crate::hiz::Level;
use crate::terrain::atlas_instanced::record_bounds;
use crate::terrain::cull::chunk_visible;

/// Name of the second cull pass.
pub const PASS_CULL_TWO: &str = "terrain.cull.two";
/// Name of the second draw pass.
pub const PASS_DRAW_TWO: &str = "terrain.draw.two";
/// Name of the pyramid pass.
pub const PASS_HIZ: &str = "terrain.hiz";

/// Occlusion uniforms (mirrors WGSL `TerrainOcclusion`, 80 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainOcclusion {
    /// This frame's view-projection.
    pub view_proj: [[f32; 4]; 4],
    /// Target size in pixels (x, y), pyramid levels (z), 1 when the pyramid
    /// holds last frame's depth (w).
    pub hiz: [f32; 4],
}

/// The MCNKs each phase draws, by the CPU reference.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phases {
    /// Drawn in phase one (in view, not hidden by last frame's pyramid).
    pub one: Vec<u32>,
    /// Rejected by phase one, drawn in phase two (visible in this frame's).
    pub two: Vec<u32>,
    /// Rejected by both.
    pub occluded: Vec<u32>,
}

/// CPU reference of the two phases over the atlas `records` for `view`:
/// `previous` is last frame's pyramid (`None`: phase one rejects nothing)
/// and `current` this frame's; both of a `view.size` target.
pub fn phases_reference(
    records: &[AtlasChunkGpu],
    view: &FrameView,
    previous: Option<&[Level]>,
    current: &[Level],
) -> Phases {
    let mut out = Phases::default();
    let (eye, view_proj, pixels) = (view.eye(), view.view_proj, view.size);
    let max_distance = view.settings.terrain_distance;
    for (slot, r) in records.iter().enumerate() {
        let b = record_bounds(r);
        if !chunk_visible(&view.frustum, eye, max_distance, &b) {
            continue;
        }
        let slot = slot as u32;
        let hidden_before = previous.is_some_and(|levels| {
            crate::hiz::box_occluded(levels, pixels, view_proj, b.min, b.max)
        });
        if !hidden_before {
            out.one.push(slot);
        } else if crate::hiz::box_occluded(current, pixels, view_proj, b.min, b.max) {
            out.occluded.push(slot);
        } else {
            out.two.push(slot);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniforms_match_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::TERRAIN_CULL_OCCLUSION,
            "TerrainOcclusion" => TerrainOcclusion { view_proj, hiz },
        );
        assert_eq!(std::mem::size_of::<TerrainOcclusion>(), 80);
    }
}
