//! Terrain techniques. So far the baseline, `static-chunks`
//! ([`StaticChunks`]): one expanded vertex buffer per resident MCNK, CPU
//! frustum + distance culling per MCNK, one draw per visible MCNK, four-layer
//! MCAL splatting, sun lighting and distance fog.
//!
//! For a streaming world `static-chunks`, `atlas-instanced` and `gpu-cull`
//! are built with pools for the most tiles resident at once and follow
//! residency changes one tile at a time (`set_tile`, through
//! `Technique::residency_changed`) without rebuilding anything else.
//!
//! - [`mesh`]: CPU vertex expansion (the diamond fan, holes left out), bounds.
//! - [`clipmap`]: the `clipmap` tier (geometry clipmaps).
//! - [`cull`]: hierarchical CPU culling and its per-MCNK reference.
//! - [`splat`]: alpha atlas packing and the procedural layer textures.
//! - [`splat_gpu`]: the splat GPU resources shared by every terrain tier.
//! - [`shading`]: CPU mirrors of the `fog` and `lighting` WGSL snippets.
//! - [`gpu`]: Rust mirrors of the shader's structs.
//! - `static_chunks`: the baseline technique itself.
//! - [`template`]: the immutable 64-fan template of the atlas tiers and its
//!   CPU mirror of their vertex stage.
//! - [`atlas_instanced`]: `atlas-instanced` ([`AtlasInstanced`]): the template
//!   instanced over CPU-culled MCNKs, heights/normals from the exact atlas.
//! - [`gpu_cull`]: `gpu-cull` ([`GpuCullTerrain`]): compute culling of MCNKs
//!   compacted into multi-draw-indirect of the template.
//! - `tiled`: the one adapter from these three streaming tiers to
//!   `Technique` (`TiledTerrain`).

mod atlas_draw;
pub mod atlas_instanced;
#[cfg(test)]
mod atlas_tests;
pub mod clipmap;
pub mod cull;
pub mod gpu;
pub mod gpu_cull;
pub mod mesh;
pub mod shading;
pub mod splat;
pub mod splat_gpu;
pub(crate) mod static_chunks;
pub mod template;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;
mod tiled;
pub mod tileset_gpu;

pub use atlas_instanced::AtlasInstanced;
pub use gpu_cull::GpuCullTerrain;
pub use static_chunks::StaticChunks;

/// Technique name used in errors and logs.
pub const TECHNIQUE: &str = "terrain.static-chunks";
/// Name of the draw pass (also its puffin and GPU timestamp scope).
pub const PASS_DRAW: &str = "terrain.draw";

/// What `clipmap` (which keeps a height atlas of its own) derives from one
/// streamed tile on the tile workers: its height and normal tiles and its
/// splat alpha block. Applying it then only picks slots and copies these
/// bytes. The tiers that bind the renderer's shared atlas
/// (`atlas-instanced`, `gpu-cull`) prepare only the splat block
/// ([`Self::splat_preparer`]): the renderer prepares the atlas tiles once.
pub struct TerrainTile {
    /// Height and normal tiles, in MCNK order.
    pub atlas: crate::atlas::AtlasTile,
    /// The splat alpha block.
    pub splat: splat_gpu::SplatTile,
}

impl TerrainTile {
    /// Prepares tile `t` (coordinate `coord`).
    pub fn prepare(
        coord: sward_scenes::world::coords::TileCoord,
        t: &sward_scenes::AdtTile,
    ) -> Self {
        Self {
            atlas: crate::atlas::AtlasTile::prepare(t),
            splat: splat_gpu::SplatTile::prepare(coord, t),
        }
    }

    /// Its atlas and splat parts (both `None` without a prepared tile).
    pub fn into_parts(
        prepared: Option<Self>,
    ) -> (
        Option<crate::atlas::AtlasTile>,
        Option<splat_gpu::SplatTile>,
    ) {
        match prepared {
            Some(p) => (Some(p.atlas), Some(p.splat)),
            None => (None, None),
        }
    }

    /// The preparer of the tiers on the renderer's shared atlas: the
    /// tile's splat alpha block ([`splat_gpu::SplatTile`]), staged.
    pub fn splat_preparer() -> crate::technique::SharedPreparer {
        std::sync::Arc::new(crate::technique::FnPreparer(
            |i: &crate::technique::PrepareInputs<'_>| {
                Ok(splat_gpu::SplatTile::prepare(i.coord, i.tile).staged(i.device))
            },
        ))
    }

    /// The preparer `clipmap` hands the streamer.
    pub fn preparer() -> crate::technique::SharedPreparer {
        std::sync::Arc::new(crate::technique::FnPreparer(
            |i: &crate::technique::PrepareInputs<'_>| {
                let tile = Self::prepare(i.coord, i.tile);
                Ok(Self {
                    atlas: tile.atlas.staged(i.device),
                    splat: tile.splat.staged(i.device),
                })
            },
        ))
    }
}
