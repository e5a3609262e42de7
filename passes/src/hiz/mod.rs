//! A farthest-depth pyramid (Hi-Z) of the frame's depth target, and the CPU
//! references of its build and of the sphere occlusion test
//! (`hiz.wgsl`, `hiz_test.wgsl`).
//!
//! Depth is reverse-Z, so "farthest" is the smallest value. The pyramid has
//! half the target's resolution: level 0 texel (x, y) holds the farthest
//! sample of pixels 2x..2x+1 by 2y..2y+1; each further level is a mip (half
//! as large, rounded down) holding the farthest of the 2x2 texels below it.
//! The last column (row) of a level also takes in the column (row) an odd
//! size leaves over, so every pixel stays under a texel of every level.
//!
//! Grass `gpu-cull` builds it after the terrain pass and before its cull:
//! every occluder grass can have (the terrain) is complete by then, so one
//! phase against this frame's depth is exact; the two-phase scheme (last
//! frame's pyramid, then a re-test) is for occluders drawn by the same cull.
//!
//! Files, one job each: `pyramid` (the GPU build: [`HiZ`], its pipelines,
//! the bind groups a test reads the pyramid through), `reduce` (the CPU
//! mirror of the build), `occlusion` (the CPU mirror of the sphere and box
//! tests of `hiz_test.wgsl`), `readback` (pyramid levels back to the CPU,
//! the GPU test probe), `tests`.

mod occlusion;
mod pyramid;
mod readback;
mod reduce;
#[cfg(test)]
mod tests;

pub use self::occlusion::{box_occluded, box_test, occlusion_unsure, sphere_occluded, sphere_test};
pub use self::pyramid::{pyramid_group, pyramid_layout, HiZ};
#[cfg(test)]
pub(crate) use self::readback::probe_sphere_tests;
pub use self::readback::read_levels;
pub use self::reduce::{footprint, reduce_level};

/// Name of grass `gpu-cull`'s pyramid pass.
pub const PASS_HIZ: &str = "grass.hiz";

/// Key under which the terrain publishes the depth pyramid it built this
/// frame ([`sward_engine::graph::RenderGraph::publish_texture`]); grass
/// occlusion tests against it instead of building its own.
pub const TERRAIN_PYRAMID: &str = "terrain.depth-pyramid";

/// Pyramid texel format.
pub const HIZ_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// Size of level 0 of the pyramid of a `pixels` target (half, rounded down).
pub fn base_size(pixels: [u32; 2]) -> [u32; 2] {
    [(pixels[0] / 2).max(1), (pixels[1] / 2).max(1)]
}

/// Number of levels of a pyramid whose level 0 is `size` (a full mip chain).
pub fn level_count(size: [u32; 2]) -> u32 {
    32 - size[0].max(size[1]).max(1).leading_zeros()
}

/// Size of level `level` of a pyramid whose level 0 is `size` (mip sizes:
/// halved, rounded down, at least 1).
pub fn level_size(size: [u32; 2], level: u32) -> [u32; 2] {
    [(size[0] >> level).max(1), (size[1] >> level).max(1)]
}

/// One level on the CPU: `width * height` depths, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// Texels, row-major.
    pub depth: Vec<f32>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

impl Level {
    fn at(&self, x: u32, y: u32) -> f32 {
        let x = x.min(self.width - 1);
        let y = y.min(self.height - 1);
        self.depth[(y * self.width + x) as usize]
    }
}
