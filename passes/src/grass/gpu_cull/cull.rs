//! The patch cull of grass `gpu-cull`: Rust mirrors of the cull pass's
//! structs ([`CullModel`], [`GrassCull`]) and the CPU reference of the
//! visibility test ([`entry_visible`], [`cpu_cull`]) that
//! `grass_cull.wgsl` runs once per (patch, model) entry.
//!
//! An entry is kept when the box distance from the eye to its bounds (grown
//! horizontally by the model's wind sway) is within the grass draw distance
//! and the box touches the view frustum. The distance fade of every tier
//! measures from the instance root, which lies inside the box, so a culled
//! entry only holds clumps that are faded out or off screen.

use glam::Vec3;
use sward_engine::Frustum;

use super::patches::{PatchEntry, PatchSet};
use crate::frame::FrameView;

/// Draw constants of one model (mirrors WGSL `CullModel`, 32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullModel {
    /// Indices per instance.
    pub index_count: u32,
    /// First index in the shared index buffer.
    pub first_index: u32,
    /// Base vertex in the shared vertex buffer.
    pub base_vertex: i32,
    /// First slot of this model's region of the indirect args.
    pub args_base: u32,
    /// Height wind amplitude scales by.
    pub sway_height: f32,
    /// Bounding radius at scale 1 (the per-clump sphere test).
    pub radius: f32,
    /// First slot of this model's region of the visible list (per-instance
    /// culling).
    pub visible_base: u32,
    /// Padding.
    pub _pad: u32,
}

/// Distance LOD: beyond `start` world units from the eye the share of
/// clumps drawn falls linearly to `floor` at `end`. Which clumps stay depends
/// only on each clump's seed and its distance; a clump fades out (alpha to
/// coverage) over the last [`LOD_FADE_BAND`] of density before it drops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrassLod {
    /// Distance where thinning starts.
    pub start: f32,
    /// Distance where the share reaches `floor`.
    pub end: f32,
    /// Share of clumps kept at and beyond `end`.
    pub floor: f32,
}

impl Default for GrassLod {
    fn default() -> Self {
        GrassLod::OFF
    }
}

/// The distance LOD as tier parameters give it, relative to the grass draw
/// distance: thinning from `start` (a fraction of the draw distance) down
/// to `floor` (the share kept) at the draw distance; off when `floor` is 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceLod {
    /// Where thinning starts, as a fraction of the draw distance.
    pub start: f32,
    /// Share of clumps kept at the draw distance.
    pub floor: f32,
}

impl Default for DistanceLod {
    fn default() -> Self {
        DistanceLod {
            start: 0.5,
            floor: 1.0,
        }
    }
}

impl DistanceLod {
    /// Whether it thins anything.
    pub fn is_on(&self) -> bool {
        self.floor < 1.0
    }

    /// The LOD in world units for a draw distance of `distance`.
    pub fn at(&self, distance: f32) -> GrassLod {
        if !self.is_on() {
            return GrassLod::OFF;
        }
        GrassLod {
            start: self.start.clamp(0.0, 0.99) * distance,
            end: distance,
            floor: self.floor.clamp(0.0, 1.0),
        }
    }
}

/// Density span of the LOD fade (WGSL `GRASS_LOD_FADE_BAND`).
pub const LOD_FADE_BAND: f32 = 0.1;

impl GrassLod {
    /// Full density at every distance.
    pub const OFF: GrassLod = GrassLod {
        start: 0.0,
        end: 0.0,
        floor: 1.0,
    };

    /// Whether it thins anything.
    pub fn is_on(&self) -> bool {
        self.end > self.start
    }

    /// The density level at distance `d` (mirrors WGSL `grass_lod_density`):
    /// `1 + LOD_FADE_BAND` up to `start`, `floor` from `end`.
    pub fn density(&self, d: f32) -> f32 {
        let t = ((d - self.start) / (self.end - self.start)).clamp(0.0, 1.0);
        let top = 1.0 + LOD_FADE_BAND;
        top + (self.floor - top) * t
    }

    /// What the LOD leaves of a clump of `seed` at distance `d` (mirrors WGSL
    /// `grass_lod_fade`): 1 when off, 0 when dropped.
    pub fn fade(&self, seed: u32, d: f32) -> f32 {
        if !self.is_on() {
            return 1.0;
        }
        ((self.density(d) - lod_threshold(seed)) / LOD_FADE_BAND).clamp(0.0, 1.0)
    }
}

/// Salt of the LOD threshold hash (WGSL `GRASS_LOD_SALT`).
pub const GRASS_LOD_SALT: u32 = 0x4c4f_4421;

/// A clump's LOD threshold in `[0, 1)` (mirrors WGSL `grass_lod_threshold`).
pub fn lod_threshold(seed: u32) -> f32 {
    use sward_wgsl::cpu::hash::{hash_unit, pcg_hash};
    hash_unit(pcg_hash(seed ^ GRASS_LOD_SALT))
}

/// Per-frame cull uniforms (mirrors WGSL `GrassCull`, 224 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrassCull {
    /// View frustum.
    pub frustum: Frustum,
    /// Eye (xyz) and grass draw distance (w).
    pub eye: [f32; 4],
    /// Wind amplitude (fraction of model height), 0 with wind off.
    pub sway_amplitude: f32,
    /// Number of entries.
    pub entry_count: u32,
    /// Number of models.
    pub model_count: u32,
    /// 1 when the reset dispatch zeroes the args too (plain multi-draw).
    pub zero_args: u32,
    /// Per-instance culling: most workgroups of its indirect dispatch.
    pub max_groups: u32,
    /// Distance LOD start ([`GrassLod::start`]).
    pub lod_start: f32,
    /// Distance LOD end ([`GrassLod::end`]).
    pub lod_end: f32,
    /// Distance LOD floor ([`GrassLod::floor`]).
    pub lod_floor: f32,
    /// Occlusion: the view-projection of the Hi-Z pyramid's depth.
    pub view_proj: [[f32; 4]; 4],
    /// Occlusion: the depth target's size in pixels (x, y), pyramid level
    /// count (z), 1 = on (w).
    pub hiz: [f32; 4],
}

/// Bytes of [`GrassCull`]: what the cull uploads per frame.
pub const GRASS_CULL_BYTES: u64 = std::mem::size_of::<GrassCull>() as u64;

impl GrassCull {
    /// The cull uniforms of `view` for `entry_count` entries of
    /// `model_count` models; `zero_args` for the plain multi-draw.
    pub fn new(view: &FrameView, entry_count: u32, model_count: u32, zero_args: bool) -> Self {
        let s = &view.settings;
        let eye = view.eye();
        GrassCull {
            frustum: view.frustum,
            eye: [eye.x, eye.y, eye.z, s.grass_distance],
            sway_amplitude: if s.wind { s.wind_amplitude } else { 0.0 },
            entry_count,
            model_count,
            zero_args: u32::from(zero_args),
            max_groups: 0,
            lod_start: GrassLod::OFF.start,
            lod_end: GrassLod::OFF.end,
            lod_floor: GrassLod::OFF.floor,
            view_proj: view.view_proj.to_cols_array_2d(),
            hiz: [0.0; 4],
        }
    }

    /// The same testing clumps against a Hi-Z pyramid of `levels` levels of
    /// a `size` pixel target (rendered with this view).
    pub fn with_occlusion(mut self, size: [u32; 2], levels: u32) -> Self {
        self.hiz = [size[0] as f32, size[1] as f32, levels as f32, 1.0];
        self
    }

    /// Whether the clumps are tested against a Hi-Z pyramid.
    pub fn occlusion(&self) -> bool {
        self.hiz[3] > 0.5
    }

    /// The same with the per-instance pass's dispatch cap and LOD.
    pub fn with_instances(mut self, max_groups: u32, lod: GrassLod) -> Self {
        self.max_groups = max_groups;
        self.lod_start = lod.start;
        self.lod_end = lod.end;
        self.lod_floor = lod.floor;
        self
    }

    /// The LOD these uniforms carry.
    pub fn lod(&self) -> GrassLod {
        GrassLod {
            start: self.lod_start,
            end: self.lod_end,
            floor: self.lod_floor,
        }
    }

    /// The eye.
    pub fn eye(&self) -> Vec3 {
        Vec3::new(self.eye[0], self.eye[1], self.eye[2])
    }
}

/// CPU mirror of WGSL `grass_instance_visible`: the root within the draw
/// distance and the sphere `radius + sway` around it touching the frustum
/// (the per-clump test legacy-cpu runs).
pub fn instance_visible(root: Vec3, radius: f32, sway: f32, c: &GrassCull) -> bool {
    if root.distance(c.eye()) > c.eye[3] {
        return false;
    }
    c.frustum.sphere_visible(root, radius + sway)
}

/// How far a clump is from flipping its visibility or its LOD choice (small
/// values may round either way on another ALU).
pub fn instance_margin(root: Vec3, radius: f32, sway: f32, seed: u32, c: &GrassCull) -> f32 {
    let d = root.distance(c.eye());
    let mut margin = (d - c.eye[3])
        .abs()
        .min(c.frustum.sphere_margin(root, radius + sway).abs());
    let lod = c.lod();
    if lod.is_on() {
        // The density level changes by (1 + band - floor) over (end - start).
        let slope = (1.0 + LOD_FADE_BAND - lod.floor).abs() / (lod.end - lod.start);
        let gap = (lod.density(d) - lod_threshold(seed)).abs();
        if slope > 0.0 {
            margin = margin.min(gap / slope);
        }
    }
    margin
}

/// The bounds of `e` grown by `sway` on every side (what the cull tests).
/// Wind only moves geometry sideways, but the per-clump test grows each
/// clump's sphere by `sway` in every direction: grown the same way, an
/// entry's box holds the spheres of all its clumps, so what is drawn is
/// exactly what the per-clump test keeps, whatever the patch size (or the
/// MCNK boxes of `placement=gpu`).
fn grown(e: &PatchEntry, sway: f32) -> (Vec3, Vec3) {
    let grow = Vec3::splat(sway);
    (
        Vec3::from_array(e.bounds_min) - grow,
        Vec3::from_array(e.bounds_max) + grow,
    )
}

/// Squared distance from `eye` to the box `(min, max)` (0 inside).
fn box_distance_sq(eye: Vec3, min: Vec3, max: Vec3) -> f32 {
    let d = (min - eye).max(eye - max).max(Vec3::ZERO);
    d.dot(d)
}

/// CPU mirror of WGSL `grass_entry_visible`.
pub fn entry_visible(e: &PatchEntry, sway: f32, c: &GrassCull) -> bool {
    let (min, max) = grown(e, sway);
    let eye = Vec3::new(c.eye[0], c.eye[1], c.eye[2]);
    if box_distance_sq(eye, min, max) > c.eye[3] * c.eye[3] {
        return false;
    }
    c.frustum.aabb_visible(min, max)
}

/// How far `e` is from flipping its visibility (world units; small values
/// are too close to a plane or the draw circle for exact CPU/GPU parity).
pub fn entry_margin(e: &PatchEntry, sway: f32, c: &GrassCull) -> f32 {
    let (min, max) = grown(e, sway);
    let eye = Vec3::new(c.eye[0], c.eye[1], c.eye[2]);
    let dist = box_distance_sq(eye, min, max).sqrt() - c.eye[3];
    dist.abs().min(c.frustum.aabb_margin(min, max).abs())
}

/// The per-model draw constants of `set`: args regions in entry order.
pub fn cull_models(set: &PatchSet, models: &crate::grass::GrassModels) -> Vec<CullModel> {
    models
        .models
        .iter()
        .zip(&set.model_entries)
        .map(|(m, range)| CullModel {
            index_count: m.index_count,
            first_index: m.first_index,
            base_vertex: m.base_vertex,
            args_base: range.start,
            sway_height: m.height,
            radius: m.radius,
            visible_base: 0,
            _pad: 0,
        })
        .collect()
}

/// CPU reference of the cull pass: indices of the entries of `set` it keeps.
pub fn cpu_cull(set: &PatchSet, models: &[CullModel], c: &GrassCull) -> Vec<u32> {
    set.entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            models
                .get(e.model as usize)
                .is_some_and(|m| entry_visible(e, m.sway_height * c.sway_amplitude, c))
        })
        .map(|(i, _)| i as u32)
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn entry(min: [f32; 3], max: [f32; 3]) -> PatchEntry {
        PatchEntry {
            bounds_min: min,
            bounds_max: max,
            count: 1,
            ..PatchEntry::default()
        }
    }

    /// The cull of a level camera at `eye` looking along `yaw_deg`, grass
    /// drawn to `distance`, one entry of one model (the instance cull's
    /// tests share it).
    pub(in crate::grass::gpu_cull) fn cull_for(
        eye: Vec3,
        yaw_deg: f32,
        distance: f32,
    ) -> GrassCull {
        let camera = sward_engine::Camera {
            eye,
            yaw_deg,
            pitch_deg: 0.0,
            ..sward_engine::Camera::default()
        };
        GrassCull {
            frustum: camera.frustum(1.6),
            eye: [eye.x, eye.y, eye.z, distance],
            sway_amplitude: 0.12,
            entry_count: 1,
            model_count: 1,
            zero_args: 0,
            max_groups: 0,
            lod_start: 0.0,
            lod_end: 0.0,
            lod_floor: 1.0,
            view_proj: [[0.0; 4]; 4],
            hiz: [0.0; 4],
        }
    }

    #[test]
    fn layouts_match_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::GRASS_CULL_TYPES,
            "PatchEntry" => PatchEntry {
                bounds_min, first, bounds_max, count, model, patch_index, _pad
            },
            "CullModel" => CullModel {
                index_count, first_index, base_vertex, args_base, sway_height, radius, visible_base,
                _pad
            },
            "GrassCull" => GrassCull {
                frustum, eye, sway_amplitude, entry_count, model_count, zero_args, max_groups,
                lod_start, lod_end, lod_floor, view_proj, hiz
            },
            "GrassPatch" => super::super::patches::GrassPatchGpu { world, grid },
        );
        assert_eq!(std::mem::size_of::<PatchEntry>(), 48);
        assert_eq!(std::mem::size_of::<CullModel>(), 32);
        assert_eq!(GRASS_CULL_BYTES, 224);
    }

    #[test]
    fn distance_and_frustum_both_cull() {
        // Camera at the origin looking down +X (yaw 0).
        let c = cull_for(Vec3::ZERO, 0.0, 220.0);
        let ahead = entry([50.0, -5.0, -1.0], [60.0, 5.0, 1.0]);
        let behind = entry([-60.0, -5.0, -1.0], [-50.0, 5.0, 1.0]);
        let far = entry([230.0, -5.0, -1.0], [240.0, 5.0, 1.0]);
        let around = entry([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]);
        assert!(entry_visible(&ahead, 0.0, &c));
        assert!(!entry_visible(&behind, 0.0, &c));
        assert!(!entry_visible(&far, 0.0, &c), "beyond the draw distance");
        assert!(entry_visible(&around, 0.0, &c), "eye inside the box");
        // The draw distance is measured to the nearest point of the box.
        let straddling = entry([215.0, -5.0, -1.0], [240.0, 5.0, 1.0]);
        assert!(entry_visible(&straddling, 0.0, &c));
        // Sway grows the box horizontally: a box just beside the view (the
        // side planes pass y = +-92.4 at x = 100 for aspect 1.6) comes back
        // into view when its clumps may sway into it.
        let beside = entry([100.0, 95.0, -1.0], [101.0, 96.0, 1.0]);
        assert!(!entry_visible(&beside, 0.0, &c));
        assert!(entry_visible(&beside, 20.0, &c));
        assert!(entry_margin(&ahead, 0.0, &c) > 1.0);
    }
}
