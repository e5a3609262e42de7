//! Short forms of the wgpu descriptors every technique writes: bind group
//! layout entries by kind, layouts and bind groups from a list, pipeline
//! layouts, compute pipelines from a shader and an entry point, and render
//! pipelines from a shader, its two entry points and the raster state.
//!
//! The aim is that a technique's set-up reads as what it binds:
//!
//! ```ignore
//! use sward_engine::bind::{self, Slot};
//! use wgpu::ShaderStages as S;
//!
//! let layout = bind::layout(device, "grass.cull", &[
//!     bind::entry(0, S::COMPUTE, Slot::Uniform),
//!     bind::entry(1, S::COMPUTE, Slot::Storage { read_only: true }),
//!     bind::entry(2, S::COMPUTE, Slot::Storage { read_only: false }),
//! ]);
//! let group = bind::group(device, "grass.cull", &layout, &[
//!     uniforms.as_entire_binding(),
//!     entries.as_entire_binding(),
//!     args.as_entire_binding(),
//! ]);
//! let pipeline = bind::compute_pipeline(device, "grass.cull", &[&layout], &shader, "main");
//! ```
//!
//! Nothing here hides a choice: visibility, read-only-ness, sample types and
//! dimensions stay at the call site; only the fields every call spells the
//! same way (`count: None`, `has_dynamic_offset: false`, ...) are filled in.

/// What one binding of a bind group layout holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A uniform buffer (no dynamic offset, any size).
    Uniform,
    /// A uniform buffer bound with a dynamic offset (one slice per draw).
    UniformDynamic,
    /// A storage buffer.
    Storage {
        /// `var<storage, read>` when true, `read_write` otherwise.
        read_only: bool,
    },
    /// A sampled texture.
    Texture {
        /// What sampling it returns (`Float { filterable }`, `Uint`, `Depth`, ...).
        sample: wgpu::TextureSampleType,
        /// Its view dimension.
        dim: wgpu::TextureViewDimension,
        /// Whether it is a multisampled texture.
        multisampled: bool,
    },
    /// A storage texture.
    StorageTexture {
        /// Its texel format.
        format: wgpu::TextureFormat,
        /// Read, write or read-write access.
        access: wgpu::StorageTextureAccess,
        /// Its view dimension.
        dim: wgpu::TextureViewDimension,
    },
    /// A sampler.
    Sampler(wgpu::SamplerBindingType),
}

impl Slot {
    /// A read-only storage buffer.
    pub const STORAGE_READ: Slot = Slot::Storage { read_only: true };
    /// A read-write storage buffer.
    pub const STORAGE_RW: Slot = Slot::Storage { read_only: false };
    /// A filtering sampler.
    pub const SAMPLER: Slot = Slot::Sampler(wgpu::SamplerBindingType::Filtering);
    /// A non-filtering sampler.
    pub const SAMPLER_NEAREST: Slot = Slot::Sampler(wgpu::SamplerBindingType::NonFiltering);

    /// A single-sampled texture of `dim` with float samples (`filterable`
    /// or not).
    pub const fn float_texture(dim: wgpu::TextureViewDimension, filterable: bool) -> Slot {
        Slot::Texture {
            sample: wgpu::TextureSampleType::Float { filterable },
            dim,
            multisampled: false,
        }
    }

    /// A single-sampled 2D texture with filterable float samples.
    pub const fn texture_2d() -> Slot {
        Slot::float_texture(wgpu::TextureViewDimension::D2, true)
    }

    /// A single-sampled 2D array texture with filterable float samples.
    pub const fn texture_2d_array() -> Slot {
        Slot::float_texture(wgpu::TextureViewDimension::D2Array, true)
    }

    /// A single-sampled texture of `dim` with unsigned integer samples.
    pub const fn uint_texture(dim: wgpu::TextureViewDimension) -> Slot {
        Slot::Texture {
            sample: wgpu::TextureSampleType::Uint,
            dim,
            multisampled: false,
        }
    }

    /// A single-sampled depth texture of `dim`.
    pub const fn depth_texture(dim: wgpu::TextureViewDimension) -> Slot {
        Slot::Texture {
            sample: wgpu::TextureSampleType::Depth,
            dim,
            multisampled: false,
        }
    }

    /// The wgpu binding type this slot stands for.
    pub const fn binding_type(self) -> wgpu::BindingType {
        match self {
            Slot::Uniform => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            Slot::UniformDynamic => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
            Slot::Storage { read_only } => wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            Slot::Texture {
                sample,
                dim,
                multisampled,
            } => wgpu::BindingType::Texture {
                sample_type: sample,
                view_dimension: dim,
                multisampled,
            },
            Slot::StorageTexture {
                format,
                access,
                dim,
            } => wgpu::BindingType::StorageTexture {
                access,
                format,
                view_dimension: dim,
            },
            Slot::Sampler(ty) => wgpu::BindingType::Sampler(ty),
        }
    }
}

/// The layout entry of `binding`, seen by the `visibility` stages, holding `slot`.
pub const fn entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    slot: Slot,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: slot.binding_type(),
        count: None,
    }
}

/// Layout entries `0..slots.len()`, all seen by the `visibility` stages.
pub fn entries(visibility: wgpu::ShaderStages, slots: &[Slot]) -> Vec<wgpu::BindGroupLayoutEntry> {
    slots
        .iter()
        .enumerate()
        .map(|(i, s)| entry(i as u32, visibility, *s))
        .collect()
}

/// A bind group layout labelled `label`.
pub fn layout(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// A bind group of `layout` binding `resources[i]` at binding `i`.
pub fn group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource<'_>],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: r.clone(),
        })
        .collect();
    group_of(device, label, layout, &entries)
}

/// [`group`] of whole buffers: `buffers[i]` at binding `i`.
pub fn buffer_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    group_of(device, label, layout, &entries)
}

/// A bind group of `layout` binding each `(binding, resource)` pair (for
/// layouts whose bindings are not `0..n`).
pub fn group_at(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[(u32, wgpu::BindingResource<'_>)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .iter()
        .map(|(binding, r)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: r.clone(),
        })
        .collect();
    group_of(device, label, layout, &entries)
}

/// A pipeline layout of `groups` (group `i` at `@group(i)`), no push constants.
pub fn pipeline_layout(
    device: &wgpu::Device,
    label: &str,
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: groups,
        push_constant_ranges: &[],
    })
}

/// A compute pipeline running `entry_point` of `module` over `groups`.
pub fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    groups: &[&wgpu::BindGroupLayout],
    module: &wgpu::ShaderModule,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    let layout = pipeline_layout(device, label, groups);
    compute_pipeline_with(device, label, &layout, module, entry_point)
}

/// A compute pipeline running `entry_point` of `module` with an existing
/// pipeline `layout` (several entry points sharing one layout).
pub fn compute_pipeline_with(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    compute_pipeline_constants(device, label, layout, module, entry_point, &[])
}

/// [`compute_pipeline_with`] with values for the shader's
/// pipeline-overridable constants (`override NAME: T;`): one pipeline per
/// variant a technique switches between, instead of a branch on a uniform
/// flag (see `sward_wgsl::uniform_branches` for why).
pub fn compute_pipeline_constants(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// The compute pipeline of `entry_point` for both values of the boolean
/// override constant `flag`: `[off, on]` (a shader's two variants, e.g.
/// with and without a previous frame's pyramid).
pub fn compute_pipelines_flagged(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    flag: &str,
) -> [wgpu::ComputePipeline; 2] {
    [false, true].map(|on| {
        let constants = [(flag, f64::from(u8::from(on)))];
        compute_pipeline_constants(device, label, layout, module, entry_point, &constants)
    })
}

/// A bind group of `layout` from entries already written out (for groups
/// assembled from several parts, such as a technique's own bindings followed
/// by a shared helper's).
pub fn group_of(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    entries: &[wgpu::BindGroupEntry<'_>],
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries,
    })
}

/// A compute pipeline running `entry_point` of `module` with the layout
/// wgpu derives from the shader (probes and one-off kernels; read its group
/// layouts back with `get_bind_group_layout`).
pub fn compute_pipeline_auto(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// The fixed-function half of a render pipeline: what a draw rasterises
/// into and how. Every field is the technique's choice; [`render_pipeline`]
/// adds only the parts every call spells the same way.
#[derive(Debug, Clone)]
pub struct Raster<'a> {
    /// Topology, winding and culling.
    pub primitive: wgpu::PrimitiveState,
    /// Depth test and write, when the pass has a depth target.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
    /// Sample count and alpha-to-coverage.
    pub multisample: wgpu::MultisampleState,
    /// The colour targets (format, blend, write mask).
    pub targets: &'a [Option<wgpu::ColorTargetState>],
    /// Values of the fragment stage's pipeline-overridable constants
    /// (WGSL `override`), by name; empty for the shader's defaults.
    pub constants: &'a [(&'a str, f64)],
}

/// A render pipeline: `vs_entry` of `module` fed by `buffers`, then
/// `fs_entry` of the same module (none for a depth-only pipeline), with the
/// fixed-function state of `raster`.
pub fn render_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    (vs_entry, buffers): (&str, &[wgpu::VertexBufferLayout<'_>]),
    fs_entry: Option<&str>,
    raster: Raster<'_>,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs_entry),
            compilation_options: Default::default(),
            buffers,
        },
        primitive: raster.primitive,
        depth_stencil: raster.depth_stencil,
        multisample: raster.multisample,
        fragment: fs_entry.map(|entry_point| wgpu::FragmentState {
            module,
            entry_point: Some(entry_point),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: raster.constants,
                ..Default::default()
            },
            targets: raster.targets,
        }),
        multiview: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::ShaderStages as S;

    #[test]
    fn entries_number_the_slots_in_order_and_keep_their_kind() {
        let e = entries(
            S::COMPUTE,
            &[Slot::Uniform, Slot::STORAGE_READ, Slot::STORAGE_RW],
        );
        assert_eq!(
            e.iter().map(|e| e.binding).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert!(e
            .iter()
            .all(|e| e.visibility == S::COMPUTE && e.count.is_none()));
        assert_eq!(
            e[1].ty,
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            }
        );
        assert_eq!(
            e[2].ty,
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            }
        );
    }

    #[test]
    fn texture_slots_say_what_they_sample() {
        let e = entry(
            3,
            S::VERTEX | S::FRAGMENT,
            Slot::uint_texture(wgpu::TextureViewDimension::D2Array),
        );
        assert_eq!(e.binding, 3);
        assert_eq!(
            e.ty,
            wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Uint,
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            }
        );
        assert_eq!(
            Slot::texture_2d().binding_type(),
            wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            }
        );
    }
}
