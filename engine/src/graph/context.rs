//! What a pass closure gets while it records: the open pass (or the encoder),
//! the device and queue, the frame's resolved resources, and the counters the
//! pass reports (draw calls, instances, triangles, bytes uploaded).

use std::ops::AddAssign;

use std::cell::Cell;

use super::{BufferId, ResourceId, TextureId};

/// Per-pass (and per-frame) work counters, reported by the passes themselves.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Draw commands issued (a multi-draw counts its draw count).
    pub draw_calls: u64,
    /// Instances submitted to the GPU (before any GPU culling).
    pub instances_submitted: u64,
    /// Instances actually drawn (after culling, where known).
    pub instances_drawn: u64,
    /// Triangles drawn (where known).
    pub triangles: u64,
    /// Bytes uploaded from the CPU this frame.
    pub bytes_uploaded: u64,
}

impl AddAssign for Counters {
    fn add_assign(&mut self, o: Self) {
        self.draw_calls += o.draw_calls;
        self.instances_submitted += o.instances_submitted;
        self.instances_drawn += o.instances_drawn;
        self.triangles += o.triangles;
        self.bytes_uploaded += o.bytes_uploaded;
    }
}

/// The frame's real resources as one pass sees them: resolved by the handles
/// the pass declared. Reaching a resource the pass did not declare marks the
/// frame, and the executor rejects it with [`super::GraphError::UndeclaredAccess`]
/// naming the pass (nothing is submitted).
pub struct Resources<'r> {
    pub(crate) textures: &'r [wgpu::Texture],
    pub(crate) views: &'r [wgpu::TextureView],
    pub(crate) buffers: &'r [wgpu::Buffer],
    pub(crate) declared: &'r [ResourceId],
    pub(crate) undeclared: &'r Cell<Option<ResourceId>>,
}

impl<'r> Resources<'r> {
    fn note(&self, id: ResourceId) {
        if !self.declared.contains(&id) && self.undeclared.get().is_none() {
            self.undeclared.set(Some(id));
        }
    }

    /// The texture behind `id`. Handles are checked when the graph is validated,
    /// so a handle of this graph always resolves.
    pub fn texture(&self, id: TextureId) -> &'r wgpu::Texture {
        self.note(id.into());
        &self.textures[id.1]
    }

    /// A default (whole-texture) view of `id`.
    pub fn view(&self, id: TextureId) -> &'r wgpu::TextureView {
        self.note(id.into());
        &self.views[id.1]
    }

    /// The buffer behind `id`.
    pub fn buffer(&self, id: BufferId) -> &'r wgpu::Buffer {
        self.note(id.into());
        &self.buffers[id.1]
    }
}

/// Context of a compute pass closure.
pub struct ComputeCtx<'c> {
    /// The open compute pass (labelled with the pass name, timestamps attached).
    pub pass: wgpu::ComputePass<'c>,
    /// Device (e.g. for bind groups over transient resources).
    pub device: &'c wgpu::Device,
    /// Queue (uploads: count them in `counters.bytes_uploaded`).
    pub queue: &'c wgpu::Queue,
    /// The frame's resources.
    pub res: Resources<'c>,
    /// Counters this pass reports.
    pub counters: &'c mut Counters,
}

/// Context of a render pass closure.
pub struct RenderCtx<'c> {
    /// The open render pass on the declared attachments.
    pub pass: wgpu::RenderPass<'c>,
    /// Device.
    pub device: &'c wgpu::Device,
    /// Queue.
    pub queue: &'c wgpu::Queue,
    /// The frame's resources.
    pub res: Resources<'c>,
    /// Counters this pass reports.
    pub counters: &'c mut Counters,
    /// Sample count of the attachments (for picking a pipeline).
    pub sample_count: u32,
}

/// Context of a transfer (raw encoder) pass closure.
pub struct TransferCtx<'c> {
    /// The frame's command encoder.
    pub encoder: &'c mut wgpu::CommandEncoder,
    /// Device.
    pub device: &'c wgpu::Device,
    /// Queue.
    pub queue: &'c wgpu::Queue,
    /// The frame's resources.
    pub res: Resources<'c>,
    /// Counters this pass reports.
    pub counters: &'c mut Counters,
}
