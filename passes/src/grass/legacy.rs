//! Grass `legacy-cpu`: the "before" path, a per-frame CPU instance rebuild
//! (the cost structure of a classic client-side detail-doodad loop). Every frame, inside the
//! `grass.upload` transfer pass, it walks every resident placement, tests
//! each clump's distance and culling sphere against the frustum, builds the
//! mat4 of every visible clump, copies them per model into one staging array
//! and uploads that into one dynamic instance buffer; `grass.draw` then draws
//! per model from it. It reproduces that cost structure honestly and is
//! deliberately not optimised beyond it (no spatial structure, no caching).

use std::cell::RefCell;
use std::collections::BTreeMap;

use glam::{Mat4, Vec3};

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::{Placement, Placements, TileCoord};

use super::draw::{add_draw_pass, draw_batches, Batch, DrawState};
use super::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use super::instance::{cull_sphere, instance_matrix, placement_models, INSTANCE_BYTES};
use super::models::GrassModels;
use super::static_batch::{check_buffer_size, uniform_buffer};
use super::wind::max_sway;
use crate::error::PassError;
use crate::frame::{Frame, FrameView};
use crate::technique::RecordInputs;

/// Name of the upload pass.
pub const PASS_UPLOAD: &str = "grass.upload";

/// Per-frame CPU arrays, reused between frames.
#[derive(Default)]
struct FrameScratch {
    /// Visible matrices per model.
    per_model: Vec<Vec<Mat4>>,
    /// All visible matrices, model after model (what is uploaded).
    staging: Vec<Mat4>,
    /// (model, first instance, count) in `staging`.
    ranges: Vec<(usize, u32, u32)>,
}

/// One resident tile's placements and their models.
struct TileItems {
    items: Vec<Placement>,
    item_models: Vec<u16>,
}

/// The legacy-cpu grass tier.
pub struct LegacyCpu {
    /// Resident tiles' placements by `(row, column)`: walked in window
    /// order, the same order as the merged store.
    tiles: BTreeMap<(u32, u32), TileItems>,
    /// Model bounding radius per model.
    radius: Vec<f32>,
    /// Model height span per model (wind margin).
    height: Vec<f32>,
    dynamic: wgpu::Buffer,
    uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    draw: DrawState,
    scratch: RefCell<FrameScratch>,
    bytes: u64,
}

impl LegacyCpu {
    /// Keeps a copy of `placements` (the resident window's, per tile) and
    /// allocates one dynamic instance buffer large enough for all of them.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        placements: &Placements,
    ) -> Result<Self, PassError> {
        let item_models = placement_models(placements, models.len())?;
        let mut tiles: BTreeMap<(u32, u32), TileItems> = BTreeMap::new();
        for g in &placements.groups {
            let t = g.chunk.tile();
            let part = tiles.entry((t.y, t.x)).or_insert_with(|| TileItems {
                items: Vec::new(),
                item_models: Vec::new(),
            });
            part.items.extend_from_slice(&placements.items[g.range()]);
            part.item_models.extend_from_slice(&item_models[g.range()]);
        }
        let dynamic = dynamic_buffer(gpu, placements.items.len())?;
        let size = dynamic.size();
        let uniform = uniform_buffer(gpu);
        let frame_bind_group = models.frame_bind_group(&gpu.device, &uniform);
        Ok(LegacyCpu {
            tiles,
            radius: models.models.iter().map(|m| m.radius).collect(),
            height: models.models.iter().map(|m| m.height).collect(),
            dynamic,
            uniform,
            frame_bind_group,
            draw: DrawState::default(),
            scratch: RefCell::new(FrameScratch {
                per_model: vec![Vec::new(); models.len()],
                ..Default::default()
            }),
            bytes: size + GRASS_FRAME_BYTES + models.gpu_memory_bytes(),
        })
    }

    /// The CPU culling of one frame: for every placement, in order, whether
    /// it is within the draw distance and its sphere touches the frustum.
    /// Pushes the matrices of the visible ones per model into `per_model`.
    fn cull_and_build(&self, view: &FrameView, per_model: &mut [Vec<Mat4>]) {
        let eye = view.eye();
        let max_dist = view.settings.grass_distance;
        for list in per_model.iter_mut() {
            list.clear();
        }
        let all = self
            .tiles
            .values()
            .flat_map(|t| t.items.iter().zip(&t.item_models));
        for (p, &m) in all {
            let m = m as usize;
            if Vec3::from_array(p.position).distance(eye) > max_dist {
                continue;
            }
            let sway = max_sway(&view.settings, self.height[m]);
            let (centre, radius) = cull_sphere(p, self.radius[m], sway);
            if !view.frustum.sphere_visible(centre, radius) {
                continue;
            }
            per_model[m].push(instance_matrix(p));
        }
    }

    /// Adds `grass.upload` (CPU cull, matrix build, copy, upload of the
    /// visible instances and the uniforms) and `grass.draw`.
    pub fn record<'a>(
        &'a mut self,
        frame: Frame<'a>,
        graph: &mut RenderGraph<'a>,
        models: &'a GrassModels,
    ) {
        let Frame { gpu, view, targets } = frame;
        self.draw.prepare(gpu, models, view);
        let this: &'a LegacyCpu = self;
        let frame = GrassFrame::new(view);
        let view = *view;
        let instances = graph.import_buffer("grass.instances", &this.dynamic);
        let uniforms = graph.import_buffer("grass.uniforms", &this.uniform);
        let frame_group =
            graph.import_bind_group("grass.frame", &this.frame_bind_group, &[uniforms.into()]);
        graph
            .add_transfer_pass(PASS_UPLOAD)
            .write(instances)
            .write(uniforms)
            .record(move |ctx| {
                let mut scratch = this.scratch.borrow_mut();
                let FrameScratch {
                    per_model,
                    staging,
                    ranges,
                } = &mut *scratch;
                this.cull_and_build(&view, per_model);
                staging.clear();
                ranges.clear();
                for (m, list) in per_model.iter().enumerate() {
                    if !list.is_empty() {
                        ranges.push((m, staging.len() as u32, list.len() as u32));
                        staging.extend_from_slice(list);
                    }
                }
                let matrices: &[u8] = bytemuck::cast_slice(staging);
                if !matrices.is_empty() {
                    ctx.queue
                        .write_buffer(ctx.res.buffer(instances), 0, matrices);
                }
                ctx.queue
                    .write_buffer(ctx.res.buffer(uniforms), 0, bytemuck::bytes_of(&frame));
                ctx.counters.bytes_uploaded += matrices.len() as u64 + GRASS_FRAME_BYTES;
            });
        add_draw_pass(graph, &view, targets, &[instances, uniforms], move |ctx| {
            let scratch = this.scratch.borrow();
            let buffer = ctx.res.buffer(instances);
            let batches = scratch.ranges.iter().map(|&(model, first, count)| Batch {
                model,
                buffer,
                offset: u64::from(first) * INSTANCE_BYTES,
                count,
            });
            let c = draw_batches(
                &mut ctx.pass,
                models,
                &this.draw,
                ctx.res.bind_group(frame_group),
                batches,
            );
            ctx.counters.instances_submitted += c.instances_drawn;
            *ctx.counters += c;
        });
    }

    /// The pipeline state each model was last drawn with (empty before the
    /// first `record`); the pipelines are built from exactly these.
    pub fn material_states(&self) -> &[super::MaterialState] {
        self.draw.states()
    }

    /// Resident placements (walked every frame).
    pub fn placement_count(&self) -> usize {
        self.tiles.values().map(|t| t.items.len()).sum()
    }

    /// Makes `tile` resident with a copy of `placements` (replacing what it
    /// had), or evicts it with `None`. The dynamic buffer grows (never
    /// shrinks) when the resident placements outgrow it.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        models: &GrassModels,
        tile: TileCoord,
        placements: Option<&Placements>,
    ) -> Result<(), PassError> {
        self.tiles.remove(&(tile.y, tile.x));
        if let Some(p) = placements.filter(|p| !p.is_empty()) {
            let item_models = placement_models(p, models.len())?;
            self.tiles.insert(
                (tile.y, tile.x),
                TileItems {
                    items: p.items.clone(),
                    item_models,
                },
            );
        }
        let needed = self.placement_count();
        if needed as u64 * INSTANCE_BYTES > self.dynamic.size() {
            let grown = dynamic_buffer(gpu, needed)?;
            self.bytes += grown.size() - self.dynamic.size();
            self.dynamic = grown;
        }
        Ok(())
    }

    /// The dynamic instance buffer (tests read it back).
    pub fn instance_buffer(&self) -> &wgpu::Buffer {
        &self.dynamic
    }

    /// GPU memory of the dynamic instance buffer, the uniform block and the
    /// shared model geometry and textures.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }
}

/// A dynamic instance buffer for `placements` instances.
fn dynamic_buffer(gpu: &GpuContext, placements: usize) -> Result<wgpu::Buffer, PassError> {
    let size = (placements as u64 * INSTANCE_BYTES).max(INSTANCE_BYTES);
    check_buffer_size(gpu, "the dynamic instance buffer".into(), size)?;
    Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("grass.instances"),
        size,
        usage: wgpu::BufferUsages::VERTEX
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    }))
}

/// Registry entry of grass `legacy-cpu`, the profiled "before" path.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "legacy-cpu",
    summary: "the profiled \"before\" path: every frame walk all placements, cull each clump, build a mat4, upload, one instanced draw per model",
    params: &[],
    requires: &[],
    fallback: None,
    build: |i, _| {
        // Per tile, so building never assembles the merged store.
        let models = GrassModels::shared(i.resources)?;
        let mut this = LegacyCpu::new(i.gpu, models, &Placements::default())?;
        for t in i.scene.world.tiles() {
            let p = i.scene.placements.tile(t.coord);
            this.set_tile(i.gpu, models, t.coord, p.as_deref())?;
        }
        Ok(Box::new(this))
    },
};

impl crate::technique::Technique for LegacyCpu {
    fn record<'a>(&'a mut self, inputs: RecordInputs<'a>, graph: &mut RenderGraph<'a>) {
        let models = GrassModels::recorded(inputs.resources);
        LegacyCpu::record(self, inputs.frame, graph, models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }

    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[crate::technique::ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<crate::technique::Residency, PassError> {
        // An evicted tile has no placements any more: `set_tile` drops it.
        // The CPU copy is walked every frame; nothing goes to the GPU now.
        let models = GrassModels::shared(inputs.resources)?;
        crate::technique::apply_per_tile(changes, |t| {
            // The old copy is freed off the render thread.
            if let Some(old) = self.tiles.remove(&(t.y, t.x)) {
                prepared.discard(old);
            }
            let p = inputs.scene.placements.tile(t);
            self.set_tile(inputs.gpu, models, t, p.as_deref())
                .map(|()| Some(0))
        })
    }
}
