//! sward's world data: the ADT-like world model and its exact height
//! reference ([`world`]), ground-effect tables ([`effects`]), detail doodad
//! models ([`models`]), grass placement ([`placement`]), procedural presets
//! ([`presets`]), the 3x3 ADT window ([`window`]) and its streaming from
//! worker threads ([`streaming`]); [`testing`] finds the real client files
//! for the workspace's tests.
//!
//! Nothing here touches the GPU; renderers consume these types.

pub mod cli;
pub mod effects;
pub mod formats;
pub mod models;
pub mod placement;
pub mod presets;
pub mod reaper;
pub mod rng;
pub mod streaming;
pub mod testing;
pub mod window;
pub mod world;

pub use effects::{
    EffectError, GroundEffectDoodad, GroundEffectLayout, GroundEffectTexture, GroundEffects,
};
pub use models::{BcFormat, BcMips, DetailModel, DetailTexture, DetailVertex, TexturePixels};
pub use placement::{Placement, PlacementStats, Placements, Policy};
pub use presets::{GrassRange, Preset, PresetError, PresetSummary, Scene};
pub use window::{TileSource, WindowSlide, WorldWindow};
pub use world::{
    AdtTile, ChunkCoord, Layer, Mcnk, McnkHeader, TileCoord, ValidTile, World, WorldError,
};
