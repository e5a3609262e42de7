//! The [`Clipmap`] terrain technique: its state, its constructors and the
//! settings a tier's parameters give. The technique owns the static meshes,
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

use glam::IVec2;
use sward_engine::bind;
use sward_engine::GpuContext;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::bake::PendingBake;
use super::cull::SECOND;
use super::gpu::ClipmapUniforms;
use super::layout::{ClipmapConfig, LevelPlacement, DEFAULT_BLOCK};
use super::levels::LevelFrame;
use super::lod;
use super::mesh::ClipmapMeshes;
use super::report::ClipmapStats;
use super::residency::splat_tile;
use super::resources::{bind_group_layout, chunk_index_texture, CullState, FillState, LevelGpu};
use super::{PASS, TECHNIQUE};
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::terrain::splat_gpu::{texture_bytes, SplatGpu};

/// The `occlusion` parameter of `clipmap` ([`super::cull`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occlusion {
    /// No occlusion test.
    Off,
    /// Two-phase Hi-Z occlusion every frame.
    On,
    /// As `On` while the test hides at least [`AUTO_MIN_HIDDEN`] of the
    /// parts it tests ([`crate::occlusion_gate`]).
    Auto,
}

/// Share of the parts in view `occlusion=auto` must hide to keep testing.
/// Unlike grass (a look-up per clump), the clipmap's test has a fixed cost,
/// the depth pyramid and a second cull and draw pass: on lavapipe 8-12 ms of
/// a 60-95 ms terrain pass at 960 x 540 with 4x MSAA, so it pays only when it
/// removes more than about a fifth of the parts.
pub const AUTO_MIN_HIDDEN: f64 = 0.2;

/// The `clipmap` terrain technique (see the module docs).
pub struct Clipmap {
    pub(super) block: u32,
    /// View distance from the `distance` parameter (`None`: the frame's
    /// `RenderSettings::terrain_distance`).
    pub(super) distance: Option<f32>,
    pub(super) meshes: ClipmapMeshes,
    pub(super) vertices: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) instances: wgpu::Buffer,
    pub(super) uniforms: wgpu::Buffer,
    pub(super) chunk_texture: wgpu::Texture,
    pub(super) chunk_index: wgpu::TextureView,
    pub(super) chunk_origin: IVec2,
    pub(super) chunk_count: IVec2,
    pub(super) splat: SplatGpu,
    pub(super) bind_layout: wgpu::BindGroupLayout,
    pub(super) layout: wgpu::PipelineLayout,
    pub(super) shader: wgpu::ShaderModule,
    /// Per sample count, one pipeline per vertex entry point
    /// ([`VERTEX_ENTRIES`]).
    pub(super) pipelines: HashMap<u32, Vec<wgpu::RenderPipeline>>,
    pub(super) atlas: HeightAtlas,
    /// The streaming reach the atlas, splat slots and chunk index were
    /// built for (`None`: the resident world alone; changes rebuild).
    pub(super) reach: Option<AtlasReach>,
    pub(super) fill: FillState,
    pub(super) cull: CullState,
    pub(super) level_gpu: Option<LevelGpu>,
    pub(super) fixed_gpu_bytes: u64,
    pub(super) stats: ClipmapStats,
    /// Screen-space error bound (pixels) under which a ring block is drawn
    /// at half resolution; 0 never decimates.
    pub(super) pixel_error: f64,
    /// Height error bound (world units) over which a tile of a coarse level
    /// is drawn on the finer lattice ([`super::refine`]); 0: no refinement.
    pub(super) refine_bound: f64,
    /// A refinement bake running on a worker thread after the resident
    /// world changed ([`Self::start_rebake`]).
    pub(super) pending_bake: Option<PendingBake>,
    /// The resident world of a change that came while a bake ran (a list
    /// of shared tiles): baked when that one lands, so every bake lands
    /// even while tiles keep streaming in.
    pub(super) queued_world: Option<World>,
    /// Re-bakes put in place since the run began, and the longest one's
    /// worker time (ms).
    pub(super) rebakes: u64,
    pub(super) rebake_ms_max: f64,
    /// Per level: the residuals of its window (updated when it moved;
    /// `None` for levels too fine to decimate).
    pub(super) lod: Vec<Option<lod::LevelErrors>>,
    /// Per level, its pieces but the trims (relative to its corner), for
    /// the configuration `frames_cfg`.
    pub(super) frames: Vec<LevelFrame>,
    pub(super) frames_cfg: Option<ClipmapConfig>,
    /// Where the last recorded frame placed the levels.
    pub(super) places: Vec<LevelPlacement>,
    /// How many times a level was re-listed (tests).
    pub(super) listing_version: u64,
    /// Tests: which ring blocks (level, offset) are drawn at half resolution,
    /// instead of the error criterion.
    #[cfg(test)]
    pub(super) half_override: Option<fn(u32, [i64; 2]) -> bool>,
}

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
        Self::build(gpu, world, block, distance, reach, Occlusion::Off)
    }

    /// As [`Self::with_reach`], with two-phase Hi-Z occlusion culling of
    /// the parts as `occlusion` says ([`super::cull`]).
    pub fn build(
        gpu: &GpuContext,
        world: &World,
        block: u32,
        distance: Option<f32>,
        reach: Option<AtlasReach>,
        occlusion: Occlusion,
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
                let mut splat = SplatGpu::streaming(gpu, r.capacity.div_ceil(256), slots)?;
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
            None => SplatGpu::new(gpu, world)?,
        };
        let shader =
            sward_engine::shader::create_shader(device, sward_wgsl::modules::TERRAIN_CLIPMAP)
                .map_err(|source| PassError::Shader {
                    technique: TECHNIQUE,
                    source,
                })?;
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
