//! Grass `static-batch`, the baseline: when the world
//! window is built, placements are grouped by model and each model gets one
//! immutable instance buffer of mat4s; every frame writes only the uniform
//! block and issues one instanced draw per model batch. Distance fade, the
//! 220-unit cut and wind run in the vertex shader, so no per-instance work
//! happens on the CPU after construction.

use glam::Mat4;
use wgpu::util::DeviceExt;

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::Placements;

use super::draw::{add_draw_pass, draw_batches, Batch, DrawState};
use super::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use super::instance::{instance_matrix, placement_models, INSTANCE_BYTES};
use super::models::GrassModels;
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};

/// The immutable instances of one model.
struct ModelBatch {
    model: usize,
    buffer: wgpu::Buffer,
    count: u32,
}

/// The static-batch grass tier.
pub struct StaticBatch {
    batches: Vec<ModelBatch>,
    uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    draw: DrawState,
    instances: u64,
    bytes: u64,
}

/// Checks that `bytes` of instances fit one buffer of the device.
pub(crate) fn check_buffer_size(
    gpu: &GpuContext,
    what: String,
    bytes: u64,
) -> Result<(), PassError> {
    let limit = gpu.device.limits().max_buffer_size;
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

impl StaticBatch {
    /// Groups `placements` (the resident window's) by model and uploads one
    /// immutable mat4 buffer per model that has any.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        placements: &Placements,
    ) -> Result<Self, PassError> {
        placement_models(placements, models.len())?;
        let (items, ranges) = placements.model_major(models.len());
        let mut batches = Vec::new();
        let mut bytes = GRASS_FRAME_BYTES + models.gpu_memory_bytes();
        for (model, range) in ranges.into_iter().enumerate() {
            if range.is_empty() {
                continue;
            }
            let size = range.len() as u64 * INSTANCE_BYTES;
            check_buffer_size(
                gpu,
                format!("instances of model {}", models.models[model].name),
                size,
            )?;
            let matrices: Vec<Mat4> = items[range].iter().map(instance_matrix).collect();
            let buffer = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("grass.instances"),
                    contents: bytemuck::cast_slice(&matrices),
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC,
                });
            bytes += size;
            batches.push(ModelBatch {
                model,
                buffer,
                count: matrices.len() as u32,
            });
        }
        let uniform = uniform_buffer(gpu);
        let frame_bind_group = models.frame_bind_group(&gpu.device, &uniform);
        Ok(StaticBatch {
            batches,
            uniform,
            frame_bind_group,
            draw: DrawState::default(),
            instances: items.len() as u64,
            bytes,
        })
    }

    /// Adds `grass.draw`: writes the uniforms, then one instanced draw per
    /// model batch.
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        models: &'a GrassModels,
    ) {
        self.draw.prepare(gpu, models, view);
        let this: &'a StaticBatch = self;
        let frame = GrassFrame::new(view);
        let uniforms = graph.import_buffer("grass.uniforms", &this.uniform);
        add_draw_pass(graph, view, targets, &[uniforms], move |ctx| {
            ctx.queue
                .write_buffer(&this.uniform, 0, bytemuck::bytes_of(&frame));
            ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
            let batches = this.batches.iter().map(|b| Batch {
                model: b.model,
                buffer: &b.buffer,
                offset: 0,
                count: b.count,
            });
            let c = draw_batches(
                &mut ctx.pass,
                models,
                &this.draw,
                &this.frame_bind_group,
                batches,
            );
            ctx.counters.instances_submitted += this.instances;
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
        self.instances
    }

    /// Number of model batches (draws per frame).
    pub fn batch_count(&self) -> usize {
        self.batches.len()
    }

    /// The instance buffer of `model` and its instance count, if it has any.
    pub fn model_buffer(&self, model: usize) -> Option<(&wgpu::Buffer, u32)> {
        self.batches
            .iter()
            .find(|b| b.model == model)
            .map(|b| (&b.buffer, b.count))
    }

    /// GPU memory of the instance buffers, the uniform block and the shared
    /// model geometry and textures.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
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
    build: |i, _| Ok(Box::new(StaticBatch::new(i.gpu, i.models, i.scene.placements)?)),
};

impl crate::technique::Technique for StaticBatch {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        StaticBatch::record(self, inputs.gpu, graph, view, targets, inputs.models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }
}
