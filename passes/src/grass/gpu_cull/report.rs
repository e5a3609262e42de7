//! What a [`GpuCull`] tells about itself: its configuration and counts,
//! the buffers tests read back, the per-frame upload, the bench report's
//! facts (`gpu_cull.*`) and its GPU memory.

use std::collections::BTreeMap;
use std::ops::Range;

use super::cull::GRASS_CULL_BYTES;
use super::descriptor::DESCRIPTOR_BYTES;
use super::{Capacity, Compaction, CullMode, DistanceLod, GpuCull, MultiDraw, PatchSize};
use crate::grass::gpu::GRASS_FRAME_BYTES;

impl GpuCull {
    /// Patch size in use.
    pub fn patch_size(&self) -> PatchSize {
        self.patch
    }

    /// The multi-draw variant in use.
    pub fn multi_draw(&self) -> MultiDraw {
        self.multi_draw
    }

    /// Number of patches holding grass.
    pub fn patch_count(&self) -> usize {
        self.patch_count
    }

    /// Number of (patch, model) entries: the cull's invocations and the
    /// largest number of draws per frame.
    pub fn entry_count(&self) -> u32 {
        self.entry_count
    }

    /// Resident instances (all placements of the window).
    pub fn instance_count(&self) -> u64 {
        self.instances
    }

    /// The pipeline state each model was last drawn with.
    pub fn material_states(&self) -> &[crate::grass::MaterialState] {
        self.pipelines.states()
    }

    /// The descriptor buffer (tests read it back).
    pub fn descriptor_buffer(&self) -> &wgpu::Buffer {
        &self.descriptors
    }

    /// The patch table buffer (`GrassPatchGpu` rows).
    pub fn patch_buffer(&self) -> &wgpu::Buffer {
        &self.patches
    }

    /// Patch or per-instance culling.
    pub fn cull_mode(&self) -> CullMode {
        match self.compaction {
            Compaction::Patches { .. } => CullMode::Patch,
            Compaction::Instances { .. } => CullMode::Instance,
        }
    }

    /// The distance LOD in use.
    pub fn lod(&self) -> DistanceLod {
        self.lod
    }

    /// Frames whose occlusion test used the pyramid the terrain published
    /// instead of one grass built (since [`Self::begin_run`]).
    pub fn terrain_pyramid_frames(&self) -> u64 {
        self.terrain_pyramid_frames
    }

    /// Starts the per-run counters of [`Self::facts`] again: the frames
    /// that used the terrain's pyramid and `occlusion=auto`'s frame counts.
    pub fn begin_run(&mut self) {
        self.terrain_pyramid_frames = 0;
        if let Some(g) = self.gate.as_mut() {
            g.restart_counts();
        }
    }

    /// Whether clumps are tested against a Hi-Z pyramid of the terrain.
    pub fn occlusion_on(&self) -> bool {
        matches!(&self.compaction, Compaction::Instances { hiz: Some(_), .. })
    }

    /// The Hi-Z pyramid, with occlusion on and after a frame (tests).
    pub fn hiz(&self) -> Option<&crate::hiz::HiZ> {
        match &self.compaction {
            Compaction::Instances {
                hiz: Some((h, _)), ..
            } => Some(h),
            _ => None,
        }
    }

    /// Patch culling: the indirect args and count buffers the last cull
    /// wrote (tests).
    pub fn cull_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        match &self.compaction {
            Compaction::Patches { args, counts, .. } => Some((args, counts)),
            Compaction::Instances { .. } => None,
        }
    }

    /// Per-instance culling: the state buffer (its header holds the per-model
    /// draws), the visible list and each model's region of it (tests).
    pub fn instance_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, &[Range<u32>])> {
        match &self.compaction {
            Compaction::Instances {
                state,
                visible,
                regions,
                ..
            } => Some((state, visible, regions)),
            Compaction::Patches { .. } => None,
        }
    }

    /// Draw slots (entries) of each model: its region of the args buffer.
    pub fn model_regions(&self) -> &[Range<u32>] {
        &self.model_entries
    }

    /// Bytes the CPU uploads per frame: the two uniform blocks, plus the
    /// per-instance state header or the count variant's zeroed counts.
    pub fn bytes_per_frame(&self) -> u64 {
        let reset = match &self.compaction {
            Compaction::Instances { initial, .. } => 4 * initial.len() as u64 + 12,
            Compaction::Patches { .. } if self.multi_draw == MultiDraw::Count => {
                8 * u64::from(self.model_count)
            }
            Compaction::Patches { .. } => 0,
        };
        GRASS_FRAME_BYTES + GRASS_CULL_BYTES + reset
    }

    /// Facts for the bench report: `gpu_cull.patch_mcnks` (MCNKs per patch
    /// side), `gpu_cull.patches`, `gpu_cull.entries` (draw slots),
    /// `gpu_cull.multi_draw_count` (1: `multi_draw_indexed_indirect_count`
    /// ran, 0: `multi_draw_indexed_indirect` over zeroed args; patch culling),
    /// `gpu_cull.instance_cull` (1: per-instance culling, one
    /// `draw_indexed_indirect` per model), `gpu_cull.lod_floor` and
    /// `gpu_cull.lod_start` (1 and the start: LOD off),
    /// `gpu_cull.descriptor_bytes`; with `placement=gpu` also
    /// `gpu_cull.record_bytes` (records, bounds, coverage),
    /// `gpu_cull.generation_bytes` (those and the effect table, parameters
    /// and counts), `gpu_cull.generated_room` / `generated_entry_room` (the
    /// generated buffers' room) and, read back a few frames late,
    /// `gpu_cull.generated_mcnks`, `generated_placements` and
    /// `generation_overflow` (0 unless a bound is wrong).
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            f.insert(format!("gpu_cull.{k}"), v);
        };
        put("patch_mcnks", f64::from(self.patch.chunks()));
        put("patches", self.patch_count as f64);
        put("entries", f64::from(self.entry_count));
        let instance = self.cull_mode() == CullMode::Instance;
        put(
            "multi_draw_count",
            f64::from(u8::from(!instance && self.multi_draw == MultiDraw::Count)),
        );
        put("instance_cull", f64::from(u8::from(instance)));
        put("occlusion", f64::from(u8::from(self.occlusion_on())));
        if let Some(g) = &self.gate {
            put("occlusion_ran_frames", g.ran_frames as f64);
            put("occlusion_frames", g.frames as f64);
        }
        if let Some(n) = self.occluded_lately() {
            put("occluded", n as f64);
        }
        if self.occlusion_on() {
            put(
                "occlusion_terrain_pyramid_frames",
                self.terrain_pyramid_frames as f64,
            );
        }
        put("lod_floor", f64::from(self.lod.floor));
        put("lod_start", f64::from(self.lod.start));
        put(
            "descriptor_bytes",
            (self.instances * DESCRIPTOR_BYTES) as f64,
        );
        put("placement_gpu", f64::from(u8::from(self.generates())));
        if let Some((records, kept)) = self.generation_bytes() {
            put("record_bytes", records as f64);
            put("generation_bytes", kept as f64);
            let (descs, entries) = self.generation_room();
            put("generated_room", descs as f64);
            put("generated_entry_room", entries as f64);
        }
        if let Some([mcnks, placements, overflow]) = self.generated_lately() {
            put("generated_mcnks", f64::from(mcnks));
            put("generated_placements", f64::from(placements));
            put("generation_overflow", f64::from(overflow));
        }
        f
    }

    /// `placement=gpu`: MCNKs kept, placements generated and overflows of
    /// the last frame read back.
    pub fn generated_lately(&self) -> Option<[u32; 3]> {
        use super::generated::{STATE_MCNKS, STATE_OVERFLOW, STATE_PLACEMENTS};
        if !self.generates() {
            return None;
        }
        let readback = self.readback.lock().ok()?;
        let w = readback.latest()?;
        Some([
            *w.get(STATE_MCNKS)?,
            *w.get(STATE_PLACEMENTS)?,
            *w.get(STATE_OVERFLOW)?,
        ])
    }

    /// GPU memory of every buffer of the tier, the readback ring and the
    /// shared models (the height atlas is counted by its owner).
    pub fn gpu_memory_bytes(&self) -> u64 {
        let compaction: u64 = match &self.compaction {
            Compaction::Patches { args, counts, .. } => args.size() + counts.size(),
            Compaction::Instances {
                state,
                visible,
                dispatch,
                ..
            } => state.size() + visible.size() + dispatch.size(),
        };
        [
            &self.descriptors,
            &self.patches,
            &self.entries,
            &self.cull_models,
            &self.cull_uniform,
            &self.frame_uniform,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>()
            + compaction
            + self.readback_size * 4
            + self.models_bytes
            + self.hiz().map_or(0, crate::hiz::HiZ::gpu_memory_bytes)
            + self.generation_bytes().map_or(0, |(_, kept)| kept)
    }

    /// Entry slots the cull dispatches over: the live entries and the free
    /// slots below the highest live entry page.
    pub fn entry_slots(&self) -> u32 {
        self.entry_slots
    }

    /// Resident tiles (streaming), or 1 for a whole-window build.
    pub fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// Units (descriptor pages, entry pages, tile slots) the pools hold.
    pub fn capacity(&self) -> Capacity {
        Capacity {
            desc_pages: self.desc_pool.capacity(),
            entry_pages: self.entry_pool.capacity(),
            slots: self.slot_pool.capacity(),
        }
    }
}
