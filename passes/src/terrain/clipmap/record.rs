//! What a frame records ([`Clipmap::record`]): the level placement and
//! listing, the lagged readback of the cull's counts, the occlusion gate,
//! then the `terrain.clipmap.compute` pass (the fill jobs of the strips that
//! entered a window, of changed tiles and of the refinement pool; the height
//! tiles; the cull), the draw ([`super::draw`]) and, with occlusion, the
//! Hi-Z pyramid, the second cull phase and its draw.

use std::sync::atomic::Ordering;

use sward_engine::graph::{BindGroupId, BufferId, ComputeCtx, RenderGraph, TextureId};
use sward_engine::lagged::add_copy_pass;
use sward_engine::GpuContext;
use sward_scenes::{TileSource, World};

use super::cull::{kind_index, piece_gpu, CullUniforms, HIDDEN, KINDS, REJECTED};
use super::draw::DrawParts;
use super::fill::{level_jobs, region_job, vertex_job, FillJob};
use super::gpu::{ClipmapParams, ClipmapUniforms};
use super::layout::{
    camera_level0, level_trims, place_levels, ClipmapConfig, LevelPlacement, Piece, PieceKind,
};
use super::mesh::ClipmapMeshes;
use super::state::{Clipmap, ClipmapStats, CullOcclusion, CullState, FillState, LevelGpu};
use super::{PASS_COMPUTE, PASS_CULL_READBACK, PASS_CULL_TWO};
use crate::frame::{Frame, FrameView, PassTargets};
use crate::terrain::gpu::TerrainUniforms;

/// Frames between two copies of the draw counts for the lagged readback.
const READBACK_EVERY: u64 = 8;

/// Horizontal distance beyond which a piece is culled: the fog end. Past it
/// every point of the piece is at least that far (horizontal distance is a
/// lower bound of the 3D distance the fog uses), so it would shade as the fog
/// colour, which is also the clear colour: culling it leaves the image as is.
fn cull_distance(view: &FrameView) -> f32 {
    view.settings.fog_range[1]
}

/// What one frame places and lists before anything is recorded.
struct FramePlan {
    cfg: ClipmapConfig,
    eye: glam::Vec3,
    /// The camera in level-0 lattice units.
    cam0: [f64; 2],
    places: Vec<LevelPlacement>,
    trims: Vec<Piece>,
    /// Per piece kind, what the frame lists (the counters until a
    /// readback arrives).
    listed_per_kind: [u64; KINDS],
}

/// The graph handles of one frame's clipmap resources.
#[derive(Clone, Copy)]
struct FrameIds {
    args: BufferId,
    instances: BufferId,
    levels: TextureId,
    jobs: BufferId,
    cull_uniforms: BufferId,
    pieces: BufferId,
    ztiles: BufferId,
    rejected: BufferId,
    draw_uniforms: BufferId,
    fill_group: BindGroupId,
    cull_group: BindGroupId,
    cull_levels: BindGroupId,
    draw_group: BindGroupId,
}

/// With the occlusion test on this frame: the occlusion state, its Hi-Z
/// pyramid and group 2 over it.
type Occlusion<'a> = Option<(&'a CullOcclusion, TextureId, BindGroupId)>;

impl Clipmap {
    /// Adds `terrain.clipmap.compute` (level placement, compute fill of the
    /// strips that entered a window, GPU piece cull), every 8th frame
    /// `terrain.clipmap.cull.readback`, and `terrain.clipmap` (one
    /// multi-draw-indirect of the shared meshes). `world` is the resident
    /// world the technique was built for; `far` answers heights beyond it
    /// (baked into the far grid when the level set changes).
    pub fn record<'a>(
        &'a mut self,
        frame: Frame<'a>,
        graph: &mut RenderGraph<'a>,
        world: &'a World,
        far: Option<&'a dyn TileSource>,
    ) {
        let Frame { gpu, view, targets } = frame;
        let plan = self.plan_frame(gpu, view, world, far);
        let view = *view;
        let Clipmap {
            meshes,
            vertices,
            indices,
            instances,
            uniforms,
            chunk_origin,
            chunk_count,
            pipelines,
            fill,
            cull,
            level_gpu,
            stats,
            ..
        } = self;
        let Some(level_gpu) = level_gpu.as_ref() else {
            return;
        };
        cull.frame += 1;
        let frame = cull.frame;
        let (copy_now, latest) = cull.poll_readback();
        let (test_now, previous) = cull.decide_occlusion(gpu, &view, latest);
        let cull: &'a CullState = cull;
        let (ids, occ) = import_frame(graph, fill, cull, level_gpu, instances, uniforms, test_now);
        let listed_per_kind = plan.listed_per_kind;
        let (cfg, cam0) = (plan.cfg, plan.cam0);
        record_compute(
            graph, ids, occ, &view, plan, fill, cull, level_gpu, previous,
        );
        let draws = DrawParts {
            args: ids.args,
            instances: ids.instances,
            levels: ids.levels,
            uniforms: ids.draw_uniforms,
            group: ids.draw_group,
            vertices,
            indices,
            pipelines,
            multi: cull.multi,
            refined: !level_gpu.refine.is_empty(),
        };
        let uniform_bytes =
            draw_uniform_bytes(&view, &cfg, cam0, level_gpu, *chunk_origin, *chunk_count);
        let meshes: &'a ClipmapMeshes = meshes;
        draws.record(
            graph,
            &view,
            targets,
            0,
            Some(uniform_bytes),
            move |counters| {
                count_draws(counters, stats, cull, meshes, &cfg, &listed_per_kind);
            },
        );
        if let Some(occ) = occ {
            record_phase_two(graph, ids, occ, &view, targets, &cfg, &listed_per_kind);
            let after = PassTargets {
                clear: false,
                ..targets
            };
            draws.record(graph, &view, after, 1, None, |_| {});
        }
        if copy_now {
            add_copy_pass(graph, PASS_CULL_READBACK, &cull.readback, ids.args, frame);
        }
    }

    /// The frame's level placement and listing: pipelines for the sample
    /// count, a finished re-bake put in place, the levels (re)built for
    /// the configuration, the level frames re-listed when they moved.
    fn plan_frame(
        &mut self,
        gpu: &GpuContext,
        view: &FrameView,
        world: &World,
        far: Option<&dyn TileSource>,
    ) -> FramePlan {
        self.pipeline_for(&gpu.device, view.sample_count);
        let cfg = self.config_for(view);
        // A finished re-bake first: the levels are built again (below) when
        // its pool does not fit.
        self.poll_rebake(gpu, false);
        self.ensure_levels(gpu, cfg, world, far);
        let eye = view.eye();
        let cam0 = camera_level0(f64::from(eye.x), f64::from(eye.y));
        let places = place_levels(&cfg, cam0);
        if self.update_frames(&cfg, &places, view) {
            self.cull.frame_pieces = self
                .frames
                .iter()
                .flat_map(|f| &f.pieces)
                .map(piece_gpu)
                .collect();
            self.cull.frame_pieces_stale.store(true, Ordering::Relaxed);
            self.listing_version += 1;
        }
        let (trims, listed_per_kind) = self.listed(&cfg, &places);
        self.places.clone_from(&places);
        FramePlan {
            cfg,
            eye,
            cam0,
            places,
            trims,
            listed_per_kind,
        }
    }
}

/// Imports the frame's buffers, textures and bind groups into `graph` (and,
/// with the occlusion test on, the Hi-Z pyramid and its group).
fn import_frame<'a>(
    graph: &mut RenderGraph<'a>,
    fill: &FillState,
    cull: &'a CullState,
    level_gpu: &LevelGpu,
    instances: &wgpu::Buffer,
    uniforms: &wgpu::Buffer,
    test_now: bool,
) -> (FrameIds, Occlusion<'a>) {
    let args = graph.import_buffer("terrain.clipmap.args", &cull.args);
    let instances = graph.import_buffer("terrain.clipmap.instances", instances);
    let levels = graph.import_texture("terrain.clipmap.levels", &level_gpu.texture);
    let jobs = graph.import_buffer("terrain.clipmap.fill.jobs", &fill.jobs);
    let cull_uniforms = graph.import_buffer("terrain.clipmap.cull.uniforms", &cull.uniforms);
    let pieces = graph.import_buffer("terrain.clipmap.cull.pieces", &cull.pieces);
    let ztiles = graph.import_buffer("terrain.clipmap.cull.ztiles", &level_gpu.ztiles);
    let rejected = graph.import_buffer("terrain.clipmap.cull.rejected", &cull.rejected);
    let draw_uniforms = graph.import_buffer("terrain.clipmap.uniforms", uniforms);
    let fill_group = graph.import_bind_group(
        "terrain.clipmap.fill.group",
        &level_gpu.fill_bind,
        &[jobs.into(), levels.into()],
    );
    let cull_group = graph.import_bind_group(
        "terrain.clipmap.cull.group",
        &cull.bind,
        &[
            cull_uniforms.into(),
            pieces.into(),
            args.into(),
            instances.into(),
            rejected.into(),
        ],
    );
    let cull_levels = graph.import_bind_group(
        "terrain.clipmap.cull.levels",
        &level_gpu.cull_bind,
        &[levels.into(), ztiles.into()],
    );
    let occ = cull.occlusion.as_ref().filter(|_| test_now).and_then(|o| {
        let pyramid = o.hiz.import(graph)?;
        let group = graph.import_bind_group(
            "terrain.clipmap.cull.hiz",
            o.hiz_group.as_ref()?,
            &[pyramid.into()],
        );
        Some((o, pyramid, group))
    });
    let draw_group = graph.import_bind_group(
        "terrain.clipmap.group",
        &level_gpu.bind_group,
        &[draw_uniforms.into(), levels.into()],
    );
    let ids = FrameIds {
        args,
        instances,
        levels,
        jobs,
        cull_uniforms,
        pieces,
        ztiles,
        rejected,
        draw_uniforms,
        fill_group,
        cull_group,
        cull_levels,
        draw_group,
    };
    (ids, occ)
}

/// One compute pass: the fill of the strips that entered a window, the
/// height tiles of the levels it changed, then the cull (phase one with
/// occlusion).
#[allow(clippy::too_many_arguments)]
fn record_compute<'a>(
    graph: &mut RenderGraph<'a>,
    ids: FrameIds,
    occ: Occlusion<'a>,
    view: &FrameView,
    plan: FramePlan,
    fill: &'a mut FillState,
    cull: &'a CullState,
    level_gpu: &'a LevelGpu,
    previous: bool,
) {
    let mut compute = graph
        .add_compute_pass(PASS_COMPUTE)
        .read(ids.jobs)
        .read_write(ids.levels)
        .read(ids.cull_uniforms)
        .read(ids.pieces)
        .read_write(ids.ztiles)
        .read_write(ids.args)
        .read_write(ids.instances)
        .read_write(ids.rejected)
        .needs(sward_engine::Capability::Compute);
    if let Some((_, pyramid, _)) = occ {
        compute = compute.read(pyramid);
    }
    let view = *view;
    compute.record(move |ctx| {
        let cfg = &plan.cfg;
        let jobs = fill.frame_jobs(
            &plan.places,
            i64::from(cfg.texels()),
            &level_gpu.refine_gpu.jobs,
        );
        dispatch_fill(ctx, fill, ids, &jobs);
        let update = jobs.iter().fold(0u32, |m, j| m | 1 << j.level);
        let stored = cull.frame_pieces.len() as u32;
        let mut u = CullUniforms::new(
            &view.frustum,
            plan.eye,
            cull_distance(&view),
            cfg,
            update,
            stored,
            plan.places.iter().map(|p| p.origin),
            &plan.trims,
        );
        u.refine = level_gpu.refine_gpu.rects;
        if let Some((o, ..)) = occ {
            let (pixels, _, hiz_levels) = o.hiz.shape().unwrap_or(([1, 1], [1, 1], 1));
            u.view_proj = view.view_proj.to_cols_array_2d();
            u.hiz = [
                pixels[0] as f32,
                pixels[1] as f32,
                hiz_levels as f32,
                f32::from(u8::from(previous)),
            ];
        }
        write_cull_inputs(ctx, cull, ids, &u);
        ctx.pass
            .set_bind_group(0, ctx.res.bind_group(ids.cull_group), &[]);
        ctx.pass
            .set_bind_group(1, ctx.res.bind_group(ids.cull_levels), &[]);
        if update != 0 {
            ctx.pass.set_pipeline(&cull.ztiles_pipeline);
            ctx.pass
                .dispatch_workgroups((u.tiles * u.tiles).div_ceil(64), cfg.levels, 1);
        }
        let invocations = stored + u.trim_count;
        match occ {
            Some((o, _, group)) => {
                ctx.pass.set_pipeline(if previous {
                    &o.phase_one
                } else {
                    &o.phase_one_fresh
                });
                ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
            }
            None => ctx.pass.set_pipeline(&cull.pipeline),
        }
        ctx.pass
            .dispatch_workgroups(invocations.div_ceil(64).max(1), 1, 1);
        ctx.counters.instances_submitted += u64::from(invocations);
    });
}

/// Uploads this frame's fill `jobs` and dispatches the fill (nothing when
/// no window moved and no tile changed).
fn dispatch_fill(ctx: &mut ComputeCtx<'_>, fill: &FillState, ids: FrameIds, jobs: &[FillJob]) {
    if jobs.is_empty() {
        return;
    }
    let bytes: &[u8] = bytemuck::cast_slice(jobs);
    ctx.queue.write_buffer(ctx.res.buffer(ids.jobs), 0, bytes);
    ctx.counters.bytes_uploaded += bytes.len() as u64;
    let widest = jobs.iter().map(FillJob::texels).max().unwrap_or(0);
    ctx.pass.set_pipeline(&fill.pipeline);
    ctx.pass
        .set_bind_group(0, ctx.res.bind_group(ids.fill_group), &[]);
    ctx.pass
        .dispatch_workgroups(widest.div_ceil(64) as u32, jobs.len() as u32, 1);
}

/// Writes the cull's uniforms `u`, resets the draw args and, when the
/// level frames were re-listed, uploads the stored pieces.
fn write_cull_inputs(ctx: &mut ComputeCtx<'_>, cull: &CullState, ids: FrameIds, u: &CullUniforms) {
    let stale = cull.frame_pieces_stale.swap(false, Ordering::Relaxed);
    let writes: [Option<(BufferId, &[u8])>; 3] = [
        Some((ids.cull_uniforms, bytemuck::bytes_of(u))),
        Some((ids.args, bytemuck::cast_slice(&cull.reset))),
        stale.then(|| (ids.pieces, bytemuck::cast_slice(&cull.frame_pieces))),
    ];
    for (buffer, bytes) in writes.into_iter().flatten() {
        ctx.queue.write_buffer(ctx.res.buffer(buffer), 0, bytes);
        ctx.counters.bytes_uploaded += bytes.len() as u64;
    }
}

/// The draw's uniform block: the frame's terrain uniforms and the
/// clipmap's placement around the camera (`cam0`, level-0 units).
fn draw_uniform_bytes(
    view: &FrameView,
    cfg: &ClipmapConfig,
    cam0: [f64; 2],
    level_gpu: &LevelGpu,
    chunk_origin: glam::IVec2,
    chunk_count: glam::IVec2,
) -> Vec<u8> {
    let mut params = ClipmapParams::new(cfg, cam0);
    params.refine = level_gpu.refine_gpu.rects.map(glam::IVec4::from_array);
    ClipmapUniforms {
        terrain: TerrainUniforms::from_view(view),
        clip: params,
        chunk_origin,
        chunk_count,
    }
    .to_bytes()
}

/// The draw's counters and the technique's [`ClipmapStats`] of the frame.
fn count_draws(
    counters: &mut sward_engine::graph::Counters,
    stats: &mut ClipmapStats,
    cull: &CullState,
    meshes: &ClipmapMeshes,
    cfg: &ClipmapConfig,
    listed_per_kind: &[u64; KINDS],
) {
    let (drawn, triangles) = drawn_parts(cull, meshes, cfg, listed_per_kind);
    counters.instances_drawn += drawn;
    counters.triangles += triangles;
    *stats = ClipmapStats {
        levels: cfg.levels,
        pieces: listed_per_kind.iter().sum::<u64>() as u32 as usize,
        pieces_drawn: drawn as usize,
        triangles,
        texels_filled: 0,
        half_blocks: listed_per_kind[kind_index(PieceKind::Block2)] as u32,
    };
}

/// Instances drawn (a split block counts once per sub-block drawn) and
/// their triangles: the last readback's counts, or until the first one
/// arrives every part listed.
fn drawn_parts(
    cull: &CullState,
    meshes: &ClipmapMeshes,
    cfg: &ClipmapConfig,
    listed_per_kind: &[u64; KINDS],
) -> (u64, u64) {
    let (mut drawn, mut triangles) = (0u64, 0u64);
    for kind in PieceKind::ALL {
        let k = kind_index(kind);
        let count = match cull.counts {
            Some(c) => u64::from(c[k]),
            None => {
                let n = kind.split(i64::from(cfg.block)) as u64;
                listed_per_kind[k] * n * n
            }
        };
        drawn += count;
        if !kind.is_seam() {
            triangles += meshes.range(kind).triangles() * count;
        }
    }
    (drawn, triangles)
}

/// With occlusion: the Hi-Z pyramid of this frame's depth, published for
/// later passes, then the second cull phase over at most every part listed
/// (its draw follows).
fn record_phase_two<'a>(
    graph: &mut RenderGraph<'a>,
    ids: FrameIds,
    (o, pyramid, group): (&'a CullOcclusion, TextureId, BindGroupId),
    view: &FrameView,
    targets: PassTargets,
    cfg: &ClipmapConfig,
    listed_per_kind: &[u64; KINDS],
) {
    o.hiz
        .record_into(graph, pyramid, targets.depth, view.sample_count);
    // Later passes (grass occlusion) may test against it: it holds
    // this frame's terrain except what phase two adds, so a test
    // against it can only hide less than one after phase two.
    graph.publish_texture(crate::hiz::TERRAIN_PYRAMID, pyramid);
    // Phase two over at most every part listed.
    let parts: u64 = PieceKind::ALL
        .iter()
        .map(|k| {
            let n = k.split(i64::from(cfg.block)) as u64;
            listed_per_kind[kind_index(*k)] * n * n
        })
        .sum();
    graph
        .add_compute_pass(PASS_CULL_TWO)
        .read(ids.cull_uniforms)
        .read(ids.pieces)
        .read(ids.levels)
        .read(ids.ztiles)
        .read(ids.rejected)
        .read(pyramid)
        .read_write(ids.args)
        .read_write(ids.instances)
        .needs(sward_engine::Capability::Compute)
        .record(move |ctx| {
            ctx.pass.set_pipeline(&o.phase_two);
            ctx.pass
                .set_bind_group(0, ctx.res.bind_group(ids.cull_group), &[]);
            ctx.pass
                .set_bind_group(1, ctx.res.bind_group(ids.cull_levels), &[]);
            ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
            ctx.pass
                .dispatch_workgroups((parts as u32).div_ceil(64).max(1), 1, 1);
        });
}

impl Clipmap {
    /// The trims of the levels placed at `places`, and per piece kind what
    /// this frame lists (the ring pieces of the level frames and the
    /// trims): the counters until a readback arrives.
    fn listed(&self, cfg: &ClipmapConfig, places: &[LevelPlacement]) -> (Vec<Piece>, [u64; KINDS]) {
        let trims: Vec<Piece> = places
            .iter()
            .enumerate()
            .flat_map(|(l, p)| level_trims(cfg, l as u32, p))
            .collect();
        let mut listed_per_kind = [0u64; KINDS];
        for f in &self.frames {
            for (sum, n) in listed_per_kind.iter_mut().zip(f.per_kind) {
                *sum += u64::from(n);
            }
        }
        for p in &trims {
            listed_per_kind[kind_index(p.kind)] += 1;
        }
        (trims, listed_per_kind)
    }
}

impl CullState {
    /// Takes the newest lagged readback of the cull's counts (per kind
    /// drawn, and with occlusion rejected and hidden): returns whether this
    /// frame copies the counts for a later readback, and `(copy frame, parts
    /// drawn, parts occlusion hid)` of the newest readback.
    fn poll_readback(&mut self) -> (bool, Option<(u64, u32, u32)>) {
        let frame = self.frame;
        let Ok(readback) = self.readback.get_mut() else {
            return (false, None);
        };
        readback.poll(frame);
        let mut latest = None;
        if let Some(words) = readback.latest() {
            let count = |draw: usize| words.get(5 * draw + 1).copied().unwrap_or(0);
            let counts: [u32; KINDS] = std::array::from_fn(|k| count(k) + count(KINDS + k));
            self.counts = Some(counts);
            self.occluded = self
                .occlusion
                .is_some()
                .then(|| [count(REJECTED), count(HIDDEN)]);
            latest = readback
                .latest_frame()
                .map(|f| (f, counts.iter().sum::<u32>(), count(HIDDEN)));
        }
        let copy_now = frame % READBACK_EVERY == 0 && readback.has_free_slot();
        (copy_now, latest)
    }

    /// Occlusion: whether this frame tests (`auto` rests the test while it
    /// hides next to nothing), and whether the pyramid for this target holds
    /// last frame's depth (a new one, or one left during a rest, holds
    /// nothing of it). `(false, false)` without occlusion.
    fn decide_occlusion(
        &mut self,
        gpu: &GpuContext,
        view: &FrameView,
        latest: Option<(u64, u32, u32)>,
    ) -> (bool, bool) {
        let frame = self.frame;
        let Some(o) = self.occlusion.as_mut() else {
            return (false, false);
        };
        let mut previous = false;
        let test_now = o.gate.as_mut().is_none_or(|g| g.decide(frame, latest));
        if test_now {
            if o.hiz
                .ensure_group(&gpu.device, view.size, &o.hiz_layout, &mut o.hiz_group)
            {
                o.previous = false;
            }
            previous = o.previous;
            if !previous {
                // Nothing to test against: this frame only builds the
                // pyramid, its counts say nothing about the test.
                if let Some(g) = o.gate.as_mut() {
                    g.unjudged(frame);
                }
            }
        }
        o.previous = test_now;
        (test_now, previous)
    }
}

impl FillState {
    /// This frame's fill jobs (texels of `n` per side at each level placed
    /// at `places`): the strips that entered a window, texels kept from
    /// earlier frames that read a changed tile, texels whose refinement flag
    /// changed with a re-bake, and the refinement pool `pool` after a bake
    /// or a change of the resident world. Remembers the windows and what it
    /// filled.
    fn frame_jobs(&mut self, places: &[LevelPlacement], n: i64, pool: &[FillJob]) -> Vec<FillJob> {
        let mut jobs: Vec<FillJob> = Vec::new();
        for (l, (place, old)) in places.iter().zip(self.origins.iter_mut()).enumerate() {
            jobs.extend(level_jobs(l as u32, *old, place.origin, n));
            // Texels kept from earlier frames that read a changed tile.
            if old.is_some() {
                jobs.extend(
                    self.regions
                        .iter()
                        .filter_map(|r| region_job(l as u32, place.origin, n, *r)),
                );
            }
            *old = Some(place.origin);
        }
        // Texels whose refinement flag changed with a re-bake (those
        // outside the windows get theirs when they enter).
        for (level, lo, hi) in self.flag_rects.drain(..) {
            if let Some(p) = places.get(level as usize) {
                jobs.extend(vertex_job(level, p.origin, n, lo, hi));
            }
        }
        // The refinement pool after a bake, or after the resident world
        // changed in place (its texels read the same sources).
        if self.pool_pending || !self.regions.is_empty() {
            jobs.extend_from_slice(pool);
            self.pool_pending = false;
        }
        self.regions.clear();
        self.filled = jobs.iter().map(FillJob::texels).sum();
        jobs
    }
}
