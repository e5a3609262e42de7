//! Detail (ground-effect) doodad models: the M2-like in-memory form the
//! renderers draw and the formats module writes, plus the 14 procedural
//! models that stand in for the Elwynn set ([`elwynn_models`]).
//!
//! A model is a tiny indexed triangle mesh (crossed quads and star clusters)
//! with one bone, no keyed tracks, one RGBA8 texture with alpha cut-outs and a
//! full mip chain, render flags 4 (two-sided) and blend mode 1 (alpha key).
//! Model space is Z-up with the root at the origin; `height` is the top of
//! the bounds (`bounds.max[2]`), what wind scales by.

mod bc;
mod build;
mod texture;

pub use bc::{BcFormat, BcMips};
pub use build::{
    checker_texture, elwynn_models, placeholder_model, ELWYNN_MODEL_NAMES, PLACEHOLDER_HEIGHT,
};
pub(crate) use texture::box_mips;
pub use texture::{DetailTexture, TexturePixels};

/// M2 render flag: draw both faces.
pub const RENDER_FLAG_TWO_SIDED: u16 = 4;
/// M2 blend mode 1: alpha key (cut-out).
pub const BLEND_ALPHA_KEY: u16 = 1;

/// One model vertex (`#[repr(C)]`, 36 bytes, bytemuck-castable).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DetailVertex {
    /// Model-space position, Z up.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Texture coordinate, v = 0 at the top of the texture.
    pub uv: [f32; 2],
    /// Bone index (always 0: every detail model has one bone).
    pub bone: u32,
}

/// Axis-aligned bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Aabb {
    /// Minimum corner.
    pub min: [f32; 3],
    /// Maximum corner.
    pub max: [f32; 3],
}

impl Aabb {
    /// Bounds of a set of points (empty input gives a zero box).
    pub fn from_points(points: impl IntoIterator<Item = [f32; 3]>) -> Self {
        let mut it = points.into_iter();
        let Some(first) = it.next() else {
            return Self::default();
        };
        it.fold(
            Self {
                min: first,
                max: first,
            },
            |b, p| Self {
                min: std::array::from_fn(|i| b.min[i].min(p[i])),
                max: std::array::from_fn(|i| b.max[i].max(p[i])),
            },
        )
    }

    /// Radius of the smallest origin-centred sphere containing the box.
    pub fn radius_from_origin(&self) -> f32 {
        let m: [f32; 3] = std::array::from_fn(|i| self.min[i].abs().max(self.max[i].abs()));
        (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt()
    }
}

/// A detail doodad model.
#[derive(Clone, Debug, PartialEq)]
pub struct DetailModel {
    /// Short name, e.g. `ElwGra01`.
    pub name: String,
    /// Archive path, e.g. `World\NoDXT\Detail\ElwGra01.m2`.
    pub path: String,
    /// Vertices.
    pub vertices: Vec<DetailVertex>,
    /// Triangle-list indices.
    pub indices: Vec<u16>,
    /// The model's one texture.
    pub texture: DetailTexture,
    /// M2 render flags (4 = two-sided).
    pub render_flags: u16,
    /// M2 blend mode (1 = alpha key).
    pub blend_mode: u16,
    /// Number of bones (1).
    pub bones: u32,
    /// Model-space bounds.
    pub bounds: Aabb,
    /// Visible height (`bounds.max[2]`), what wind amplitude scales by.
    pub height: f32,
}

impl DetailModel {
    /// Triangle count.
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }

    /// Checks indices against the vertex count and the texture's mip chain.
    pub fn validate(&self) -> Result<(), ModelError> {
        let bad = |reason: String| {
            Err(ModelError::Invalid {
                model: self.name.clone(),
                reason,
            })
        };
        if self.indices.len() % 3 != 0 {
            return bad(format!(
                "{} indices is not a triangle list",
                self.indices.len()
            ));
        }
        if let Some(i) = self
            .indices
            .iter()
            .find(|&&i| i as usize >= self.vertices.len())
        {
            return bad(format!("index {i} >= {} vertices", self.vertices.len()));
        }
        if let Some(b) = self.vertices.iter().find(|v| v.bone >= self.bones) {
            return bad(format!("bone {} >= {} bones", b.bone, self.bones));
        }
        self.texture
            .validate()
            .map_err(|reason| ModelError::Invalid {
                model: self.name.clone(),
                reason,
            })
    }
}

/// Errors of detail models.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A model breaks an invariant.
    #[error("detail model {model} is invalid: {reason}")]
    Invalid {
        /// Which model.
        model: String,
        /// What is wrong.
        reason: String,
    },
}
