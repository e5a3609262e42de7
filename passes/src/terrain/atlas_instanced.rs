//! Terrain `atlas-instanced`: the immutable 64-fan template drawn as one
//! instanced draw over the visible MCNKs, heights and normals fetched from
//! the exact atlas in the vertex stage, holes collapsed there, shading shared
//! with `static-chunks` (`terrain_shade`).
//!
//! Culling stays on the CPU (the same hierarchical [`ChunkCuller`] as the
//! baseline, over the atlas records' bounds). Each frame the pass writes one
//! 32-byte [`InstanceGpu`] per visible MCNK into a persistent instance buffer
//! (counted in `bytes_uploaded`) and issues a single `draw_indexed`. The
//! per-instance record carries the MCNK itself (slot, coordinate, tile, base
//! Z, holes) as vertex attributes, so this tier needs no storage buffers in
//! the vertex stage (its only device requirement is R32Float textures).
//!
//! For a streaming world the atlas and splat data are sized for the most
//! tiles resident at once ([`AtlasInstanced::with_reach`]) and
//! [`AtlasInstanced::set_tile`] updates one tile in place: its atlas slots
//! and splat records, its CPU instance records and its culling group. Only
//! live slots belong to a culling group, so free slots are never drawn; the
//! instance buffer holds the whole capacity, so it never grows.

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::formats::TextureUpload;
use sward_scenes::world::coords::{ChunkCoord, TileCoord};
use sward_scenes::World;

use super::atlas_draw::{AtlasDraw, Feed};
use super::cull::ChunkCuller;
use super::gpu::TerrainUniforms;
use super::mesh::Aabb;
use super::template::TEMPLATE_TRIANGLES;
use super::PASS_DRAW;
use crate::atlas::{AtlasChunkGpu, AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::frame::Frame;

/// Technique name used in errors.
pub const TECHNIQUE: &str = "terrain.atlas-instanced";

/// Per-instance record of `vs_instanced` (vertex attributes 1..=3).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct InstanceGpu {
    /// Slot, global chunk x, global chunk y, holes (location 1).
    pub mcnk: [u32; 4],
    /// Atlas tile (location 2).
    pub tile: [u32; 2],
    /// MCNK base Z (location 3).
    pub base_z: f32,
    /// Padding to 32 bytes.
    pub _pad: u32,
}

impl InstanceGpu {
    /// The instance of atlas record `r` at `slot`.
    pub fn from_record(slot: u32, r: &AtlasChunkGpu) -> Self {
        InstanceGpu {
            mcnk: [slot, r.chunk[0], r.chunk[1], r.holes],
            tile: r.tile,
            base_z: r.base_z,
            _pad: 0,
        }
    }
}

const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![1 => Uint32x4, 2 => Uint32x2, 3 => Float32];

/// The `atlas-instanced` terrain technique (see the module docs).
pub struct AtlasInstanced {
    draw: AtlasDraw,
    culler: ChunkCuller,
    /// Instance record of every slot (the per-frame list copies from it).
    all: Vec<InstanceGpu>,
    instances: wgpu::Buffer,
    /// Visible slots and their records of the last frame (reused allocations).
    visible: Vec<u32>,
    staged: Vec<InstanceGpu>,
}

/// The box of an atlas record.
pub fn record_bounds(r: &AtlasChunkGpu) -> Aabb {
    Aabb {
        min: r.bounds_min.into(),
        max: r.bounds_max.into(),
    }
}

impl AtlasInstanced {
    /// Builds the splat data, template and the instance buffer for every
    /// resident MCNK of `world`, over `atlas` (built for `world`).
    pub fn new(gpu: &GpuContext, world: &World, atlas: &HeightAtlas) -> Result<Self, PassError> {
        Self::with_reach(gpu, world, atlas, None, TextureUpload::Auto)
    }

    /// Like [`Self::new`]; with `reach` (a streaming world: the atlas reach
    /// and the most tiles resident at once; `atlas` built with it) the
    /// splat data and instance buffer have room for every tile that may
    /// become resident, and [`Self::set_tile`] follows residency in place.
    /// DXT tileset textures go to the GPU as `upload` says.
    pub fn with_reach(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        reach: Option<(AtlasReach, usize)>,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let feed = Feed::Instanced(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<InstanceGpu>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        });
        let draw = AtlasDraw::new(gpu, world, atlas, reach, feed, TECHNIQUE, upload)?;
        let capacity = if reach.is_some() {
            atlas.layout().capacity() as usize
        } else {
            atlas.slot_count()
        };
        let instances = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.instances"),
            size: (capacity.max(1) * std::mem::size_of::<InstanceGpu>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut this = AtlasInstanced {
            draw,
            culler: ChunkCuller::default(),
            all: Vec::new(),
            instances,
            visible: Vec::new(),
            staged: Vec::new(),
        };
        for t in world.tiles() {
            this.follow_tile(world, atlas, t.coord);
        }
        Ok(this)
    }

    /// Streaming builds: makes tile `tile` of `world` resident (replacing
    /// it if it was) or evicts it when `world` no longer has it, after
    /// `atlas` did (its owner updates it first); `splat` is the tile's
    /// alpha block prepared on a worker. Returns the bytes written, or
    /// `Ok(None)` when this was built whole or has no room.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        tile: TileCoord,
        splat: Option<super::splat_gpu::SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let Some(bytes) = self.draw.set_tile(gpu, world, atlas, tile, splat)? else {
            return Ok(None);
        };
        self.follow_tile(world, atlas, tile);
        Ok(Some(bytes))
    }

    /// Brings the CPU instance records and the culling group of `tile` in
    /// line with `atlas` (which already holds `world`'s state of it).
    fn follow_tile(&mut self, world: &World, atlas: &HeightAtlas, tile: TileCoord) {
        let key = tile.index() as u32;
        for s in self.culler.remove_group(key) {
            self.all[s as usize] = InstanceGpu::from_record(s, &AtlasChunkGpu::EMPTY);
        }
        let Some(t) = world.tile(tile) else {
            return;
        };
        let records = atlas.records();
        self.all.resize(
            records.len(),
            InstanceGpu::from_record(0, &AtlasChunkGpu::EMPTY),
        );
        let mut members = Vec::with_capacity(t.mcnks.len());
        let held = atlas.tile_slots(tile);
        for m in &t.mcnks {
            if let Some(s) = held.of(m.chunk_coord(tile)) {
                let r = &records[s as usize];
                self.all[s as usize] = InstanceGpu::from_record(s, r);
                members.push((s, record_bounds(r)));
            }
        }
        self.culler.set_group(key, members);
    }

    /// Adds `terrain.draw`: CPU cull, upload of the visible instance records,
    /// one instanced indexed draw of the template.
    pub fn record<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        let Frame { gpu, view, targets } = frame;
        self.draw.ensure_pipeline(&gpu.device, view.sample_count);
        let view = *view;
        let (color_load, depth_load) = targets.load_ops(&view.settings);
        let this: &'a mut Self = self;
        let (uniforms, group) = this.draw.import(graph);
        let instances = graph.import_buffer("terrain.instances", &this.instances);
        graph
            .add_render_pass(PASS_DRAW)
            .read(uniforms)
            .read(instances)
            .color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipeline) = this.draw.pipeline(ctx.sample_count) else {
                    log::error!("{PASS_DRAW}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                let bytes = TerrainUniforms::from_view(&view).to_bytes();
                ctx.queue.write_buffer(ctx.res.buffer(uniforms), 0, &bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                this.culler.cull(
                    &view.frustum,
                    view.eye(),
                    view.settings.terrain_distance,
                    &mut this.visible,
                );
                this.staged.clear();
                this.staged
                    .extend(this.visible.iter().map(|&s| this.all[s as usize]));
                let n = this.staged.len() as u32;
                if n == 0 {
                    return;
                }
                let instance_bytes: &[u8] = bytemuck::cast_slice(&this.staged);
                let instances = ctx.res.buffer(instances);
                ctx.queue.write_buffer(instances, 0, instance_bytes);
                ctx.counters.bytes_uploaded += instance_bytes.len() as u64;
                this.draw
                    .bind(&mut ctx.pass, pipeline, ctx.res.bind_group(group));
                ctx.pass
                    .set_vertex_buffer(1, instances.slice(..u64::from(n) * 32));
                ctx.pass.draw_indexed(0..AtlasDraw::INDEX_COUNT, 0, 0..n);
                ctx.counters.draw_calls += 1;
                ctx.counters.instances_submitted += u64::from(n);
                ctx.counters.instances_drawn += u64::from(n);
                ctx.counters.triangles += u64::from(n) * u64::from(TEMPLATE_TRIANGLES);
            });
    }

    /// Bytes of GPU memory (splat data, template, uniforms, instance
    /// buffer; the atlas is its owner's).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.draw.gpu_memory_bytes() + self.instances.size()
    }

    /// Global coordinates of the MCNKs drawn in the last recorded frame
    /// (their records in `atlas`, the one this was built on).
    pub fn last_visible(&self, atlas: &HeightAtlas) -> Vec<ChunkCoord> {
        let records = atlas.records();
        self.visible
            .iter()
            .map(|&s| records[s as usize].coord())
            .collect()
    }
}

/// Registry entry of terrain `atlas-instanced`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "atlas-instanced",
    summary: "one 64-cell diamond-fan template, heights and normals from the exact R32Float height atlas, holes honoured",
    params: &[],
    requires: &[sward_engine::Capability::R32FloatTexture],
    fallback: Some("static-chunks"),
    build: |i, _| {
        let reach = i.scene.atlas_reach().map(|r| (r, i.scene.max_resident_tiles));
        let atlas = i.shared.height_atlas_for(i.gpu, &i.scene)?;
        Ok(Box::new(AtlasInstanced::with_reach(
            i.gpu,
            i.scene.world,
            atlas,
            reach,
            i.texture_upload,
        )?))
    },
};

impl super::tiled::TiledTerrain for AtlasInstanced {
    type Tile = super::splat_gpu::SplatTile;

    fn draw<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        self.record(frame, graph);
    }

    fn memory_bytes(&self) -> u64 {
        self.gpu_memory_bytes()
    }

    fn report_facts(&self) -> std::collections::BTreeMap<String, f64> {
        self.draw.splat_facts().into_iter().collect()
    }

    fn place_tile(
        &mut self,
        gpu: &GpuContext,
        shared: &crate::technique::SharedResources,
        world: &World,
        tile: TileCoord,
        prepared: Option<super::splat_gpu::SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let atlas = shared.bound_height_atlas(TECHNIQUE)?;
        self.set_tile(gpu, world, atlas, tile, prepared)
    }

    fn binds_height_atlas(&self) -> bool {
        true
    }

    fn preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.draw.tile_preparer()
    }
}
