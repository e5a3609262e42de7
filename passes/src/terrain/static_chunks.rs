//! Terrain `static-chunks`, the baseline: one immutable expanded vertex buffer
//! per resident MCNK, the splat data (alpha atlas, layer texture array), a
//! per-MCNK record buffer, and the `terrain.draw` pass that culls MCNKs on the
//! CPU (inside the pass closure, so the bench sees the cost) and issues one
//! draw per visible MCNK.
//!
//! For a streaming world ([`StaticChunks::streaming`]) every resident ADT
//! tile owns a block of 256 MCNK slots out of a pool sized for the most
//! tiles resident at once, one vertex buffer (each MCNK draws its range of
//! it), its culling group and its
//! splat records and alpha block ([`SplatGpu::set_tile`]).
//! [`StaticChunks::set_tile`] builds or drops one tile's share in place (the
//! residency hook); nothing else is touched. Draws follow the culler's tile
//! order and MCNK order inside a tile, the same as a fresh build.

use std::collections::{BTreeSet, HashMap};
use sward_engine::bind::{self, Slot};
use sward_scenes::formats::TextureUpload;

use sward_engine::graph::RenderGraph;
use sward_engine::{GpuContext, COLOR_FORMAT, DEPTH_COMPARE, DEPTH_FORMAT};
use sward_scenes::world::coords::{ChunkCoord, TileCoord};
use sward_scenes::{AdtTile, World};
use wgpu::util::DeviceExt;

use super::cull::ChunkCuller;
use super::gpu::TerrainUniforms;
use super::mesh::{expand_mcnk, Aabb, TerrainVertex, VERTEX_ATTRIBUTES};
use super::splat_gpu::{SplatGpu, SplatTile};
use super::{PASS_DRAW, TECHNIQUE};
use crate::error::PassError;
use crate::frame::Frame;

/// One resident MCNK on the GPU: `vertex_count` vertices from
/// `first_vertex` of `vertices` (its own buffer, or its tile's in a
/// streaming build).
struct GpuChunk {
    coord: ChunkCoord,
    vertices: wgpu::Buffer,
    first_vertex: u32,
    vertex_count: u32,
}

/// MCNK slots per tile block of a streaming build.
const TILE_SLOTS: u32 = 256;

/// What a resident tile holds in a streaming build.
struct TileShare {
    /// Its block of [`TILE_SLOTS`] slots.
    block: u32,
    /// MCNKs (slots `block * 256..block * 256 + mcnks`).
    mcnks: u32,
    triangles: u64,
    vertex_bytes: u64,
}

/// The tile blocks of a streaming build.
struct TileBlocks {
    tiles: HashMap<TileCoord, TileShare>,
    /// Free blocks below `capacity`, lowest first.
    free: BTreeSet<u32>,
}

/// The `static-chunks` terrain technique (see the module docs).
pub struct StaticChunks {
    /// Per slot (`None`: free).
    chunks: Vec<Option<GpuChunk>>,
    /// Streaming builds only.
    blocks: Option<TileBlocks>,
    culler: ChunkCuller,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    pipelines: HashMap<u32, wgpu::RenderPipeline>,
    /// Alpha atlas, layer textures and splat records (bound in `bind_group`).
    splat: SplatGpu,
    gpu_bytes: u64,
    triangles: u64,
    /// Visible slots of the last frame (reused allocation).
    visible: Vec<u32>,
    /// Vertex buffers of dropped tiles, until the residency hook hands
    /// them to the composer to release off the render thread.
    parked: Vec<wgpu::Buffer>,
}

/// One streamed tile's share of a streaming `static-chunks` build, made on
/// a tile worker: its vertex buffer (created there with its data; each
/// MCNK draws a range of it), the ranges and bounds, and its splat alpha
/// block. Applying it then only takes a block of slots.
pub struct ChunksTile {
    vertices: wgpu::Buffer,
    /// Per MCNK: coordinate, first vertex, vertex count, bounds.
    meshes: Vec<(ChunkCoord, u32, u32, Aabb)>,
    triangles: u64,
    splat: SplatTile,
}

impl ChunksTile {
    /// Expands every MCNK of `t` (coordinate `tile`) into one vertex
    /// buffer created on `device`, and builds the alpha block.
    pub fn prepare(device: &wgpu::Device, tile: TileCoord, t: &AdtTile) -> Result<Self, PassError> {
        let mut meshes = Vec::with_capacity(t.mcnks.len());
        let mut all = Vec::new();
        for m in &t.mcnks {
            let mesh = expand_mcnk(m.chunk_coord(tile), m)?;
            meshes.push((
                mesh.chunk,
                all.len() as u32,
                mesh.vertices.len() as u32,
                mesh.bounds,
            ));
            all.extend_from_slice(&mesh.vertices);
        }
        let triangles = (all.len() / 3) as u64;
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.tile_vertices"),
            contents: bytemuck::cast_slice(&all),
            usage: wgpu::BufferUsages::VERTEX,
        });
        Ok(Self {
            vertices,
            meshes,
            triangles,
            splat: SplatTile::prepare(tile, t).staged(device),
        })
    }
}

impl StaticChunks {
    /// Uploads every resident MCNK of `world`: vertex buffers, alpha atlas,
    /// layer textures, per-MCNK records; builds the 1x and 4x MSAA pipelines.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        Self::with_upload(gpu, world, TextureUpload::Auto)
    }

    /// [`Self::new`] with DXT tileset textures going to the GPU as `upload`
    /// says.
    pub fn with_upload(
        gpu: &GpuContext,
        world: &World,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let splat = SplatGpu::new(gpu, world, upload)?;
        let device = &gpu.device;
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
                chunks.push(Some(GpuChunk {
                    coord,
                    vertices,
                    first_vertex: 0,
                    vertex_count: mesh.vertices.len() as u32,
                }));
            }
        }
        Self::assemble(
            gpu,
            splat,
            chunks,
            None,
            ChunkCuller::new(bounds, &tile_keys),
            gpu_bytes,
            triangles,
        )
    }

    /// Built for a streaming world: pools for `max_tiles` tiles at once
    /// (one block of 256 MCNK slots each), filled with `world`'s tiles;
    /// [`Self::set_tile`] then follows residency changes in place. DXT
    /// tileset textures go to the GPU as `upload` says.
    pub fn streaming(
        gpu: &GpuContext,
        world: &World,
        max_tiles: usize,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let max_tiles = max_tiles.max(world.tile_count()).max(1);
        let slots = max_tiles * TILE_SLOTS as usize;
        let splat = SplatGpu::streaming(gpu, world, max_tiles, slots, upload)?;
        let gpu_bytes = splat.gpu_memory_bytes();
        let blocks = TileBlocks {
            tiles: HashMap::new(),
            free: (0..max_tiles as u32).collect(),
        };
        let mut this = Self::assemble(
            gpu,
            splat,
            Vec::new(),
            Some(blocks),
            ChunkCuller::default(),
            gpu_bytes,
            0,
        )?;
        for tile in world.tiles() {
            if this.set_tile(gpu, world, tile.coord)?.is_none() {
                return Err(PassError::InvalidInput {
                    technique: TECHNIQUE,
                    what: format!("tile ({}, {})", tile.coord.x, tile.coord.y),
                    reason: format!("no room in pools for {max_tiles} tiles"),
                });
            }
        }
        // Staged writes of the tiles placed above: sent with the build.
        gpu.flush_copies();
        Ok(this)
    }

    /// Streaming builds: makes tile `tile` of `world` resident (replacing
    /// it if it was: vertex buffers, culling group, splat records and alpha
    /// block) or, when `world` no longer has it, drops all of that and frees
    /// its block. Returns the bytes uploaded, or `Ok(None)` when this was
    /// built whole or the pools have no room (unchanged then; rebuild).
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
    ) -> Result<Option<u64>, PassError> {
        self.set_tile_prepared(gpu, world, tile, None)
    }

    /// [`Self::set_tile`] with the tile's vertex buffer and alpha block
    /// prepared beforehand (`ChunksTile::prepare`, on a worker thread);
    /// `None` prepares them here.
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        prepared: Option<ChunksTile>,
    ) -> Result<Option<u64>, PassError> {
        let Some(blocks) = self.blocks.as_ref() else {
            return Ok(None);
        };
        let key = tile.index() as u32;
        let Some(t) = world.tile(tile) else {
            self.drop_tile(tile);
            self.splat.set_tile(gpu, world, tile, &[])?;
            return Ok(Some(0));
        };
        let held = blocks.tiles.get(&tile).map(|s| s.block);
        let Some(block) = held.or_else(|| blocks.free.first().copied()) else {
            return Ok(None);
        };
        if t.mcnks.len() > TILE_SLOTS as usize {
            return Ok(None);
        }
        let first = block * TILE_SLOTS;
        let slots: Vec<u32> = (first..first + t.mcnks.len() as u32).collect();
        let ChunksTile {
            vertices,
            meshes,
            triangles,
            splat,
        } = match prepared.filter(|p| p.meshes.len() == t.mcnks.len()) {
            Some(p) => p,
            None => ChunksTile::prepare(&gpu.device, tile, t)?,
        };
        let vertex_bytes = vertices.size();
        let built: Vec<(GpuChunk, Aabb)> = meshes
            .into_iter()
            .map(|(coord, first_vertex, vertex_count, bounds)| {
                (
                    GpuChunk {
                        coord,
                        vertices: vertices.clone(),
                        first_vertex,
                        vertex_count,
                    },
                    bounds,
                )
            })
            .collect();
        let Some(splat_bytes) =
            self.splat
                .set_tile_prepared(gpu, world, tile, &slots, Some(splat))?
        else {
            return Ok(None);
        };
        self.drop_tile(tile);
        let end = (first + TILE_SLOTS) as usize;
        if self.chunks.len() < end {
            self.chunks.resize_with(end, || None);
        }
        let mut members = Vec::with_capacity(built.len());
        for (&slot, (chunk, bounds)) in slots.iter().zip(built) {
            self.chunks[slot as usize] = Some(chunk);
            members.push((slot, bounds));
        }
        self.culler.set_group(key, members);
        if let Some(blocks) = self.blocks.as_mut() {
            blocks.free.remove(&block);
            blocks.tiles.insert(
                tile,
                TileShare {
                    block,
                    mcnks: slots.len() as u32,
                    triangles,
                    vertex_bytes,
                },
            );
        }
        self.triangles += triangles;
        self.gpu_bytes += vertex_bytes;
        Ok(Some(vertex_bytes + splat_bytes))
    }

    /// Drops what tile `tile` holds (streaming builds) and frees its block.
    fn drop_tile(&mut self, tile: TileCoord) {
        let Some(blocks) = self.blocks.as_mut() else {
            return;
        };
        let Some(share) = blocks.tiles.remove(&tile) else {
            return;
        };
        blocks.free.insert(share.block);
        self.culler.remove_group(tile.index() as u32);
        let first = (share.block * TILE_SLOTS) as usize;
        self.parked.reserve(share.mcnks as usize);
        for c in &mut self.chunks[first..first + share.mcnks as usize] {
            if let Some(chunk) = c.take() {
                self.parked.push(chunk.vertices);
            }
        }
        self.triangles -= share.triangles;
        self.gpu_bytes -= share.vertex_bytes;
    }

    fn assemble(
        gpu: &GpuContext,
        splat: SplatGpu,
        chunks: Vec<Option<GpuChunk>>,
        blocks: Option<TileBlocks>,
        culler: ChunkCuller,
        mut gpu_bytes: u64,
        triangles: u64,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.uniforms"),
            size: TerrainUniforms::size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu_bytes += uniforms.size();

        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::TERRAIN_STATIC, TECHNIQUE)?;
        let bind_layout = bind_group_layout(device);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniforms.as_entire_binding(),
        }];
        entries.extend(splat.bind_entries());
        let bind_group = bind::group_of(device, "terrain.draw", &bind_layout, &entries);
        let layout = bind::pipeline_layout(device, "terrain.draw", &[&bind_layout]);
        let mut this = StaticChunks {
            chunks,
            blocks,
            culler,
            uniforms,
            bind_group,
            layout,
            shader,
            pipelines: HashMap::new(),
            splat,
            gpu_bytes,
            triangles,
            visible: Vec::new(),
            parked: Vec::new(),
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
        (vs_entry, buffers): (&str, &[wgpu::VertexBufferLayout<'_>]),
        samples: u32,
        constants: &[(&str, f64)],
    ) -> wgpu::RenderPipeline {
        let (primitive, depth, multisample) = Self::pipeline_state(samples);
        bind::render_pipeline(
            device,
            label,
            layout,
            shader,
            (vs_entry, buffers),
            Some("fs_main"),
            bind::Raster {
                primitive,
                depth_stencil: Some(depth),
                multisample,
                targets: &[Some(COLOR_FORMAT.into())],
                constants,
            },
        )
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
            (
                "vs_main",
                &[wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<TerrainVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &VERTEX_ATTRIBUTES,
                }],
            ),
            samples,
            &self.splat.shader_constants(),
        );
        self.pipelines.insert(samples, pipeline);
    }

    /// Adds `terrain.draw`: CPU frustum + distance culling of the MCNKs inside
    /// the pass closure, one draw per visible MCNK, uniforms written there too.
    pub fn record<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        let Frame { gpu, view, targets } = frame;
        self.pipeline_for(&gpu.device, view.sample_count);
        let view = *view;
        let (color_load, depth_load) = targets.load_ops(&view.settings);
        let this: &'a mut Self = self;
        let uniforms = graph.import_buffer("terrain.uniforms", &this.uniforms);
        let group =
            graph.import_bind_group("terrain.draw.group", &this.bind_group, &[uniforms.into()]);
        graph
            .add_render_pass(PASS_DRAW)
            .read(uniforms)
            .color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipeline) = this.pipelines.get(&ctx.sample_count) else {
                    log::error!("{PASS_DRAW}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                let bytes = TerrainUniforms::from_view(&view).to_bytes();
                ctx.queue.write_buffer(ctx.res.buffer(uniforms), 0, &bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                let mut visible = std::mem::take(&mut this.visible);
                this.culler.cull(
                    &view.frustum,
                    view.eye(),
                    view.settings.terrain_distance,
                    &mut visible,
                );
                ctx.pass.set_pipeline(pipeline);
                ctx.pass.set_bind_group(0, ctx.res.bind_group(group), &[]);
                for &slot in &visible {
                    let Some(chunk) = &this.chunks[slot as usize] else {
                        continue;
                    };
                    if chunk.vertex_count == 0 {
                        continue;
                    }
                    ctx.pass.set_vertex_buffer(0, chunk.vertices.slice(..));
                    let first = chunk.first_vertex;
                    ctx.pass
                        .draw(first..first + chunk.vertex_count, slot..slot + 1);
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
        self.chunks.iter().flatten().count()
    }

    /// Global coordinates of the MCNKs drawn in the last recorded frame.
    pub fn last_visible(&self) -> Vec<ChunkCoord> {
        self.visible
            .iter()
            .filter_map(|&s| self.chunks[s as usize].as_ref().map(|c| c.coord))
            .collect()
    }
}

/// Terrain uniforms (0), then the splat's textures and sampler.
fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vs_fs = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut entries = vec![bind::entry(0, vs_fs, Slot::Uniform)];
    entries.extend(SplatGpu::layout_entries());
    bind::layout(device, "terrain.draw", &entries)
}

/// Registry entry of terrain `static-chunks`, the baseline.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "static-chunks",
    summary: "baseline: one vertex buffer per MCNK, CPU frustum culling, one draw per visible MCNK",
    params: &[],
    requires: &[],
    fallback: None,
    build: |i, _| {
        Ok(Box::new(if i.scene.atlas_reach().is_some() {
            StaticChunks::streaming(
                i.gpu,
                i.scene.world,
                i.scene.max_resident_tiles,
                i.texture_upload,
            )?
        } else {
            StaticChunks::with_upload(i.gpu, i.scene.world, i.texture_upload)?
        }))
    },
};

impl super::tiled::TiledTerrain for StaticChunks {
    type Tile = ChunksTile;

    fn draw<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        self.record(frame, graph);
    }

    fn memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    fn triangles(&self) -> Option<u64> {
        Some(self.triangles)
    }

    fn report_facts(&self) -> std::collections::BTreeMap<String, f64> {
        self.splat.facts().into_iter().collect()
    }

    fn place_tile(
        &mut self,
        gpu: &GpuContext,
        _shared: &crate::technique::SharedResources,
        world: &World,
        tile: TileCoord,
        prepared: Option<ChunksTile>,
    ) -> Result<Option<u64>, PassError> {
        self.set_tile_prepared(gpu, world, tile, prepared)
    }

    fn tiles_placed(&mut self, prepared: &mut crate::technique::PreparedTiles) {
        prepared.discard(std::mem::take(&mut self.parked));
    }

    fn preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.blocks.as_ref()?;
        Some(std::sync::Arc::new(crate::technique::FnPreparer(
            |i: &crate::technique::PrepareInputs<'_>| {
                ChunksTile::prepare(i.device, i.coord, i.tile)
            },
        )))
    }
}
