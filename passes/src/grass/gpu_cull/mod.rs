//! Grass `gpu-cull` ([`GpuCull`]): compact per-placement descriptors grouped
//! into patches of 1x1, 2x2 or 4x4 MCNKs, culled per (patch, model) on the
//! GPU, drawn with multi-draw-indirect; the ground height comes from the
//! exact height atlas in the vertex shader.
//!
//! The GPU data is the [`patches::PatchSet`] (16-byte
//! [`descriptor::GrassDescriptor`]s, one [`patches::PatchEntry`] per patch
//! and model with conservative bounds, a patch table) of each resident
//! tile, held in pools ([`pool`]): descriptor pages, entry pages and one
//! block of patch table rows per tile slot. A whole-window build
//! ([`GpuCull::new`]) packs everything into one exact unit of each. While
//! the world streams ([`GpuCullTier`]), the pools are sized for
//! `max_resident_tiles` tiles and a residency change writes or frees one
//! tile's pages ([`GpuCull::set_tile`]; free entry slots hold
//! [`pool::FREE_ENTRY`], which the cull rejects), then [`GpuCull::commit`]
//! rewrites the small per-model table: each model's region of the args and
//! of the visible list is the prefix sum of its live entries and clumps.
//! Nothing else is rebuilt; a pool that runs out grows once, on the GPU.
//! Per frame
//! ([`GpuCull::record`]) the CPU writes two uniform blocks and records two
//! passes whose cost does not depend on the number of placements or patches:
//!
//! 1. `grass.cull` (compute, [`cull`]): a `reset` dispatch zeroes the counts
//!    (and the indirect args, when the plain multi-draw consumes them); then
//!    one invocation per (patch, model) entry tests the draw distance and the
//!    frustum and appends the entry's indexed draw to its model's region of
//!    the args (atomic compaction).
//! 2. `grass.draw`: per model, one `multi_draw_indexed_indirect_count` (count
//!    from the cull) or, without that capability, `multi_draw_indexed_indirect`
//!    over the region's zeroed tail; materials, fade, wind and alpha are the
//!    shared `grass_surface` with the pipeline state static-batch uses.
//!
//! Every few frames a `grass.readback` transfer pass first copies the counts
//! the previous cull left into a readback ring (`sward_engine::lagged`), which feeds
//! the `instances_drawn` / `triangles` counters a few frames late.
//!
//! Files, one job each: `options` (construction options, pool
//! capacities), `build` (the buffers and pipelines of a new tier),
//! `groups` (the bind groups over those buffers), `residency` (tiles in
//! and out of the pools, the per-model table), `record` (the passes),
//! `report` (accessors, facts, memory) and `technique` (the registered
//! technique, its parameters and tile preparer). Beside them:
//! [`descriptor`] (packing), [`patches`] (grouping, bounds, patch size),
//! [`pool`] (per-tile pages), [`cull`] (CPU reference of the cull),
//! [`instances`] (the per-instance cull's state and CPU reference),
//! [`draw`] (pipelines), `tests`: GPU tests (cull parity, roots, image
//! parity with static-batch, uploads).

pub mod cull;
pub mod descriptor;
pub mod draw;
pub use crate::occlusion_gate as gate;
pub mod instances;
pub mod patches;
pub mod pool;

mod build;
pub mod generated;
mod groups;
pub mod mcnk_records;
mod options;
mod placed;
mod record;
mod report;
mod residency;
mod technique;
#[cfg(test)]
mod tests;

pub use self::cull::{DistanceLod, GrassLod};
pub use self::options::{Capacity, CullMode, GpuCullOptions, MultiDraw, Placement};
pub use self::patches::PatchSize;
pub use self::residency::PreparedPatches;
pub use self::technique::{
    GpuCullTier, CULL_PARAM, ENTRY, LOD_FLOOR_PARAM, LOD_START_PARAM, OCCLUSION_PARAM, PATCH_PARAM,
    PLACEMENT_PARAM,
};

use std::collections::BTreeMap;
use std::ops::Range;

use sward_engine::lagged::LaggedReadback;
use sward_scenes::TileCoord;

use self::draw::{CullPipelines, DrawPipelines, InstancePipelines};
use self::patches::{ModelReach, PatchEntry};
use self::pool::{PagePool, Pools};

/// The cull's outputs and compute state, by [`CullMode`].
#[allow(clippy::large_enum_variant)] // one per technique instance, never in a collection
enum Compaction {
    /// One indirect draw per visible entry.
    Patches {
        args: wgpu::Buffer,
        counts: wgpu::Buffer,
        pipelines: CullPipelines,
        bind_group: wgpu::BindGroup,
    },
    /// One indirect draw per model over the visible list.
    Instances {
        /// Counts, per-model draws, survivor list ([`instances::State`]).
        state: wgpu::Buffer,
        /// The indirect dispatch of `cull_instances`.
        dispatch: wgpu::Buffer,
        /// Group 0 of `cull_patches` (with `dispatch`).
        patch_group: wgpu::BindGroup,
        /// Descriptor indices of the visible clumps, model after model.
        visible: wgpu::Buffer,
        /// The state header each frame starts from (written with the uniforms).
        initial: Vec<u32>,
        /// Each model's region of `visible`.
        regions: Vec<Range<u32>>,
        pipelines: InstancePipelines,
        bind_group: wgpu::BindGroup,
        roots_group: wgpu::BindGroup,
        /// Group 1 with occlusion off: a 1x1 stand-in pyramid.
        no_hiz_group: wgpu::BindGroup,
        /// With occlusion on: the pyramid and its group 1 (remade with it).
        hiz: Option<(crate::hiz::HiZ, Option<wgpu::BindGroup>)>,
        /// Group 1 over the depth pyramid the terrain published this frame
        /// ([`crate::hiz::TERRAIN_PYRAMID`]), for the texture it was made
        /// for: with one, grass tests against it and builds none.
        shared_hiz: Option<(wgpu::Texture, wgpu::BindGroup)>,
    },
}

/// Where one resident tile lives in the pools ([`pool`]).
struct TileAlloc {
    /// Its block of patch table rows.
    slot: u32,
    /// Its descriptor pages.
    desc_pages: Vec<u32>,
    /// Its entry pages.
    entry_pages: Vec<u32>,
    /// Patches holding grass.
    patches: usize,
    /// Entries (after splitting at page ends) of each model.
    model_entries: Vec<u32>,
    /// Descriptors of each model.
    model_descs: Vec<u32>,
}

/// The `gpu-cull` grass tier (see the module docs).
pub struct GpuCull {
    patch: PatchSize,
    multi_draw: MultiDraw,
    lod: DistanceLod,
    /// Most workgroups of one dispatch (the per-instance pass's cap).
    max_groups: u32,
    /// Bounds of each model (what tiles' patch sets are built with).
    reach: Vec<ModelReach>,
    /// The atlas index window's origin (the patch table's grid frames).
    window_origin: [u32; 2],
    pools: Pools,
    desc_pool: PagePool,
    entry_pool: PagePool,
    slot_pool: PagePool,
    tiles: BTreeMap<TileCoord, TileAlloc>,
    patch_count: usize,
    /// Live entries.
    entry_count: u32,
    /// Entry slots the cull dispatches over (live ones and free ones below
    /// the highest live page).
    entry_slots: u32,
    model_count: u32,
    /// Live entries (draw slots) per model: the range of its args region.
    model_entries: Vec<Range<u32>>,
    descriptors: wgpu::Buffer,
    patches: wgpu::Buffer,
    entries: wgpu::Buffer,
    cull_models: wgpu::Buffer,
    compaction: Compaction,
    cull_uniform: wgpu::Buffer,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    /// Group 2 of the draw (rebuilt when a pool grows).
    group2: wgpu::BindGroupLayout,
    draw_bind_group: wgpu::BindGroup,
    pipelines: DrawPipelines,
    readback: std::sync::Mutex<LaggedReadback>,
    readback_size: u64,
    /// Frames recorded (paces the readback).
    frame: u64,
    /// Whether the "occlusion without terrain" warning was logged.
    warned_no_occluder: bool,
    /// Frames whose occlusion test used the terrain's pyramid.
    terrain_pyramid_frames: u64,
    /// `occlusion=auto`'s gate (`None` for `off` and `on`).
    gate: Option<gate::OcclusionGate>,
    /// Resident instances of each model.
    model_instances: Vec<u64>,
    instances: u64,
    /// Bytes of the shared models.
    models_bytes: u64,
    /// `placement=gpu`: the records and the generation (the descriptor,
    /// entry, state and visible buffers above then hold one frame's
    /// generated placements).
    generated: Option<Box<generated::Generated>>,
}

/// Bytes of one `DrawIndexedIndirectArgs`.
const ARGS_BYTES: u64 = 20;
/// Bytes of one [`PatchEntry`].
const ENTRY_BYTES: u64 = std::mem::size_of::<PatchEntry>() as u64;
/// Bytes of one patch table row.
const PATCH_BYTES: u64 = std::mem::size_of::<patches::GrassPatchGpu>() as u64;
/// Descriptors per page of a streaming tier's descriptor pool.
pub const DESC_PAGE: u32 = 2048;
/// Entries per page of a streaming tier's entry pool.
pub const ENTRY_PAGE: u32 = 256;
