//! The multi-bone fallback of `camera-grid`: the static
//! grid bakes each model's rest pose, so a model with more than one
//! *effective* animated bone (distinct bones its vertices use) is drawn by
//! the instanced path instead: its authoritative placements go into one
//! immutable mat4 buffer, drawn with `grass_instanced` inside the grid's
//! pass. The choice is logged per model. The 14 procedural Elwynn models
//! have one bone each, so the list is empty there.

use glam::Mat4;
use wgpu::util::DeviceExt;

use sward_engine::graph::Counters;
use sward_engine::GpuContext;
use sward_scenes::{DetailModel, Placements};

use crate::error::PassError;
use crate::frame::FrameView;
use crate::grass::draw::{draw_batches, Batch, DrawState};
use crate::grass::instance::{instance_matrix, INSTANCE_BYTES};
use crate::grass::models::GrassModels;

/// Bones a model's vertices actually use (a model with one bone, or whose
/// vertices all hang on one bone, has one effective bone).
pub fn effective_bones(model: &DetailModel) -> u32 {
    let mut used: Vec<u32> = model.vertices.iter().map(|v| v.bone).collect();
    used.sort_unstable();
    used.dedup();
    used.len() as u32
}

/// Indices of the models the grid cannot draw (more than one effective
/// bone), logging the choice for every model.
pub fn fallback_models(models: &[DetailModel]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, m) in models.iter().enumerate() {
        let bones = effective_bones(m);
        if bones > 1 {
            log::info!(
                "grass.camera-grid: model {i} ({}) has {bones} effective bones: instanced fallback",
                m.name
            );
            out.push(i);
        } else {
            log::debug!(
                "grass.camera-grid: model {i} ({}) has {bones} effective bone: static grid",
                m.name
            );
        }
    }
    out
}

struct FallbackBatch {
    model: usize,
    buffer: wgpu::Buffer,
    count: u32,
}

/// Instanced batches of the fallback models.
#[derive(Default)]
pub struct Fallback {
    batches: Vec<FallbackBatch>,
    draw: DrawState,
    bytes: u64,
}

impl Fallback {
    /// One immutable instance buffer per model of `fallback` that has placements.
    pub fn new(
        gpu: &GpuContext,
        fallback: &[usize],
        placements: &Placements,
        model_count: usize,
    ) -> Result<Self, PassError> {
        let mut out = Fallback::default();
        if fallback.is_empty() {
            return Ok(out);
        }
        let (items, ranges) = placements.model_major(model_count);
        for &model in fallback {
            let Some(range) = ranges.get(model).filter(|r| !r.is_empty()) else {
                continue;
            };
            let matrices: Vec<Mat4> = items[range.clone()].iter().map(instance_matrix).collect();
            let count = u32::try_from(matrices.len()).map_err(|_| PassError::InvalidInput {
                technique: "grass.camera-grid",
                what: format!("fallback model {model}"),
                reason: "more than u32::MAX placements".into(),
            })?;
            let buffer = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("grass.grid.fallback"),
                    contents: bytemuck::cast_slice(&matrices),
                    usage: wgpu::BufferUsages::VERTEX,
                });
            out.bytes += u64::from(count) * INSTANCE_BYTES;
            out.batches.push(FallbackBatch {
                model,
                buffer,
                count,
            });
        }
        Ok(out)
    }

    /// Whether anything is drawn by the fallback.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// Fallback instances.
    pub fn instances(&self) -> u64 {
        self.batches.iter().map(|b| u64::from(b.count)).sum()
    }

    /// GPU memory of the instance buffers.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }

    /// Builds the instanced pipelines for `view` (outside the pass).
    pub fn prepare(&mut self, gpu: &GpuContext, models: &GrassModels, view: &FrameView) {
        if !self.is_empty() {
            self.draw.prepare(gpu, models, view);
        }
    }

    /// Draws the batches into the open pass (binds group 0 itself).
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        models: &GrassModels,
        frame_bind_group: &wgpu::BindGroup,
    ) -> Counters {
        if self.is_empty() {
            return Counters::default();
        }
        let batches = self.batches.iter().map(|b| Batch {
            model: b.model,
            buffer: &b.buffer,
            offset: 0,
            count: b.count,
        });
        draw_batches(pass, models, &self.draw, frame_bind_group, batches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::models::elwynn_models;

    #[test]
    fn elwynn_models_stay_on_the_grid_and_a_two_bone_model_falls_back() {
        let mut models = elwynn_models();
        assert_eq!(models.len(), 14);
        assert!(fallback_models(&models).is_empty());
        // A synthetic model: the same geometry, upper half on a second bone.
        let mut two = models[3].clone();
        two.name = "TwoBone".into();
        two.bones = 2;
        let top = two.bounds.max[2] * 0.5;
        for v in &mut two.vertices {
            v.bone = u32::from(v.position[2] > top);
        }
        two.validate().unwrap();
        assert_eq!(effective_bones(&two), 2);
        // Two declared bones with every vertex on one stays on the grid.
        let mut unused = models[5].clone();
        unused.bones = 2;
        assert_eq!(effective_bones(&unused), 1);
        models.push(two);
        models.push(unused);
        assert_eq!(fallback_models(&models), vec![14]);
    }
}
