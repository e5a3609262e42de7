//! The refinement bake: which tiles of the coarse levels are drawn on the
//! finer lattice ([`bake_refine`], run when the levels are built and, after
//! the resident world changed, on a worker thread), and putting a re-bake
//! in place without a rebuild ([`Clipmap::request_rebake`],
//! [`Clipmap::start_rebake`], [`Clipmap::poll_rebake`],
//! [`Clipmap::apply_rebake`]).

use std::sync::Arc;

use sward_engine::GpuContext;
use sward_scenes::World;

use super::fill::FarGrid;
use super::layout::ClipmapConfig;
use super::refine::RefineMask;
use super::resources::refine_index_texture;
use super::source::TerrainSampler;
use super::state::{BakedRefine, Clipmap, PendingBake, MAX_JOBS};
use super::TECHNIQUE;

/// Flags the tiles of the levels of `cfg` whose error exceeds `bound`
/// over the resident `world`, beyond it reading the heights the fill reads
/// (the far grid `far`), as many as the array layers after the levels'
/// can hold (`max_layers` in all; a warning when some do not fit), and
/// their GPU form, sampling on `threads` threads. Owns nothing of the
/// technique: it also runs on a worker thread after the resident world
/// changed ([`Clipmap::start_rebake`]).
pub(super) fn bake_refine(
    cfg: &ClipmapConfig,
    bound: f64,
    max_layers: u32,
    (world, far): (&World, &FarGrid),
    threads: usize,
) -> BakedRefine {
    let baking = std::time::Instant::now();
    let sampler = TerrainSampler::new(world, Some(far));
    let (mut mask, counts) = RefineMask::bake_on(&sampler, cfg, bound, 4, threads);
    let per_page = super::refine::slots_per_page(cfg);
    let room = max_layers.saturating_sub(cfg.levels) as usize * per_page;
    let dropped = mask.limit(room);
    if dropped > 0 {
        log::warn!(
            "{TECHNIQUE}: {} tiles exceed the {bound} unit refinement bound but the pool holds \
             {room} ({max_layers} texture array layers); {dropped} are drawn unrefined",
            counts.flagged,
        );
    }
    let gpu = mask.gpu(cfg);
    BakedRefine {
        mask,
        gpu,
        counts,
        dropped,
        ms: baking.elapsed().as_secs_f64() * 1e3,
    }
}

impl Clipmap {
    /// Flags the refined tiles again for the resident `world` (after it
    /// changed in place): on a worker thread now, or, while a bake for an
    /// earlier world runs, once that one landed (the latest world waits;
    /// a running bake is never dropped, so one always lands even while
    /// tiles stream in every frame).
    pub(super) fn request_rebake(&mut self, gpu: &GpuContext, world: &World) {
        if self.pending_bake.is_some() {
            self.queued_world = Some(world.clone());
        } else {
            self.start_rebake(gpu, world);
        }
    }

    /// Starts flagging the refined tiles again for the resident `world` on
    /// a worker thread. Until it lands ([`Self::poll_rebake`]) the draw
    /// keeps the tiles it had: the fill writes the texels of the changed
    /// tiles with those flags and refills their pool slots, so what is
    /// drawn stays crack-free.
    pub(super) fn start_rebake(&mut self, gpu: &GpuContext, world: &World) {
        let Some(l) = self.level_gpu.as_ref() else {
            return;
        };
        let (cfg, bound) = (l.cfg, self.refine_bound);
        let max_layers = gpu.device.limits().max_texture_array_layers;
        let far = Arc::clone(&l.far);
        // The world is a list of shared tiles: a cheap copy.
        let (owned, far_owned) = (world.clone(), Arc::clone(&far));
        let spawned = std::thread::Builder::new()
            .name("clipmap-refine-bake".into())
            // One thread: the frame and the driver keep the other cores.
            .spawn(move || bake_refine(&cfg, bound, max_layers, (&owned, &far_owned), 1));
        match spawned {
            Ok(thread) => self.pending_bake = Some(PendingBake { cfg, thread }),
            Err(e) => {
                log::warn!("{TECHNIQUE}: no thread for the refinement bake ({e}); baking here");
                let baked = bake_refine(
                    &cfg,
                    bound,
                    max_layers,
                    (world, &far),
                    super::refine::cores(),
                );
                self.apply_rebake(gpu, cfg, baked);
            }
        }
    }

    /// Applies a re-bake started by [`Self::start_rebake`] once its thread
    /// finished (or, with `wait`, after waiting for it), then starts the
    /// queued one, if any.
    pub(super) fn poll_rebake(&mut self, gpu: &GpuContext, wait: bool) {
        let Some(pending) = self.pending_bake.take() else {
            return;
        };
        if !wait && !pending.thread.is_finished() {
            self.pending_bake = Some(pending);
            return;
        }
        match pending.thread.join() {
            Ok(baked) => self.apply_rebake(gpu, pending.cfg, baked),
            Err(_) => {
                log::error!(
                    "{TECHNIQUE}: the refinement bake failed; the tiles refined before the \
                     resident world changed stay refined"
                );
            }
        }
        if let Some(world) = self.queued_world.take() {
            self.start_rebake(gpu, &world);
        }
    }

    /// Puts a re-bake for level set `cfg` in place, as a fresh build would
    /// have it: a new index, and the next compute pass fills the pool again
    /// and re-fills the texels of the tiles whose flag changed (the level
    /// texels carry the flags). When the new pool does not fit the level
    /// texture's spare layers, the levels are built again instead; a bake
    /// for another level set is dropped.
    pub(super) fn apply_rebake(
        &mut self,
        gpu: &GpuContext,
        cfg: ClipmapConfig,
        baked: BakedRefine,
    ) {
        let Some(l) = self.level_gpu.as_ref().filter(|l| l.cfg == cfg) else {
            return;
        };
        let refine_gpu = baked.gpu;
        if refine_gpu.pages > l.pool_pages || MAX_JOBS + refine_gpu.jobs.len() > l.job_room {
            self.level_gpu = None;
            return;
        }
        let index = refine_index_texture(gpu, &refine_gpu);
        let index_view = index.create_view(&Default::default());
        let bind_group = self.draw_bind_group(&gpu.device, &l.view, &index_view);
        let cull_bind = self.cull_bind_group(&gpu.device, &l.view, &l.ztiles, &index_view);
        let fill_bind = self.fill_bind_group(&gpu.device, &l.far_view, &l.view, &index_view);
        let mut fill_params = l.fill_params;
        fill_params.refine = refine_gpu.rects;
        gpu.queue
            .write_buffer(&self.fill.params, 0, bytemuck::bytes_of(&fill_params));
        self.fill.pool_pending = !refine_gpu.jobs.is_empty();
        // The texels whose flag changed: the finer level's under the tiles
        // flagged before or now, not both, one small job each while the
        // jobs buffer has room next to the pool's, else as cell regions of
        // every level.
        let changed = l.refine.changed_tiles(&baked.mask);
        let room = l.job_room.saturating_sub(MAX_JOBS + refine_gpu.jobs.len());
        if changed.len() + self.fill.flag_rects.len() <= room {
            self.fill.flag_rects.extend(
                changed
                    .iter()
                    .map(|&(level, a, b)| super::refine::tile_flag_vertices(level, a, b)),
            );
        } else {
            self.fill.add_regions(l.refine.changed_cells(&baked.mask));
        }
        self.rebakes += 1;
        self.rebake_ms_max = self.rebake_ms_max.max(baked.ms);
        if let Some(l) = self.level_gpu.as_mut() {
            l.bind_group = bind_group;
            l.cull_bind = cull_bind;
            l.fill_bind = fill_bind;
            l.fill_params = fill_params;
            l.refine = baked.mask;
            l.refine_gpu = refine_gpu;
            l.refine_index = index;
            l.refine_dropped = baked.dropped;
            l.refine_unmet = baked.counts.unmet;
            l.refine_bake_ms = baked.ms;
        }
    }
}
