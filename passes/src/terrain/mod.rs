//! Terrain techniques. So far the baseline, `static-chunks`
//! ([`StaticChunks`]): one expanded vertex buffer per resident MCNK, CPU
//! frustum + distance culling per MCNK, one draw per visible MCNK, four-layer
//! MCAL splatting, sun lighting and distance fog.
//!
//! - [`mesh`]: CPU vertex expansion (the diamond fan, holes left out), bounds.
//! - [`cull`]: hierarchical CPU culling and its per-MCNK reference.
//! - [`splat`]: alpha atlas packing and the procedural layer textures.
//! - [`splat_gpu`]: the splat GPU resources shared by every terrain tier.
//! - [`shading`]: CPU mirrors of the `fog` and `lighting` WGSL snippets.
//! - [`gpu`]: Rust mirrors of the shader's structs.
//! - `static_chunks`: the technique itself.

pub mod cull;
pub mod gpu;
pub mod mesh;
pub mod shading;
pub mod splat;
pub mod splat_gpu;
mod static_chunks;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use static_chunks::StaticChunks;

/// Technique name used in errors and logs.
pub const TECHNIQUE: &str = "terrain.static-chunks";
/// Name of the draw pass (also its puffin and GPU timestamp scope).
pub const PASS_DRAW: &str = "terrain.draw";
