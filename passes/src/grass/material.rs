//! Per-batch grass materials: the M2 render flags and blend mode of a detail
//! model turned into a [`Material`], and a material turned into the pipeline
//! state the grass tiers build ([`MaterialState`], via
//! [`material_pipeline_desc`]). Also the CPU mirrors of the `alpha_key` WGSL
//! snippet ([`alpha_key_coverage`], [`alpha_mip_level`], [`alpha_mip_scaled`],
//! [`dither_threshold`]).
//!
//! Rules:
//! - opaque and alpha-key batches write depth and are never sorted; under 4x
//!   MSAA with alpha-to-coverage they output remapped alpha as coverage, else
//!   they hard-discard below the cutoff (and fade by dithered discard);
//! - blend, add and modulate batches blend without depth writes (the fade
//!   multiplies their alpha);
//! - render flag 4 draws both faces (no culling).

use crate::error::PassError;

/// M2 render flag 0x01: unlit.
pub const RENDER_FLAG_UNLIT: u16 = 0x01;
/// M2 render flag 0x02: unfogged.
pub const RENDER_FLAG_UNFOGGED: u16 = 0x02;
/// M2 render flag 0x04: two-sided (no back-face culling).
pub const RENDER_FLAG_TWO_SIDED: u16 = 0x04;
/// M2 render flag 0x10: no depth writes.
pub const RENDER_FLAG_NO_DEPTH_WRITE: u16 = 0x10;

/// Alpha cutoff of alpha-key materials (texture alpha is a 0/1 cut-out with
/// box-filtered mips, so the midpoint is the edge).
pub const ALPHA_KEY_CUTOFF: f32 = 0.5;
/// Cutoff handed to the shader for materials that keep every texel.
pub const KEEP_ALL_CUTOFF: f32 = -2.0;

/// How a batch's colour combines with the target (from the M2 blend mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendKind {
    /// M2 blend 0: opaque.
    Opaque,
    /// M2 blend 1: alpha key (cut-out).
    AlphaKey,
    /// M2 blend 2: alpha blend.
    Blend,
    /// M2 blend 3 (no-alpha add) and 4 (add): additive.
    Add,
    /// M2 blend 5: modulate (`dst * src`).
    Modulate,
    /// M2 blend 6: modulate 2x (`2 * dst * src`).
    Modulate2x,
    /// M2 blend 7: premultiplied blend-add.
    BlendAdd,
}

impl BlendKind {
    /// The kind of an M2 blend mode; `None` for modes M2 does not define.
    pub fn from_m2(blend_mode: u16) -> Option<Self> {
        Some(match blend_mode {
            0 => BlendKind::Opaque,
            1 => BlendKind::AlphaKey,
            2 => BlendKind::Blend,
            3 | 4 => BlendKind::Add,
            5 => BlendKind::Modulate,
            6 => BlendKind::Modulate2x,
            7 => BlendKind::BlendAdd,
            _ => return None,
        })
    }

    /// Whether the batch is depth-resolved (opaque or cut-out) rather than blended.
    pub fn is_depth_resolved(self) -> bool {
        matches!(self, BlendKind::Opaque | BlendKind::AlphaKey)
    }
}

/// One detail model's material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Material {
    /// Blend kind.
    pub blend: BlendKind,
    /// Render flag 4: both faces.
    pub two_sided: bool,
    /// Render flag 1: no lighting.
    pub unlit: bool,
    /// Render flag 2: no fog.
    pub unfogged: bool,
    /// Render flag 0x10: no depth writes.
    pub no_depth_write: bool,
}

impl Material {
    /// The material of a model with M2 `render_flags` and `blend_mode`;
    /// `model` names it in the error for an undefined blend mode.
    pub fn from_m2(model: &str, render_flags: u16, blend_mode: u16) -> Result<Self, PassError> {
        let blend = BlendKind::from_m2(blend_mode).ok_or_else(|| PassError::InvalidInput {
            technique: "grass",
            what: format!("detail model {model}"),
            reason: format!("M2 blend mode {blend_mode} is not one of 0..=7"),
        })?;
        Ok(Material {
            blend,
            two_sided: render_flags & RENDER_FLAG_TWO_SIDED != 0,
            unlit: render_flags & RENDER_FLAG_UNLIT != 0,
            unfogged: render_flags & RENDER_FLAG_UNFOGGED != 0,
            no_depth_write: render_flags & RENDER_FLAG_NO_DEPTH_WRITE != 0,
        })
    }

    /// Alpha cutoff the shader uses: [`ALPHA_KEY_CUTOFF`] for alpha key,
    /// [`KEEP_ALL_CUTOFF`] otherwise.
    pub fn alpha_cutoff(&self) -> f32 {
        if self.blend == BlendKind::AlphaKey {
            ALPHA_KEY_CUTOFF
        } else {
            KEEP_ALL_CUTOFF
        }
    }
}

/// Fragment entry points of `grass_instanced.wgsl`.
pub mod entry {
    /// Alpha-to-coverage output (remapped alpha times fade).
    pub const COVERAGE: &str = "fs_coverage";
    /// Hard discard below the cutoff, dithered fade.
    pub const DISCARD: &str = "fs_discard";
    /// Blended output (alpha times fade).
    pub const BLEND: &str = "fs_blend";
}

/// The pipeline state of one material at one sample count: exactly what the
/// grass tiers put into their `wgpu::RenderPipelineDescriptor`s (and the key
/// of their pipeline cache), exposed so tests can assert the choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaterialState {
    /// Target sample count (1 or 4).
    pub sample_count: u32,
    /// `MultisampleState::alpha_to_coverage_enabled`.
    pub alpha_to_coverage: bool,
    /// `DepthStencilState::depth_write_enabled`.
    pub depth_write: bool,
    /// `PrimitiveState::cull_mode`.
    pub cull_mode: Option<wgpu::Face>,
    /// The colour target's blend state.
    pub blend: Option<wgpu::BlendState>,
    /// Fragment entry point (see [`entry`]).
    pub fragment_entry: &'static str,
    /// Whether the fragment shader discards (alpha test / dithered fade).
    pub discards: bool,
}

impl MaterialState {
    /// `wgpu::MultisampleState` of this state.
    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.sample_count,
            mask: !0,
            alpha_to_coverage_enabled: self.alpha_to_coverage,
        }
    }

    /// `wgpu::PrimitiveState` of this state (triangle list, CCW front).
    pub fn primitive(&self) -> wgpu::PrimitiveState {
        wgpu::PrimitiveState {
            cull_mode: self.cull_mode,
            ..Default::default()
        }
    }

    /// `wgpu::DepthStencilState` of this state (reverse-Z test always on).
    pub fn depth_stencil(&self) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: sward_engine::DEPTH_FORMAT,
            depth_write_enabled: self.depth_write,
            depth_compare: sward_engine::DEPTH_COMPARE,
            stencil: Default::default(),
            bias: Default::default(),
        }
    }
}

/// The pipeline state for `material` on a target with `sample_count` samples,
/// with the `alpha_to_coverage` setting (it only takes effect under MSAA).
pub fn material_pipeline_desc(
    material: &Material,
    sample_count: u32,
    alpha_to_coverage: bool,
) -> MaterialState {
    use wgpu::{BlendComponent as C, BlendFactor as F, BlendOperation as Op};
    let comp = |src, dst| C {
        src_factor: src,
        dst_factor: dst,
        operation: Op::Add,
    };
    let blend = match material.blend {
        BlendKind::Opaque | BlendKind::AlphaKey => None,
        BlendKind::Blend => Some(wgpu::BlendState::ALPHA_BLENDING),
        BlendKind::Add => Some(wgpu::BlendState {
            color: comp(F::SrcAlpha, F::One),
            alpha: comp(F::Zero, F::One),
        }),
        BlendKind::Modulate => Some(wgpu::BlendState {
            color: comp(F::Dst, F::Zero),
            alpha: comp(F::Zero, F::One),
        }),
        BlendKind::Modulate2x => Some(wgpu::BlendState {
            color: comp(F::Dst, F::Src),
            alpha: comp(F::Zero, F::One),
        }),
        BlendKind::BlendAdd => Some(wgpu::BlendState {
            color: comp(F::One, F::OneMinusSrcAlpha),
            alpha: comp(F::Zero, F::One),
        }),
    };
    let resolved = material.blend.is_depth_resolved();
    let atoc = resolved && alpha_to_coverage && sample_count > 1;
    let fragment_entry = match (resolved, atoc) {
        (false, _) => entry::BLEND,
        (true, true) => entry::COVERAGE,
        (true, false) => entry::DISCARD,
    };
    MaterialState {
        sample_count,
        alpha_to_coverage: atoc,
        depth_write: resolved && !material.no_depth_write,
        cull_mode: (!material.two_sided).then_some(wgpu::Face::Back),
        blend,
        fragment_entry,
        discards: fragment_entry == entry::DISCARD,
    }
}

/// CPU mirror of WGSL `alpha_key_coverage`: texture `alpha` remapped around
/// `cutoff` and sharpened by its screen derivative `alpha_fwidth`.
pub fn alpha_key_coverage(alpha: f32, cutoff: f32, alpha_fwidth: f32) -> f32 {
    ((alpha - cutoff) / alpha_fwidth.max(0.0001) + 0.5).clamp(0.0, 1.0)
}

/// WGSL `ALPHA_MIP_SCALE`: alpha gained per mip level.
pub const ALPHA_MIP_SCALE: f32 = 0.25;

/// CPU mirror of WGSL `alpha_mip_level`: the mip level for texel-space screen
/// derivatives `dx`, `dy`.
pub fn alpha_mip_level(dx: [f32; 2], dy: [f32; 2]) -> f32 {
    let d = (dx[0] * dx[0] + dx[1] * dx[1])
        .max(dy[0] * dy[0] + dy[1] * dy[1])
        .max(1e-12);
    (0.5 * d.log2()).max(0.0)
}

/// CPU mirror of WGSL `alpha_mip_scaled`: texture alpha scaled up with its
/// mip level (Golus' fix for cut-outs thinning out in box-filtered mips).
pub fn alpha_mip_scaled(alpha: f32, level: f32) -> f32 {
    alpha * (1.0 + level * ALPHA_MIP_SCALE)
}

/// CPU mirror of WGSL `dither_threshold`: the 4x4 Bayer threshold of a pixel.
pub fn dither_threshold(x: u32, y: u32) -> f32 {
    let lo = 2 * ((x ^ y) & 1) + (y & 1);
    let hi = 2 * (((x ^ y) >> 1) & 1) + ((y >> 1) & 1);
    ((4 * lo + hi) as f32 + 0.5) / 16.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elwynn() -> Material {
        Material::from_m2("ElwGra01", 4, 1).unwrap()
    }

    #[test]
    fn alpha_key_uses_coverage_with_depth_writes_under_msaa4() {
        let s = material_pipeline_desc(&elwynn(), 4, true);
        assert!(s.alpha_to_coverage && s.depth_write && s.blend.is_none());
        assert_eq!(s.fragment_entry, entry::COVERAGE);
        assert!(!s.discards);
        assert!(s.multisample().alpha_to_coverage_enabled);
        assert_eq!(s.multisample().count, 4);
        assert!(s.depth_stencil().depth_write_enabled);
    }

    #[test]
    fn alpha_key_discards_with_depth_writes_without_msaa_or_atoc() {
        for (samples, atoc) in [(1, true), (1, false), (4, false)] {
            let s = material_pipeline_desc(&elwynn(), samples, atoc);
            assert!(!s.alpha_to_coverage, "{samples}x atoc {atoc}");
            assert!(s.depth_write && s.discards && s.blend.is_none());
            assert_eq!(s.fragment_entry, entry::DISCARD);
            assert!(!s.multisample().alpha_to_coverage_enabled);
        }
    }

    #[test]
    fn render_flag_4_is_two_sided() {
        assert_eq!(material_pipeline_desc(&elwynn(), 4, true).cull_mode, None);
        let one_sided = Material::from_m2("x", 0, 1).unwrap();
        assert_eq!(
            material_pipeline_desc(&one_sided, 4, true).cull_mode,
            Some(wgpu::Face::Back)
        );
    }

    #[test]
    fn blended_modes_blend_without_depth_writes() {
        for mode in [2, 3, 4, 5, 6, 7] {
            let m = Material::from_m2("x", 4, mode).unwrap();
            let s = material_pipeline_desc(&m, 4, true);
            assert!(s.blend.is_some(), "mode {mode}");
            assert!(!s.depth_write && !s.alpha_to_coverage, "mode {mode}");
            assert_eq!(s.fragment_entry, entry::BLEND);
            assert_eq!(m.alpha_cutoff(), KEEP_ALL_CUTOFF);
        }
        let add = material_pipeline_desc(&Material::from_m2("x", 4, 4).unwrap(), 1, false);
        assert_eq!(add.blend.unwrap().color.dst_factor, wgpu::BlendFactor::One);
    }

    #[test]
    fn opaque_writes_depth_and_keeps_every_texel() {
        let m = Material::from_m2("x", 0, 0).unwrap();
        let s = material_pipeline_desc(&m, 4, true);
        assert!(s.depth_write && s.blend.is_none() && s.alpha_to_coverage);
        assert_eq!(m.alpha_cutoff(), KEEP_ALL_CUTOFF);
        // Coverage of any texel alpha is full with the keep-all cutoff.
        assert_eq!(alpha_key_coverage(0.0, m.alpha_cutoff(), 1.0), 1.0);
        let flagged = Material::from_m2("x", RENDER_FLAG_NO_DEPTH_WRITE, 0).unwrap();
        assert!(!material_pipeline_desc(&flagged, 1, false).depth_write);
    }

    #[test]
    fn undefined_blend_mode_is_an_error_naming_the_model() {
        let err = Material::from_m2("Weird01", 4, 9).unwrap_err().to_string();
        assert!(
            err.contains("Weird01") && err.contains("blend mode 9"),
            "{err}"
        );
    }

    #[test]
    fn coverage_is_sharpened_around_the_cutoff() {
        // At the cutoff half the samples; one fwidth away it saturates.
        assert_eq!(alpha_key_coverage(0.5, 0.5, 0.2), 0.5);
        assert_eq!(alpha_key_coverage(0.61, 0.5, 0.2), 1.0);
        assert_eq!(alpha_key_coverage(0.39, 0.5, 0.2), 0.0);
        assert!(alpha_key_coverage(0.55, 0.5, 0.2) > 0.7);
    }

    #[test]
    fn mip_scale_grows_alpha_only_when_minified() {
        assert_eq!(alpha_mip_level([0.5, 0.0], [0.0, 0.5]), 0.0);
        assert!((alpha_mip_level([4.0, 0.0], [0.0, 1.0]) - 2.0).abs() < 1e-6);
        assert_eq!(alpha_mip_scaled(0.4, 0.0), 0.4);
        assert!((alpha_mip_scaled(0.4, 2.0) - 0.6).abs() < 1e-6);
    }

    #[test]
    fn dither_is_a_permutation_of_the_16_thresholds() {
        let mut seen: Vec<u32> = (0..4)
            .flat_map(|y| (0..4).map(move |x| (dither_threshold(x, y) * 16.0 - 0.5) as u32))
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..16).collect::<Vec<_>>());
        assert_eq!(dither_threshold(1, 0), dither_threshold(5, 4));
    }
}
