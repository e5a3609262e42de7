//! The per-frame render graph: a list of passes declared in order, each with the
//! named resources it reads and writes, the capabilities it needs and a closure
//! that records its commands.
//!
//! Kept deliberately small (vello/kajiya style): no slots, no reordering. The
//! graph is rebuilt every frame; [`GraphExecutor`] validates it, resolves handles
//! to real resources (transients from a pool, imports as given), and runs every
//! pass inside a debug label, a puffin scope and a GPU timestamp scope.
//!
//! ```ignore
//! let mut g = RenderGraph::new();
//! let color = g.import_texture("target.color", &target.color);
//! let args = g.create_buffer("test.args", BufferDesc::new(64, BufferUsages::INDIRECT | BufferUsages::STORAGE));
//! g.add_compute_pass("test.cull").write(args).record(|ctx| { /* ctx.pass.dispatch_workgroups(..) */ });
//! g.add_render_pass("test.draw").read(args).color(color, LoadOp::Clear(BLACK), None).record(|ctx| { .. });
//! let frame = executor.execute(&gpu, g)?;
//! ```

mod builder;
mod context;
mod executor;
mod pool;
mod stats;

pub use builder::{
    Attachment, ComputePass, DepthAttachment, PassBuilder, RenderPass, TransferPass,
};
pub use context::{ComputeCtx, Counters, RenderCtx, Resources, TransferCtx};
pub use executor::{FrameReport, GpuFrameTimes, GpuPassTime, GraphExecutor, PassReport};
pub use pool::ResourcePool;
pub use stats::{work_with_prefix, PassWork, PipelineStats};

use crate::caps::{Capability, Caps};

/// Handle of a texture declared in one [`RenderGraph`]: the graph's identity
/// and the declaration's index. A handle used in another graph is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureId(pub(crate) u32, pub(crate) usize);

/// Handle of a buffer declared in one [`RenderGraph`] (graph identity, index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferId(pub(crate) u32, pub(crate) usize);

/// Handle of a bind group imported into one [`RenderGraph`] (graph identity,
/// index). Resolving it in a pass counts as reaching every graph resource it
/// binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BindGroupId(pub(crate) u32, pub(crate) usize);

/// Identities of graphs: every [`RenderGraph`] gets a new one.
static NEXT_GRAPH: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// Either kind of graph resource, for `read`/`write` declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceId {
    /// A texture.
    Texture(TextureId),
    /// A buffer.
    Buffer(BufferId),
}

impl From<TextureId> for ResourceId {
    fn from(t: TextureId) -> Self {
        ResourceId::Texture(t)
    }
}

impl From<BufferId> for ResourceId {
    fn from(b: BufferId) -> Self {
        ResourceId::Buffer(b)
    }
}

/// Descriptor of a transient 2D texture. Render-attachment usage is added
/// automatically when the texture is used as an attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Width and height in texels.
    pub size: [u32; 2],
    /// Texel format.
    pub format: wgpu::TextureFormat,
    /// Usages the passes need.
    pub usage: wgpu::TextureUsages,
    /// MSAA sample count.
    pub sample_count: u32,
    /// Number of mip levels.
    pub mip_level_count: u32,
}

impl TextureDesc {
    /// A single-sample, single-mip texture.
    pub fn new(size: [u32; 2], format: wgpu::TextureFormat, usage: wgpu::TextureUsages) -> Self {
        TextureDesc {
            size,
            format,
            usage,
            sample_count: 1,
            mip_level_count: 1,
        }
    }

    /// The same descriptor with `samples` MSAA samples.
    pub fn with_samples(mut self, samples: u32) -> Self {
        self.sample_count = samples;
        self
    }
}

/// Descriptor of a transient buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferDesc {
    /// Size in bytes.
    pub size: u64,
    /// Usages the passes need.
    pub usage: wgpu::BufferUsages,
}

impl BufferDesc {
    /// A buffer of `size` bytes.
    pub fn new(size: u64, usage: wgpu::BufferUsages) -> Self {
        BufferDesc { size, usage }
    }
}

/// Where a declared texture comes from.
pub(crate) enum TextureSource {
    Imported(wgpu::Texture),
    Transient(TextureDesc),
}

/// Where a declared buffer comes from.
pub(crate) enum BufferSource {
    Imported(wgpu::Buffer),
    Transient(BufferDesc),
}

pub(crate) struct TextureDecl {
    pub name: String,
    pub source: TextureSource,
    /// Extra usages derived from how passes use it.
    pub extra_usage: wgpu::TextureUsages,
}

pub(crate) struct BufferDecl {
    pub name: String,
    pub source: BufferSource,
}

pub(crate) struct BindGroupDecl {
    pub name: String,
    pub group: wgpu::BindGroup,
    /// The graph resources the group binds.
    pub binds: Vec<ResourceId>,
}

/// Errors that reject a graph before anything is recorded, or a frame whose
/// commands wgpu refused.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// A pass reads a resource that no earlier pass wrote and that was not imported.
    #[error("pass `{pass}` reads `{resource}` before any pass wrote it (and it is not imported)")]
    ReadBeforeWrite {
        /// The reading pass.
        pass: String,
        /// The resource name.
        resource: String,
    },
    /// A pass needs a capability the device lacks.
    #[error("pass `{pass}` needs `{capability}` which this device lacks")]
    MissingCapability {
        /// The pass.
        pass: String,
        /// What is missing.
        capability: Capability,
    },
    /// A handle that does not belong to this graph (declared in another one).
    #[error("pass `{pass}` uses a resource handle that this graph did not declare")]
    UnknownResource {
        /// The pass.
        pass: String,
    },
    /// A pass closure reached a resource of the graph that the pass did not
    /// declare (read, write or attachment).
    #[error("pass `{pass}` used `{resource}` without declaring it")]
    UndeclaredAccess {
        /// The pass.
        pass: String,
        /// The resource name.
        resource: String,
    },
    /// A bind group imported with a member handle this graph did not declare.
    #[error("bind group `{group}` binds a resource handle that this graph did not declare")]
    ForeignBinding {
        /// The bind group's name.
        group: String,
    },
    /// Two resources or two passes with the same name.
    #[error("the name `{0}` is declared twice in one graph")]
    DuplicateName(String),
    /// A render pass without any attachment.
    #[error("render pass `{0}` has no colour or depth attachment")]
    NoAttachments(String),
    /// wgpu reported a validation or out-of-memory error while recording/submitting.
    #[error("wgpu rejected frame commands: {0}")]
    Wgpu(String),
    /// The GPU profiler could not be created or could not close a frame.
    #[error("GPU profiler: {0}")]
    Profiler(String),
}

pub(crate) struct PassNode<'a> {
    pub name: String,
    pub reads: Vec<ResourceId>,
    pub writes: Vec<ResourceId>,
    pub needs: Vec<Capability>,
    pub kind: PassKind<'a>,
}

type ComputeFn<'a> = Box<dyn for<'c> FnOnce(&mut ComputeCtx<'c>) + 'a>;
type RenderFn<'a> = Box<dyn for<'c> FnOnce(&mut RenderCtx<'c>) + 'a>;
type TransferFn<'a> = Box<dyn for<'c> FnOnce(&mut TransferCtx<'c>) + 'a>;

pub(crate) enum PassKind<'a> {
    Compute(ComputeFn<'a>),
    Render {
        colors: Vec<Attachment>,
        depth: Option<DepthAttachment>,
        record: RenderFn<'a>,
    },
    Transfer(TransferFn<'a>),
}

/// A frame's passes and resources. `'a` is the lifetime of state the pass
/// closures borrow (technique structs, meshes, pipelines).
pub struct RenderGraph<'a> {
    pub(crate) id: u32,
    pub(crate) textures: Vec<TextureDecl>,
    pub(crate) buffers: Vec<BufferDecl>,
    pub(crate) bind_groups: Vec<BindGroupDecl>,
    pub(crate) passes: Vec<PassNode<'a>>,
    /// Textures a technique offers to the techniques recorded after it
    /// ([`Self::publish_texture`]).
    published: Vec<(&'static str, TextureId)>,
}

impl Default for RenderGraph<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> RenderGraph<'a> {
    /// An empty graph.
    pub fn new() -> Self {
        RenderGraph {
            id: NEXT_GRAPH.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            textures: Vec::new(),
            buffers: Vec::new(),
            bind_groups: Vec::new(),
            passes: Vec::new(),
            published: Vec::new(),
        }
    }

    /// Offers texture `id` under `key` to the techniques recorded after
    /// this call, e.g. the depth pyramid the terrain built from this frame's
    /// depth, so grass can test against it instead of building its own.
    /// Publish after adding the pass that writes the texture: a pass added
    /// later that reads it then sees that pass's output (passes run in the
    /// order they were added). Publishing a key again replaces the entry.
    pub fn publish_texture(&mut self, key: &'static str, id: TextureId) {
        self.published.retain(|(k, _)| *k != key);
        self.published.push((key, id));
    }

    /// The texture published under `key` in this graph, if any.
    pub fn published_texture(&self, key: &str) -> Option<TextureId> {
        self.published
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, id)| id)
    }

    /// The wgpu texture behind `id` when it was imported into this graph
    /// (`None` for a transient texture, which exists only at execution, or a
    /// handle of another graph).
    pub fn imported_texture(&self, id: TextureId) -> Option<&wgpu::Texture> {
        if id.0 != self.id {
            return None;
        }
        match &self.textures.get(id.1)?.source {
            TextureSource::Imported(t) => Some(t),
            TextureSource::Transient(_) => None,
        }
    }

    /// Imports a persistent texture under a key (e.g. `"target.color"`,
    /// `"terrain.height_atlas"`). Imported resources count as written.
    pub fn import_texture(&mut self, name: &str, texture: &wgpu::Texture) -> TextureId {
        self.textures.push(TextureDecl {
            name: name.to_owned(),
            source: TextureSource::Imported(texture.clone()),
            extra_usage: wgpu::TextureUsages::empty(),
        });
        TextureId(self.id, self.textures.len() - 1)
    }

    /// Imports a persistent buffer under a key. Imported resources count as written.
    pub fn import_buffer(&mut self, name: &str, buffer: &wgpu::Buffer) -> BufferId {
        self.buffers.push(BufferDecl {
            name: name.to_owned(),
            source: BufferSource::Imported(buffer.clone()),
        });
        BufferId(self.id, self.buffers.len() - 1)
    }

    /// Imports a persistent bind group under a key. `binds` lists the graph
    /// resources (imported or transient) the group binds; whatever else it
    /// binds is immutable data the graph does not track (meshes, model
    /// textures, samplers). A pass reaches the group through
    /// [`Resources::bind_group`], which counts as reaching every resource in
    /// `binds`, so the pass must declare each of them.
    pub fn import_bind_group(
        &mut self,
        name: &str,
        group: &wgpu::BindGroup,
        binds: &[ResourceId],
    ) -> BindGroupId {
        self.bind_groups.push(BindGroupDecl {
            name: name.to_owned(),
            group: group.clone(),
            binds: binds.to_vec(),
        });
        BindGroupId(self.id, self.bind_groups.len() - 1)
    }

    /// Declares a transient texture, taken from the pool at execution. Its
    /// contents are undefined until a pass writes it.
    pub fn create_texture(&mut self, name: &str, desc: TextureDesc) -> TextureId {
        self.textures.push(TextureDecl {
            name: name.to_owned(),
            source: TextureSource::Transient(desc),
            extra_usage: wgpu::TextureUsages::empty(),
        });
        TextureId(self.id, self.textures.len() - 1)
    }

    /// Declares a transient buffer, taken from the pool at execution. Its
    /// contents are undefined until a pass writes it.
    pub fn create_buffer(&mut self, name: &str, desc: BufferDesc) -> BufferId {
        self.buffers.push(BufferDecl {
            name: name.to_owned(),
            source: BufferSource::Transient(desc),
        });
        BufferId(self.id, self.buffers.len() - 1)
    }

    /// Starts declaring a compute pass named `subsystem.name`.
    pub fn add_compute_pass(&mut self, name: &str) -> PassBuilder<'_, 'a, ComputePass> {
        PassBuilder::new(self, name)
    }

    /// Starts declaring a render pass named `subsystem.name`.
    pub fn add_render_pass(&mut self, name: &str) -> PassBuilder<'_, 'a, RenderPass> {
        PassBuilder::new(self, name)
    }

    /// Starts declaring a raw encoder ("transfer") pass: copies, clears, uploads.
    pub fn add_transfer_pass(&mut self, name: &str) -> PassBuilder<'_, 'a, TransferPass> {
        PassBuilder::new(self, name)
    }

    /// Names of the declared passes, in order.
    pub fn pass_names(&self) -> Vec<&str> {
        self.passes.iter().map(|p| p.name.as_str()).collect()
    }

    /// Name of a declared resource (`None` for a handle of another graph).
    pub fn resource_name(&self, id: ResourceId) -> Option<&str> {
        match id {
            ResourceId::Texture(TextureId(g, i)) if g == self.id => {
                self.textures.get(i).map(|t| t.name.as_str())
            }
            ResourceId::Buffer(BufferId(g, i)) if g == self.id => {
                self.buffers.get(i).map(|b| b.name.as_str())
            }
            _ => None,
        }
    }

    fn is_imported(&self, id: ResourceId) -> bool {
        match id {
            ResourceId::Texture(TextureId(_, i)) => {
                matches!(
                    self.textures.get(i).map(|t| &t.source),
                    Some(TextureSource::Imported(_))
                )
            }
            ResourceId::Buffer(BufferId(_, i)) => {
                matches!(
                    self.buffers.get(i).map(|b| &b.source),
                    Some(BufferSource::Imported(_))
                )
            }
        }
    }

    /// Checks the graph against the device: names unique, every handle known,
    /// every read preceded by a write or an import, every needed capability present.
    pub fn validate(&self, caps: &Caps) -> Result<(), GraphError> {
        let mut names = std::collections::HashSet::new();
        let all_names = self
            .textures
            .iter()
            .map(|t| &t.name)
            .chain(self.buffers.iter().map(|b| &b.name))
            .chain(self.bind_groups.iter().map(|g| &g.name));
        for name in all_names.chain(self.passes.iter().map(|p| &p.name)) {
            if !names.insert(name.as_str()) {
                return Err(GraphError::DuplicateName(name.clone()));
            }
        }
        for group in &self.bind_groups {
            if group.binds.iter().any(|&r| self.resource_name(r).is_none()) {
                return Err(GraphError::ForeignBinding {
                    group: group.name.clone(),
                });
            }
        }
        let mut written = std::collections::HashSet::new();
        for pass in &self.passes {
            if let Some(&capability) = pass.needs.iter().find(|c| !caps.has(**c)) {
                return Err(GraphError::MissingCapability {
                    pass: pass.name.clone(),
                    capability,
                });
            }
            if let PassKind::Render { colors, depth, .. } = &pass.kind {
                if colors.is_empty() && depth.is_none() {
                    return Err(GraphError::NoAttachments(pass.name.clone()));
                }
            }
            for &r in pass.reads.iter().chain(&pass.writes) {
                if self.resource_name(r).is_none() {
                    return Err(GraphError::UnknownResource {
                        pass: pass.name.clone(),
                    });
                }
            }
            for &r in &pass.reads {
                if !written.contains(&r) && !self.is_imported(r) {
                    let resource = self.resource_name(r).unwrap_or("?").to_owned();
                    return Err(GraphError::ReadBeforeWrite {
                        pass: pass.name.clone(),
                        resource,
                    });
                }
            }
            written.extend(pass.writes.iter().copied());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
