//! Where each level stands and what it lists: the level set a view needs
//! ([`Clipmap::config_for`]), (re)building the level set's GPU state and
//! far grid when it changes ([`Clipmap::ensure_levels`]), and per frame
//! which ring blocks each level draws at half resolution, with each level's
//! pieces listed again only when that choice changed ([`LevelFrame`],
//! [`Clipmap::update_frames`]).

use std::sync::Arc;

use sward_engine::GpuContext;
use sward_scenes::{TileSource, World};

use super::bake::bake_refine;
use super::cull::{kind_index, piece_distance, KINDS};
use super::fill::{far_extent, far_extent_of, FarGrid, FillJob};
use super::layout::{
    level_frame, level_trims, ring_block_offsets, ClipmapConfig, LevelPlacement, Piece, PieceKind,
};
use super::lod;
use super::resources::{
    data_texture, jobs_buffer, levels_texture, refine_index_texture, ztiles_buffer,
};
use super::source::TerrainSampler;
use super::state::{Clipmap, LevelFrame, LevelGpu, MAX_JOBS};
use super::TECHNIQUE;
use crate::frame::FrameView;
use crate::terrain::splat::texture_bytes;

impl LevelFrame {
    pub(super) fn new(cfg: &ClipmapConfig, level: u32, half: u16) -> Self {
        let t = i64::from(cfg.block);
        let pieces = level_frame(cfg, level, |off| {
            ring_block_offsets(t, false)
                .position(|o| o == off)
                .is_some_and(|k| half & (1 << k) != 0)
        });
        let mut per_kind = [0u32; KINDS];
        for p in &pieces {
            per_kind[kind_index(p.kind)] += 1;
        }
        LevelFrame {
            half,
            pieces,
            per_kind,
        }
    }
}

impl Clipmap {
    /// The configuration a view needs: enough levels to reach the
    /// technique's view distance (the `distance` parameter, else the view's
    /// terrain distance).
    pub fn config_for(&self, view: &FrameView) -> ClipmapConfig {
        ClipmapConfig::for_distance(
            self.block,
            self.distance.unwrap_or(view.settings.terrain_distance),
        )
    }

    /// (Re)allocates the level textures and bakes and uploads the far grid
    /// when the level set changes (the only far-data upload).
    pub(super) fn ensure_levels(
        &mut self,
        gpu: &GpuContext,
        cfg: ClipmapConfig,
        world: &World,
        far: Option<&dyn TileSource>,
    ) {
        if self.level_gpu.as_ref().is_some_and(|l| l.cfg == cfg) {
            return;
        }
        // A new far grid: every level's decimation error is estimated again.
        self.lod.clear();
        // A bake still running (or queued) was for the level set being
        // replaced, which bakes the resident world itself.
        self.pending_bake = None;
        self.queued_world = None;
        let device = &gpu.device;
        let n = cfg.texels();
        let max = device.limits().max_texture_dimension_2d;
        let (lo, hi, clamped) = match self.reach {
            Some(r) => far_extent_of(r.window, max),
            None => far_extent(world, &cfg, max),
        };
        if clamped {
            log::warn!(
                "{TECHNIQUE}: the far grid for {} levels needs more than {max} texels per side; \
                 it covers a smaller area around the resident world (edge values beyond)",
                cfg.levels
            );
        }
        // Streaming, the far grid must not depend on what is resident (the
        // levels keep texels across residency changes): the far source
        // alone answers (0 where it cannot).
        let nothing = World::new("clipmap.far");
        let sampler = match self.reach {
            Some(_) => TerrainSampler::new(&nothing, far),
            None => TerrainSampler::new(world, far),
        };
        let grid = Arc::new(FarGrid::bake(&sampler, lo, hi));
        // Local refinement: the tiles whose error exceeds the bound, as many
        // as the array layers after the levels' can hold.
        let max_layers = device.limits().max_texture_array_layers;
        // The frame waits for it: every core.
        let cores = super::refine::cores();
        let baked = bake_refine(&cfg, self.refine_bound, max_layers, (world, &grid), cores);
        let per_page = super::refine::slots_per_page(&cfg);
        let (refine, refine_gpu) = (baked.mask, baked.gpu);
        let refine_index = refine_index_texture(gpu, &refine_gpu);
        let refine_view = refine_index.create_view(&Default::default());
        // Room for a frame's strips and every pool job at once, with a page
        // to spare for a later bake (after the resident world changed).
        let pool_pages = if refine_gpu.pages > 0 {
            (refine_gpu.pages + 1).min(max_layers.saturating_sub(cfg.levels))
        } else {
            0
        };
        let job_room = MAX_JOBS + (pool_pages as usize * per_page).max(refine_gpu.jobs.len());
        if self.fill.jobs.size() < (job_room * std::mem::size_of::<FillJob>()) as u64 {
            self.fill.jobs = jobs_buffer(device, job_room);
        }
        self.fill.pool_pending = !refine_gpu.jobs.is_empty();
        let (texture, view) = levels_texture(device, n, cfg.levels + pool_pages);
        let far_texture = data_texture(
            gpu,
            "terrain.clipmap.far",
            grid.size,
            wgpu::TextureFormat::R32Float,
            bytemuck::cast_slice(&grid.heights),
        );
        let far_view = far_texture.create_view(&Default::default());
        let mut fill_params = grid.params(self.atlas.window(), &cfg);
        fill_params.refine = refine_gpu.rects;
        gpu.queue
            .write_buffer(&self.fill.params, 0, bytemuck::bytes_of(&fill_params));
        let bind_group = self.draw_bind_group(device, &view, &refine_view);
        let fill_bind = self.fill_bind_group(device, &far_view, &view, &refine_view);
        let ztiles = ztiles_buffer(device, &cfg);
        let cull_bind = self.cull_bind_group(device, &view, &ztiles, &refine_view);
        self.fill.origins = vec![None; cfg.levels as usize];
        self.fill.regions.clear();
        self.fill.flag_rects.clear();
        self.level_gpu = Some(LevelGpu {
            cfg,
            texture,
            view,
            pool_pages,
            job_room,
            bind_group,
            fill_bind,
            fill_params,
            far_view,
            far_bytes: texture_bytes(grid.size, 1, 1, 4),
            far: grid,
            ztiles,
            cull_bind,
            refine,
            refine_gpu,
            refine_index,
            refine_dropped: baked.dropped,
            refine_unmet: baked.counts.unmet,
            refine_bake_ms: baked.ms,
        });
    }

    /// Decides, for the frame seen through `view`, which ring blocks each
    /// level draws at half resolution, and re-lists a level's
    /// [`LevelFrame`] only when that choice (or the level set) changed; the
    /// levels' placement does not enter it. Returns whether any level was
    /// re-listed.
    pub(super) fn update_frames(
        &mut self,
        cfg: &ClipmapConfig,
        places: &[LevelPlacement],
        view: &FrameView,
    ) -> bool {
        if self.lod.len() != places.len() {
            self.lod = (0..places.len() as u32)
                .map(|l| lod::LevelErrors::new(cfg, l))
                .collect();
        }
        let mut changed = false;
        if self.frames_cfg != Some(*cfg) {
            self.frames.clear();
            self.frames_cfg = Some(*cfg);
            changed = true;
        }
        let focal = lod::focal_px(view.size[1], view.camera.fov_y_deg);
        let eye = view.eye();
        let t = i64::from(cfg.block);
        let refine = self.level_gpu.as_ref().map(|l| &l.refine);
        for (l, (place, errors)) in places.iter().zip(self.lod.iter_mut()).enumerate() {
            let level = l as u32;
            let errors = match (&self.level_gpu, errors, self.pixel_error > 0.0) {
                (Some(level_gpu), Some(errors), true) => {
                    errors.update(&level_gpu.far, place.origin);
                    Some(&*errors)
                }
                _ => None,
            };
            #[cfg(test)]
            let forced = self.half_override;
            let half = |off: [i64; 2]| {
                #[cfg(test)]
                if let Some(f) = forced {
                    return f(level, off);
                }
                let Some(errors) = errors else {
                    return false;
                };
                // The full-resolution neighbours of a half-resolution block
                // are stitched, and a stitched part is never refined: no
                // block goes to half resolution while a refined tile lies
                // under it or under a piece next to it (2t + 2 quads: the
                // longest neighbour, a trim).
                let o = [place.origin[0] + off[0], place.origin[1] + off[1]];
                let g = 2 * t + 2;
                if refine.is_some_and(|m| {
                    m.any_flagged(level, [o[0] - g, o[1] - g], [o[0] + t + g, o[1] + t + g])
                }) {
                    return false;
                }
                let block = Piece {
                    kind: PieceKind::Block,
                    level,
                    origin: [place.origin[0] + off[0], place.origin[1] + off[1]],
                    stitch: 0,
                };
                let distance = piece_distance(cfg.block, &block, eye);
                let error = errors.block_error(off).unwrap_or(f32::INFINITY);
                lod::decimate(level, error, f64::from(distance), focal, self.pixel_error)
            };
            let mut mask = 0u16;
            if level > 0 {
                for (k, off) in ring_block_offsets(t, false).enumerate() {
                    if half(off) {
                        mask |= 1 << k;
                    }
                }
            }
            match self.frames.get_mut(l) {
                Some(frame) if frame.half == mask => {}
                Some(frame) => {
                    *frame = LevelFrame::new(cfg, level, mask);
                    changed = true;
                }
                None => {
                    self.frames.push(LevelFrame::new(cfg, level, mask));
                    changed = true;
                }
            }
        }
        changed
    }

    /// The pieces the last recorded frame listed for the GPU cull (ring
    /// blocks within the `pixel_error` bound at half resolution), placed:
    /// per level, its [`LevelFrame`] at its corner, then its trims.
    pub fn listed_pieces(&self) -> Vec<Piece> {
        let Some(cfg) = self.frames_cfg else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (l, (frame, place)) in self.frames.iter().zip(&self.places).enumerate() {
            out.extend(frame.pieces.iter().map(|p| Piece {
                origin: [place.origin[0] + p.origin[0], place.origin[1] + p.origin[1]],
                ..*p
            }));
            out.extend(level_trims(&cfg, l as u32, place));
        }
        out
    }

    /// Changes every time a recorded frame re-listed a level's pieces (the
    /// levels' placement alone does not re-list them).
    pub fn listing_version(&self) -> u64 {
        self.listing_version
    }

    /// Draws at half resolution exactly the ring blocks `half(level, offset)`
    /// selects, whatever their error (tests of the stitching).
    #[cfg(test)]
    pub(crate) fn force_half_blocks(&mut self, half: fn(u32, [i64; 2]) -> bool) {
        self.half_override = Some(half);
    }
}
