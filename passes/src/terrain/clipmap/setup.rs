//! The [`Clipmap`] terrain technique's constructors and the settings a
//! tier's parameters give (its state is in `state.rs`). The technique owns the static meshes,
//! the level texture array and its CPU mirror, the chunk index texture
//! (resident MCNK slot and hole mask per MCNK), the shared splat resources,
//! and records the `terrain.clipmap.compute` pass (fill, then cull) and the
//! `terrain.clipmap` draw pass.
//! Per frame it places the levels around the camera and decides which ring
//! blocks are drawn at half resolution (re-listing a level's pieces only
//! when that changes); inside the pass closures it dispatches the compute
//! fill of the strips that entered each level's window (`fill.rs`,
//! `clipmap_fill.wgsl`), culls every piece on the GPU at its level's corner
//! (the cull dispatch: frustum and fog distance, `cull.rs`,
//! `clipmap_cull.wgsl`) and draws the survivors with one multi-draw-indirect
//! of the shared meshes.
//!
//! Streaming (built with the scene's atlas reach), nothing it holds depends
//! on the resident set beyond per-tile state: the height atlas, the splat
//! records (at the same slots; alpha tiles in per-tile blocks placed by the
//! tile coordinate, so sampling is bit-identical whatever the history) and
//! the chunk index have room for every tile the source has, the far grid is
//! baked from the far source alone over that reach, and the cull's height
//! range is folded from per-tile ranges. A tile made resident or evicted
//! ([`Clipmap::apply_residency`]) updates its atlas slots, splat records and
//! alpha tiles, its 16x16 chunk-index texels and its height range, and
//! queues its cell rectangle: the next frame's compute fill re-fills, in
//! every level, the kept texels whose prefilter reads it (they came from the
//! far grid, or from the atlas), alongside the strips that entered a moving
//! window. The levels then hold exactly what a fresh build fills.
//!
//! The rest of the technique is split over sibling modules, each adding an
//! `impl Clipmap` block: `resources.rs` (GPU objects and how they are made),
//! `levels.rs` (where the levels stand and what each lists), `record.rs` and
//! `draw.rs` (the passes), `residency.rs` (tiles streaming in and out),
//! `bake.rs` (the refinement bake and its re-bake worker), `report.rs`
//! (stats, facts, readbacks) and `technique.rs` (the registry entry and the
//! `Technique` impl).

use std::collections::HashMap;

use sward_engine::bind;
use sward_engine::GpuContext;
use sward_scenes::formats::TextureUpload;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::cull::SECOND;
use super::gpu::ClipmapUniforms;
use super::layout::{ClipmapConfig, DEFAULT_BLOCK};
use super::lod;
use super::mesh::ClipmapMeshes;
use super::residency::splat_tile;
use super::resources::{bind_group_layout, chunk_index_texture};
use super::state::{Clipmap, ClipmapStats, CullState, FillState, Occlusion};
use super::{PASS, TECHNIQUE};
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::terrain::splat::texture_bytes;
use crate::terrain::splat_gpu::SplatGpu;

impl Clipmap {
    /// Builds the technique for the resident `world` with the default block size.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        Self::with_block(gpu, world, DEFAULT_BLOCK)
    }

    /// As [`Self::new`] with block size `block` (quads, rounded up to even, >= 8).
    pub fn with_block(gpu: &GpuContext, world: &World, block: u32) -> Result<Self, PassError> {
        Self::with_options(gpu, world, block, None)
    }

    /// As [`Self::with_block`] with the levels sized for `distance` world
    /// units instead of the frame's `RenderSettings::terrain_distance`
    /// (`None`: follow the frame). `distance` must be finite and positive.
    pub fn with_options(
        gpu: &GpuContext,
        world: &World,
        block: u32,
        distance: Option<f32>,
    ) -> Result<Self, PassError> {
        Self::with_reach(gpu, world, block, distance, None)
    }

    /// As [`Self::with_options`], streaming when `reach` is given
    /// (`SceneData::atlas_reach`): the height atlas, the splat slots and the
    /// chunk index have room for every tile the source has, the far grid
    /// comes from the far source alone over that reach, and tiles are then
    /// made resident or evicted in place ([`Self::apply_residency`]).
    pub fn with_reach(
        gpu: &GpuContext,
        world: &World,
        block: u32,
        distance: Option<f32>,
        reach: Option<AtlasReach>,
    ) -> Result<Self, PassError> {
        Self::build(
            gpu,
            world,
            block,
            distance,
            reach,
            Occlusion::Off,
            TextureUpload::Auto,
        )
    }

    /// As [`Self::with_reach`], with two-phase Hi-Z occlusion culling of
    /// the parts as `occlusion` says ([`super::cull`]), DXT tileset
    /// textures going to the GPU as `upload` says.
    pub fn build(
        gpu: &GpuContext,
        world: &World,
        block: u32,
        distance: Option<f32>,
        reach: Option<AtlasReach>,
        occlusion: Occlusion,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        if let Some(d) = distance {
            if !(d.is_finite() && d > 0.0) {
                return Err(PassError::InvalidParams {
                    technique: TECHNIQUE,
                    reason: format!("view distance {d}: must be a positive number of world units"),
                });
            }
        }
        let device = &gpu.device;
        let block = ClipmapConfig::for_distance(block, 0.0).block;
        let meshes = ClipmapMeshes::new(block);
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.clipmap.vertices"),
            contents: bytemuck::cast_slice(&meshes.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.clipmap.indices"),
            contents: bytemuck::cast_slice(&meshes.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let instances = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.instances"),
            size: u64::from(SECOND) * if occlusion == Occlusion::Off { 1 } else { 2 } * 16,
            usage: wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.uniforms"),
            size: ClipmapUniforms::size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let atlas = HeightAtlas::with_reach(gpu, world, reach)?;
        // Streaming only when the atlas really reaches that far.
        let reach = reach.filter(|r| r.window == atlas.window());
        let (chunk_texture, chunk_origin, chunk_count) = chunk_index_texture(gpu, world, &atlas)?;
        let splat = match reach {
            Some(r) => {
                let slots = atlas.layout().capacity() as usize;
                let mut splat =
                    SplatGpu::streaming(gpu, world, r.capacity.div_ceil(256), slots, upload)?;
                for tile in world.tiles() {
                    if splat_tile(&mut splat, gpu, world, &atlas, tile.coord, None)?.is_none() {
                        return Err(PassError::InvalidInput {
                            technique: TECHNIQUE,
                            what: format!("ADT tile ({}, {})", tile.coord.x, tile.coord.y),
                            reason: "no room in the streaming splat resources".into(),
                        });
                    }
                }
                splat
            }
            None => SplatGpu::new(gpu, world, upload)?,
        };
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::TERRAIN_CLIPMAP, TECHNIQUE)?;
        let bind_layout = bind_group_layout(device);
        let layout = bind::pipeline_layout(device, PASS, &[&bind_layout]);
        let fill = FillState::new(device)?;
        let multi = gpu
            .caps
            .has(sward_engine::Capability::IndirectFirstInstance);
        let cull = CullState::new(device, block, &meshes, &instances, multi, occlusion)?;
        let fixed_gpu_bytes = atlas.gpu_memory_bytes()
            + fill.params.size()
            + fill.jobs.size()
            + cull.uniforms.size()
            + cull.pieces.size()
            + cull.args.size()
            + cull.rejected.size()
            + vertices.size()
            + indices.size()
            + instances.size()
            + uniforms.size()
            + texture_bytes([chunk_count.x as u32, chunk_count.y as u32], 1, 1, 8)
            + splat.gpu_memory_bytes();
        let mut this = Clipmap {
            block,
            distance,
            meshes,
            vertices,
            indices,
            instances,
            uniforms,
            chunk_index: chunk_texture.create_view(&Default::default()),
            chunk_texture,
            chunk_origin,
            chunk_count,
            splat,
            bind_layout,
            layout,
            shader,
            pipelines: HashMap::new(),
            atlas,
            reach,
            fill,
            cull,
            level_gpu: None,
            fixed_gpu_bytes,
            stats: ClipmapStats::default(),
            pixel_error: lod::DEFAULT_PIXEL_ERROR,
            refine_bound: 0.0,
            pending_bake: None,
            queued_world: None,
            rebakes: 0,
            rebake_ms_max: 0.0,
            lod: Vec::new(),
            frames: Vec::new(),
            frames_cfg: None,
            places: Vec::new(),
            listing_version: 0,
            #[cfg(test)]
            half_override: None,
        };
        for samples in [1, 4] {
            this.pipeline_for(device, samples);
        }
        Ok(this)
    }

    /// Sets the height error bound (world units) over which a tile of a
    /// coarse level is drawn on the finer lattice (0: never); the tiles are
    /// flagged again before the next frame.
    pub fn set_refine(&mut self, bound: f64) {
        let bound = bound.max(0.0);
        if bound != self.refine_bound {
            self.refine_bound = bound;
            self.level_gpu = None;
        }
    }

    /// Sets the screen-space error bound (pixels) under which a ring block
    /// is drawn at half resolution (0: every block at full resolution).
    pub fn set_pixel_error(&mut self, pixels: f64) {
        self.pixel_error = pixels.max(0.0);
    }

    /// The view distance set by the `distance` parameter, if any.
    pub fn view_distance(&self) -> Option<f32> {
        self.distance
    }

    /// Draws with one indirect draw per kind instead of the multi-draw, as
    /// on a device without a non-zero first instance in indirect args
    /// (tests compare the two paths on one device).
    #[cfg(test)]
    pub(crate) fn use_single_draws(&mut self) {
        self.cull.multi = false;
        for a in &mut self.cull.reset {
            a.first_instance = 0;
        }
    }
}
