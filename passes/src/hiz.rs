//! A farthest-depth pyramid (Hi-Z) of the frame's depth target, and the CPU
//! references of its build and of the sphere occlusion test
//! (`hiz.wgsl`, `hiz_test.wgsl`).
//!
//! Depth is reverse-Z, so "farthest" is the smallest value. The pyramid has
//! half the target's resolution: level 0 texel (x, y) holds the farthest
//! sample of pixels 2x..2x+1 by 2y..2y+1; each further level is a mip (half
//! as large, rounded down) holding the farthest of the 2x2 texels below it.
//! The last column (row) of a level also takes in the column (row) an odd
//! size leaves over, so every pixel stays under a texel of every level.
//!
//! Grass `gpu-cull` builds it after the terrain pass and before its cull:
//! every occluder grass can have (the terrain) is complete by then, so one
//! phase against this frame's depth is exact; the two-phase scheme (last
//! frame's pyramid, then a re-test) is for occluders drawn by the same cull.

use glam::{Mat4, Vec2, Vec3};
use sward_engine::graph::{RenderGraph, TextureId};

use crate::error::PassError;

/// Name of grass `gpu-cull`'s pyramid pass.
pub const PASS_HIZ: &str = "grass.hiz";

/// Key under which the terrain publishes the depth pyramid it built this
/// frame ([`sward_engine::graph::RenderGraph::publish_texture`]); grass
/// occlusion tests against it instead of building its own.
pub const TERRAIN_PYRAMID: &str = "terrain.depth-pyramid";

/// Pyramid texel format.
pub const HIZ_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// Size of level 0 of the pyramid of a `pixels` target (half, rounded down).
pub fn base_size(pixels: [u32; 2]) -> [u32; 2] {
    [(pixels[0] / 2).max(1), (pixels[1] / 2).max(1)]
}

/// Number of levels of a pyramid whose level 0 is `size` (a full mip chain).
pub fn level_count(size: [u32; 2]) -> u32 {
    32 - size[0].max(size[1]).max(1).leading_zeros()
}

/// Size of level `level` of a pyramid whose level 0 is `size` (mip sizes:
/// halved, rounded down, at least 1).
pub fn level_size(size: [u32; 2], level: u32) -> [u32; 2] {
    [(size[0] >> level).max(1), (size[1] >> level).max(1)]
}

/// One level on the CPU: `width * height` depths, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// Texels, row-major.
    pub depth: Vec<f32>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

impl Level {
    fn at(&self, x: u32, y: u32) -> f32 {
        let x = x.min(self.width - 1);
        let y = y.min(self.height - 1);
        self.depth[(y * self.width + x) as usize]
    }
}

/// The source texels (first, last; inclusive) that texel `x` of a level of
/// `dst` texels covers in a level of `src` (mirrors WGSL `hiz_footprint`).
pub fn footprint(x: u32, dst: u32, src: u32) -> (u32, u32) {
    let first = (2 * x).min(src - 1);
    let last = if x == dst - 1 {
        src - 1
    } else {
        (2 * x + 1).min(src - 1)
    };
    (first, last)
}

/// CPU reference of `hiz_reduce` (and of `hiz_from_depth` with one sample):
/// the next level of `src`.
pub fn reduce_level(src: &Level) -> Level {
    let [width, height] = level_size([src.width, src.height], 1);
    let mut depth = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        let (y0, y1) = footprint(y, height, src.height);
        for x in 0..width {
            let (x0, x1) = footprint(x, width, src.width);
            let mut far = 1.0f32;
            for sy in y0..=y1 {
                for sx in x0..=x1 {
                    far = far.min(src.at(sx, sy));
                }
            }
            depth.push(far);
        }
    }
    Level {
        depth,
        width,
        height,
    }
}

/// CPU reference of `hiz_sphere_occluded` over `levels` (level 0 first) of
/// the pyramid of a `pixels` target.
pub fn sphere_occluded(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    center: Vec3,
    radius: f32,
) -> bool {
    let t = sphere_test(levels, pixels, view_proj, center, radius);
    t[3] > 0.5 && t[0] < t[1]
}

/// CPU reference of `hiz_sphere_test`: (nearest depth of the sphere,
/// farthest occluder depth under it, level read, 1 = tested; all 0 when it
/// reaches the eye plane).
pub fn sphere_test(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    center: Vec3,
    radius: f32,
) -> [f32; 4] {
    box_test(
        levels,
        pixels,
        view_proj,
        center - Vec3::splat(radius),
        center + Vec3::splat(radius),
    )
}

/// CPU reference of `hiz_box_occluded`.
pub fn box_occluded(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    min: Vec3,
    max: Vec3,
) -> bool {
    let t = box_test(levels, pixels, view_proj, min, max);
    t[3] > 0.5 && t[0] < t[1]
}

/// CPU reference of `hiz_box_test` (see [`sphere_test`]).
pub fn box_test(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    min: Vec3,
    max: Vec3,
) -> [f32; 4] {
    if levels.is_empty() {
        return [0.0; 4];
    }
    let size = Vec2::new(pixels[0] as f32, pixels[1] as f32);
    let mut lo = Vec2::splat(1.0e9);
    let mut hi = Vec2::splat(-1.0e9);
    let mut nearest = 0.0f32;
    for i in 0..8u32 {
        let pick = |bit: u32, lo: f32, hi: f32| if i & bit != 0 { hi } else { lo };
        let corner = Vec3::new(
            pick(1, min.x, max.x),
            pick(2, min.y, max.y),
            pick(4, min.z, max.z),
        );
        let clip = view_proj * corner.extend(1.0);
        if clip.w <= 1.0e-3 {
            return [0.0; 4];
        }
        let ndc = clip.truncate() / clip.w;
        lo = lo.min(ndc.truncate());
        hi = hi.max(ndc.truncate());
        nearest = nearest.max(ndc.z);
    }
    let p0 =
        (Vec2::new(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * size).clamp(Vec2::ZERO, size - Vec2::ONE);
    let p1 =
        (Vec2::new(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * size).clamp(Vec2::ZERO, size - Vec2::ONE);
    let span = (p1.x - p0.x).max(p1.y - p0.y).max(1.0).ceil() as u32;
    let bits = if span > 1 {
        32 - (span - 1).leading_zeros()
    } else {
        0
    };
    let level = (bits.max(1) - 1).min(levels.len() as u32 - 1);
    let l = &levels[level as usize];
    let scale = (2u32 << level) as f32;
    let t = |p: Vec2| {
        [
            ((p.x / scale).floor() as u32).min(l.width - 1),
            ((p.y / scale).floor() as u32).min(l.height - 1),
        ]
    };
    let (t0, t1) = (t(p0), t(p1));
    let mut far = 1.0f32;
    for y in t0[1]..=t1[1] {
        for x in t0[0]..=t1[0] {
            far = far.min(l.at(x, y));
        }
    }
    [nearest, far, level as f32, 1.0]
}

/// Whether [`sphere_occluded`] is on a boundary for this sphere: its
/// answer changes when the sphere moves by a thousandth of its distance from
/// `eye` along any axis or its radius changes by 2%. Another ALU may round
/// the projection differently there (tests skip such spheres).
pub fn occlusion_unsure(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    eye: Vec3,
    center: Vec3,
    radius: f32,
) -> bool {
    let answer = sphere_occluded(levels, pixels, view_proj, center, radius);
    let step = 1.0e-3 * center.distance(eye);
    let moves = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z];
    moves
        .iter()
        .map(|&m| (center + m * step, radius))
        .chain([(center, radius * 0.98), (center, radius * 1.02)])
        .any(|(c, r)| sphere_occluded(levels, pixels, view_proj, c, r) != answer)
}

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

fn texture_entry(
    binding: u32,
    sample_type: wgpu::TextureSampleType,
    multisampled: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled,
        },
        count: None,
    }
}

/// The bind group layout of a compute pass that tests against a pyramid:
/// the whole pyramid (every level) at binding 0, as `hiz_test` reads it.
pub fn pyramid_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[texture_entry(
            0,
            wgpu::TextureSampleType::Float { filterable: false },
            false,
        )],
    })
}

/// A [`pyramid_layout`] bind group over `view` (a pyramid, or a stand-in).
pub fn pyramid_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    view: &wgpu::TextureView,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("hiz.pyramid"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(view),
        }],
    })
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::StorageTexture {
            access: wgpu::StorageTextureAccess::WriteOnly,
            format: HIZ_FORMAT,
            view_dimension: wgpu::TextureViewDimension::D2,
        },
        count: None,
    }
}

impl HiZ {
    /// The pipelines of a pyramid built by pass `name` (e.g. [`PASS_HIZ`]);
    /// the pyramid is made by [`Self::ensure`].
    pub fn new(device: &wgpu::Device, name: &'static str) -> Result<Self, PassError> {
        let shader = sward_engine::shader::create_shader(device, sward_wgsl::modules::HIZ)
            .map_err(|source| PassError::Shader {
                technique: "hi-z pyramid",
                source,
            })?;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let depth_layout = layout(
            "hiz.depth",
            &[
                texture_entry(0, wgpu::TextureSampleType::Depth, false),
                storage_entry(3),
            ],
        );
        let depth_ms_layout = layout(
            "hiz.depth_ms",
            &[
                texture_entry(1, wgpu::TextureSampleType::Depth, true),
                storage_entry(3),
            ],
        );
        let reduce_layout = layout(
            "hiz.reduce",
            &[texture_entry(2, unfilterable, false), storage_entry(3)],
        );
        let pipeline = |bgl: &wgpu::BindGroupLayout, entry: &str| {
            let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(PASS_HIZ),
                bind_group_layouts: &[bgl],
                push_constant_ranges: &[],
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(PASS_HIZ),
                layout: Some(&pl),
                module: &shader,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
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
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("hiz.reduce"),
                    layout: &self.reduce_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(&levels[l - 1]),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::TextureView(&levels[l]),
                        },
                    ],
                })
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
                    let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("hiz.depth"),
                        layout: if ms {
                            &self.depth_ms_layout
                        } else {
                            &self.depth_layout
                        },
                        entries: &[
                            wgpu::BindGroupEntry {
                                binding: if ms { 1 } else { 0 },
                                resource: wgpu::BindingResource::TextureView(&depth_view),
                            },
                            wgpu::BindGroupEntry {
                                binding: 3,
                                resource: wgpu::BindingResource::TextureView(&p.levels[0]),
                            },
                        ],
                    });
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

/// Reads every level of `texture` (an [`HIZ_FORMAT`] pyramid with level 0
/// of `size`) back to the CPU (tests).
pub fn read_levels(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    size: [u32; 2],
) -> Vec<Level> {
    (0..level_count(size))
        .map(|l| {
            let [width, height] = level_size(size, l);
            let row = (width * 4).div_ceil(256) * 256;
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("hiz.readback"),
                size: u64::from(row * height),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let mut encoder = device.create_command_encoder(&Default::default());
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: l,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
            queue.submit([encoder.finish()]);
            let slice = buffer.slice(..);
            slice.map_async(wgpu::MapMode::Read, |_| {});
            let _ = device.poll(wgpu::PollType::wait_indefinitely());
            let data = slice.get_mapped_range();
            let mut depth = Vec::with_capacity((width * height) as usize);
            for y in 0..height {
                let start = (y * row) as usize;
                let texels: &[f32] =
                    bytemuck::cast_slice(&data[start..start + (width * 4) as usize]);
                depth.extend_from_slice(texels);
            }
            Level {
                depth,
                width,
                height,
            }
        })
        .collect()
}

/// Runs `probe_hiz.wgsl` (the GPU `hiz_sphere_test`) on `spheres` (centre,
/// radius) against `hiz`'s pyramid (tests).
#[cfg(test)]
pub(crate) fn probe_sphere_tests(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    hiz: &HiZ,
    view_proj: Mat4,
    spheres: &[[f32; 4]],
) -> Vec<[f32; 4]> {
    use wgpu::util::DeviceExt;
    let (pixels, _, levels) = hiz.shape().expect("pyramid made");
    let shader =
        sward_engine::shader::create_shader(device, sward_wgsl::modules::PROBE_HIZ).unwrap();
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("probe.hiz"),
        layout: None,
        module: &shader,
        entry_point: Some("probe_main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut uniform = view_proj.to_cols_array().to_vec();
    uniform.extend_from_slice(&[pixels[0] as f32, pixels[1] as f32, levels as f32, 0.0]);
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.hiz.uniform"),
        contents: bytemuck::cast_slice(&uniform),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.hiz.spheres"),
        contents: bytemuck::cast_slice(spheres),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out_size = (spheres.len() * 16) as u64;
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe.hiz.out"),
        size: out_size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("probe.hiz"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(hiz.view().unwrap()),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((spheres.len() as u32).div_ceil(64), 1, 1);
    }
    queue.submit([encoder.finish()]);
    let bytes = sward_engine::targets::read_buffer(device, queue, &out, out_size).unwrap();
    bytemuck::pod_collect_to_vec(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_mips_down_to_one_texel() {
        assert_eq!(level_count([1, 1]), 1);
        assert_eq!(level_count([256, 160]), 9);
        assert_eq!(level_count(base_size([160, 100])), 7);
        assert_eq!(base_size([1, 5]), [1, 2]);
        assert_eq!(level_size([5, 3], 1), [2, 1]);
        assert_eq!(level_size([5, 3], 3), [1, 1]);
    }

    /// Depth of pixel `(x, y)` written by the probe below (exact in f32).
    fn probe_depth(x: u32, y: u32) -> f32 {
        let mut h = x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663);
        h ^= h >> 13;
        h = h.wrapping_mul(0x5bd1_e995);
        h ^= h >> 15;
        (h & 0xffff) as f32 / 65_536.0
    }

    /// The GPU pyramid of a 4x MSAA depth target whose every sample holds
    /// its pixel's known depth equals the CPU reduction of those depths,
    /// level by level, for an even-sized target (every level-0 texel takes
    /// the unrolled 2x2 path) and an odd-sized one (the last column and row
    /// take the general loop).
    #[test]
    fn msaa_pyramid_matches_the_cpu_reduction() {
        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let gpu: &sward_engine::GpuContext = &gpu;
        let shader = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("hiz.test.depth"),
                source: wgpu::ShaderSource::Wgsl(
                    r#"
struct Out { @builtin(position) pos: vec4<f32>, }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return Out(vec4<f32>(uv * 2.0 - 1.0, 0.5, 1.0));
}
struct Frag { @location(0) color: vec4<f32>, @builtin(frag_depth) depth: f32, }
@fragment fn fs(in: Out) -> Frag {
    let x = u32(in.pos.x);
    let y = u32(in.pos.y);
    var h = (x * 73856093u) ^ (y * 19349663u);
    h = h ^ (h >> 13u);
    h = h * 0x5bd1e995u;
    h = h ^ (h >> 15u);
    return Frag(vec4<f32>(0.0), f32(h & 0xffffu) / 65536.0);
}
"#
                    .into(),
                ),
            });
        let pipeline = gpu
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("hiz.test.depth"),
                layout: None,
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(sward_engine::targets::COLOR_FORMAT.into())],
                }),
                primitive: Default::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: sward_engine::targets::DEPTH_FORMAT,
                    depth_write_enabled: true,
                    depth_compare: wgpu::CompareFunction::Always,
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: 4,
                    ..Default::default()
                },
                multiview: None,
                cache: None,
            });
        for size in [[38u32, 22], [37, 23]] {
            let mut off = crate::testkit::Offscreen::new(gpu, size, 4);
            let mut hiz = HiZ::new(&gpu.device, "hiz.test").expect("pipelines");
            hiz.ensure(&gpu.device, size);
            let (pipeline, hiz) = (&pipeline, &hiz);
            off.frame(gpu, |g, t| {
                g.add_render_pass("hiz.test.depth")
                    .color(t.color, wgpu::LoadOp::Clear(wgpu::Color::BLACK), t.resolve)
                    .depth(t.depth, wgpu::LoadOp::Clear(0.0), wgpu::StoreOp::Store)
                    .record(move |ctx| {
                        ctx.pass.set_pipeline(pipeline);
                        ctx.pass.draw(0..3, 0..1);
                    });
                hiz.record(g, t.depth, 4).expect("pyramid made");
            });
            let (_, base, count) = hiz.shape().expect("shape");
            let got = read_levels(
                &gpu.device,
                &gpu.queue,
                hiz.texture().expect("texture"),
                base,
            );
            let mut want = vec![reduce_level(&Level {
                depth: (0..size[1])
                    .flat_map(|y| (0..size[0]).map(move |x| probe_depth(x, y)))
                    .collect(),
                width: size[0],
                height: size[1],
            })];
            while want.len() < count as usize {
                let next = reduce_level(want.last().expect("one"));
                want.push(next);
            }
            assert_eq!(got.len(), want.len(), "{size:?}");
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{size:?} level {k}");
            }
        }
    }

    #[test]
    fn reduction_keeps_the_farthest_including_odd_edges() {
        // 5 x 1: the last texel also takes the column an odd size leaves
        // (columns 2..=4).
        let l0 = Level {
            depth: vec![0.9, 0.8, 0.7, 0.6, 0.1],
            width: 5,
            height: 1,
        };
        let l1 = reduce_level(&l0);
        assert_eq!((l1.width, l1.height), (2, 1));
        assert_eq!(l1.depth, vec![0.8, 0.1]);
        assert_eq!(footprint(0, 2, 5), (0, 1));
        assert_eq!(footprint(1, 2, 5), (2, 4));
        assert_eq!(footprint(0, 1, 1), (0, 0));
    }

    #[test]
    fn a_sphere_behind_a_near_wall_is_occluded_and_one_in_front_is_not() {
        let camera = sward_engine::Camera {
            eye: Vec3::ZERO,
            yaw_deg: 0.0,
            pitch_deg: 0.0,
            ..sward_engine::Camera::default()
        };
        let view_proj = camera.view_proj(1.0);
        // A wall filling the screen at 20 units ahead.
        let wall = (view_proj * Vec3::new(20.0, 0.0, 0.0).extend(1.0)).z
            / (view_proj * Vec3::new(20.0, 0.0, 0.0).extend(1.0)).w;
        // A 128 x 128 target: level 0 is 64 x 64.
        let px = [128, 128];
        let mut levels = vec![Level {
            depth: vec![wall; 64 * 64],
            width: 64,
            height: 64,
        }];
        while levels.last().unwrap().width > 1 {
            let next = reduce_level(levels.last().unwrap());
            levels.push(next);
        }
        assert!(sphere_occluded(
            &levels,
            px,
            view_proj,
            Vec3::new(40.0, 0.0, 0.0),
            1.0
        ));
        assert!(!sphere_occluded(
            &levels,
            px,
            view_proj,
            Vec3::new(10.0, 0.0, 0.0),
            1.0
        ));
        // Straddling the wall: its near side is in front.
        assert!(!sphere_occluded(
            &levels,
            px,
            view_proj,
            Vec3::new(20.5, 0.0, 0.0),
            1.0
        ));
        // A hole in the wall over the sphere's rectangle lets it through.
        for y in 28..36 {
            for x in 28..36 {
                levels[0].depth[y * 64 + x] = 0.0;
            }
        }
        levels.truncate(1);
        while levels.last().unwrap().width > 1 {
            let next = reduce_level(levels.last().unwrap());
            levels.push(next);
        }
        assert!(!sphere_occluded(
            &levels,
            px,
            view_proj,
            Vec3::new(40.0, 0.0, 0.0),
            0.5
        ));
        // Reaching behind the eye: visible.
        assert!(!sphere_occluded(
            &levels,
            px,
            view_proj,
            Vec3::new(0.2, 0.0, 0.0),
            1.0
        ));
    }
}
