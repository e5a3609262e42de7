//! Terrain `static-chunks`, the baseline: one immutable expanded vertex buffer
//! per resident MCNK, the splat data (alpha atlas, layer texture array), a
//! per-MCNK record buffer, and the `terrain.draw` pass that culls MCNKs on the
//! CPU (inside the pass closure, so the bench sees the cost) and issues one
//! draw per visible MCNK.

use std::collections::HashMap;

use sward_engine::graph::RenderGraph;
use sward_engine::{GpuContext, COLOR_FORMAT, DEPTH_COMPARE, DEPTH_FORMAT};
use sward_scenes::world::coords::ChunkCoord;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::cull::ChunkCuller;
use super::gpu::TerrainUniforms;
use super::mesh::{expand_mcnk, TerrainVertex, VERTEX_ATTRIBUTES};
use super::splat_gpu::SplatGpu;
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
    /// Alpha atlas, layer textures and splat records (bound in `bind_group`).
    _splat: SplatGpu,
    gpu_bytes: u64,
    triangles: u64,
    /// Visible slots of the last frame (reused allocation).
    visible: Vec<u32>,
}

impl StaticChunks {
    /// Uploads every resident MCNK of `world`: vertex buffers, alpha atlas,
    /// layer textures, per-MCNK records; builds the 1x and 4x MSAA pipelines.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        let device = &gpu.device;
        let splat = SplatGpu::new(gpu, world)?;
        let mut chunks = Vec::new();
        let mut bounds = Vec::new();
        let mut tile_keys = Vec::new();
        let mut triangles = 0;
        let mut gpu_bytes = splat.gpu_memory_bytes();
        for tile in world.tiles() {
            for m in &tile.mcnks {
                let coord = m.chunk_coord(tile.coord);
                let mesh = expand_mcnk(coord, m)?;
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
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.uniforms"),
            size: TerrainUniforms::size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu_bytes += uniforms.size();

        let shader =
            sward_engine::shader::create_shader(device, sward_wgsl::modules::TERRAIN_STATIC)
                .map_err(|source| PassError::Shader {
                    technique: TECHNIQUE,
                    source,
                })?;
        let bind_layout = bind_group_layout(device);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniforms.as_entire_binding(),
        }];
        entries.extend(splat.bind_entries());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("terrain.draw"),
            layout: &bind_layout,
            entries: &entries,
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
            _splat: splat,
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

    /// A terrain pipeline for `samples`: the shared [`Self::pipeline_state`],
    /// `vs_entry` with `buffers` for vertices, `fs_main` into [`COLOR_FORMAT`].
    /// Every terrain tier builds its pipelines here so their states cannot drift.
    pub(crate) fn build_pipeline(
        device: &wgpu::Device,
        label: &str,
        layout: &wgpu::PipelineLayout,
        shader: &wgpu::ShaderModule,
        vs_entry: &str,
        buffers: &[wgpu::VertexBufferLayout<'_>],
        samples: u32,
    ) -> wgpu::RenderPipeline {
        let (primitive, depth, multisample) = Self::pipeline_state(samples);
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module: shader,
                entry_point: Some(vs_entry),
                compilation_options: Default::default(),
                buffers,
            },
            primitive,
            depth_stencil: Some(depth),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(COLOR_FORMAT.into())],
            }),
            multiview: None,
            cache: None,
        })
    }

    fn pipeline_for(&mut self, device: &wgpu::Device, samples: u32) {
        if self.pipelines.contains_key(&samples) {
            return;
        }
        let pipeline = Self::build_pipeline(
            device,
            PASS_DRAW,
            &self.layout,
            &self.shader,
            "vs_main",
            &[wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<TerrainVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &VERTEX_ATTRIBUTES,
            }],
            samples,
        );
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
        let (color_load, depth_load) = targets.load_ops(&view.settings);
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
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }];
    entries.extend(SplatGpu::layout_entries());
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("terrain.draw"),
        entries: &entries,
    })
}

/// Registry entry of terrain `static-chunks`, the baseline.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "static-chunks",
    summary: "baseline: one vertex buffer per MCNK, CPU frustum culling, one draw per visible MCNK",
    params: &[],
    requires: &[],
    fallback: None,
    build: |i, _| Ok(Box::new(StaticChunks::new(i.gpu, i.scene.world)?)),
};

impl crate::technique::Technique for StaticChunks {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        StaticChunks::record(self, inputs.gpu, graph, view, targets);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    fn terrain_triangles(&self) -> Option<u64> {
        Some(self.triangles)
    }
}
