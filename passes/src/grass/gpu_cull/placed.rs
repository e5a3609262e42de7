//! [`GpuCull`] with `placement=gpu`: a tier whose descriptors, entries,
//! survivor state and visible list hold one frame's generated placements
//! ([`GpuCull::with_generation`]), tiles made resident as records
//! ([`GpuCull::set_tile_records`]), the generated buffers sized before a
//! frame ([`GpuCull::reserve_generation`]) and the per-model table of a
//! generating tier ([`GpuCull::commit_generation`]).

use sward_engine::GpuContext;
use sward_scenes::{AdtTile, TileCoord};

use super::build::pool_buffer;
use super::cull::CullModel;
use super::descriptor::DESCRIPTOR_BYTES;
use super::generated::{Generated, PreparedRecords, RecordConfig};
use super::pool::Pools;
use super::{instances, Capacity, Compaction, CullMode, GpuCull, GpuCullOptions, ENTRY_BYTES};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::grass::models::GrassModels;

impl GpuCull {
    /// A `placement=gpu` tier with record slots for `slots` tiles and no
    /// tile yet (they come with [`Self::set_tile_records`], then
    /// [`Self::commit_generation`]).
    pub fn with_generation(
        gpu: &GpuContext,
        models: &GrassModels,
        scene: &crate::technique::SceneData<'_>,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
        slots: u32,
    ) -> Result<Self, PassError> {
        Self::with_generation_emit(gpu, models, scene, atlas, options, slots, None)
    }

    /// [`Self::with_generation`] with `grass_place_sink` replaced by `sink`
    /// (a deliberately wrong variant: the tests show it is caught).
    pub(super) fn with_generation_emit(
        gpu: &GpuContext,
        models: &GrassModels,
        scene: &crate::technique::SceneData<'_>,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
        slots: u32,
        sink: Option<&'static str>,
    ) -> Result<Self, PassError> {
        if options.cull != CullMode::Instance {
            return Err(PassError::InvalidParams {
                technique: "grass.gpu-cull",
                reason: "placement=gpu feeds the per-instance cull: use it with cull=instance, not cull=patch".into(),
            });
        }
        let side = 16 / options.patch.chunks();
        let pools = Pools {
            desc_page: 1,
            entry_page: 1,
            patch_block: side * side,
        };
        let capacity = Capacity {
            desc_pages: 1,
            entry_pages: 1,
            slots,
        };
        let mut t = Self::empty(gpu, models, atlas, options, pools, capacity)?;
        t.generated = Some(Box::new(Generated::new(
            gpu,
            scene,
            atlas,
            options.patch,
            &t.reach,
            slots,
            sink,
        )?));
        t.rebind(gpu, atlas);
        Ok(t)
    }

    /// The per-instance cull's indirect dispatch (tests).
    pub fn dispatch_buffer(&self) -> &wgpu::Buffer {
        match &self.compaction {
            Compaction::Instances { dispatch, .. } => dispatch,
            Compaction::Patches { args, .. } => args,
        }
    }

    /// The entry buffer (`placement=gpu`: this frame's generated entries).
    pub fn entry_buffer(&self) -> &wgpu::Buffer {
        &self.entries
    }

    /// The per-model table (tests read the regions the GPU laid out).
    pub fn cull_model_buffer(&self) -> &wgpu::Buffer {
        &self.cull_models
    }

    /// `placement=gpu`: what a tile worker needs to prepare a tile's records.
    pub fn record_config(&self) -> Option<RecordConfig> {
        self.generated.as_ref().map(|g| g.config().clone())
    }

    /// Whether the tier generates its placements (`placement=gpu`).
    pub fn generates(&self) -> bool {
        self.generated.is_some()
    }

    /// `placement=gpu`: makes tile `coord` resident as records (or evicts
    /// it, `tile` `None`), with what a tile worker `prepared` of them (or
    /// all of it here); returns the bytes written.
    pub fn set_tile_records(
        &mut self,
        gpu: &GpuContext,
        coord: TileCoord,
        tile: Option<&AdtTile>,
        prepared: Option<PreparedRecords>,
        atlas: &HeightAtlas,
    ) -> Result<u64, PassError> {
        let Some(g) = self.generated.as_mut() else {
            return Err(PassError::InvalidInput {
                technique: "grass.gpu-cull",
                what: format!("tile ({}, {})", coord.x, coord.y),
                reason: "records given to a tier that stores descriptors".into(),
            });
        };
        g.set_tile(gpu, coord, tile, prepared, atlas, &self.patches)
    }

    /// `placement=gpu`: after a batch of tile changes, the per-model table
    /// (models' draw constants; the regions are laid out on the GPU each
    /// frame) and the bounds that size the generated buffers. Returns the
    /// bytes written.
    pub fn commit_generation(&mut self, gpu: &GpuContext, models: &GrassModels) -> u64 {
        let Some(g) = self.generated.as_mut() else {
            return 0;
        };
        g.commit();
        self.patch_count = g.tile_count() * g.patch_block() as usize;
        // The draw skips a model with an empty range: one draw slot for
        // each model the resident effects can place.
        self.model_entries = g
            .models_placed()
            .into_iter()
            .map(|placed| 0..u32::from(placed))
            .collect();
        let table: Vec<CullModel> = models
            .models
            .iter()
            .map(|m| CullModel {
                index_count: m.index_count,
                first_index: m.first_index,
                base_vertex: m.base_vertex,
                args_base: 0,
                sway_height: m.height,
                radius: m.radius,
                visible_base: 0,
                _pad: 0,
            })
            .collect();
        if let Compaction::Instances { initial, .. } = &mut self.compaction {
            *initial = instances::State::initial(&table);
        }
        let data: &[u8] = bytemuck::cast_slice(&table);
        if !data.is_empty() {
            gpu.write_buffer_staged("grass.cull_models", &self.cull_models, 0, data);
        }
        data.len() as u64
    }

    /// `placement=gpu`: grows the generated buffers (descriptors, visible
    /// list, entries, survivor state) before a frame that could generate
    /// more than they hold: grass drawn to `distance`, sway `amplitude`.
    pub fn reserve_generation(
        &mut self,
        gpu: &GpuContext,
        atlas: &HeightAtlas,
        distance: f32,
        amplitude: f32,
    ) -> Result<(), PassError> {
        let Some(g) = self.generated.as_ref() else {
            return Ok(());
        };
        let (descs, entries) = g.needed(distance, amplitude);
        let (have_descs, have_entries) = self.generation_room();
        if descs <= have_descs && entries <= have_entries {
            return Ok(());
        }
        let descs = descs.max(have_descs);
        let entries = entries.max(have_entries);
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        self.descriptors = pool_buffer(gpu, "grass.descriptors", descs * DESCRIPTOR_BYTES, storage);
        self.entries = pool_buffer(gpu, "grass.entries", entries * ENTRY_BYTES, storage);
        if let Compaction::Instances { state, visible, .. } = &mut self.compaction {
            *visible = Self::visible_buffer(gpu, descs);
            *state = Self::state_buffer(gpu, self.model_count as usize, entries);
        }
        // Nothing in these buffers outlives a frame: no copy.
        self.check_limits(gpu)?;
        self.rebind(gpu, atlas);
        Ok(())
    }

    /// `placement=gpu`: the descriptors and entries the generated buffers
    /// hold.
    pub fn generation_room(&self) -> (u64, u64) {
        (
            self.descriptors.size() / DESCRIPTOR_BYTES,
            self.entries.size() / ENTRY_BYTES,
        )
    }

    /// `placement=gpu`: bytes of the per-MCNK records (records, bounds,
    /// per-cell coverage) and of everything the generation keeps besides
    /// the cull's buffers.
    pub fn generation_bytes(&self) -> Option<(u64, u64)> {
        self.generated
            .as_ref()
            .map(|g| (g.record_bytes(), g.gpu_memory_bytes()))
    }

    /// `placement=gpu`: records the generation into the open pass (after
    /// the frame's state header is written); the bytes written.
    pub(super) fn record_generation(
        &self,
        queue: &wgpu::Queue,
        pass: &mut wgpu::ComputePass<'_>,
    ) -> u64 {
        let Some(g) = self.generated.as_ref() else {
            return 0;
        };
        let (descs, entries) = self.generation_room();
        g.record(
            queue,
            pass,
            descs.min(u64::from(u32::MAX)) as u32,
            entries.min(u64::from(u32::MAX)) as u32,
        )
    }

    /// Remakes the generation's group 2 over the current buffers.
    pub(super) fn rebind_generation(&mut self, gpu: &GpuContext, atlas: &HeightAtlas) {
        let Some(g) = self.generated.as_mut() else {
            return;
        };
        let Compaction::Instances {
            state, dispatch, ..
        } = &self.compaction
        else {
            return;
        };
        g.bind(
            &gpu.device,
            atlas,
            [
                &self.cull_uniform,
                &self.patches,
                &self.descriptors,
                &self.entries,
                state,
                dispatch,
                &self.cull_models,
            ],
        );
    }
}
