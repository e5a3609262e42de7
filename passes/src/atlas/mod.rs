//! The exact height/normal atlas: one
//! R32Float 17x9 tile per resident MCNK holding its 145 MCVT heights
//! unchanged (relative to the MCNK base Z), an RGBA8 snorm normal tile from
//! MCNR beside it, a storage buffer of per-MCNK records (coordinate, tile,
//! base Z, bounds, hole mask) and an R32Uint chunk-index texture over the
//! resident window, so a shader goes from a grid position to the MCNK's slot
//! in O(1). Shaders read it with `textureLoad` only, through the shared
//! `height_atlas` WGSL snippet, which reproduces the CPU reference's
//! four-triangle fan.
//!
//! - [`layout`]: tile placement, texel packing, the record and the index window.
//! - [`cpu`]: CPU mirror of the WGSL snippet.
//! - [`HeightAtlas`]: the GPU resources and their bind group entries.
//! - `slots`: which slot each resident MCNK holds (per tile) and the free slots.
//!
//! Lifecycle: built for the resident world ([`HeightAtlas::new`] uploads one
//! height and one normal tile per MCNK with `write_texture`). For a world
//! that streams, [`HeightAtlas::with_reach`] sizes the index for every tile
//! the source has and the atlas for the most tiles resident at once;
//! [`HeightAtlas::set_tile`] then makes a tile resident (its MCNKs take the
//! lowest free slots) or evicts it (slots freed, index texels cleared) in
//! place, without rebuilding anything else.

pub mod cpu;
mod height_atlas;
pub mod layout;
mod slots;
#[cfg(test)]
mod tests;

pub(crate) use height_atlas::{region, sampled_texture, write_region, write_region_staged};
pub use height_atlas::{AtlasReach, AtlasTile, HeightAtlas};
pub use layout::{AtlasChunkGpu, AtlasLayout, IndexWindow, NO_CHUNK, TILE_H, TILE_W};
pub use slots::TileSlotMap;
