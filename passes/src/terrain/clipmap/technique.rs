//! The `clipmap` terrain technique: owns the static meshes, the level texture
//! array and its CPU mirror, the chunk index texture (resident MCNK slot and
//! hole mask per MCNK), the shared splat resources, and records the
//! `terrain.clipmap.compute` pass (fill, then cull) and the `terrain.clipmap`
//! draw pass.
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
//! the chunk index have room for every tile the source has, the far grid is baked from the far source alone over that
//! reach, and the cull's height range is folded from per-tile ranges. A tile
//! made resident or evicted ([`Clipmap::apply_residency`]) updates its atlas
//! slots, splat records and alpha tiles, its 16x16 chunk-index texels and
//! its height range, and queues its cell rectangle: the next frame's compute
//! fill re-fills, in every level, the kept texels whose prefilter reads it
//! (they came from the far grid, or from the atlas), alongside the strips
//! that entered a moving window. The levels then hold exactly what a fresh
//! build fills.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use glam::IVec2;
use sward_engine::bind::{self, Slot};
use sward_engine::graph::{BufferId, RenderGraph};
use sward_engine::GpuContext;
use sward_scenes::world::coords::{TileCoord, CHUNK_CELLS, TILE_CHUNKS};
use sward_scenes::{TileSource, World};
use wgpu::util::DeviceExt;
use wgpu::ShaderStages as S;

use super::cull::{
    kind_index, kinds, piece_distance, piece_gpu, reset_args, CullUniforms, DrawArgs, ZTiles,
    HIDDEN, INSTANCES_PER_KIND, KINDS, MAX_FRAME_PIECES_PER_LEVEL, MAX_REJECTED, REJECTED, SECOND,
};
use super::fill::{
    far_extent, far_extent_of, level_jobs, region_job, vertex_job, FarGrid, FillJob, FillParams,
};
use super::gpu::{ClipInstance, ClipmapParams, ClipmapUniforms};
use super::layout::{
    camera_level0, level_frame, level_trims, place_levels, ring_block_offsets, ClipmapConfig,
    LevelPlacement, Piece, PieceKind, DEFAULT_BLOCK, MAX_LEVELS,
};
use super::levels::LevelFrame;
use super::lod;
use super::mesh::ClipmapMeshes;
use super::refine::{RefineGpu, RefineMask};
use super::resources::{
    bind_group_layout, chunk_index_texture, data_texture, jobs_buffer, levels_texture, refine_index_texture,
    ztiles_buffer, CullOcclusion, CullState, FillState, LevelGpu, MAX_JOBS, NO_CHUNK,
    VERTEX_ENTRIES,
};
use super::setup::{Clipmap, Occlusion};
use super::source::TerrainSampler;
use super::{
    PASS, PASS_COMPUTE, PASS_CULL, PASS_CULL_READBACK, PASS_CULL_TWO, PASS_FILL, PASS_HIZ,
    PASS_TWO, TECHNIQUE,
};

/// Frames between two copies of the draw counts for the lagged readback.
pub(super) const READBACK_EVERY: u64 = 8;
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};
use crate::technique::{Residency, ResidencyChange};
use crate::terrain::gpu::TerrainUniforms;
use crate::terrain::splat_gpu::{texture_bytes, SplatGpu};
use crate::terrain::StaticChunks;
use sward_engine::lagged::LaggedReadback;

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

impl Clipmap {
    /// The refinement mask of the current level set (after a frame).
    pub fn refine_mask(&self) -> Option<&RefineMask> {
        self.level_gpu.as_ref().map(|l| &l.refine)
    }

    /// The refinement index texture and each level's rectangle in it
    /// (tests probe the shader functions with them).
    #[cfg(test)]
    pub(crate) fn refine_gpu(&self) -> Option<(&wgpu::Texture, [[i32; 4]; MAX_LEVELS as usize])> {
        self.level_gpu
            .as_ref()
            .map(|l| (&l.refine_index, l.refine_gpu.rects))
    }

    /// Adds `terrain.clipmap.compute` (level placement, compute fill of the
    /// strips that entered a window, GPU piece cull), every 8th frame
    /// `terrain.clipmap.cull.readback`, and `terrain.clipmap` (one
    /// multi-draw-indirect of the shared meshes). `world` is the resident
    /// world the technique was built for; `far` answers heights beyond it
    /// (baked into the far grid when the level set changes).
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        world: &'a World,
        far: Option<&'a dyn TileSource>,
    ) {
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
        let trims: Vec<Piece> = places
            .iter()
            .enumerate()
            .flat_map(|(l, p)| level_trims(&cfg, l as u32, p))
            .collect();
        // Per kind, what was listed (the counters until a readback arrives).
        let mut listed_per_kind = [0u64; KINDS];
        for f in &self.frames {
            for (sum, n) in listed_per_kind.iter_mut().zip(f.per_kind) {
                *sum += u64::from(n);
            }
        }
        for p in &trims {
            listed_per_kind[kind_index(p.kind)] += 1;
        }
        let half_blocks = listed_per_kind[kind_index(PieceKind::Block2)] as u32;
        let piece_count = listed_per_kind.iter().sum::<u64>() as u32;
        self.places.clone_from(&places);
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
        let (meshes, vertices, indices, instances, uniforms) =
            (&*meshes, &*vertices, &*indices, &*instances, &*uniforms);
        let (chunk_origin, chunk_count, pipelines) = (*chunk_origin, *chunk_count, &*pipelines);
        cull.frame += 1;
        let frame = cull.frame;
        let mut copy_now = false;
        // (copy frame, parts drawn, parts occlusion hid) of the newest readback.
        let mut latest = None;
        if let Ok(readback) = cull.readback.get_mut() {
            readback.poll(frame);
            if let Some(words) = readback.latest() {
                let count = |draw: usize| words.get(5 * draw + 1).copied().unwrap_or(0);
                let counts: [u32; KINDS] = std::array::from_fn(|k| count(k) + count(KINDS + k));
                cull.counts = Some(counts);
                cull.occluded = cull
                    .occlusion
                    .is_some()
                    .then(|| [count(REJECTED), count(HIDDEN)]);
                latest = readback
                    .latest_frame()
                    .map(|f| (f, counts.iter().sum::<u32>(), count(HIDDEN)));
            }
            copy_now = frame % READBACK_EVERY == 0 && readback.has_free_slot();
        }
        // Occlusion: whether this frame tests (`auto` rests the test while
        // it hides next to nothing), and the pyramid for this target (a new
        // one, or one left during a rest, holds nothing of last frame).
        let mut previous = false;
        let mut test_now = false;
        if let Some(o) = cull.occlusion.as_mut() {
            test_now = o.gate.as_mut().is_none_or(|g| g.decide(frame, latest));
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
        }
        let cull: &'a CullState = cull;
        let args = graph.import_buffer("terrain.clipmap.args", &cull.args);
        let instance_id = graph.import_buffer("terrain.clipmap.instances", instances);
        let levels = graph.import_texture("terrain.clipmap.levels", &level_gpu.texture);
        let jobs_id = graph.import_buffer("terrain.clipmap.fill.jobs", &fill.jobs);
        let cull_uniforms = graph.import_buffer("terrain.clipmap.cull.uniforms", &cull.uniforms);
        let pieces_id = graph.import_buffer("terrain.clipmap.cull.pieces", &cull.pieces);
        let ztiles_id = graph.import_buffer("terrain.clipmap.cull.ztiles", &level_gpu.ztiles);
        let rejected_id = graph.import_buffer("terrain.clipmap.cull.rejected", &cull.rejected);
        let draw_uniforms = graph.import_buffer("terrain.clipmap.uniforms", uniforms);
        let fill_group = graph.import_bind_group(
            "terrain.clipmap.fill.group",
            &level_gpu.fill_bind,
            &[jobs_id.into(), levels.into()],
        );
        let cull_group = graph.import_bind_group(
            "terrain.clipmap.cull.group",
            &cull.bind,
            &[
                cull_uniforms.into(),
                pieces_id.into(),
                args.into(),
                instance_id.into(),
                rejected_id.into(),
            ],
        );
        let cull_levels = graph.import_bind_group(
            "terrain.clipmap.cull.levels",
            &level_gpu.cull_bind,
            &[levels.into(), ztiles_id.into()],
        );
        // With occlusion: the object, the pyramid and group 2 over it.
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
        // One compute pass: the fill of the strips that entered a window,
        // the height tiles of the levels it changed, then the cull.
        let mut compute = graph
            .add_compute_pass(PASS_COMPUTE)
            .read(jobs_id)
            .read_write(levels)
            .read(cull_uniforms)
            .read(pieces_id)
            .read_write(ztiles_id)
            .read_write(args)
            .read_write(instance_id)
            .read_write(rejected_id)
            .needs(sward_engine::Capability::Compute);
        if let Some((_, pyramid, _)) = occ {
            compute = compute.read(pyramid);
        }
        compute.record(move |ctx| {
            let n = i64::from(cfg.texels());
            let mut jobs: Vec<FillJob> = Vec::new();
            for (l, (place, old)) in places.iter().zip(fill.origins.iter_mut()).enumerate() {
                jobs.extend(level_jobs(l as u32, *old, place.origin, n));
                // Texels kept from earlier frames that read a changed tile.
                if old.is_some() {
                    jobs.extend(
                        fill.regions
                            .iter()
                            .filter_map(|r| region_job(l as u32, place.origin, n, *r)),
                    );
                }
                *old = Some(place.origin);
            }
            // Texels whose refinement flag changed with a re-bake (those
            // outside the windows get theirs when they enter).
            for (level, lo, hi) in fill.flag_rects.drain(..) {
                if let Some(p) = places.get(level as usize) {
                    jobs.extend(vertex_job(level, p.origin, n, lo, hi));
                }
            }
            // The refinement pool after a bake, or after the resident world
            // changed in place (its texels read the same sources).
            if fill.pool_pending || !fill.regions.is_empty() {
                jobs.extend_from_slice(&level_gpu.refine_gpu.jobs);
                fill.pool_pending = false;
            }
            fill.regions.clear();
            fill.filled = jobs.iter().map(FillJob::texels).sum();
            if !jobs.is_empty() {
                let bytes: &[u8] = bytemuck::cast_slice(&jobs);
                ctx.queue.write_buffer(ctx.res.buffer(jobs_id), 0, bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                let widest = jobs.iter().map(FillJob::texels).max().unwrap_or(0);
                ctx.pass.set_pipeline(&fill.pipeline);
                ctx.pass
                    .set_bind_group(0, ctx.res.bind_group(fill_group), &[]);
                ctx.pass
                    .dispatch_workgroups(widest.div_ceil(64) as u32, jobs.len() as u32, 1);
            }
            let update = jobs.iter().fold(0u32, |m, j| m | 1 << j.level);
            let stored = cull.frame_pieces.len() as u32;
            let mut u = CullUniforms::new(
                &view.frustum,
                eye,
                cull_distance(&view),
                &cfg,
                update,
                stored,
                places.iter().map(|p| p.origin),
                &trims,
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
            let stale = cull.frame_pieces_stale.swap(false, Ordering::Relaxed);
            let writes: [Option<(BufferId, &[u8])>; 3] = [
                Some((cull_uniforms, bytemuck::bytes_of(&u))),
                Some((args, bytemuck::cast_slice(&cull.reset))),
                stale.then(|| (pieces_id, bytemuck::cast_slice(&cull.frame_pieces))),
            ];
            for (buffer, bytes) in writes.into_iter().flatten() {
                ctx.queue.write_buffer(ctx.res.buffer(buffer), 0, bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
            }
            ctx.pass
                .set_bind_group(0, ctx.res.bind_group(cull_group), &[]);
            ctx.pass
                .set_bind_group(1, ctx.res.bind_group(cull_levels), &[]);
            if update != 0 {
                ctx.pass.set_pipeline(&cull.ztiles_pipeline);
                ctx.pass
                    .dispatch_workgroups((u.tiles * u.tiles).div_ceil(64), cfg.levels, 1);
            }
            let invocations = stored + u.trim_count;
            match occ {
                Some((o, _, group)) => {
                    ctx.pass.set_pipeline(&o.phase_one);
                    ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
                }
                None => ctx.pass.set_pipeline(&cull.pipeline),
            }
            ctx.pass
                .dispatch_workgroups(invocations.div_ceil(64).max(1), 1, 1);
            ctx.counters.instances_submitted += u64::from(invocations);
        });
        let draws = DrawParts {
            args,
            instances: instance_id,
            levels,
            uniforms: draw_uniforms,
            group: draw_group,
            vertices,
            indices,
            pipelines,
            multi: cull.multi,
            refined: !level_gpu.refine.is_empty(),
        };
        let mut params = ClipmapParams::new(&cfg, cam0);
        params.refine = level_gpu.refine_gpu.rects.map(glam::IVec4::from_array);
        let uniform_bytes = ClipmapUniforms {
            terrain: TerrainUniforms::from_view(&view),
            clip: params,
            chunk_origin,
            chunk_count,
        }
        .to_bytes();
        draws.record(
            graph,
            &view,
            targets,
            0,
            Some(uniform_bytes),
            move |counters| {
                // Instances (a split block counts once per sub-block drawn);
                // until the first readback arrives, every part listed.
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
                counters.instances_drawn += drawn;
                counters.triangles += triangles;
                *stats = ClipmapStats {
                    levels: cfg.levels,
                    pieces: piece_count as usize,
                    pieces_drawn: drawn as usize,
                    triangles,
                    texels_filled: 0,
                    half_blocks,
                };
            },
        );
        if let Some((o, pyramid, group)) = occ {
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
                .read(cull_uniforms)
                .read(pieces_id)
                .read(levels)
                .read(ztiles_id)
                .read(rejected_id)
                .read(pyramid)
                .read_write(args)
                .read_write(instance_id)
                .needs(sward_engine::Capability::Compute)
                .record(move |ctx| {
                    ctx.pass.set_pipeline(&o.phase_two);
                    ctx.pass
                        .set_bind_group(0, ctx.res.bind_group(cull_group), &[]);
                    ctx.pass
                        .set_bind_group(1, ctx.res.bind_group(cull_levels), &[]);
                    ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
                    ctx.pass
                        .dispatch_workgroups((parts as u32).div_ceil(64).max(1), 1, 1);
                });
            let after = PassTargets {
                clear: false,
                ..targets
            };
            draws.record(graph, &view, after, 1, None, |_| {});
        }
        if copy_now {
            graph
                .add_transfer_pass(PASS_CULL_READBACK)
                .read(args)
                .record(move |ctx| {
                    if let Ok(mut readback) = cull.readback.lock() {
                        readback.copy(ctx.encoder, ctx.res.buffer(args), frame);
                    }
                });
        }
    }

    /// What the last recorded frame drew (`texels_filled`: the compute
    /// fill of that frame).
    pub fn stats(&self) -> ClipmapStats {
        ClipmapStats {
            texels_filled: self.fill.filled,
            ..self.stats.clone()
        }
    }

    /// Facts for the bench report: levels, block size, pieces drawn, texels
    /// sampled and triangles of the last frame.
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let s = &self.stats();
        let mut f = BTreeMap::from([
            ("clipmap_levels".to_owned(), f64::from(s.levels)),
            ("clipmap_block".to_owned(), f64::from(self.block)),
            (
                "clipmap_distance".to_owned(),
                self.distance.map_or(0.0, f64::from),
            ),
            ("clipmap_pieces".to_owned(), s.pieces as f64),
            ("clipmap_pieces_drawn".to_owned(), s.pieces_drawn as f64),
            ("clipmap_texels_filled".to_owned(), s.texels_filled as f64),
            ("clipmap_triangles".to_owned(), s.triangles as f64),
            ("clipmap_half_blocks".to_owned(), f64::from(s.half_blocks)),
            ("clipmap_pixel_error".to_owned(), self.pixel_error),
            (
                "clipmap_occlusion".to_owned(),
                f64::from(u8::from(self.cull.occlusion.is_some())),
            ),
        ]);
        if let Some(g) = self.cull.occlusion.as_ref().and_then(|o| o.gate.as_ref()) {
            f.insert(
                "clipmap_occlusion_ran_frames".to_owned(),
                g.ran_frames as f64,
            );
            f.insert("clipmap_occlusion_frames".to_owned(), g.frames as f64);
        }
        f.insert("clipmap_refine".to_owned(), self.refine_bound);
        if let Some(l) = self.level_gpu.as_ref() {
            f.insert(
                "clipmap_refined_tiles".to_owned(),
                l.refine.flagged_count() as f64,
            );
            f.insert("clipmap_refine_dropped".to_owned(), l.refine_dropped as f64);
            f.insert("clipmap_refine_unmet".to_owned(), l.refine_unmet as f64);
            f.insert("clipmap_refine_bake_ms".to_owned(), l.refine_bake_ms);
            f.insert("clipmap_refine_rebakes".to_owned(), self.rebakes as f64);
            f.insert(
                "clipmap_refine_rebake_ms_max".to_owned(),
                self.rebake_ms_max,
            );
        }
        if let Some(c) = self.cull.counts {
            let refined: u32 = PieceKind::ALL
                .iter()
                .filter(|k| k.is_refined())
                .map(|k| c[kind_index(*k)])
                .sum();
            f.insert("clipmap_refined_parts".to_owned(), f64::from(refined));
        }
        if let Some([rejected, hidden]) = self.cull.occluded {
            f.insert("clipmap_parts_rejected".to_owned(), f64::from(rejected));
            f.insert("clipmap_parts_occluded".to_owned(), f64::from(hidden));
        }
        f
    }

    /// The level texture array (tests read it back) and the far grid it
    /// was filled from, once a frame was recorded.
    pub fn level_texture(&self) -> Option<(&wgpu::Texture, &FarGrid)> {
        self.level_gpu
            .as_ref()
            .map(|l| (&l.texture, l.far.as_ref()))
    }

    /// The cull's height tiles after the last submitted frame, read back now
    /// (tests).
    pub fn read_ztiles(&self, gpu: &GpuContext) -> Option<ZTiles> {
        let l = self.level_gpu.as_ref()?;
        let bytes =
            sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, &l.ztiles, l.ztiles.size())
                .unwrap_or_else(|e| panic!("{PASS_CULL}: readback: {e}"));
        Some(ZTiles::from_gpu(&l.cfg, bytemuck::cast_slice(&bytes)))
    }

    /// The parts the GPU cull of the last submitted frame drew (both
    /// phases with occlusion), per kind (instances: `[I, J, level, word]`),
    /// read back now (tests).
    pub fn read_drawn(&self, gpu: &GpuContext) -> Vec<(PieceKind, [i32; 4])> {
        let args = self.read_args(gpu);
        let inst_bytes = sward_engine::targets::read_buffer(
            &gpu.device,
            &gpu.queue,
            &self.instances,
            self.instances.size(),
        )
        .unwrap_or_else(|e| panic!("{PASS_CULL}: readback: {e}"));
        let inst: &[[i32; 4]] = bytemuck::cast_slice(&inst_bytes);
        let mut out = Vec::new();
        let phases = if self.cull.occlusion.is_some() { 2 } else { 1 };
        for phase in 0..phases {
            for (k, kind) in PieceKind::ALL.iter().enumerate() {
                let first = phase * SECOND as usize + k * INSTANCES_PER_KIND as usize;
                let n = args[phase * KINDS + k].instance_count as usize;
                for p in &inst[first..first + n] {
                    out.push((*kind, *p));
                }
            }
        }
        out
    }

    /// The parts phase one of the last submitted frame rejected and those
    /// phase two found hidden, read back now (tests; zeros without
    /// occlusion).
    pub fn read_occluded(&self, gpu: &GpuContext) -> [u32; 2] {
        let args = self.read_args(gpu);
        [args[REJECTED].instance_count, args[HIDDEN].instance_count]
    }

    /// Parts drawn by phase one and by phase two of the last submitted
    /// frame, read back now (tests).
    pub fn read_phase_counts(&self, gpu: &GpuContext) -> [u32; 2] {
        let args = self.read_args(gpu);
        [0, 1].map(|phase| {
            args[phase * KINDS..(phase + 1) * KINDS]
                .iter()
                .map(|a| a.instance_count)
                .sum()
        })
    }

    pub(super) fn read_args(&self, gpu: &GpuContext) -> Vec<DrawArgs> {
        let bytes = sward_engine::targets::read_buffer(
            &gpu.device,
            &gpu.queue,
            &self.cull.args,
            self.cull.args.size(),
        )
        .unwrap_or_else(|e| panic!("{PASS_CULL}: readback: {e}"));
        bytemuck::pod_collect_to_vec(&bytes)
    }

    /// `occlusion=auto`: frames in which the test ran, and frames decided
    /// (since [`crate::technique::Technique::begin_run`]).
    pub fn occlusion_frames(&self) -> Option<(u64, u64)> {
        let g = self.cull.occlusion.as_ref()?.gate.as_ref()?;
        Some((g.ran_frames, g.frames))
    }

    /// The occlusion pyramid (`occlusion=on`; tests read it back).
    pub fn hiz(&self) -> Option<&crate::hiz::HiZ> {
        self.cull.occlusion.as_ref().map(|o| &o.hiz)
    }

    /// Bytes of GPU memory held (meshes, level textures, chunk index, splat).
    pub fn gpu_memory_bytes(&self) -> u64 {
        let levels = self.level_gpu.as_ref().map_or(0, |l| {
            let c = l.cfg;
            let index = l.refine_index.size();
            let refine = texture_bytes([index.width, index.height], 1, 1, 8);
            texture_bytes([c.texels(); 2], 1, c.levels + l.refine_gpu.pages, 16)
                + l.far_bytes
                + l.ztiles.size()
                + refine
        });
        let pyramid = self.hiz().map_or(0, crate::hiz::HiZ::gpu_memory_bytes);
        self.fixed_gpu_bytes + levels + pyramid
    }
}

/// What a clipmap draw pass reaches: the cull's outputs, the draw uniforms
/// and group, the shared meshes and the pipelines.
#[derive(Clone, Copy)]
pub(super) struct DrawParts<'a> {
    pub(super) args: BufferId,
    pub(super) instances: BufferId,
    pub(super) levels: sward_engine::graph::TextureId,
    pub(super) uniforms: BufferId,
    pub(super) group: sward_engine::graph::BindGroupId,
    pub(super) vertices: &'a wgpu::Buffer,
    pub(super) indices: &'a wgpu::Buffer,
    pub(super) pipelines: &'a HashMap<u32, Vec<wgpu::RenderPipeline>>,
    pub(super) multi: bool,
    /// Whether any tile refines (else the refined kinds' draws, always
    /// empty, are not issued).
    pub(super) refined: bool,
}

impl<'a> DrawParts<'a> {
    /// Adds the draw of phase `phase` (0: [`PASS`], writing the draw
    /// uniforms `uniform_bytes`; 1: [`PASS_TWO`], the parts the occlusion
    /// cull's second phase found visible): one multi-draw-indirect of the
    /// kinds' draws of that phase (or one indirect draw per kind). `count`
    /// then updates the frame's counters.
    pub(super) fn record(
        self,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        phase: u32,
        uniform_bytes: Option<Vec<u8>>,
        count: impl FnOnce(&mut sward_engine::graph::Counters) + 'a,
    ) {
        let name = if phase == 0 { PASS } else { PASS_TWO };
        let (color_load, depth_load) = targets.load_ops(&view.settings);
        let mut draw = graph
            .add_render_pass(name)
            .read(self.args)
            .read(self.instances)
            .read(self.levels)
            .read(self.uniforms)
            .needs(sward_engine::Capability::MultiDrawIndirect);
        if self.multi {
            draw = draw.needs(sward_engine::Capability::IndirectFirstInstance);
        }
        draw.color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipelines) = self.pipelines.get(&ctx.sample_count) else {
                    log::error!("{name}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                if let Some(bytes) = &uniform_bytes {
                    ctx.queue
                        .write_buffer(ctx.res.buffer(self.uniforms), 0, bytes);
                    ctx.counters.bytes_uploaded += bytes.len() as u64;
                }
                ctx.pass
                    .set_bind_group(0, ctx.res.bind_group(self.group), &[]);
                let (args, instances) = (ctx.res.buffer(self.args), ctx.res.buffer(self.instances));
                ctx.pass.set_vertex_buffer(0, self.vertices.slice(..));
                ctx.pass
                    .set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
                let first_draw = u64::from(phase) * KINDS as u64;
                let arg_size = std::mem::size_of::<DrawArgs>() as u64;
                // One multi-draw per vertex entry point (its kinds are
                // consecutive in `PieceKind::ALL`).
                let group = |k: usize| {
                    let entry = PieceKind::ALL[k].vertex_entry();
                    VERTEX_ENTRIES.iter().position(|e| *e == entry).unwrap_or(0)
                };
                // The refined kinds come last.
                let kinds = if self.refined {
                    KINDS
                } else {
                    PieceKind::ALL
                        .iter()
                        .position(|k| k.is_refined())
                        .unwrap_or(KINDS)
                };
                if self.multi {
                    ctx.pass.set_vertex_buffer(1, instances.slice(..));
                    let mut k = 0;
                    while k < kinds {
                        let g = group(k);
                        let end = (k..kinds).find(|&e| group(e) != g).unwrap_or(kinds);
                        ctx.pass.set_pipeline(&pipelines[g]);
                        ctx.pass.multi_draw_indexed_indirect(
                            args,
                            (first_draw + k as u64) * arg_size,
                            (end - k) as u32,
                        );
                        k = end;
                    }
                } else {
                    let range = u64::from(INSTANCES_PER_KIND) * 16;
                    let base = u64::from(phase) * u64::from(SECOND) * 16;
                    for k in 0..kinds {
                        ctx.pass.set_pipeline(&pipelines[group(k)]);
                        let start = base + k as u64 * range;
                        ctx.pass
                            .set_vertex_buffer(1, instances.slice(start..start + range));
                        ctx.pass
                            .draw_indexed_indirect(args, (first_draw + k as u64) * arg_size);
                    }
                }
                ctx.counters.draw_calls += kinds as u64;
                count(ctx.counters);
            });
    }
}

/// Horizontal distance beyond which a piece is culled: the fog end. Past it
/// every point of the piece is at least that far (horizontal distance is a
/// lower bound of the 3D distance the fog uses), so it would shade as the fog
/// colour, which is also the clear colour: culling it leaves the image as is.
pub(super) fn cull_distance(view: &FrameView) -> f32 {
    view.settings.fog_range[1]
}

/// The `block` parameter of `clipmap`.
const BLOCK_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "block",
    kind: crate::technique::ParamKind::IntChoice {
        values: &[16, 32, 64],
        default: DEFAULT_BLOCK as i64,
    },
    description: "quads per side of a level block (each level is 4 blocks wide plus fix-up strips)",
};

/// The `distance` parameter of `clipmap`: the view distance the levels are
/// sized for (0, the default: the frame's terrain distance, i.e. what
/// `--view-distance` sets).
const DISTANCE_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "distance",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 50_000.0,
        default: 0.0,
    },
    description: "view distance in world units the levels reach (the bench scales the fog with it); 0: the frame's terrain distance (--view-distance)",
};

/// The `pixel_error` parameter of `clipmap`: the screen-space error bound
/// under which a ring block is drawn at half resolution.
const PIXEL_ERROR_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "pixel_error",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 64.0,
        default: lod::DEFAULT_PIXEL_ERROR,
    },
    description: "draw a ring block at half resolution when that moves its surface by at most this many pixels (estimated from the far grid); 0: every block at full resolution",
};

/// The `refine` parameter of `clipmap`: the height error bound over which
/// a tile of a coarse level is drawn on the finer lattice.
const REFINE_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "refine",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 1000.0,
        // The accuracy target's bound.
        default: super::refine::BOUND,
    },
    description: "draw a 4 x 4-quad tile of a coarse level on the next finer level's lattice where the level's own surface misses the exact heights by more than this many world units (flagged when the levels are built, and on a worker thread after the resident world changes; 2 meets the accuracy target); 0: never",
};

/// The `occlusion` parameter of `clipmap`.
const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on", "auto"],
        default: "off",
    },
    description: "two-phase Hi-Z occlusion of blocks and sub-blocks (boxes from per-tile height ranges): test against last frame's pyramid, draw, rebuild it, re-test the rejected against this frame's; auto runs it only while it hides at least 20% of the parts it tests",
};

/// The `distance` parameter as an optional view distance; values between 0
/// and 100 units are refused (a level-0 ring alone reaches 133 units).
fn distance_of(params: &crate::technique::Params) -> Result<Option<f32>, PassError> {
    let d = params.float(&DISTANCE_PARAM);
    if d == 0.0 {
        Ok(None)
    } else if d < 100.0 {
        Err(PassError::InvalidParams {
            technique: TECHNIQUE,
            reason: format!(
                "distance={d}: use 0 (the frame's terrain distance) or at least 100 world units"
            ),
        })
    } else {
        Ok(Some(d as f32))
    }
}

/// Registry entry of terrain `clipmap`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "clipmap",
    summary: "geometry clipmaps: nested camera-centred rings, level 0 exact, holes and MCNK seams preserved",
    params: &[
        BLOCK_PARAM,
        DISTANCE_PARAM,
        PIXEL_ERROR_PARAM,
        REFINE_PARAM,
        OCCLUSION_PARAM,
    ],
    requires: &[
        sward_engine::Capability::R32FloatTexture,
        sward_engine::Capability::VertexStorage,
        sward_engine::Capability::Compute,
        sward_engine::Capability::MultiDrawIndirect,
    ],
    fallback: Some("gpu-cull"),
    build: |i, params| {
        let block = params.int(&BLOCK_PARAM) as u32;
        let distance = distance_of(params)?;
        let occlusion = match params.text(&OCCLUSION_PARAM) {
            "on" => Occlusion::On,
            "auto" => Occlusion::Auto,
            _ => Occlusion::Off,
        };
        let mut clipmap = Clipmap::build(
            i.gpu,
            i.scene.world,
            block,
            distance,
            i.scene.atlas_reach(),
            occlusion,
        )?;
        clipmap.set_pixel_error(params.float(&PIXEL_ERROR_PARAM));
        clipmap.set_refine(params.float(&REFINE_PARAM));
        Ok(Box::new(clipmap))
    },
};

impl crate::technique::Technique for Clipmap {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        Clipmap::record(
            self,
            inputs.gpu,
            graph,
            view,
            targets,
            inputs.scene.world,
            inputs.scene.far,
        );
    }

    fn gpu_memory_bytes(&self) -> u64 {
        Clipmap::gpu_memory_bytes(self)
    }

    fn facts(&self, _scene: &crate::renderer::SceneData<'_>) -> BTreeMap<String, f64> {
        Clipmap::facts(self)
    }

    fn view_distance(&self) -> Option<f32> {
        Clipmap::view_distance(self)
    }

    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<Residency, PassError> {
        self.apply_residency(
            inputs.gpu,
            inputs.scene.world,
            inputs.scene.atlas_reach(),
            changes,
            prepared,
        )
    }

    fn begin_run(&mut self) {
        if let Some(g) = self.cull.occlusion.as_mut().and_then(|o| o.gate.as_mut()) {
            g.restart_counts();
        }
        self.rebakes = 0;
        self.rebake_ms_max = 0.0;
    }

    fn settle(&mut self, gpu: &GpuContext) {
        // The running bake, then the queued one.
        while self.pending_bake.is_some() {
            self.poll_rebake(gpu, true);
        }
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.reach
            .is_some()
            .then(crate::terrain::TerrainTile::preparer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::technique::{Subsystem, Tier, TierCombo};

    fn distance(text: &str) -> Result<Option<f32>, PassError> {
        let tier = Tier::parse(Subsystem::Terrain, text).expect("parses");
        distance_of(tier.params())
    }

    /// `clipmap:distance=N` sizes the levels for `N` units whatever the
    /// frame's terrain distance; the default follows the frame; nonsense is
    /// refused with the parameter named.
    #[test]
    fn distance_parameter_sizes_the_levels() {
        assert_eq!(distance("clipmap").expect("default"), None);
        assert_eq!(
            distance("clipmap:distance=8000").expect("8000"),
            Some(8000.0)
        );
        let err = distance("clipmap:distance=50").expect_err("too short");
        assert!(err.to_string().contains("distance=50"), "{err}");
        assert!(Tier::parse(Subsystem::Terrain, "clipmap:distance=-1").is_err());
        assert!(Tier::parse(Subsystem::Terrain, "clipmap:distance=1e9").is_err());
        // Two distances are two tiers of one bench run.
        let combos = TierCombo::parse_list("off+clipmap:distance=1000,off+clipmap:distance=8000")
            .expect("list");
        assert_eq!(combos.len(), 2);
        assert_ne!(combos[0], combos[1]);

        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let world = crate::terrain::testutil::cliff_world();
        let frame = |d: f32| {
            let settings = crate::frame::RenderSettings {
                terrain_distance: d,
                ..Default::default()
            };
            FrameView::new(Default::default(), [64, 64], 1, 0.0, settings)
        };
        let follow = Clipmap::with_options(&gpu, &world, 32, None).expect("builds");
        assert_eq!(follow.view_distance(), None);
        assert_eq!(follow.config_for(&frame(1000.0)).levels, 4);
        assert_eq!(follow.config_for(&frame(8000.0)).levels, 7);
        let far = Clipmap::with_options(&gpu, &world, 32, Some(8000.0)).expect("builds");
        assert_eq!(far.view_distance(), Some(8000.0));
        assert_eq!(far.config_for(&frame(1000.0)).levels, 7);
        let bad = Clipmap::with_options(&gpu, &world, 32, Some(f32::NAN));
        assert!(bad.is_err());
    }
}
