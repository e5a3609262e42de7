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
