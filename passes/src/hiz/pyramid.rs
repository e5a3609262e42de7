//! The GPU pyramid build: [`HiZ`] (the pyramid texture of one target size
//! and the `hiz.wgsl` compute pipelines that fill it from a depth target,
//! single- or multisampled), and the bind group layout and groups a test
//! pass reads the whole pyramid through ([`pyramid_layout`],
//! [`pyramid_group`]).

use sward_engine::bind::{self, Slot};
use sward_engine::graph::{RenderGraph, TextureId};

use super::{base_size, level_count, level_size, HIZ_FORMAT, PASS_HIZ};
use crate::error::PassError;

/// Every binding here is seen by compute.
const CS: wgpu::ShaderStages = wgpu::ShaderStages::COMPUTE;

/// The pyramid texture and the compute pipelines that build it.
pub struct HiZ {
    /// The pass's name (its pyramid is imported as `NAME.pyramid`).
    name: &'static str,
    from_depth: wgpu::ComputePipeline,
    from_depth_ms: wgpu::ComputePipeline,
    reduce: wgpu::ComputePipeline,
    depth_layout: wgpu::BindGroupLayout,
    depth_ms_layout: wgpu::BindGroupLayout,
    reduce_layout: wgpu::BindGroupLayout,
    pyramid: Option<Pyramid>,
    /// The level-0 bind group of the depth texture last read (made again
    /// only when the depth target changes).
    depth_group: std::sync::Mutex<Option<(wgpu::Texture, wgpu::BindGroup)>>,
}

/// A pyramid of one size.
struct Pyramid {
    /// The target's size in pixels.
    pixels: [u32; 2],
    /// Level 0's size ([`base_size`] of `pixels`).
    size: [u32; 2],
    texture: wgpu::Texture,
    /// Every level (what the cull samples).
    view: wgpu::TextureView,
    /// One view per level (storage writes, reduce reads).
    levels: Vec<wgpu::TextureView>,
    /// `reduce` of level k (index k - 1): reads k - 1, writes k.
    reduce_groups: Vec<wgpu::BindGroup>,
}

/// The pyramid's texels as a test reads them (every level, unfiltered).
const PYRAMID: Slot = Slot::float_texture(wgpu::TextureViewDimension::D2, false);

/// A level the build writes (`hiz_dst`).
const LEVEL_OUT: Slot = Slot::StorageTexture {
    format: HIZ_FORMAT,
    access: wgpu::StorageTextureAccess::WriteOnly,
    dim: wgpu::TextureViewDimension::D2,
};

/// The bind group layout of a compute pass that tests against a pyramid:
/// the whole pyramid (every level) at binding 0, as `hiz_test` reads it.
pub fn pyramid_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    bind::layout(device, label, &[bind::entry(0, CS, PYRAMID)])
}

/// A [`pyramid_layout`] bind group over `view` (a pyramid, or a stand-in).
pub fn pyramid_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    view: &wgpu::TextureView,
) -> wgpu::BindGroup {
    bind::group(
        device,
        "hiz.pyramid",
        layout,
        &[wgpu::BindingResource::TextureView(view)],
    )
}

impl HiZ {
    /// The pipelines of a pyramid built by pass `name` (e.g. [`PASS_HIZ`]);
    /// the pyramid is made by [`Self::ensure`].
    pub fn new(device: &wgpu::Device, name: &'static str) -> Result<Self, PassError> {
        let shader = crate::error::create_shader(device, sward_wgsl::modules::HIZ, "hi-z pyramid")?;
        let depth = Slot::depth_texture(wgpu::TextureViewDimension::D2);
        let depth_ms = Slot::Texture {
            sample: wgpu::TextureSampleType::Depth,
            dim: wgpu::TextureViewDimension::D2,
            multisampled: true,
        };
        // Bindings of `hiz.wgsl`: 0 hiz_depth, 1 hiz_depth_ms, 2 hiz_src
        // (the level below), 3 hiz_dst (the level written).
        let depth_layout = bind::layout(
            device,
            "hiz.depth",
            &[bind::entry(0, CS, depth), bind::entry(3, CS, LEVEL_OUT)],
        );
        let depth_ms_layout = bind::layout(
            device,
            "hiz.depth_ms",
            &[bind::entry(1, CS, depth_ms), bind::entry(3, CS, LEVEL_OUT)],
        );
        let reduce_layout = bind::layout(
            device,
            "hiz.reduce",
            &[bind::entry(2, CS, PYRAMID), bind::entry(3, CS, LEVEL_OUT)],
        );
        let pipeline = |bgl: &wgpu::BindGroupLayout, entry: &str| {
            bind::compute_pipeline(device, PASS_HIZ, &[bgl], &shader, entry)
        };
        Ok(HiZ {
            name,
            from_depth: pipeline(&depth_layout, "hiz_from_depth"),
            from_depth_ms: pipeline(&depth_ms_layout, "hiz_from_depth_ms"),
            reduce: pipeline(&reduce_layout, "hiz_reduce"),
            depth_layout,
            depth_ms_layout,
            reduce_layout,
            pyramid: None,
            depth_group: std::sync::Mutex::new(None),
        })
    }

    /// [`Self::ensure`], and keeps `group` (a [`pyramid_layout`] group of
    /// `layout` over the whole pyramid) current: made again with the
    /// pyramid, or when there is none yet. Returns whether either was made,
    /// i.e. whether the pyramid holds nothing of an earlier frame.
    pub fn ensure_group(
        &mut self,
        device: &wgpu::Device,
        pixels: [u32; 2],
        layout: &wgpu::BindGroupLayout,
        group: &mut Option<wgpu::BindGroup>,
    ) -> bool {
        if !self.ensure(device, pixels) && group.is_some() {
            return false;
        }
        *group = self.view().map(|v| pyramid_group(device, layout, v));
        true
    }

    /// Makes the pyramid for a target of `pixels` (a no-op when it exists);
    /// returns whether it was (re)made.
    pub fn ensure(&mut self, device: &wgpu::Device, pixels: [u32; 2]) -> bool {
        if self.pyramid.as_ref().is_some_and(|p| p.pixels == pixels) {
            return false;
        }
        let size = base_size(pixels);
        let count = level_count(size);
        // The cached level-0 bind group writes the old pyramid.
        *self
            .depth_group
            .get_mut()
            .unwrap_or_else(|e| e.into_inner()) = None;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("grass.hiz"),
            size: wgpu::Extent3d {
                width: size[0].max(1),
                height: size[1].max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: count,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: HIZ_FORMAT,
            usage: wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let levels: Vec<wgpu::TextureView> = (0..count)
            .map(|l| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("grass.hiz.level"),
                    base_mip_level: l,
                    mip_level_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        let reduce_groups = (1..count as usize)
            .map(|l| {
                bind::group_at(
                    device,
                    "hiz.reduce",
                    &self.reduce_layout,
                    &[
                        (2, wgpu::BindingResource::TextureView(&levels[l - 1])),
                        (3, wgpu::BindingResource::TextureView(&levels[l])),
                    ],
                )
            })
            .collect();
        self.pyramid = Some(Pyramid {
            pixels,
            size,
            texture,
            view,
            levels,
            reduce_groups,
        });
        true
    }

    /// The whole pyramid (every level), once made.
    pub fn view(&self) -> Option<&wgpu::TextureView> {
        self.pyramid.as_ref().map(|p| &p.view)
    }

    /// The pyramid texture, once made (tests read it back).
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.pyramid.as_ref().map(|p| &p.texture)
    }

    /// The target's size in pixels, level 0's size and the level count,
    /// once made.
    pub fn shape(&self) -> Option<([u32; 2], [u32; 2], u32)> {
        self.pyramid
            .as_ref()
            .map(|p| (p.pixels, p.size, p.levels.len() as u32))
    }

    /// GPU memory of the pyramid.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.pyramid.as_ref().map_or(0, |p| {
            (0..p.levels.len() as u32)
                .map(|l| {
                    let [w, h] = level_size(p.size, l);
                    u64::from(w) * u64::from(h) * 4
                })
                .sum()
        })
    }

    /// Adds the pyramid pass: reads `depth` (with `samples` samples) after
    /// whatever wrote it and builds every level; returns the pyramid's id
    /// (`None` before [`Self::ensure`]).
    pub fn record<'a>(
        &'a self,
        graph: &mut RenderGraph<'a>,
        depth: TextureId,
        samples: u32,
    ) -> Option<TextureId> {
        let id = self.import(graph)?;
        self.record_into(graph, id, depth, samples);
        Some(id)
    }

    /// Imports the pyramid into `graph` as `NAME.pyramid` (once made), for
    /// passes that read it before [`Self::record_into`] rebuilds it.
    pub fn import(&self, graph: &mut RenderGraph<'_>) -> Option<TextureId> {
        let p = self.pyramid.as_ref()?;
        Some(graph.import_texture(&format!("{}.pyramid", self.name), &p.texture))
    }

    /// [`Self::record`] into the pyramid `id` (from [`Self::import`]).
    pub fn record_into<'a>(
        &'a self,
        graph: &mut RenderGraph<'a>,
        id: TextureId,
        depth: TextureId,
        samples: u32,
    ) {
        let Some(p) = self.pyramid.as_ref() else {
            return;
        };
        // The reduction groups bind the pyramid's levels: the graph resource
        // `id`, reached through the pass context like everything else.
        let reduce: Vec<_> = p
            .reduce_groups
            .iter()
            .enumerate()
            .map(|(k, g)| {
                graph.import_bind_group(&format!("{}.reduce{k}", self.name), g, &[id.into()])
            })
            .collect();
        graph
            .add_compute_pass(self.name)
            .needs(sward_engine::Capability::Compute)
            .read(depth)
            .write(id)
            .record(move |ctx| {
                let depth_texture = ctx.res.texture(depth);
                // Level 0 is written through the pyramid's own level view
                // (as the reduction groups are): reach the declared texture.
                let _pyramid = ctx.res.texture(id);
                let ms = samples > 1;
                let mut cache = self.depth_group.lock().unwrap_or_else(|e| e.into_inner());
                if cache.as_ref().is_none_or(|(t, _)| t != depth_texture) {
                    let depth_view = depth_texture.create_view(&wgpu::TextureViewDescriptor {
                        label: Some("hiz.depth"),
                        aspect: wgpu::TextureAspect::DepthOnly,
                        ..Default::default()
                    });
                    let (layout, binding) = if ms {
                        (&self.depth_ms_layout, 1)
                    } else {
                        (&self.depth_layout, 0)
                    };
                    let group = bind::group_at(
                        ctx.device,
                        "hiz.depth",
                        layout,
                        &[
                            (binding, wgpu::BindingResource::TextureView(&depth_view)),
                            (3, wgpu::BindingResource::TextureView(&p.levels[0])),
                        ],
                    );
                    *cache = Some((depth_texture.clone(), group));
                }
                let Some((_, group0)) = cache.as_ref() else {
                    return;
                };
                let groups = |s: [u32; 2]| [s[0].div_ceil(8), s[1].div_ceil(8)];
                ctx.pass.set_pipeline(if ms {
                    &self.from_depth_ms
                } else {
                    &self.from_depth
                });
                ctx.pass.set_bind_group(0, group0, &[]);
                let [gx, gy] = groups(p.size);
                ctx.pass.dispatch_workgroups(gx, gy, 1);
                ctx.pass.set_pipeline(&self.reduce);
                for (k, &group) in reduce.iter().enumerate() {
                    let [gx, gy] = groups(level_size(p.size, k as u32 + 1));
                    ctx.pass.set_bind_group(0, ctx.res.bind_group(group), &[]);
                    ctx.pass.dispatch_workgroups(gx, gy, 1);
                }
            });
    }
}
