//! What the technique tells about itself: the last frame's
//! [`ClipmapStats`], the bench report's facts, the GPU memory it holds, and
//! the accessors and readbacks tests use (level texture, refinement mask and
//! index, height tiles, the parts each cull phase drew or hid).

use std::collections::BTreeMap;

use sward_engine::GpuContext;

use super::cull::{
    kind_index, DrawArgs, ZTiles, HIDDEN, INSTANCES_PER_KIND, INST_REFINED, INST_SEAM, KINDS,
    REJECTED, SECOND,
};
use super::fill::FarGrid;
use super::layout::PieceKind;
#[cfg(test)]
use super::layout::MAX_LEVELS;
use super::refine::RefineMask;
use super::state::{Clipmap, ClipmapStats};
use super::PASS_CULL;
use crate::terrain::splat::texture_bytes;

impl Clipmap {
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
        let mut f: BTreeMap<String, f64> = self.splat.facts().into_iter().collect();
        f.extend([
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

    /// Per level, what the GPU cull of the last submitted frame drew (both
    /// phases with occlusion): its parts, the triangles they send to the
    /// clipper (seams' zero-area triangles included: the clipper counter
    /// counts every input primitive) and their distinct mesh vertices (what
    /// a vertex shader counter counts where each vertex of an instance is
    /// shaded once, as on llvmpipe). Summed over the levels these are the
    /// `terrain.clipmap` pass's `clipper_invocations` and, on such a
    /// driver, `vs_invocations` of that frame. Reads the cull's output back
    /// now (a blocking readback: after a run's frames, never during them).
    pub fn level_work(&self, gpu: &GpuContext) -> Vec<LevelWork> {
        let mut out = vec![LevelWork::default(); self.stats.levels as usize];
        let per_kind: Vec<(u64, u64)> = PieceKind::ALL
            .iter()
            .map(|k| {
                (
                    self.meshes.range(*k).triangles(),
                    self.meshes.distinct_vertices(*k),
                )
            })
            .collect();
        for (kind, instance) in self.read_drawn(gpu) {
            // The level word carries the refined and seam flags above it.
            let level = usize::try_from(instance[2] & !(INST_REFINED | INST_SEAM)).unwrap_or(0);
            if level >= out.len() {
                out.resize(level + 1, LevelWork::default());
            }
            let (triangles, vertices) = per_kind[kind_index(kind)];
            let w = &mut out[level];
            w.parts += 1;
            w.triangles += triangles;
            w.vertices += vertices;
        }
        out
    }

    /// [`Self::level_work`] as report facts: `clipmap_level{L}_parts`,
    /// `_triangles` and `_vertices` per level `L`.
    pub fn level_facts(&self, gpu: &GpuContext) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        for (l, w) in self.level_work(gpu).iter().enumerate() {
            f.insert(format!("clipmap_level{l}_parts"), w.parts as f64);
            f.insert(format!("clipmap_level{l}_triangles"), w.triangles as f64);
            f.insert(format!("clipmap_level{l}_vertices"), w.vertices as f64);
        }
        f
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

    fn read_args(&self, gpu: &GpuContext) -> Vec<DrawArgs> {
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
}

/// What one clipmap level drew in a frame ([`Clipmap::level_work`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelWork {
    /// Parts drawn (a split block counts once per sub-block).
    pub parts: u64,
    /// Triangles sent to the clipper, zero-area seam triangles included.
    pub triangles: u64,
    /// Distinct mesh vertices over the parts (one per vertex per instance).
    pub vertices: u64,
}
