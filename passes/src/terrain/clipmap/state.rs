//! The clipmap's state: the [`Clipmap`] struct and the data it holds (per
//! level GPU objects, the cull and fill state, the level listings, a running
//! refinement bake, the statistics), with the limits they are sized by.
//! Every other module of the technique adds behaviour to these in an `impl`
//! block of its own; this one depends on none of them.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use glam::IVec2;
use sward_engine::lagged::LaggedReadback;
use sward_scenes::World;

use super::cull::{DrawArgs, KINDS};
use super::fill::{FarGrid, FillParams};
use super::layout::{ClipmapConfig, LevelPlacement, Piece, MAX_LEVELS};
use super::lod;
use super::mesh::ClipmapMeshes;
use super::refine::{RefineCounts, RefineGpu, RefineMask};
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::terrain::splat_gpu::SplatGpu;

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

/// The draw's vertex entry points, one pipeline each
/// ([`PieceKind::vertex_entry`]).
pub(super) const VERTEX_ENTRIES: [&str; 3] = ["vs_main", "vs_seam", "vs_refined"];

/// Value of the chunk index texture where no MCNK is resident.
pub(super) const NO_CHUNK: u32 = u32::MAX;

/// Pending re-fill regions (changed tiles) kept apart before they are
/// merged into their bounding rectangle.
pub(super) const MAX_REGIONS: usize = 16;

/// Fill jobs one frame may dispatch: two moving strips and one job per
/// pending region for every level.
pub(super) const MAX_JOBS: usize = MAX_LEVELS as usize * (2 + MAX_REGIONS);

/// Level texture array, the far grid, and the bind groups that reference them.
pub(super) struct LevelGpu {
    pub(super) cfg: ClipmapConfig,
    pub(super) texture: wgpu::Texture,
    /// `texture` as a 2D array (every layer, the pool's included).
    pub(super) view: wgpu::TextureView,
    /// Refinement pool pages the texture has room for (array layers after
    /// the levels'), and fill jobs the jobs buffer has room for.
    pub(super) pool_pages: u32,
    pub(super) job_room: usize,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) fill_bind: wgpu::BindGroup,
    /// The fill's uniforms (rewritten with the refinement rectangles after
    /// a bake) and its far-grid texture.
    pub(super) fill_params: FillParams,
    pub(super) far_view: wgpu::TextureView,
    /// The far grid (also read by refinement bakes on a worker thread).
    pub(super) far: Arc<FarGrid>,
    pub(super) far_bytes: u64,
    /// The cull's height tiles ([`ZTiles`]).
    pub(super) ztiles: wgpu::Buffer,
    /// The cull's group 1: the level texels, the height tiles and the
    /// refinement index.
    pub(super) cull_bind: wgpu::BindGroup,
    /// Local refinement: which tiles of which level are drawn on the finer
    /// lattice ([`RefineMask`]), its GPU form and index texture.
    pub(super) refine: RefineMask,
    pub(super) refine_gpu: RefineGpu,
    pub(super) refine_index: wgpu::Texture,
    /// Tiles the bake flagged that the pool had no room for (drawn
    /// unrefined).
    pub(super) refine_dropped: usize,
    /// Flagged tiles one step of refinement does not bring within the
    /// bound ([`super::refine::RefineCounts::unmet`]).
    pub(super) refine_unmet: u64,
    /// CPU time of the last bake (ms).
    pub(super) refine_bake_ms: f64,
}

/// The GPU cull: pipeline, its buffers and the lagged readback of the
/// per-kind instance counts.
pub(super) struct CullState {
    pub(super) pipeline: wgpu::ComputePipeline,
    /// `ztiles_main`: the height tiles of the levels the fill changed.
    pub(super) ztiles_pipeline: wgpu::ComputePipeline,
    pub(super) bind: wgpu::BindGroup,
    /// Layout of group 1 (the level texels, the height tiles).
    pub(super) levels_layout: wgpu::BindGroupLayout,
    pub(super) uniforms: wgpu::Buffer,
    pub(super) pieces: wgpu::Buffer,
    /// [`ARGS`] entries: phase one's draws, phase two's, two counters.
    pub(super) args: wgpu::Buffer,
    /// What `args` is reset to every frame.
    pub(super) reset: Vec<DrawArgs>,
    /// The parts phase one rejected (occlusion; 16 bytes otherwise).
    pub(super) rejected: wgpu::Buffer,
    /// Two-phase Hi-Z occlusion (`occlusion=on`).
    pub(super) occlusion: Option<CullOcclusion>,
    /// One multi-draw-indirect (the device takes a non-zero first instance
    /// in indirect args); else one indirect draw per kind with the instance
    /// buffer bound at the kind's range and first instance 0.
    pub(super) multi: bool,
    pub(super) readback: Mutex<LaggedReadback>,
    pub(super) frame: u64,
    /// Instances per kind of a recent frame (both phases).
    pub(super) counts: Option<[u32; KINDS]>,
    /// Parts phase one rejected and parts phase two found hidden, of a
    /// recent frame (occlusion).
    pub(super) occluded: Option<[u32; 2]>,
    /// Every level's [`LevelFrame`] pieces as the shader reads them.
    pub(super) frame_pieces: Vec<[i32; 4]>,
    /// `frame_pieces` changed since it was last written to `pieces`.
    pub(super) frame_pieces_stale: AtomicBool,
}

/// Two-phase Hi-Z occlusion of the cull's parts ([`super::cull`]).
pub(super) struct CullOcclusion {
    pub(super) hiz: crate::hiz::HiZ,
    pub(super) hiz_layout: wgpu::BindGroupLayout,
    /// Group 2 over the pyramid (made again with it).
    pub(super) hiz_group: Option<wgpu::BindGroup>,
    /// Phase one against last frame's pyramid, and (`PREVIOUS` off) the
    /// first frame of a test run, which hides nothing.
    pub(super) phase_one: wgpu::ComputePipeline,
    pub(super) phase_one_fresh: wgpu::ComputePipeline,
    pub(super) phase_two: wgpu::ComputePipeline,
    /// Whether the pyramid holds last frame's depth.
    pub(super) previous: bool,
    /// `occlusion=auto`: runs the test only while it hides enough.
    pub(super) gate: Option<crate::occlusion_gate::OcclusionGate>,
}

/// The compute fill: pipeline, uniforms, job list and where each level's
/// window was last filled.
pub(super) struct FillState {
    pub(super) pipeline: wgpu::ComputePipeline,
    pub(super) bind_layout: wgpu::BindGroupLayout,
    pub(super) params: wgpu::Buffer,
    pub(super) jobs: wgpu::Buffer,
    pub(super) origins: Vec<Option<[i64; 2]>>,
    /// Cell rectangles (`[x0, y0, x1, y1]`, global grid cells) whose
    /// sources changed since the last frame (tiles made resident or
    /// evicted): the next frame re-fills the texels that read them.
    pub(super) regions: Vec<[i64; 4]>,
    /// Vertex rectangles `(level, lo, hi)` whose texels' refinement flags
    /// changed with a re-bake: re-filled by the next frame.
    pub(super) flag_rects: Vec<(u32, [i64; 2], [i64; 2])>,
    pub(super) filled: u64,
    /// The refinement pool must be (re)filled: after a bake, or after the
    /// resident world changed in place.
    pub(super) pool_pending: bool,
}

/// A level's pieces but its trims, relative to its min corner
/// ([`level_frame`]), for one choice of half-resolution ring blocks.
pub(super) struct LevelFrame {
    /// Bit `k`: the `k`-th ring block of [`ring_block_offsets`] is at half
    /// resolution.
    pub(super) half: u16,
    pub(super) pieces: Vec<Piece>,
    /// Pieces per mesh kind.
    pub(super) per_kind: [u32; KINDS],
}

/// A refinement bake running on a worker thread for level set `cfg`.
pub(super) struct PendingBake {
    pub(super) cfg: ClipmapConfig,
    pub(super) thread: std::thread::JoinHandle<BakedRefine>,
}

/// A refinement bake ([`bake_refine`]).
pub(super) struct BakedRefine {
    pub(super) mask: RefineMask,
    pub(super) gpu: RefineGpu,
    pub(super) counts: RefineCounts,
    /// Flagged tiles the pool had no room for.
    pub(super) dropped: usize,
    /// CPU time of the bake (ms).
    pub(super) ms: f64,
}

/// What the last recorded frame drew.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipmapStats {
    /// Levels in use.
    pub levels: u32,
    /// Pieces considered and drawn.
    pub pieces: usize,
    /// Instances that passed the GPU cull: pieces, a block counting once per
    /// sub-block drawn ([`super::cull::parts`]); read back a few frames late,
    /// every part listed until the first readback arrives.
    pub pieces_drawn: usize,
    /// Triangles drawn (same lag).
    pub triangles: u64,
    /// Texels the compute fill wrote this frame (level windows that moved).
    pub texels_filled: u64,
    /// Ring blocks listed at half resolution (screen-space error within the
    /// tier's `pixel_error`, [`super::lod`]).
    pub half_blocks: u32,
}
