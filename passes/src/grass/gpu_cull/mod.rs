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
//! Modules: [`descriptor`] (packing), [`patches`] (grouping, bounds, patch
//! size), [`pool`] (per-tile pages), [`cull`] (CPU reference of the cull),
//! [`draw`] (pipelines),
//! `record` (the passes), `tests`: GPU tests
//! (cull parity, roots, image parity with static-batch, uploads).

pub mod cull;
pub mod descriptor;
pub mod draw;
pub use crate::occlusion_gate as gate;
pub mod instances;
pub mod patches;
pub mod pool;
mod record;

pub use patches::PatchSize;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::Range;

use sward_engine::{Capability, GpuContext};
use sward_scenes::{Placements, TileCoord, World};

use self::cull::{CullModel, GRASS_CULL_BYTES};
pub use self::cull::{DistanceLod, GrassLod};
use self::descriptor::DESCRIPTOR_BYTES;
use self::draw::{
    cull_pipelines, instance_pipelines, root_group_layout, CullPipelines, DrawPipelines,
    InstancePipelines, CULL_WORKGROUP,
};
use self::patches::{ModelReach, PatchEntry, PatchSet};
use self::pool::{PagePool, Pools};
use super::gpu::GRASS_FRAME_BYTES;
use super::models::GrassModels;
use super::static_batch::uniform_buffer;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use sward_engine::lagged::LaggedReadback;

/// Which multi-draw call consumes the cull's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiDraw {
    /// `multi_draw_indexed_indirect_count`: the GPU count bounds the draws.
    Count,
    /// `multi_draw_indexed_indirect`: every slot of a model's region is
    /// drawn; slots past the survivors hold zeroed args.
    Plain,
}

impl MultiDraw {
    /// The wgpu call's name (reported in the bench's per-run facts).
    pub fn name(self) -> &'static str {
        match self {
            MultiDraw::Count => "multi_draw_indexed_indirect_count",
            MultiDraw::Plain => "multi_draw_indexed_indirect",
        }
    }
}

/// What the cull tests and draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CullMode {
    /// Whole (patch, model) entries: one indirect draw per visible entry.
    Patch,
    /// Every clump of a visible entry ([`instances`]): one indirect draw
    /// per model over the compacted visible list.
    #[default]
    Instance,
}

impl CullMode {
    /// The `cull` parameter's value.
    pub fn name(self) -> &'static str {
        match self {
            CullMode::Patch => "patch",
            CullMode::Instance => "instance",
        }
    }
}

/// Construction options of [`GpuCull`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GpuCullOptions {
    /// Patch size.
    pub patch: PatchSize,
    /// Force a multi-draw variant (`None`: the count variant where the
    /// device has `Capability::MultiDrawIndirectCount`); patch culling only.
    pub multi_draw: Option<MultiDraw>,
    /// Patch or per-instance culling.
    pub cull: CullMode,
    /// Distance LOD (per-instance culling only).
    pub lod: DistanceLod,
    /// Hi-Z occlusion of clumps by the terrain drawn before them
    /// (per-instance culling only).
    pub occlusion: bool,
    /// With `occlusion`: run the test only while it hides clumps
    /// (`occlusion=auto`, [`gate`]).
    pub occlusion_auto: bool,
}

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

/// The key of the one pseudo-tile a whole-window build ([`GpuCull::new`])
/// places everything under.
const WHOLE: TileCoord = TileCoord {
    x: u32::MAX,
    y: u32::MAX,
};

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

fn pool_buffer(
    gpu: &GpuContext,
    label: &str,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // Bindings need a non-empty buffer; keep at least 64 bytes.
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(64).next_multiple_of(4),
        usage,
        mapped_at_creation: false,
    })
}

/// A larger copy of `old` (its contents copied on the GPU).
fn regrow(gpu: &GpuContext, old: &wgpu::Buffer, label: &str, bytes: u64) -> wgpu::Buffer {
    let new = pool_buffer(gpu, label, bytes, old.usage());
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("grass.gpu-cull.grow"),
        });
    encoder.copy_buffer_to_buffer(old, 0, &new, 0, old.size().min(new.size()));
    // After the copies recorded into `old` (staged descriptor pages of
    // tiles placed earlier in this change).
    gpu.submit([encoder.finish()]);
    new
}

fn bind(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn too_big(what: &str, needed: u64, limit: u64) -> PassError {
    PassError::DeviceLimit {
        technique: "grass.gpu-cull",
        what: what.into(),
        needed,
        limit,
    }
}

/// Units a pool of `capacity` grows to when `needed` more than `used` are
/// asked for: at least a quarter more, so growth stays rare.
fn grown(capacity: u32, used: u32, needed: u32) -> u32 {
    (used + needed).max(capacity + capacity.div_ceil(4))
}

/// Pool capacities of a new [`GpuCull`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Descriptor pages.
    pub desc_pages: u32,
    /// Entry pages.
    pub entry_pages: u32,
    /// Tile slots (patch table blocks).
    pub slots: u32,
}

impl GpuCull {
    /// Builds the patches of `placements` (the resident window of `world`)
    /// and uploads them with the cull and draw state, packed with nothing
    /// between them (one pseudo-tile filling each pool exactly). `atlas`
    /// must be the height atlas of the same window.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        world: &World,
        placements: &Placements,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
    ) -> Result<Self, PassError> {
        let set = PatchSet::build(world, placements, &reach_of(models), options.patch)?;
        let pools = Pools {
            desc_page: (set.descriptors.len() as u32).max(1),
            entry_page: (set.entries.len() as u32).max(1),
            patch_block: (set.patch_count() as u32).max(1),
        };
        let capacity = Capacity {
            desc_pages: 1,
            entry_pages: 1,
            slots: 1,
        };
        let mut t = Self::empty(gpu, models, atlas, options, pools, capacity)?;
        t.insert(gpu, WHOLE, &set, atlas, None)?;
        t.commit(gpu, models);
        Ok(t)
    }

    /// The pool unit sizes of a streaming tier with patches of `patch`.
    pub fn streaming_pools(patch: PatchSize) -> Pools {
        let side = 16 / patch.chunks();
        Pools {
            desc_page: DESC_PAGE,
            entry_page: ENTRY_PAGE,
            patch_block: side * side,
        }
    }

    /// A tier holding no tile yet, with pools of `pools` units and
    /// `capacity`; tiles come with [`Self::set_tile`], and
    /// [`Self::commit`] publishes them.
    pub fn empty(
        gpu: &GpuContext,
        models: &GrassModels,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
        pools: Pools,
        capacity: Capacity,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let multi_draw =
            options
                .multi_draw
                .unwrap_or(if gpu.caps.has(Capability::MultiDrawIndirectCount) {
                    MultiDraw::Count
                } else {
                    MultiDraw::Plain
                });
        let instance_mode = options.cull == CullMode::Instance;
        if options.occlusion && !instance_mode {
            return Err(PassError::InvalidParams {
                technique: "grass.gpu-cull",
                reason: "occlusion tests each clump in the per-instance pass: use it with cull=instance, not cull=patch".into(),
            });
        }
        if options.lod.is_on() && !instance_mode {
            return Err(PassError::InvalidParams {
                technique: "grass.gpu-cull",
                reason: "the distance LOD thins clumps in the per-instance pass: use it with cull=instance, not cull=patch".into(),
            });
        }
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let desc_slots = u64::from(capacity.desc_pages) * u64::from(pools.desc_page);
        let entry_slots = u64::from(capacity.entry_pages) * u64::from(pools.entry_page);
        let descriptors = pool_buffer(
            gpu,
            "grass.descriptors",
            desc_slots * DESCRIPTOR_BYTES,
            storage,
        );
        let patches = pool_buffer(
            gpu,
            "grass.patches",
            u64::from(capacity.slots * pools.patch_block) * PATCH_BYTES,
            storage,
        );
        let entries = pool_buffer(gpu, "grass.entries", entry_slots * ENTRY_BYTES, storage);
        let cull_models = pool_buffer(
            gpu,
            "grass.cull_models",
            models.len() as u64 * std::mem::size_of::<CullModel>() as u64,
            storage,
        );
        let cull_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.cull.uniforms"),
            size: GRASS_CULL_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_uniform = uniform_buffer(gpu);
        let group2 = root_group_layout(device, wgpu::ShaderStages::VERTEX, instance_mode);
        let (compaction, readback_size) = if instance_mode {
            let header = instances::State::header_words(models.len());
            let state = Self::state_buffer(gpu, models.len(), entry_slots);
            let visible = Self::visible_buffer(gpu, desc_slots);
            let dispatch = pool_buffer(gpu, "grass.cull.dispatch", 16, indirect_usage());
            let pipelines = instance_pipelines(device)?;
            let stand_in = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("grass.hiz.off"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: crate::hiz::HIZ_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            });
            let no_hiz_group = crate::hiz::pyramid_group(
                device,
                &pipelines.hiz,
                &stand_in.create_view(&Default::default()),
            );
            let hiz = if options.occlusion {
                Some((crate::hiz::HiZ::new(device, crate::hiz::PASS_HIZ)?, None))
            } else {
                None
            };
            let [patch_group, bind_group, roots_group] = instance_groups(
                device,
                &pipelines,
                [
                    &cull_uniform,
                    &entries,
                    &cull_models,
                    &state,
                    &dispatch,
                    &visible,
                ],
                [&descriptors, &patches],
                atlas,
            );
            let compaction = Compaction::Instances {
                state,
                dispatch,
                patch_group,
                visible,
                initial: Vec::new(),
                regions: Vec::new(),
                pipelines,
                bind_group,
                roots_group,
                no_hiz_group,
                hiz,
                shared_hiz: None,
            };
            (compaction, header as u64 * 4)
        } else {
            let args = pool_buffer(
                gpu,
                "grass.args",
                entry_slots * ARGS_BYTES,
                indirect_usage(),
            );
            let counts_size = (2 * models.len() as u64 * 4).max(16);
            let counts = pool_buffer(gpu, "grass.counts", counts_size, indirect_usage());
            let pipelines = cull_pipelines(device)?;
            let bind_group = patch_group(
                device,
                &pipelines,
                [&cull_uniform, &entries, &cull_models, &args, &counts],
            );
            let compaction = Compaction::Patches {
                args,
                counts,
                pipelines,
                bind_group,
            };
            (compaction, counts_size)
        };
        let visible = match &compaction {
            Compaction::Instances { visible, .. } => Some(visible),
            Compaction::Patches { .. } => None,
        };
        let draw_bind_group = draw_group(
            device,
            &group2,
            [&descriptors, &patches],
            atlas,
            visible,
            &cull_uniform,
        );
        let entry = if instance_mode {
            "vs_visible"
        } else {
            "vs_main"
        };
        let pipelines = DrawPipelines::new(device, models, &group2, entry)?;
        let frame_bind_group = models.frame_bind_group(device, &frame_uniform);
        let readback = LaggedReadback::new(device, "grass.cull.readback", readback_size);
        let t = GpuCull {
            patch: options.patch,
            multi_draw,
            lod: options.lod,
            max_groups: device.limits().max_compute_workgroups_per_dimension,
            reach: reach_of(models),
            window_origin: atlas.window().origin,
            pools,
            desc_pool: PagePool::new(capacity.desc_pages),
            entry_pool: PagePool::new(capacity.entry_pages),
            slot_pool: PagePool::new(capacity.slots),
            tiles: BTreeMap::new(),
            patch_count: 0,
            entry_count: 0,
            entry_slots: 0,
            model_count: models.len() as u32,
            model_entries: vec![0..0; models.len()],
            descriptors,
            patches,
            entries,
            cull_models,
            compaction,
            cull_uniform,
            frame_uniform,
            frame_bind_group,
            group2,
            draw_bind_group,
            pipelines,
            readback: std::sync::Mutex::new(readback),
            readback_size,
            frame: 0,
            warned_no_occluder: false,
            terrain_pyramid_frames: 0,
            gate: (options.occlusion && options.occlusion_auto).then(gate::OcclusionGate::default),
            model_instances: vec![0; models.len()],
            instances: 0,
            models_bytes: models.gpu_memory_bytes(),
        };
        t.check_limits(gpu)?;
        Ok(t)
    }

    fn state_buffer(gpu: &GpuContext, models: usize, entry_slots: u64) -> wgpu::Buffer {
        let words = instances::State::words(models, entry_slots as usize);
        pool_buffer(gpu, "grass.cull.state", words as u64 * 4, indirect_usage())
    }

    fn visible_buffer(gpu: &GpuContext, desc_slots: u64) -> wgpu::Buffer {
        pool_buffer(
            gpu,
            "grass.visible",
            desc_slots * 4,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )
    }

    fn check_limits(&self, gpu: &GpuContext) -> Result<(), PassError> {
        let limits = gpu.device.limits();
        let binding = u64::from(limits.max_storage_buffer_binding_size);
        let descriptor_bytes = self.descriptors.size();
        if descriptor_bytes > binding {
            return Err(too_big(
                "descriptor buffer (bytes)",
                descriptor_bytes,
                binding,
            ));
        }
        let slots = u64::from(self.entry_pool.capacity()) * u64::from(self.pools.entry_page);
        let groups = slots.div_ceil(u64::from(CULL_WORKGROUP));
        let max_groups = u64::from(limits.max_compute_workgroups_per_dimension);
        if groups > max_groups {
            return Err(too_big("cull workgroups", groups, max_groups));
        }
        Ok(())
    }

    /// Makes tile `tile` resident with `placements` (replacing it if it
    /// was), or evicts it when `placements` is `None`: its patches are
    /// built and written into free pages of the pools (which grow, on the
    /// GPU, when full). Returns the bytes written; [`Self::commit`] then
    /// publishes the change to the cull. `world` must hold the tile's MCNKs.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        placements: Option<&Placements>,
        atlas: &HeightAtlas,
    ) -> Result<u64, PassError> {
        self.set_tile_prepared(gpu, world, tile, placements, atlas, None)
    }

    /// [`Self::set_tile`] with the tile's patch set built beforehand (by the
    /// technique's tile preparer, on a worker thread); `None` builds it here.
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        placements: Option<&Placements>,
        atlas: &HeightAtlas,
        prepared: Option<PreparedPatches>,
    ) -> Result<u64, PassError> {
        let mut bytes = self.remove(gpu, tile);
        if let Some(p) = placements.filter(|p| !p.is_empty()) {
            let prepared = match prepared {
                Some(prepared) => prepared,
                None => {
                    PreparedPatches::unstaged(PatchSet::build(world, p, &self.reach, self.patch)?)
                }
            };
            bytes += self.insert(gpu, tile, &prepared.set, atlas, prepared.staged.as_ref())?;
        }
        Ok(bytes)
    }

    /// What building a tile's patch set needs (model reach, patch size),
    /// for a preparer that runs on another thread.
    pub fn patch_config(&self) -> (Vec<ModelReach>, PatchSize) {
        (self.reach.clone(), self.patch)
    }

    /// What staging a tile's descriptors needs ([`PreparedPatches::staged`]):
    /// the pool units and the tile slots.
    pub fn staging_config(&self) -> (Pools, u32) {
        (self.pools, self.slot_pool.capacity())
    }

    /// Drops `tile`'s pages: its entry slots become [`pool::FREE_ENTRY`]s.
    fn remove(&mut self, gpu: &GpuContext, tile: TileCoord) -> u64 {
        let Some(old) = self.tiles.remove(&tile) else {
            return 0;
        };
        let free = vec![pool::FREE_ENTRY; self.pools.entry_page as usize];
        let page_bytes = u64::from(self.pools.entry_page) * ENTRY_BYTES;
        for &page in &old.entry_pages {
            gpu.queue.write_buffer(
                &self.entries,
                u64::from(page) * page_bytes,
                bytemuck::cast_slice(&free),
            );
        }
        self.desc_pool.release(&old.desc_pages);
        self.entry_pool.release(&old.entry_pages);
        self.slot_pool.release(&[old.slot]);
        old.entry_pages.len() as u64 * page_bytes
    }

    /// Writes `set` (tile `tile`'s, indices from 0) into free pages; with
    /// `staged` descriptors (numbered for a slot) and that slot free, the
    /// tile takes the slot and its descriptor pages are copied from the
    /// staging buffer with the next frame instead of written.
    fn insert(
        &mut self,
        gpu: &GpuContext,
        tile: TileCoord,
        set: &PatchSet,
        atlas: &HeightAtlas,
        staged: Option<&StagedPatches>,
    ) -> Result<u64, PassError> {
        if set.patch_count() as u32 > self.pools.patch_block {
            return Err(PassError::InvalidInput {
                technique: "grass.gpu-cull",
                what: format!("tile ({}, {})", tile.x, tile.y),
                reason: format!(
                    "{} patches, more than a tile slot's {}",
                    set.patch_count(),
                    self.pools.patch_block
                ),
            });
        }
        let desc_pages = self.pools.desc_pages(set.descriptors.len());
        let entry_count = self.pools.entry_count(set);
        let entry_pages = self.pools.entry_pages(entry_count);
        self.reserve(gpu, desc_pages, entry_pages, atlas)?;
        let own = staged.filter(|s| {
            s.descriptors.len() == set.descriptors.len() as u64 * DESCRIPTOR_BYTES
                && self.slot_pool.take(s.slot)
        });
        let slot = match own {
            Some(s) => s.slot,
            None => self.slot_pool.alloc(1).expect("reserved")[0],
        };
        let desc = self.desc_pool.alloc(desc_pages).expect("reserved");
        let entry = self.entry_pool.alloc(entry_pages).expect("reserved");
        let mut bytes = 0;
        let q = &gpu.queue;
        let desc_page_bytes = u64::from(self.pools.desc_page) * DESCRIPTOR_BYTES;
        match own {
            Some(s) => bytes += self.copy_staged_pages(gpu, &s.descriptors, &desc),
            None => {
                let descriptors = pool::place_descriptors(set, &self.pools, slot);
                let pages = descriptors.chunks(self.pools.desc_page as usize);
                for (page, list) in desc.iter().zip(pages) {
                    let data: &[u8] = bytemuck::cast_slice(list);
                    q.write_buffer(&self.descriptors, u64::from(*page) * desc_page_bytes, data);
                    bytes += data.len() as u64;
                }
            }
        }
        let entries = pool::place_entries(set, &self.pools, slot, &desc);
        let rows = set.patch_table(self.window_origin);
        if !rows.is_empty() {
            let data: &[u8] = bytemuck::cast_slice(&rows);
            let offset = u64::from(slot * self.pools.patch_block) * PATCH_BYTES;
            q.write_buffer(&self.patches, offset, data);
            bytes += data.len() as u64;
        }
        let entry_page_bytes = u64::from(self.pools.entry_page) * ENTRY_BYTES;
        for (page, chunk) in entry
            .iter()
            .zip(entries.chunks(self.pools.entry_page as usize))
        {
            let mut list = chunk.to_vec();
            list.resize(self.pools.entry_page as usize, pool::FREE_ENTRY);
            let data: &[u8] = bytemuck::cast_slice(&list);
            q.write_buffer(&self.entries, u64::from(*page) * entry_page_bytes, data);
            bytes += data.len() as u64;
        }
        let models = self.model_count as usize;
        let mut model_entries = vec![0u32; models];
        let mut model_descs = vec![0u32; models];
        for e in &entries {
            model_entries[e.model as usize] += 1;
            model_descs[e.model as usize] += e.count;
        }
        self.tiles.insert(
            tile,
            TileAlloc {
                slot,
                desc_pages: desc,
                entry_pages: entry,
                patches: set.patch_count(),
                model_entries,
                model_descs,
            },
        );
        Ok(bytes)
    }

    /// Records the copies of a tile's staged descriptors into its pages
    /// `pages` (one copy per run of consecutive pages), sent with the next
    /// frame; the bytes copied.
    fn copy_staged_pages(
        &self,
        gpu: &GpuContext,
        staged: &crate::technique::StagedBytes,
        pages: &[u32],
    ) -> u64 {
        let page_bytes = u64::from(self.pools.desc_page) * DESCRIPTOR_BYTES;
        gpu.record_copies("grass.descriptors_copy", |encoder| {
            let mut i = 0;
            while i < pages.len() {
                let mut j = i + 1;
                while j < pages.len() && pages[j] == pages[j - 1] + 1 {
                    j += 1;
                }
                let from = i as u64 * page_bytes;
                let len = (staged.len() - from).min((j - i) as u64 * page_bytes);
                encoder.copy_buffer_to_buffer(
                    staged.buffer(),
                    from,
                    &self.descriptors,
                    u64::from(pages[i]) * page_bytes,
                    len,
                );
                i = j;
            }
        });
        staged.len()
    }

    /// Makes room for a tile of `desc_pages` descriptor pages and
    /// `entry_pages` entry pages: pools that lack it grow (their buffers
    /// copied into larger ones on the GPU, the bind groups remade).
    fn reserve(
        &mut self,
        gpu: &GpuContext,
        desc_pages: u32,
        entry_pages: u32,
        atlas: &HeightAtlas,
    ) -> Result<(), PassError> {
        let mut regrown = false;
        if !self.slot_pool.fits(1) {
            let p = &mut self.slot_pool;
            p.grow(grown(p.capacity(), p.used(), 1));
            let rows = u64::from(p.capacity() * self.pools.patch_block);
            self.patches = regrow(gpu, &self.patches, "grass.patches", rows * PATCH_BYTES);
            regrown = true;
        }
        if !self.desc_pool.fits(desc_pages) {
            let p = &mut self.desc_pool;
            p.grow(grown(p.capacity(), p.used(), desc_pages));
            let slots = u64::from(p.capacity()) * u64::from(self.pools.desc_page);
            self.descriptors = regrow(
                gpu,
                &self.descriptors,
                "grass.descriptors",
                slots * DESCRIPTOR_BYTES,
            );
            if let Compaction::Instances { visible, .. } = &mut self.compaction {
                *visible = Self::visible_buffer(gpu, slots);
            }
            regrown = true;
        }
        if !self.entry_pool.fits(entry_pages) {
            let p = &mut self.entry_pool;
            p.grow(grown(p.capacity(), p.used(), entry_pages));
            let slots = u64::from(p.capacity()) * u64::from(self.pools.entry_page);
            self.entries = regrow(gpu, &self.entries, "grass.entries", slots * ENTRY_BYTES);
            match &mut self.compaction {
                Compaction::Instances { state, .. } => {
                    *state = Self::state_buffer(gpu, self.model_count as usize, slots);
                }
                Compaction::Patches { args, .. } => {
                    *args = pool_buffer(gpu, "grass.args", slots * ARGS_BYTES, indirect_usage());
                }
            }
            regrown = true;
        }
        if regrown {
            self.check_limits(gpu)?;
            self.rebind(gpu, atlas);
        }
        Ok(())
    }

    /// Remakes every bind group over the current buffers.
    fn rebind(&mut self, gpu: &GpuContext, atlas: &HeightAtlas) {
        let device = &gpu.device;
        let visible = match &mut self.compaction {
            Compaction::Patches {
                args,
                counts,
                pipelines,
                bind_group,
            } => {
                *bind_group = patch_group(
                    device,
                    pipelines,
                    [
                        &self.cull_uniform,
                        &self.entries,
                        &self.cull_models,
                        args,
                        counts,
                    ],
                );
                None
            }
            Compaction::Instances {
                state,
                dispatch,
                patch_group,
                visible,
                pipelines,
                bind_group,
                roots_group,
                ..
            } => {
                [*patch_group, *bind_group, *roots_group] = instance_groups(
                    device,
                    pipelines,
                    [
                        &self.cull_uniform,
                        &self.entries,
                        &self.cull_models,
                        state,
                        dispatch,
                        visible,
                    ],
                    [&self.descriptors, &self.patches],
                    atlas,
                );
                Some(&*visible)
            }
        };
        self.draw_bind_group = draw_group(
            device,
            &self.group2,
            [&self.descriptors, &self.patches],
            atlas,
            visible,
            &self.cull_uniform,
        );
    }

    /// Publishes the resident tiles to the cull: each model's args region
    /// and visible-list region (prefix sums of its live entries and
    /// clumps, in model order), the per-model table (one small write), the
    /// counts, and the dispatch extent. Work and bytes depend on the number
    /// of models and resident tiles, not on placements. The lagged count
    /// readback carries on: until its next result the reported counts are
    /// the previous resident world's (as lagged counts always are a few
    /// frames old), never the all-instances upper bound of a fresh build.
    /// Returns the bytes written.
    pub fn commit(&mut self, gpu: &GpuContext, models: &GrassModels) -> u64 {
        let n = self.model_count as usize;
        let mut entries = vec![0u32; n];
        let mut descs = vec![0u32; n];
        self.patch_count = 0;
        for t in self.tiles.values() {
            self.patch_count += t.patches;
            for m in 0..n {
                entries[m] += t.model_entries[m];
                descs[m] += t.model_descs[m];
            }
        }
        let prefix = |counts: &[u32]| {
            let mut next = 0u32;
            counts
                .iter()
                .map(|&c| {
                    let r = next..next + c;
                    next += c;
                    r
                })
                .collect::<Vec<_>>()
        };
        self.model_entries = prefix(&entries);
        let regions = prefix(&descs);
        self.entry_count = entries.iter().sum();
        self.entry_slots = self.entry_pool.high_water() * self.pools.entry_page;
        self.instances = descs.iter().map(|&d| u64::from(d)).sum();
        self.model_instances = descs.iter().map(|&d| u64::from(d)).collect();
        let table: Vec<CullModel> = models
            .models
            .iter()
            .zip(self.model_entries.iter().zip(&regions))
            .map(|(m, (args, visible))| CullModel {
                index_count: m.index_count,
                first_index: m.first_index,
                base_vertex: m.base_vertex,
                args_base: args.start,
                sway_height: m.height,
                radius: m.radius,
                visible_base: visible.start,
                _pad: 0,
            })
            .collect();
        if let Compaction::Instances {
            initial,
            regions: r,
            ..
        } = &mut self.compaction
        {
            *initial = instances::State::initial(&table);
            *r = regions;
        }
        let data: &[u8] = bytemuck::cast_slice(&table);
        if !data.is_empty() {
            gpu.queue.write_buffer(&self.cull_models, 0, data);
        }
        data.len() as u64
    }
}

fn reach_of(models: &GrassModels) -> Vec<ModelReach> {
    models
        .models
        .iter()
        .map(|m| ModelReach {
            radius: m.radius,
            sway_height: m.height,
        })
        .collect()
}

fn indirect_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::INDIRECT
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST
}

/// Group 0 of the patch cull: uniforms, entries, models, args, counts.
fn patch_group(
    device: &wgpu::Device,
    pipelines: &CullPipelines,
    [uniform, entries, models, args, counts]: [&wgpu::Buffer; 5],
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, args),
            bind(4, counts),
        ],
    })
}

/// The per-instance cull's groups: `cull_patches`' group 0,
/// `cull_instances`' group 0 and its group 2 (roots).
fn instance_groups(
    device: &wgpu::Device,
    pipelines: &InstancePipelines,
    [uniform, entries, models, state, dispatch, visible]: [&wgpu::Buffer; 6],
    [descriptors, patches]: [&wgpu::Buffer; 2],
    atlas: &HeightAtlas,
) -> [wgpu::BindGroup; 3] {
    let patch_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.patch_layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, state),
            bind(5, dispatch),
        ],
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(draw::PASS_CULL),
        layout: &pipelines.layout,
        entries: &[
            bind(0, uniform),
            bind(1, entries),
            bind(2, models),
            bind(3, state),
            bind(4, visible),
        ],
    });
    let [c0, c1, c2, c3] = atlas.bind_entries(2);
    let roots_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("grass.cull.roots"),
        layout: &pipelines.roots,
        entries: &[bind(0, descriptors), bind(1, patches), c0, c1, c2, c3],
    });
    [patch_group, bind_group, roots_group]
}

/// Group 2 of the draw: descriptors, patch table, atlas, the visible list
/// (per-instance culling) and the cull uniforms.
fn draw_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    [descriptors, patches]: [&wgpu::Buffer; 2],
    atlas: &HeightAtlas,
    visible: Option<&wgpu::Buffer>,
    cull_uniform: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let [a0, a1, a2, a3] = atlas.bind_entries(2);
    let mut entries = vec![bind(0, descriptors), bind(1, patches), a0, a1, a2, a3];
    if let Some(v) = visible {
        entries.push(bind(6, v));
    }
    entries.push(bind(7, cull_uniform));
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("grass.gpu-cull.draw"),
        layout,
        entries: &entries,
    })
}

impl GpuCull {
    /// Patch size in use.
    pub fn patch_size(&self) -> PatchSize {
        self.patch
    }

    /// The multi-draw variant in use.
    pub fn multi_draw(&self) -> MultiDraw {
        self.multi_draw
    }

    /// Number of patches holding grass.
    pub fn patch_count(&self) -> usize {
        self.patch_count
    }

    /// Number of (patch, model) entries: the cull's invocations and the
    /// largest number of draws per frame.
    pub fn entry_count(&self) -> u32 {
        self.entry_count
    }

    /// Resident instances (all placements of the window).
    pub fn instance_count(&self) -> u64 {
        self.instances
    }

    /// The pipeline state each model was last drawn with.
    pub fn material_states(&self) -> &[super::MaterialState] {
        self.pipelines.states()
    }

    /// The descriptor buffer (tests read it back).
    pub fn descriptor_buffer(&self) -> &wgpu::Buffer {
        &self.descriptors
    }

    /// The patch table buffer (`GrassPatchGpu` rows).
    pub fn patch_buffer(&self) -> &wgpu::Buffer {
        &self.patches
    }

    /// Patch or per-instance culling.
    pub fn cull_mode(&self) -> CullMode {
        match self.compaction {
            Compaction::Patches { .. } => CullMode::Patch,
            Compaction::Instances { .. } => CullMode::Instance,
        }
    }

    /// The distance LOD in use.
    pub fn lod(&self) -> DistanceLod {
        self.lod
    }

    /// Frames whose occlusion test used the pyramid the terrain published
    /// instead of one grass built (since [`Self::begin_run`]).
    pub fn terrain_pyramid_frames(&self) -> u64 {
        self.terrain_pyramid_frames
    }

    /// Starts the per-run counters of [`Self::facts`] again: the frames
    /// that used the terrain's pyramid and `occlusion=auto`'s frame counts.
    pub fn begin_run(&mut self) {
        self.terrain_pyramid_frames = 0;
        if let Some(g) = self.gate.as_mut() {
            g.restart_counts();
        }
    }

    /// Whether clumps are tested against a Hi-Z pyramid of the terrain.
    pub fn occlusion_on(&self) -> bool {
        matches!(&self.compaction, Compaction::Instances { hiz: Some(_), .. })
    }

    /// The Hi-Z pyramid, with occlusion on and after a frame (tests).
    pub fn hiz(&self) -> Option<&crate::hiz::HiZ> {
        match &self.compaction {
            Compaction::Instances {
                hiz: Some((h, _)), ..
            } => Some(h),
            _ => None,
        }
    }

    /// Patch culling: the indirect args and count buffers the last cull
    /// wrote (tests).
    pub fn cull_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        match &self.compaction {
            Compaction::Patches { args, counts, .. } => Some((args, counts)),
            Compaction::Instances { .. } => None,
        }
    }

    /// Per-instance culling: the state buffer (its header holds the per-model
    /// draws), the visible list and each model's region of it (tests).
    pub fn instance_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, &[Range<u32>])> {
        match &self.compaction {
            Compaction::Instances {
                state,
                visible,
                regions,
                ..
            } => Some((state, visible, regions)),
            Compaction::Patches { .. } => None,
        }
    }

    /// Draw slots (entries) of each model: its region of the args buffer.
    pub fn model_regions(&self) -> &[Range<u32>] {
        &self.model_entries
    }

    /// Bytes the CPU uploads per frame: the two uniform blocks, plus the
    /// per-instance state header or the count variant's zeroed counts.
    pub fn bytes_per_frame(&self) -> u64 {
        let reset = match &self.compaction {
            Compaction::Instances { initial, .. } => 4 * initial.len() as u64 + 12,
            Compaction::Patches { .. } if self.multi_draw == MultiDraw::Count => {
                8 * u64::from(self.model_count)
            }
            Compaction::Patches { .. } => 0,
        };
        GRASS_FRAME_BYTES + GRASS_CULL_BYTES + reset
    }

    /// Facts for the bench report: `gpu_cull.patch_mcnks` (MCNKs per patch
    /// side), `gpu_cull.patches`, `gpu_cull.entries` (draw slots),
    /// `gpu_cull.multi_draw_count` (1: `multi_draw_indexed_indirect_count`
    /// ran, 0: `multi_draw_indexed_indirect` over zeroed args; patch culling),
    /// `gpu_cull.instance_cull` (1: per-instance culling, one
    /// `draw_indexed_indirect` per model), `gpu_cull.lod_floor` and
    /// `gpu_cull.lod_start` (1 and the start: LOD off),
    /// `gpu_cull.descriptor_bytes`.
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            f.insert(format!("gpu_cull.{k}"), v);
        };
        put("patch_mcnks", f64::from(self.patch.chunks()));
        put("patches", self.patch_count as f64);
        put("entries", f64::from(self.entry_count));
        let instance = self.cull_mode() == CullMode::Instance;
        put(
            "multi_draw_count",
            f64::from(u8::from(!instance && self.multi_draw == MultiDraw::Count)),
        );
        put("instance_cull", f64::from(u8::from(instance)));
        put("occlusion", f64::from(u8::from(self.occlusion_on())));
        if let Some(g) = &self.gate {
            put("occlusion_ran_frames", g.ran_frames as f64);
            put("occlusion_frames", g.frames as f64);
        }
        if let Some(n) = self.occluded_lately() {
            put("occluded", n as f64);
        }
        if self.occlusion_on() {
            put(
                "occlusion_terrain_pyramid_frames",
                self.terrain_pyramid_frames as f64,
            );
        }
        put("lod_floor", f64::from(self.lod.floor));
        put("lod_start", f64::from(self.lod.start));
        put(
            "descriptor_bytes",
            (self.instances * DESCRIPTOR_BYTES) as f64,
        );
        f
    }

    /// GPU memory of every buffer of the tier, the readback ring and the
    /// shared models (the height atlas is counted by its owner).
    pub fn gpu_memory_bytes(&self) -> u64 {
        let compaction: u64 = match &self.compaction {
            Compaction::Patches { args, counts, .. } => args.size() + counts.size(),
            Compaction::Instances {
                state,
                visible,
                dispatch,
                ..
            } => state.size() + visible.size() + dispatch.size(),
        };
        [
            &self.descriptors,
            &self.patches,
            &self.entries,
            &self.cull_models,
            &self.cull_uniform,
            &self.frame_uniform,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>()
            + compaction
            + self.readback_size * 4
            + self.models_bytes
            + self.hiz().map_or(0, crate::hiz::HiZ::gpu_memory_bytes)
    }

    /// Entry slots the cull dispatches over: the live entries and the free
    /// slots below the highest live entry page.
    pub fn entry_slots(&self) -> u32 {
        self.entry_slots
    }

    /// Resident tiles (streaming), or 1 for a whole-window build.
    pub fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// Units (descriptor pages, entry pages, tile slots) the pools hold.
    pub fn capacity(&self) -> Capacity {
        Capacity {
            desc_pages: self.desc_pool.capacity(),
            entry_pages: self.entry_pool.capacity(),
            slots: self.slot_pool.capacity(),
        }
    }
}

/// The `patch` parameter of grass `gpu-cull`.
pub const PATCH_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "patch",
    kind: crate::technique::ParamKind::IntChoice {
        values: &[1, 2, 4],
        default: 2,
    },
    description: "patch side in MCNKs: the cull's unit (1x1, 2x2 or 4x4 MCNKs per patch)",
};

/// The `cull` parameter of grass `gpu-cull`.
pub const CULL_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "cull",
    kind: crate::technique::ParamKind::Choice {
        values: &["instance", "patch"],
        default: "instance",
    },
    description: "instance: test every clump of a visible patch and draw the compacted survivors (one draw per model); patch: draw whole visible patches",
};

/// The `lod-floor` parameter of grass `gpu-cull`.
pub const LOD_FLOOR_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-floor",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 1.0,
        default: 1.0,
    },
    description: "distance LOD: share of clumps kept at the draw distance (1 = off); each clump's own hash decides, fading out before it drops (cull=instance)",
};

/// The `lod-start` parameter of grass `gpu-cull`.
pub const LOD_START_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-start",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 0.95,
        default: 0.5,
    },
    description: "distance LOD: where thinning starts, as a fraction of the grass draw distance",
};

/// The `occlusion` parameter of grass `gpu-cull`.
pub const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on", "auto"],
        default: "off",
    },
    description: "Hi-Z occlusion: drop clumps the terrain drawn before them hides (a farthest-depth pyramid of this frame's terrain; cull=instance); auto runs it only while it hides at least 2% of the clumps it tests",
};

/// Registry entry of grass `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "gpu-cull",
    summary: "compact per-placement descriptors in patches, compute patch culling, multi-draw-indirect, Z from the height atlas",
    params: &[
        PATCH_PARAM,
        CULL_PARAM,
        LOD_FLOOR_PARAM,
        LOD_START_PARAM,
        OCCLUSION_PARAM,
        crate::technique::MULTI_DRAW,
    ],
    requires: crate::technique::GPU_CULL_CAPABILITIES,
    fallback: Some("static-batch"),
    build: |i, params| Ok(Box::new(GpuCullTier::new(i, params)?)),
};

/// What grass `gpu-cull` derives from one streamed tile on the tile
/// workers: its height-atlas tiles and its patch set.
struct GrassCullTile {
    atlas: crate::atlas::AtlasTile,
    patches: Option<PreparedPatches>,
}

/// A tile's patch set prepared off the render thread, with its
/// descriptors, when staged, already numbered for the tile's own slot
/// ([`pool::own_slot`]).
pub struct PreparedPatches {
    /// The patch set (entries and patch rows are placed from it).
    pub set: PatchSet,
    staged: Option<StagedPatches>,
}

/// A tile's descriptors numbered for tile slot `slot`, in a staging buffer.
struct StagedPatches {
    slot: u32,
    descriptors: crate::technique::StagedBytes,
}

impl PreparedPatches {
    /// `set` with its descriptors staged on `device` for tile `tile`'s own
    /// slot among `slots` (pool units `pools`): placing it then copies
    /// them with the next frame when that slot is free (it is, unless the
    /// resident tiles outgrow a square of slots).
    pub fn staged(
        device: &wgpu::Device,
        tile: TileCoord,
        set: PatchSet,
        pools: &Pools,
        slots: u32,
    ) -> Self {
        let slot = pool::own_slot(tile, slots);
        let descriptors = pool::place_descriptors(&set, pools, slot);
        let descriptors = crate::technique::StagedBytes::new(
            device,
            "grass.descriptors_staging",
            bytemuck::cast_slice(&descriptors),
        );
        Self {
            set,
            staged: Some(StagedPatches { slot, descriptors }),
        }
    }

    /// `set` alone: its descriptors are written when it is placed.
    pub fn unstaged(set: PatchSet) -> Self {
        Self { set, staged: None }
    }
}

/// Grass `gpu-cull` as a registered technique: the cull with the height
/// atlas its descriptors take Z from.
///
/// When the world streams (`SceneData::atlas_reach` is some), the atlas
/// reaches over every tile of the source and the cull's pools are sized for
/// `max_resident_tiles` tiles; a residency change then updates both per
/// tile ([`HeightAtlas::set_tile`], [`GpuCull::set_tile`], one
/// [`GpuCull::commit`] per batch). A world resident whole is packed exactly
/// ([`GpuCull::new`]) and never changes.
pub struct GpuCullTier {
    atlas: HeightAtlas,
    cull: GpuCull,
    /// Whether the tier follows a streaming window (pools with room).
    streaming: bool,
}

/// Entries a tile's placements make at most: one per (patch, model) and
/// one more per descriptor page end.
fn entry_estimate(p: &Placements, pools: &Pools, patch: PatchSize) -> usize {
    let n = patch.chunks();
    let pairs: std::collections::HashSet<(u32, u32, u16)> = p
        .groups
        .iter()
        .map(|g| (g.chunk.x / n, g.chunk.y / n, g.model))
        .collect();
    pairs.len() + pools.desc_pages(p.len()) as usize
}

impl GpuCullTier {
    fn new(
        i: &crate::technique::BuildInputs<'_>,
        params: &crate::technique::Params,
    ) -> Result<Self, PassError> {
        let patch = match params.int(&PATCH_PARAM) {
            1 => PatchSize::Mcnk,
            4 => PatchSize::Block4,
            _ => PatchSize::Block2,
        };
        let multi_draw = Some(
            if crate::technique::count_variant(i.gpu, "grass.gpu-cull", params)? {
                MultiDraw::Count
            } else {
                MultiDraw::Plain
            },
        );
        let cull = match params.text(&CULL_PARAM) {
            "patch" => CullMode::Patch,
            _ => CullMode::Instance,
        };
        let lod = DistanceLod {
            start: params.float(&LOD_START_PARAM) as f32,
            floor: params.float(&LOD_FLOOR_PARAM) as f32,
        };
        let options = GpuCullOptions {
            patch,
            multi_draw,
            cull,
            lod,
            occlusion: params.text(&OCCLUSION_PARAM) != "off",
            occlusion_auto: params.text(&OCCLUSION_PARAM) == "auto",
        };
        let world = i.scene.world;
        let reach = i.scene.atlas_reach();
        let atlas = HeightAtlas::with_reach(i.gpu, world, reach)?;
        if reach.is_none() {
            let cull = GpuCull::new(
                i.gpu,
                i.models,
                world,
                i.scene.placements.all(),
                &atlas,
                options,
            )?;
            return Ok(GpuCullTier {
                atlas,
                cull,
                streaming: false,
            });
        }
        // Streaming: pools for `max_resident_tiles` tiles as large as the
        // largest resident one (they grow if a larger one comes), filled
        // tile by tile in window order.
        let pools = GpuCull::streaming_pools(patch);
        let tiles: Vec<TileCoord> = world.tiles().iter().map(|t| t.coord).collect();
        let mut per_tile = (1u32, 1u32);
        for &t in &tiles {
            if let Some(p) = i.scene.placements.tile(t) {
                per_tile.0 = per_tile.0.max(pools.desc_pages(p.len()));
                per_tile.1 = per_tile
                    .1
                    .max(pools.entry_pages(entry_estimate(&p, &pools, patch)));
            }
        }
        let max_tiles = i.scene.max_resident_tiles.max(tiles.len()) as u32;
        let capacity = Capacity {
            desc_pages: max_tiles * per_tile.0,
            entry_pages: max_tiles * per_tile.1,
            slots: max_tiles,
        };
        let mut cull = GpuCull::empty(i.gpu, i.models, &atlas, options, pools, capacity)?;
        for t in tiles {
            let p = i.scene.placements.tile(t);
            cull.set_tile(i.gpu, world, t, p.as_deref(), &atlas)?;
        }
        cull.commit(i.gpu, i.models);
        Ok(GpuCullTier {
            atlas,
            cull,
            streaming: true,
        })
    }
}

impl crate::technique::Technique for GpuCullTier {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut sward_engine::graph::RenderGraph<'a>,
        view: &crate::frame::FrameView,
        targets: crate::frame::PassTargets,
    ) {
        self.cull
            .record(inputs.gpu, graph, view, targets, inputs.models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.cull.gpu_memory_bytes() + self.atlas.gpu_memory_bytes()
    }

    fn facts(&self, _scene: &crate::renderer::SceneData<'_>) -> BTreeMap<String, f64> {
        self.cull.facts()
    }

    fn begin_run(&mut self) {
        self.cull.begin_run();
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        if !self.streaming {
            return None;
        }
        let (reach, patch) = self.cull.patch_config();
        let (pools, slots) = self.cull.staging_config();
        Some(std::sync::Arc::new(crate::technique::FnPreparer(
            move |i: &crate::technique::PrepareInputs<'_>| {
                let patches = if i.placements.is_empty() {
                    None
                } else {
                    let mut world = World::new("prepare");
                    world.insert(std::sync::Arc::clone(i.tile)).map_err(|e| {
                        PassError::InvalidInput {
                            technique: "grass.gpu-cull",
                            what: format!("tile ({}, {})", i.coord.x, i.coord.y),
                            reason: e.to_string(),
                        }
                    })?;
                    let set = PatchSet::build(&world, i.placements, &reach, patch)?;
                    Some(PreparedPatches::staged(
                        i.device, i.coord, set, &pools, slots,
                    ))
                };
                Ok(GrassCullTile {
                    atlas: crate::atlas::AtlasTile::prepare(i.tile).staged(i.device),
                    patches,
                })
            },
        )))
    }

    /// Per tile: the atlas makes the tile's MCNKs resident (or evicts
    /// them), the cull writes its patches into free pool pages (or frees
    /// them); one commit per batch publishes the per-model regions. A
    /// world resident whole (no pools with room) and chunk-level changes
    /// ask for a rebuild.
    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[crate::technique::ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<crate::technique::Residency, PassError> {
        use crate::technique::Residency;
        if !self.streaming {
            return Ok(Residency::Rebuild);
        }
        let (gpu, world) = (inputs.gpu, inputs.scene.world);
        let answer = crate::technique::apply_prepared(changes, prepared, world, |t, p| {
            let (atlas, set) = match p {
                Some(GrassCullTile { atlas, patches }) => (Some(atlas), patches),
                None => (None, None),
            };
            let Some(atlas_bytes) = self
                .atlas
                .set_tile_prepared(gpu, world, t, atlas.as_ref())?
            else {
                return Ok(None);
            };
            let p = inputs.scene.placements.tile(t);
            let cull_bytes =
                self.cull
                    .set_tile_prepared(gpu, world, t, p.as_deref(), &self.atlas, set)?;
            Ok(Some(atlas_bytes + cull_bytes))
        })?;
        Ok(match answer {
            Residency::Applied { bytes_uploaded } => Residency::Applied {
                bytes_uploaded: bytes_uploaded + self.cull.commit(gpu, inputs.models),
            },
            Residency::Rebuild => Residency::Rebuild,
        })
    }
}
