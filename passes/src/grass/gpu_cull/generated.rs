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

use super::patches::{patch_frame, patch_row, GrassPatchGpu, PatchSize};
use super::pool::PagePool;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::grass::palette::EffectPalette;
use crate::grass::placement_gpu::gpu::{
    PlaceChunkGpu, PlaceEffectGpu, PlaceParamsGpu, COVER_WORDS, WORKGROUP,
};
use crate::grass::placement_gpu::records::{params, place_chunk, tile_effects, EffectTable};

pub use super::mcnk_records::{
    mcnk_bound, PlaceBoundsGpu, PreparedRecords, RecordConfig, MAX_POLICY_SCALE, TILE_MCNKS,
};
use super::mcnk_records::{FREE_BOUNDS, NO_RECORD};
use crate::grass::placement_gpu::PlacementGpuError;

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
    /// Per MCNK: its [`capacity_bound`].
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
    window_origin: [u32; 2],
    /// Resident MCNKs' capacity bounds, largest first.
    sorted_bounds: Vec<u64>,
    model_count: u32,
}

pub(super) fn gpu_error(e: PlacementGpuError) -> PassError {
    match e {
        PlacementGpuError::Pass(p) => p,
        other => PassError::InvalidInput {
            technique: TECHNIQUE,
            what: "GPU placement".into(),
            reason: other.to_string(),
        },
    }
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
    let shader_error = |source| PassError::Shader {
        technique: PASS_PLACE,
        source,
    };
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
            window_origin: atlas.window().origin,
            sorted_bounds: Vec::new(),
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
        self.group2 = Some(bind::group(
            device,
            "grass.place.cull",
            &self.layout2,
            &[
                uniform.as_entire_binding(),
                self.bounds.as_entire_binding(),
                patches.as_entire_binding(),
                descriptors.as_entire_binding(),
                entries.as_entire_binding(),
                state.as_entire_binding(),
                dispatch.as_entire_binding(),
                self.counts.as_entire_binding(),
                models.as_entire_binding(),
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
            let free = vec![FREE_BOUNDS; TILE_MCNKS as usize];
            let at = u64::from(old.slot * TILE_MCNKS) * bounds_bytes;
            gpu.write_buffer_staged(
                "grass.place.bounds",
                &self.bounds,
                at,
                bytemuck::cast_slice(&free),
            );
            bytes += TILE_MCNKS as u64 * bounds_bytes;
            self.slots.release(&[old.slot]);
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
        {
            puffin::profile_scope!("palette");
            let changes = self
                .palette
                .set_tile(coord, tile_effects(tile))
                .map_err(|e| gpu_error(e.into()))?;
            bytes += self.apply_palette(gpu, &changes)?;
        }
        let PreparedRecords {
            mut bounds,
            cover,
            caps,
        } = match prepared {
            Some(p) => p,
            None => self.config.prepare(coord, tile),
        };
        let slot = self.slots.alloc(1).expect("fits")[0];
        let patch = self.config.patch;
        let side = 16 / patch.chunks();
        let records = {
            puffin::profile_scope!("pack");
            let mut records = vec![PlaceChunkGpu::default(); TILE_MCNKS as usize];
            for m in &tile.mcnks {
                let chunk = m.chunk_coord(coord);
                let i = ((chunk.y % 16) * 16 + chunk.x % 16) as usize;
                let atlas_slot = atlas
                    .slot_of(chunk)
                    .ok_or_else(|| PassError::InvalidInput {
                        technique: TECHNIQUE,
                        what: format!("MCNK ({}, {})", chunk.x, chunk.y),
                        reason: "not in the height atlas".into(),
                    })?;
                records[i] = place_chunk(chunk, m, atlas_slot, &self.table).map_err(gpu_error)?;
            }
            for b in bounds.iter_mut().filter(|b| b.patch_index != NO_RECORD) {
                b.patch_index += slot * side * side;
            }
            records
        };
        let record_bytes = std::mem::size_of::<PlaceChunkGpu>() as u64;
        let at = u64::from(slot * TILE_MCNKS);
        {
            puffin::profile_scope!("write");
            gpu.write_buffer_staged(
                "grass.place.records",
                &self.records,
                at * record_bytes,
                bytemuck::cast_slice(&records),
            );
            gpu.write_buffer_staged(
                "grass.place.bounds",
                &self.bounds,
                at * bounds_bytes,
                bytemuck::cast_slice(&bounds),
            );
            bytes += u64::from(TILE_MCNKS) * (record_bytes + bounds_bytes);
            if !cover.is_empty() {
                gpu.write_buffer_staged(
                    "grass.place.cover",
                    &self.cover,
                    at * COVER_WORDS as u64 * 4,
                    bytemuck::cast_slice(&cover),
                );
                bytes += cover.len() as u64 * 4;
            }
        }
        {
            puffin::profile_scope!("patch_rows");
            let base_key = [coord.x * side, coord.y * side];
            let rows: Vec<GrassPatchGpu> = (0..side * side)
                .map(|k| {
                    let key = [base_key[0] + k % side, base_key[1] + k / side];
                    patch_row(&patch_frame(key, patch), key, patch, self.window_origin)
                })
                .collect();
            let row_bytes = std::mem::size_of::<GrassPatchGpu>() as u64;
            gpu.write_buffer_staged(
                "grass.patches",
                patches,
                u64::from(slot * side * side) * row_bytes,
                bytemuck::cast_slice(&rows),
            );
            bytes += rows.len() as u64 * row_bytes;
        }
        self.tiles.insert(coord, GenTile { slot, bounds: caps });
        Ok(bytes)
    }

    /// Rewrites the effect-table entries of the palette slots `changes`
    /// names (the buffer grows when a slot lies beyond it).
    fn apply_palette(
        &mut self,
        gpu: &GpuContext,
        changes: &[crate::grass::palette::SlotChange],
    ) -> Result<u64, PassError> {
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
        for slot in written {
            let e = &self.table.entries()[slot as usize];
            gpu.write_buffer_staged(
                "grass.place.effects",
                &self.effect_buffer,
                u64::from(slot) * entry,
                bytemuck::bytes_of(e),
            );
            bytes += entry;
        }
        Ok(bytes)
    }

    /// After a batch of tile changes: the resident MCNKs' bounds, largest
    /// first (what [`Self::needed`] sums).
    pub(super) fn commit(&mut self) {
        puffin::profile_scope!("sort_bounds");
        self.sorted_bounds = self
            .tiles
            .values()
            .flat_map(|t| t.bounds.iter().copied())
            .collect();
        self.sorted_bounds.sort_unstable_by(|a, b| b.cmp(a));
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
