//! Terrain `clipmap`: geometry clipmaps (Losasso & Hoppe 2004; GPU Gems 2,
//! chapter 2). Nested regular grids centred on the camera, level `l` with
//! spacing `s_0 * 2^l` where `s_0` is half an MCVT cell, drawn from a handful
//! of static meshes shared by every level (blocks, fix-up strips, L-shaped
//! trims, zero-area seam triangles) instanced per visible piece; heights and
//! normals come from one toroidally updated texture layer per level,
//! geomorphed towards the coarser level so levels meet without cracks or
//! popping. Level 0 reproduces the exact MCVT four-triangle fan; holes are
//! dropped per pixel from the resident MCNK's hole mask; shading is the
//! shared `terrain_shade` splat + sun + fog.
//!
//! - [`layout`]: level placement, pieces, geomorph weight (CPU reference).
//! - [`mesh`]: the static meshes (diagonals towards cell centres).
//! - [`source`]: where texels come from (resident world, far tile source).
//! - [`store`]: level texels, incremental toroidal update, `clip_sample` mirror.
//! - [`cull`]: GPU culling of pieces and sub-blocks into a multi-draw-indirect:
//!   boxes from per-tile height ranges, optional two-phase Hi-Z occlusion
//!   (CPU reference).
//! - [`fill`]: level updates in compute (jobs, far grid, CPU reference).
//! - [`lod`]: screen-space error LOD of whole rings (half-resolution rings).
//! - [`refine`]: local refinement of coarse levels over cliffs (CPU model).
//! - [`accuracy`]: height error per level against `height_at`.
//! - [`gpu`]: Rust mirrors of the shader structs.
//!
//! The pass itself, [`Clipmap`], one `impl Clipmap` block per job:
//!
//! - `setup`: the struct, its constructors and settings.
//! - `resources`: its GPU objects (textures, buffers, layouts, bind groups,
//!   pipelines) and how they are made.
//! - `levels`: where each level stands and what it lists (level set, far
//!   grid, half-resolution ring blocks).
//! - `record`: what a frame records (fill, cull, occlusion); `draw`: the
//!   draw of the cull's parts.
//! - `residency`: what a tile made resident or evicted changes.
//! - `bake`: the refinement bake and its re-bake worker.
//! - `report`: stats, facts, GPU memory, readbacks for tests.
//! - `technique`: the registry entry ([`ENTRY`]) and the `Technique` impl.

pub mod accuracy;
mod bake;
pub mod cull;
mod draw;
pub mod fill;
pub mod gpu;
pub mod layout;
mod levels;
pub mod lod;
pub mod mesh;
mod record;
pub mod refine;
mod report;
mod residency;
mod resources;
mod setup;
pub mod source;
mod state;
pub mod store;
mod technique;
#[cfg(test)]
mod tests;

pub use report::LevelWork;
pub use state::{Clipmap, ClipmapStats, Occlusion};
pub use technique::ENTRY;

/// Technique name used in errors and logs.
pub const TECHNIQUE: &str = "terrain.clipmap";
/// Name of the draw pass (also its puffin and GPU timestamp scope).
pub const PASS: &str = "terrain.clipmap";
/// Name of the compute pass that fills the level strips and culls the
/// pieces (two dispatches).
pub const PASS_COMPUTE: &str = "terrain.clipmap.compute";
/// Label of the fill pipeline.
pub const PASS_FILL: &str = "terrain.clipmap.fill";
/// Label of the cull pipeline.
pub const PASS_CULL: &str = "terrain.clipmap.cull";
/// Name of the pass that copies the draw counts for the lagged readback.
pub const PASS_CULL_READBACK: &str = "terrain.clipmap.cull.readback";
/// Name of the occlusion pyramid pass (`occlusion=on`).
pub const PASS_HIZ: &str = "terrain.clipmap.hiz";
/// Name of the occlusion cull's second phase.
pub const PASS_CULL_TWO: &str = "terrain.clipmap.cull.two";
/// Name of the draw of the parts the second phase found visible.
pub const PASS_TWO: &str = "terrain.clipmap.two";
