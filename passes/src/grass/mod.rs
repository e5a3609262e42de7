//! Instanced grass: the `static-batch` baseline ([`StaticBatch`]) and the
//! `legacy-cpu` "before" path ([`LegacyCpu`]) over the detail models on the
//! GPU ([`GrassModels`]).
//!
//! - [`models`]: shared model geometry, textures with mips, materials.
//! - [`textures`]: detail textures as RGBA8 or BC blocks
//!   ([`TextureUpload`]: BC where the device has it, or CPU decoding).
//! - [`material`]: M2 render flags / blend mode -> pipeline state
//!   ([`material_pipeline_desc`]); alpha-to-coverage vs hard discard.
//! - [`wind`], [`fade`]: CPU mirrors of the `wind` and `fade` WGSL snippets
//!   (with the GPU parity test).
//! - [`instance`]: the placement -> mat4 reference transform.
//! - [`gpu`]: uniform structs, vertex layouts, pipelines.
//! - [`draw`]: the shared `grass.draw` pass.
//! - [`palette`]: the ground effects of the resident window at stable
//!   slots ([`EffectPalette`]), for techniques that index effects on the GPU.
//! - [`placement_gpu`]: every placement policy in WGSL and the `grass.place`
//!   generation pass (GPU = CPU parity; `sward inspect placements --gpu`).
//!
//! Both tiers draw with `grass_instanced.wgsl`; they differ only in where the
//! instance matrices come from: immutable per-model buffers built once per
//! world window, or a per-frame CPU cull + upload (`grass.upload`).

pub mod camera_grid;
pub mod draw;
pub mod fade;
pub mod gpu;
pub mod gpu_cull;
pub mod instance;
pub mod legacy;
pub mod material;
pub mod models;
pub mod palette;
pub mod placement_gpu;
pub mod static_batch;
pub mod textures;
pub mod wind;

#[cfg(test)]
mod tests;

pub use legacy::LegacyCpu;
pub use material::{material_pipeline_desc, BlendKind, Material, MaterialState};
pub use models::GrassModels;
pub use palette::{EffectPalette, PaletteError, SlotChange};
pub use static_batch::StaticBatch;
pub use textures::{TextureUpload, TextureUploadStats, UploadedAs};
