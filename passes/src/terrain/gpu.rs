//! Rust mirrors of the structs `terrain_static.wgsl` declares: the per-frame
//! uniforms (encase) and the per-MCNK record (bytemuck), each with a layout
//! test against naga's reflection of the composed shader.

use glam::{Mat4, Vec3};

use crate::frame::FrameView;

/// Per-frame uniforms of `terrain.draw` (WGSL `TerrainUniforms`).
#[derive(Debug, Clone, Copy, PartialEq, encase::ShaderType)]
pub struct TerrainUniforms {
    /// World to clip (reverse-Z).
    pub view_proj: Mat4,
    /// Eye position (fog distance).
    pub eye: Vec3,
    /// Fog start distance.
    pub fog_start: f32,
    /// Direction towards the sun (not necessarily normalised).
    pub sun_dir: Vec3,
    /// Fog end distance (fully fog-coloured).
    pub fog_end: f32,
    /// Fog colour (linear RGB).
    pub fog_color: Vec3,
    /// Layer texture repeats per MCNK.
    pub layer_tiling: f32,
}

/// Layer texture repeats per MCNK (one repeat every two cells, ~8.3 units).
pub const LAYER_TILING: f32 = 4.0;

impl TerrainUniforms {
    /// The uniforms of one frame.
    pub fn from_view(view: &FrameView) -> Self {
        let s = &view.settings;
        TerrainUniforms {
            view_proj: view.view_proj,
            eye: view.eye(),
            fog_start: s.fog_range[0],
            sun_dir: Vec3::from(s.sun_dir),
            fog_end: s.fog_range[1],
            fog_color: Vec3::from(s.fog_color),
            layer_tiling: LAYER_TILING,
        }
    }

    /// The uniform buffer bytes (WGSL layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = encase::UniformBuffer::new(Vec::new());
        // Writing a fixed-size ShaderType into a growable Vec cannot fail.
        if let Err(e) = buf.write(self) {
            log::error!("terrain uniforms: {e}");
        }
        buf.into_inner()
    }

    /// Size of the uniform buffer in bytes.
    pub fn size() -> u64 {
        <Self as encase::ShaderType>::min_size().get()
    }
}

/// Per-MCNK record of `terrain.draw` (WGSL `TerrainChunk`), indexed by the
/// draw's first instance.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainChunkGpu {
    /// Atlas UV of the MCNK's alpha tile (top-left corner).
    pub alpha_origin: [f32; 2],
    /// Atlas UV size of one tile.
    pub alpha_scale: f32,
    /// MCLY layers in use (1..=4).
    pub layer_count: u32,
    /// Layer texture array index of each MCLY layer.
    pub textures: [u32; 4],
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! module {
        () => {
            sward_wgsl::compose_and_validate(sward_wgsl::modules::TERRAIN_STATIC)
                .unwrap_or_else(|e| panic!("terrain_static.wgsl: {e}"))
                .1
        };
    }

    #[test]
    fn chunk_record_matches_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::TERRAIN_STATIC,
            "TerrainChunk" => TerrainChunkGpu { alpha_origin, alpha_scale, layer_count, textures },
        );
    }

    /// Encase writes each field where naga says the WGSL member lives:
    /// distinct values are read back at the reflected offsets.
    #[test]
    fn uniforms_match_wgsl() {
        let layout = sward_wgsl::struct_layout(&module!(), "TerrainUniforms")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u64::from(layout.size), TerrainUniforms::size());
        let u = TerrainUniforms {
            view_proj: Mat4::from_cols_array(&std::array::from_fn(|i| 100.0 + i as f32)),
            eye: Vec3::new(1.0, 2.0, 3.0),
            fog_start: 4.0,
            sun_dir: Vec3::new(5.0, 6.0, 7.0),
            fog_end: 8.0,
            fog_color: Vec3::new(9.0, 10.0, 11.0),
            layer_tiling: 12.0,
        };
        let bytes = u.to_bytes();
        assert_eq!(bytes.len() as u64, TerrainUniforms::size());
        let f = |off: u32, n: usize| -> Vec<f32> {
            (0..n)
                .map(|k| {
                    let o = off as usize + 4 * k;
                    f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
                })
                .collect()
        };
        let expected: [(&str, Vec<f32>); 7] = [
            ("view_proj", u.view_proj.to_cols_array().to_vec()),
            ("eye", u.eye.to_array().to_vec()),
            ("fog_start", vec![u.fog_start]),
            ("sun_dir", u.sun_dir.to_array().to_vec()),
            ("fog_end", vec![u.fog_end]),
            ("fog_color", u.fog_color.to_array().to_vec()),
            ("layer_tiling", vec![u.layer_tiling]),
        ];
        assert_eq!(layout.members.len(), expected.len());
        for (name, values) in expected {
            let off = layout
                .members
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, o)| *o)
                .unwrap_or_else(|| panic!("WGSL member {name} missing"));
            assert_eq!(
                f(off, values.len()),
                values,
                "member {name} at offset {off}"
            );
        }
    }
}
