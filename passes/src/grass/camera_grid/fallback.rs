//! The multi-bone fallback of `camera-grid`: the static
//! grid bakes each model's rest pose, so a model with more than one
//! *effective* animated bone (distinct bones its vertices use) is drawn by
//! the instanced path instead: its authoritative placements go into one
//! immutable mat4 buffer, drawn with `grass_instanced` inside the grid's
//! pass. The choice is logged per model. The 14 procedural Elwynn models
//! have one bone each, so the list is empty there.
//!
//! While the world streams the buffers are per tile ([`Fallback::set_tile`]
//! adds or drops one tile's), drawn model after model with tiles in window
//! order; a whole-window build keeps one buffer per model.

use glam::Mat4;
use wgpu::util::DeviceExt;

use std::collections::BTreeMap;
use sward_engine::graph::Counters;
use sward_engine::GpuContext;

use sward_scenes::{DetailModel, Placements, TileCoord};

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

/// One fallback model's instances of one tile in a vertex buffer.
pub struct FallbackBatch {
    model: usize,
    buffer: wgpu::Buffer,
    count: u32,
}

/// Instanced batches of the fallback models.
#[derive(Default)]
pub struct Fallback {
    /// The fallback models.
    models: Vec<usize>,
    /// Batches by tile `(row, column)` (one key for a whole-window build).
    tiles: BTreeMap<(u32, u32), Vec<FallbackBatch>>,
    draw: DrawState,
}

/// One immutable instance buffer per model of `fallback` with placements.
pub(crate) fn batches(
    device: &wgpu::Device,
    fallback: &[usize],
    placements: &Placements,
    model_count: usize,
) -> Result<Vec<FallbackBatch>, PassError> {
    let mut out = Vec::new();
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
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.grid.fallback"),
            contents: bytemuck::cast_slice(&matrices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        out.push(FallbackBatch {
            model,
            buffer,
            count,
        });
    }
    Ok(out)
}

impl Fallback {
    /// One immutable instance buffer per model of `fallback` that has placements.
    pub fn new(
        gpu: &GpuContext,
        fallback: &[usize],
        placements: &Placements,
        model_count: usize,
    ) -> Result<Self, PassError> {
        let mut out = Fallback {
            models: fallback.to_vec(),
            ..Fallback::default()
        };
        if fallback.is_empty() {
            return Ok(out);
        }
        let list = batches(&gpu.device, fallback, placements, model_count)?;
        if !list.is_empty() {
            out.tiles.insert((u32::MAX, u32::MAX), list);
        }
        Ok(out)
    }

    /// Tile `tile` became resident with `placements` (replacing its batches
    /// if it was) or, with `None`, was evicted. Returns the bytes uploaded.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        tile: TileCoord,
        placements: Option<&Placements>,
        model_count: usize,
        prepared: Option<Vec<FallbackBatch>>,
    ) -> Result<u64, PassError> {
        let key = (tile.y, tile.x);
        self.tiles.remove(&key);
        let Some(p) = placements.filter(|_| !self.models.is_empty()) else {
            return Ok(0);
        };
        let list = match prepared {
            Some(list) => list,
            None => batches(&gpu.device, &self.models, p, model_count)?,
        };
        let bytes = list
            .iter()
            .map(|b| u64::from(b.count) * INSTANCE_BYTES)
            .sum();
        if !list.is_empty() {
            self.tiles.insert(key, list);
        }
        Ok(bytes)
    }

    /// Takes tile `tile`'s batches out (to be freed elsewhere).
    pub fn take_tile(&mut self, tile: TileCoord) -> Option<Vec<FallbackBatch>> {
        self.tiles.remove(&(tile.y, tile.x))
    }

    /// The models drawn by the fallback (for a preparer on another thread).
    pub fn models(&self) -> &[usize] {
        &self.models
    }

    /// Whether anything is drawn by the fallback.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Fallback instances.
    pub fn instances(&self) -> u64 {
        self.tiles
            .values()
            .flatten()
            .map(|b| u64::from(b.count))
            .sum()
    }

    /// GPU memory of the instance buffers.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.instances() * INSTANCE_BYTES
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
        // Model after model, tiles in window order within a model.
        let batches = self
            .models
            .iter()
            .flat_map(|&m| self.tiles.values().flatten().filter(move |b| b.model == m));
        let batches = batches.map(|b| Batch {
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
