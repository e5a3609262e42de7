//! Rust mirrors of the clipmap shader structs: `ClipmapParams` (in
//! `clipmap_level.wgsl`), `ClipmapUniforms` (in `terrain_clipmap.wgsl`, both
//! encase), the per-piece instance record (bytemuck vertex attribute) and
//! the fill's job record `FillJob` (`clipmap_fill.wgsl`, bytemuck; built by
//! the fill and by the refinement pool, its layout test sits with the fill's
//! uniforms in `fill.rs`), with layout tests against naga's reflection.

use glam::{IVec2, IVec4, Vec4};

use super::layout::{level_spacing, ClipmapConfig, MAX_LEVELS, MORPH_MARGIN};
use crate::terrain::gpu::TerrainUniforms;

/// Per-level camera and spacing plus the morph constants (WGSL `ClipmapParams`).
#[derive(Debug, Clone, Copy, PartialEq, encase::ShaderType)]
pub struct ClipmapParams {
    /// Per level: camera in level units (x: I, y: J), spacing (z), unused (w).
    pub cams: [Vec4; MAX_LEVELS as usize],
    /// Levels in use.
    pub levels: u32,
    /// Texels per level side.
    pub texels: u32,
    /// Geomorph band width (level quads).
    pub transition: f32,
    /// Distance at which the morph reaches 1 (level quads).
    pub morph_end: f32,
    /// Per level: its rectangle in the refinement index texture
    /// ([`super::refine::RefineGpu::rects`]; zero: nothing refines).
    pub refine: [IVec4; MAX_LEVELS as usize],
}

impl ClipmapParams {
    /// The parameters of `cfg` for a camera at level-0 coordinates `cam0`.
    pub fn new(cfg: &ClipmapConfig, cam0: [f64; 2]) -> Self {
        let cams = std::array::from_fn(|l| {
            let l = l as u32;
            let k = f64::from(1u32 << l);
            Vec4::new(
                (cam0[0] / k) as f32,
                (cam0[1] / k) as f32,
                level_spacing(l) as f32,
                0.0,
            )
        });
        ClipmapParams {
            cams,
            levels: cfg.levels,
            texels: cfg.texels(),
            transition: cfg.transition(),
            morph_end: (2 * cfg.block) as f32 - MORPH_MARGIN,
            refine: [IVec4::ZERO; MAX_LEVELS as usize],
        }
    }

    /// Camera of `level` in level units.
    pub fn cam(&self, level: u32) -> [f32; 2] {
        let c = self.cams[level as usize];
        [c.x, c.y]
    }
}

/// Per-frame uniforms of `terrain.clipmap` (WGSL `ClipmapUniforms`).
#[derive(Debug, Clone, Copy, PartialEq, encase::ShaderType)]
pub struct ClipmapUniforms {
    /// View, sun and fog (shared with every terrain tier's `terrain_shade`).
    pub terrain: TerrainUniforms,
    /// Level cameras and morph constants.
    pub clip: ClipmapParams,
    /// Global MCNK coordinate of the chunk index texture's texel (0, 0).
    pub chunk_origin: IVec2,
    /// Chunk index texture size in MCNKs.
    pub chunk_count: IVec2,
}

impl ClipmapUniforms {
    /// The uniform buffer bytes (WGSL layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = encase::UniformBuffer::new(Vec::new());
        // Writing a fixed-size ShaderType into a growable Vec cannot fail.
        if let Err(e) = buf.write(self) {
            log::error!("clipmap uniforms: {e}");
        }
        buf.into_inner()
    }

    /// Size in bytes.
    pub fn size() -> u64 {
        <Self as encase::ShaderType>::min_size().get()
    }
}

/// The parameter bytes of the probe (WGSL `ClipmapParams` as a uniform).
pub fn params_bytes(p: &ClipmapParams) -> Vec<u8> {
    let mut buf = encase::UniformBuffer::new(Vec::new());
    if let Err(e) = buf.write(p) {
        log::error!("clipmap params: {e}");
    }
    buf.into_inner()
}

/// One drawn piece (instance-rate vertex attribute `Sint32x4`): absolute
/// origin in level units, the level, and the stitched edges and size of the
/// piece ([`super::cull::instance_word`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClipInstance {
    /// Min corner `(I, J)` in level units.
    pub origin: [i32; 2],
    /// Level.
    pub level: i32,
    /// Stitched edges and quads of the piece ([`super::cull::instance_word`]).
    pub word: i32,
}

/// One strip to fill (WGSL `FillJob`): vertices `origin .. origin + size`
/// of `level`, in level units.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FillJob {
    /// First vertex `(I, J)`.
    pub origin: [i32; 2],
    /// Vertices along `I` and `J`.
    pub size: [u32; 2],
    /// Level (array layer).
    pub level: u32,
    /// Where a refinement pool job stores its texels: array layer (0: a
    /// level strip, stored toroidally in layer `level`), then the first
    /// texel's x and y.
    pub dest: [u32; 3],
}

impl FillJob {
    /// Texels the job writes.
    pub fn texels(&self) -> u64 {
        u64::from(self.size[0]) * u64::from(self.size[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! module {
        () => {
            sward_wgsl::compose_and_validate(sward_wgsl::modules::TERRAIN_CLIPMAP)
                .unwrap_or_else(|e| panic!("terrain_clipmap.wgsl: {e}"))
                .1
        };
    }

    fn f32_at(bytes: &[u8], off: usize) -> f32 {
        f32::from_le_bytes([bytes[off], bytes[off + 1], bytes[off + 2], bytes[off + 3]])
    }

    /// Encase writes every member where naga says the WGSL member lives.
    #[test]
    fn uniforms_match_wgsl() {
        let m = module!();
        let outer =
            sward_wgsl::struct_layout(&m, "ClipmapUniforms").unwrap_or_else(|e| panic!("{e}"));
        let params =
            sward_wgsl::struct_layout(&m, "ClipmapParams").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u64::from(outer.size), ClipmapUniforms::size());
        let cfg = ClipmapConfig {
            block: 8,
            levels: 5,
        };
        let mut clip = ClipmapParams::new(&cfg, [1234.0, 5678.0]);
        clip.cams[3].w = 77.0;
        clip.refine[2] = IVec4::new(-5, 6, 7 | 8 << 16, 19);
        let u = ClipmapUniforms {
            terrain: TerrainUniforms {
                view_proj: glam::Mat4::IDENTITY,
                eye: glam::Vec3::new(1.0, 2.0, 3.0),
                fog_start: 4.0,
                sun_dir: glam::Vec3::ONE,
                fog_end: 5.0,
                fog_color: glam::Vec3::ZERO,
                layer_tiling: 6.0,
            },
            clip,
            chunk_origin: IVec2::new(-3, 9),
            chunk_count: IVec2::new(48, 32),
        };
        let bytes = u.to_bytes();
        let off = |layout: &sward_wgsl::StructLayout, name: &str| {
            layout
                .members
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, o)| *o as usize)
                .unwrap_or_else(|| panic!("member {name}"))
        };
        let base = off(&outer, "clip");
        let cams = base + off(&params, "cams");
        assert_eq!(f32_at(&bytes, cams + 3 * 16 + 12), 77.0);
        assert_eq!(f32_at(&bytes, cams + 16), clip.cams[1].x);
        assert_eq!(f32_at(&bytes, cams + 4 * 16 + 8), clip.cams[4].z);
        let int_at =
            |o: usize| i32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        assert_eq!(int_at(base + off(&params, "levels")), 5);
        assert_eq!(int_at(base + off(&params, "texels")) as u32, cfg.texels());
        assert_eq!(
            f32_at(&bytes, base + off(&params, "transition")),
            clip.transition
        );
        assert_eq!(
            f32_at(&bytes, base + off(&params, "morph_end")),
            clip.morph_end
        );
        let refine = base + off(&params, "refine");
        assert_eq!(int_at(refine + 2 * 16), -5);
        assert_eq!(int_at(refine + 2 * 16 + 8), 7 | 8 << 16);
        assert_eq!(int_at(refine + 2 * 16 + 12), 19);
        assert_eq!(int_at(off(&outer, "chunk_origin") + 4), 9);
        assert_eq!(int_at(off(&outer, "chunk_count")), 48);
        let terrain = off(&outer, "terrain");
        assert_eq!(f32_at(&bytes, terrain + 64 + 4), 2.0, "eye.y");
    }
}
