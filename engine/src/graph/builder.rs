//! Pass declaration: a builder shared by the three pass kinds (compute, render,
//! transfer) for reads/writes/needs, render attachments, and the terminal
//! `record` that stores the pass closure in the graph.

use std::marker::PhantomData;

use super::{
    ComputeCtx, PassKind, PassNode, RenderCtx, RenderGraph, ResourceId, TextureId, TransferCtx,
};
use crate::caps::Capability;

/// Marker: the builder declares a compute pass.
pub struct ComputePass;
/// Marker: the builder declares a render pass.
pub struct RenderPass;
/// Marker: the builder declares a raw encoder (transfer) pass.
pub struct TransferPass;

/// A colour attachment of a render pass.
#[derive(Debug, Clone, Copy)]
pub struct Attachment {
    /// The texture rendered to.
    pub texture: TextureId,
    /// Clear or load.
    pub load: wgpu::LoadOp<wgpu::Color>,
    /// Where to resolve a multisampled attachment, if anywhere.
    pub resolve: Option<TextureId>,
}

/// The depth attachment of a render pass.
#[derive(Debug, Clone, Copy)]
pub struct DepthAttachment {
    /// The depth texture.
    pub texture: TextureId,
    /// Clear (reverse-Z: [`crate::DEPTH_CLEAR`]) or load.
    pub load: wgpu::LoadOp<f32>,
    /// Keep or discard depth after the pass.
    pub store: wgpu::StoreOp,
}

/// Declares one pass of kind `K`; finish it with `record`. A builder dropped
/// without `record` adds nothing.
pub struct PassBuilder<'g, 'a, K> {
    graph: &'g mut RenderGraph<'a>,
    name: String,
    reads: Vec<ResourceId>,
    writes: Vec<ResourceId>,
    needs: Vec<Capability>,
    colors: Vec<Attachment>,
    depth: Option<DepthAttachment>,
    _kind: PhantomData<K>,
}

impl<'g, 'a, K> PassBuilder<'g, 'a, K> {
    pub(crate) fn new(graph: &'g mut RenderGraph<'a>, name: &str) -> Self {
        PassBuilder {
            graph,
            name: name.to_owned(),
            reads: Vec::new(),
            writes: Vec::new(),
            needs: Vec::new(),
            colors: Vec::new(),
            depth: None,
            _kind: PhantomData,
        }
    }

    /// Declares that the pass reads `resource` (it must be imported or written
    /// by an earlier pass).
    pub fn read(mut self, resource: impl Into<ResourceId>) -> Self {
        self.reads.push(resource.into());
        self
    }

    /// Declares that the pass writes `resource`.
    pub fn write(mut self, resource: impl Into<ResourceId>) -> Self {
        self.writes.push(resource.into());
        self
    }

    /// Declares that the pass reads and then writes `resource`.
    pub fn read_write(self, resource: impl Into<ResourceId>) -> Self {
        let r = resource.into();
        self.read(r).write(r)
    }

    /// Declares a device capability the pass cannot run without.
    pub fn needs(mut self, capability: Capability) -> Self {
        self.needs.push(capability);
        self
    }

    fn push(self, kind: PassKind<'a>) {
        self.graph.passes.push(PassNode {
            name: self.name,
            reads: self.reads,
            writes: self.writes,
            needs: self.needs,
            kind,
        });
    }
}

impl<'a> PassBuilder<'_, 'a, ComputePass> {
    /// Finishes the pass: `f` records into a compute pass that the graph opened
    /// with the pass name as label and GPU timestamp scope.
    pub fn record(self, f: impl for<'c> FnOnce(&mut ComputeCtx<'c>) + 'a) {
        self.push(PassKind::Compute(Box::new(f)));
    }
}

impl<'a> PassBuilder<'_, 'a, TransferPass> {
    /// Finishes the pass: `f` records directly into the frame's command encoder.
    pub fn record(self, f: impl for<'c> FnOnce(&mut TransferCtx<'c>) + 'a) {
        self.push(PassKind::Transfer(Box::new(f)));
    }
}

impl<'a> PassBuilder<'_, 'a, RenderPass> {
    /// Adds a colour attachment. `Clear` counts as a write, `Load` as a read and
    /// a write; `resolve` (for a multisampled `texture`) counts as a write.
    /// Colour is always stored, so several passes can draw into one MSAA
    /// target (`Load` after the first); give `resolve` on the last of them.
    pub fn color(
        mut self,
        texture: TextureId,
        load: wgpu::LoadOp<wgpu::Color>,
        resolve: Option<TextureId>,
    ) -> Self {
        if matches!(load, wgpu::LoadOp::Load) {
            self.reads.push(texture.into());
        }
        self.writes.push(texture.into());
        if let Some(r) = resolve {
            self.writes.push(r.into());
        }
        self.colors.push(Attachment {
            texture,
            load,
            resolve,
        });
        self
    }

    /// Sets the depth attachment (same read/write rules as [`Self::color`]).
    pub fn depth(
        mut self,
        texture: TextureId,
        load: wgpu::LoadOp<f32>,
        store: wgpu::StoreOp,
    ) -> Self {
        if matches!(load, wgpu::LoadOp::Load) {
            self.reads.push(texture.into());
        }
        self.writes.push(texture.into());
        self.depth = Some(DepthAttachment {
            texture,
            load,
            store,
        });
        self
    }

    /// Finishes the pass: `f` records into a render pass that the graph opened
    /// on the declared attachments.
    pub fn record(mut self, f: impl for<'c> FnOnce(&mut RenderCtx<'c>) + 'a) {
        let colors = std::mem::take(&mut self.colors);
        let depth = self.depth.take();
        for id in colors
            .iter()
            .flat_map(|c| [Some(c.texture), c.resolve])
            .flatten()
            .chain(depth.map(|d| d.texture))
        {
            if let Some(t) = self.graph.textures.get_mut(id.1) {
                t.extra_usage |= wgpu::TextureUsages::RENDER_ATTACHMENT;
            }
        }
        self.push(PassKind::Render {
            colors,
            depth,
            record: Box::new(f),
        });
    }
}
