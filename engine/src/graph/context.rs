//! What a pass closure gets while it records: the open pass (or the encoder),
//! the device and queue, the frame's resolved resources, and the counters the
//! pass reports (draw calls, instances, triangles, bytes uploaded).

use std::ops::AddAssign;

use std::cell::Cell;

use super::{BindGroupDecl, BindGroupId, BufferId, ResourceId, TextureId};

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

/// How a pass closure misused a handle; the executor turns the first one into
/// the frame's error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Misuse {
    /// A resource of this graph the pass did not declare.
    Undeclared(ResourceId),
    /// A handle of another graph (or past this graph's declarations).
    Foreign,
}

/// Objects handed out for a foreign handle so the closure can go on
/// recording; the frame is rejected before anything is submitted.
pub(crate) struct StandIns {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub buffer: wgpu::Buffer,
    pub bind_group: wgpu::BindGroup,
}

impl StandIns {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("sward.graph.stand-in"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sward.graph.stand-in"),
            size: 256,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = crate::bind::layout(device, "sward.graph.stand-in", &[]);
        let bind_group = crate::bind::group(device, "sward.graph.stand-in", &layout, &[]);
        StandIns {
            texture,
            view,
            buffer,
            bind_group,
        }
    }
}

/// The frame's real resources as one pass sees them: resolved by the handles
/// the pass declared. Reaching a resource the pass did not declare marks the
/// frame, and the executor rejects it with [`super::GraphError::UndeclaredAccess`]
/// naming the pass (nothing is submitted); a handle of another graph rejects
/// it with [`super::GraphError::UnknownResource`].
pub struct Resources<'r> {
    pub(crate) graph: u32,
    pub(crate) textures: &'r [wgpu::Texture],
    pub(crate) views: &'r [std::cell::OnceCell<wgpu::TextureView>],
    pub(crate) buffers: &'r [wgpu::Buffer],
    pub(crate) bind_groups: &'r [BindGroupDecl],
    pub(crate) declared: &'r [ResourceId],
    pub(crate) misuse: &'r Cell<Option<Misuse>>,
    pub(crate) stand_ins: &'r StandIns,
}

impl<'r> Resources<'r> {
    fn mark(&self, misuse: Misuse) {
        if self.misuse.get().is_none() {
            self.misuse.set(Some(misuse));
        }
    }

    fn note(&self, id: ResourceId) {
        if !self.declared.contains(&id) {
            self.mark(Misuse::Undeclared(id));
        }
    }

    /// `index` when it is one of this graph's `len` declarations; `None`
    /// (the frame marked) for a handle of another graph.
    fn index(&self, graph: u32, index: usize, len: usize) -> Option<usize> {
        if graph == self.graph && index < len {
            Some(index)
        } else {
            self.mark(Misuse::Foreign);
            None
        }
    }

    /// [`Self::index`] of a texture or buffer, noted as reached.
    fn reach(&self, graph: u32, index: usize, len: usize, id: ResourceId) -> Option<usize> {
        let i = self.index(graph, index, len)?;
        self.note(id);
        Some(i)
    }

    /// The texture behind `id`.
    pub fn texture(&self, id: TextureId) -> &'r wgpu::Texture {
        match self.reach(id.0, id.1, self.textures.len(), id.into()) {
            Some(i) => &self.textures[i],
            None => &self.stand_ins.texture,
        }
    }

    /// A default (whole-texture) view of `id`.
    pub fn view(&self, id: TextureId) -> &'r wgpu::TextureView {
        match self.reach(id.0, id.1, self.views.len(), id.into()) {
            Some(i) => view_of(self.textures, self.views, i),
            None => &self.stand_ins.view,
        }
    }

    /// The buffer behind `id`.
    pub fn buffer(&self, id: BufferId) -> &'r wgpu::Buffer {
        match self.reach(id.0, id.1, self.buffers.len(), id.into()) {
            Some(i) => &self.buffers[i],
            None => &self.stand_ins.buffer,
        }
    }

    /// The bind group behind `id`; counts as reaching every graph resource
    /// it binds (see [`super::RenderGraph::import_bind_group`]).
    pub fn bind_group(&self, id: BindGroupId) -> &'r wgpu::BindGroup {
        match self.index(id.0, id.1, self.bind_groups.len()) {
            Some(i) => {
                let decl = &self.bind_groups[i];
                for &r in &decl.binds {
                    self.note(r);
                }
                &decl.group
            }
            None => &self.stand_ins.bind_group,
        }
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

/// The default view of texture `i`, made on first use.
pub(crate) fn view_of<'v>(
    textures: &[wgpu::Texture],
    views: &'v [std::cell::OnceCell<wgpu::TextureView>],
    i: usize,
) -> &'v wgpu::TextureView {
    views[i].get_or_init(|| textures[i].create_view(&wgpu::TextureViewDescriptor::default()))
}
