//! Grass `static-batch`, the baseline: when a tile becomes resident, its
//! placements are grouped by model and each model gets one immutable
//! instance buffer of mat4s for that tile; every frame writes only the
//! uniform block and issues one instanced draw per model and tile (model
//! after model, tiles in window order, so the instance order is the same as
//! one buffer per model over the whole window). Distance fade, the 220-unit
//! cut and wind run in the vertex shader, so no per-instance work happens on
//! the CPU after a tile arrives. Streaming adds and drops a tile's buffers
//! ([`crate::technique::Technique::residency_changed`]); nothing else is
//! rebuilt.

use glam::Mat4;
use wgpu::util::DeviceExt;

use std::collections::BTreeMap;
use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;

use sward_scenes::placement::PlacementGroup;
use sward_scenes::{Placements, TileCoord};

use super::draw::{add_draw_pass, draw_batches, Batch, DrawState};
use super::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use super::instance::{instance_matrix, placement_models, INSTANCE_BYTES};
use super::models::GrassModels;
use crate::error::PassError;
use crate::frame::Frame;
use crate::technique::RecordInputs;

/// The immutable instances of one model in one tile: a run of the tile's
/// instance buffer.
struct ModelBatch {
    model: usize,
    /// Byte offset in the tile's buffer.
    offset: u64,
    count: u32,
}

/// One resident tile's batches: one immutable buffer with every model's
/// instances, model after model (one allocation per tile).
pub struct TileBatches {
    buffer: wgpu::Buffer,
    batches: Vec<ModelBatch>,
    instances: u64,
    bytes: u64,
}

/// The static-batch grass tier.
pub struct StaticBatch {
    /// Resident tiles' batches by `(row, column)` (window order).
    tiles: BTreeMap<(u32, u32), TileBatches>,
    uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    draw: DrawState,
    /// Bytes that do not depend on the resident tiles (uniforms, models).
    fixed_bytes: u64,
    /// Detail models (placements index them).
    model_count: usize,
}

/// Checks that `bytes` of instances fit one buffer of the device.
pub(crate) fn check_buffer_size(
    gpu: &GpuContext,
    what: String,
    bytes: u64,
) -> Result<(), PassError> {
    check_device_buffer_size(&gpu.device, what, bytes)
}

/// [`check_buffer_size`] with only the device (for worker threads).
pub(crate) fn check_device_buffer_size(
    device: &wgpu::Device,
    what: String,
    bytes: u64,
) -> Result<(), PassError> {
    let limit = device.limits().max_buffer_size;
    if bytes > limit {
        return Err(PassError::DeviceLimit {
            technique: "grass",
            what,
            needed: bytes,
            limit,
        });
    }
    Ok(())
}

/// The per-frame uniform buffer both tiers write.
pub(crate) fn uniform_buffer(gpu: &GpuContext) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("grass.uniforms"),
        size: GRASS_FRAME_BYTES,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Builds the batches of one tile's `placements` (group starts from 0), or
/// `None` when it has none.
fn tile_batches(
    device: &wgpu::Device,
    model_count: usize,
    placements: &Placements,
    tile: TileCoord,
) -> Result<Option<TileBatches>, PassError> {
    placement_models(placements, model_count)?;
    let (items, ranges) = placements.model_major(model_count);
    if items.is_empty() {
        return Ok(None);
    }
    let size = items.len() as u64 * INSTANCE_BYTES;
    check_device_buffer_size(
        device,
        format!("instances of tile ({}, {})", tile.x, tile.y),
        size,
    )?;
    let matrices: Vec<Mat4> = items.iter().map(instance_matrix).collect();
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("grass.instances"),
        contents: bytemuck::cast_slice(&matrices),
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC,
    });
    let batches = ranges
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(model, r)| ModelBatch {
            model,
            offset: r.start as u64 * INSTANCE_BYTES,
            count: r.len() as u32,
        })
        .collect();
    Ok(Some(TileBatches {
        buffer,
        batches,
        instances: items.len() as u64,
        bytes: size,
    }))
}

/// `placements` split by the tile of each group's MCNK (group starts from 0
/// in each part), in window order.
fn split_by_tile(placements: &Placements) -> BTreeMap<(u32, u32), Placements> {
    let mut out: BTreeMap<(u32, u32), Placements> = BTreeMap::new();
    for g in &placements.groups {
        let t = g.chunk.tile();
        let part = out.entry((t.y, t.x)).or_default();
        let start = part.items.len() as u32;
        let items = placements.items.get(g.range()).unwrap_or(&[]);
        part.items.extend_from_slice(items);
        part.groups.push(PlacementGroup {
            start,
            count: items.len() as u32,
            ..*g
        });
    }
    out
}

impl StaticBatch {
    /// Uploads one immutable mat4 buffer per model and tile for
    /// `placements` (the resident window's).
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        placements: &Placements,
    ) -> Result<Self, PassError> {
        placement_models(placements, models.len())?;
        let uniform = uniform_buffer(gpu);
        let frame_bind_group = models.frame_bind_group(&gpu.device, &uniform);
        let mut this = StaticBatch {
            tiles: BTreeMap::new(),
            uniform,
            frame_bind_group,
            draw: DrawState::default(),
            fixed_bytes: GRASS_FRAME_BYTES + models.gpu_memory_bytes(),
            model_count: models.len(),
        };
        for ((y, x), part) in split_by_tile(placements) {
            let t = TileCoord::new(x, y);
            if let Some(b) = tile_batches(&gpu.device, models.len(), &part, t)? {
                this.tiles.insert((y, x), b);
            }
        }
        Ok(this)
    }

    /// Makes `tile` resident with `placements` (replacing what it had), or
    /// evicts it with `None`. Returns the bytes uploaded.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        models: &GrassModels,
        tile: TileCoord,
        placements: Option<&Placements>,
    ) -> Result<u64, PassError> {
        self.set_tile_prepared(gpu, models, tile, placements, None)
    }

    /// [`Self::set_tile`] with the tile's instance buffer built beforehand
    /// (on a tile worker: see [`Technique::tile_preparer`]); `None` builds
    /// it here.
    ///
    /// [`Technique::tile_preparer`]: crate::technique::Technique::tile_preparer
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        models: &GrassModels,
        tile: TileCoord,
        placements: Option<&Placements>,
        prepared: Option<TileBatches>,
    ) -> Result<u64, PassError> {
        self.tiles.remove(&(tile.y, tile.x));
        let Some(p) = placements.filter(|p| !p.is_empty()) else {
            return Ok(0);
        };
        let built = match prepared {
            Some(b) => Some(b),
            None => tile_batches(&gpu.device, models.len(), p, tile)?,
        };
        let Some(built) = built else {
            return Ok(0);
        };
        let bytes = built.bytes;
        self.tiles.insert((tile.y, tile.x), built);
        Ok(bytes)
    }

    /// Every batch with its tile's buffer, model after model, tiles in
    /// window order.
    fn batches(&self) -> impl Iterator<Item = (&wgpu::Buffer, &ModelBatch)> + '_ {
        let mut all: Vec<(&wgpu::Buffer, &ModelBatch)> = self
            .tiles
            .values()
            .flat_map(|t| t.batches.iter().map(move |b| (&t.buffer, b)))
            .collect();
        all.sort_by_key(|(_, b)| b.model);
        all.into_iter()
    }

    /// Adds `grass.draw`: writes the uniforms, then one instanced draw per
    /// model batch.
    pub fn record<'a>(
        &'a mut self,
        frame: Frame<'a>,
        graph: &mut RenderGraph<'a>,
        models: &'a GrassModels,
    ) {
        let Frame { gpu, view, targets } = frame;
        self.draw.prepare(gpu, models, view);
        let this: &'a StaticBatch = self;
        let frame = GrassFrame::new(view);
        let uniforms = graph.import_buffer("grass.uniforms", &this.uniform);
        let frame_group =
            graph.import_bind_group("grass.frame", &this.frame_bind_group, &[uniforms.into()]);
        add_draw_pass(graph, view, targets, &[uniforms], move |ctx| {
            ctx.queue
                .write_buffer(ctx.res.buffer(uniforms), 0, bytemuck::bytes_of(&frame));
            ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
            let batches = this.batches().map(|(buffer, b)| Batch {
                model: b.model,
                buffer,
                offset: b.offset,
                count: b.count,
            });
            let c = draw_batches(
                &mut ctx.pass,
                models,
                &this.draw,
                ctx.res.bind_group(frame_group),
                batches,
            );
            ctx.counters.instances_submitted += this.instance_count();
            *ctx.counters += c;
        });
    }

    /// The pipeline state each model was last drawn with (empty before the
    /// first `record`); the pipelines are built from exactly these.
    pub fn material_states(&self) -> &[super::MaterialState] {
        self.draw.states()
    }

    /// Resident instances (all placements of the window).
    pub fn instance_count(&self) -> u64 {
        self.tiles.values().map(|t| t.instances).sum()
    }

    /// Number of model batches (draws per frame: one per model and tile).
    pub fn batch_count(&self) -> usize {
        self.tiles.values().map(|t| t.batches.len()).sum()
    }

    /// Where the instances of `model` are: one run per resident tile that
    /// has it, in window order, as (the tile's buffer, byte offset, count).
    pub fn model_buffers(&self, model: usize) -> Vec<(&wgpu::Buffer, u64, u32)> {
        self.batches()
            .filter(|(_, b)| b.model == model)
            .map(|(buffer, b)| (buffer, b.offset, b.count))
            .collect()
    }

    /// GPU memory of the instance buffers, the uniform block and the shared
    /// model geometry and textures.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.fixed_bytes + self.tiles.values().map(|t| t.bytes).sum::<u64>()
    }
}

/// Registry entry of grass `static-batch`, the baseline.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "static-batch",
    summary: "baseline: one immutable mat4 instance buffer per model, one instanced draw per model batch, no per-frame CPU work but uniforms",
    params: &[],
    requires: &[],
    fallback: None,
    build: |i, _| {
        let models = GrassModels::shared(i.resources)?;
        let mut this = StaticBatch::new(i.gpu, models, &Placements::default())?;
        for t in i.scene.world.tiles() {
            this.set_tile(i.gpu, models, t.coord, i.scene.placements.tile(t.coord).as_deref())?;
        }
        Ok(Box::new(this))
    },
};

impl crate::technique::Technique for StaticBatch {
    fn record<'a>(&'a mut self, inputs: RecordInputs<'a>, graph: &mut RenderGraph<'a>) {
        let models = GrassModels::recorded(inputs.resources);
        StaticBatch::record(self, inputs.frame, graph, models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        StaticBatch::gpu_memory_bytes(self)
    }

    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[crate::technique::ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<crate::technique::Residency, PassError> {
        // An evicted tile has no placements any more: `set_tile` drops it.
        let models = GrassModels::shared(inputs.resources)?;
        crate::technique::apply_per_tile(changes, |t| {
            // The old buffer is released off the render thread.
            if let Some(old) = self.tiles.remove(&(t.y, t.x)) {
                prepared.discard(old);
            }
            let p = inputs.scene.placements.tile(t);
            let built = match p.as_deref().filter(|p| !p.is_empty()) {
                Some(_) => prepared.take::<Option<TileBatches>>(t)?,
                None => None,
            };
            if let Some(None) = built {
                // The worker found no instances for this tile (its old
                // buffer is gone above).
                return Ok(Some(0));
            }
            self.set_tile_prepared(inputs.gpu, models, t, p.as_deref(), built.flatten())
                .map(Some)
        })
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        let model_count = self.model_count;
        Some(std::sync::Arc::new(crate::technique::FnPreparer(
            move |i: &crate::technique::PrepareInputs<'_>| {
                if i.placements.is_empty() {
                    return Ok(None);
                }
                tile_batches(i.device, model_count, i.placements, i.coord)
            },
        )))
    }
}
