//! The `grass.draw` render pass shared by the instanced grass tiers: picks
//! each model's pipeline from its material and the frame's sample count and
//! settings, opens the pass with the frame's clear/resolve duties, and issues
//! one instanced indexed draw per non-empty model batch, depth-resolved
//! materials (opaque, alpha key) before blended ones.

use sward_engine::graph::{BufferId, Counters, RenderCtx, RenderGraph};
use sward_engine::GpuContext;

use super::gpu::GrassPipelines;
use super::material::{material_pipeline_desc, MaterialState};
use super::models::GrassModels;
use crate::frame::{FrameView, PassTargets};

/// Name of the draw pass.
pub const PASS_DRAW: &str = "grass.draw";

/// Instances of one model in one vertex buffer.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'b> {
    /// Model index.
    pub model: usize,
    /// Buffer holding the instance matrices.
    pub buffer: &'b wgpu::Buffer,
    /// Byte offset of the first matrix.
    pub offset: u64,
    /// Number of instances.
    pub count: u32,
}

/// Pipelines and per-model pipeline states of a tier. The states depend only
/// on the sample count and the alpha-to-coverage setting, so they are
/// recomputed (and missing pipelines built) only when those change; a steady
/// frame does no pipeline work outside its pass closures.
#[derive(Default)]
pub struct DrawState {
    /// Pipelines built so far.
    pub pipelines: GrassPipelines,
    states: ModelStates,
}

impl DrawState {
    /// Makes sure every model has its pipeline for `view`.
    pub fn prepare(&mut self, gpu: &GpuContext, models: &GrassModels, view: &FrameView) {
        if self.states.update(models, view) {
            for &state in self.states.states() {
                self.pipelines
                    .ensure(&gpu.device, &models.pipeline_layout, &models.shader, state);
            }
        }
    }

    /// The pipeline state of each model (after [`Self::prepare`]).
    pub fn states(&self) -> &[MaterialState] {
        self.states.states()
    }
}

/// Every model's pipeline state for a frame's sample count and
/// alpha-to-coverage setting, recomputed only when those (or the number of
/// models) change: what each tier's pipeline cache is keyed by.
#[derive(Default)]
pub struct ModelStates {
    key: Option<(u32, bool)>,
    states: Vec<MaterialState>,
}

impl ModelStates {
    /// Recomputes the states for `view` when its key or the model count
    /// changed, answering `true` (the caller then builds the pipelines it
    /// lacks); `false` when they stand.
    pub fn update(&mut self, models: &GrassModels, view: &FrameView) -> bool {
        let key = (view.sample_count, view.settings.alpha_to_coverage);
        if self.key == Some(key) && self.states.len() == models.len() {
            return false;
        }
        self.states = models
            .models
            .iter()
            .map(|m| material_pipeline_desc(&m.material, key.0, key.1))
            .collect();
        self.key = Some(key);
        true
    }

    /// The pipeline state of each model (after [`Self::update`]).
    pub fn states(&self) -> &[MaterialState] {
        &self.states
    }
}

/// Adds `grass.draw` on `targets` (clearing them to the fog colour and
/// `DEPTH_CLEAR` when `targets.clear`), reading `reads`; `f` records the draws.
pub fn add_draw_pass<'a>(
    graph: &mut RenderGraph<'a>,
    view: &FrameView,
    targets: PassTargets,
    reads: &[BufferId],
    f: impl for<'c> FnOnce(&mut RenderCtx<'c>) + 'a,
) {
    let (color_load, depth_load) = targets.load_ops(&view.settings);
    let mut pass = graph.add_render_pass(PASS_DRAW);
    for &r in reads {
        pass = pass.read(r);
    }
    pass.color(targets.color, color_load, targets.resolve)
        .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
        .record(f);
}

/// Draws `batches` (one instanced draw each) into the open pass and returns
/// the draw counters (draw calls, instances drawn, triangles).
pub fn draw_batches<'b>(
    pass: &mut wgpu::RenderPass<'_>,
    models: &GrassModels,
    draw: &DrawState,
    frame_bind_group: &wgpu::BindGroup,
    batches: impl IntoIterator<Item = Batch<'b>>,
) -> Counters {
    let mut counters = Counters::default();
    let mut ordered: Vec<Batch<'b>> = batches.into_iter().filter(|b| b.count > 0).collect();
    // Depth-resolved batches first, blended after them (stable: model order kept).
    ordered.sort_by_key(|b| !models.models[b.model].material.blend.is_depth_resolved());
    pass.set_bind_group(0, frame_bind_group, &[]);
    pass.set_vertex_buffer(0, models.vertex_buffer.slice(..));
    pass.set_index_buffer(models.index_buffer.slice(..), wgpu::IndexFormat::Uint16);
    for b in ordered {
        let (Some(model), Some(state)) = (models.models.get(b.model), draw.states().get(b.model))
        else {
            log::error!(
                "grass.draw: batch names model {} of {}",
                b.model,
                models.len()
            );
            continue;
        };
        let Some(pipeline) = draw.pipelines.get(state) else {
            log::error!(
                "grass.draw: no pipeline for model {} ({state:?})",
                model.name
            );
            continue;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(1, &model.bind_group, &[]);
        let bytes = u64::from(b.count) * super::instance::INSTANCE_BYTES;
        pass.set_vertex_buffer(1, b.buffer.slice(b.offset..b.offset + bytes));
        let first = model.first_index;
        pass.draw_indexed(
            first..first + model.index_count,
            model.base_vertex,
            0..b.count,
        );
        counters.draw_calls += 1;
        counters.instances_drawn += u64::from(b.count);
        counters.triangles += u64::from(b.count) * model.triangles;
    }
    counters
}
