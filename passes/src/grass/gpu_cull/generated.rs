//! Grass `gpu-cull:placement=gpu`: the placements are generated on the GPU
//! every frame from one record per resident MCNK, and nothing per placement
//! is stored between frames or uploaded.
//!
//! A resident tile contributes, at its tile slot, 256 MCNK records
//! ([`PlaceChunkGpu`], the generator's phase-one record), 256 bounds
//! ([`PlaceBoundsGpu`]: the MCNK square and terrain Z range grown by the
//! largest model reach, its patch-table row), for `per-cell` 256 coverage
//! blocks, its patch-table rows, and the effect-table entries of the window
//! palette slots it changes ([`EffectTable::apply`]). Per frame, pass
//! `grass.place` (`grass_place.wgsl`) runs one invocation per record slot:
//! an MCNK within the draw distance and the frustum runs its policy once to
//! count its placements per model, reserves one contiguous descriptor range
//! and one entry per model (appended to the per-instance cull's survivor
//! list), and runs it again writing each placement as the 16-byte
//! descriptor `placement=descriptors` stores, packed as the CPU packs it;
//! `place_regions` lays the models' regions of the visible list out. Then
//! `grass.cull`'s `cull_instances` and the draw run unchanged over the
//! generated descriptors and entries.
//!
//! The generated buffers hold the placements of the MCNKs one frame can
//! keep: sized for the MCNKs a disc of the grass distance (plus reach and
//! sway) can touch, each at its largest [`capacity_bound`]
//! ([`Generated::needed`]); they grow before a frame that could need more.

use std::collections::BTreeMap;
use std::sync::Arc;

use sward_engine::{bind, bind::Slot, GpuContext};
use sward_scenes::world::coords::CHUNK_SIZE;
use sward_scenes::{AdtTile, Policy, TileCoord};

use super::patches::{GrassPatchGpu, PatchSize};
use super::pool::PagePool;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::grass::palette::EffectPalette;
use crate::grass::placement_gpu::gpu::{
    PlaceChunkGpu, PlaceEffectGpu, PlaceParamsGpu, COVER_WORDS, WORKGROUP,
};
use crate::grass::placement_gpu::records::{params, EffectTable};

use super::mcnk_records::{gpu_error, FREE_BOUNDS};
pub use super::mcnk_records::{
    mcnk_bound, PlaceBoundsGpu, PreparedRecords, RecordConfig, MAX_POLICY_SCALE, TILE_MCNKS,
};
use crate::grass::placement_gpu::gpu::LAYER_UNKNOWN;
use crate::runs::consecutive_runs;

/// The bounds of a freed tile's records (written when it is evicted).
static FREE_TILE: [PlaceBoundsGpu; TILE_MCNKS as usize] = [FREE_BOUNDS; TILE_MCNKS as usize];

const TECHNIQUE: &str = "grass.gpu-cull";
/// Name of the generation pass.
pub const PASS_PLACE: &str = "grass.place";
/// Most distinct models one MCNK places (4 layers of 4 slots; WGSL
/// `PLACE_MCNK_MODELS`): entries per kept MCNK at most.
pub const MCNK_MODELS: u32 = 16;
/// Words of the counts header before the per-model counts.
pub const COUNTS_HEADER: usize = 8;
/// Words of the per-instance cull's state header the generation fills
/// besides the survivors: MCNKs kept, placements generated, overflows.
pub const STATE_MCNKS: usize = 2;
/// See [`STATE_MCNKS`].
pub const STATE_PLACEMENTS: usize = 3;
/// See [`STATE_MCNKS`].
pub const STATE_OVERFLOW: usize = 4;

/// Where one resident tile's records live and what its MCNKs can place.
struct GenTile {
    slot: u32,
    /// Per MCNK: its [`capacity_bound`], largest first.
    bounds: Vec<u64>,
}

/// The records, the effect table and the generation pipelines of
/// `placement=gpu` (see the module docs).
pub(super) struct Generated {
    config: RecordConfig,
    pipeline: wgpu::ComputePipeline,
    regions: wgpu::ComputePipeline,
    layout0: wgpu::BindGroupLayout,
    atlas_layout: wgpu::BindGroupLayout,
    layout2: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
    records: wgpu::Buffer,
    cover: wgpu::Buffer,
    effect_buffer: wgpu::Buffer,
    bounds: wgpu::Buffer,
    counts: wgpu::Buffer,
    group0: wgpu::BindGroup,
    group1: wgpu::BindGroup,
    /// Group 2 over the cull's buffers (made by [`Self::bind`]).
    group2: Option<wgpu::BindGroup>,
    palette: EffectPalette,
    table: EffectTable,
    tiles: BTreeMap<TileCoord, GenTile>,
    slots: PagePool,
    /// Resident MCNKs' capacity bounds, largest first (merged as tiles
    /// come, removed as they go).
    sorted_bounds: Vec<u64>,
    /// Reused by the merges into `sorted_bounds`.
    scratch: Vec<u64>,
    /// Reused: the effect-table index of each effect of the tile being
    /// made resident.
    codes: Vec<u16>,
    model_count: u32,
}

fn storage(gpu: &GpuContext, label: &str, bytes: u64) -> wgpu::Buffer {
    super::build::pool_buffer(
        gpu,
        label,
        bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )
}

/// The generation shader: `grass_place` with the policies' `place_emit`
/// from `grass_place_emit` (in `placement_emit`'s place); `sink`, when
/// given, replaces `grass_place_sink` (a deliberately wrong variant: tests).
fn shader(gpu: &GpuContext, sink: Option<&'static str>) -> Result<wgpu::ShaderModule, PassError> {
    use sward_wgsl::modules as m;
    let shader_error = PassError::shader(PASS_PLACE);
    let library: Vec<sward_wgsl::Module> = m::ALL
        .iter()
        .map(|module| {
            if module.name == m::PLACEMENT_EMIT.name {
                sward_wgsl::Module {
                    name: m::PLACEMENT_EMIT.name,
                    source: m::GRASS_PLACE_EMIT.source,
                }
            } else if let (true, Some(source)) = (module.name == m::GRASS_PLACE_SINK.name, sink) {
                sward_wgsl::Module {
                    name: m::GRASS_PLACE_SINK.name,
                    source,
                }
            } else {
                *module
            }
        })
        .collect();
    let source = sward_wgsl::link::compose_with(m::GRASS_PLACE, &library)
        .map_err(|e| shader_error(e.into()))?;
    sward_wgsl::validate_source(&source).map_err(shader_error)?;
    Ok(gpu
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(PASS_PLACE),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        }))
}

fn entry_point(policy: &Policy) -> &'static str {
    match policy {
        Policy::Client(_) => "cull_generate_client",
        Policy::Client335(_) => "cull_generate_client335",
        Policy::PerCell(_) => "cull_generate_per_cell",
    }
}

impl Generated {
    /// The pipelines and an empty record pool of `slots` tiles.
    pub(super) fn new(
        gpu: &GpuContext,
        scene: &crate::technique::SceneData<'_>,
        atlas: &HeightAtlas,
        patch: PatchSize,
        reach: &[super::patches::ModelReach],
        slots: u32,
        sink: Option<&'static str>,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let shader = shader(gpu, sink)?;
        let layout0 = bind::layout(
            device,
            PASS_PLACE,
            &bind::entries(
                wgpu::ShaderStages::COMPUTE,
                &[
                    Slot::STORAGE_READ, // 0 params (storage: loop bounds)
                    Slot::STORAGE_READ, // 1 records
                    Slot::STORAGE_READ, // 2 effects
                    Slot::STORAGE_READ, // 3 cover
                ],
            ),
        );
        let atlas_layout = bind::layout(
            device,
            "grass.place.atlas",
            &HeightAtlas::layout_entries(0, wgpu::ShaderStages::COMPUTE),
        );
        let layout2 = bind::layout(
            device,
            "grass.place.cull",
            &bind::entries(
                wgpu::ShaderStages::COMPUTE,
                &[
                    Slot::Uniform,      // 0 cull uniforms
                    Slot::STORAGE_READ, // 1 bounds
                    Slot::STORAGE_READ, // 2 patch table
                    Slot::STORAGE_RW,   // 3 descriptors
                    Slot::STORAGE_RW,   // 4 entries
                    Slot::STORAGE_RW,   // 5 state
                    Slot::STORAGE_RW,   // 6 dispatch
                    Slot::STORAGE_RW,   // 7 counts
                    Slot::STORAGE_RW,   // 8 cull models
                ],
            ),
        );
        let groups = [&layout0, &atlas_layout, &layout2];
        let policy = *scene.policy;
        let pipeline =
            bind::compute_pipeline(device, PASS_PLACE, &groups, &shader, entry_point(&policy));
        let regions = bind::compute_pipeline(
            device,
            "grass.place.regions",
            &groups,
            &shader,
            "place_regions",
        );
        let records_n = u64::from(slots * TILE_MCNKS);
        let record_bytes = std::mem::size_of::<PlaceChunkGpu>() as u64;
        let bounds_bytes = std::mem::size_of::<PlaceBoundsGpu>() as u64;
        let params_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.place.params"),
            size: std::mem::size_of::<PlaceParamsGpu>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let records = storage(gpu, "grass.place.records", records_n * record_bytes);
        let cover_bytes = if matches!(policy, Policy::PerCell(_)) {
            records_n * COVER_WORDS as u64 * 4
        } else {
            16
        };
        let cover = storage(gpu, "grass.place.cover", cover_bytes);
        let effect_buffer = storage(gpu, "grass.place.effects", 64 * 64);
        let bounds = storage(gpu, "grass.place.bounds", records_n * bounds_bytes);
        // Free records until a tile takes them.
        let free = vec![FREE_BOUNDS; records_n as usize];
        gpu.write_buffer_staged(
            "grass.place.bounds",
            &bounds,
            0,
            bytemuck::cast_slice(&free),
        );
        let model_count = reach.len() as u32;
        let counts = super::build::pool_buffer(
            gpu,
            "grass.place.counts",
            (COUNTS_HEADER as u64 + u64::from(model_count)) * 4,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        let group0 = Self::group0(
            device,
            &layout0,
            [&params_buffer, &records, &effect_buffer, &cover],
        );
        let group1 = bind::group_of(
            device,
            "grass.place.atlas",
            &atlas_layout,
            &atlas.bind_entries(0),
        );
        let max_radius = reach.iter().map(|r| r.radius).fold(0.0f32, f32::max);
        let sway_height = reach.iter().map(|r| r.sway_height).fold(0.0f32, f32::max);
        Ok(Generated {
            config: RecordConfig {
                policy,
                effects: Arc::new(scene.effects.clone()),
                patch,
                reach: max_radius * MAX_POLICY_SCALE,
                sway_height,
                window_origin: atlas.window().origin,
            },
            pipeline,
            regions,
            layout0,
            atlas_layout,
            layout2,
            params: params_buffer,
            records,
            cover,
            effect_buffer,
            bounds,
            counts,
            group0,
            group1,
            group2: None,
            palette: EffectTable::palette(),
            table: EffectTable::default(),
            tiles: BTreeMap::new(),
            slots: PagePool::new(slots),
            sorted_bounds: Vec::new(),
            scratch: Vec::new(),
            codes: Vec::new(),
            model_count,
        })
    }

    fn group0(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        buffers: [&wgpu::Buffer; 4],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindingResource<'_>> =
            buffers.iter().map(|b| b.as_entire_binding()).collect();
        bind::group(device, PASS_PLACE, layout, &entries)
    }

    /// Remakes group 2 over the cull's buffers: uniforms, patch table,
    /// descriptors, entries, state, dispatch, per-model table.
    /// Also remakes group 1 over `atlas`.
    pub(super) fn bind(
        &mut self,
        device: &wgpu::Device,
        atlas: &HeightAtlas,
        cull: [&wgpu::Buffer; 7],
    ) {
        let [uniform, patches, descriptors, entries, state, dispatch, models] = cull;
        self.group1 = bind::group_of(
            device,
            "grass.place.atlas",
            &self.atlas_layout,
            &atlas.bind_entries(0),
        );
        self.group2 = Some(bind::buffer_group(
            device,
            "grass.place.cull",
            &self.layout2,
            &[
                uniform,
                &self.bounds,
                patches,
                descriptors,
                entries,
                state,
                dispatch,
                &self.counts,
                models,
            ],
        ));
    }

    /// Patch-table rows per tile slot.
    pub(super) fn patch_block(&self) -> u32 {
        let side = 16 / self.config.patch.chunks();
        side * side
    }

    /// Resident tiles.
    pub(super) fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// The descriptors and entries one frame can generate with the grass
    /// drawn to `distance` and sway `amplitude`: the MCNKs a disc of that
    /// radius (plus reach and sway) can touch, each at the largest bound
    /// among the resident MCNKs.
    pub(super) fn needed(&self, distance: f32, amplitude: f32) -> (u64, u64) {
        let c = &self.config;
        let r = f64::from(distance.max(0.0) + c.reach + c.sway_height * amplitude.max(0.0) + 1.0);
        let side = (2.0 * r / CHUNK_SIZE).floor() as u64 + 2;
        let mcnks = (side * side).min(self.sorted_bounds.len() as u64);
        let descs: u64 = self.sorted_bounds[..mcnks as usize].iter().sum();
        (descs.max(1), (mcnks * u64::from(MCNK_MODELS)).max(1))
    }

    /// What a tile worker needs to prepare a tile's records.
    pub(super) fn config(&self) -> &RecordConfig {
        &self.config
    }

    /// Makes tile `coord` resident (its records, bounds, patch rows and the
    /// palette slots it changes; `prepared` by a tile worker, or here when
    /// `None`), or evicts it (`tile` `None`). Returns the bytes written.
    /// `patches` is the cull's patch table, sized for the slots.
    ///
    /// The render thread does only what needs its state: the palette
    /// (the tile's distinct effects, listed by the worker), each record's
    /// atlas slot and its layers' palette slots, the tile's patch-table
    /// rows offset, one staging-belt write per buffer, and the tile's
    /// placement bounds merged into the sorted list ([`Self::needed`]).
    pub(super) fn set_tile(
        &mut self,
        gpu: &GpuContext,
        coord: TileCoord,
        tile: Option<&AdtTile>,
        prepared: Option<PreparedRecords>,
        atlas: &HeightAtlas,
        patches: &wgpu::Buffer,
    ) -> Result<u64, PassError> {
        let mut bytes = 0;
        let bounds_bytes = std::mem::size_of::<PlaceBoundsGpu>() as u64;
        if let Some(old) = self.tiles.remove(&coord) {
            puffin::profile_scope!("evict");
            let at = u64::from(old.slot * TILE_MCNKS) * bounds_bytes;
            gpu.write_buffer_staged(
                "grass.place.bounds",
                &self.bounds,
                at,
                bytemuck::cast_slice(&FREE_TILE),
            );
            bytes += TILE_MCNKS as u64 * bounds_bytes;
            self.slots.release(&[old.slot]);
            remove_sorted(&mut self.sorted_bounds, &old.bounds, &mut self.scratch);
            let changes = self.palette.remove_tile(coord);
            bytes += self.apply_palette(gpu, &changes)?;
        }
        let Some(tile) = tile else {
            return Ok(bytes);
        };
        if !self.slots.fits(1) {
            return Err(PassError::InvalidInput {
                technique: TECHNIQUE,
                what: format!("tile ({}, {})", coord.x, coord.y),
                reason: format!(
                    "more resident tiles than the {} record slots of placement=gpu",
                    self.slots.capacity()
                ),
            });
        }
        let mut p = match prepared {
            Some(p) => p,
            None => self.config.prepare(coord, tile)?,
        };
        {
            puffin::profile_scope!("palette");
            let changes = self
                .palette
                .set_tile(coord, p.effects.iter().copied())
                .map_err(|e| gpu_error(e.into()))?;
            bytes += self.apply_palette(gpu, &changes)?;
        }
        let slot = self.slots.alloc(1).expect("fits")[0];
        let side = 16 / self.config.patch.chunks();
        {
            puffin::profile_scope!("resolve");
            self.codes.clear();
            let table = &self.table;
            self.codes.extend(
                p.effects
                    .iter()
                    .map(|id| table.index_of(*id).unwrap_or(LAYER_UNKNOWN)),
            );
            let slots = atlas.tile_slots(coord);
            p.resolve(
                coord,
                |x, y| slots.at(x, y),
                &self.codes,
                slot * side * side,
            )?;
        }
        {
            puffin::profile_scope!("write");
            let record_bytes = std::mem::size_of::<PlaceChunkGpu>() as u64;
            let at = u64::from(slot * TILE_MCNKS);
            gpu.write_buffer_staged(
                "grass.place.records",
                &self.records,
                at * record_bytes,
                bytemuck::cast_slice(&p.records),
            );
            gpu.write_buffer_staged(
                "grass.place.bounds",
                &self.bounds,
                at * bounds_bytes,
                bytemuck::cast_slice(&p.bounds),
            );
            bytes += u64::from(TILE_MCNKS) * (record_bytes + bounds_bytes);
            if !p.cover.is_empty() {
                gpu.write_buffer_staged(
                    "grass.place.cover",
                    &self.cover,
                    at * COVER_WORDS as u64 * 4,
                    bytemuck::cast_slice(&p.cover),
                );
                bytes += p.cover.len() as u64 * 4;
            }
            let row_bytes = std::mem::size_of::<GrassPatchGpu>() as u64;
            gpu.write_buffer_staged(
                "grass.patches",
                patches,
                u64::from(slot * side * side) * row_bytes,
                bytemuck::cast_slice(&p.rows),
            );
            bytes += p.rows.len() as u64 * row_bytes;
        }
        merge_sorted(&mut self.sorted_bounds, &p.caps, &mut self.scratch);
        self.tiles.insert(
            coord,
            GenTile {
                slot,
                bounds: p.caps,
            },
        );
        Ok(bytes)
    }

    /// Rewrites the effect-table entries of the palette slots `changes`
    /// names (the buffer grows when a slot lies beyond it): one write per
    /// run of consecutive slots.
    fn apply_palette(
        &mut self,
        gpu: &GpuContext,
        changes: &[crate::grass::palette::SlotChange],
    ) -> Result<u64, PassError> {
        if changes.is_empty() {
            return Ok(0);
        }
        let written = self
            .table
            .apply(changes, &self.config.effects)
            .map_err(gpu_error)?;
        let entry = std::mem::size_of::<PlaceEffectGpu>() as u64;
        let needed = self.table.entries().len() as u64 * entry;
        if needed > self.effect_buffer.size() {
            self.effect_buffer = storage(gpu, "grass.place.effects", needed.next_power_of_two());
            let all: &[u8] = bytemuck::cast_slice(self.table.entries());
            gpu.write_buffer_staged("grass.place.effects", &self.effect_buffer, 0, all);
            self.group0 = Self::group0(
                &gpu.device,
                &self.layout0,
                [
                    &self.params,
                    &self.records,
                    &self.effect_buffer,
                    &self.cover,
                ],
            );
            return Ok(all.len() as u64);
        }
        let mut bytes = 0;
        for run in consecutive_runs(&written) {
            let (first, last) = (written[run.start] as usize, written[run.end - 1] as usize);
            let data: &[u8] = bytemuck::cast_slice(&self.table.entries()[first..=last]);
            gpu.write_buffer_staged(
                "grass.place.effects",
                &self.effect_buffer,
                first as u64 * entry,
                data,
            );
            bytes += data.len() as u64;
        }
        Ok(bytes)
    }

    /// After a batch of tile changes. The resident MCNKs' placement bounds
    /// (what [`Self::needed`] sums) are kept sorted as tiles come and go:
    /// in debug builds, checked against a full sort.
    pub(super) fn commit(&mut self) {
        debug_assert!({
            let mut all: Vec<u64> = self
                .tiles
                .values()
                .flat_map(|t| t.bounds.iter().copied())
                .collect();
            all.sort_unstable_by(|a, b| b.cmp(a));
            all == self.sorted_bounds
        });
    }

    /// Writes this frame's parameters and zeroed counts (the state header
    /// and dispatch are the cull's) and records the generation and the
    /// region layout. Returns the bytes written.
    pub(super) fn record(
        &self,
        queue: &wgpu::Queue,
        pass: &mut wgpu::ComputePass<'_>,
        desc_capacity: u32,
        entry_capacity: u32,
    ) -> u64 {
        let record_count = self.slots.high_water() * TILE_MCNKS;
        let p = params(&self.config.policy, record_count, desc_capacity);
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
        let mut header = vec![0u32; COUNTS_HEADER + self.model_count as usize];
        header[0] = entry_capacity;
        header[1] = self.model_count;
        queue.write_buffer(&self.counts, 0, bytemuck::cast_slice(&header));
        let Some(group2) = &self.group2 else {
            return 0;
        };
        pass.set_bind_group(0, &self.group0, &[]);
        pass.set_bind_group(1, &self.group1, &[]);
        pass.set_bind_group(2, group2, &[]);
        if record_count > 0 {
            pass.set_pipeline(&self.pipeline);
            pass.dispatch_workgroups(record_count.div_ceil(WORKGROUP), 1, 1);
        }
        pass.set_pipeline(&self.regions);
        pass.dispatch_workgroups(1, 1, 1);
        std::mem::size_of::<PlaceParamsGpu>() as u64 + header.len() as u64 * 4
    }

    /// Whether model `m` can be placed: some palette effect's slot holds it.
    pub(super) fn models_placed(&self) -> Vec<bool> {
        let mut out = vec![false; self.model_count as usize];
        for e in self.table.entries() {
            for k in 0..4 {
                let m = (e.models[k / 2] >> (16 * (k % 2))) & 0xFFFF;
                if let Some(slot) = out.get_mut(m as usize) {
                    *slot = true;
                }
            }
        }
        out
    }

    /// Bytes of the records, bounds, coverage, effect table, counts.
    pub(super) fn gpu_memory_bytes(&self) -> u64 {
        [
            &self.params,
            &self.records,
            &self.cover,
            &self.effect_buffer,
            &self.bounds,
            &self.counts,
        ]
        .iter()
        .map(|b| b.size())
        .sum()
    }

    /// Bytes of the per-MCNK records alone (records, bounds, coverage).
    pub(super) fn record_bytes(&self) -> u64 {
        self.records.size() + self.bounds.size() + self.cover.size()
    }
}

/// Merges `add` (largest first) into `sorted` (largest first), through
/// `scratch` (both buffers reused: no allocation once they are large enough).
pub(super) fn merge_sorted(sorted: &mut Vec<u64>, add: &[u64], scratch: &mut Vec<u64>) {
    scratch.clear();
    scratch.reserve(sorted.len() + add.len());
    let (mut i, mut j) = (0, 0);
    while i < sorted.len() && j < add.len() {
        if sorted[i] >= add[j] {
            scratch.push(sorted[i]);
            i += 1;
        } else {
            scratch.push(add[j]);
            j += 1;
        }
    }
    scratch.extend_from_slice(&sorted[i..]);
    scratch.extend_from_slice(&add[j..]);
    std::mem::swap(sorted, scratch);
}

/// Removes `remove` (largest first, a sub-multiset of `sorted`) from
/// `sorted` (largest first), through `scratch`.
pub(super) fn remove_sorted(sorted: &mut Vec<u64>, remove: &[u64], scratch: &mut Vec<u64>) {
    scratch.clear();
    scratch.reserve(sorted.len());
    let mut j = 0;
    for &v in sorted.iter() {
        if j < remove.len() && remove[j] == v {
            j += 1;
        } else {
            scratch.push(v);
        }
    }
    debug_assert_eq!(j, remove.len(), "removed bounds were not all resident");
    std::mem::swap(sorted, scratch);
}
