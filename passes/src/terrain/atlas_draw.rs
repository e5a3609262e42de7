//! What the two atlas-driven terrain tiers (`atlas-instanced`, `gpu-cull`)
//! share: the splat resources, the immutable template, the uniforms, the
//! `terrain_atlas` shader and its pipelines, and a bind group over the
//! height/normal atlas they are given. Each tier adds how it decides which
//! MCNKs to draw.
//!
//! The atlas is not theirs: in the renderer it is the one
//! [`crate::technique::SharedResources`] holds for every technique that
//! binds it (grass `gpu-cull` too), updated once per tile change before
//! the techniques follow. Built for a streaming world (an [`AtlasReach`]),
//! the splat records share the atlas slots and [`AtlasDraw::set_tile`]
//! writes one tile's splat records at the slots its MCNKs took in the
//! atlas (already updated) and its alpha block.

use std::collections::HashMap;
use sward_engine::bind::{self, Slot};
use sward_engine::graph::{BindGroupId, BufferId, RenderGraph};

use sward_engine::GpuContext;
use sward_scenes::world::coords::TileCoord;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::gpu::TerrainUniforms;
use super::splat_gpu::SplatGpu;
use super::splat_gpu::SplatTile;
use super::template::{build_template, TEMPLATE_INDICES};
use super::StaticChunks;
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;

/// Binding of the atlas records (`atlas_chunks`, gpu-cull's vertex stage).
const BINDING_ATLAS_CHUNKS: u32 = 6;

/// Template vertex buffer layout (location 0, `Uint32`).
const TEMPLATE_ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Uint32];

/// Shared resources of the atlas terrain tiers.
pub(crate) struct AtlasDraw {
    /// Splat resources (bound in `bind_group`), records at the atlas slots.
    splat: SplatGpu,
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub uniforms: wgpu::Buffer,
    pub bind_group: wgpu::BindGroup,
    layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    entry_point: &'static str,
    instance_layout: Option<wgpu::VertexBufferLayout<'static>>,
    pipelines: HashMap<u32, wgpu::RenderPipeline>,
    gpu_bytes: u64,
}

/// The atlas slots of `tile`'s MCNKs, in MCNK order (resident in `atlas`).
fn tile_slots(atlas: &HeightAtlas, tile: &sward_scenes::world::AdtTile) -> Vec<u32> {
    let slots = atlas.tile_slots(tile.coord);
    tile.mcnks
        .iter()
        .map(|m| slots.of(m.chunk_coord(tile.coord)).unwrap_or(u32::MAX))
        .collect()
}

/// How a tier feeds the vertex stage.
pub(crate) enum Feed {
    /// `vs_instanced`: per-instance vertex attributes (no vertex storage).
    Instanced(wgpu::VertexBufferLayout<'static>),
    /// `vs_culled`: atlas records read from storage at `instance_index`.
    Culled,
}

impl AtlasDraw {
    /// Builds the splat data, template and pipelines (1x and 4x MSAA) for
    /// `world` over `atlas` (built for `world`, with `reach`'s atlas reach
    /// when it streams); `technique` names errors. With `reach` (a
    /// streaming world), the splat data has room for `max_tiles` tiles, so
    /// [`Self::set_tile`] can follow residency. DXT tileset textures go to
    /// the GPU as `upload` says.
    pub fn new(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        reach: Option<(AtlasReach, usize)>,
        feed: Feed,
        technique: &'static str,
        upload: sward_scenes::formats::TextureUpload,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let splat = match reach {
            Some((_, max_tiles)) => {
                let max_tiles = max_tiles.max(world.tile_count());
                let pool = atlas.layout().capacity() as usize;
                let mut splat = SplatGpu::streaming(gpu, world, max_tiles, pool, upload)?;
                for t in world.tiles() {
                    let slots = tile_slots(atlas, t);
                    if splat.set_tile(gpu, world, t.coord, &slots)?.is_none() {
                        return Err(PassError::InvalidInput {
                            technique,
                            what: format!("tile ({}, {})", t.coord.x, t.coord.y),
                            reason: format!("no room in the splat pools for {max_tiles} tiles"),
                        });
                    }
                }
                splat
            }
            None => SplatGpu::new(gpu, world, upload)?,
        };
        let template = build_template();
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.template_vertices"),
            contents: bytemuck::cast_slice(&template.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.template_indices"),
            contents: bytemuck::cast_slice(&template.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.uniforms"),
            size: TerrainUniforms::size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::TERRAIN_ATLAS, technique)?;
        let culled = matches!(feed, Feed::Culled);
        let vs = wgpu::ShaderStages::VERTEX;
        // Terrain uniforms (0), then the splat's textures and sampler.
        let mut layout_entries = vec![bind::entry(
            0,
            vs | wgpu::ShaderStages::FRAGMENT,
            Slot::Uniform,
        )];
        layout_entries.extend(SplatGpu::layout_entries());
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniforms.as_entire_binding(),
        }];
        entries.extend(splat.bind_entries());
        // Atlas records (6, only gpu-cull reads them in the vertex stage),
        // heights (7), normals (8); the chunk index (9) is not needed here.
        let skip = usize::from(!culled);
        layout_entries.extend(
            HeightAtlas::layout_entries(BINDING_ATLAS_CHUNKS, vs)
                .into_iter()
                .take(3)
                .skip(skip),
        );
        entries.extend(
            atlas
                .bind_entries(BINDING_ATLAS_CHUNKS)
                .into_iter()
                .take(3)
                .skip(skip),
        );
        let bind_layout = bind::layout(device, technique, &layout_entries);
        let bind_group = bind::group_of(device, technique, &bind_layout, &entries);
        let layout = bind::pipeline_layout(device, technique, &[&bind_layout]);
        let gpu_bytes =
            splat.gpu_memory_bytes() + vertices.size() + indices.size() + uniforms.size();
        let (entry_point, instance_layout) = match feed {
            Feed::Instanced(l) => ("vs_instanced", Some(l)),
            Feed::Culled => ("vs_culled", None),
        };
        let mut this = AtlasDraw {
            splat,
            vertices,
            indices,
            uniforms,
            bind_group,
            layout,
            shader,
            entry_point,
            instance_layout,
            pipelines: HashMap::new(),
            gpu_bytes,
        };
        for samples in [1, 4] {
            this.ensure_pipeline(device, samples);
        }
        Ok(this)
    }

    /// Streaming builds: makes tile `tile` of `world` resident in the
    /// splat data at the slots its MCNKs hold in `atlas` (which already
    /// follows `world`), replacing it if it was, or evicts it when `world`
    /// no longer has it; `splat` is its alpha block prepared on a worker.
    /// Returns the bytes written, or `Ok(None)` when this was built whole
    /// or has no room (rebuild then).
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        tile: TileCoord,
        splat: Option<SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        if !self.splat.is_streaming() {
            return Ok(None);
        }
        let slots = world
            .tile(tile)
            .map_or_else(Vec::new, |t| tile_slots(atlas, t));
        self.splat
            .set_tile_prepared(gpu, world, tile, &slots, splat)
    }

    /// The splat's report facts ([`SplatGpu::facts`]).
    pub fn splat_facts(&self) -> Vec<(String, f64)> {
        self.splat.facts()
    }

    /// The per-tile preparation of a tier drawn through this (the tile's
    /// splat alpha block, [`super::TerrainTile::splat_preparer`]), when the
    /// atlas and splat data stream (tiles can change); `None` otherwise.
    pub fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.splat
            .is_streaming()
            .then(super::TerrainTile::splat_preparer)
    }

    /// Creates the pipeline for `samples` if missing (same states as
    /// `static-chunks`: [`StaticChunks::pipeline_state`]).
    pub fn ensure_pipeline(&mut self, device: &wgpu::Device, samples: u32) {
        if self.pipelines.contains_key(&samples) {
            return;
        }
        let template = wgpu::VertexBufferLayout {
            array_stride: 4,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &TEMPLATE_ATTRIBUTES,
        };
        let mut buffers = vec![template];
        buffers.extend(self.instance_layout.clone());
        let pipeline = StaticChunks::build_pipeline(
            device,
            super::PASS_DRAW,
            &self.layout,
            &self.shader,
            (self.entry_point, &buffers),
            samples,
            &self.splat.shader_constants(),
        );
        self.pipelines.insert(samples, pipeline);
    }

    /// The pipeline for `samples`, if built.
    pub fn pipeline(&self, samples: u32) -> Option<&wgpu::RenderPipeline> {
        self.pipelines.get(&samples)
    }

    /// Binds pipeline, bind group, template vertices and indices.
    pub fn bind<'p>(
        &'p self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &'p wgpu::RenderPipeline,
        group: &wgpu::BindGroup,
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint16);
    }

    /// Imports the uniforms (`terrain.uniforms`, written each frame) and the
    /// draw's group 0 over them into `graph`; the group comes back from the
    /// pass context for [`Self::bind`].
    pub fn import(&self, graph: &mut RenderGraph<'_>) -> (BufferId, BindGroupId) {
        let uniforms = graph.import_buffer("terrain.uniforms", &self.uniforms);
        let group =
            graph.import_bind_group("terrain.draw.group", &self.bind_group, &[uniforms.into()]);
        (uniforms, group)
    }

    /// Bytes of GPU memory (splat, template, uniforms; the atlas is the
    /// renderer's).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    /// Indices of one template instance.
    pub const INDEX_COUNT: u32 = TEMPLATE_INDICES;
}
