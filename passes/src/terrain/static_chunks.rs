//! Terrain `static-chunks`, the baseline: one immutable expanded vertex buffer
//! per resident MCNK, the splat data (alpha atlas, layer texture array), a
//! per-MCNK record buffer, and the `terrain.draw` pass that culls MCNKs on the
//! CPU (inside the pass closure, so the bench sees the cost) and issues one
//! draw per visible MCNK.

use std::collections::HashMap;

use sward_engine::graph::RenderGraph;
use sward_engine::{GpuContext, COLOR_FORMAT, DEPTH_CLEAR, DEPTH_COMPARE, DEPTH_FORMAT};
use sward_scenes::world::coords::ChunkCoord;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::cull::ChunkCuller;
use super::gpu::{TerrainChunkGpu, TerrainUniforms};
use super::mesh::{expand_mcnk, TerrainVertex, VERTEX_ATTRIBUTES};
use super::splat::{
    alpha_tile, layer_texture, mip_chain, mip_count, AlphaAtlasLayout, LayerKind, LAYER_KINDS,
    LAYER_SIZE,
};
use super::{PASS_DRAW, TECHNIQUE};
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};

/// One resident MCNK on the GPU.
struct GpuChunk {
    coord: ChunkCoord,
    vertices: wgpu::Buffer,
    vertex_count: u32,
}

/// The `static-chunks` terrain technique (see the module docs).
pub struct StaticChunks {
    chunks: Vec<GpuChunk>,
    culler: ChunkCuller,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    pipelines: HashMap<u32, wgpu::RenderPipeline>,
    gpu_bytes: u64,
    triangles: u64,
    /// Visible slots of the last frame (reused allocation).
    visible: Vec<u32>,
}

fn texture_bytes(size: [u32; 2], mips: u32, layers: u32, texel: u64) -> u64 {
    (0..mips)
        .map(|m| u64::from((size[0] >> m).max(1)) * u64::from((size[1] >> m).max(1)))
        .sum::<u64>()
        * u64::from(layers)
        * texel
}

impl StaticChunks {
    /// Uploads every resident MCNK of `world`: vertex buffers, alpha atlas,
    /// layer textures, per-MCNK records; builds the 1x and 4x MSAA pipelines.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        let device = &gpu.device;
        let mut chunks = Vec::new();
        let mut bounds = Vec::new();
        let mut tile_keys = Vec::new();
        let mut records = Vec::new();
        let mut triangles = 0;
        let mut gpu_bytes = 0;
        let atlas = AlphaAtlasLayout::for_tiles(world.mcnk_count());
        let [aw, ah] = atlas.size();
        let max_dim = device.limits().max_texture_dimension_2d;
        if aw.max(ah) > max_dim {
            return Err(PassError::DeviceLimit {
                technique: TECHNIQUE,
                what: format!(
                    "alpha atlas for {} MCNKs (side in texels)",
                    world.mcnk_count()
                ),
                needed: u64::from(aw.max(ah)),
                limit: u64::from(max_dim),
            });
        }
        let alpha_texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("terrain.alpha_atlas"),
            size: wgpu::Extent3d {
                width: aw,
                height: ah,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        gpu_bytes += texture_bytes([aw, ah], 1, 1, 4);
        for tile in world.tiles() {
            for m in &tile.mcnks {
                let coord = m.chunk_coord(tile.coord);
                let slot = chunks.len() as u32;
                let mesh = expand_mcnk(coord, m)?;
                let mut textures = [0u32; 4];
                for (k, layer) in m.layers.iter().enumerate().take(4) {
                    let name = tile
                        .textures
                        .get(layer.texture_id as usize)
                        .map_or("", String::as_str);
                    textures[k] = LayerKind::from_texture(name, layer.texture_id) as u32;
                }
                if m.layers.len() > 4 {
                    return Err(PassError::InvalidInput {
                        technique: TECHNIQUE,
                        what: format!("MCNK ({}, {})", coord.x, coord.y),
                        reason: format!("{} MCLY layers (1..=4 supported)", m.layers.len()),
                    });
                }
                let (alpha_origin, alpha_scale) = atlas.tile_uv(slot);
                records.push(TerrainChunkGpu {
                    alpha_origin,
                    alpha_scale,
                    // No MCLY at all draws layer texture 0 alone.
                    layer_count: m.layers.len().max(1) as u32,
                    textures,
                });
                let [tx, ty] = atlas.tile_texel(slot);
                gpu.queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &alpha_texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d { x: tx, y: ty, z: 0 },
                        aspect: wgpu::TextureAspect::All,
                    },
                    &alpha_tile(m),
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(64 * 4),
                        rows_per_image: Some(64),
                    },
                    wgpu::Extent3d {
                        width: 64,
                        height: 64,
                        depth_or_array_layers: 1,
                    },
                );
                let vertex_bytes: &[u8] = bytemuck::cast_slice(&mesh.vertices);
                let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("terrain.chunk_vertices"),
                    contents: vertex_bytes,
                    usage: wgpu::BufferUsages::VERTEX,
                });
                gpu_bytes += vertices.size();
                triangles += mesh.triangles();
                bounds.push(mesh.bounds);
                tile_keys.push(tile.coord.index() as u32);
                chunks.push(GpuChunk {
                    coord,
                    vertices,
                    vertex_count: mesh.vertices.len() as u32,
                });
            }
        }
        let layer_texture = create_layer_array(gpu);
        gpu_bytes += texture_bytes(
            [LAYER_SIZE; 2],
            mip_count(LAYER_SIZE),
            LAYER_KINDS.len() as u32,
            4,
        );
        if records.is_empty() {
            // Keep the storage binding non-empty for an empty world.
            records.push(TerrainChunkGpu {
                alpha_origin: [0.0; 2],
                alpha_scale: 0.0,
                layer_count: 1,
                textures: [0; 4],
            });
        }
        let record_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.chunk_records"),
            contents: bytemuck::cast_slice(&records),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.uniforms"),
            size: TerrainUniforms::size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu_bytes += record_buffer.size() + uniforms.size();

        let shader =
            sward_engine::shader::create_shader(device, sward_wgsl::modules::TERRAIN_STATIC)
                .map_err(|source| PassError::Shader {
                    technique: TECHNIQUE,
                    source,
                })?;
        let bind_layout = bind_group_layout(device);
        let sampler = |label, filter, address| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some(label),
                address_mode_u: address,
                address_mode_v: address,
                mag_filter: filter,
                min_filter: filter,
                mipmap_filter: filter,
                ..Default::default()
            })
        };
        let alpha_sampler = sampler(
            "terrain.alpha_sampler",
            wgpu::FilterMode::Linear,
            wgpu::AddressMode::ClampToEdge,
        );
        let layer_sampler = sampler(
            "terrain.layer_sampler",
            wgpu::FilterMode::Linear,
            wgpu::AddressMode::Repeat,
        );
        let alpha_view = alpha_texture.create_view(&Default::default());
        let layer_view = layer_texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("terrain.draw"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: record_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(&alpha_view),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&layer_view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&alpha_sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: wgpu::BindingResource::Sampler(&layer_sampler),
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain.draw"),
            bind_group_layouts: &[&bind_layout],
            push_constant_ranges: &[],
        });
        let mut this = StaticChunks {
            chunks,
            culler: ChunkCuller::new(bounds, &tile_keys),
            uniforms,
            bind_group,
            layout,
            shader,
            pipelines: HashMap::new(),
            gpu_bytes,
            triangles,
            visible: Vec::new(),
        };
        for samples in [1, 4] {
            this.pipeline_for(device, samples);
        }
        Ok(this)
    }

    /// The pipeline state this technique draws with at `samples` (1 or 4)
    /// samples: reverse-Z depth test and write, back faces (counter-clockwise
    /// seen from the camera, since the fan winds clockwise from above) culled.
    pub fn pipeline_state(
        samples: u32,
    ) -> (
        wgpu::PrimitiveState,
        wgpu::DepthStencilState,
        wgpu::MultisampleState,
    ) {
        (
            wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Cw,
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: true,
                depth_compare: DEPTH_COMPARE,
                stencil: Default::default(),
                bias: Default::default(),
            },
            wgpu::MultisampleState {
                count: samples,
                ..Default::default()
            },
        )
    }

    fn pipeline_for(&mut self, device: &wgpu::Device, samples: u32) {
        if self.pipelines.contains_key(&samples) {
            return;
        }
        let (primitive, depth, multisample) = Self::pipeline_state(samples);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(PASS_DRAW),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<TerrainVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &VERTEX_ATTRIBUTES,
                }],
            },
            primitive,
            depth_stencil: Some(depth),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: &self.shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(COLOR_FORMAT.into())],
            }),
            multiview: None,
            cache: None,
        });
        self.pipelines.insert(samples, pipeline);
    }

    /// Adds `terrain.draw`: CPU frustum + distance culling of the MCNKs inside
    /// the pass closure, one draw per visible MCNK, uniforms written there too.
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        self.pipeline_for(&gpu.device, view.sample_count);
        let view = *view;
        let [r, g, b] = view.settings.fog_color.map(f64::from);
        let color_load = if targets.clear {
            wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 })
        } else {
            wgpu::LoadOp::Load
        };
        let depth_load = if targets.clear {
            wgpu::LoadOp::Clear(DEPTH_CLEAR)
        } else {
            wgpu::LoadOp::Load
        };
        let this: &'a mut Self = self;
        graph
            .add_render_pass(PASS_DRAW)
            .color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipeline) = this.pipelines.get(&ctx.sample_count) else {
                    log::error!("{PASS_DRAW}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                let bytes = TerrainUniforms::from_view(&view).to_bytes();
                ctx.queue.write_buffer(&this.uniforms, 0, &bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                let mut visible = std::mem::take(&mut this.visible);
                this.culler.cull(
                    &view.frustum,
                    view.eye(),
                    view.settings.terrain_distance,
                    &mut visible,
                );
                ctx.pass.set_pipeline(pipeline);
                ctx.pass.set_bind_group(0, &this.bind_group, &[]);
                for &slot in &visible {
                    let chunk = &this.chunks[slot as usize];
                    if chunk.vertex_count == 0 {
                        continue;
                    }
                    ctx.pass.set_vertex_buffer(0, chunk.vertices.slice(..));
                    ctx.pass.draw(0..chunk.vertex_count, slot..slot + 1);
                    ctx.counters.draw_calls += 1;
                    ctx.counters.instances_submitted += 1;
                    ctx.counters.instances_drawn += 1;
                    ctx.counters.triangles += u64::from(chunk.vertex_count / 3);
                }
                this.visible = visible;
            });
    }

    /// Bytes of GPU memory this technique holds (vertex buffers, atlas, layer
    /// textures with mips, records, uniforms).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    /// Triangles of the resident terrain (hole cells excluded).
    pub fn triangle_count(&self) -> u64 {
        self.triangles
    }

    /// Resident MCNKs.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Global coordinates of the MCNKs drawn in the last recorded frame.
    pub fn last_visible(&self) -> Vec<ChunkCoord> {
        self.visible
            .iter()
            .map(|&s| self.chunks[s as usize].coord)
            .collect()
    }
}

fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let (vs, fs) = (wgpu::ShaderStages::VERTEX, wgpu::ShaderStages::FRAGMENT);
    let entry = |binding, visibility, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        count: None,
    };
    let texture = |view_dimension| wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Float { filterable: true },
        view_dimension,
        multisampled: false,
    };
    let buffer = |ty| wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("terrain.draw"),
        entries: &[
            entry(0, vs | fs, buffer(wgpu::BufferBindingType::Uniform)),
            entry(
                1,
                fs,
                buffer(wgpu::BufferBindingType::Storage { read_only: true }),
            ),
            entry(2, fs, texture(wgpu::TextureViewDimension::D2)),
            entry(3, fs, texture(wgpu::TextureViewDimension::D2Array)),
            entry(
                4,
                fs,
                wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            ),
            entry(
                5,
                fs,
                wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            ),
        ],
    })
}

/// The layer texture array: one procedurally drawn texture per [`LayerKind`],
/// sRGB, full mip chain.
fn create_layer_array(gpu: &GpuContext) -> wgpu::Texture {
    let mips = mip_count(LAYER_SIZE);
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain.layer_textures"),
        size: wgpu::Extent3d {
            width: LAYER_SIZE,
            height: LAYER_SIZE,
            depth_or_array_layers: LAYER_KINDS.len() as u32,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (layer, kind) in LAYER_KINDS.iter().enumerate() {
        for (level, data) in mip_chain(layer_texture(*kind, LAYER_SIZE), LAYER_SIZE)
            .iter()
            .enumerate()
        {
            let side = (LAYER_SIZE >> level).max(1);
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level as u32,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer as u32,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(side * 4),
                    rows_per_image: Some(side),
                },
                wgpu::Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
            );
        }
    }
    texture
}
